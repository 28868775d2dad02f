"""A biotech, a drug developer or a contract research organization is not a clinic (healthcare pack,
`life_sciences_research` variant).

"Biotech research lab, 120 staff" matched the healthcare pack and was written to about "the patient record",
"patients' protected health information" and patients waiting for care, and was quoted IBM's and Verizon's healthcare
figures, though IBM reports pharmaceuticals and research as industries of their own and Verizon's healthcare is NAICS
62, care delivery. A research company holds research data, unpublished results and, in clinical work, study
participants' data; its stakes are stolen intellectual property, the trustworthiness of records behind FDA submissions
(21 CFR Part 11, audit trails included) and partners' and sponsors' diligence. A pharmacy, a clinical or diagnostic
laboratory and a hospital keep the pack's wording; device makers and health software companies keep their variants.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.reading import fact_pools
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()
KEY = "life_sciences_research"


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


REQUIREMENTS = [_req("01.a", "Access control policy", "not_met"),
                _req("09.aa", "Audit logging", "not_met"),
                _req("09.l", "Back-up", "met"),
                _req("12.c", "Developing and implementing continuity plans", "not_met"),
                _req("10.m", "Control of technical vulnerabilities", "partially_met")]
BIOTECH = {"companyId": "bio-1", "framework": "HITRUST CSF e1", "industry": "Biotech research lab, 120 staff",
           "policy": "NO", "requirements": REQUIREMENTS}
PHARMA = {**BIOTECH, "companyId": "pharma-1", "framework": "ISO 27001",
          "industry": "Pharmaceutical drug discovery company"}


def reports(body: dict, methodology: str = "spin") -> dict[str, str]:
    facts = AssessmentFacts.from_submission(body)
    return {p.id: markdown({**ENGINE.write(facts, p.id, methodology), "personaLabel": p.label}) for p in PERSONAS}


def prose(report: str) -> str:
    """The report without its appendices (a cited source's title may name patients: HHS's HICP)."""
    return report.split("## Appendix")[0]


def variant() -> dict:
    return next(v for v in C.industries["healthcare"].variants if v["key"] == KEY)


# ------------------------------------------------------------------ which texts it takes
@pytest.mark.parametrize("text", [
    "Biotech research lab, 120 staff", "Pharmaceutical drug discovery company", "Biotechnology company",
    "Bio-tech startup", "Biopharmaceutical company", "Biopharma", "Pharma company", "Pharmaceuticals",
    "Life sciences company", "Drug discovery startup", "Drug development company", "Contract research organization",
    "CRO, 80 staff", "Clinical research organization", "Clinical trial services", "Preclinical research services",
    "Medical research institute",
])
def test_a_research_company_is_read_as_one(text):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("healthcare", KEY), text


@pytest.mark.parametrize(("text", "variant_key"), [
    # a pharmacy, a clinical or diagnostic lab and a hospital are health care proper
    ("Retail pharmacy chain", ""), ("Compounding pharmacy", ""), ("Specialty pharmacy", ""),
    ("Clinical laboratory", ""), ("Diagnostic lab", ""), ("Reference laboratory", ""), ("Laboratory", ""),
    ("Hospital", ""), ("Dental practice", ""),
    # the variants before it keep their texts
    ("Medical device manufacturer", "medical_devices"), ("Biotech medical device company", "medical_devices"),
    ("Clinical research software", "health_software"), ("Life sciences SaaS", "health_software"),
    ("Home health agency", "home_care"), ("Medical billing services", "claims_services"),
])
def test_care_providers_and_the_earlier_variants_keep_their_wording(text, variant_key):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("healthcare", variant_key), text


@pytest.mark.parametrize(("text", "key"), [
    ("University research lab", "education"), ("AI research lab", "saas"),
    ("Government contract research", "public_sector"),
])
def test_research_in_another_sector_stays_there(text, key):
    assert C.industry_for(text).key == key


# ------------------------------------------------------------------ what the reports say
def test_a_biotech_lab_is_not_written_to_as_a_care_provider():
    out = reports(BIOTECH)
    for pid, text in out.items():
        body = prose(text)
        assert not re.search(r"\b(?:patients?|charts?|clinics?)\b", body, re.I), pid
        for provider in ("protected health information", "front desk", "wait for care", "business associate",
                         "covered entit", "Security Rule"):
            assert provider not in body, (pid, provider)
    words = "\n".join(out.values())
    assert "electronic lab notebook" in words and "unpublished results" in words
    assert "instrument" in words and "sponsors" in words


def test_a_research_company_hears_of_fdas_electronic_records_rule_and_trade_secrets_once():
    for body in (BIOTECH, PHARMA):
        out = reports(body)
        part_11 = [pid for pid, text in out.items() if "21 CFR 11.1(b)" in text]
        secrets = [pid for pid, text in out.items() if "18 U.S.C. 1839(3)" in text]
        assert len(part_11) == 1 and len(secrets) == 1, (body["industry"], part_11, secrets)
        # the audit-logging reason a reader is given speaks of who changed a result, not of patients' charts
        assert "who entered, changed or deleted a result" in "\n".join(out.values())


def test_a_drug_developers_board_is_not_quoted_the_healthcare_breach_cost():
    """IBM's healthcare average ($7.42M in 2025) is not a drug developer's: IBM reports pharmaceuticals apart."""
    words = "\n".join(reports(PHARMA).values())
    for healthcare_figure in ("$7.42M", "279 days", "NAICS 62", "In healthcare,"):
        assert healthcare_figure not in words, healthcare_figure


def test_a_pharmacy_still_reads_of_its_patients():
    pharmacy = {**BIOTECH, "industry": "Retail pharmacy chain", "framework": "HIPAA",
                "requirements": [_req("164.312(b)", "Audit controls", "not_met"),
                                 _req("164.308(a)(7)(ii)(A)", "Data backup plan", "partially_met")]}
    words = "\n".join(reports(pharmacy).values())
    assert "patients" in words and "electronic lab notebook" not in words


# ------------------------------------------------------------------ the facts that apply, and their stems
HEALTHCARE_ONLY = ("Healthcare had the highest average breach cost", "Healthcare breaches took the longest",
                   "In healthcare, miscellaneous errors", "A business associate such as a billing company",
                   "Security Risk Assessment (SRA) Tool")
RESEARCH_ONLY = ("21 CFR 11.1(b)", "18 U.S.C. 1839(3)")


def _pooled(industry: str) -> str:
    facts = AssessmentFacts.from_submission({**PHARMA, "industry": industry})
    return "\n".join(f["text"] for pool in fact_pools(facts) for f in pool)


@pytest.mark.parametrize("industry", ["Pharmaceutical drug discovery company", "Contract research organization",
                                      "Biotech research lab, 120 staff"])
def test_a_research_company_gets_its_own_facts_not_a_providers(industry):
    pooled = _pooled(industry)
    assert not [t for t in HEALTHCARE_ONLY if t in pooled], industry
    assert all(t in pooled for t in RESEARCH_ONLY), industry


def test_a_practice_keeps_the_sectors_facts_and_hears_nothing_of_research():
    pooled = _pooled("Dental practice")
    assert all(t in pooled for t in HEALTHCARE_ONLY[:3])   # the sector figures (the rule facts are context)
    assert not [t for t in RESEARCH_ONLY if t in pooled]


def test_the_facts_rule_research_in_and_out_by_the_variants_own_stems():
    """One list of stems, written six times in the pack: a stem added to the variant but not to a fact would let
    a research company be quoted a provider's figure again."""
    stems = sorted(variant()["match"])
    facts = C.industries["healthcare"].facts
    ruled_out = [f for f in facts if any(t in f["text"] for t in HEALTHCARE_ONLY)]
    ruled_in = [f for f in facts if any(t in f["text"] for t in RESEARCH_ONLY)]
    assert len(ruled_out) == len(HEALTHCARE_ONLY) and len(ruled_in) == len(RESEARCH_ONLY)
    assert all(sorted(f["unless_industry"]) == stems for f in ruled_out)
    assert all(sorted(f["when_industry"]) == stems for f in ruled_in)


def test_no_stem_takes_a_pharmacy_or_a_clinical_lab():
    for stem in variant()["match"]:
        for provider in (" pharmacy ", " pharmacies ", " clinical laboratory ", " clinical lab ", " diagnostic lab ",
                         " laboratory "):
            assert " " + stem not in provider, (stem, provider)


def test_every_note_argues_its_own_subject():
    """A note is quoted as the reason for a requirement of its subject: one that reads as another subject's would be
    quoted for the wrong requirement."""
    for sid, note in variant()["subject_notes"].items():
        assert C.main_subject(note, sid.split(".")[0]) == sid, sid


def test_the_variant_replaces_every_clinical_note_and_scenario():
    industry = C.industry_for("Biotech research lab")
    text = " ".join([*industry.subject_notes.values(), *industry.scenarios.values(), industry.systems,
                     industry.data, industry.served])
    assert not re.search(r"\b(?:patients?|charts?|clinics?|front desks?|business associates?)\b", text, re.I)
    assert industry.sells_to_businesses
