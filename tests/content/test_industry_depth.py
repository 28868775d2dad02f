"""Industry depth: what a senior consultant in the sector would say reaches the reports.

Readers (a dental practice's owner, counsel and insurer; a freight broker's CFO, auditor and network admin) judged
the reports "the industry is a label, not content". The healthcare and logistics packs now say what a control means
for a practice (shared front-desk logins, imaging workstations, HHS's Security Risk Assessment Tool and 405(d)
guidance) and for a broker (carrier identity theft, double brokering, payments diverted by changed bank details).
Each case below fails without that pack data. A subject note goes to one reader per run (`lens_allotment`), so the
cases name the reader the run gives it to.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()

DENTAL = {
    "companyId": "d-1", "framework": "HIPAA", "industry": "Dental practice", "policy": "NO",
    "requirements": [
        {"id": "164.308(a)(1)(ii)(A)", "title": "Risk analysis", "status": "not_met"},
        {"id": "164.308(a)(1)(ii)(B)", "title": "Risk management", "status": "partially_met"},
        {"id": "164.308(a)(5)(ii)(D)", "title": "Password management", "status": "not_met"},
        {"id": "164.312(a)(2)(iv)", "title": "Encryption and decryption", "status": "partially_met"},
        {"id": "164.308(b)(1)", "title": "Business associate contracts and other arrangements",
         "status": "partially_met"},
        {"id": "164.312(b)", "title": "Audit controls", "status": "not_met"},
        {"id": "164.308(a)(7)(ii)(B)", "title": "Disaster recovery plan", "status": "not_met"},
        {"id": "164.308(a)(7)(ii)(A)", "title": "Data backup plan", "status": "partially_met"},
        {"id": "164.312(a)(2)(i)", "title": "Unique user identification", "status": "not_met"},
        {"id": "164.312(a)(2)(iii)", "title": "Automatic logoff", "status": "met"},
        {"id": "164.308(a)(5)(ii)(A)", "title": "Security reminders", "status": "partially_met"},
        {"id": "164.308(a)(6)(ii)", "title": "Response and reporting", "status": "not_met"},
        {"id": "164.310(c)", "title": "Workstation security", "status": "partially_met"},
        {"id": "164.312(e)(1)", "title": "Transmission security", "status": "met"},
        {"id": "164.308(a)(3)(ii)(C)", "title": "Termination procedures", "status": "met"},
    ]}

FREIGHT = {
    "companyId": "f-1", "framework": "SOC 2 Type II", "industry": "Freight brokerage and trucking",
    "policy": "PARTIAL",
    "requirements": [
        {"id": "CC6.1", "title": "Logical access security software, infrastructure, and architectures",
         "status": "partially_met"},
        {"id": "CC6.2", "title": "Registers and authorizes new users before issuing credentials", "status": "met"},
        {"id": "CC6.3", "title": "Role-based access, least privilege, and segregation of duties", "status": "not_met"},
        {"id": "CC6.6", "title": "Logical access security measures against threats from outside system boundaries",
         "status": "partially_met"},
        {"id": "CC6.7", "title": "Restricts and protects the transmission, movement, and removal of information",
         "status": "partially_met"},
        {"id": "CC6.8", "title": "Prevents or detects unauthorized or malicious software", "status": "met"},
        {"id": "CC7.1", "title": "Detects configuration changes and newly discovered vulnerabilities",
         "status": "partially_met"},
        {"id": "CC7.2", "title": "Monitors system components for anomalies indicative of malicious acts",
         "status": "not_met"},
        {"id": "CC7.3", "title": "Evaluates security events to determine whether they are incidents",
         "status": "partially_met"},
        {"id": "CC7.4", "title": "Responds to identified security incidents", "status": "not_met"},
        {"id": "CC8.1", "title": "Authorizes, designs, develops, tests, approves, and implements changes",
         "status": "met"},
        {"id": "CC9.2", "title": "Assesses and manages risks associated with vendors and business partners",
         "status": "not_met"},
        {"id": "CC3.2", "title": "Identifies and analyzes risks to the achievement of objectives",
         "status": "partially_met"},
        {"id": "CC2.3", "title": "Communicates with external parties", "status": "met"},
        {"id": "A1.2", "title": "Environmental protections, data backup processes, and recovery infrastructure",
         "status": "partially_met"},
        {"id": "A1.3", "title": "Tests recovery plan procedures", "status": "not_met"},
    ]}


def _text(report: dict) -> str:
    parts = [report["title"], report["summary"], report["callToAction"], *report["keyPoints"]]
    for s in report["sections"]:
        parts += [s["heading"], *s["paragraphs"], *s["bullets"]]
    return "\n".join(parts)


def _write(body: dict, persona: str, methodology: str = "spin") -> str:
    return _text(ENGINE.write(AssessmentFacts.from_submission(body), persona, methodology))


def _subset(body: dict, *titles: str) -> dict:
    by_title = {r["title"]: r for r in body["requirements"]}
    return {**body, "requirements": [by_title[t] for t in titles]}


def test_the_two_assessments_find_their_packs():
    assert AssessmentFacts.from_submission(DENTAL).industry_pack.key == "healthcare"
    assert AssessmentFacts.from_submission(FREIGHT).industry_pack.key == "logistics"


# ------------------------------------------------------------------ the dental practice
def test_the_front_desk_logins_note_reaches_one_reader_of_the_run():
    reports = {p.id: _write(DENTAL, p.id) for p in PERSONAS}
    told = [pid for pid, text in reports.items() if "shared at front desks, at nursing stations or on clinical "
            "workstations" in text and "who opened which chart after a complaint or a breach" in text]
    assert len(told) == 1, told


def test_the_hhs_risk_assessment_tool_is_named_once_in_a_run():
    reports = {p.id: _write(DENTAL, p.id) for p in PERSONAS}
    told = [pid for pid, text in reports.items() if "Security Risk Assessment Tool" in text]
    assert len(told) == 1, told   # a subject note reads the same wherever it is quoted, so one reader hears it
    assert sum("405(d) Health Industry Cybersecurity Practices" in t for t in reports.values()) == 1


def test_a_practice_owner_reads_about_front_desk_and_treatment_room_workstations():
    body = _subset(DENTAL, "Risk analysis", "Encryption and decryption", "Data backup plan", "Workstation security")
    text = _write(body, "small_business_owner")
    assert "workstations at the front desk, at nursing stations and in treatment rooms are shared" in text


def test_industry_notes_go_to_the_owner_first_then_to_readers_whose_areas_they_are():
    """Panel: the practice's owner read none of the practice notes, which went to whoever came first in the
    allotment order (auditors, the board). Now the owner takes the first ones, and each other note goes to a
    reader whose own areas hold the note's topic."""
    from app.content import load
    from app.generation.reading import lens_allotment
    by_id = {p.id: p for p in load().personas}
    for body in (DENTAL, FREIGHT):
        facts = AssessmentFacts.from_submission(body)
        notes = {(sub, pid) for (sub, kind), (pid, _) in lens_allotment(facts, "spin").items() if kind == "industry"}
        assert any(pid == "small_business_owner" for _, pid in notes), notes
        for sub, pid in notes:
            assert pid == "small_business_owner" or sub.split(".")[0] in by_id[pid].topics, (sub, pid)


# ------------------------------------------------------------------ the freight broker
def test_a_freight_run_speaks_of_carrier_fraud_somewhere():
    texts = "\n".join(_write(FREIGHT, p.id) for p in PERSONAS)
    assert "carrier payments get diverted" in texts
    assert "impostor" in texts or "stolen identity" in texts   # incident handling or carrier due diligence


# ------------------------------------------------------------------ the packs themselves
@pytest.mark.parametrize("key", ["healthcare", "logistics"])
def test_every_note_argues_its_own_subject(key):
    """The engine argues a requirement only by a reason about its own subject (test_requirement_reasons.py):
    a note whose words name another subject's terms would be quoted for the wrong requirement."""
    for sid, note in C.industries[key].subject_notes.items():
        assert C.main_subject(note, sid.split(".")[0]) == sid, (key, sid)


@pytest.mark.parametrize(("key", "words", "host"), [
    ("healthcare", "Security Risk Assessment (SRA) Tool", "www.hhs.gov"),
    ("healthcare", "Health Industry Cybersecurity Practices", "hhscyber.hhs.gov"),
    ("logistics", "49 U.S.C. 14916", "uscode.house.gov"),
])
def test_the_new_facts_cite_the_publisher(key, words, host):
    fact = next(f for f in C.industries[key].facts if words in f["text"])
    assert urlsplit(fact["url"]).hostname == host
    assert fact["kind"] == "context" and 2012 <= fact["year"] <= 2026


def test_the_healthcare_pack_leaves_the_notice_clock_to_the_hipaa_pack():
    """The 60-day breach notice is a HIPAA framework fact; the notes do not repeat it."""
    notes = " ".join(C.industries["healthcare"].subject_notes.values())
    assert "60" not in notes and "164.404" not in notes



def test_a_home_health_agency_reads_no_clinic_or_dental_fixtures():
    """Panel (2026-11-27, a home health agency): its owner read of "imaging systems", "chart or X-ray" and
    "retired copiers ... patient images", a dental office's fixtures; its clinicians carry laptops and tablets
    into patients' homes, which no report said."""
    home = {**DENTAL, "industry": "Home health agency"}
    reports = {p.id: _write(home, p.id) for p in PERSONAS}
    for pid, text in reports.items():
        for fixture in ("X-ray", "imaging workstation", "waiting room", "patient images", "clinic morning"):
            assert fixture not in text, (pid, fixture)
    from app.content import load
    assert "into patients' homes" in load().industries["healthcare"].subject_notes["encryption.at_rest"]
