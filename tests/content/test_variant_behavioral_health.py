"""A counseling, psychotherapy or psychiatry practice, or a substance use disorder program, is not a medical clinic
(healthcare pack, `behavioral_health` variant).

A reader panel read the 25 reports of a HIPAA Security Rule assessment of "Outpatient mental health counseling
practice, 22 staff" as written to a generic clinic: retired "medical equipment" holding patient records, front desks,
charts, patients waiting for care. Nothing said what such a practice holds and runs: therapists' session notes on
laptops they take home, telehealth sessions and the platform that carries them, psychotherapy notes that HIPAA protects
more strictly than the record (45 CFR 164.501, 164.508(a)(2)), records under 42 CFR Part 2 where the practice is a
federally assisted substance use disorder program, what a leak means to a client (stigma, an abusive partner), and an
owner or clinical director with an office manager instead of an IT department. "Counseling practice", "Psychotherapy
group" and "Addiction treatment center" found no pack at all.

Physical, occupational and speech therapy, physical rehabilitation, genetic counseling, hospitals (a psychiatric one
too) and mental health apps keep the pack's wording; home care, health software, claims services and research keep
their own variants; counseling that is not care (credit, careers, housing, law, admissions) stays out of healthcare.
Every test pairs what must not change with a text the variant takes, so each fails without the variant.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.reading import fact_pools
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()
KEY = "behavioral_health"


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


# The panel's case: no written policy; four requirements not met, four partly met.
REQUIREMENTS = [
    _req("164.308(a)(1)(ii)(A)", "Risk analysis", "not_met"),
    _req("164.308(a)(6)(ii)", "Response and reporting", "not_met"),
    _req("164.310(d)(1)", "Device and media controls (therapists' laptops)", "not_met"),
    _req("164.312(a)(2)(iv)", "Encryption and decryption", "not_met"),
    _req("164.308(b)(1)", "Business associate contracts (EHR vendor, telehealth platform, billing service)",
         "partially_met"),
    _req("164.308(a)(7)(ii)(B)", "Disaster recovery plan", "partially_met"),
    _req("164.312(b)", "Audit controls", "partially_met"),
    _req("164.308(a)(3)(ii)(C)", "Termination procedures", "partially_met"),
]
COUNSELING = {"companyId": "bh-1", "framework": "HIPAA Security Rule",
              "industry": "Outpatient mental health counseling practice, 22 staff", "policy": "NO",
              "requirements": REQUIREMENTS}


@cache
def reports(methodology: str = "spin") -> dict[str, str]:
    facts = AssessmentFacts.from_submission(COUNSELING)
    return {p.id: markdown({**ENGINE.write(facts, p.id, methodology), "personaLabel": p.label}) for p in PERSONAS}


def prose(report: str) -> str:
    """The report without its appendices (a cited source's title may name patients: the Part 2 rule's own)."""
    return report.split("## Appendix")[0]


def variant() -> dict:
    return next(v for v in C.industries["healthcare"].variants if v["key"] == KEY)


def read_as(text: str) -> tuple[str | None, str]:
    industry = C.industry_for(text)
    return (industry.key, industry.variant) if industry else (None, "")


# ------------------------------------------------------------------ which texts it takes
BEHAVIORAL = [
    "Outpatient mental health counseling practice, 22 staff", "Behavioral health clinic",
    "Behavioural health services", "Counseling practice", "Counselling service", "Grief counseling",
    "Psychotherapy group", "Psychiatry practice", "Psychology practice", "Child psychologist", "Therapy practice",
    "Group therapy practice", "Marriage and family therapy practice", "Couples therapy", "Teletherapy practice",
    "LCSW private practice", "Community mental health center", "Mental health nonprofit",
    "Substance use disorder treatment program", "Addiction treatment center", "Addiction recovery center",
    "Drug rehab center", "Rehab center", "Opioid treatment program", "Methadone clinic", "Detox center",
    "Sober living home", "Eating disorder treatment center",
]


@pytest.mark.parametrize("text", BEHAVIORAL)
def test_a_behavioral_health_practice_is_read_as_one(text):
    assert read_as(text) == ("healthcare", KEY), text


# (text, what it stays, a text the variant takes that differs from it by the word that decides)
@pytest.mark.parametrize(("text", "stays", "twin"), [
    # the therapies of the body
    ("Physical therapy clinic, 14 staff", ("healthcare", ""), "Psychotherapy clinic, 14 staff"),
    ("Physical therapy practice", ("healthcare", ""), "Therapy practice"),
    ("Occupational therapy practice", ("healthcare", ""), "Therapy practice"),
    ("Speech therapy practice", ("healthcare", ""), "Therapy practice"),
    ("Speech and language therapy group", ("healthcare", ""), "Family therapy group"),
    ("Physiotherapy clinic", ("healthcare", ""), "Psychotherapy clinic"),
    ("Physical rehab center", ("healthcare", ""), "Drug rehab center"),
    ("Physical therapy & counseling center", ("healthcare", ""), "Counseling center"),
    ("Massage therapy practice", ("healthcare", ""), "Therapy practice"),
    ("Pediatric therapy practice", ("healthcare", ""), "Child psychotherapy practice"),
    ("Genetic counseling service", ("healthcare", ""), "Grief counseling service"),
    # care providers the pack already describes
    ("Health care clinic", ("healthcare", ""), "Mental health care clinic"),
    ("Hospital", ("healthcare", ""), "Psychiatry practice"),
    ("Psychiatric hospital", ("healthcare", ""), "Psychiatric practice"),
    ("Behavioral health hospital", ("healthcare", ""), "Behavioral health clinic"),
    ("Dental practice", ("healthcare", ""), "Psychology practice"),
    # a company that builds an app or a platform is not a practice
    ("Mental health app", ("healthcare", ""), "Mental health practice"),
    # the variants before it keep their texts
    ("Home health agency", ("healthcare", "home_care"), "Mental health agency"),
    ("Mental health home care", ("healthcare", "home_care"), "Mental health counseling"),
    ("Medical billing company", ("healthcare", "claims_services"), "Counseling practice"),
    ("Behavioral health billing service", ("healthcare", "claims_services"), "Behavioral health service"),
    ("Mental health software", ("healthcare", "health_software"), "Mental health services"),
    ("Biotech lab", ("healthcare", "life_sciences_research"), "Psychology practice"),
    ("Psychiatric clinical trials site", ("healthcare", "life_sciences_research"), "Psychiatric clinic"),
])
def test_other_care_keeps_its_wording(text, stays, twin):
    assert read_as(text) == stays, text
    assert read_as(twin) == ("healthcare", KEY), twin


@pytest.mark.parametrize(("text", "stays", "twin"), [
    ("Credit counseling agency", ("financial_services", ""), "Counseling agency"),
    ("Financial counseling", ("financial_services", ""), "Family counseling"),
    ("Debt counseling service", (None, ""), "Grief counseling service"),
    ("Career counseling", (None, ""), "Trauma counseling"),
    ("Housing counseling agency", (None, ""), "Youth counseling agency"),
    ("Legal counseling", ("legal", ""), "Couples counseling"),
    ("College admissions counseling", ("education", ""), "Grief counseling center"),
    ("School counseling", ("education", ""), "Counseling practice for children"),
    ("Guidance counselor staffing", ("staffing", ""), "Licensed counselor, private practice"),
    # "addiction" is a whole word: "additions" is one edit from it, and the misspelling match must not find it
    ("Home additions contractor", (None, ""), "Addiction treatment"),
])
def test_counseling_that_is_not_care_stays_out_of_healthcare(text, stays, twin):
    assert read_as(text) == stays, text
    assert read_as(twin) == ("healthcare", KEY), twin


def test_a_psychiatric_hospital_is_left_to_the_pack_on_purpose():
    """A psychiatric hospital has inpatient units and nursing stations the pack describes; the variant is written for
    practices and programs whose therapists work from laptops and over telehealth."""
    assert "hospital" in variant()["unless"]
    assert read_as("Psychiatric hospital") == ("healthcare", "")


# ------------------------------------------------------------------ what the reports say
CLINIC_WORDING = re.compile(r"\b(?:patients?|charts?|front.desks?|nursing stations?|medical equipment|medical devices?|"
                            r"imaging|infusion pumps?|waiting for care)\b", re.I)
# the variant's own words, none of them in the case's requirement titles ("therapists' laptops", "telehealth platform")
VARIANT_WORDS = ("session notes", "psychotherapy notes", "clients' information", "clients' session notes",
                 "in therapy", "safety plans", "abusive partner", "contract and part-time clinicians")


def _clinic_wording(text: str) -> list[str]:
    return CLINIC_WORDING.findall(prose(text).replace("Outpatient", "").replace("outpatient", ""))


def test_the_counseling_practice_is_not_written_to_as_a_clinic():
    out = reports()
    assert len(out) == 25
    for pid, text in out.items():
        assert not _clinic_wording(text), (pid, _clinic_wording(text))
    words = "\n".join(prose(t) for t in out.values())
    assert "clients" in words and "session notes" in words


@pytest.mark.parametrize("methodology", [m.id for m in C.methodologies])
def test_no_methodology_brings_the_clinic_back(methodology):
    out = reports(methodology)
    wrong = {pid: _clinic_wording(text) for pid, text in out.items() if _clinic_wording(text)}
    assert not wrong, wrong
    assert any(w in prose(t) for t in out.values() for w in VARIANT_WORDS)


@pytest.mark.parametrize("pid", ["small_business_owner", "compliance_officer", "insurance_underwriter"])
def test_the_owner_compliance_officer_and_underwriter_read_of_a_counseling_practice(pid):
    body = prose(reports()[pid])
    said = [w for w in VARIANT_WORDS if w in body]
    assert said, pid
    assert "medical equipment" not in body and "patient record" not in body


def test_the_owner_reads_what_a_leak_means_to_a_client_and_keeps_serving_clients():
    body = prose(reports()["small_business_owner"])
    assert "keep serving clients" in body
    # the device and media requirement argued by what leaves the office, not by retired medical equipment
    assert "therapists' laptops leave the office every day" in body


# ------------------------------------------------------------------ the facts that apply, and their stems
BEHAVIORAL_ONLY = ("HIPAA protects psychotherapy notes", "42 CFR Part 2 as well as HIPAA",
                   "enforcement discretion expired with the emergency on 11 May 2023")


def _pooled(industry: str) -> str:
    facts = AssessmentFacts.from_submission({**COUNSELING, "industry": industry})
    return "\n".join(f["text"] for pool in fact_pools(facts) for f in pool)


@pytest.mark.parametrize(("text", "twin"), [
    ("Physical therapy clinic, 14 staff", "Outpatient mental health counseling practice, 22 staff"),
    ("Dental practice", "Addiction treatment center"),
    ("Psychiatric hospital", "Psychiatry practice"),
    ("Home health agency", "Psychotherapy group"),
    # texts the variants before it take: an app maker, a billing service, a trials site are not the practice
    ("Mental health software", "Mental health services"),
    ("Behavioral health billing service", "Behavioral health service"),
    ("Psychiatric clinical trials site", "Psychiatric clinic"),
    ("Mental health home care", "Mental health counseling"),
])
def test_the_behavioral_facts_go_to_the_variants_texts_only(text, twin):
    assert read_as(twin) == ("healthcare", KEY)
    assert all(t in _pooled(twin) for t in BEHAVIORAL_ONLY), twin
    assert not [t for t in BEHAVIORAL_ONLY if t in _pooled(text)], text


def test_the_facts_rule_in_and_out_by_the_variants_own_stems():
    """The stems are written three times over in the facts: one added to the variant but not to a fact would leave
    a practice the variant takes without its rules, or give them to one it does not. A fact has no order to fall
    back on, so it rules out, besides the variant's own `unless`, every stem of the variants before it."""
    pack = C.industries["healthcare"]
    keys = [v["key"] for v in pack.variants]
    earlier = {s for v in pack.variants[:keys.index(KEY)] for s in v["match"]}
    facts = [f for f in pack.facts if any(t in f["text"] for t in BEHAVIORAL_ONLY)]
    assert len(facts) == len(BEHAVIORAL_ONLY)
    assert all(sorted(f["when_industry"]) == sorted(variant()["match"]) for f in facts)
    assert all(set(f["unless_industry"]) == set(variant()["unless"]) | earlier for f in facts)


def test_each_rule_is_told_once_in_the_case():
    """Told once, to the reader its kind is for (the owner, counsel, procurement), in a case read as the variant."""
    assert AssessmentFacts.from_submission(COUNSELING).industry_pack.variant == KEY
    out = reports()
    for marker in ("164.508(a)(2)", "89 FR 12472", "88 FR 22380"):
        told = [pid for pid, text in out.items() if marker in prose(text)]
        assert len(told) == 1, (marker, told)


def test_part_2_is_said_only_where_it_applies():
    """A counseling practice is a part 2 program only if it is federally assisted and holds itself out as providing
    substance use disorder care: the fact and the regulators say so as a condition, never as the practice's duty."""
    part_2 = next(f for f in C.industries["healthcare"].facts if "42 CFR Part 2 as well as HIPAA" in f["text"])
    assert part_2["text"].startswith("Where {org} is a federally assisted program")
    assert "only where the practice is a federally assisted substance use disorder program" in variant()["regulators"]


# ------------------------------------------------------------------ the notes and scenarios themselves
def test_every_note_argues_its_own_subject():
    """A note is quoted as the reason for a requirement of its subject: one that reads as another subject's would be
    quoted for the wrong requirement."""
    for sid, note in variant()["subject_notes"].items():
        assert C.main_subject(note, sid.split(".")[0]) == sid, sid


def test_the_variant_replaces_every_clinical_note_and_scenario():
    industry = C.industry_for("Counseling practice, 6 therapists")
    text = " ".join([*industry.subject_notes.values(), *industry.scenarios.values(), industry.systems,
                     industry.data, industry.served, industry.one_served])
    assert not CLINIC_WORDING.findall(text), CLINIC_WORDING.findall(text)
    assert (industry.served, industry.one_served) == ("clients", "a client")
    assert "telehealth" in industry.systems
    assert not industry.sells_to_businesses
