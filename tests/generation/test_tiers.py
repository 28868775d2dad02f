"""Tiered frameworks (CIS Implementation Groups, and any pack whose designations are tiers): every reader is
told which tier the assessment reaches, with the counts behind it, and the lowest tier's open items come
first in the plan, "first to close" and the findings (issue 29)."""

from __future__ import annotations

import re

from app.generation.facts import AssessmentFacts
from app.generation.plan import work_plan
from app.generation.reading import tiers_of
from app.generation.template_engine import TemplateEngine

ENGINE = TemplateEngine()


def cis(*rows: tuple[str, str]) -> AssessmentFacts:
    return AssessmentFacts.from_submission({
        "framework": "CIS Controls v8", "industry": "Nonprofit", "policy": "YES",
        "requirements": [{"id": rid, "title": f"Safeguard {rid}", "status": status} for rid, status in rows]})


def text(report: dict) -> str:
    return "\n".join([*report["keyPoints"], *(p for s in report["sections"] for p in s["paragraphs"])])


def test_an_assessment_with_an_open_ig1_safeguard_does_not_reach_ig1():
    f = cis(("CIS 3.14", "not_met"), ("6.3", "partially_met"), ("Safeguard 11.2", "met"), ("12.2", "met"))
    tiers, reached = tiers_of(f)
    assert reached is None
    assert [(t.name, t.assessed, t.met, t.own_assessed, t.own_met, t.own_in_pack) for t in tiers] == [
        ("IG1", 2, 1, 2, 1, 56), ("IG2", 3, 2, 1, 1, 74), ("IG3", 4, 2, 1, 0, 23)]
    for persona in ("ciso", "board_member", "external_auditor", "network_admin"):
        body = text(ENGINE.write(f, persona, "spin"))
        assert "IG1 not yet reached: 1 of its 2 assessed safeguards open" in body, persona   # a key point
    for persona in ("ciso", "compliance_officer", "external_auditor", "insurance_underwriter"):
        body = text(ENGINE.write(f, persona, "spin"))
        assert ("the organization does not yet reach IG1: 1 of the 2 IG1 safeguards assessed is met; the assessment "
                "covered 2 of IG1's 56, 1 of IG2's 74 and 1 of IG3's 23, and above IG1, the one IG2 safeguard "
                "assessed is met and the one IG3 safeguard assessed is not met.") in body, persona
    assert "essential cyber hygiene" in text(ENGINE.write(f, "ciso", "spin"))


def test_the_highest_fully_met_tier_is_reached():
    f = cis(("6.3", "met"), ("11.2", "met"), ("12.2", "met"), ("3.14", "not_met"))
    assert tiers_of(f)[1] == "IG2"
    assert "every safeguard assessed up to IG2 is met at the organization" in text(ENGINE.write(f, "ciso", "spin"))
    assert "Every safeguard assessed up to IG2 met" in text(ENGINE.write(f, "ceo_president", "challenger"))


def test_without_the_lowest_tier_assessed_no_tier_is_claimed():
    f = cis(("12.2", "met"), ("3.14", "met"))
    tiers, reached = tiers_of(f)
    assert reached is None and tiers[0].name == "IG2"


def test_lower_tiers_come_first_in_the_plan_and_first_to_close():
    # 3.14 (IG3, not met) would come first by status alone; 8.2 (IG1, partly met) comes first by tier.
    f = cis(("3.14", "not_met"), ("8.2", "partially_met"), ("12.2", "met"))
    first = work_plan(f).steps[0]
    assert [f.requirements[i].id for i in first.indices] == ["8.2", "3.14"]
    report = ENGINE.write(f, "security_analyst", "spin")
    assert any(re.match(r"First to close: .*\(8\.2, IG1\)", p) for p in report["keyPoints"]), report["keyPoints"]


def test_frameworks_without_tiers_say_nothing_of_tiers():
    f = AssessmentFacts.from_submission({
        "framework": "HIPAA", "industry": "Dental practice", "policy": "YES",
        "requirements": [{"id": "164.312(d)", "title": "Person or entity authentication", "status": "not_met"}]})
    assert tiers_of(f) == ((), None)
    assert "Measured by" not in text(ENGINE.write(f, "ceo_president", "spin"))
