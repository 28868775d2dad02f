"""HTTP benchmarks: the authenticated read against bare Flask, and submissions under load."""

from __future__ import annotations

import json
import statistics
import tempfile
from contextlib import ExitStack

import requests

from .generation import requirements
from .servers import bare_flask, create_key, load, service

SECONDS = 5.0
ROUNDS = 5           # the read ratio: rounds of short loads, one endpoint after another
ROUND_SECONDS = 2.0


def _record_url(stack: ExitStack, directory: str, **env) -> tuple[str, dict]:
    """Start the service, submit and generate one assessment; (its record's URL, auth headers)."""
    base, service_env = stack.enter_context(service(directory, **env))
    auth = {"Authorization": f"Bearer {create_key(service_env)}"}
    body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
            "requirements": requirements(20)}
    record = requests.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=10).json()
    requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth, timeout=60)
    return f"{base}/api/v1/assessments/{record['id']}", auth


def bench_read_ratio() -> dict:
    """Requests per second of GET /api/v1/assessments/:id over a bare Flask endpoint, side by side.

    All three servers run at once, idle but for the one under load. They are loaded in turn, for
    `ROUNDS` rounds of `ROUND_SECONDS` each, so that a drift in this machine's speed during the
    run (seen: ±20 % within minutes) reaches every endpoint alike. Each figure is the median over
    the rounds; a ratio is the median of the rounds' own ratios.
    """
    with ExitStack() as stack:
        targets = {"bare": (stack.enter_context(bare_flask("bench.bare_app")), {}),
                   "limiter": (stack.enter_context(bare_flask("bench.limiter_app")), {})}
        targets["api"] = _record_url(stack, stack.enter_context(tempfile.TemporaryDirectory()))
        url, auth = targets["api"]
        etag = requests.get(url, headers=auth, timeout=10).headers["ETag"]
        targets["not_modified"] = (url, {**auth, "If-None-Match": etag})
        for url, headers in targets.values():
            load(url, headers=headers, seconds=1)  # warm-up
        rounds = {name: [] for name in targets}
        for _ in range(ROUNDS):
            for name, (url, headers) in targets.items():
                rounds[name].append(load(url, headers=headers, seconds=ROUND_SECONDS))
    result = {name: {key: statistics.median(r[key] for r in runs) for key in ("rps", "p50_ms", "p99_ms")}
              | {"errors": sum(r["errors"] for r in runs)} for name, runs in rounds.items()}
    for name in ("api", "limiter", "not_modified"):
        result[f"{name}_ratio"] = statistics.median(
            mine["rps"] / bare["rps"] for mine, bare in zip(rounds[name], rounds["bare"], strict=True))
    result["ratio"] = result["api_ratio"]
    return result


def bench_submissions() -> dict:
    """Submission latency with 16 concurrent clients (20 requirements each)."""
    with tempfile.TemporaryDirectory() as directory, service(directory) as (base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        body = json.dumps({"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001",
                           "policy": "YES", "requirements": requirements(20)})
        return load(f"{base}/api/v1/assessments", method="POST", body=body, headers=auth, seconds=SECONDS)


def main() -> None:
    read = bench_read_ratio()
    print("## HTTP (waitress, 16 threads; load from a separate process, 16 keep-alive connections)\n")
    print(f"The three servers run side by side and are loaded in turn, {ROUNDS} rounds of {ROUND_SECONDS:.0f} s each;"
          " medians over the rounds (a ratio: the median of each round's ratio).\n")
    print("| endpoint | requests/s | ratio to bare | p50 | p99 | errors |")
    print("|---|---|---|---|---|---|")
    for key, name in (("bare", "bare Flask `GET /bare`"),
                      ("limiter", "bare Flask + Flask-Limiter moving window only"),
                      ("api", "`GET /api/v1/assessments/:id` (auth + rate limit + record, 25 reports)"),
                      ("not_modified", "the same with `If-None-Match` of its ETag (`304`, no body)")):
        row = read[key]
        ratio = 1.0 if key == "bare" else read[f"{key}_ratio"]
        print(f"| {name} | {row['rps']:.0f} | {ratio:.2f} | {row['p50_ms']:.1f} ms "
              f"| {row['p99_ms']:.1f} ms | {row['errors']} |")
    print(f"\np99 of `GET /api/v1/assessments/:id` at 16 connections: **{read['api']['p99_ms']:.0f} ms**"
          " (goal ≤ 100 ms; no cache: every read authenticates and builds the record from the database)\n")
    sub = bench_submissions()
    print("`POST /api/v1/assessments` (20 requirements), 16 concurrent clients, SQLite:\n")
    print("| requests/s | p50 | p99 | errors |")
    print("|---|---|---|---|")
    print(f"| {sub['rps']:.0f} | {sub['p50_ms']:.1f} ms | {sub['p99_ms']:.1f} ms | {sub['errors']} |\n")
