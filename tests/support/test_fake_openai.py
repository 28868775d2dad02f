"""The fake OpenAI server answers the real `openai` client, over real HTTP."""

from __future__ import annotations

import gzip
import http.client
import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import openai
import pytest
from openai import OpenAI

from tests.support.fake_openai import FakeOpenAIServer

# The formats the app's engine sends (kept here, so these tests do not follow the engine's changes).
REPORT_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["title", "summary", "sections", "callToAction", "citedRequirements"],
    "properties": {
        "title": {"type": "string"}, "summary": {"type": "string"}, "callToAction": {"type": "string"},
        "sections": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["heading", "paragraphs", "bullets"],
            "properties": {"heading": {"type": "string"},
                           "paragraphs": {"type": "array", "items": {"type": "string"}},
                           "bullets": {"type": "array", "items": {"type": "string"}}}}},
        "citedRequirements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "status"],
            "properties": {"id": {"type": "string"},
                           "status": {"type": "string", "enum": ["met", "not_met", "partially_met"]}}}},
    },
}
RESPONSE_FORMAT = {"type": "json_schema",
                   "json_schema": {"name": "persona_report", "strict": True, "schema": REPORT_SCHEMA}}
JSON_OBJECT_FORMAT = {"type": "json_object", "schema": REPORT_SCHEMA}


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


def fenced_json(text: str) -> dict:
    """The JSON object of a plain-text answer: prose, a ```json fence, prose."""
    match = re.fullmatch(r"([^`{]+)```json\n(\{.*\})\n```([^`{}]+)", text, re.S)
    assert match, text
    assert match.group(1).strip() and match.group(3).strip()
    return json.loads(match.group(2))


def assert_report(report: dict) -> None:
    assert set(report) == {"title", "summary", "sections", "callToAction", "citedRequirements"}
    assert all(set(cited) == {"id", "status"} and cited["status"] in ("met", "not_met", "partially_met")
               for cited in report["citedRequirements"])
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
    report = fenced_json(completion.choices[0].message.content)   # no response_format: plain text
    assert_report(report)
    assert report["citedRequirements"] == []
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
    assert server.max_in_service >= 20, (server.max_in_service, elapsed)   # no slot limit: none queued
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


# ---------------------------------------------------------------- prompts like the app's engine writes
SYSTEM = "You are a senior compliance consultant. Answer with a JSON object only, matching the schema."
REQUIREMENTS = [
    ("A.5.1", "Policies for information security", "met", "governance"),
    ("A.5.15", "Access control", "NOT MET", "access control, identity"),
    ("A.8.13", "Information backup", "PARTIALLY MET", "continuity"),
    ("A.5.24", "Incident management planning | roles", "NOT MET", "incident response"),
    ("A.5.30", "ICT readiness for business continuity", "PARTIALLY MET", "continuity"),
]
OPEN = [("A.5.24", "NOT MET"), ("A.8.13", "PARTIALLY MET"), ("A.5.15", "NOT MET"), ("A.5.30", "PARTIALLY MET")]
STATUS = {"met": "met", "NOT MET": "not_met", "PARTIALLY MET": "partially_met"}
ID_SHAPE = re.compile(r"(?<![\w.])[A-Z]+\.\d+\.\d+(?![\w(])")


def shared_prompt(requirements=REQUIREMENTS) -> str:
    return "\n".join([
        "Framework: ISO 27001",
        "Compliance score: 40 / 100 (1 met, 2 partially met, 2 not met, 5 total).",
        "Methodology: spin (SPIN selling). Tone: curious. Structure: situation, problem, implication.",
        "Requirements (id | title | status | topics):",
        *(f"- {rid} | {title} | {status} | {topics}" for rid, title, status, topics in requirements),
    ])


def reader_prompt(persona: str, label: str, open_items=OPEN) -> str:
    listed = ", ".join(f"{rid} ({status})" for rid, status in open_items)
    return "\n".join([
        f"Persona: {persona} ({label})",
        "Reader: the person who owns the budget. Relation: an internal decision maker.",
        "Open requirements in the reader's topics (discuss these first): "
        + (listed or "none; say so, and say what the reader's job is then"),
        "Other open requirements (mention briefly as other owners' work): A.5.30",
        "Write the report for this reader now.",
    ])


def engine_messages(persona: str = "cfo", label: str = "CFO", open_items=OPEN, requirements=REQUIREMENTS):
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": shared_prompt(requirements)},
            {"role": "user", "content": reader_prompt(persona, label, open_items)}]


def retry_messages(messages: list[dict], answer: str, errors: str = "A.5.99 is not a requirement") -> list[dict]:
    return [*messages, {"role": "assistant", "content": answer},
            {"role": "user", "content": f"That answer cannot be stored: {errors}. Answer again with the whole "
                                        "corrected JSON object."}]


def complete(client: OpenAI, messages: list[dict], response_format=RESPONSE_FORMAT, **kwargs):
    extra = {} if response_format is None else {"response_format": response_format}
    return client.chat.completions.create(model="gpt-test", messages=messages, max_tokens=2000,
                                          temperature=0.2, **extra, **kwargs)


def report_of(completion) -> dict:
    report = json.loads(completion.choices[0].message.content)
    assert_report(report)
    return report


def text_of(report: dict) -> str:
    parts = [report["title"], report["summary"], report["callToAction"]]
    for section in report["sections"]:
        parts += [section["heading"], *section["paragraphs"], *section["bullets"]]
    return "\n".join(parts)


def prompt_of(messages: list[dict]) -> str:
    return "\n".join(m["content"] for m in messages if m["role"] != "assistant")


def assert_grounded(report: dict, messages: list[dict], expected: list[tuple[str, str]]) -> None:
    """Cites `expected` with those statuses, names each in its text, and names no id outside the prompt."""
    assert [(c["id"], c["status"]) for c in report["citedRequirements"]] == expected
    text = text_of(report)
    bullets = [b for section in report["sections"] for b in section["bullets"]]
    for rid, _status in expected:
        assert any(b.startswith(f"{rid} ") for b in bullets), (rid, bullets)
    assert set(ID_SHAPE.findall(text)) <= set(ID_SHAPE.findall(prompt_of(messages)))


# ---------------------------------------------------------------- citations
def test_cites_the_readers_open_requirements_with_their_statuses(server, client):
    messages = engine_messages()
    report = report_of(complete(client, messages))
    assert_grounded(report, messages, [("A.5.24", "not_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")])
    bullets = report["sections"][0]["bullets"]
    assert "A.8.13 is partially met: present but incomplete." in bullets
    assert "spin" in text_of(report) and "CFO" in report["title"]
    assert report_of(complete(client, messages)) == report   # deterministic


def test_fewer_open_requirements_are_all_cited(client):
    messages = engine_messages(open_items=[("A.5.30", "PARTIALLY MET")])
    assert_grounded(report_of(complete(client, messages)), messages, [("A.5.30", "partially_met")])


def test_no_open_requirements_cites_the_requirement_lines(client):
    messages = engine_messages("auditor", "Auditor", open_items=[])
    assert "discuss these first): none;" in messages[2]["content"]
    assert_grounded(report_of(complete(client, messages)), messages,
                    [("A.5.1", "met"), ("A.5.15", "not_met"), ("A.8.13", "partially_met")])


def test_ids_with_spaces_and_parentheses(server, client):
    requirements = [("Art. 32(1)(a)", "Pseudonymisation and encryption", "NOT MET", "data protection"),
                    ("Art. 32(1)(b)", "Confidentiality, integrity | availability", "met", "resilience"),
                    ("Art. 21(2)(h)", "Cryptography", "PARTIALLY MET", "cryptography")]
    messages = engine_messages(requirements=requirements,
                               open_items=[("Art. 21(2)(h)", "PARTIALLY MET"), ("Art. 32(1)(a)", "NOT MET")])
    report = report_of(complete(client, messages))
    assert [(c["id"], c["status"]) for c in report["citedRequirements"]] == [
        ("Art. 21(2)(h)", "partially_met"), ("Art. 32(1)(a)", "not_met")]
    assert "Art. 21(2)(h) is partially met: present but incomplete." in report["sections"][0]["bullets"]

    messages = engine_messages(requirements=requirements, open_items=[])
    assert [c["status"] for c in report_of(complete(client, messages))["citedRequirements"]] == [
        "not_met", "met", "partially_met"]

    server.cite_unknown_for.add("cfo")
    unknown = report_of(complete(client, messages))["citedRequirements"][-1]["id"]
    assert re.fullmatch(r"Art\. \d+\(\d+\)\([a-z]\)", unknown) and unknown not in prompt_of(messages)


def test_plain_text_mode_fences_the_json_between_sentences(server, client):
    messages = engine_messages()
    content = complete(client, messages, response_format=None).choices[0].message.content
    assert not content.lstrip().startswith("{")
    report = fenced_json(content)
    assert_report(report)
    assert report == report_of(complete(client, messages))   # the same report as in JSON mode
    assert server.response_formats == [None, RESPONSE_FORMAT]


def test_json_object_with_a_schema_is_answered_with_bare_json(server, client):
    messages = engine_messages()
    report = report_of(complete(client, messages, response_format=JSON_OBJECT_FORMAT))
    assert_grounded(report, messages, [("A.5.24", "not_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")])


def test_cite_unknown_for_cites_an_id_outside_the_prompt_on_every_attempt(server, client):
    server.cite_unknown_for.add("cfo")
    messages = engine_messages()
    for _attempt in range(2):
        completion = complete(client, messages)
        report = report_of(completion)
        cited = [c["id"] for c in report["citedRequirements"]]
        unknown = [rid for rid in cited if rid not in prompt_of(messages)]
        assert len(unknown) == 1 and ID_SHAPE.fullmatch(unknown[0]), cited
        assert unknown[0] in text_of(report)
        assert cited[:3] == ["A.5.24", "A.8.13", "A.5.15"]
        messages = retry_messages(messages, completion.choices[0].message.content,
                                  f"{unknown[0]} is not a requirement of this assessment")
    assert len(server.calls_for("cfo")) == 2      # the retry belongs to the same persona
    # another persona is well-behaved
    other = engine_messages("ciso", "CISO")
    assert_grounded(report_of(complete(client, other)), other,
                    [("A.5.24", "not_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")])


def test_cite_unknown_once_for_is_well_behaved_after_a_refusal(server, client):
    server.cite_unknown_once_for.add("cfo")
    messages = engine_messages()
    first = complete(client, messages)
    report = report_of(first)
    assert len(report["citedRequirements"]) == 4
    unknown = report["citedRequirements"][-1]["id"]
    assert unknown not in prompt_of(messages) and unknown in text_of(report)

    retried = retry_messages(messages, first.choices[0].message.content, f"{unknown} is not a requirement")
    assert_grounded(report_of(complete(client, retried)), retried,
                    [("A.5.24", "not_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")])
    # a fresh conversation is a first attempt again; plain-text mode too
    assert len(fenced_json(complete(client, messages, response_format=None).choices[0].message.content)
               ["citedRequirements"]) == 4


def test_wrong_status_for_cites_a_wrong_status_on_every_attempt(server, client):
    server.wrong_status_for.add("cfo")
    messages = engine_messages()
    for _attempt in range(2):
        completion = complete(client, messages)
        report = report_of(completion)
        cited = [(c["id"], c["status"]) for c in report["citedRequirements"]]
        assert cited == [("A.5.24", "partially_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")]
        assert "A.5.24 is partially met: present but incomplete." in report["sections"][0]["bullets"]
        messages = retry_messages(messages, completion.choices[0].message.content, "A.5.24 is not_met")
    # with no open requirement, the first requirement line is cited wrongly
    messages = engine_messages(open_items=[])
    assert report_of(complete(client, messages))["citedRequirements"][0] == {"id": "A.5.1", "status": "not_met"}


# ---------------------------------------------------------------- response formats
@pytest.mark.parametrize(("status", "error"), [(400, openai.BadRequestError), (500, openai.InternalServerError)])
def test_reject_json_schema_refuses_that_format_only(server, client, status, error):
    server.reject_json_schema = status
    messages = engine_messages()
    with pytest.raises(error) as raised:
        complete(client, messages)
    assert raised.value.status_code == status
    assert re.search(r"json_schema response format is not supported", raised.value.message)
    assert raised.value.body["param"] == "response_format"
    assert_report(report_of(complete(client, messages, response_format=JSON_OBJECT_FORMAT)))
    assert_report(fenced_json(complete(client, messages, response_format=None).choices[0].message.content))
    assert server.response_formats == [RESPONSE_FORMAT, JSON_OBJECT_FORMAT, None]


def test_reject_json_object_mimics_a_plain_text_server(server, client):
    server.reject_json_schema = 400
    server.reject_json_object = True
    messages = engine_messages()
    for response_format in (RESPONSE_FORMAT, JSON_OBJECT_FORMAT, {"type": "json_object"}):
        with pytest.raises(openai.BadRequestError, match="not supported"):
            complete(client, messages, response_format=response_format)
    assert_report(fenced_json(complete(client, messages, response_format=None).choices[0].message.content))

    server.reset()
    assert (server.reject_json_schema, server.reject_json_object, server.response_formats) == (None, False, [])
    assert_report(report_of(complete(client, messages)))


def test_rejections_come_without_the_latency(server, client):
    server.latency = 1.0
    server.reject_json_schema = 500
    started = time.monotonic()
    with pytest.raises(openai.InternalServerError):
        complete(client, engine_messages())
    assert time.monotonic() - started < 0.5


# ---------------------------------------------------------------- rate limits
def test_rate_limit_first_answers_429_with_retry_after(server, client):
    server.rate_limit_first = 2
    server.retry_after = 0.25
    messages = engine_messages()
    for _ in range(2):
        with pytest.raises(openai.RateLimitError) as raised:
            complete(client, messages)
        assert raised.value.response.headers["retry-after"] == "0.25"
        assert raised.value.code == "rate_limit_exceeded" and raised.value.body["type"] == "requests"
        assert "Rate limit reached" in raised.value.message
    assert_report(report_of(complete(client, messages)))
    assert len(server.requests) == 3

    server.reset()
    assert (server.rate_limit_first, server.retry_after) == (0, 1.0)
    server.rate_limit_first = 1
    with pytest.raises(openai.RateLimitError) as raised:
        complete(client, messages)
    assert raised.value.response.headers["retry-after"] == "1"


def test_the_client_waits_retry_after_and_succeeds(server):
    server.rate_limit_first = 1
    server.retry_after = 0.4
    patient = OpenAI(api_key="test", base_url=server.base_url, max_retries=2, timeout=5)
    try:
        started = time.monotonic()
        report = report_of(complete(patient, engine_messages()))
        elapsed = time.monotonic() - started
    finally:
        patient.close()
    assert_report(report)
    assert elapsed >= 0.4
    assert len(server.requests) == 2 and len(server.calls_for("cfo")) == 2


# ---------------------------------------------------------------- slots
def test_slots_queue_requests_and_latency_counts_from_the_slot(server, client):
    server.slots = 2
    server.latency = 0.2
    personas = [f"p{i}" for i in range(6)]
    started = time.monotonic()
    with ThreadPoolExecutor(6) as pool:
        completions = list(pool.map(lambda p: complete(client, engine_messages(p, p.upper())), personas))
    elapsed = time.monotonic() - started

    assert all(report_of(c) for c in completions)
    assert elapsed >= 3 * 0.2 - 0.02, elapsed          # three rounds of two
    assert server.max_in_service == 2
    assert server.max_concurrency >= 5, server.max_concurrency  # the queued ones are in flight


def test_slots_serve_in_arrival_order(server, client):
    server.slots = 1
    server.latency = 0.15
    finished: dict[str, float] = {}
    lock = threading.Lock()

    def call(persona: str) -> None:
        complete(client, engine_messages(persona, persona.upper()))
        with lock:
            finished[persona] = time.monotonic()

    def lined_up() -> int:   # requests holding the slot, waiting for it, or done
        with server._slot_free, lock:
            return len(server._queue) + server._in_service + len(finished)

    personas = [f"p{i}" for i in range(4)]
    threads = [threading.Thread(target=call, args=(p,)) for p in personas]
    for n, thread in enumerate(threads, start=1):
        # each starts once the one before is in line, so arrival order is the list's even on a loaded machine
        # (30 ms apart was not enough under a parallel suite on two cores)
        thread.start()
        deadline = time.monotonic() + 10
        while lined_up() < n and time.monotonic() < deadline:
            time.sleep(0.002)
    for thread in threads:
        thread.join()

    order = sorted(finished, key=finished.get)
    assert order == personas
    assert [persona_of_body(b) for b in server.requests] == personas
    gaps = [finished[b] - finished[a] for a, b in zip(order, order[1:], strict=False)]
    assert all(gap >= 0.12 for gap in gaps), gaps        # each waits out its whole latency after its slot
    assert server.max_in_service == 1 and server.max_concurrency >= 3


def persona_of_body(body: dict) -> str:
    return body["messages"][-1]["content"].split()[1]


def test_slots_stop_wakes_the_queue():
    server = FakeOpenAIServer(latency=0.0).start()
    server.slots = 1
    server.hang_for.add("p0")
    client = OpenAI(api_key="test", base_url=server.base_url, max_retries=0, timeout=10)
    errors: list[Exception] = []

    def call(persona: str) -> None:
        try:
            complete(client, engine_messages(persona, persona.upper()))
        except Exception as exc:   # the connection is closed when the server stops
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(f"p{i}",)) for i in range(3)]
    try:
        threads[0].start()
        deadline = time.monotonic() + 2
        while server.max_in_service < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        for thread in threads[1:]:
            thread.start()
        while server.max_concurrency < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.max_concurrency == 3 and server.max_in_service == 1
        started = time.monotonic()
        server.stop()                    # the hang and the two queued requests end at once
        assert time.monotonic() - started < 2
        for thread in threads:
            thread.join(5)
        assert len(errors) == 3
    finally:
        server.stop()
        client.close()


# ---------------------------------------------------------------- encodings
def http_post(server: FakeOpenAIServer, body: dict, headers: dict[str, str] | None = None):
    url = urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    try:
        conn.request("POST", "/v1/chat/completions", body=json.dumps(body),
                     headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br, zstd", "br;q=1.0, *;q=0.5", "identity, gzip;q=0.8"])
def test_gzip_compresses_when_the_client_accepts_it(server, accept):
    server.gzip = True
    response, data = http_post(server, {"model": "m", "messages": engine_messages(),
                                        "response_format": RESPONSE_FORMAT}, {"Accept-Encoding": accept})
    assert response.status == 200
    assert response.getheader("Content-Encoding") == "gzip"
    assert int(response.getheader("Content-Length")) == len(data)
    completion = json.loads(gzip.decompress(data))
    assert_report(json.loads(completion["choices"][0]["message"]["content"]))


@pytest.mark.parametrize("accept", [None, "identity", "gzip;q=0", "br", "*;q=0"])
def test_gzip_leaves_the_body_alone_when_the_client_does_not_accept_it(server, accept):
    server.gzip = True
    response, data = http_post(server, {"model": "m", "messages": engine_messages()},
                               {"Accept-Encoding": accept} if accept else None)
    assert response.status == 200 and response.getheader("Content-Encoding") is None
    assert json.loads(data)["object"] == "chat.completion"


def test_gzip_off_by_default(server):
    response, data = http_post(server, {"model": "m", "messages": engine_messages()}, {"Accept-Encoding": "gzip"})
    assert response.getheader("Content-Encoding") is None and json.loads(data)["object"] == "chat.completion"


def raw_exchange(server: FakeOpenAIServer, body: dict, headers: str = "") -> tuple[bytes, bytes]:
    url = urlsplit(server.base_url)
    payload = json.dumps(body).encode()
    request = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(payload)}\r\nConnection: close\r\n{headers}\r\n").encode() + payload
    received = b""
    with socket.create_connection((url.hostname, url.port), timeout=5) as sock:
        sock.sendall(request)
        while chunk := sock.recv(65536):
            received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    return head, rest


def dechunk(raw: bytes) -> list[bytes]:
    chunks = []
    while True:
        size_line, _, raw = raw.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            assert raw == b"\r\n"
            return chunks
        chunks.append(raw[:size])
        assert raw[size:size + 2] == b"\r\n"
        raw = raw[size + 2:]


def test_chunked_sends_several_chunks_without_content_length(server):
    server.chunked = True
    head, rest = raw_exchange(server, {"model": "m", "messages": engine_messages()})
    headers = head.decode().lower()
    assert "transfer-encoding: chunked" in headers and "content-length" not in headers
    chunks = dechunk(rest)
    assert len(chunks) >= 2
    assert_report(json.loads(json.loads(b"".join(chunks))["choices"][0]["message"]["content"]
                             .split("```json\n")[1].split("\n```")[0]))


def test_chunked_and_gzip_together(server):
    server.chunked = server.gzip = True
    head, rest = raw_exchange(server, {"model": "m", "messages": engine_messages(),
                                       "response_format": RESPONSE_FORMAT}, "Accept-Encoding: gzip\r\n")
    headers = head.decode().lower()
    assert "content-encoding: gzip" in headers and "transfer-encoding: chunked" in headers
    chunks = dechunk(rest)
    assert len(chunks) >= 2
    assert_report(json.loads(json.loads(gzip.decompress(b"".join(chunks)))["choices"][0]["message"]["content"]))


def test_chunked_keeps_the_connection_alive_and_errors_are_chunked_too(server):
    server.chunked = True
    server.status_for["ciso"] = 503
    url = urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    try:
        for persona, status in (("cfo", 200), ("ciso", 503), ("cfo", 200)):
            conn.request("POST", "/v1/chat/completions",
                         body=json.dumps({"model": "m", "messages": engine_messages(persona, persona.upper()),
                                          "response_format": RESPONSE_FORMAT}),
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            data = response.read()
            assert response.status == status and response.getheader("Transfer-Encoding") == "chunked"
            assert ("choices" if status == 200 else "error") in json.loads(data)
        conn.request("GET", "/v1/models")
        response = conn.getresponse()
        assert json.loads(response.read())["data"][0]["id"] == "fake-model"
    finally:
        conn.close()


def test_the_openai_client_reads_gzip_and_chunked_answers(server, client):
    server.gzip = server.chunked = True
    server.rate_limit_first = 1
    with pytest.raises(openai.RateLimitError):     # error bodies are encoded the same way
        complete(client, engine_messages())
    messages = engine_messages()
    assert_grounded(report_of(complete(client, messages)), messages,
                    [("A.5.24", "not_met"), ("A.8.13", "partially_met"), ("A.5.15", "not_met")])
    assert [model.id for model in client.models.list()] == ["fake-model"]
    server.reset()
    assert (server.gzip, server.chunked) == (False, False)


# ---------------------------------------------------------------- usage and recording
def test_usage_reports_the_shared_prefix_as_cached_tokens(server, client):
    messages = engine_messages()
    completion = complete(client, messages)
    usage = completion.usage
    prefix = len(messages[0]["content"]) + len(messages[1]["content"])
    total = sum(len(m["content"]) for m in messages)
    assert usage.prompt_tokens == total // 4
    assert usage.prompt_tokens_details.cached_tokens == prefix // 4
    assert 0 < usage.prompt_tokens_details.cached_tokens < usage.prompt_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    # the same prefix for another reader: the same cached tokens, so a test can sum them
    other = complete(client, engine_messages("ciso", "CISO")).usage
    assert other.prompt_tokens_details.cached_tokens == prefix // 4
    # a retry adds to the prompt, not to the cached prefix
    retried = complete(client, retry_messages(messages, completion.choices[0].message.content)).usage
    assert retried.prompt_tokens > usage.prompt_tokens
    assert retried.prompt_tokens_details.cached_tokens == prefix // 4


def test_response_formats_are_recorded_in_arrival_order(server, client):
    messages = engine_messages()
    for response_format in (RESPONSE_FORMAT, JSON_OBJECT_FORMAT, None, {"type": "json_object"}):
        complete(client, messages, response_format=response_format)
    assert server.response_formats == [RESPONSE_FORMAT, JSON_OBJECT_FORMAT, None, {"type": "json_object"}]
    assert len(server.response_formats) == len(server.requests)
    assert [body.get("max_tokens") for body in server.requests] == [2000] * 4


def test_reset_restores_every_behaviour(server, client):
    server.slots = 3
    server.cite_unknown_for.add("a")
    server.cite_unknown_once_for.add("b")
    server.wrong_status_for.add("c")
    complete(client, engine_messages())
    assert server.max_in_service == 1
    server.reset()
    assert server.slots is None and server.max_in_service == 0 and server.response_formats == []
    assert not (server.cite_unknown_for or server.cite_unknown_once_for or server.wrong_status_for)
