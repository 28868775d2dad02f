"""The fake OpenAI server answers the real `openai` client, over real HTTP."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest
from openai import OpenAI

from app.generation.openai_engine import RESPONSE_FORMAT
from tests.support.fake_openai import FakeOpenAIServer


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        yield running


@pytest.fixture
def client(server):
    made = OpenAI(api_key="test", base_url=server.base_url, max_retries=0, timeout=5)
    yield made
    made.close()


def prompt(persona: str, role: str = "CFO", methodology: str = "spin") -> str:
    return f"Write the report.\nPersona: {persona} ({role})\nMethodology: {methodology}\nFramework: ISO 27001"


def ask(client: OpenAI, persona: str, **kwargs):
    return client.chat.completions.create(
        model="gpt-test", response_format=RESPONSE_FORMAT,
        messages=[{"role": "system", "content": "You are a consultant."},
                  {"role": "user", "content": prompt(persona, **kwargs)}],
    )


def assert_report(report: dict) -> None:
    assert set(report) == {"title", "summary", "sections", "callToAction"}
    assert all(isinstance(report[key], str) and report[key] for key in ("title", "summary", "callToAction"))
    assert report["sections"]
    for section in report["sections"]:
        assert set(section) == {"heading", "paragraphs", "bullets"}
        assert isinstance(section["heading"], str)
        assert all(isinstance(p, str) for p in section["paragraphs"] + section["bullets"])


def test_base_url_is_loopback_v1(server):
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.base_url.endswith("/v1")


def test_completion_with_json_schema_returns_a_parseable_report(server, client):
    completion = ask(client, "cfo", role="CFO", methodology="challenger")

    assert completion.object == "chat.completion"
    assert completion.model == "gpt-test"
    choice = completion.choices[0]
    assert choice.index == 0 and choice.finish_reason == "stop" and choice.message.role == "assistant"
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    report = json.loads(choice.message.content)
    assert_report(report)
    text = json.dumps(report)
    assert "CFO" in text and "the organization" in text and "challenger" in text

    assert len(server.requests) == 1
    assert server.requests[0]["response_format"] == RESPONSE_FORMAT
    assert server.requests[0]["model"] == "gpt-test"
    assert len(server.calls_for("cfo")) == 1 and server.calls_for("ciso") == []


def test_content_is_deterministic_per_persona(client):
    first = ask(client, "ciso", role="CISO").choices[0].message.content
    again = ask(client, "ciso", role="CISO").choices[0].message.content
    other = ask(client, "coo", role="COO").choices[0].message.content
    assert first == again
    assert first != other


def test_persona_absent_is_none_and_still_answered(server, client):
    completion = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hello"}])
    assert_report(json.loads(completion.choices[0].message.content))
    assert server.calls_for("cfo") == []


def test_status_for_500_raises_internal_server_error(server, client):
    server.status_for["cfo"] = 500
    with pytest.raises(openai.InternalServerError) as raised:
        ask(client, "cfo")
    assert raised.value.status_code == 500
    assert raised.value.body["type"] == "server_error"
    assert_report(json.loads(ask(client, "ciso", role="CISO").choices[0].message.content))
    assert len(server.calls_for("cfo")) == 1


def test_status_for_429_raises_rate_limit_error(server, client):
    server.status_for["cfo"] = 429
    with pytest.raises(openai.RateLimitError) as raised:
        ask(client, "cfo")
    assert raised.value.code == "rate_limit_exceeded"


def test_fail_all_status_and_reset(server, client):
    server.fail_all_status = 503
    with pytest.raises(openai.InternalServerError):
        ask(client, "cio", role="CIO")
    with pytest.raises(openai.InternalServerError):
        client.models.list()

    server.reset()
    assert server.requests == [] and server.fail_all_status is None
    assert_report(json.loads(ask(client, "cio", role="CIO").choices[0].message.content))
    assert [model.id for model in client.models.list()] == ["fake-model"]


def test_malformed_for_returns_content_that_is_not_the_schema(server, client):
    server.malformed_for.add("cfo")
    contents = [ask(client, "cfo").choices[0].message.content for _ in range(2)]
    assert json.loads(contents[0]) == {"title": 5}
    with pytest.raises(ValueError):
        json.loads(contents[1])


def test_unknown_path_is_404(server, client):
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="m", input="x")


def test_parallel_calls_overlap(server, client):
    server.latency = 0.3
    personas = [f"persona_{i}" for i in range(25)]
    started = time.monotonic()
    with ThreadPoolExecutor(25) as pool:
        completions = list(pool.map(lambda p: ask(client, p, role=p.upper()), personas))
    elapsed = time.monotonic() - started

    assert server.max_concurrency >= 20, (server.max_concurrency, elapsed)
    assert len(server.requests) == 25
    for persona, completion in zip(personas, completions, strict=True):
        assert persona.upper() in completion.choices[0].message.content
        assert len(server.calls_for(persona)) == 1


def test_hang_for_exceeds_the_client_timeout(server):
    server.hang_for.add("cfo")
    impatient = OpenAI(api_key="test", base_url=server.base_url, max_retries=0, timeout=0.5)
    try:
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            ask(impatient, "cfo")
        assert time.monotonic() - started < 5
        assert_report(json.loads(ask(impatient, "ciso", role="CISO").choices[0].message.content))
    finally:
        impatient.close()
    # stop() must not wait out the 30 s hang still pending on the server side
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 2


def test_stop_with_idle_keep_alive_connections_is_prompt():
    server = FakeOpenAIServer().start()
    client = OpenAI(api_key="test", base_url=server.base_url, max_retries=0, timeout=5)
    try:
        ask(client, "cfo")                      # leaves a kept-alive connection in the pool
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 2
        server.stop()                           # idempotent
    finally:
        client.close()
