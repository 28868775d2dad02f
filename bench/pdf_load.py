"""PDFs under load (issue 31): ten readers of one PDF against one reader, and /healthz and the API while sixteen
PDFs of different assessments are asked for at once."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections import Counter

import requests

from .generation import requirements
from .servers import create_key, service

BODY = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
        "requirements": requirements(50)}


def _assessment_pdf(base: str, auth: dict) -> tuple[str, int]:
    """A new generated assessment: (its all-reports PDF URL, its id)."""
    record = requests.post(f"{base}/api/v1/assessments", json=BODY, headers=auth, timeout=30).json()
    requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth, timeout=300).raise_for_status()
    return record["embedUrl"] + ".pdf", record["id"]


def _at_once(urls: list[str]) -> tuple[float, list[int]]:
    """GET every URL at once, each on its own thread; (seconds until the last answer, status codes)."""
    codes: list[int] = []
    gate = threading.Barrier(len(urls))

    def get(url: str) -> None:
        gate.wait()
        codes.append(requests.get(url, timeout=300).status_code)

    threads = [threading.Thread(target=get, args=(url,)) for url in urls]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, codes


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    with tempfile.TemporaryDirectory() as directory, service(
            directory, EMBED_RATE_LIMIT="1000000/minute", EMBED_PDF_RATE_LIMIT="1000000/minute") as (base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        _at_once([_assessment_pdf(base, auth)[0]])                 # a print worker is up and has its fonts
        one, _ = _at_once([_assessment_pdf(base, auth)[0]])
        shared_url = _assessment_pdf(base, auth)[0]
        ten, ten_codes = _at_once([shared_url] * 10)

        urls = [_assessment_pdf(base, auth)[0] for _ in range(16)]
        assessment_id = _assessment_pdf(base, auth)[1]
        samples: dict[str, list[float]] = {"GET /healthz": [], "GET /api/v1/assessments/:id": []}
        codes: list[int] = []
        printing = threading.Thread(target=lambda: codes.extend(_at_once(urls)[1]))
        printing.start()
        session = requests.Session()
        while printing.is_alive():
            for name, url, headers in (("GET /healthz", f"{base}/healthz", {}),
                                       ("GET /api/v1/assessments/:id", f"{base}/api/v1/assessments/{assessment_id}",
                                        auth)):
                started = time.perf_counter()
                session.get(url, headers=headers, timeout=30)
                samples[name].append((time.perf_counter() - started) * 1000)
            time.sleep(0.05)
        session.close()
    print("## PDFs under load (all 25 reports of a 50-requirement assessment per PDF; waitress 16 threads,"
          " EMBED_PDF_MAX_CONCURRENT 2, EMBED_PDF_MAX_REQUESTS 8)\n")
    print("| what | wall time | answers |")
    print("|---|---|---|")
    print(f"| one reader, one PDF | {one:.1f} s | 200 |")
    print(f"| ten readers of one PDF at once (one print, shared) | {ten:.1f} s | "
          f"{', '.join(f'{n}× {c}' for c, n in sorted(Counter(ten_codes).items()))} |")
    print(f"| sixteen readers of sixteen PDFs at once | — | "
          f"{', '.join(f'{n}× {c}' for c, n in sorted(Counter(codes).items()))} (503: past the request cap) |")
    print("\nWhile the sixteen PDFs were asked for:\n")
    print("| endpoint | samples | p50 | p99 (goal < 100 ms) | max |")
    print("|---|---|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {len(values)} | {statistics.median(values):.1f} ms | {_percentile(values, 0.99):.1f} ms "
              f"| {max(values):.1f} ms |")
    print()


if __name__ == "__main__":
    main()
