"""Kinds of organization a sector's wording misdescribed (issue 29; reader panel of 2026-11-28 on a home health
agency, a medical device maker, a payroll software company and a veterinary group): a home health agency was written
to about "front desks" and "nursing stations", a device manufacturer read a hospital's ransomware scenario and "when
patients are told", a payroll company's reports never said payroll, and a veterinary group got nothing of its own.

A pack's `variants` lay the kind of organization over the sector (`Industry.variant_for`); veterinary care has its
own pack."""

from __future__ import annotations

import pytest

from app.catalog import PERSONAS
from app.content import ContentError, load
from app.generation.facts import AssessmentFacts
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

ENGINE = TemplateEngine()


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


def every_report(body: dict, methodology: str = "spin") -> str:
    facts = AssessmentFacts.from_submission(body)
    return "\n".join(markdown({**ENGINE.write(facts, p.id, methodology), "personaLabel": p.label})
                     for p in PERSONAS)


HIPAA = [_req("164.308(a)(1)(ii)(A)", "Risk analysis", "not_met"),
         _req("164.308(a)(5)(ii)(D)", "Password management", "not_met"),
         _req("164.308(a)(7)(ii)(A)", "Data backup plan", "met"),
         _req("164.308(a)(7)(ii)(C)", "Emergency mode operation plan", "not_met"),
         _req("164.308(a)(3)(ii)(C)", "Termination procedures", "partially_met"),
         _req("164.310(d)(1)", "Device and media controls", "not_met"),
         _req("164.312(a)(2)(iv)", "Encryption and decryption", "not_met"),
         _req("164.312(b)", "Audit controls", "partially_met")]


@pytest.mark.parametrize(("text", "key", "variant"), [
    ("Home health agency", "healthcare", "home_care"), ("Hospice", "healthcare", "home_care"),
    ("Home care services", "healthcare", "home_care"),
    ("Medical device manufacturer", "healthcare", "medical_devices"), ("MedTech", "healthcare", "medical_devices"),
    ("Dental practice software", "healthcare", "health_software"), ("Healthtech startup", "healthcare",
                                                                   "health_software"),
    ("Medical billing services", "healthcare", "claims_services"),
    ("Health plan third-party administrator", "healthcare", "claims_services"),
    ("HR and payroll software", "saas", "payroll"), ("Cloud HR platform", "saas", "payroll"),
    # the sector's own wording where no kind is named
    ("Dental practice", "healthcare", ""), ("Hospital", "healthcare", ""), ("B2B SaaS", "saas", ""),
])
def test_the_kind_of_organization_is_read_within_its_sector(text, key, variant):
    industry = load().industry_for(text)
    assert (industry.key, industry.variant) == (key, variant)


def test_a_home_health_agency_is_written_to_about_the_field_not_a_front_desk():
    body = {"companyId": "hh-1", "framework": "HIPAA", "industry": "Home health agency", "policy": "NO",
            "requirements": HIPAA}
    words = every_report(body)
    assert "front desk" not in words and "nursing station" not in words
    assert "tablet" in words and "visit" in words
    # the sector's own rule on emergency plans reaches a reader, cited to the CMS condition of participation
    assert "484.102" in words
    # the clinic's wording is still the clinic's
    clinic = every_report({**body, "industry": "Family medicine clinic"})
    assert "484.102" not in clinic


def test_a_medical_device_maker_is_not_written_to_as_a_care_provider():
    body = {"companyId": "md-1", "framework": "HITRUST CSF e1", "industry": "Medical device manufacturer",
            "policy": "YES",
            "requirements": [_req("07.a", "Inventory of assets", "not_met"),
                             _req("09.aa", "Audit logging", "not_met"),
                             _req("10.m", "Control of technical vulnerabilities", "partially_met"),
                             _req("12.c", "Developing and implementing continuity plans including information "
                                          "security", "not_met"),
                             _req("05.i", "Identification of risks related to external parties", "not_met")]}
    words = every_report(body)
    for provider in ("patients wait for care", "chart on paper", "patient record", "front desk",
                     "visits are cancelled"):
        assert provider not in words, provider
    assert "hospital customers" in words
    assert "524B" in words
    # and under HIPAA it is not told a covered entity's duty to notify individuals
    hipaa = every_report({**body, "framework": "HIPAA", "requirements": HIPAA})
    assert "patients wait for care" not in hipaa and "front desk" not in hipaa


def test_a_payroll_software_company_hears_of_payroll():
    body = {"companyId": "pw-1", "framework": "SOC 2 Type II", "industry": "HR and payroll software",
            "policy": "YES",
            "requirements": [_req("CC6.1", "Logical access security", "partially_met"),
                             _req("CC6.3", "Role-based access and removal", "not_met"),
                             _req("CC7.2", "Monitoring system components for anomalies", "not_met"),
                             _req("CC8.1", "Change management", "not_met"),
                             _req("A1.2", "Environmental protections, backup and recovery infrastructure",
                                  "partially_met")]}
    words = every_report(body)
    assert "direct-deposit" in words or "pay run" in words
    assert "employer customers" in words
    assert "SOC 1" in words or "pay run" in words


def test_a_board_member_is_not_given_staff_burden_as_the_reason_a_control_matters():
    """Panel: a board member read "Monitoring system components for anomalies (CC7.2) is not met; among staff,
    analysts flooded with false alarms learn to dismiss alerts ..." as the reason monitoring mattered."""
    body = {"companyId": "pw-2", "framework": "SOC 2 Type II", "industry": "HR and payroll software", "policy": "YES",
            "requirements": [_req("CC6.3", "Role-based access and removal", "not_met"),
                             _req("CC7.2", "Monitoring system components for anomalies", "not_met"),
                             _req("CC8.1", "Change management", "not_met")]}
    facts = AssessmentFacts.from_submission(body)
    staff = load().subjects
    burdens = [s.people for s in staff if s.people]
    for persona in ("board_member", "general_counsel", "cfo"):
        for methodology in ("spin", "bant", "challenger", "sandler"):
            report = markdown({**ENGINE.write(facts, persona, methodology), "personaLabel": persona})
            for burden in burdens:
                assert burden.rstrip(".")[1:60] not in report, (persona, methodology, burden)


def test_a_veterinary_group_reads_of_its_clients_and_its_practice_system():
    body = {"companyId": "vt-1", "framework": "ISO/IEC 27001:2022", "industry": "Veterinary clinics group",
            "policy": "YES",
            "requirements": [_req("A.5.24", "Incident management planning and preparation", "not_met"),
                             _req("A.5.30", "ICT readiness for business continuity", "not_met"),
                             _req("A.8.5", "Secure authentication", "partially_met"),
                             _req("A.8.13", "Information backup", "partially_met"),
                             _req("A.8.15", "Logging", "not_met")]}
    words = every_report(body)
    assert "practice management system" in words
    assert "protected health information" not in words and "patients" not in words
    assert "service credits" not in words


def test_a_variant_is_checked_like_its_pack(tmp_path):
    """A variant's notes must name known subjects, and `notes_from` a known pack, or the content does not load."""
    import shutil

    from app.content import ROOT
    root = tmp_path / "content"
    shutil.copytree(ROOT, root)
    path = root / "industries" / "veterinary.toml"
    base = path.read_text(encoding="utf-8")
    path.write_text(base + '\n[[variants]]\nkey = "farm"\nmatch = ["farm"]\n[variants.subject_notes]\n'
                    '"access.nonsense" = "A sentence."\n', encoding="utf-8")
    with pytest.raises(ContentError, match="access.nonsense"):
        load(root)
    path.write_text(base + '\n[[variants]]\nkey = "farm"\nmatch = ["farm"]\nnotes_from = "nowhere"\n',
                    encoding="utf-8")
    with pytest.raises(ContentError, match="nowhere"):
        load(root)


def test_a_health_software_company_is_told_its_business_associate_notice_duty_once():
    """Panel: a dental software company's counsel, reading its SOC 2 report, was never told that it is a HIPAA
    business associate with its own breach notice duty to the practices it serves."""
    body = {"companyId": "ds-1", "framework": "SOC 2 Type II", "industry": "Dental practice management software",
            "policy": "YES",
            "requirements": [_req("CC6.7", "Restricts the transmission, movement, and removal of information",
                                  "not_met"),
                             _req("CC7.3", "Evaluates security events", "not_met"),
                             _req("CC9.2", "Assesses and manages risks associated with vendors and business partners",
                                  "not_met")]}
    counsel = markdown({**ENGINE.write(AssessmentFacts.from_submission(body), "general_counsel", "spin"),
                        "personaLabel": "General Counsel"})
    assert "business associate" in counsel and "60 calendar days" in counsel
    # under HIPAA itself the framework's own notice fact says it, and no second reader hears it again
    for framework in ("SOC 2 Type II", "HIPAA"):
        words = every_report({**body, "framework": framework})
        assert words.count("no later than 60 calendar days after discovery") == 1, framework
