"""Other endpoints while six generations (three partners, two each) wait on a slow (3 s) LLM."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time

import requests

from .generation import requirements
from .llm_server import llm_server
from .servers import create_key, service


def main() -> None:
    with llm_server(3.0) as llm_url, tempfile.TemporaryDirectory() as directory, service(
            directory, REPORT_ENGINE="openai", OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="bench",
            OPENAI_MAX_RETRIES="0", EMBED_RATE_LIMIT="1000000/minute") as (base, env):
        # Three partners with two generations each: a partner may run two at once.
        partners = [{"Authorization": f"Bearer {create_key(env, partner=f'bench_{n}')}"} for n in range(3)]
        auth = partners[0]
        body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
                "requirements": requirements(50)}

        def submit(headers: dict) -> int:
            return requests.post(f"{base}/api/v1/assessments", json=body, headers=headers, timeout=10).json()["id"]

        runs = [(submit(headers), headers) for headers in partners for _ in range(2)]
        ids = [submit(auth)]
        record = requests.get(f"{base}/api/v1/assessments/{ids[-1]}", headers=auth, timeout=10).json()
        running = [threading.Thread(target=requests.post, args=(f"{base}/api/v1/assessments/{i}/generate",),
                                    kwargs={"headers": headers, "timeout": 300}) for i, headers in runs]
        started = time.perf_counter()
        for thread in running:
            thread.start()
        time.sleep(0.5)
        samples: dict[str, list[float]] = {"GET /healthz": [], "GET /api/v1/assessments/:id": [],
                                           "POST /api/v1/assessments": [], "GET embed viewer": []}
        session = requests.Session()
        while any(thread.is_alive() for thread in running):
            for name, call in (
                    ("GET /healthz", lambda: session.get(f"{base}/healthz", timeout=10)),
                    ("GET /api/v1/assessments/:id",
                     lambda: session.get(f"{base}/api/v1/assessments/{ids[-1]}", headers=auth, timeout=10)),
                    ("POST /api/v1/assessments",
                     lambda: session.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=10)),
                    ("GET embed viewer", lambda: session.get(record["embedUrl"], timeout=10))):
                t = time.perf_counter()
                call()
                samples[name].append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)
        wall = time.perf_counter() - started
        for thread in running:
            thread.join()
        session.close()
        accepted, finished = _async_runs(base, partners, submit)
    print("## Responsiveness during six generations (three partners, two each) against a 3 s LLM"
          " (25 workers, waitress 16 threads)\n")
    print(f"the six generations took {wall:.1f} s together (150 calls on a 25-thread pool).\n")
    print("| endpoint | samples | p50 | max (goal well under 500 ms) |")
    print("|---|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {len(values)} | {statistics.median(values):.1f} ms | {max(values):.1f} ms |")
    print()
    print("## `generate` with `Prefer: respond-async` against the same 3 s LLM (six runs, three partners)\n")
    print("| what | p50 | max |")
    print("|---|---|---|")
    print(f"| 202 answer (goal < 100 ms) | {statistics.median(accepted):.1f} ms | {max(accepted):.1f} ms |")
    print(f"| status `completed` seen by a poller (every 0.25 s) | {statistics.median(finished):.1f} s |"
          f" {max(finished):.1f} s |")
    print()


def _async_runs(base: str, partners: list[dict], submit) -> tuple[list[float], list[float]]:
    """Milliseconds to each 202, and seconds until a poller saw each run completed."""
    runs = [(submit(headers), headers) for headers in partners for _ in range(2)]
    accepted, started = [], {}
    for assessment_id, headers in runs:
        t = time.perf_counter()
        response = requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate",
                                 headers={**headers, "Prefer": "respond-async"}, timeout=30)
        accepted.append((time.perf_counter() - t) * 1000)
        assert response.status_code == 202, response.text
        started[assessment_id] = t
    finished: dict[int, float] = {}
    while len(finished) < len(runs):
        time.sleep(0.25)
        for assessment_id, headers in runs:
            if assessment_id not in finished and requests.get(
                    f"{base}/api/v1/assessments/{assessment_id}", headers=headers,
                    timeout=10).json()["status"] == "completed":
                finished[assessment_id] = time.perf_counter() - started[assessment_id]
    return accepted, list(finished.values())
