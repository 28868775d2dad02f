"""Framework pack: CIS Critical Security Controls v8 / v8.1 (key "cis_controls").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not:
the CIS Benchmarks are another CIS publication), how the ids partners type normalise, which topic an id gets,
the Implementation Group of each safeguard, and the facts the pack offers. CIS ids ("1.1", "3.14", "10.1")
look like versions or prices, so the scheme accepts exactly the Controls and Safeguards that exist.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS

C = load()
CIS = C.frameworks["cis_controls"]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "cis_nonprofit.json"

# Safeguards per Control in CIS Controls v8 and v8.1 (same numbering in both): 153 in all.
PER_CONTROL = {1: 5, 2: 7, 3: 14, 4: 12, 5: 6, 6: 8, 7: 7, 8: 12, 9: 7, 10: 7, 11: 5, 12: 8, 13: 11, 14: 9,
               15: 7, 16: 14, 17: 9, 18: 5}
SAFEGUARD_IDS = [f"{c}.{n}" for c, k in PER_CONTROL.items() for n in range(1, k + 1)]


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "CIS Controls", "CIS Controls v8", "CIS Controls v8.1", "CIS Controls 8.1", "CIS v8", "CIS v8.1", "CIS 8",
    "CIS 8.1", "CISv8", "CIS CSC", "CIS CSC v8", "CIS Critical Security Controls",
    "CIS Critical Security Controls v8.1",
    "Critical Security Controls", "CIS Top 18", "CIS 18", "CIS-18", "CIS18", "CIS IG1", "CIS Controls IG1",
    "CIS Controls v8 IG2", "CIS Controls (IG1)", "Center for Internet Security Controls", "cis controls v8.1 ig1",
    "CIS Implementation Group 1", "CIS Safeguards",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "cis_controls", (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    # CIS's configuration guides for products: another publication, not the Controls
    "CIS Benchmarks", "CIS Benchmark", "CIS Benchmark Level 1", "CIS Microsoft 365 Foundations Benchmark v3.0",
    "CIS AWS Foundations Benchmark", "CIS Ubuntu 22.04 Benchmark", "CIS Hardened Images",
    # other frameworks sharing a word or a number
    "CISA Cybersecurity Performance Goals", "CIS RAM", "NIST CSF 2.0", "ISO 27001", "PCI DSS 4.0", "SOC 2",
    "Cyber Essentials", "HIPAA", "", "Cisco", "CISSP",
])
def test_texts_that_are_not_the_cis_controls(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "cis_controls", (text, framework.key)


def test_every_alias_resolves_to_this_pack():
    for alias in CIS.aliases:
        assert C.framework_for(alias).key == "cis_controls", alias
    assert "cis" not in CIS.aliases  # bare "cis" would claim the CIS Benchmarks


# ------------------------------------------------------------------ ids as partners type them
@pytest.mark.parametrize("ref", [
    "6.3", "CIS 6.3", "Safeguard 6.3", "CIS Safeguard 6.3", "CSC 6.3", "CIS-6.3", "cis 6.3", " 6.3 ",
    "CIS Control 6.3", "CIS Controls v8 6.3", "CIS Controls v8.1 6.3", "CIS CSC 6.3", "CSC #6.3", "Sub-control 6.3",
])
def test_every_form_of_a_safeguard_id_gives_the_same_entry(ref):
    assert CIS.normal_id(ref) == "6.3"
    info = CIS.info(ref)
    assert info is CIS.info("6.3") and info["designation"] == "IG1"
    assert CIS.topics_of_id(ref)[0] == "access"


@pytest.mark.parametrize("ref", ["Control 6", "CIS Control 6", "CIS 6", "6", "control 6", "CSC 6"])
def test_control_forms_give_the_control_entry(ref):
    assert CIS.normal_id(ref) == "6"
    info = CIS.info(ref)
    assert info["title"] == "Access Control Management" and info["designation"] == ""
    assert CIS.topics_of_id(ref) == ("access",)


@pytest.mark.parametrize("ref", ["CIS 3.14", "Safeguard 3.14", "3.14", "CIS Safeguard 3.14", "CSC 3.14"])
def test_3_14_reads_as_a_safeguard_not_a_number(ref):
    # "3.14" is log sensitive data access (IG3): logging first, whatever the prefix
    assert CIS.normal_id(ref) == "3.14"
    assert CIS.info(ref) is CIS.info("3.14") and CIS.info(ref)["designation"] == "IG3"
    assert CIS.topics_of_id(ref)[0] == "logging"


def test_the_scheme_accepts_exactly_the_controls_and_safeguards_that_exist():
    (scheme,) = CIS.schemes
    known = set(SAFEGUARD_IDS) | {str(c) for c in PER_CONTROL}
    shaped = re.compile(r"^\d{1,2}(\.\d{1,2})?$")
    for a in range(0, 25):
        for candidate in [str(a)] + [f"{a}.{b}" for b in range(0, 20)]:
            assert shaped.match(candidate)
            assert bool(scheme.pattern.match(candidate)) == (candidate in known), candidate


@pytest.mark.parametrize("ref", [
    "3.15", "19", "0", "0.1", "1.0", "1.6", "18.6", "18.11", "6.03", "06.3", "3.14.1", "v8.1", "2024", "$3.14",
    "AC-2", "A.5.1", "CC6.1", "164.308(a)(1)", "GV.OC-01", "1.2.3",
])
def test_foreign_or_unknown_ids_get_no_topic_and_no_entry(ref):
    assert CIS.topics_of_id(ref) == (), ref
    assert CIS.info(ref) is None, ref


@pytest.mark.parametrize("ref,topic", [
    ("1.1", "asset"), ("1.4", "asset"), ("2.1", "asset"), ("2.2", "asset"), ("2.5", "vuln"), ("2.7", "vuln"),
    ("3.1", "privacy"), ("3.3", "access"), ("3.6", "encryption"), ("3.10", "encryption"), ("3.11", "encryption"),
    ("3.12", "network"), ("3.14", "logging"), ("4.1", "change"), ("4.2", "change"), ("4.6", "change"),
    ("4.5", "network"), ("5.1", "access"), ("5.4", "access"), ("6.3", "access"), ("6.5", "access"),
    ("7.1", "vuln"), ("7.3", "vuln"), ("7.5", "vuln"), ("8.2", "logging"), ("8.11", "logging"), ("9.2", "vuln"),
    ("9.5", "vuln"), ("10.1", "vuln"), ("10.7", "vuln"), ("11.1", "backup"), ("11.2", "backup"),
    ("11.5", "backup"), ("12.2", "network"), ("12.8", "access"), ("13.1", "logging"), ("13.3", "network"),
    ("13.6", "logging"), ("14.1", "hr"), ("14.2", "hr"), ("14.9", "hr"), ("15.1", "vendor"), ("15.4", "vendor"),
    ("16.1", "sdlc"), ("16.13", "sdlc"), ("17.1", "incident"), ("17.4", "incident"), ("17.9", "incident"),
    ("18.1", "vuln"), ("18.2", "vuln"),
    # the Controls themselves
    ("1", "asset"), ("3", "privacy"), ("4", "change"), ("8", "logging"), ("11", "backup"), ("14", "hr"),
    ("15", "vendor"), ("16", "sdlc"), ("17", "incident"), ("18", "vuln"),
])
def test_id_main_topic(ref, topic):
    topics = CIS.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


def test_prefixes_match_only_at_a_boundary():
    assert CIS.topics_of_id("1.1")[0] == "asset" and CIS.topics_of_id("10.1")[0] == "vuln"  # "1" never swallows "10"
    assert CIS.topics_of_id("3.1")[0] == "privacy" and CIS.topics_of_id("3.14")[0] == "logging"
    assert CIS.topics_of_id("1")[0] == "asset" and CIS.topics_of_id("11")[0] == "backup"
    assert CIS.topics_of_id("13.1")[0] == "logging" and CIS.topics_of_id("13.10")[0] == "network"


# ------------------------------------------------------------------ what the pack knows of its ids
def test_requirement_count_covers_every_control_and_safeguard():
    assert len(CIS.requirements) == 18 + 153
    assert sorted(k for k in CIS.requirements if "." not in k) == sorted(str(c) for c in PER_CONTROL)
    assert sorted(k for k in CIS.requirements if "." in k) == sorted(SAFEGUARD_IDS)
    per_control = Counter(k.split(".")[0] for k in CIS.requirements if "." in k)
    assert per_control == Counter({str(c): k for c, k in PER_CONTROL.items()})


def test_implementation_groups():
    assert CIS.designations == ("IG1", "IG2", "IG3")
    assert CIS.tier_term == "Implementation Group"
    assert "IG1" in CIS.tier_note and "essential cyber hygiene" in CIS.tier_note and "2024" in CIS.tier_note
    counts = Counter(info["designation"] for info in CIS.requirements.values())
    # CIS: IG1 56 safeguards, IG2 74 more (130), IG3 the last 23 (153); the 18 Controls carry none
    assert counts == Counter({"IG1": 56, "IG2": 74, "IG3": 23, "": 18})


@pytest.mark.parametrize("ref,group", [
    ("1.1", "IG1"), ("1.3", "IG2"), ("1.5", "IG3"), ("2.7", "IG3"), ("3.6", "IG1"), ("3.7", "IG2"),
    ("3.13", "IG3"), ("4.7", "IG1"), ("4.8", "IG2"), ("4.12", "IG3"), ("5.4", "IG1"), ("5.5", "IG2"),
    ("6.5", "IG1"), ("6.8", "IG3"), ("7.4", "IG1"), ("7.5", "IG2"), ("8.3", "IG1"), ("8.12", "IG3"),
    ("9.2", "IG1"), ("9.7", "IG3"), ("10.3", "IG1"), ("10.4", "IG2"), ("11.4", "IG1"), ("11.5", "IG2"),
    ("12.1", "IG1"), ("12.8", "IG3"), ("13.1", "IG2"), ("13.11", "IG3"), ("14.8", "IG1"), ("14.9", "IG2"),
    ("15.1", "IG1"), ("15.2", "IG2"), ("15.7", "IG3"), ("16.1", "IG2"), ("16.14", "IG3"), ("17.3", "IG1"),
    ("17.4", "IG2"), ("17.9", "IG3"), ("18.1", "IG2"), ("18.5", "IG3"),
])
def test_designation_of_representative_safeguards(ref, group):
    assert CIS.info(ref)["designation"] == group


def test_ig1_per_control():
    # CIS's IG1 (essential cyber hygiene) by Control: none in 13, 16 and 18
    ig1 = Counter(k.split(".")[0] for k, v in CIS.requirements.items() if v["designation"] == "IG1")
    assert ig1 == Counter({"1": 2, "2": 3, "3": 6, "4": 7, "5": 4, "6": 5, "7": 4, "8": 3, "9": 2, "10": 3,
                           "11": 4, "12": 1, "14": 8, "15": 1, "17": 3})


def test_every_requirement_has_a_title_obliges_and_group():
    for rid, info in CIS.requirements.items():
        assert info["title"].strip() and info["obliges"].strip(), rid
        obliges = info["obliges"]
        assert obliges[0].islower() or obliges.startswith("{org}"), rid  # completes "... obliges <phrase>"
        assert not obliges.endswith("."), rid
        assert ("." in rid) == (info["designation"] in CIS.designations), rid
        assert CIS.normal_id(rid) == rid and CIS.topics_of_id(rid), rid


def test_titles_are_our_own_words_not_cis_safeguard_titles():
    # CIS licenses its text CC BY-NC-ND: a few of CIS's own Safeguard titles must not appear as ours
    theirs = ["Establish and Maintain Detailed Enterprise Asset Inventory", "Log Sensitive Data Access",
              "Require MFA for Externally-Exposed Applications", "Perform Automated Backups",
              "Establish and Maintain a Security Awareness Program",
              "Designate Personnel to Manage Incident Handling"]
    ours = {info["title"].lower() for info in CIS.requirements.values()}
    assert not ours & {t.lower() for t in theirs}


# ------------------------------------------------------------------ pack-level text and facts
def test_pack_fields():
    assert CIS.key == "cis_controls" and CIS.short == "CIS Controls"
    assert CIS.name == "CIS Critical Security Controls v8.1"
    assert CIS.item_term == "safeguard"
    assert all(a == a.lower() for a in CIS.aliases)
    assert "(" in CIS.deliverable and CIS.deliverable.rstrip().endswith(".")
    assert "certificate" in CIS.deliverable and "certificate" in CIS.open_items_mean
    assert "IG1" in CIS.open_items_mean
    for clause in ("3.1", "4.1", "14.1", "17.4"):
        assert f"{clause}" in CIS.policy_rule


def test_facts_are_sourced_and_cover_the_kinds():
    facts = CIS.facts
    assert len(facts) >= 3
    assert {f["kind"] for f in facts} >= {"enforcement", "deliverable", "scope", "cadence", "evidence"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert str(fact["year"]) in re.findall(r"\(([^()]*)\)\.?$", fact["text"])[-1], fact["text"]
        assert fact["url"].startswith("https://"), fact["url"]
        assert re.search(r"(^|\.)cisecurity\.org/|doi\.org/10\.6028/NIST\.", fact["url"]), fact["url"]
    enforcement = next(f for f in facts if f["kind"] == "enforcement")
    assert "No regulator" in enforcement["text"] and "Center for Internet Security" in enforcement["text"]


# ------------------------------------------------------------------ the sample assessment
def test_the_sample_uses_this_pack_and_known_ids():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == "cis_controls"
    assert body["policy"] == "NO" and 12 <= len(body["requirements"]) <= 20
    ids = [r["id"] for r in body["requirements"]]
    assert {"3.14", "6.3", "11.2", "14.1", "17.1"} <= set(ids)
    assert all(CIS.info(i) and CIS.topics_of_id(i) for i in ids), ids
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
