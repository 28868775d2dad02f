"""CMMC and NIST SP 800-171 readers are told what the DoD's scoring makes of their own open items (issue 28).

A reader panel (2026-11-27, a CMMC Level 2 aerospace parts supplier) did the sums the reports left to them: the
seven open requirements cost 29 to 31 of the 110 points, and five of them are worth more than one point, so no
plan of action may hold them and not even a Conditional Level 2 status is possible. The reports stated the rule
and never applied it; the IT director was offered "Accept: in writing", which CMMC does not allow.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from app.content import load
from tests.generation.test_panel_held_out import _req, text

REV2 = re.compile(r"^3\.\d+\.\d+$")   # NIST SP 800-171 Rev. 2 numbers, not Level 3's "3.1.2e" or Rev. 3's
FRAMEWORKS = Path(__file__).resolve().parents[2] / "app" / "content" / "frameworks"


AERO = {
    "companyId": "aero-77", "framework": "CMMC Level 2", "industry": "Aerospace parts supplier", "policy": "YES",
    "requirements": [
        _req("3.1.1", "Authorized Access Control", "met"),
        _req("3.1.12", "Control Remote Access", "partially_met"),
        _req("3.1.20", "External Connections", "met"),
        _req("3.3.1", "System Auditing", "not_met"),
        _req("3.4.1", "System Baselining", "partially_met"),
        _req("3.5.3", "Multifactor Authentication", "not_met"),
        _req("3.8.9", "Protect Backups", "not_met"),
        _req("3.11.2", "Vulnerability Scan", "met"),
        _req("3.12.4", "System Security Plan", "met"),
        _req("3.13.11", "CUI Encryption", "partially_met"),
        _req("3.14.1", "Flaw Remediation", "met"),
        _req("3.6.1", "Incident Handling", "not_met"),
    ],
}


@pytest.mark.parametrize("key", ["cmmc", "nist_800_171"])
def test_the_packs_carry_annex_a_points_for_every_rev2_requirement(key):
    # Annex A of the DoD Assessment Methodology v1.2.1: 44 five-point, 14 three-point and 51 one-point
    # requirements, 3.12.4 without points; 313 in all, so that every requirement not met scores 110 - 313 = -203.
    pack = load().frameworks[key]
    rev2 = {rid: info for rid, info in pack.requirements.items() if REV2.match(rid)}
    assert len(rev2) == 110
    points = [info["points"] for rid, info in rev2.items() if rid != "3.12.4"]
    assert rev2["3.12.4"]["points"] is None
    assert sum(points) == 313
    assert (points.count(5), points.count(3), points.count(1)) == (44, 14, 51)
    assert (rev2["3.5.3"]["points"], rev2["3.13.11"]["points"], rev2["3.8.9"]["points"]) == (5, 5, 1)


def test_both_packs_give_every_requirement_the_same_points():
    raw = {key: tomllib.loads((FRAMEWORKS / f"{key}.toml").read_text())["requirements"]
           for key in ("cmmc", "nist_800_171")}
    cmmc = {rid: entry.get("points") for rid, entry in raw["cmmc"].items() if REV2.match(rid)}
    nist = {rid: entry.get("points") for rid, entry in raw["nist_800_171"].items() if REV2.match(rid)}
    assert cmmc == nist


@pytest.mark.parametrize("persona", ["cfo", "ceo_president", "board_member", "general_counsel", "investor"])
def test_deciding_readers_learn_the_open_items_rule_out_even_a_conditional_status(persona):
    body = text(AERO, persona)
    assert "29 to 31 points off CMMC's maximum of 110" in body
    assert "would score 81 at most" in body
    assert "a plan of action may not hold five of them (3.1.12, 3.3.1, 3.4.1, 3.5.3 and 3.6.1)" in body
    assert "may hold 3.13.11 only if its encryption is in place but not FIPS-validated" in body
    assert "no Level 2 status is possible, not even a conditional one" in body
    # the bare rule it replaces is not said beside it
    assert "Each open requirement takes 1, 3 or 5 points" not in body


def test_counsel_also_reads_the_false_claims_act_exposure():
    assert "False Claims Act" in text(AERO, "general_counsel")
    assert "False Claims Act" not in text(AERO, "cfo")


@pytest.mark.parametrize(("persona", "lead"), [
    ("compliance_officer", "The score these statuses would enter in SPRS is at most 81 of 110"),
    ("external_auditor", "Scored from the statuses as recorded, the assessment would reach at most 81 of 110"),
])
def test_readers_who_check_the_status_get_the_score_in_brief(persona, lead):
    body = text(AERO, persona)
    assert lead in body
    assert "3.1.12, 3.3.1, 3.4.1, 3.5.3 and 3.6.1 cannot wait on a plan of action" in body


def test_one_point_items_alone_leave_a_conditional_status_within_reach():
    small = {**AERO, "requirements": [_req("3.1.1", "Authorized Access Control", "met"),
                                      _req("3.8.9", "Protect Backups", "not_met"),
                                      _req("3.1.9", "Privacy & Security Notices", "partially_met")]}
    body = text(small, "cfo")
    assert "the two open requirements here take 2 points off CMMC's maximum of 110" in body
    assert "a Conditional Level 2 status is within reach, provided they are closed and reassessed within 180 days" \
        in body


def test_enough_one_point_items_still_fall_below_the_88_points_a_conditional_status_needs():
    pack = load().frameworks["cmmc"]
    never = {"3.1.20", "3.1.22", "3.10.3", "3.10.4", "3.10.5"}
    ones = [rid for rid, info in pack.requirements.items() if info.get("points") == 1 and rid not in never][:23]
    body = text({**AERO, "requirements": [_req(rid, pack.requirements[rid]["title"], "not_met") for rid in ones]},
                "board_member")
    assert "would score 87 at most" in body
    assert "a plan of action may hold them, but the score stays below the 88 a Conditional Level 2 status needs" \
        in body


def test_a_level_one_item_barred_from_any_plan_of_action_is_named_even_at_one_point():
    body = text({**AERO, "requirements": [_req("3.1.20", "External Connections", "not_met")]}, "cfo")
    assert "the open requirement here takes 1 point" in body
    assert "a plan of action may not hold 3.1.20, so until it is closed no Level 2 status is possible" in body


def test_an_open_system_security_plan_means_no_score_at_all():
    reqs = [r if r["id"] != "3.12.4" else {**r, "status": "not_met"} for r in AERO["requirements"]]
    body = text({**AERO, "requirements": reqs}, "ceo_president")
    assert "the system security plan (3.12.4) is open, and without one no score can be given at all; beyond it" \
        in body


def test_nist_800_171_readers_get_the_sprs_score_without_cmmc_status_talk():
    body = text({**AERO, "framework": "NIST SP 800-171 Rev. 2"}, "ceo_president")
    assert "29 to 31 points off the SPRS maximum of 110" in body
    assert "the score contracting officers check before award (DoD Assessment Methodology v1.2.1, 2020; " \
           "DFARS 252.204-7019)" in body
    assert "Conditional Level 2" not in body


def test_level_one_has_no_points_to_apply():
    body = text({**AERO, "framework": "CMMC Level 1"}, "cfo")
    assert "points off CMMC's maximum" not in body


def test_cmmc_offers_its_plan_of_action_route_not_risk_acceptance():
    ones = {**AERO, "requirements": [_req("3.1.1", "Authorized Access Control", "met"),
                                     _req("3.1.9", "Privacy & Security Notices", "not_met"),
                                     _req("3.1.11", "Session Termination", "partially_met")]}
    routes = text(ones, "it_director", "meddpicc")
    assert "Defer: 1-point items, 180 days at most" in routes
    assert "Accept: in writing" not in text(AERO, "it_director", "meddpicc")


def test_outside_readers_are_told_how_much_of_the_110_was_assessed():
    """Panel: the investor read "Not assessed here: supplier and third-party risk and personal data protection"
    (neither a CMMC matter) and never that 98 of the 110 requirements were not assessed."""
    investor = text(AERO, "investor", "challenger")
    assert "Scope: 12 of the 110 Level 2 requirements; a Level 2 assessment scores all 110" in investor
    assert "Not assessed here: supplier" not in investor
    family = dict(enumerate(["AC", "AT", "AU", "CM", "IA", "IR", "MA", "MP", "PS", "PE", "RA", "CA", "SC", "SI"], 1))
    typed = {**AERO, "requirements": [{**q, "id": f"{family[int(q['id'].split('.')[1])]}.L2-{q['id']}"}
                                      for q in AERO["requirements"]]}
    assert "Scope: 12 of the 110 Level 2 requirements" in text(typed, "investor", "challenger")


def test_cmmc_offers_no_deferral_for_items_worth_more_than_a_point():
    """Panel: the IT director was offered "Defer" for access control, whose two open items are 5-point ones."""
    routes = text(AERO, "it_director", "meddpicc")
    assert "For access control, the routes:" in routes and "Defer: not open to these items" in routes
    assert "Defer: 1-point" not in routes
    # 3.10.3 is a 1-point requirement, but one no plan of action may ever hold
    visitors = {**AERO, "requirements": [_req("3.10.3", "Escort Visitors", "not_met"),
                                         _req("3.1.1", "Authorized Access Control", "met")]}
    assert "Defer: not open to these items" in text(visitors, "general_counsel", "meddpicc")


@pytest.mark.parametrize("framework", ["CMMC Level 2", "NIST SP 800-171 Rev. 2"])
def test_compliance_is_not_asked_which_items_to_accept_as_risks(framework):
    """Panel: a NIST SP 800-171 compliance officer was advised "formal risk acceptance", which DFARS 7012 does not
    allow; HIPAA, which does allow it for addressable items, keeps the decision."""
    assert "formal risk acceptance" not in text({**AERO, "framework": framework}, "compliance_officer", "challenger")
    hipaa = {**AERO, "framework": "HIPAA", "requirements": [
        {"id": "164.312(a)(2)(iv)", "title": "Encryption and decryption", "status": "not_met"}]}
    assert "formal risk acceptance" in text(hipaa, "compliance_officer", "challenger")


def test_cui_encryption_not_met_may_still_be_unvalidated_encryption():
    """Panel (a tooling subcontractor, 3.13.11 not met): every report missed that CUI encryption can wait on a plan
    of action when encryption is in place but not FIPS-validated; "not met" does not say which."""
    shop = {**AERO, "requirements": [_req("3.13.11", "CUI Encryption", "not_met"),
                                     _req("3.8.9", "Protect Backups", "not_met")]}
    body = text(shop, "cfo")
    assert "take 4 to 6 points off CMMC's maximum of 110" in body
    assert "may hold them (3.13.11 only if its encryption is in place but not FIPS-validated), so a Conditional " \
           "Level 2 status is within reach" in body


def test_the_brief_score_does_not_depend_on_the_framework_having_tiers():
    """NIST SP 800-171 has no levels; its compliance officer still reads the score the statuses imply (a held-out
    panel: "it never mentions SPRS")."""
    body = text({**AERO, "framework": "NIST SP 800-171 Rev. 2"}, "compliance_officer", "challenger")
    assert "The score these statuses would enter in SPRS is at most 81 of 110 (DoD Assessment Methodology" in body


def test_an_open_plan_alone_cites_only_what_is_said():
    only_ssp = {**AERO, "requirements": [_req("3.12.4", "System Security Plan", "not_met"),
                                         _req("3.1.1", "Authorized Access Control", "met")]}
    body = text(only_ssp, "cfo")
    assert "the system security plan (3.12.4) is open, and without one no score can be given at all (DoD " \
           "Assessment Methodology v1.2.1, 2020; 32 CFR 170.21, 2024)." in body
