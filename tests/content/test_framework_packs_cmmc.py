"""The CMMC 2.0 pack (32 CFR Part 170, DFARS 252.204-7021), over NIST SP 800-171 Rev. 2.

Checked through the loader, as the writers use it: which texts name CMMC and which name NIST SP 800-171 or
another framework, that every id form partners type reaches the same entry, the main topic of representative
ids, the CMMC levels as cumulative tiers with their counts, and the facts and pack fields.
"""

from __future__ import annotations

import re

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS, SLOTS

C = load()
CMMC = C.frameworks["cmmc"]
REV2 = re.compile(r"3\.\d+\.\d+")
LEVEL3 = re.compile(r"3\.\d+\.\d+e")
FAR = re.compile(r"b\.1\.[ivx]+")
# The 800-171 Rev. 2 requirements that FAR 52.204-21(b)(1)(i)-(xv) covers, as the CMMC Level 1 guide maps them
# (b.1.ix, visitors, physical access logs and devices, is three of them).
LEVEL1 = ("3.1.1", "3.1.2", "3.1.20", "3.1.22", "3.5.1", "3.5.2", "3.8.3", "3.10.1", "3.10.3", "3.10.4", "3.10.5",
          "3.13.1", "3.13.5", "3.14.1", "3.14.2", "3.14.4", "3.14.5")


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "CMMC", "CMMC 2.0", "CMMC2", "CMMC v2", "CMMC Level 1", "CMMC Level 2", "CMMC Level 3", "CMMC L2", "cmmc l1",
    "CMMC Level 2 (C3PAO)", "CMMC Level 2 Self", "Cybersecurity Maturity Model Certification",
    "Cybersecurity Maturity Model Certification (CMMC) 2.0", "32 CFR Part 170", "32 CFR 170",
    "DFARS 252.204-7021", "DFARS 7021", "252.204-7021", "DFARS 252.204-7019", "DFARS 7019/7020",
    "DFARS 252.204-7025", "FAR 52.204-21", "CMMC Level 2 / DFARS 7012", "DFARS 7012 / CMMC Level 2",
    "CMMC CUI enclave", "cmmc level 2 assessment 2026",
])
def test_texts_that_name_cmmc(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "cmmc", (text, framework and framework.key)


@pytest.mark.parametrize("text,key", [
    # 800-171 itself, and DFARS 7012 alone, which requires 800-171 and stays with it
    ("NIST SP 800-171", "nist_800_171"), ("800-171 Rev 3", "nist_800_171"), ("NIST 800-171 r2", "nist_800_171"),
    ("DFARS 252.204-7012", "nist_800_171"), ("DFARS 7012", "nist_800_171"), ("DFARS", "nist_800_171"),
    ("CUI protection", "nist_800_171"), ("NIST SP 800-172", "nist_800_171"),
    # frameworks that share a word or a number
    ("NIST SP 800-53 Rev. 5", "nist_800_53"), ("NIST CSF 2.0", "nist_csf"), ("ISO/IEC 27001:2022", "iso27001"),
    ("SOC 2 Type II", "soc2"),
])
def test_texts_that_name_another_pack(text, key):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == key, (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    "CMM", "CMMI Level 3", "Capability Maturity Model Integration", "Maturity model", "NIST", "FAR", "FedRAMP Moderate",
    "ITAR", "Level 2", "C2M2", "ISO 9001", "",
])
def test_other_texts_do_not_name_cmmc(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "cmmc", (text, framework.key)


def test_every_alias_resolves_to_cmmc_and_nist_keeps_none():
    for alias in CMMC.aliases:
        assert C.framework_for(alias).key == "cmmc", alias
    for alias in C.frameworks["nist_800_171"].aliases:
        assert "cmmc" not in alias and "7021" not in alias and "52.204-21" not in alias, alias
    assert C.frameworks["nist_800_171"].name == "NIST SP 800-171"


# ------------------------------------------------------------------ ids as partners write them
@pytest.mark.parametrize("ref", [
    "3.1.1", "AC.L2-3.1.1", "AC.L1-3.1.1 ", "ac.l1-3.1.1", "NIST 3.1.1", "SP 800-171 3.1.1", "NIST SP 800-171 3.1.1",
    "NIST SP 800-171 Rev. 2 3.1.1", "800-171r2 3.1.1", "CMMC AC.L2-3.1.1", "Practice AC.L2-3.1.1", " 3.1.1 ",
    "Requirement 3.1.1",
])
def test_every_form_of_an_id_reaches_the_same_entry(ref):
    assert CMMC.normal_id(ref) == "3.1.1", ref
    assert CMMC.info(ref)["title"] == "Authorized Access Control", ref
    assert CMMC.info(ref)["designation"] == "L1", ref


@pytest.mark.parametrize("ref,key", [
    ("SC.L2-3.13.11", "3.13.11"), ("IA.L2-3.5.3", "3.5.3"), ("CA.L2-3.12.4", "3.12.4"), ("PE.L1-3.10.4", "3.10.4"),
    ("AC.L1-b.1.i", "b.1.i"), ("PE.L1-b.1.ix", "b.1.ix"), ("SI.L1-b.1.xv", "b.1.xv"),
    ("FAR 52.204-21 b.1.iii", "b.1.iii"),
    ("RA.L3-3.11.1e", "3.11.1e"), ("IR.L3-3.6.1e", "3.6.1e"), ("SI.L3-3.14.6e", "3.14.6e"),
])
def test_domain_prefixed_ids_reach_their_entry(ref, key):
    assert CMMC.normal_id(ref) == key
    assert CMMC.info(ref) is not None, ref


@pytest.mark.parametrize("ref,topic", [
    ("3.1.1", "access"), ("AC.L2-3.1.5", "access"), ("3.1.13", "encryption"), ("3.2.1", "hr"), ("3.3.1", "logging"),
    ("AU.L2-3.3.5", "logging"), ("3.4.3", "change"), ("3.4.1", "change"), ("3.5.3", "access"), ("3.6.1", "incident"),
    ("3.6.2", "incident"), ("3.7.1", "asset"), ("3.7.5", "access"), ("3.8.3", "asset"), ("3.8.6", "encryption"),
    ("3.8.9", "encryption"), ("3.9.2", "hr"), ("3.10.1", "physical"), ("3.11.1", "governance"), ("3.11.2", "vuln"),
    ("3.12.2", "governance"), ("CA.L2-3.12.4", "governance"), ("3.13.1", "network"), ("3.13.11", "encryption"),
    ("SC.L2-3.13.11", "encryption"), ("3.14.1", "vuln"), ("3.14.2", "vuln"), ("3.14.6", "logging"),
    ("3.14.7", "logging"), ("3.1.1[a]", "access"),
    ("AC.L1-b.1.i", "access"), ("PE.L1-b.1.ix", "physical"), ("SC.L1-b.1.x", "network"), ("SI.L1-b.1.xii", "vuln"),
    ("MP.L1-b.1.vii", "asset"),
    ("RA.L3-3.11.1e", "governance"), ("RA.L3-3.11.2e", "logging"), ("RA.L3-3.11.6e", "vendor"),
    ("CA.L3-3.12.1e", "vuln"), ("IR.L3-3.6.1e", "incident"), ("AT.L3-3.2.1e", "hr"), ("SC.L3-3.13.4e", "network"),
    ("AC.2.016", "access"), ("RE.2.137", "backup"),
])
def test_id_main_topic(ref, topic):
    topics = CMMC.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


def test_prefixes_match_only_at_a_boundary():
    assert CMMC.topics_of_id("3.13.1") == ("network",)          # 3.1 (access) does not swallow 3.13.1
    assert CMMC.topics_of_id("3.1.13")[0] == "encryption"       # and 3.1.1 does not swallow 3.1.13
    assert CMMC.topics_of_id("3.14.6")[0] == "logging" and CMMC.topics_of_id("3.14.1")[0] == "vuln"
    assert CMMC.topics_of_id("3.1.2e")[0] == "access"            # a Level 3 id is not read as 3.1.2


@pytest.mark.parametrize("ref", ["AC-2", "A.5.1", "CC6.1", "03.01.01", "164.308(a)(1)", "Art. 32"])
def test_foreign_ids_get_no_topic(ref):
    assert CMMC.topics_of_id(ref) == ()


# ------------------------------------------------------------------ the levels and the catalogue
def test_the_catalogue_is_complete():
    keys = set(CMMC.requirements)
    assert sum(1 for k in keys if REV2.fullmatch(k)) == 110
    assert sum(1 for k in keys if LEVEL3.fullmatch(k)) == 24
    assert sum(1 for k in keys if FAR.fullmatch(k)) == 15
    assert len(keys) == 149
    families = {k.split(".")[1] for k in keys if REV2.fullmatch(k)}
    assert families == {str(n) for n in range(1, 15)}


def test_levels_are_cumulative_tiers_with_their_counts():
    assert CMMC.designations == ("L1", "L2", "L3")
    assert CMMC.tier_term == "CMMC level" and "32 CFR 170" in CMMC.tier_note
    by_level = {d: sorted(k for k, v in CMMC.requirements.items() if v["designation"] == d) for d in CMMC.designations}
    assert sorted(by_level["L1"]) == sorted(LEVEL1)
    assert len(by_level["L2"]) == 93 and all(REV2.fullmatch(k) for k in by_level["L2"])
    assert len(by_level["L3"]) == 24 and all(LEVEL3.fullmatch(k) for k in by_level["L3"])
    # The FAR-numbered Level 1 entries repeat 17 of the Rev. 2 ones, so they carry no designation and each
    # requirement is counted once: 17 at Level 1, 110 at Level 2 and below, 134 at Level 3 and below.
    assert all(CMMC.requirements[k]["designation"] == "" for k in CMMC.requirements if FAR.fullmatch(k))


@pytest.mark.parametrize("rid,designation", [
    ("3.1.1", "L1"), ("3.1.20", "L1"), ("3.10.5", "L1"), ("3.13.5", "L1"), ("3.14.5", "L1"),
    ("3.1.3", "L2"), ("3.5.3", "L2"), ("3.12.4", "L2"), ("3.13.11", "L2"), ("3.14.3", "L2"),
    ("3.14.6", "L2"), ("3.1.2e", "L3"), ("3.14.6e", "L3"),
])
def test_designations(rid, designation):
    assert CMMC.info(rid)["designation"] == designation


@pytest.mark.parametrize("ref,title", [
    ("AC.L2-3.1.1", "Authorized Access Control"), ("IA.L2-3.5.3", "Multifactor Authentication"),
    ("SC.L2-3.13.11", "CUI Encryption"), ("CA.L2-3.12.4", "System Security Plan"),
    ("PE.L1-b.1.ix", "Manage Visitors & Physical Access"), ("IR.L3-3.6.1e", "Security Operations Center"),
    ("RA.L3-3.11.2e", "Threat Hunting"),
])
def test_info_knows_well_known_ids(ref, title):
    assert CMMC.info(ref)["title"] == title


def test_every_requirement_has_a_title_an_obligation_and_a_topic():
    for rid, info in CMMC.requirements.items():
        assert CMMC.normal_id(rid) == rid, rid              # keys are stored in the stripped form
        assert CMMC.topics_of_id(rid), rid
        assert info["title"].strip() and info["obliges"].strip(), rid
        text, first = info["obliges"], info["obliges"].split()[0]
        assert not text.endswith(".") and (first.islower() or first.split("-")[0].isupper()), rid  # "FIPS-validated"
        if not FAR.fullmatch(rid):
            assert info["designation"] in CMMC.designations, rid


# ------------------------------------------------------------------ fields and facts
def test_pack_fields():
    assert CMMC.key == "cmmc" and CMMC.short == "CMMC"
    assert CMMC.name == "Cybersecurity Maturity Model Certification (CMMC) 2.0"
    assert all(a == a.lower() for a in CMMC.aliases) and "nist" not in CMMC.aliases
    assert "{org}" in CMMC.deliverable and CMMC.deliverable.endswith(").")
    assert "C3PAO" in CMMC.assessor and "DIBCAC" in CMMC.assessor and "self-assessment" in CMMC.assessor
    assert "3.12.4" in CMMC.policy_rule and "170.21" in CMMC.policy_rule
    for needle in ("88", "180 days", "affirmation", "252.204-7021"):
        assert needle in CMMC.open_items_mean, needle
    for text in (CMMC.deliverable, CMMC.policy_rule, CMMC.open_items_mean, CMMC.tier_note):
        assert not re.search(r"\{(?!" + "|".join(sorted(SLOTS)) + r")\w*\}", text), text


def test_facts_are_sourced_and_cover_the_kinds():
    facts = CMMC.facts
    assert len(facts) >= 8
    assert {f["kind"] for f in facts} >= {"scope", "enforcement", "penalty", "deliverable", "technical", "cadence",
                                          "evidence", "notice"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        text = fact["text"]
        assert "!" not in text and text.endswith("."), text
        assert re.search(r"\([^()]*(\([^()]*\)[^()]*)*" + str(fact["year"]) + r"[^()]*\)\.$", text), text
        assert fact["url"].startswith("https://"), fact["url"]
    joined = " ".join(f["text"] for f in facts)
    for needle in ("15 October 2024", "16 December 2024", "10 September 2025", "10 November 2025", "72 hours",
                   "252.204-7019", "False Claims Act", "88 of 110"):
        assert needle in joined, needle
