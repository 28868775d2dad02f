"""Calls in flight to the LLM server, with the default settings: as many as the server takes (issue 32).

Real loopback OpenAI-compatible servers (tests/support/fake_openai.py): one that takes everything, one
that says how many slots it has at GET /props as llama.cpp's llama-server does, and one that refuses
what it cannot take with a 429 without saying how much that is. No OPENAI_MAX_CONCURRENCY is set.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.generation.negotiation import Negotiator
from tests.factories import submission
from tests.support.fake_openai import MODEL_ID, FakeOpenAIServer


def default_app(app_factory, base_url: str, **overrides):
    """The openai engine as an operator configures it: no OPENAI_MAX_CONCURRENCY."""
    return app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=base_url, OPENAI_API_KEY="test",
                       OPENAI_MODEL=MODEL_ID, **overrides)


def generate(app, make_key) -> tuple[dict, Callable[[], dict]]:
    """The first run's result, and a function for another run of the same assessment."""
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()

    def run() -> dict:
        return client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).get_json()

    return run(), run


def written_by_the_llm(result: dict) -> bool:
    return result["failedReports"] == 0 and len(result["reports"]) == 25 and \
        all(r["status"] == "completed" and r["engine"] == "openai" for r in result["reports"])


def limiter_of(server: FakeOpenAIServer):
    return Negotiator.for_server(server.base_url + "/", MODEL_ID).limiter


@pytest.fixture
def own_server():
    """A server of the test's own (the shared one may still serve an earlier test's hung call, holding a
    slot), with the process's memory of servers forgotten (a new server may get an old one's port)."""
    Negotiator.forget()
    with FakeOpenAIServer(latency=0.2) as server:
        server.retry_after = 0
        yield server
    Negotiator.forget()


def test_a_server_that_takes_25_calls_gets_a_run_at_once(app_factory, make_key, fake_openai):
    # After the process's first run (its first call goes alone: it negotiates the response format),
    # a run's 25 calls are in flight together: one call time, where a cap of 8 made it four. Calls of
    # 4 s, so all 25 overlap even if a full garbage collection pauses this process (~0.4 s seen) or the other
    # test worker holds the second core while the 25 prompts are built (14 of 25 overlapped at 1 s in CI, and
    # 21 of 25 at 2 s in CI's Postgres pass on a slower machine).
    fake_openai.latency = 4.0
    app = default_app(app_factory, fake_openai.base_url, OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=5)
    first, again = generate(app, make_key)
    assert written_by_the_llm(first)
    fake_openai.max_concurrency = fake_openai.max_in_service = 0
    assert written_by_the_llm(again())
    assert fake_openai.max_in_service == 25
    limiter = limiter_of(fake_openai)
    assert limiter.slots is None and limiter.limit == limiter.cap == 25 and limiter.in_flight == 0


def test_a_server_that_says_its_slots_gets_no_more_calls_than_those(app_factory, make_key, own_server):
    # llama.cpp's llama-server says how many slots it has (GET /props, total_slots); this one refuses,
    # with a 503, a call past them. The calls past the slots wait here, off the clock: the run takes
    # ceil(25 / 3) x 0.2 s = 1.8 s, longer than the 1 s timeout of each call, and none times out.
    own_server.slots, own_server.report_slots, own_server.refuse_beyond_slots = 3, True, 503
    app = default_app(app_factory, own_server.base_url, OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=1)
    first, again = generate(app, make_key)
    assert written_by_the_llm(first)
    assert written_by_the_llm(again())
    assert own_server.refused == 0 and own_server.max_in_service == 3
    # the server counts a call out once it has sent the answer, so the next may arrive a moment before
    assert own_server.max_concurrency <= 4
    assert own_server.props_requests == 1     # asked once for the process, not per run
    assert limiter_of(own_server).slots == 3 and limiter_of(own_server).limit == 3


def test_a_server_that_refuses_past_its_slots_unsaid_gets_all_25_reports(app_factory, make_key, own_server):
    # A server of 4 slots that does not say so and answers a 429 (Retry-After: 0) past them: the
    # refusals halve the limit, each refused call waits and goes again (not one of the client's
    # retries while the server answers others), and the limit settles about the 4 slots.
    own_server.slots, own_server.refuse_beyond_slots = 4, 429
    app = default_app(app_factory, own_server.base_url, OPENAI_TIMEOUT_SECONDS=5)   # client retries: default 2
    first, again = generate(app, make_key)
    assert written_by_the_llm(first)
    refused_first = own_server.refused
    assert refused_first > 0 and own_server.max_in_service == 4
    assert written_by_the_llm(again())
    refused_again = own_server.refused - refused_first
    limiter = limiter_of(own_server)
    assert 2 <= limiter.limit <= 5, limiter.limit
    # what was learnt is kept across runs: the second run meets far fewer refusals than the first
    assert refused_again < refused_first, (refused_first, refused_again)

