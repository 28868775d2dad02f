"""Framework pack: NYDFS Cybersecurity Regulation, 23 NYCRR Part 500 as amended in 2023 (key "nydfs_500").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not:
other New York laws, other DFS regulations, other financial-sector rules), how the ids partners type
normalise, which topic an id gets, which provisions bind Class A companies only, and the facts the pack offers.

Two limits of the loader are pinned here rather than worked around: `Framework.info` does not fall back from
a subsection to its section, and `normal_id` cannot drop the leading zero of the 2017 numbering ("500.05").
Such ids still get their section's topics from the scheme; they get no entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS, TOPICS

C = load()
NY = C.frameworks["nydfs_500"]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "nydfs_insurance_agency.json"
# A bracketed citation, possibly holding "(b)", that names the year.
CITATION = r"\([^()]*(\([^()]*\)[^()]*)*{year}[^()]*(\([^()]*\)[^()]*)*\)\.?$"


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "NYDFS", "nydfs", "NY DFS", "NYSDFS", "NYDFS Part 500", "NY DFS Part 500", "NYDFS 500", "NYDFS-500",
    "23 NYCRR 500", "23 NYCRR Part 500", "23 NYCRR §500", "NYCRR 500", "NYCRR Part 500", "Part 500",
    "23 CRR-NY 500", "NY DFS Cybersecurity Regulation", "NYDFS Cybersecurity Regulation",
    "New York Cybersecurity Regulation", "New York cybersecurity regulations", "DFS Cybersecurity Regulation",
    "NYDFS Part 500 (Second Amendment)", "nydfs part 500 2023", "23 NYCRR 500 (as amended November 2023)",
    "Cybersecurity Requirements for Financial Services Companies", "NY DFS 23 NYCRR 500",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "nydfs_500", (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    # other New York laws and other DFS regulations
    "NY SHIELD Act", "New York SHIELD Act", "23 NYCRR 200", "BitLicense", "NYC Local Law 144",
    "New York Privacy Act",
    # other financial-sector and security frameworks sharing a word or a number
    "FTC Safeguards Rule", "GLBA", "PCI DSS 4.0", "SOC 2 Type II", "ISO 27001", "NIST CSF 2.0", "HIPAA",
    "DORA", "FFIEC CAT", "NAIC Insurance Data Security Model Law", "Part 11", "21 CFR Part 11", "",
])
def test_texts_that_are_not_part_500(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "nydfs_500", (text, framework.key)


def test_every_alias_resolves_to_this_pack():
    for alias in NY.aliases:
        assert C.framework_for(alias).key == "nydfs_500", alias
    # "dfs" alone is too short to be a framework (distributed file systems, daily fantasy sports)
    assert "dfs" not in NY.aliases and "23 nycrr" not in NY.aliases


# ------------------------------------------------------------------ ids as partners type them
@pytest.mark.parametrize("ref", [
    "500.12", "§ 500.12", "§500.12", "Section 500.12", "Sec. 500.12", "23 NYCRR 500.12", "23 NYCRR § 500.12",
    "NYDFS 500.12", "NY DFS 500.12", "Part 500.12", "23 CRR-NY 500.12", " 500.12 ",
])
def test_every_form_of_a_section_id_gives_the_same_entry(ref):
    assert NY.normal_id(ref) == "500.12"
    assert NY.info(ref) is NY.info("500.12") and NY.info(ref)["title"] == "Multi-factor authentication"
    assert NY.topics_of_id(ref) == ("access",)


@pytest.mark.parametrize("ref,rid", [
    ("500.12(a)", "500.12(a)"), ("§ 500.12(a)", "500.12(a)"), ("500.12 (a)", "500.12(a)"),
    ("500.7(a)(1)", "500.7(a)(1)"), ("Section 500.7(a)(4)", "500.7(a)(4)"), ("23 NYCRR 500.17(b)", "500.17(b)"),
    ("§ 500.11", "500.11"), ("Section 500.5", "500.5"), ("500.16(A)(1)", "500.16(a)(1)"),
    ("NYDFS 500.14(a)(3)", "500.14(a)(3)"), ("500.17(c)", "500.17(c)"), ("500.2(c)", "500.2(c)"),
])
def test_subsection_ids_reach_their_own_entry(ref, rid):
    assert NY.normal_id(ref) == rid
    assert NY.info(ref) is not None and NY.info(ref) is NY.requirements[rid]


@pytest.mark.parametrize("ref,section", [
    ("500.3(b)", "500.3"), ("500.5(a)(1)(i)", "500.5"), ("500.16(b)", "500.16"), ("500.9(a)", "500.9"),
    ("500.11(a)(2)", "500.11(a)"), ("500.13(a)(1)(ii)", "500.13(a)"),
])
def test_a_subsection_without_an_entry_gets_its_sections_entry_and_topics(ref, section):
    # Framework.info falls back to the nearest parent with an entry, without the parent's designation
    assert NY.info(ref)["obliges"] == NY.info(section)["obliges"] and NY.info(ref)["designation"] == ""
    assert NY.topics_of_id(ref)[0] == NY.topics_of_id(section)[0]


@pytest.mark.parametrize("ref,topic", [
    ("500.02", "governance"), ("500.05", "vuln"), ("500.06", "logging"), ("500.07", "access"),
    ("500.07(a)", "access"), ("500.08", "sdlc"), ("500.09", "governance"), ("§ 500.05", "vuln"),
])
def test_the_2017_zero_padded_numbering_keeps_its_topic(ref, topic):
    assert NY.topics_of_id(ref)[0] == topic
    assert NY.info(ref) is None  # normal_id cannot unpad "500.05" to "500.5"


@pytest.mark.parametrize("ref,topic", [
    ("500.2", "governance"), ("500.2(c)", "governance"), ("500.3", "governance"), ("500.4", "governance"),
    ("500.4(a)", "governance"), ("500.4(b)", "governance"), ("500.5", "vuln"), ("500.6", "logging"),
    ("500.7", "access"), ("500.7(a)(4)", "access"), ("500.7(a)(5)", "network"), ("500.7(c)", "access"),
    ("500.8", "sdlc"), ("500.9", "governance"), ("500.10", "hr"), ("500.11", "vendor"), ("500.11(b)", "vendor"),
    ("500.12", "access"), ("500.12(b)", "access"), ("500.13", "asset"), ("500.13(a)", "asset"),
    ("500.13(b)", "privacy"), ("500.14", "hr"), ("500.14(a)(1)", "logging"), ("500.14(a)(2)", "vuln"),
    ("500.14(a)(3)", "hr"), ("500.14(b)", "logging"), ("500.15", "encryption"), ("500.15(b)", "encryption"),
    ("500.16", "incident"), ("500.16(a)(1)", "incident"), ("500.16(a)(2)", "backup"), ("500.16(d)", "incident"),
    ("500.16(e)", "backup"), ("500.17", "incident"), ("500.17(a)", "incident"), ("500.17(b)", "governance"),
    ("500.17(c)", "incident"), ("500.19", "governance"), ("500.20", "governance"), ("500.22", "governance"),
])
def test_id_main_topic(ref, topic):
    topics = NY.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


def test_prefixes_match_only_at_a_boundary():
    assert NY.topics_of_id("500.1") == ("governance",)      # definitions
    assert NY.topics_of_id("500.12")[0] == "access"         # not 500.1's mapping
    assert NY.topics_of_id("500.16")[0] == "incident"       # not 500.1's either
    assert NY.topics_of_id("500.13(b)")[0] == "privacy"     # the longer prefix wins over 500.13
    assert NY.topics_of_id("500.14(a)(2)")[0] == "vuln"     # and over 500.14(a)


@pytest.mark.parametrize("ref", ["500.25", "500.0", "501.1", "164.308(a)(1)", "314.4(c)(5)", "A.5.1", "CC6.1",
                                 "AC-2", "500", "5.12"])
def test_foreign_ids_get_no_topic_and_no_entry(ref):
    assert NY.topics_of_id(ref) == () and NY.info(ref) is None


# ------------------------------------------------------------------ what the pack knows of its ids
def test_requirement_count_and_sections():
    reqs = NY.requirements
    assert len(reqs) == 53
    sections = {k.split("(")[0] for k in reqs}
    assert sections == {f"500.{n}" for n in range(2, 18)}   # 500.2 to 500.17, every operative section
    # the subsections partners assess most: MFA, access, training and monitoring, IR and BCDR, notices
    assert {"500.12(a)", "500.12(b)", "500.7(a)(4)", "500.7(a)(6)", "500.7(b)", "500.7(c)", "500.14(a)(3)",
            "500.14(b)", "500.16(a)(1)", "500.16(a)(2)", "500.16(d)", "500.16(e)", "500.17(a)", "500.17(b)",
            "500.17(c)", "500.4(b)", "500.13(a)"} <= set(reqs)


def test_class_a_designations():
    assert NY.designations == ("Class A",) and not NY.tier_term and not NY.tier_note
    class_a = sorted(k for k, v in NY.requirements.items() if v["designation"] == "Class A")
    assert class_a == ["500.14(b)", "500.2(c)", "500.7(c)"]
    assert all(v["designation"] in ("", "Class A") for v in NY.requirements.values())


@pytest.mark.parametrize("ref,title", [
    ("500.4(a)", "Chief Information Security Officer"),
    ("500.9", "Risk assessment"),
    ("500.12", "Multi-factor authentication"),
    ("500.13(a)", "Asset inventory"),
    ("500.14(a)(3)", "Cybersecurity awareness training"),
    ("500.16(a)(1)", "Incident response plan"),
    ("500.16(a)(2)", "Business continuity and disaster recovery plan"),
    ("500.17(b)", "Annual notice of compliance"),
    ("500.17(c)", "Notice and explanation of extortion payment"),
])
def test_info_knows_well_known_ids(ref, title):
    assert NY.info(ref)["title"] == title


def test_the_obligations_carry_the_numbers_of_the_rule():
    assert "72 hours" in NY.info("500.17(a)")["obliges"]
    assert "April 15" in NY.info("500.17(b)")["obliges"] and "CISO" in NY.info("500.17(b)")["obliges"]
    assert "24 hours" in NY.info("500.17(c)")["obliges"] and "30 days" in NY.info("500.17(c)")["obliges"]
    assert "at least annually" in NY.info("500.7(a)(4)")["obliges"]
    assert "at least annually" in NY.info("500.14(a)(3)")["obliges"]
    assert "social engineering" in NY.info("500.14(a)(3)")["obliges"]


def test_every_requirement_has_a_title_obliges_and_a_topic():
    for rid, info in NY.requirements.items():
        assert info["title"].strip() and info["obliges"].strip(), rid
        obliges = info["obliges"]
        assert obliges[0].islower() or obliges.startswith("{org}"), rid   # completes "... obliges <phrase>"
        assert not obliges.endswith("."), rid
        assert NY.normal_id(rid) == rid and NY.topics_of_id(rid), rid
        assert set(NY.topics_of_id(rid)) <= set(TOPICS), rid


# ------------------------------------------------------------------ pack-level text and facts
def test_pack_fields():
    assert NY.key == "nydfs_500" and NY.short == "Part 500"
    assert NY.name == "NYDFS Cybersecurity Regulation (23 NYCRR Part 500)"
    assert NY.item_term == "section" and "Department of Financial Services" in NY.assessor
    assert all(a == a.lower() for a in NY.aliases)
    assert "(" in NY.deliverable and NY.deliverable.rstrip().endswith(".")
    assert "April 15" in NY.deliverable and "500.17(b)" in NY.deliverable
    assert "500.3" in NY.policy_rule and "annually" in NY.policy_rule
    assert "acknowledgment of noncompliance" in NY.open_items_mean


def test_facts_are_sourced_and_cover_the_kinds():
    facts = NY.facts
    assert len(facts) >= 10
    assert {f["kind"] for f in facts} >= {"enforcement", "penalty", "notice", "deliverable", "evidence",
                                          "cadence", "scope", "technical"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert re.search(CITATION.format(year=fact["year"]), fact["text"]), fact["text"]
        assert re.match(r"https://(www\.)?dfs\.ny\.gov/", fact["url"]), fact["url"]
        assert "!" not in fact["text"]


def test_the_facts_state_the_deadlines_and_the_violation_rule():
    text = " ".join(f["text"] for f in NY.facts)
    for phrase in ("72 hours", "24 hours", "30 days", "April 15", "24-hour period", "fewer than 20 employees",
                   "$7.5 million", "$15 million", "1 November 2025", "Class A"):
        assert phrase in text, phrase
    penalties = [f for f in NY.facts if f["kind"] == "penalty"]
    assert any("500.20" in f["text"] for f in penalties)
    assert any("press_releases" in f["url"] for f in penalties)


# ------------------------------------------------------------------ the sample assessment
def test_the_sample_uses_this_pack_and_known_ids():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == "nydfs_500"
    assert C.industry_for(body["industry"]).key == "financial_services"
    assert body["policy"] == "YES" and 12 <= len(body["requirements"]) <= 20
    assert "displayName" not in body
    ids = [r["id"] for r in body["requirements"]]
    assert all(NY.info(i) and NY.topics_of_id(i) for i in ids), [i for i in ids if not NY.info(i)]
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
    # an agency of about 60 staff is no Class A company
    assert not any(NY.info(i)["designation"] for i in ids)
