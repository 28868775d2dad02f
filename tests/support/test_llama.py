"""Real llama.cpp servers answer the real `openai` client: the protocol end to end (the text is nonsense).

llama.cpp's own llama-server, and llama-cpp-python's OpenAI-compatible server; each skips when it is not installed.
"""

from __future__ import annotations

import json

import openai
import pytest
from openai import OpenAI

from tests.support.llama import (
    LlamaCppPythonServer,
    LlamaServer,
    llama_available,
    llama_cpp_python_available,
    write_tiny_model,
)

SKIP_REASON = llama_available()
LLAMA_CPP_PYTHON_SKIP_REASON = llama_cpp_python_available()
needs_llama_server = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")
needs_llama_cpp_python = pytest.mark.skipif(LLAMA_CPP_PYTHON_SKIP_REASON is not None,
                                            reason=LLAMA_CPP_PYTHON_SKIP_REASON or "")
pytestmark = pytest.mark.llama

MESSAGES = [{"role": "system", "content": "You write compliance reports."},
            {"role": "user", "content": "Write the report as JSON."}]
STRICT_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["title", "summary"],
    "properties": {"title": {"type": "string"}, "summary": {"type": "string"}},
}
N_PREDICT = 24


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return write_tiny_model(tmp_path_factory.mktemp("llama") / "tiny.gguf")


@pytest.fixture(scope="module")
def llama(tiny_model):
    with LlamaServer(tiny_model, parallel=2, ctx_per_slot=512, n_predict=N_PREDICT) as server:
        yield server


@pytest.fixture
def client(llama):
    with OpenAI(base_url=llama.base_url, api_key="unused", timeout=60, max_retries=0) as client:
        yield client


def check_completion(completion) -> str:
    [choice] = completion.choices
    assert choice.message.role == "assistant"
    assert isinstance(choice.message.content, str)
    assert choice.finish_reason in ("stop", "length")
    usage = completion.usage
    assert usage is not None
    assert usage.prompt_tokens > 0
    assert 0 < usage.completion_tokens <= N_PREDICT
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    return choice.message.content


@needs_llama_server
def test_plain_chat_completion_has_usage(client):
    completion = client.chat.completions.create(model="tiny", messages=MESSAGES)
    content = check_completion(completion)
    print(f"\nplain: finish_reason={completion.choices[0].finish_reason} usage={completion.usage.model_dump()} "
          f"content={content!r}")


@needs_llama_server
def test_json_object_chat_completion_has_usage(client):
    completion = client.chat.completions.create(model="tiny", messages=MESSAGES,
                                                response_format={"type": "json_object"})
    content = check_completion(completion)
    # Grammar-constrained: the nonsense is the start of a JSON object (cut short by --n-predict).
    assert content.lstrip().startswith("{"), content
    print(f"\njson_object: finish_reason={completion.choices[0].finish_reason} "
          f"usage={completion.usage.model_dump()} content={content!r}")


@needs_llama_server
def test_strict_json_schema_is_accepted_or_refused_with_a_status(client):
    response_format = {"type": "json_schema",
                       "json_schema": {"name": "report", "strict": True, "schema": STRICT_SCHEMA}}
    try:
        completion = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=response_format)
    except openai.APIStatusError as error:
        assert 400 <= error.status_code < 600
        outcome = {"accepted": False, "status": error.status_code, "error": error.body}
    else:
        content = check_completion(completion)
        outcome = {"accepted": True, "status": 200, "finish_reason": completion.choices[0].finish_reason,
                   "usage": completion.usage.model_dump(), "content": content}
    print(f"\njson_schema (strict): {json.dumps(outcome, ensure_ascii=False)}")


# llama-cpp-python's server (`python -m llama_cpp.server`): the same model, the same client.

@pytest.fixture(scope="module")
def llama_cpp_python(tiny_model):
    with LlamaCppPythonServer(tiny_model, n_ctx=512) as server:
        yield server


@pytest.fixture
def lcpp_client(llama_cpp_python):
    with OpenAI(base_url=llama_cpp_python.base_url, api_key="unused", timeout=60, max_retries=0) as client:
        yield client


def answer(client, **request) -> dict:
    """What the server answers to a chat completion: its content, finish_reason and usage, or its error status."""
    try:
        # llama-cpp-python has no --n-predict: without max_tokens it would write until the context is full.
        completion = client.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=N_PREDICT, **request)
    except openai.APIStatusError as error:
        assert 400 <= error.status_code < 600
        return {"accepted": False, "status": error.status_code, "error": error.body}
    content = check_completion(completion)
    return {"accepted": True, "status": 200, "finish_reason": completion.choices[0].finish_reason,
            "usage": completion.usage.model_dump(), "content": content}


def parsed_if_complete(outcome: dict):
    """The JSON the model wrote, when it finished (not cut short by max_tokens) and the text is JSON."""
    if outcome["finish_reason"] != "stop":
        return None
    try:
        return json.loads(outcome["content"])
    except ValueError:
        return None


@needs_llama_cpp_python
def test_llama_cpp_python_chat_completion_has_usage(lcpp_client, llama_cpp_python):
    outcome = answer(lcpp_client)  # no response_format
    assert outcome["accepted"], (outcome, llama_cpp_python.output()[-4000:])
    print(f"\nllama-cpp-python, no response_format: {json.dumps(outcome, ensure_ascii=False)}")


@needs_llama_cpp_python
def test_llama_cpp_python_strict_json_schema(lcpp_client):
    response_format = {"type": "json_schema",
                       "json_schema": {"name": "report", "strict": True, "schema": STRICT_SCHEMA}}
    outcome = answer(lcpp_client, response_format=response_format)
    print(f"\nllama-cpp-python, json_schema (strict): {json.dumps(outcome, ensure_ascii=False)}")


@needs_llama_cpp_python
def test_llama_cpp_python_json_object_with_schema(lcpp_client):
    # llama-cpp-python's own extension (Anyscale's JSON mode): the schema rides in the json_object response_format
    # and becomes a grammar, so the nonsense is the start of an object of that shape.
    outcome = answer(lcpp_client, response_format={"type": "json_object", "schema": STRICT_SCHEMA})
    print(f"\nllama-cpp-python, json_object with schema: {json.dumps(outcome, ensure_ascii=False)}")
    assert outcome["accepted"], outcome
    assert outcome["content"].lstrip().startswith("{"), outcome
    parsed = parsed_if_complete(outcome)
    if parsed is not None:
        assert set(parsed) == {"title", "summary"}, parsed
