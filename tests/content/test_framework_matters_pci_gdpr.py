"""The framework's own rule about a requirement (`matters` notes) in the PCI DSS and GDPR packs: each note is one
sentence that reads after "because", carries a bracketed citation with a year, and stays short; and a report on a
PCI DSS assessment with MFA into the CDE (8.4.2) open tells a reader that it became mandatory on 31 March 2025."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine

SAMPLES = Path(__file__).resolve().parents[2] / "app" / "content" / "samples"
YEAR = re.compile(r"\b(19|20)\d{2}\b")


def citation(note: str) -> tuple[str, str] | None:
    """The note's closing bracketed citation, brackets inside it allowed ("(Regulation (EU) 2016/679, Art. 5,
    2016)."), and the text before it; None when the note does not end with one."""
    if not note.endswith(")."):
        return None
    depth = 0
    for i in range(len(note) - 2, -1, -1):
        depth += {")": 1, "(": -1}.get(note[i], 0)
        if depth == 0:
            return note[:i].rstrip(), note[i:-1]
    return None
# PCI DSS v4.0.1 requirements whose Applicability Notes say "best practice until 31 March 2025" and that carry a note
FUTURE_DATED = {"3.2.1", "4.2.1", "4.2.1.1", "5.4.1", "6.3.2", "6.4.3", "7.2.5", "8.3.6", "8.4.2", "9.5.1.2.1",
                "10.4.1.1", "11.3.1.2", "11.6.1", "12.3.1", "12.3.3", "12.6.3.1", "12.10.7"}


def notes(key):
    return {rid: info["matters"] for rid, info in load().frameworks[key].requirements.items() if info.get("matters")}


@pytest.mark.parametrize("key, at_least", [("pci_dss", 12), ("gdpr", 12)])
def test_each_note_is_cited_short_and_reads_after_because(key, at_least):
    found = notes(key)
    assert len(found) >= at_least, (key, len(found))
    for rid, note in found.items():
        found_citation = citation(note)
        assert found_citation and YEAR.search(found_citation[1]), (rid, note)
        assert len(note.split()) <= 60, (rid, len(note.split()))
        assert not note.startswith("This"), rid
        assert not re.search(r"\byou(r)?\b", note, re.I), rid
        body = found_citation[0]
        assert ". " not in body, (rid, "one sentence")
        assert set(re.findall(r"\{(\w+)\}", note)) <= {"org"}, rid


def test_pci_notes_start_with_the_standard_and_cite_their_own_requirement():
    found = notes("pci_dss")
    for rid, note in found.items():
        assert note.startswith("PCI DSS "), rid
        assert note.endswith(f"(PCI DSS v4.0.1, Requirement {rid}, 2024)."), rid
    # the requirements that were best practices until 31 March 2025 say so; the others do not claim it
    for rid, note in found.items():
        assert ("31 March 2025" in note) == (rid in FUTURE_DATED), rid
    assert "point-of-sale" in found["8.4.2"] and "phishing-resistant" in found["8.4.2"]
    assert "HTTP headers" in found["11.6.1"] and "outside the CDE" in found["12.10.7"]
    assert "12 months" in found["11.3.1"] and "5.4.1" in found["12.6.3.1"] and "12.6.3.1" in found["5.4.1"]


def test_pci_obliges_follow_the_v4_0_1_wording():
    reqs = load().frameworks["pci_dss"].requirements
    assert "all non-console access into the cardholder data environment" in reqs["8.4.2"]["obliges"]
    assert "critical vulnerabilities installed within one month" in reqs["6.3.3"]["obliges"]
    assert "high-security" not in reqs["6.3.3"]["obliges"]


def test_gdpr_notes_start_with_the_regulation_and_cite_it():
    found = notes("gdpr")
    assert {"5(1)(e)", "12", "14", "15", "28", "30", "33", "33(5)", "34", "35", "37", "44", "46"} <= set(found)
    for rid, note in found.items():
        assert note.startswith(("The GDPR ", "The GDPR's ")), rid
        assert "(Regulation (EU) 2016/679, Art" in note, rid
    assert "EUR 20 million or 4%" in found["5(1)(e)"] and "whichever is higher" in found["5(1)(e)"]
    assert "2021/914" in found["46"] and "encryption" in found["32(1)(a)"]
    # an article's note is not carried down to its paragraphs
    assert load().frameworks["gdpr"].info("33(4)")["matters"] == ""


def test_a_pci_assessment_with_mfa_into_the_cde_open_tells_a_reader_the_2025_date():
    body = {
        "companyId": "c-pci", "framework": "PCI DSS v4.0.1", "industry": "Restaurant group", "policy": "YES",
        "displayName": "Harbor Grill Group",
        "requirements": [
            {"id": "8.4.2", "title": "MFA for all access into the CDE", "status": "not_met"},
            {"id": "10.5.1", "title": "Audit log retention", "status": "met"},
        ]}
    engine = TemplateEngine()
    facts = AssessmentFacts.from_submission(body)
    reports = {p.id: str(engine.write(facts, p.id, "spin")) for p in PERSONAS}
    assert len(reports) == 25
    telling = [pid for pid, text in reports.items() if "31 March 2025" in text]
    assert telling, "no reader is told that 8.4.2 became mandatory on 31 March 2025"
    assert len(telling) == 1, telling   # the note goes to one reader per run


@pytest.mark.parametrize("key, framework", [("pci_dss", "PCI DSS"), ("gdpr", "GDPR")])
def test_every_noted_requirement_renders_for_every_reader(key, framework):
    """A note is quoted only where the requirement's title has a subject (blocks._group_finding reads the subject's
    topic for a framework note): every noted requirement, typed with its pack title, renders all 25 reports."""
    pack = load().frameworks[key]
    noted = [(rid, info) for rid, info in pack.requirements.items() if info.get("matters")]
    engine = TemplateEngine()
    for start in range(0, len(noted), 4):
        body = {"companyId": f"c-{key}", "framework": framework, "industry": "Retail", "policy": "YES",
                "requirements": [{"id": rid, "title": info["title"], "status": "not_met"}
                                 for rid, info in noted[start:start + 4]]}
        facts = AssessmentFacts.from_submission(body)
        for persona in PERSONAS:
            assert engine.write(facts, persona.id, "spin")["sections"], (key, start, persona.id)


@pytest.mark.parametrize("sample", ["pci_retail", "gdpr_law_firm"])
def test_the_samples_render_for_every_reader_with_the_notes(sample):
    body = json.loads((SAMPLES / f"{sample}.json").read_text())
    facts = AssessmentFacts.from_submission(body)
    engine = TemplateEngine()
    for persona in PERSONAS:
        assert engine.write(facts, persona.id, "spin")["sections"], (sample, persona.id)
