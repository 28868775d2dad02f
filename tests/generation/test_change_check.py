"""Issue 34: the `openai` engine's prompt carries the change since the client's earlier assessment, and what its
answer says of that change is checked against the stored change as statuses are: a wrong score, a wrong count, a
requirement said to have moved the wrong way, or an earlier assessment where there is none is refused, retried
once with the reason, then replaced by the template engine's report."""

from __future__ import annotations

import pytest

from app.generation.consistency import ReportInconsistency, check_report
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import reading_for
from tests.factories import submission
from tests.support.fake_openai import MISREPORTED_CHANGE

Q1 = [{"id": "A.5.15", "title": "Access control", "status": "not_met"},
      {"id": "A.8.13", "title": "Information backup", "status": "met"},
      {"id": "A.5.1", "title": "Policies for information security", "status": "partially_met"}]
Q2 = [{"id": "A.5.15", "title": "Access control", "status": "met"},
      {"id": "A.8.13", "title": "Information backup", "status": "not_met"},
      {"id": "A.5.1", "title": "Policies for information security", "status": "partially_met"},
      {"id": "A.8.8", "title": "Management of technical vulnerabilities", "status": "not_met"}]


def quarter(client, auth, requirements) -> int:
    record = client.post("/api/v1/assessments", json=submission(companyId="client_q", requirements=requirements),
                         headers=auth).get_json()
    return record["id"]


def run(client, auth, assessment_id) -> dict[str, dict]:
    result = client.post(f"/api/v1/assessments/{assessment_id}/generate", headers=auth).get_json()
    return {r["persona"]: r for r in result["reports"]}


def section(client, auth, assessment_id, persona) -> str:
    report = client.get(f"/api/v1/assessments/{assessment_id}/reports/{persona}", headers=auth).get_json()
    return "\n".join(report["sections"][0]["paragraphs"])


def test_the_model_is_told_the_change_and_an_answer_that_repeats_it_is_stored(openai_app, make_key, fake_openai):
    client, auth = openai_app.test_client(), {"Authorization": f"Bearer {make_key().api_key}"}
    first = quarter(client, auth, Q1)
    run(client, auth, first)
    assert not any("previous assessment" in m["content"] for m in fake_openai.calls_for("board_member")[0]["messages"])
    fake_openai.reset()
    second = quarter(client, auth, Q2)
    entries = run(client, auth, second)
    prompt = fake_openai.calls_for("board_member")[0]["messages"][-1]["content"]
    assert "Since the client's previous assessment" in prompt and "from 50 % to 37.5 %" in prompt
    assert entries["board_member"]["engine"] == "openai" and len(fake_openai.calls_for("board_member")) == 1
    assert "the score moved from 50 % to 37.5 %: 1 closed, 1 regressed and 1 new" in section(
        client, auth, second, "board_member")
    assert entries["network_admin"]["engine"] == "openai"
    assert "Worse than at the last assessment" in section(client, auth, second, "network_admin")


def test_a_misreported_change_is_refused_and_the_template_writes_instead(openai_app, make_key, fake_openai):
    client, auth = openai_app.test_client(), {"Authorization": f"Bearer {make_key().api_key}"}
    run(client, auth, quarter(client, auth, Q1))
    fake_openai.reset()
    fake_openai.misreport_change_for.add("cfo")
    second = quarter(client, auth, Q2)
    entries = run(client, auth, second)
    retry = fake_openai.calls_for("cfo")[1]["messages"][-1]["content"]
    assert retry.startswith("That answer cannot be stored:")
    assert "gives the score as moving from 12 % to 97 %, but it moved from 50 % to 37.5 %" in retry
    assert entries["cfo"]["engine"] == "template" and "from 12 % to 97 %" in entries["cfo"]["fallbackReason"]
    assert MISREPORTED_CHANGE not in section(client, auth, second, "cfo")
    assert "from 50 % to 37.5 %" in section(client, auth, second, "cfo")


def test_an_earlier_assessment_where_there_is_none_is_refused(openai_app, make_key, fake_openai):
    client, auth = openai_app.test_client(), {"Authorization": f"Bearer {make_key().api_key}"}
    fake_openai.misreport_change_for.add("ceo_president")
    first = quarter(client, auth, Q1)
    entries = run(client, auth, first)
    assert entries["ceo_president"]["engine"] == "template"
    assert "speaks of an earlier assessment, but this one is compared with none" in entries["ceo_president"][
        "fallbackReason"]
    assert "last assessment" not in section(client, auth, first, "ceo_president")


# ------------------------------------------------------------------ the checker itself, on written text

CHANGE = {"closed": 1, "improved": 0, "regressed": 1, "new": 1, "dropped": 0, "stillOpen": 1,
          "scoreBefore": 41.67, "scoreAfter": 50.0, "closedIds": ["A.5.15"], "improvedIds": [],
          "regressedIds": ["A.8.13"], "newIds": ["A.8.8"], "droppedIds": [], "stillOpenIds": ["A.5.1"],
          "openSince": "2026-06-14T00:00:00Z"}


def reading(change=CHANGE, persona="network_admin"):
    facts = AssessmentFacts(framework="ISO 27001", industry="Healthcare", has_policy=True, display_name=None,
                            requirements=tuple(Q2), change=change)
    return reading_for(facts, persona, "spin")


def problems(sentence: str, change=CHANGE) -> str:
    content = {"title": "t", "summary": "For the organization.", "callToAction": "Start this week.",
               "sections": [{"heading": "h", "paragraphs": [sentence], "bullets": []}], "keyPoints": []}
    try:
        check_report(content, reading(change))
    except ReportInconsistency as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("sentence", [
    "Since the last assessment, the score moved from 42 % to 50 %: 1 closed, 1 regressed and 1 new.",
    "Worse than at the last assessment: Information backup (A.8.13); open then and still open: Policies for "
    "information security (A.5.1).",
    "Since the last assessment, recorded as better: Access control (A.5.15), each to be evidenced as operating.",
    "Management of technical vulnerabilities (A.8.8) is new since the last assessment.",
    "Access control (A.5.15) has an owner; the policy was reviewed since the last restore test.",
])
def test_what_the_change_holds_passes(sentence):
    assert problems(sentence) == ""


@pytest.mark.parametrize("sentence, why", [
    ("Since the last assessment, the score moved from 30 % to 50 %.",
     "gives the score as moving from 30 % to 50 %, but it moved from 41.67 % to 50 %"),
    ("Since the last assessment: 2 closed and 1 new.", "counts 2 closed since the last assessment, but there are 1"),
    ("Since the last assessment, 3 were open then and are open still.",
     "counts 3 stillOpen since the last assessment, but there are 1"),
    ("Worse than at the last assessment: Access control (A.5.15).",
     "calls A.5.15 worse since the last assessment, but it is not"),
    ("Since the last assessment, Information backup (A.8.13) improved.",
     "calls A.8.13 better since the last assessment, but it is not"),
    ("Open at the last assessment and open still: Management of technical vulnerabilities (A.8.8).",
     "calls A.8.8 open in both since the last assessment, but it is not"),
])
def test_what_the_change_contradicts_is_caught(sentence, why):
    assert why in problems(sentence)


def test_a_first_assessment_may_not_speak_of_an_earlier_one():
    assert "compared with none" in problems("The score is higher than at the last assessment.", change=None)
    assert problems("Each control was tested since the last restore test.", change=None) == ""


# ------------------------------------------------------------------ what accepting a risk means (issue 28)

def decisions_of(framework: str, persona: str, requirements) -> list[str]:
    """The bullets that speak of accepting, in the reports of every methodology (not all list decisions)."""
    from app.catalog import METHODOLOGIES
    from app.generation.template_engine import TemplateEngine

    facts = AssessmentFacts(framework=framework, industry="Dental practice", has_policy=True, display_name=None,
                            requirements=tuple(requirements))
    return [b for m in METHODOLOGIES for s in TemplateEngine().write(facts, persona, m.id)["sections"]
            for b in s["bullets"] if "accept" in b]


HIPAA_OPEN = [{"id": "164.312(b)", "title": "Audit controls", "status": "not_met"},
              {"id": "164.308(a)(5)(ii)(A)", "title": "Security reminders", "status": "partially_met"}]


@pytest.mark.parametrize("persona", ["compliance_officer", "ciso", "cfo", "risk_manager"])
def test_a_hipaa_reader_offered_risk_acceptance_is_told_a_required_specification_cannot_be_accepted(persona):
    """Readers found a compliance officer invited to accept required HIPAA specifications as risks: under 45 CFR
    164.306(d) only an addressable one may be met otherwise or documented as not reasonable and appropriate."""
    decided = [d for d in decisions_of("HIPAA", persona, HIPAA_OPEN) if d.startswith("Decide")]
    assert decided, persona
    for decision in decided:
        if any(w in decision for w in ("risk acceptance", "or accept it", "accepts it", "exceptions to accept",
                                       "residual risks")):
            assert "a required implementation specification must be implemented" in decision, decision
            assert "(45 CFR 164.306(d))" in decision


def test_counsel_hears_of_neglect_only_when_something_stayed_open():
    from app.generation.blocks import since_last

    only_worse = {**CHANGE, "closed": 0, "closedIds": [], "new": 0, "newIds": [], "stillOpen": 0, "stillOpenIds": []}
    said = since_last(reading(only_worse, "general_counsel"))
    assert said.startswith("Worse than then: Information backup (A.8.13)") and "left open" not in said
    said = since_last(reading(CHANGE, "general_counsel"))
    assert "no better now: Policies for information security (A.5.1)" in said and "left open across" in said
