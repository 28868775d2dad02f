"""Generation: what `generate` adds over one LLM call, and the template engine's own time."""

from __future__ import annotations

import math
import os
import statistics
import tempfile
import time

from app import create_app
from app.catalog import PERSONAS
from app.extensions import db
from app.generation.facts import AssessmentFacts, RequirementFact
from app.generation.negotiation import Negotiator
from app.generation.template_engine import TemplateEngine
from app.keys.service import issue_api_key
from tests.support.fake_openai import FakeOpenAIServer

from .llm_server import llm_server, llm_server_process

STATUSES = ("met", "not_met", "partially_met")
TITLES = ("Access control", "Information backup", "Supplier agreements", "Incident response planning",
          "Security awareness training", "Logging and monitoring", "Cryptographic controls",
          "Business continuity", "Vulnerability management", "Data classification")


def requirements(n: int) -> list[dict]:
    return [{"id": f"A.{5 + i % 4}.{i}", "title": f"{TITLES[i % len(TITLES)]} {i}", "status": STATUSES[i % 3]}
            for i in range(n)]


def make_app(directory: str, **config):
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{directory}/bench.db",
                      "PUBLIC_BASE_URL": "http://127.0.0.1:8000", **config})
    with app.app_context():
        db.drop_all()
        db.create_all()
        issued = issue_api_key("bench")
        db.session.commit()
    return app, {"Authorization": f"Bearer {issued.api_key}"}


def submit(client, auth, n: int) -> int:
    body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
            "requirements": requirements(n)}
    response = client.post("/api/v1/assessments", json=body, headers=auth)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def time_generate(client, auth, assessment_id: int) -> float:
    start = time.perf_counter()
    response = client.post(f"/api/v1/assessments/{assessment_id}/generate", headers=auth)
    elapsed = time.perf_counter() - start
    assert response.status_code == 200 and response.get_json()["failedReports"] == 0, response.get_json()
    return elapsed


def time_one_call(engine, facts: AssessmentFacts) -> float:
    start = time.perf_counter()
    engine.write(facts, PERSONAS[0].id, "spin")
    return time.perf_counter() - start


def bench_llm_overhead(runs: int = 9) -> list[dict]:
    """At each latency: generate's wall time and what it adds over the latency; and one call alone.

    One call is the engine's single `write`, sequentially: what the client and the machine add to a
    single LLM call, the floor under what generate can add. Medians over `runs`. The loopback server
    answers as a well-behaved model, so no call is retried or replaced by the template engine.
    """
    rows = []
    for latency in (0.2, 1.0):
        with llm_server(latency) as base_url, tempfile.TemporaryDirectory() as directory:
            app, auth = make_app(directory, REPORT_ENGINE="openai", OPENAI_BASE_URL=base_url, OPENAI_API_KEY="bench",
                                 OPENAI_MAX_RETRIES=0, GENERATION_WORKERS=25, OPENAI_MAX_CONCURRENCY=25)
            engine = app.extensions["report_engine"]
            try:
                client = app.test_client()
                assessment_id = submit(client, auth, 200)
                time_generate(client, auth, assessment_id)  # warm-up: pooled connections, mode negotiated
                walls = [time_generate(client, auth, assessment_id) for _ in range(runs)]
                facts = AssessmentFacts("ISO 27001", "Healthcare", True, None, tuple(
                    RequirementFact(r["id"], r["title"], r["status"]) for r in requirements(200)))
                one = statistics.median(time_one_call(engine, facts) for _ in range(runs))
            finally:
                engine.close()
                app.extensions["generation_pool"].shutdown()
            rows.append({"latency": latency, "wall": statistics.median(walls),
                         "overhead": statistics.median(walls) - latency, "one": one - latency})
    return rows


def bench_slots(call_time: float = 0.5) -> list[tuple[int, float, float]]:
    """(slots, generate wall time, ceil(25 / slots) x call time) against a server of few slots, with
    OPENAI_MAX_CONCURRENCY set to the slots: the queue is ours, so no call times out waiting."""
    rows = []
    for slots in (2, 4, 8):
        with FakeOpenAIServer(latency=call_time) as server, tempfile.TemporaryDirectory() as directory:
            server.slots = slots
            app, auth = make_app(directory, REPORT_ENGINE="openai", OPENAI_BASE_URL=server.base_url,
                                 OPENAI_API_KEY="bench", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=10,
                                 OPENAI_MAX_CONCURRENCY=slots)
            try:
                client = app.test_client()
                wall = time_generate(client, auth, submit(client, auth, 20))
            finally:
                app.extensions["report_engine"].close()
                app.extensions["generation_pool"].shutdown()
            rows.append((slots, wall, math.ceil(25 / slots) * call_time))
    return rows


# (label, slots, GET /props says how many, status past the slots: None queues there, as llama-server does)
SERVERS = (("unlimited (OpenAI, vLLM)", None, False, None),
           ("8 slots, said at /props (llama-server --parallel 8)", 8, True, None),
           ("2 slots, said at /props (llama-server --parallel 2)", 2, True, None),
           ("8 slots, unsaid, 429 past them (Retry-After 0)", 8, False, 429),
           ("2 slots, unsaid, 429 past them (Retry-After 0)", 2, False, 429))


def bench_default_concurrency(call_time: float = 0.5, runs: int = 3) -> list[dict]:
    """Generate with the default settings (no OPENAI_MAX_CONCURRENCY) against loopback servers of each kind,
    each in its own process.

    Per server: the process's first run (it negotiates the response format with one call alone first),
    then the median of `runs` more, in call times; the most calls the server had at once over all runs
    (in service; in flight, queued there included), the refusals it sent, and the reports that failed or
    fell back to the template engine.
    """
    rows = []
    for label, slots, report, refuse in SERVERS:
        Negotiator.forget()
        with llm_server_process(call_time, slots=slots, report_slots=report, refuse=refuse) as server, \
                tempfile.TemporaryDirectory() as directory:
            app, auth = make_app(directory, REPORT_ENGINE="openai", OPENAI_BASE_URL=server.base_url,
                                 OPENAI_API_KEY="bench")
            try:
                client = app.test_client()
                assessment_id = submit(client, auth, 20)
                first, lost = _generate(client, auth, assessment_id)
                later = []
                for _ in range(runs):
                    wall, failed = _generate(client, auth, assessment_id)
                    later.append(wall)
                    lost += failed
            finally:
                app.extensions["report_engine"].close()
                app.extensions["generation_pool"].shutdown()
        stats = server.stats
        rows.append({"server": label, "first": first / call_time, "later": statistics.median(later) / call_time,
                     "goal": math.ceil(25 / slots) if slots else 1, "in_service": stats.get("max_in_service"),
                     "in_flight": stats.get("max_concurrency"), "refused": stats.get("refused"), "lost": lost})
    return rows


def _generate(client, auth, assessment_id: int) -> tuple[float, int]:
    """(wall time, reports not written by the LLM: failed, or written by the template engine instead)."""
    start = time.perf_counter()
    result = client.post(f"/api/v1/assessments/{assessment_id}/generate", headers=auth).get_json()
    elapsed = time.perf_counter() - start
    return elapsed, sum(r["status"] != "completed" or r["engine"] != "openai" for r in result["reports"])


def bench_template_engine(runs: int = 15) -> list[tuple[int, float, float]]:
    """(requirements, median ms, p90 ms) to write all 25 reports from fresh facts."""
    engine = TemplateEngine()
    rows = []
    for n in (10, 200, 2000):
        reqs = tuple(RequirementFact(r["id"], r["title"], r["status"]) for r in requirements(n))
        samples = []
        for _ in range(runs):
            facts = AssessmentFacts("ISO 27001", "Healthcare", True, None, reqs)
            start = time.perf_counter()
            for persona in PERSONAS:
                engine.write(facts, persona.id, "spin")
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        rows.append((n, statistics.median(samples), samples[int(len(samples) * 0.9) - 1]))
    return rows


def bench_template_generate(runs: int = 7) -> list[tuple[int, float]]:
    """(requirements, median ms) of the whole generate endpoint with the template engine."""
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        app, auth = make_app(directory)
        client = app.test_client()
        for n in (10, 200, 2000):
            assessment_id = submit(client, auth, n)
            time_generate(client, auth, assessment_id)
            rows.append((n, statistics.median(time_generate(client, auth, assessment_id) for _ in range(runs)) * 1000))
        app.extensions["generation_pool"].shutdown()
    return rows


def main() -> None:
    print(f"## Generation ({os.cpu_count()} cores)\n")
    print("openai engine (the client's own httpx transport), 25 workers, OPENAI_MAX_CONCURRENCY 25, loopback"
          " OpenAI-compatible server in its own process, 200 requirements, median of 9:\n")
    print("| LLM latency | generate wall time | added over the latency (goal ≤ 40 ms) |"
          " one call alone, over the latency | generate over one call alone |")
    print("|---|---|---|---|---|")
    for row in bench_llm_overhead():
        print(f"| {row['latency'] * 1000:.0f} ms | {row['wall'] * 1000:.0f} ms | {row['overhead'] * 1000:.0f} ms"
              f" | {row['one'] * 1000:.0f} ms | {(row['overhead'] - row['one']) * 1000:.0f} ms |")
    print("\nopenai engine against a server of few slots (0.5 s a call), OPENAI_MAX_CONCURRENCY = slots:\n")
    print("| slots | generate wall time | ceil(25 / slots) x call time |")
    print("|---|---|---|")
    for slots, wall, expected in bench_slots():
        print(f"| {slots} | {wall:.2f} s | {expected:.1f} s |")
    print("\nopenai engine with the default settings (no OPENAI_MAX_CONCURRENCY), 0.5 s a call, in call times:"
          " the process's first run, then the median of 3:\n")
    print("| server | first run | later runs | goal, ceil(25 / slots) | most in service | most in flight |"
          " refusals | reports lost |")
    print("|---|---|---|---|---|---|---|---|")
    for row in bench_default_concurrency():
        print(f"| {row['server']} | {row['first']:.2f} | {row['later']:.2f} | {row['goal']} | {row['in_service']}"
              f" | {row['in_flight']} | {row['refused']} | {row['lost']} |")
    print("\ntemplate engine, 25 reports from fresh facts, median of 15:\n")
    print("| requirements | 25 reports, median (goal ≤ 50 ms at 200) | p90 |")
    print("|---|---|---|")
    for n, median, p90 in bench_template_engine():
        print(f"| {n} | {median:.1f} ms | {p90:.1f} ms |")
    print("\nwhole `POST /generate` with the template engine (SQLite, in-process client), median of 7:\n")
    print("| requirements | generate |")
    print("|---|---|")
    for n, ms in bench_template_generate():
        print(f"| {n} | {ms:.0f} ms |")
    print()
