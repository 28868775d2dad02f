"""`python -m bench.load`: a small closed-loop HTTP load generator in its own process.

Each of N threads keeps one HTTP/1.1 connection open and sends requests back to back for a
fixed time; prints one JSON line with requests per second and latency percentiles.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from urllib.parse import urlsplit


def worker(url: str, method: str, body: bytes | None, headers: dict, until: float, out: list, errors: list):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    latencies = []
    while time.perf_counter() < until:
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status >= 400:
                errors.append(response.status)
        except (OSError, http.client.HTTPException) as exc:
            errors.append(type(exc).__name__)
            conn.close()
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
            continue
        latencies.append(time.perf_counter() - started)
    conn.close()
    out.extend(latencies)


def run(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None,
        threads: int = 16, seconds: float = 5.0) -> dict:
    """Load `url` from `threads` connections for `seconds`."""
    headers = {"Connection": "keep-alive", **(headers or {})}
    if body is not None:
        headers.setdefault("Content-Type", "application/json")
    latencies: list[float] = []
    errors: list = []
    until = time.perf_counter() + seconds
    pool = [threading.Thread(target=worker, args=(url, method, body, headers, until, latencies, errors))
            for _ in range(threads)]
    started = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    count = len(latencies)

    def pct(p: float) -> float:
        return latencies[min(count - 1, int(count * p))] * 1000 if count else float("nan")

    return {"requests": count, "rps": count / elapsed, "p50_ms": pct(0.50), "p99_ms": pct(0.99),
            "mean_ms": statistics.fmean(latencies) * 1000 if count else float("nan"), "errors": len(errors),
            "error_kinds": sorted({str(e) for e in errors})[:5]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--method", default="GET")
    parser.add_argument("--body", default=None)
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    hdrs = dict(h.split(": ", 1) for h in args.header)
    print(json.dumps(run(args.url, args.method, args.body.encode() if args.body else None, hdrs,
                         args.threads, args.seconds)))
