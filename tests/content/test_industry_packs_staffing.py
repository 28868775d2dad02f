"""The staffing and recruitment pack: recruiters' reports speak of candidates, not of clients' confidential files.

A reader scored a recruiter's GDPR reports 4/10 when "Recruitment agency" matched professional services and the
reports spoke of "clients' confidential information". Staffing and recruitment now have their own pack
(app/content/industries/staffing.toml). Packs are tried in file-name order, stems of several words before stems of
one, first pack wins: professional_services no longer lists "staffing" or "recruit", and "Healthcare staffing"
beats healthcare's "health" through the several-word stem "healthcare staffing".
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine
from tests.content.test_industry_packs import BRACKET, CITATION

C = load()
ENGINE = TemplateEngine()

CASES = {
    "staffing": [
        "Recruitment agency", "Recruiting", "Staffing", "Staffing agency", "Temp agency", "Temporary staffing",
        "Executive search", "Headhunter", "Talent acquisition", "Employment agency", "RPO",
        "Recruitment process outsourcing", "Healthcare staffing", "IT staffing", "Health care staffing",
        "Medical staffing", "Nurse staffing", "Locum tenens", "Light industrial staffing", "Job board",
        "Executive Search Firm", "Talent Acquisition / RPO",
    ],
}

# Texts the order must give to another pack (or to none).
ELSEWHERE = {
    "Hospital": "healthcare", "Healthcare": "healthcare", "Home care": "healthcare", "Nursing home": "healthcare",
    "Marketing agency": "professional_services", "Management consulting": "professional_services",
    "Outsourcing": "professional_services", "BPO": "professional_services",
    "Travel agency": "hospitality", "IT services": "saas", "Military recruiting": "public_sector",
    "Student recruitment": "education", "Federal agency": "public_sector", "Talent agency": None,
}


@pytest.mark.parametrize("text", CASES["staffing"])
def test_partner_text_finds_the_staffing_pack(text):
    industry = C.industry_for(text)
    assert industry is not None and industry.key == "staffing", (text, industry and industry.key)


@pytest.mark.parametrize(("text", "key"), list(ELSEWHERE.items()))
def test_text_of_another_sector_is_not_taken_by_staffing(text, key):
    industry = C.industry_for(text)
    assert (industry.key if industry else None) == key, (text, industry and industry.key)


def test_staff_augmentation_software_goes_to_staffing_or_saas():
    assert C.industry_for("Staff augmentation software").key in ("staffing", "saas")


def test_professional_services_no_longer_lists_staffing_stems():
    stems = C.industries["professional_services"].match
    assert not [s for s in stems if s.startswith(("staff", "recruit"))], stems


def test_no_stem_is_shared_with_another_pack():
    mine = set(C.industries["staffing"].match)
    for other in C.industries.values():
        if other.key != "staffing":
            assert not mine & set(other.match), (other.key, mine & set(other.match))


def test_served_and_systems_read_in_the_sectors_words():
    ind = C.industries["staffing"]
    assert (ind.name, ind.served, ind.one_served) == ("staffing and recruitment", "candidates and client employers",
                                                      "a candidate")
    assert "applicant tracking" in ind.systems and "payroll" in ind.systems
    for sentence in ("keep serving {served}", "answering {served}", "learns of it from {one_served}"):
        filled = sentence.format(served=ind.served, one_served=ind.one_served)
        assert "customer" not in filled and "client's confidential" not in filled


def test_subject_notes_are_known_subjects_one_sentence_each():
    notes = C.industries["staffing"].subject_notes
    assert len(notes) >= 14
    for sid, note in notes.items():
        assert sid in {s.id for s in C.subjects}, sid
        assert len(re.findall(r"[.!?](?:\s|$)", note)) == 1 and note.endswith("."), sid
        assert not re.search(r"\byou(r)?\b", note, re.I), sid


def test_each_fact_ends_with_its_citation_and_year():
    facts = C.industries["staffing"].facts
    assert len(facts) >= 2 and {f["kind"] for f in facts} <= {"context", "threat"}
    for fact in facts:
        text = fact["text"]
        assert text.endswith(")."), text
        last = BRACKET.findall(text)[-1]
        assert CITATION.search(last), last
        assert str(fact["year"]) in fact["source"] or str(fact["year"]) in text
        assert fact["url"].startswith("https://")


def _text(report: dict) -> str:
    parts = [report["title"], report["summary"], report["callToAction"], *report["keyPoints"]]
    for s in report["sections"]:
        parts += [s["heading"], *s["paragraphs"], *s["bullets"]]
    return "\n".join(parts)


GDPR = {
    "companyId": "t-recruit", "framework": "GDPR", "industry": "Recruitment agency", "policy": "PARTIAL",
    "requirements": [
        {"id": "Art. 5(1)(e)", "title": "Storage limitation", "status": "not_met"},
        {"id": "Art. 13", "title": "Information to be provided where personal data are collected from the data subject",
         "status": "partially_met"},
        {"id": "Art. 15", "title": "Right of access by the data subject", "status": "partially_met"},
        {"id": "Art. 28", "title": "Processor", "status": "not_met"},
        {"id": "Art. 32", "title": "Security of processing", "status": "partially_met"},
        {"id": "Art. 33", "title": "Notification of a personal data breach to the supervisory authority",
         "status": "not_met"},
        {"id": "Art. 44", "title": "General principle for transfers", "status": "partially_met"},
    ]}


@pytest.fixture(scope="module")
def gdpr_reports():
    facts = AssessmentFacts.from_submission(GDPR)
    assert facts.industry_pack.key == "staffing"
    return {p.id: _text(ENGINE.write(facts, p.id, "spin")) for p in PERSONAS}


def test_a_recruiters_gdpr_reports_speak_of_candidates(gdpr_reports):
    assert len(gdpr_reports) == 25
    everything = "\n".join(gdpr_reports.values())
    assert "candidates" in everything
    assert sum("candidate" in t for t in gdpr_reports.values()) >= 5
    assert "candidates and client employers" in gdpr_reports["ceo_president"] + gdpr_reports["small_business_owner"]


def test_a_recruiters_gdpr_reports_never_speak_of_clients_confidential_information(gdpr_reports):
    for pid, text in gdpr_reports.items():
        assert "clients' confidential information" not in text, pid
        assert "client project, document and billing systems" not in text, pid
        assert "{" not in text and "}" not in text, pid


@pytest.mark.parametrize("text, key", [("Payroll services", "professional_services"),
                                       ("Payroll bureau", "professional_services"),
                                       ("Professional employer organization (PEO)", "professional_services"),
                                       ("Payroll software", "saas"), ("Staffing agency", "staffing")])
def test_payroll_providers_are_matched_to_a_sector_not_left_generic(text, key):
    """Panel (2026-11-27): a SOC 2 payroll company read "the main systems" and "the people the organization
    serves": no pack took "Payroll services"."""
    assert load().industry_for(text).key == key
