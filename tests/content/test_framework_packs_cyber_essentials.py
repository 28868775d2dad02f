"""Framework pack: Cyber Essentials and Cyber Essentials Plus (NCSC requirements, delivered through IASME).

Checked through the loader, as the writers use them: which pack a partner's framework text names, how the id
forms partners type (theme names, our numbered requirements, IASME question numbers) resolve, what the pack
knows of each id, and the facts it offers.
"""

from __future__ import annotations

import re

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS

C = load()
KEY = "cyber_essentials"
CE = C.frameworks[KEY]
THEMES = ("firewalls", "secure_configuration", "security_update_management", "user_access_control",
          "malware_protection")
FRAMEWORK_KINDS = {"enforcement", "penalty", "deliverable", "evidence", "cadence", "scope", "technical"}


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "Cyber Essentials", "Cyber Essentials Plus", "cyber essentials plus", "Cyber Essentials+", "CE Plus",
    "Cyber-Essentials", "CyberEssentials", "NCSC Cyber Essentials", "IASME Cyber Essentials",
    "UK Cyber Essentials", "Cyber Essentials (Danzell)", "Cyber Essentials v3.3", "Cyber Essentials 2026",
    "Cyber Essentials Basic", "Cyber Essential", "CE certification",
    "Cyber Essentials: Requirements for IT infrastructure v3.2", "Danzell question set",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == KEY, text


@pytest.mark.parametrize("text", [
    # other schemes that share a word with this one
    "Essential Eight", "Essential Eight ML2", "E8", "NCSC Cyber Assessment Framework", "CE marking",
    "ISO/IEC 27001:2022", "SOC 2 Type II", "NIST CSF 2.0", "UK GDPR", "NIS2", "PCI DSS v4.0.1", "",
])
def test_other_frameworks_do_not_match(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != KEY, (text, framework and framework.key)


def test_every_alias_resolves_to_this_pack():
    for alias in CE.aliases:
        assert C.framework_for(alias).key == KEY, alias


# ------------------------------------------------------------------ id forms partners type
@pytest.mark.parametrize("forms", [
    ("Firewalls", "firewalls", "FIREWALLS", "Cyber Essentials - Firewalls", "A4",
     "Boundary firewalls and internet gateways", "boundary_firewalls"),
    ("Secure configuration", "secure_configuration", "Secure Configuration", "A5", "CE+ Secure configuration"),
    ("Security update management", "security_update_management", "Patch management", "patch_management", "A6"),
    ("User access control", "user_access_control", "User Access Control", "A7", "Question A7"),
    ("Malware protection", "malware_protection", "Malware Protection", "A8"),
    ("Scope", "scope", "A2"),
    ("firewalls.2", "Firewalls.2", "Cyber Essentials firewalls.2"),
    ("user_access_control.4", "USER_ACCESS_CONTROL.4", "CE Plus user_access_control.4"),
])
def test_forms_of_one_id_reach_one_entry(forms):
    infos = [CE.info(f) for f in forms]
    assert all(infos), [f for f, i in zip(forms, infos, strict=True) if not i]
    assert len({(i["title"].split(" (question set")[0], i["obliges"]) for i in infos}) == 1, forms


@pytest.mark.parametrize("ref,topic", [
    # themes
    ("Firewalls", "network"), ("Secure configuration", "change"), ("Security update management", "vuln"),
    ("User access control", "access"), ("Malware protection", "vuln"), ("Scope", "asset"),
    # requirements
    ("firewalls.1", "network"), ("firewalls.2", "network"), ("firewalls.5", "network"),
    ("secure_configuration.2", "access"), ("secure_configuration.4", "change"), ("secure_configuration.6", "access"),
    ("security_update_management.4", "vuln"), ("security_update_management.1", "vuln"),
    ("user_access_control.1", "access"), ("user_access_control.4", "access"), ("user_access_control.10", "incident"),
    ("malware_protection.2", "vuln"), ("scope.3", "vendor"), ("scope.5", "vendor"), ("scope.1", "asset"),
    # IASME question numbers, by section, in any question set
    ("A2.9", "asset"), ("A4.3", "network"), ("A5.9", "change"), ("A6.4", "vuln"), ("A6.5", "vuln"),
    ("A7.14", "access"), ("A7.17", "access"), ("Question A8.1", "vuln"), ("A1.2", "governance"),
    ("A4.1.1", "network"),
])
def test_id_main_topic(ref, topic):
    topics = CE.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("ref", ["CC6.1", "164.312(b)", "A.8.8", "ML1-PA-01", "AC-2", "3.1.1", "A9.1", "B4.1"])
def test_foreign_ids_get_no_topic(ref):
    assert CE.topics_of_id(ref) == ()


def test_question_numbers_map_sections_not_questions():
    # numbers inside a section move between question sets, so only the section has an entry
    assert CE.info("A4") is not None and CE.info("A4.3") is None
    assert CE.info("A7")["obliges"] == CE.info("user_access_control")["obliges"]


# ------------------------------------------------------------------ what the pack knows of its ids
def test_requirement_counts():
    reqs = CE.requirements
    numbered = {t: sorted(int(k.split(".")[1]) for k in reqs if k.startswith(t + ".")) for t in THEMES + ("scope",)}
    assert {t: len(n) for t, n in numbered.items()} == {
        "firewalls": 7, "secure_configuration": 6, "security_update_management": 4, "user_access_control": 10,
        "malware_protection": 3, "scope": 5}
    assert all(n == list(range(1, len(n) + 1)) for n in numbered.values())
    assert all(t in reqs for t in THEMES) and {"a2", "a4", "a5", "a6", "a7", "a8"} <= set(reqs)
    assert len(reqs) == 55


def test_every_requirement_has_title_obliges_and_a_topic():
    for rid, info in CE.requirements.items():
        assert info["title"] and info["obliges"], rid
        assert info["obliges"] == info["obliges"].strip() and not info["obliges"].endswith("."), rid
        assert info["obliges"][:1].islower(), rid
        assert info["designation"] == "", rid  # Plus tests the same requirements
        assert CE.topics_of_id(rid), rid
        assert CE.normal_id(rid) == rid, rid


def test_no_designations_or_tiers():
    assert CE.designations == () and CE.tier_term == "" and CE.tier_note == ""


def test_the_14_day_rule_and_cloud_mfa_are_named():
    assert "14 days" in CE.info("security_update_management.4")["obliges"]
    assert "cloud services" in CE.info("user_access_control.4")["obliges"]
    assert "cloud" in CE.info("scope.3")["obliges"]


# ------------------------------------------------------------------ facts and pack fields
def test_facts_are_sourced_and_cover_the_kinds():
    facts = CE.facts
    assert len(facts) >= 8
    assert {f["kind"] for f in facts} >= FRAMEWORK_KINDS
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        text = fact["text"]
        assert re.search(r"\([^()]*" + str(fact["year"]) + r"[^()]*\)\.?$", text), text
        assert fact["url"].startswith("https://"), fact["url"]
        assert re.match(r"https://(www\.)?([a-z.]+\.)?(ncsc\.gov\.uk|iasme\.co\.uk|gov\.uk)/", fact["url"]), fact["url"]


def test_pack_fields():
    assert CE.key == KEY and CE.name and CE.short == "Cyber Essentials"
    assert all(a == a.lower() for a in CE.aliases)
    assert "ce" not in CE.aliases  # would claim "CE marking"
    assert "(" in CE.deliverable and CE.deliverable.rstrip().endswith(".")
    assert "no written security policy" in CE.policy_rule
    assert "account" in CE.policy_rule and "firewall" in CE.policy_rule
    assert "no Cyber Essentials certificate" in CE.open_items_mean and "insurance" in CE.open_items_mean
    for text in (CE.deliverable, CE.policy_rule, CE.open_items_mean, *(f["text"] for f in CE.facts)):
        assert not re.search(r"\{(?!org\}|Org\}|framework\}|framework_name\}|data\}|industry\})", text), text
