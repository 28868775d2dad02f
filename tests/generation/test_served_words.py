"""Reports name whom the organization serves as its own people say it (issue 29): a dental practice's reports
talk about patients, a nonprofit's about donors, never "customers"; an industry no pack knows gets "the
people the organization serves", never a guessed sector."""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine

ENGINE = TemplateEngine()
# The sales director reads the assessment as the security review of buyers' procurement teams: there
# "customers" is the word in every industry.
BUYERS = {"sales_director"}
CUSTOMER = re.compile(r"\bcustomers?\b", re.I)


def assessment(industry: str) -> AssessmentFacts:
    return AssessmentFacts.from_submission({
        "framework": "HIPAA Security Rule", "industry": industry, "policy": "NO",
        "requirements": [
            {"id": "164.308(a)(1)(ii)(A)", "title": "Risk analysis", "status": "not_met"},
            {"id": "164.308(a)(7)(ii)(A)", "title": "Data backup plan", "status": "partially_met"},
            {"id": "164.312(d)", "title": "Person or entity authentication", "status": "not_met"},
            {"id": "164.308(a)(6)(ii)", "title": "Response and reporting", "status": "not_met"},
            {"id": "164.308(b)(1)", "title": "Business associate contracts", "status": "partially_met"},
            {"id": "164.312(b)", "title": "Audit controls", "status": "met"},
        ]})


def text(report: dict) -> str:
    parts = [report["title"], report["summary"], report["callToAction"], *report["keyPoints"]]
    for s in report["sections"]:
        parts += [s["heading"], *s["paragraphs"], *s["bullets"]]
    return "\n".join(parts)


def reports(industry: str, methodology: str = "spin") -> dict[str, str]:
    f = assessment(industry)
    return {p.id: text(ENGINE.write(f, p.id, methodology)) for p in PERSONAS}


@pytest.mark.parametrize("methodology", ["spin", "challenger"])
def test_a_dental_practice_reads_about_patients_not_customers(methodology):
    out = reports("Dental practice", methodology)
    for persona, body in out.items():
        if persona not in BUYERS:
            assert not CUSTOMER.search(body), (persona, CUSTOMER.findall(body), body[:300])
    for persona in ("small_business_owner", "ceo_president", "coo"):
        assert "patients" in out[persona], persona


def test_an_industry_no_pack_knows_gets_the_people_it_serves_and_no_guessed_sector():
    out = reports("Botanical gardens")
    for persona, body in out.items():
        if persona not in BUYERS:
            assert not CUSTOMER.search(body), (persona, CUSTOMER.findall(body))
        assert "patients" not in body and "donors" not in body, persona
    assert "the people the organization serves" in out["ceo_president"] + out["small_business_owner"]
