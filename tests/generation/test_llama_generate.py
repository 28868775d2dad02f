"""`generate` against a real llama.cpp llama-server (built by .ci/run) with a tiny random model.

Its text is nonsense; what the run proves is the protocol end to end: the structured-output mode
the server takes, calls capped to its slots, the token usage it reports summed per run, and answers
that fail their checks replaced by the template engine, so 25 reports are stored and none cites a
requirement the assessment does not have.
"""

from __future__ import annotations

import json
import re

import pytest

from app.catalog import PERSONAS
from app.generation.negotiation import MODES, Negotiator
from tests.factories import submission
from tests.support.llama import (
    LlamaCppPythonServer,
    LlamaServer,
    llama_available,
    llama_cpp_python_available,
    write_tiny_model,
)

SKIP_REASON = llama_available()
CPP_PYTHON_SKIP = llama_cpp_python_available()
pytestmark = [pytest.mark.llama, pytest.mark.slow]
SLOTS = 4


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    if SKIP_REASON is not None:
        pytest.skip(SKIP_REASON)
    # A byte-level vocabulary makes a token of nearly every character: the prompts need ~8k tokens.
    model = write_tiny_model(tmp_path_factory.mktemp("llama") / "tiny.gguf", context=16384)
    with LlamaServer(model, parallel=SLOTS, ctx_per_slot=12288, n_predict=48) as server:
        yield server


def test_generate_against_llama_server_stores_25_grounded_reports(app_factory, make_key, llama):
    Negotiator.forget()
    app = app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=llama.base_url, OPENAI_API_KEY="unused",
                      OPENAI_MODEL="tiny", OPENAI_MAX_RETRIES=1, OPENAI_TIMEOUT_SECONDS=120,
                      OPENAI_MAX_CONCURRENCY=SLOTS, OPENAI_MAX_TOKENS=48)
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    result = client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).get_json()
    assert result["status"] == "completed" and result["failedReports"] == 0, llama.output()[-2000:]
    usage = result["llmUsage"]
    assert usage["promptTokens"] > 25 * 1000 and usage["completionTokens"] > 0
    # The tiny model's answers are cut off at 48 tokens: no report survives the checks, every one is
    # retried once and then written by the template engine, which says so.
    assert all(r["engine"] == "template" and r["fallbackReason"] for r in result["reports"])
    known = {r["id"] for r in submission()["requirements"]}
    for persona in PERSONAS:
        content = client.get(f"/api/v1/assessments/{record['id']}/reports/{persona.id}", headers=auth).get_json()
        assert content["fallback"] is True and content["engine"] == "template"
        assert set(re.findall(r"A\.\d+\.\d+", json.dumps(content))) <= known
    negotiator = Negotiator.for_server(llama.base_url + "/", "tiny")
    print(f"llama-server took response format {MODES[negotiator.mode]}; usage {usage}")


@pytest.fixture(scope="module")
def llama_cpp_python(tmp_path_factory):
    if CPP_PYTHON_SKIP is not None:
        pytest.skip(CPP_PYTHON_SKIP)
    model = write_tiny_model(tmp_path_factory.mktemp("llama-cpp-python") / "tiny.gguf", context=16384)
    with LlamaCppPythonServer(model, n_ctx=12288) as server:
        yield server


def test_generate_against_llama_cpp_python_negotiates_json_object(app_factory, make_key, llama_cpp_python):
    # Its server refuses response_format json_schema (a 500) and takes json_object with a schema: the
    # run's first call finds that out for the others; the server takes one request at a time.
    Negotiator.forget()
    app = app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=llama_cpp_python.base_url, OPENAI_API_KEY="unused",
                      OPENAI_MODEL="tiny", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=120,
                      OPENAI_MAX_CONCURRENCY=1, OPENAI_MAX_TOKENS=48)
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    result = client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).get_json()
    assert result["status"] == "completed" and result["failedReports"] == 0
    assert MODES[Negotiator.for_server(llama_cpp_python.base_url + "/", "tiny").mode] == "json_object"
    assert result["llmUsage"]["promptTokens"] > 25 * 1000
    assert all(r["engine"] == "template" and r["fallbackReason"] for r in result["reports"])
