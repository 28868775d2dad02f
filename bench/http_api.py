"""HTTP benchmarks: the authenticated read against bare Flask, and submissions under load."""

from __future__ import annotations

import json
import tempfile

import requests

from .generation import requirements
from .servers import bare_flask, create_key, load, service

SECONDS = 5.0


def bench_read_ratio() -> dict:
    """Requests per second of GET /api/v1/assessments/:id over a bare Flask endpoint."""
    with bare_flask() as url:
        load(url, seconds=1)  # warm-up
        bare = load(url, seconds=SECONDS)
    with tempfile.TemporaryDirectory() as directory, service(directory) as (base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
                "requirements": requirements(20)}
        record = requests.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=10).json()
        requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth, timeout=60)
        url = f"{base}/api/v1/assessments/{record['id']}"
        load(url, headers=auth, seconds=1)
        api = load(url, headers=auth, seconds=SECONDS)
    return {"bare": bare, "api": api, "ratio": api["rps"] / bare["rps"]}


def bench_submissions() -> dict:
    """Submission latency with 16 concurrent clients (20 requirements each)."""
    with tempfile.TemporaryDirectory() as directory, service(directory) as (base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        body = json.dumps({"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001",
                           "policy": "YES", "requirements": requirements(20)})
        return load(f"{base}/api/v1/assessments", method="POST", body=body, headers=auth, seconds=SECONDS)


def main() -> None:
    read = bench_read_ratio()
    print("## HTTP (waitress, 16 threads; load from a separate process, 16 keep-alive connections, 5 s)\n")
    print("| endpoint | requests/s | p50 | p99 | errors |")
    print("|---|---|---|---|---|")
    for name, row in (("bare Flask `GET /bare`", read["bare"]),
                      ("`GET /api/v1/assessments/:id` (auth + rate limit + DB, 25 reports)", read["api"])):
        print(f"| {name} | {row['rps']:.0f} | {row['p50_ms']:.1f} ms | {row['p99_ms']:.1f} ms | {row['errors']} |")
    print(f"\nratio API / bare Flask: **{read['ratio']:.2f}** (goal ≥ 0.4)\n")
    sub = bench_submissions()
    print("`POST /api/v1/assessments` (20 requirements), 16 concurrent clients, SQLite:\n")
    print("| requests/s | p50 | p99 | errors |")
    print("|---|---|---|---|")
    print(f"| {sub['rps']:.0f} | {sub['p50_ms']:.1f} ms | {sub['p99_ms']:.1f} ms | {sub['errors']} |\n")
