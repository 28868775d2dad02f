"""Framework pack: TISAX, assessed against the VDA ISA catalogue version 6 (key "tisax").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not: the
ISA/IEC 62443 series and the VDA's quality standards share words with it), how the id forms partners type
normalise, which topic an id gets, what the pack knows of each ISA 6 control, the facts it offers, and what a
report written for the sample assessment says about the TISAX label and ENX.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.content.schemas import FACT_KINDS, TOPICS
from app.generation.facts import AssessmentFacts
from app.generation.template_engine import TemplateEngine

C = load()
KEY = "tisax"
TX = C.frameworks[KEY]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "tisax_automotive.json"

# VDA ISA 6 controls per sub-chapter (3.1.2 is kept: superseded in ISA 6, still typed by partners).
INFORMATION_SECURITY = {"1.1": 1, "1.2": 4, "1.3": 4, "1.4": 1, "1.5": 2, "1.6": 3, "2.1": 4, "3.1": 4, "4.1": 3,
                        "4.2": 1, "5.1": 2, "5.2": 9, "5.3": 4, "6.1": 2, "7.1": 2}
PROTOTYPE_PROTECTION = {"8.1": 8, "8.2": 7, "8.3": 2, "8.4": 3, "8.5": 2}
DATA_PROTECTION = {"9.1": 1, "9.2": 1, "9.3": 1, "9.4": 1, "9.5": 3, "9.6": 2, "9.7": 2, "9.8": 1}
CONTROLS = [f"{sub}.{n}" for table in (INFORMATION_SECURITY, PROTOTYPE_PROTECTION, DATA_PROTECTION)
            for sub, k in table.items() for n in range(1, k + 1)]
CHAPTERS = [str(n) for n in range(1, 10)]
SUB_CHAPTERS = ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "4.1", "4.2", "5.1", "5.2", "5.3",
                *(f"8.{n}" for n in range(1, 6)), *(f"9.{n}" for n in range(1, 9))]
CITATION = r"\([^()]*{year}[^()]*\)\.$"


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "TISAX", "tisax", "TISAX (VDA ISA 6)", "TISAX (VDA ISA 6.0)", "VDA ISA", "VDA ISA 6", "VDA ISA 6.0",
    "VDA ISA 6.0.3", "VDA-ISA 6.0.2", "VDA ISA 5.1", "VDA ISA catalogue", "VDA ISA Catalog", "ISA 6", "ISA6",
    "TISAX AL2", "TISAX AL3", "TISAX Assessment Level 3", "TISAX label Confidential", "TISAX labels",
    "ENX TISAX", "Trusted Information Security Assessment Exchange", "VDA Information Security Assessment",
    "TISAX assessment 2025", "TISAX / VDA ISA", "VDA ISA2027",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == KEY, (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    # other standards that share a word or a number
    "ISA/IEC 62443", "ISA 62443-3-3", "IEC 62443", "ISA 99", "VDA 6.3", "VDA 6.1", "IATF 16949",
    "ISO 27001", "ISO/IEC 27001:2022", "NIS2", "SOC 2 Type II", "Cyber Essentials", "CIS Controls v8", "",
    "ENX network", "Information Security Assessment",
])
def test_texts_that_are_not_tisax(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != KEY, (text, framework.key)


def test_every_alias_resolves_to_this_pack():
    for alias in TX.aliases:
        assert alias == alias.lower() and C.framework_for(alias).key == KEY, alias


# ------------------------------------------------------------------ id forms partners type
@pytest.mark.parametrize("forms", [
    ("1.5.2", "ISA 1.5.2", "VDA ISA 1.5.2", "VDA-ISA 1.5.2", "VDA ISA 6 1.5.2", "VDA ISA 6.0 1.5.2",
     "VDA ISA 6.0.3 1.5.2", "ISA6 1.5.2", "ISA 6 1.5.2", "TISAX 1.5.2", "Control 1.5.2", "Control question 1.5.2",
     "IS-1.5.2", "IS 1.5.2", " 1.5.2 "),
    ("4.1.2", "VDA ISA 4.1.2", "ISA 4.1.2", "Control 4.1.2", "TISAX - 4.1.2"),
    ("5.2.4", "Control 5.2.4", "ISA 6 5.2.4", "VDA ISA6 5.2.4"),
    ("6.1.1", "ISA 6.1.1", "VDA ISA 6.1.1", "TISAX 6.1.1"),   # "6" here is the chapter, not the version
    ("8.1.4", "PP 8.1.4", "PP-8.1.4", "VDA ISA 8.1.4"),
    ("9.5.3", "DP 9.5.3", "DP-9.5.3", "ISA 9.5.3"),
    ("5.2", "ISA 5.2", "VDA ISA 5.2"),
])
def test_forms_of_one_id_reach_one_entry(forms):
    ids = {TX.normal_id(f) for f in forms}
    assert len(ids) == 1, ids
    infos = [TX.info(f) for f in forms]
    assert all(infos), [f for f, i in zip(forms, infos, strict=True) if not i]
    assert len({(i["title"], i["obliges"]) for i in infos}) == 1, forms


@pytest.mark.parametrize("ref,topic", [
    ("1.1.1", "governance"), ("1.2.4", "vendor"), ("1.3.1", "asset"), ("1.3.3", "vendor"), ("1.4.1", "governance"),
    ("1.5.1", "governance"), ("ISA 1.5.2", "governance"), ("1.6.1", "incident"), ("1.6.2", "incident"),
    ("1.6.3", "incident"), ("2.1.3", "hr"), ("2.1.4", "hr"), ("3.1.1", "physical"), ("3.1.3", "asset"),
    ("3.1.4", "asset"), ("VDA ISA 4.1.2", "access"), ("4.1.3", "access"), ("4.2.1", "access"),
    ("5.1.1", "encryption"), ("5.1.2", "encryption"), ("5.2.1", "change"), ("5.2.3", "vuln"),
    ("Control 5.2.4", "logging"), ("5.2.5", "vuln"), ("5.2.6", "vuln"), ("5.2.7", "network"),
    ("5.2.8", "backup"), ("5.2.9", "backup"), ("5.3.1", "sdlc"), ("5.3.3", "vendor"), ("ISA 6.1.1", "vendor"),
    ("6.1.2", "vendor"), ("7.1.1", "governance"), ("7.1.2", "privacy"),
    # prototype protection: the premises and the handling of prototypes are physical security
    ("8.1.1", "physical"), ("8.1.2", "physical"), ("PP 8.1.4", "physical"), ("8.1.6", "physical"),
    ("8.2.5", "physical"), ("8.3.2", "physical"), ("8.4.1", "physical"), ("8.4.3", "physical"),
    ("8.5.2", "physical"), ("8.2.2", "vendor"), ("8.2.3", "hr"),
    # data protection
    ("9.1.1", "privacy"), ("9.4.1", "privacy"), ("DP 9.5.3", "privacy"), ("9.6.2", "privacy"), ("9.5.2", "vendor"),
    # chapters, and the ids only VDA ISA2027 has
    ("5", "vuln"), ("8", "physical"), ("9", "privacy"), ("6.1.3", "vendor"), ("8.1.12", "physical"),
])
def test_id_main_topic(ref, topic):
    topics = TX.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("ref", [
    # not ISA 6 ids: numbers past a sub-chapter's last control, sub-chapters ISA 6 does not name, other schemes
    "1.1.2", "1.7.1", "2.1.5", "3.2.1", "5.2.10", "6.2.1", "8.6.1", "9.9.1", "10", "0", "2.1", "3.15", "1.0",
    "A.8.8", "CC6.1", "164.312(b)", "PR.AA-01", "AC-2", "firewalls.2",
])
def test_foreign_or_unknown_ids_get_no_topic_and_no_entry(ref):
    assert TX.topics_of_id(ref) == () and TX.info(ref) is None, ref


def test_isa2027_only_ids_get_topics_but_no_entry():
    for ref in ("6.1.3", "8.1.9", "8.1.10", "8.1.11", "8.1.12", "8.1.13"):
        assert TX.topics_of_id(ref) and TX.info(ref) is None, ref


# ------------------------------------------------------------------ what the pack knows of its ids
def test_every_isa6_control_chapter_and_sub_chapter_has_an_entry():
    assert len(CONTROLS) == 46 + 22 + 12   # 45 live information security controls and the superseded 3.1.2
    expected = set(CONTROLS) | set(CHAPTERS) | set(SUB_CHAPTERS)
    assert set(TX.requirements) == expected, sorted(set(TX.requirements) ^ expected)


def test_every_requirement_has_our_title_obliges_and_a_topic():
    for rid, info in TX.requirements.items():
        assert info["title"] and info["obliges"], rid
        assert not info["title"].lower().startswith("to what extent"), rid   # never the catalogue's question
        text = info["obliges"]
        assert text == text.strip() and not text.endswith("."), rid
        assert text[:1].islower() or text.split()[0].isupper(), rid
        assert info["designation"] == "", rid   # objectives, not controls, carry the protection levels
        assert TX.normal_id(rid) == rid and TX.topics_of_id(rid), rid
        assert set(TX.topics_of_id(rid)) <= set(TOPICS), rid


@pytest.mark.parametrize("ref,title", [
    ("1.1.1", "Information security policy"), ("1.5.1", "Internal compliance checks"),
    ("1.5.2", "Independent review of the ISMS"), ("1.6.3", "Crisis management"),
    ("3.1.3", "Handling of supporting assets"), ("3.1.4", "Mobile devices and storage media"),
    ("4.1.2", "User authentication"), ("5.2.4", "Event logging and review"), ("5.2.5", "Vulnerability management"),
    ("5.2.6", "Technical system and service audits"), ("5.2.9", "Backup and recovery"),
    ("6.1.1", "Security of contractors and cooperation partners"),
    ("7.1.1", "Legal, regulatory and contractual obligations"), ("8.1.4", "Sight protection"),
    ("9.5.3", "Transfers to third countries"),
])
def test_info_knows_well_known_ids(ref, title):
    assert TX.info(ref)["title"] == title


def test_the_obligations_carry_the_catalogue_s_specifics():
    assert "two-factor" in TX.info("4.1.2")["obliges"]
    assert "independent" in TX.info("1.5.2")["obliges"]
    assert "superseded" in TX.info("3.1.2")["title"] and "1.6.3" in TX.info("3.1.2")["obliges"]
    assert "Article 37 GDPR" in TX.info("9.2.1")["obliges"]
    assert "customer's approval" in TX.info("8.2.2")["obliges"]
    matters = {rid for rid, info in TX.requirements.items() if info["matters"]}
    assert matters == {"3.1.4", "4.1.2", "5.1.2", "5.2.9", "6.1.1", "8.2.2"}
    for rid in matters:
        assert re.search(r"\(VDA ISA 6, control " + re.escape(rid) + r", 2023\)\.$", TX.info(rid)["matters"]), rid


def test_no_designations_tiers_or_leading_topics():
    assert TX.designations == () and TX.tier_term == "" and TX.tier_note == "" and TX.first_topics == ()


# ------------------------------------------------------------------ pack-level text and facts
def test_pack_fields():
    assert TX.key == KEY and TX.short == "TISAX" and "VDA ISA 6" in TX.name
    assert TX.item_term == "control" and "ENX" in TX.assessor and "accredited" in TX.assessor
    assert "TISAX label" in TX.deliverable and "ENX portal" in TX.deliverable and "three years" in TX.deliverable
    assert "{org}" in TX.deliverable and TX.deliverable.endswith("(ENX Association, 2023).")
    assert "1.1.1" in TX.policy_rule and "released by management" in TX.policy_rule
    assert "target maturity level" in TX.open_items_mean and "finding" in TX.open_items_mean
    assert "ENX portal" in TX.open_items_mean and "three years" in TX.open_items_mean
    # nothing in a report claims what could not be checked at ENX or in the catalogue
    for text in (TX.deliverable, TX.policy_rule, TX.open_items_mean, *(f["text"] for f in TX.facts),
                 *(i["obliges"] for i in TX.requirements.values()), *(i["matters"] for i in TX.requirements.values())):
        for unverified in ("temporary", "nine months", "corrective action plan", "AL2", "AL3", "Proto parts",
                           "Special data", "1 January 2027"):
            assert unverified not in text, (unverified, text)


def test_facts_are_sourced_and_cover_the_kinds():
    facts = TX.facts
    assert len(facts) >= 10
    assert {f["kind"] for f in facts} >= {"context", "enforcement", "deliverable", "cadence", "scope", "technical",
                                          "evidence", "notice", "proposal"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert re.search(CITATION.format(year=fact["year"]), fact["text"]), fact["text"]
        assert re.match(r"https://(www\.|portal\.)?enx\.com/", fact["url"]), fact["url"]
        assert fact["note"], fact["text"][:60]   # how each was verified, for maintainers
    text = " ".join(f["text"] for f in facts)
    for phrase in ("ENX Association", "three years", "Confidential", "Strictly confidential", "High and Very high "
                   "availability", "maturity levels", "level 3", "passive participant", "not a law"):
        assert phrase in text, phrase


# ------------------------------------------------------------------ the sample assessment and its reports
def test_the_sample_uses_this_pack_and_known_ids():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == KEY
    assert C.industry_for(body["industry"]).key == "manufacturing"
    assert body["policy"] == "YES" and 12 <= len(body["requirements"]) <= 16
    assert "displayName" not in body
    ids = [r["id"] for r in body["requirements"]]
    assert all(TX.info(i) and TX.topics_of_id(i) for i in ids), [i for i in ids if not TX.info(i)]
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
    assert any(TX.normal_id(i).startswith("8.") for i in ids)   # the supplier handles prototype parts


def _text(report: dict) -> str:
    parts = [report["title"], report["summary"], report["callToAction"], *report["keyPoints"]]
    for section in report["sections"]:
        parts += [section["heading"], *section["paragraphs"], *section["bullets"]]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def reports() -> dict[str, str]:
    facts = AssessmentFacts.from_submission(json.loads(SAMPLE.read_text(encoding="utf-8")))
    assert facts.framework_pack.key == KEY
    engine = TemplateEngine()
    return {p.id: _text(engine.write(facts, p.id, "spin")) for p in PERSONAS}


def test_reports_speak_of_the_tisax_label_and_enx(reports):
    every = "\n".join(reports.values())
    assert "TISAX label" in every and "ENX" in every
    # told what open items mean for the label: a label works as an attestation, so finance and the owner too
    for reader in ("ceo_president", "board_member", "general_counsel", "cfo", "small_business_owner"):
        text = reports[reader]
        assert "ENX portal" in text and "TISAX labels" in text and "target maturity level" in text, reader
    # counsel hears whom a supplier must tell: the customer, under the catalogue, not an authority
    assert "points incident reporting toward customers" in reports["general_counsel"]


def test_reports_never_name_the_machinery(reports):
    for persona, text in reports.items():
        assert "knowledge pack" not in text.lower() and "{" not in text, persona
