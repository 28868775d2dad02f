"""Framework pack: ASD's Essential Eight maturity model (November 2023), with maturity levels as tiers.

Checked through the loader, as the writers use them: which pack a partner's framework text names, how the id
forms partners type (strategy names, ASD test ids, strategy at a level, ISM control numbers) resolve, the
designations and their counts per maturity level, and the facts the pack offers.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS

C = load()
KEY = "essential_eight"
E8 = C.frameworks[KEY]
CODES = ("pa", "po", "mf", "ra", "ac", "rm", "ah", "rb")
FRAMEWORK_KINDS = {"enforcement", "penalty", "deliverable", "evidence", "cadence", "scope", "technical", "notice"}


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "Essential Eight", "Essential 8", "Essential8", "E8", "E8MM", "Essential Eight ML2", "Essential Eight ML1",
    "E8 ML3", "Essential Eight Maturity Model", "Essential Eight maturity level two", "ASD Essential Eight",
    "ACSC Essential 8", "ASD E8", "Essential Eight (November 2023)", "essential-eight", "ASD's Essential Eight",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == KEY, text


@pytest.mark.parametrize("text", [
    "Cyber Essentials", "Cyber Essentials Plus", "ISM", "Information Security Manual", "PSPF", "NIST CSF 2.0",
    "ISO/IEC 27001:2022", "CIS Controls v8", "NIS2", "SOC 2", "",
])
def test_other_frameworks_do_not_match(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != KEY, (text, framework and framework.key)


def test_every_alias_resolves_to_this_pack():
    for alias in E8.aliases:
        assert C.framework_for(alias).key == KEY, alias


# ------------------------------------------------------------------ id forms partners type
@pytest.mark.parametrize("forms", [
    ("Application control", "application_control", "E8 Application Control", "Essential Eight - Application control",
     "APPLICATION CONTROL", "Application whitelisting"),
    ("Patch applications", "patch_applications", "ASD Patch applications"),
    ("Patch operating systems", "patch_operating_systems"),
    ("Multi-factor authentication", "Multifactor authentication", "MFA", "multi_factor_authentication"),
    ("Restrict administrative privileges", "restrict_administrative_privileges"),
    ("Restrict Microsoft Office macros", "Configure Microsoft Office macro settings",
     "configure_microsoft_office_macro_settings", "restrict_microsoft_office_macros"),
    ("User application hardening", "user_application_hardening"),
    ("Regular backups", "regular_backups", "E8-Regular backups"),
    # a strategy at a level
    ("ML2-PA", "ml2-pa", "E8-ML2-PA", "Essential Eight ML2-PA", "patch_applications.ml2", "ML2 Patch applications"),
    ("ML1-MF", "multi_factor_authentication.ml1", "ML1 MFA", "ML1 Multi-factor authentication"),
    ("ML3-RM", "restrict_microsoft_office_macros.ml3", "ML3 Configure Microsoft Office macro settings"),
    # ASD test ids and the ISM controls behind them
    ("ML1-PA-01", "ml1-pa-01", "E8 ML1-PA-01", "ISM-1807", "ISM 1807", "ism1807", "1807"),
    ("ML1-RA-02", "ISM-0445", "ISM 0445"),
    ("ML1-RB-06", "ISM-1814"),
    ("ML1-MF-07", "ISM-1401"),
])
def test_forms_of_one_id_reach_one_entry(forms):
    infos = [E8.info(f) for f in forms]
    assert all(infos), [f for f, i in zip(forms, infos, strict=True) if not i]
    assert len({(i["title"], i["obliges"]) for i in infos}) == 1, forms


def test_only_one_form_of_a_level_entry_carries_the_designation():
    assert E8.info("ML2-PA")["designation"] == "ML2"
    for form in ("patch_applications.ml2", "ML2 Patch applications"):
        assert E8.info(form)["designation"] == ""


def test_asd_ml1_test_ids_follow_the_test_plan():
    counts = Counter(k.split("-")[1] for k in E8.requirements if re.fullmatch(r"ml1-[a-z]{2}-\d\d", k))
    assert counts == {"pa": 9, "po": 8, "mf": 7, "ra": 7, "ac": 3, "rm": 4, "ah": 4, "rb": 6}
    assert E8.info("ML1-PA-05")["title"] == E8.info("ISM-1876")["title"]  # 48 hours, critical, online services
    assert E8.info("ML1-PO-07")["title"] == E8.info("ISM-1695")["title"]  # one month, workstations
    assert E8.info("ML1-AC-03")["title"] == E8.info("ISM-1657")["title"]  # approved set
    assert E8.info("ML1-RM-02")["title"] == E8.info("ISM-1488")["title"]  # macros from the internet


def test_ml2_and_ml3_test_ids_get_their_strategy_topics_but_no_entry():
    assert E8.info("ML2-PA-07") is None and E8.topics_of_id("ML2-PA-07")[0] == "vuln"
    assert E8.info("ML3-RA-02") is None and E8.topics_of_id("ML3-RA-02")[0] == "access"


@pytest.mark.parametrize("ref,topic", [
    # the strategies' main topics
    ("Application control", "vuln"), ("Patch applications", "vuln"), ("Patch operating systems", "vuln"),
    ("Restrict Microsoft Office macros", "vuln"), ("User application hardening", "change"),
    ("Restrict administrative privileges", "access"), ("Multi-factor authentication", "access"),
    ("Regular backups", "backup"),
    # strategies at a level
    ("ML1-AC", "vuln"), ("ML2-AH", "change"), ("ML3-RA", "access"), ("ML2-MF", "access"), ("ML1-RB", "backup"),
    ("patch_operating_systems.ml3", "vuln"), ("ML2 Regular backups", "backup"),
    # single requirements
    ("ML1-PA-01", "asset"), ("ML1-PA-03", "vuln"), ("ML1-RB-05", "backup"), ("ML1-RA-03", "access"),
    ("ISM-1683", "logging"), ("ISM-1660", "logging"), ("ISM-0140", "incident"), ("ISM-1819", "incident"),
    ("ISM-1815", "logging"), ("ISM-1387", "access"), ("ISM-1872", "access"), ("ISM-1501", "vuln"),
    ("ISM-1515", "backup"), ("ISM-1623", "logging"), ("ISM-0843", "vuln"), ("ISM-1412", "change"),
])
def test_id_main_topic(ref, topic):
    topics = E8.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("ref", ["A4.3", "CC6.1", "AC-2", "3.1.1", "164.312(b)", "firewalls.2", "ML4-PA",
                                 "ML1-XX-01", "Firewalls", "ISM-12345"])
def test_foreign_ids_get_no_topic(ref):
    assert E8.topics_of_id(ref) == ()


# ------------------------------------------------------------------ designations and counts
def test_designations_are_the_maturity_levels():
    assert E8.designations == ("ML1", "ML2", "ML3")
    assert E8.tier_term == "maturity level" and "(ASD" in E8.tier_note and "2023" in E8.tier_note


def test_each_level_counts_the_eight_strategies():
    counts = Counter(info["designation"] for info in E8.requirements.values() if info["designation"])
    assert counts == {"ML1": 8, "ML2": 8, "ML3": 8}
    for code in CODES:
        for n in (1, 2, 3):
            assert E8.info(f"ML{n}-{code.upper()}")["designation"] == f"ML{n}"


def test_ism_controls_cover_the_three_baselines():
    ism = [k for k in E8.requirements if re.fullmatch(r"\d{4}", k)]
    assert len(ism) == 126  # 46 first listed at ML1, 41 at ML2, 39 at ML3 (ASD ISM OSCAL baselines)
    assert {"1873", "1691", "1695"} <= set(ism)  # listed at lower levels, replaced at ML3


def test_requirement_count():
    assert len(E8.requirements) == 278


def test_every_requirement_has_title_obliges_and_a_topic():
    for rid, info in E8.requirements.items():
        assert info["title"] and info["obliges"], rid
        assert not re.match(r"(The|A|An|It|This)\b", info["obliges"]), rid  # a phrase, not a sentence
        assert not info["obliges"].endswith("."), rid
        assert info["designation"] in ("", "ML1", "ML2", "ML3"), rid
        assert E8.topics_of_id(rid), rid
        assert E8.normal_id(rid) == rid, rid


# ------------------------------------------------------------------ facts and pack fields
def test_facts_are_sourced_and_cover_the_kinds():
    facts = E8.facts
    assert len(facts) >= 10
    assert {f["kind"] for f in facts} >= FRAMEWORK_KINDS
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        text = fact["text"]
        assert re.search(r"\([^()]*" + str(fact["year"]) + r"[^()]*\)\.?$", text), text
        assert fact["url"].startswith("https://www.cyber.gov.au/"), fact["url"]
    assert any("non-corporate Commonwealth" in f["text"] for f in facts)
    assert any("same level across all eight" in f["text"] for f in facts)


def test_pack_fields():
    assert E8.key == KEY and E8.short == "Essential Eight"
    assert all(a == a.lower() for a in E8.aliases)
    assert "(" in E8.deliverable and E8.deliverable.rstrip().endswith(".")
    assert "no written security policy" in E8.policy_rule and "exception" in E8.policy_rule
    assert "Maturity Level Zero" in E8.open_items_mean
    for text in (E8.deliverable, E8.policy_rule, E8.open_items_mean, E8.tier_note, *(f["text"] for f in E8.facts)):
        assert not re.search(r"\{(?!org\}|Org\}|framework\}|framework_name\}|data\}|industry\})", text), text
