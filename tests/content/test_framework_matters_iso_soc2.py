"""The framework's own rule about a requirement (`matters` notes) in the ISO/IEC 27001 and SOC 2 packs: each note
is one sentence that reads after "because", carries a bracketed citation with a year, and is about its own
requirement; and a report on an ISO/IEC 27001:2022 assessment tells one reader that control 5.23 is new in the
2022 edition."""

from __future__ import annotations

import json
import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine

CITATION = re.compile(r"\([^()]*\b(19|20)\d{2}\b[^()]*\)\.$")
# The 11 controls ISO/IEC 27002:2022 Annex B (Table B.1) marks as new, with no 2013 counterpart.
NEW_IN_2022 = {"a.5.7", "a.5.23", "a.5.30", "a.7.4", "a.8.9", "a.8.10", "a.8.11", "a.8.12", "a.8.16", "a.8.23",
               "a.8.28"}


def pack(key):
    return load().frameworks[key]


def notes(key):
    return {rid: info["matters"] for rid, info in pack(key).requirements.items() if info.get("matters")}


@pytest.mark.parametrize("key", ["iso27001", "soc2"])
def test_each_note_is_cited_short_and_reads_after_because(key):
    found = notes(key)
    assert len(found) >= 10, key
    for rid, note in found.items():
        assert CITATION.search(note), (rid, note)
        assert len(note.split()) <= 60, (rid, len(note.split()))
        assert not note.startswith("This"), rid
        assert not re.search(r"\byou(r)?\b", note, re.I), rid
        body = note[: note.rindex(" (")]
        assert ". " not in body, (rid, "one sentence")


def test_iso_notes_are_about_the_controls_new_in_2022_and_name_their_own_control():
    found = notes("iso27001")
    assert set(found) == NEW_IN_2022
    for rid, note in found.items():
        number = rid[2:]
        assert note.startswith(f"Control {number} "), rid
        assert "2022 edition" in note and "2013" in note, rid
        assert "ISO/IEC 27002:2022, Annex B" in note, rid
    assert "exit" in found["a.5.23"] and "cloud" in found["a.5.23"]
    assert "business continuity objectives" in found["a.5.30"]
    assert "anomalous behaviour" in found["a.8.16"]


def test_soc2_notes_name_their_own_criterion_and_its_points_of_focus():
    found = notes("soc2")
    assert {"cc6.1", "cc6.6", "cc7.2", "cc8.1", "cc9.2", "cc3.2"} <= set(found)
    for rid, note in found.items():
        crit = rid.upper()
        assert note.startswith(f"The AICPA's points of focus for {crit} "), rid
        assert f"{crit} points of focus, revised 2022)." in note, rid
    assert "outside the system boundaries" in found["cc6.6"]
    assert "terminat" in found["cc9.2"] or "ending the relationship" in found["cc9.2"]
    # nothing claimed that could not be read in a primary text
    for note in found.values():
        for unverified in ("carve-out", "inclusive method", "subservice", "qualified opinion", "section 4"):
            assert unverified not in note, unverified


def test_an_iso_assessment_with_cloud_services_open_tells_a_reader_it_is_new_in_2022():
    body = {
        "companyId": "c-iso", "framework": "ISO/IEC 27001:2022", "industry": "Software", "policy": "YES",
        "displayName": "Northwind Apps",
        "requirements": [
            {"id": "A.5.23", "title": "Information security for use of cloud services", "status": "not_met"},
            {"id": "A.8.16", "title": "Monitoring activities", "status": "partially_met"},
            {"id": "A.5.15", "title": "Access control", "status": "met"},
            {"id": "A.8.13", "title": "Information backup", "status": "not_met"},
        ]}
    facts = AssessmentFacts.from_submission(body)
    engine = TemplateEngine()
    reports = [engine.write(facts, persona.id, "spin") for persona in PERSONAS]
    assert len(reports) == 25
    texts = [json.dumps(r, ensure_ascii=False) for r in reports]
    told = [t for t in texts if "5.23 is new in the 2022 edition" in t]
    assert told, "no report tells a reader that control 5.23 is new in the 2022 edition"
    assert all("{org}" not in t for t in texts)
