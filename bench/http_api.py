"""HTTP benchmarks: the authenticated read against bare Flask, and submissions under load."""

from __future__ import annotations

import json
import tempfile

import requests

from .generation import requirements
from .servers import bare_flask, create_key, load, service

SECONDS = 5.0


def _bench_flask(module: str) -> dict:
    with bare_flask(module) as url:
        load(url, seconds=1)  # warm-up
        return load(url, seconds=SECONDS)


def _bench_record(**env) -> dict:
    with tempfile.TemporaryDirectory() as directory, service(directory, **env) as (base, service_env):
        auth = {"Authorization": f"Bearer {create_key(service_env)}"}
        body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
                "requirements": requirements(20)}
        record = requests.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=10).json()
        requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth, timeout=60)
        url = f"{base}/api/v1/assessments/{record['id']}"
        load(url, headers=auth, seconds=1)
        return load(url, headers=auth, seconds=SECONDS)


def bench_read_ratio() -> dict:
    """Requests per second of GET /api/v1/assessments/:id over a bare Flask endpoint, side by side."""
    bare = _bench_flask("bench.bare_app")
    limiter = _bench_flask("bench.limiter_app")
    api = _bench_record()
    uncached = _bench_record(RECORD_CACHE_MB="0")
    return {"bare": bare, "limiter": limiter, "api": api, "uncached": uncached, "ratio": api["rps"] / bare["rps"],
            "limiter_ratio": limiter["rps"] / bare["rps"], "uncached_ratio": uncached["rps"] / bare["rps"]}


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
    print("| endpoint | requests/s | ratio to bare | p50 | p99 | errors |")
    print("|---|---|---|---|---|---|")
    for name, row in (("bare Flask `GET /bare`", read["bare"]),
                      ("bare Flask + Flask-Limiter moving window only", read["limiter"]),
                      ("`GET /api/v1/assessments/:id` (auth + rate limit + record, 25 reports)", read["api"]),
                      ("the same with the record cache off (`RECORD_CACHE_MB=0`)", read["uncached"])):
        print(f"| {name} | {row['rps']:.0f} | {row['rps'] / read['bare']['rps']:.2f} | {row['p50_ms']:.1f} ms "
              f"| {row['p99_ms']:.1f} ms | {row['errors']} |")
    print(f"\nratio API / bare Flask: **{read['ratio']:.2f}** (goal ≥ 0.4)\n")
    sub = bench_submissions()
    print("`POST /api/v1/assessments` (20 requirements), 16 concurrent clients, SQLite:\n")
    print("| requests/s | p50 | p99 | errors |")
    print("|---|---|---|---|")
    print(f"| {sub['rps']:.0f} | {sub['p50_ms']:.1f} ms | {sub['p99_ms']:.1f} ms | {sub['errors']} |\n")
