"""Reader panels of 2026-11-28 on held-out assessments (a hospice, a veterinary hospital, a dental software company,
a trucking company): every panel found that no report used a `policy` of YES, though an auditor's first request and
counsel's first exposure turn on it; titles promised
what the body did not give ("ranked by exploitability", "owners, evidence and dates"); and a finding the assessment
never recorded was read into a reason ("Identified risks sit in a register with no owner")."""

from __future__ import annotations

import pytest

from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

ENGINE = TemplateEngine()


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


TRUCKING = {
    "companyId": "tr-1", "framework": "NIST CSF 2.0", "industry": "Regional trucking company", "policy": "YES",
    "requirements": [
        _req("GV.OC-01", "The organizational mission is understood and informs cybersecurity risk management", "met"),
        _req("GV.SC-04", "Suppliers are known and prioritized by criticality", "not_met"),
        _req("ID.AM-01", "Inventories of hardware managed by the organization are maintained", "partially_met"),
        _req("PR.AA-03", "Users, services, and hardware are authenticated", "not_met"),
        _req("PR.DS-11", "Backups of data are created, protected, maintained, and tested", "not_met"),
        _req("DE.CM-01", "Networks and network services are monitored to find potentially adverse events", "not_met"),
        _req("RC.RP-01", "The recovery portion of the incident response plan is executed once initiated",
             "partially_met"),
    ],
}


def text(body: dict, persona: str, methodology: str = "spin") -> str:
    return markdown({**ENGINE.write(AssessmentFacts.from_submission(body), persona, methodology),
                     "personaLabel": persona})


@pytest.mark.parametrize("persona", ["external_auditor", "internal_auditor", "compliance_officer", "general_counsel",
                                     "ceo_president", "small_business_owner"])
def test_a_documented_policy_is_read_by_those_it_concerns_first(persona):
    for methodology in ("spin", "challenger"):
        words = text(TRUCKING, persona, methodology)
        assert "security policy" in words.split("## Appendix")[0], (persona, methodology)
        assert "6 open" in words.split("## Appendix")[0], (persona, methodology)   # with the count it bears on
    # without a policy, the reader hears of its absence instead, never of a policy that exists
    missing = text({**TRUCKING, "policy": "NO"}, persona)
    assert "has a documented security policy" not in missing and "written security policy;" not in missing
    assert "no documented security policy" in missing.lower()


def test_titles_promise_only_what_the_reports_give():
    titles = " ".join(p.title + " " + p.title_clean for p in load().personas)
    for promise in ("ranked by exploitability", "owners, evidence and dates",
                    "segmentation, authentication, logging and recovery"):
        assert promise not in titles


def test_a_reason_never_states_a_finding_the_assessment_does_not_record():
    reasons = " ".join(getattr(s, lens) for s in load().subjects
                       for lens in ("risk", "impact", "liability"))
    for invented in ("Identified risks sit in a register", "Weak, default, shared or reused passwords fall"):
        assert invented not in reasons


def test_acceptance_is_closed_only_to_the_required_items_of_an_area():
    """Panel (hospice CFO): "Accept: not open, HIPAA requires it" over an access area whose open items were two
    addressable specifications and one required one, beside the report's own correct note on addressable items."""
    hospice = {"companyId": "hs-1", "framework": "HIPAA Security Rule", "industry": "Hospice", "policy": "YES",
               "requirements": [_req("164.308(a)(3)(ii)(C)", "Termination procedures", "not_met"),
                                _req("164.312(a)(2)(iii)", "Automatic logoff", "not_met"),
                                _req("164.312(d)", "Person or entity authentication", "not_met"),
                                _req("164.312(a)(2)(i)", "Unique user identification", "met")]}
    report = ENGINE.write(AssessmentFacts.from_submission(hospice), "cfo", "meddpicc")
    bullets = [b for s in report["sections"] for b in s["bullets"]]
    assert "Accept: not open for the required items" in bullets
    assert "Addressable items: a documented equivalent instead" in bullets
    assert not any(b.startswith("Accept: not open, HIPAA requires") for b in bullets)


@pytest.mark.parametrize(("framework", "opening"), [("PCI DSS v4.0.1 SAQ C-VT", "SAQ C-VT is open only"),
                                                   ("PCI DSS SAQ A", "SAQ A is open only"),
                                                   ("PCI DSS 4.0 SAQ A-EP", "SAQ A-EP is for"),
                                                   ("PCI DSS SAQ B-IP", "SAQ B-IP is open only")])
def test_an_auditor_reading_a_short_saq_is_told_who_may_use_it(framework, opening):
    """Panel (a veterinary hospital's SAQ C-VT): "no report checks whether the hospital qualifies"."""
    vet = {"companyId": "vh-1", "framework": framework, "industry": "Veterinary hospital", "policy": "NO",
           "requirements": [_req("2.2.2", "Vendor default accounts are managed", "not_met"),
                            _req("8.2.2", "Group, shared, or generic accounts are used only when necessary",
                                 "not_met"),
                            _req("12.10.1", "An incident response plan exists and is ready to be activated",
                                 "not_met")]}
    for methodology in ("spin", "sandler"):
        auditor = text(vet, "external_auditor", methodology)
        assert opening in auditor, methodology
        assert sum(auditor.count(s) for s in ("SAQ A is", "SAQ A-EP is", "SAQ B-IP is", "SAQ C-VT is")) == 1
    # a full assessment names no SAQ's eligibility
    assert "is open only" not in text({**vet, "framework": "PCI DSS v4.0.1"}, "external_auditor")


def test_an_open_policy_requirement_is_the_missing_policy_not_one_more_item():
    """Panel (an ISO 27001 payroll bureau with no policy): the IT director read "Six more open items sit with ..."
    over five: A.5.1, the policy requirement itself, was counted once more as the missing policy."""
    bureau = {"companyId": "pb-1", "framework": "ISO/IEC 27001:2022", "industry": "Payroll bureau", "policy": "NO",
              "requirements": [_req("A.5.1", "Policies for information security", "not_met"),
                               _req("A.5.17", "Authentication information", "not_met"),
                               _req("A.5.26", "Response to information security incidents", "not_met"),
                               _req("A.8.12", "Data leakage prevention", "not_met"),
                               _req("A.8.13", "Information backup", "partially_met")]}
    words = text(bureau, "it_director", "challenger")
    assert "Three more open items" in words or "3 more open items" in words, words[:1500]
    # without an open policy requirement, the missing policy is one more item of the others'
    fewer = {**bureau, "requirements": bureau["requirements"][1:]}
    words = text(fewer, "it_director", "challenger")
    assert "Three more open items" in words or "3 more open items" in words, words[:1500]
