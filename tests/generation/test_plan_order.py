"""The shared plan's order (issue 28/29 readers: "first to close" must follow risk, not counting): within a
tier, a topic with an absent control comes before one only partly met, and among those sign-in, backups and
patching come before the rest; a framework that builds on one topic puts it first
(HIPAA's risk analysis); the summary, the key points and the call to action all start with the same item."""

from __future__ import annotations

from app.generation.facts import AssessmentFacts
from app.generation.plan import RISK_ORDER, work_plan
from app.generation.template_engine import TemplateEngine

ENGINE = TemplateEngine()


def facts(framework: str, rows) -> AssessmentFacts:
    return AssessmentFacts.from_submission({
        "framework": framework, "industry": "Software", "policy": "YES",
        "requirements": [{"id": rid, "title": title, "status": status} for rid, title, status in rows]})


def test_sign_in_comes_before_a_topic_with_more_absent_controls_of_the_same_severity():
    f = facts("SOC 2", [("CC7.2", "Monitoring", "not_met"), ("CC7.3", "Event evaluation", "not_met"),
                        ("CC8.1", "Change management", "not_met"), ("CC6.1", "Logical access", "not_met")])
    steps = [s.topic.id for s in work_plan(f).steps]
    assert steps[0] == "access" and steps.index("access") < steps.index("logging") < steps.index("change")
    report = ENGINE.write(f, "ciso", "spin")
    assert "First to close: Logical access (CC6.1), not met" in report["keyPoints"]
    summary = report["summary"]
    others = [summary.index(ref) for ref in ("Monitoring (CC7.2)", "Event evaluation (CC7.3)") if ref in summary]
    assert "Logical access (CC6.1)" in summary and all(summary.index("Logical access (CC6.1)") < i for i in others)
    assert report["callToAction"].rstrip(".").endswith("starting with Logical access (CC6.1)")


def test_an_absent_control_comes_before_a_partial_one_whatever_its_topic():
    """Issue 28 readers: "most pressing" listed three partly met items ahead of four not met ones."""
    f = facts("SOC 2", [("CC6.1", "Logical access", "partially_met"), ("CC8.1", "Change management", "not_met"),
                        ("CC7.2", "Monitoring", "not_met")])
    steps = [s.topic.id for s in work_plan(f).steps]
    assert steps == ["logging", "change", "access"]
    report = ENGINE.write(f, "ciso", "spin")
    # "not met" already says why an absent control leads; the reason given is the requirement's own subject's
    assert ("First to close: Monitoring (CC7.2), not met; without logs an intrusion goes unseen and its scope "
            "cannot be shown") in report["keyPoints"]


def test_hipaa_puts_the_risk_analysis_first():
    f = facts("HIPAA", [("164.312(d)", "Person or entity authentication", "not_met"),
                        ("164.308(a)(1)(ii)(A)", "Risk analysis", "not_met")])
    assert [s.topic.id for s in work_plan(f).steps] == ["governance", "access"]


def test_the_risk_order_names_every_topic_once():
    from app.content import TOPICS
    assert sorted(RISK_ORDER) == sorted(TOPICS)


def test_first_to_close_gives_the_lower_tier_as_its_reason_and_needs_none_when_it_is_alone():
    f = facts("CIS Controls v8", [("13.1", "Centralize security event alerting", "not_met"),
                                  ("5.2", "Use unique passwords", "partially_met")])
    points = ENGINE.write(f, "ciso", "spin")["keyPoints"]
    assert "First to close: Use unique passwords (5.2, IG1), partly met; IG1 comes before the higher Implementation " \
           "Groups" in points, points
    alone = facts("SOC 2", [("CC6.1", "Logical access", "not_met")])
    assert "First to close: Logical access (CC6.1), not met" in ENGINE.write(alone, "ciso", "spin")["keyPoints"]


def test_first_to_close_says_why_in_the_words_of_its_own_subject():
    """Panel: "First to close" was unexplained; then, explained by its topic, segregation of duties (CC6.3) read
    "stolen sign-ins are among the commonest ways in". The reason is the requirement's own subject's, or none.
    A recovery requirement is not argued by backups (a panel read "restorable backups decide ..." for ICT readiness
    A.5.30 with backups recorded as met)."""
    f = facts("SOC 2", [("CC7.2", "Monitoring", "not_met"), ("CC6.1", "Multi-factor authentication for remote access",
                                                               "not_met")])
    report = ENGINE.write(f, "ciso", "spin")
    assert "First to close: Multi-factor authentication for remote access (CC6.1), not met; credential abuse was " \
           "the commonest way into breaches, the initial access vector in 22% of them (Verizon DBIR 2025)" in \
           report["keyPoints"]
    basis = next(s for s in report["sections"] if s["heading"].startswith("Appendix: sources"))
    assert any(b.startswith("Verizon, 2025 Data Breach Investigations Report") for b in basis["bullets"])
    duties = facts("SOC 2", [("CC6.3", "Role-based access and segregation of duties", "not_met"),
                             ("CC7.2", "Monitoring", "partially_met")])
    points = ENGINE.write(duties, "cfo", "spin")["keyPoints"]
    assert "First to close: Role-based access and segregation of duties (CC6.3), not met" in points, points


def test_recovery_first_is_argued_by_recovery_not_by_backups():
    f = facts("ISO 27001", [("A.5.30", "ICT readiness for business continuity", "not_met"),
                            ("A.8.13", "Information backup", "met"), ("A.5.19", "Supplier relationships", "not_met")])
    points = " ".join(ENGINE.write(f, "ceo_president", "sandler")["keyPoints"])
    assert "First to close: ICT readiness for business continuity (A.5.30), not met" in points
    assert "backups decide" not in points


def test_a_missing_policy_and_the_policy_requirement_are_priced_once():
    """Panel: with no policy, "writing the missing security policy" (3-6 days) and Policies and procedures
    (164.316(a), not met) were both priced, and a reader adding up the planning table found the policy counted
    twice."""
    rows = [("164.316(a)", "Policies and procedures", "not_met"),
            ("164.308(a)(1)(ii)(A)", "Risk analysis", "not_met")]
    without = AssessmentFacts.from_submission({
        "framework": "HIPAA", "industry": "Dental practice", "policy": "NO",
        "requirements": [{"id": i, "title": t, "status": s} for i, t, s in rows]})
    plan = work_plan(without)
    assert plan.per_requirement[0] == (0, 0) and plan.policy_covers == (0,)
    assert plan.total == (plan.policy_effort[0] + plan.per_requirement[1][0],
                          plan.policy_effort[1] + plan.per_requirement[1][1])
    cfo = ENGINE.write(without, "cfo", "spin")
    basis = next(s for s in cfo["sections"] if s["heading"] == "Appendix: sources and planning assumptions")
    assert any(b.startswith("Planning table, writing the missing security policy: 3-6 person-days, once, which covers "
                            "Policies and procedures (164.316(a)") for b in basis["bullets"]), basis["bullets"]
    # with a policy in place, the requirement is priced as any other
    assert work_plan(facts("HIPAA", rows)).per_requirement[0] != (0, 0)
