"""What the grounding check refuses, and the figures and citations it must let through."""

from __future__ import annotations

import pytest

from app.generation.facts import AssessmentFacts
from app.generation.grounding import GroundingError, check_grounding
from app.generation.negotiation import extract_json


def facts(*reqs):
    return AssessmentFacts.from_submission({"framework": "x", "industry": "y", "policy": "YES", "requirements": [
        {"id": i, "title": "t", "status": s} for i, s in reqs]})


def answer(text="", cited=()):
    return {"title": "T", "summary": text, "sections": [{"heading": "H", "paragraphs": [text], "bullets": []}],
            "callToAction": "C", "citedRequirements": [{"id": i, "status": s} for i, s in cited]}


def test_cited_ids_must_exist_with_their_recorded_status():
    f = facts(("164.312(b)", "not_met"), ("164.312(d)", "partially_met"))
    check_grounding(answer("Audit controls (164.312(b)) are absent.", [("164.312(b)", "not_met")]), f)
    with pytest.raises(GroundingError, match=r"164\.312\(e\) is not a requirement"):
        check_grounding(answer(cited=[("164.312(e)", "met")]), f)
    with pytest.raises(GroundingError, match=r"164\.312\(d\) is partially_met, not met"):
        check_grounding(answer(cited=[("164.312(d)", "met")]), f)


def test_an_id_shaped_like_the_assessments_in_the_text_must_be_one_of_them():
    f = facts(("A.5.15", "not_met"), ("A.8.13", "met"))
    with pytest.raises(GroundingError, match=r"the text cites A\.5\.99"):
        check_grounding(answer("A.5.15 is open, and so is A.5.99."), f)
    # An id the prompt itself gave (in a quoted fact) may be repeated.
    check_grounding(answer("See A.8.24 as the fact says."), f, prompt="a fact about A.8.24")


@pytest.mark.parametrize("text", [
    "The average breach cost $4.88M in 2024 (IBM 2024), 10.2 % more; see section 3.4 and 12.",
    "Notify within 60 days (45 CFR 164.404); penalties to $2,134,831.",
])
def test_figures_years_and_plain_numbers_are_not_taken_for_ids(text):
    check_grounding(answer(text), facts(("8.3", "not_met"), ("12", "met"), ("164.312(b)", "met")))


@pytest.mark.parametrize("raw,expected", [
    ('{"a": 1}', '{"a": 1}'),
    ('Here you go:\n```json\n{"a": 1}\n```\nDone.', '{"a": 1}'),
    ('Sure! {"a": {"b": 2}} Hope this helps.', '{"a": {"b": 2}}'),
])
def test_the_json_object_is_found_in_a_plain_text_answer(raw, expected):
    assert extract_json(raw) == expected


@pytest.mark.parametrize("status,message,refused", [
    (400, "'response_format' of type 'json_schema' is not supported with this model.", True),
    (500, "The json_schema response format is not supported", True),
    (500, "The model produced output that does not match the expected peg-native format", True),
    (400, "request (5181 tokens) exceeds the available context size (2048 tokens)", False),
    (500, "The server had an error while processing your request.", False),
    (503, "json_schema overloaded", False),
])
def test_only_a_refused_response_format_steps_down_a_mode(status, message, refused):
    import httpx2 as httpx
    from openai import APIStatusError

    from app.generation.negotiation import rejects_format

    response = httpx.Response(status, request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    assert rejects_format(APIStatusError(message, response=response, body={"error": {"message": message}})) is refused
