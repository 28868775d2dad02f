"""Architecture and engineering firms read of drawings and models, not of accountants' tax files.

"Architecture firm, 45 staff" matched professional services, whose wording is about accountants, tax files, payroll
files, candidates' passports and "filing season". Its readers (the CEO, counsel and network admin of a 45-person
architecture firm) said the reports never named what such a firm holds and runs: drawings and BIM/CAD models shared
with consultants and contractors, site and building information (security-sensitive plans for some clients), bids,
and the structural and MEP engineers it engages as suppliers. The pack's `architecture_engineering` variant now says
so, and two facts about part of the sector (`when_industry`, the variant's own stems) cite the rule a design firm meets
on defense work: DFARS 252.204-7012, which brings NIST SP 800-171 and a 72-hour incident report, said only of defense
contracts that involve Controlled Unclassified Information. State licensing boards for architects and engineers
regulate professional practice, not data security, and no report says otherwise.

"design firm" is not a stem: "Graphic design firm" and "Marketing and design firm" are not architecture. A variant has
no `unless`, so texts the pack already took ("Software engineering services", "Enterprise architecture consulting")
read as design firms too; no test here pins that either way.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()
PACK = C.industries["professional_services"]
VARIANT = next(v for v in PACK.variants if v["key"] == "architecture_engineering")


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


ARCH = {"companyId": "arch-1", "framework": "ISO/IEC 27001:2022", "industry": "Architecture firm, 45 staff",
        "policy": "YES",
        "requirements": [_req("9.2", "Internal audit", "not_met"),
                         _req("A.5.19", "Information security in supplier relationships", "not_met"),
                         _req("A.5.30", "ICT readiness for business continuity", "not_met"),
                         _req("A.8.13", "Information backup", "partially_met"),
                         _req("A.8.15", "Logging", "not_met"),
                         _req("A.5.15", "Access control", "met")]}

CIVIL = {"companyId": "civ-1", "framework": "SOC 2", "industry": "Civil engineering services, 200 employees",
         "policy": "YES",
         "requirements": [_req("CC4.1", "Selects, develops, and performs ongoing and/or separate evaluations",
                               "not_met"),
                          _req("CC9.2", "Assesses and manages risks associated with vendors and business partners",
                               "not_met"),
                          _req("A1.2", "Environmental protections, data backup processes, and recovery "
                                       "infrastructure", "partially_met"),
                          _req("A1.3", "Tests recovery plan procedures", "not_met"),
                          _req("CC7.2", "Monitors system components for anomalies indicative of malicious acts",
                               "not_met"),
                          _req("CC6.1", "Logical access security software, infrastructure, and architectures",
                               "met")]}

# The accountants', recruiters' and payroll bureaus' wording the variant replaces.
OTHER_KINDS = ("filing season", "tax file", "tax document", "payroll", "passport", "accountant", "recruiter",
               "candidate")
# One phrase of each sector fact, as the reports quote it.
DFARS_SCOPE = "requires every system at"
DFARS_NOTICE = "reports to DoD itself"

_REPORTS: dict[str, dict[str, str]] = {}


def reports(body: dict) -> dict[str, str]:
    """Every persona's report (SPIN) for the body, by persona id; written once per module."""
    key = f"{body['framework']}|{body['industry']}"
    if key not in _REPORTS:
        facts = AssessmentFacts.from_submission(body)
        _REPORTS[key] = {p.id: markdown({**ENGINE.write(facts, p.id, "spin"), "personaLabel": p.label})
                         for p in PERSONAS}
    return _REPORTS[key]


def _body(text: str) -> str:
    """A report without its appendices (requirement list, sources)."""
    return text.split("## Appendix")[0]


# ------------------------------------------------------------------ which texts mean a design firm
@pytest.mark.parametrize("text", [
    "Architecture firm, 45 staff", "Architecture", "Architects", "Architectural practice", "Landscape architecture",
    "Architecture and interior design studio", "Civil engineering services, 200 employees", "Civil engineering firm",
    "Structural engineering", "MEP engineering", "Geotechnical engineering", "Consulting engineers",
    "Engineering consultancy", "Engineering firm", "Engineering services", "A/E firm",
    "Architecture & Engineering firm", "Land surveying", "Quantity surveying", "Land surveyors",
    "Urban planning consultancy", "Town planning consultancy", "Building design consultancy",
])
def test_a_design_or_survey_practice_reads_as_architecture_and_engineering(text):
    industry = C.industry_for(text)
    assert industry is not None, text
    assert (industry.key, industry.variant) == ("professional_services", "architecture_engineering"), text


@pytest.mark.parametrize("text", ["Accounting firm", "CPA firm", "Tax preparation, 12 staff", "Management consulting",
                                  "Marketing agency", "Advertising agency", "IT consulting", "Bookkeeping"])
def test_the_packs_other_kinds_keep_its_own_wording(text):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("professional_services", ""), text


@pytest.mark.parametrize(("text", "key"), [
    # the stems added to the pack take nothing another pack already had
    ("Architectural woodwork manufacturer", "manufacturing"), ("Architectural metal fabrication", "manufacturing"),
    ("Precision engineering", "manufacturing"), ("Defense contractor", "manufacturing"),
    ("Civil engineering and construction", "construction"), ("Construction engineering", "construction"),
    ("County urban planning department", "public_sector"), ("Insurance surveyor", "financial_services"),
    ("Survey software", "saas"),
])
def test_architecture_stems_take_nothing_from_other_packs(text, key):
    industry = C.industry_for(text)
    assert industry is not None and industry.key == key, (text, industry and industry.key)


@pytest.mark.parametrize("text", ["Graphic design firm", "Web design firm", "Marketing and design firm"])
def test_a_design_firm_of_another_kind_is_not_told_of_bim_models(text):
    industry = C.industry_for(text)
    assert industry is None or industry.variant != "architecture_engineering", text


# ------------------------------------------------------------------ the variant and its facts
def test_the_sector_facts_are_said_where_the_variant_is():
    """The DFARS facts hold for the texts the variant takes, by the same stems."""
    sector = [f for f in PACK.facts if "architect" in f.get("when_industry", ())]
    assert {f["kind"] for f in sector} == {"context", "notice"}
    for fact in sector:
        assert fact["when_industry"] == VARIANT["match"], fact["text"][:60]
        assert "252.204-7012" in fact["text"]
        # scoped every time: only on defense contracts that involve CUI
        assert "defense contract" in fact["text"].lower() and "Controlled Unclassified Information" in fact["text"]
        assert fact["url"].startswith("https://www.ecfr.gov/")
        # an 800-171 or CMMC assessment hears them from its framework pack
        assert {"800 171", "cmmc", "dfars"} <= set(fact["not_regime"])


def test_every_note_argues_its_own_subject():
    for sid, note in VARIANT["subject_notes"].items():
        assert C.main_subject(note, sid.split(".")[0]) == sid, sid


def test_the_variant_says_nothing_of_the_accountants_and_recruiters_it_replaces():
    assert VARIANT["drop"] == ["*"]
    said = " ".join([*VARIANT["subject_notes"].values(), *VARIANT["scenarios"].values(), VARIANT["data"],
                     VARIANT["systems"], VARIANT["customers"]]).lower()
    for word in OTHER_KINDS:
        assert word not in said, word
    for word in ("drawing", "bim", "sub-consultant", "structural and mep engineers", "common data environment",
                 "bid"):
        assert word in said, word
    # licensing boards regulate the profession, not data security, and are named only to say so
    assert "licensing boards for architects and engineers regulate professional practice, not data security" in (
        VARIANT["regulators"])


# ------------------------------------------------------------------ the reports
def test_an_architecture_firms_reports_speak_of_its_drawings_not_tax_files():
    out = reports(ARCH)
    assert AssessmentFacts.from_submission(ARCH).industry_pack.variant == "architecture_engineering"
    everything = "\n".join(out.values())
    for word in OTHER_KINDS:
        assert word not in everything.lower(), word
    for word in ("project drawings, models and clients' information", "sub-consultant", "BIM",
                 "structural and MEP engineers"):
        assert word in everything, word
    # the chief executive reads what the firm holds; counsel reads the defense notice duty, scoped
    assert "project drawings, models and clients' information" in out["ceo_president"]
    assert "within 72 hours of discovery" in out["general_counsel"]
    assert "NIST SP 800-171" in out["small_business_owner"]


@pytest.mark.parametrize("body", [ARCH, CIVIL], ids=["iso27001", "soc2"])
def test_dfars_is_said_only_of_defense_contracts_that_involve_cui(body):
    for pid, text in reports(body).items():
        for sentence in re.split(r"(?<=[.;])\s+", _body(text)):
            if "252.204-7012" in sentence or "800-171" in sentence:
                assert "Controlled Unclassified Information" in sentence, (pid, sentence)
                assert "defense contract" in sentence.lower(), (pid, sentence)


@pytest.mark.parametrize("body", [ARCH, CIVIL], ids=["iso27001", "soc2"])
def test_each_sector_fact_reaches_one_reader(body):
    out = reports(body)
    for phrase in (DFARS_SCOPE, DFARS_NOTICE):
        told = [pid for pid, text in out.items() if phrase in _body(text)]
        assert len(told) == 1, (phrase, told)


def test_a_civil_engineering_firm_reads_of_its_sub_consultants_and_recovery():
    out = reports(CIVIL)
    everything = "\n".join(out.values())
    assert "structural and MEP engineers" in everything
    assert "bid or permit set is due" in everything
    for word in OTHER_KINDS:
        assert word not in everything.lower(), word


def test_an_800_171_assessment_hears_the_dfars_duties_from_its_framework_once():
    body = {**ARCH, "framework": "NIST SP 800-171 Rev. 2",
            "requirements": [_req("3.6.1", "Incident Handling", "not_met"),
                             _req("3.3.1", "System Auditing", "not_met"),
                             _req("3.8.9", "Protect the confidentiality of backup CUI at storage locations",
                                  "partially_met")]}
    everything = "\n".join(reports(body).values())
    assert DFARS_SCOPE not in everything and DFARS_NOTICE not in everything
