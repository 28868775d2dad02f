"""Framework pack: FTC Safeguards Rule, 16 CFR Part 314 as amended in 2021 and 2023 (key "ftc_safeguards").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not),
how the ids partners type normalise, which topic an id gets, and the facts the pack offers.

"GLBA" alone is deliberately not an alias: the Gramm-Leach-Bliley Act's safeguards duty is enforced by
several regulators (15 U.S.C. 6805). Banks follow the banking agencies' Interagency Guidelines, broker-dealers
the SEC's Regulation S-P, insurers their state regulators; only the remaining non-bank financial institutions
(auto dealers, mortgage brokers, tax preparers, payday lenders ...) are under this FTC rule. A bank's reports
that named the FTC as its regulator and promised a 30-day FTC notice would be wrong, so bare "GLBA" stays
unmatched; any text that names the Safeguards Rule, the FTC or 16 CFR 314 matches.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS

C = load()
FTC = C.frameworks["ftc_safeguards"]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "ftc_auto_dealer.json"
CITATION = r"\([^()]*(\([^()]*\)[^()]*)*{year}[^()]*(\([^()]*\)[^()]*)*\)\.?$"
PRIMARY = ("https://www.ecfr.gov/", "https://www.federalregister.gov/", "https://www.ftc.gov/")


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "FTC Safeguards Rule", "ftc safeguards rule", "FTC Safeguards", "Safeguards Rule", "The Safeguards Rule",
    "Safeguard Rule", "16 CFR 314", "16 CFR Part 314", "16 C.F.R. 314", "16 C.F.R. Part 314", "16 CFR §314",
    "GLBA Safeguards Rule", "GLBA Safeguards", "GLBA Safeguard Rule", "GLBA (FTC Safeguards Rule)",
    "GLBA / 16 CFR 314", "FTC GLBA", "GLBA FTC", "Gramm-Leach-Bliley Safeguards Rule",
    "Gramm-Leach-Bliley Act Safeguards Rule", "Gramm Leach Bliley safeguards",
    "Standards for Safeguarding Customer Information", "FTC Safeguards Rule (2023 amendment)",
    "Safeguards Rule 2021", "FTC safeguards rule compliance",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "ftc_safeguards", (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    # GLBA alone, and the other regulators' safeguards standards
    "GLBA", "glba", "Gramm-Leach-Bliley Act", "Gramm Leach Bliley", "GLBA privacy", "Regulation S-P",
    "Interagency Guidelines Establishing Information Security Standards", "FFIEC CAT", "FFIEC",
    "NCUA Part 748",
    # the FTC's other rules and other frameworks sharing a word or a number
    "FTC Red Flags Rule", "Health Breach Notification Rule", "COPPA", "HIPAA Security Rule", "HIPAA safeguards",
    "PCI DSS 4.0", "NYDFS Part 500", "23 NYCRR 500", "CIS Controls v8", "CIS Safeguards", "SOC 2", "ISO 27001",
    "NIST CSF 2.0", "16 CFR 312", "",
])
def test_texts_that_are_not_the_ftc_rule(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "ftc_safeguards", (text, framework.key)


def test_glba_alone_names_no_pack():
    assert C.framework_for("GLBA") is None and C.framework_for("Gramm-Leach-Bliley Act") is None
    assert "glba" not in FTC.aliases and "gramm-leach-bliley act" not in FTC.aliases


def test_every_alias_resolves_to_this_pack():
    for alias in FTC.aliases:
        assert C.framework_for(alias).key == "ftc_safeguards", alias


def test_the_ftc_rule_and_part_500_do_not_claim_each_other():
    assert C.framework_for("NYDFS Part 500 / FTC Safeguards Rule").key in ("nydfs_500", "ftc_safeguards")
    assert C.framework_for("23 NYCRR 500").key == "nydfs_500"
    assert C.framework_for("16 CFR 314").key == "ftc_safeguards"


# ------------------------------------------------------------------ ids as partners type them
@pytest.mark.parametrize("ref", [
    "314.4(c)(5)", "16 CFR 314.4(c)(5)", "16 CFR § 314.4(c)(5)", "§314.4(c)(5)", "§ 314.4(c)(5)",
    "Safeguards 314.4(c)(5)", "Safeguards Rule 314.4(c)(5)", "FTC Safeguards Rule 314.4(c)(5)",
    "16 C.F.R. § 314.4(c)(5)", "GLBA 314.4(c)(5)", "314.4 (c)(5)", "314.4(C)(5)", "Section 314.4(c)(5)",
    " 314.4(c)(5) ", "16 CFR Part 314.4(c)(5)",
])
def test_every_form_of_an_id_gives_the_same_entry(ref):
    assert FTC.normal_id(ref) == "314.4(c)(5)"
    assert FTC.info(ref) is FTC.info("314.4(c)(5)") and FTC.info(ref)["title"] == "Multi-factor authentication"
    assert FTC.topics_of_id(ref) == ("access",)


@pytest.mark.parametrize("ref,section", [
    ("314.4(c)(1)(i)", "314.4(c)(1)"), ("314.4(d)(2)(ii)", "314.4(d)(2)"), ("314.4(h)(3)", "314.4(h)"),
    ("314.4(i)(2)", "314.4(i)"), ("314.4(e)(3)", "314.4(e)"), ("314.4(j)(1)", "314.4(j)"),
])
def test_a_paragraph_without_an_entry_gets_its_parents_entry_and_topics(ref, section):
    # Framework.info falls back to the nearest parent with an entry, without the parent's designation
    assert FTC.info(ref)["obliges"] == FTC.info(section)["obliges"]
    assert FTC.info(ref)["designation"] == ""
    assert FTC.topics_of_id(ref)[0] == FTC.topics_of_id(section)[0]


@pytest.mark.parametrize("ref,topic", [
    ("314.3", "governance"), ("314.3(a)", "governance"), ("314.4(a)", "governance"), ("314.4(b)", "governance"),
    ("314.4(b)(1)", "governance"), ("314.4(b)(2)", "governance"), ("314.4(c)(1)", "access"),
    ("314.4(c)(2)", "asset"), ("314.4(c)(3)", "encryption"), ("314.4(c)(4)", "sdlc"), ("314.4(c)(5)", "access"),
    ("314.4(c)(6)", "privacy"), ("314.4(c)(7)", "change"), ("314.4(c)(8)", "logging"), ("314.4(d)", "vuln"),
    ("314.4(d)(1)", "vuln"), ("314.4(d)(2)", "vuln"), ("314.4(e)", "hr"), ("314.4(e)(1)", "hr"),
    ("314.4(f)", "vendor"), ("314.4(g)", "governance"), ("314.4(h)", "incident"), ("314.4(i)", "governance"),
    ("314.4(j)", "incident"), ("314.5", "governance"), ("314.6", "governance"),
])
def test_id_main_topic(ref, topic):
    topics = FTC.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("ref", ["314.7", "314.0", "313.4", "314", "500.12", "164.308(a)(1)", "CC6.1", "AC-2",
                                 "4.1", "314.4c5"])
def test_foreign_ids_get_no_topic_and_no_entry(ref):
    assert FTC.topics_of_id(ref) == () and FTC.info(ref) is None


# ------------------------------------------------------------------ what the pack knows of its ids
def test_requirement_count_covers_the_elements():
    reqs = FTC.requirements
    assert len(reqs) == 26
    assert {f"314.4(c)({n})" for n in range(1, 9)} <= set(reqs)
    assert {f"314.4({p})" for p in "abcdefghij"} <= set(reqs)
    assert {"314.3", "314.3(a)", "314.4", "314.4(b)(1)", "314.4(b)(2)", "314.4(d)(1)", "314.4(d)(2)",
            "314.4(e)(1)"} <= set(reqs)


def test_no_designations():
    assert FTC.designations == () and not FTC.tier_term
    assert all(v["designation"] == "" for v in FTC.requirements.values())


@pytest.mark.parametrize("ref,title", [
    ("314.4(a)", "Qualified Individual"),
    ("314.4(b)(1)", "Written risk assessment"),
    ("314.4(c)(3)", "Encryption of customer information"),
    ("314.4(c)(7)", "Change management"),
    ("314.4(c)(8)", "Monitoring and logging of user activity"),
    ("314.4(h)", "Written incident response plan"),
    ("314.4(i)", "Report to the board of directors"),
    ("314.4(j)", "Notification to the FTC"),
])
def test_info_knows_well_known_ids(ref, title):
    assert FTC.info(ref)["title"] == title


def test_the_obligations_carry_the_numbers_of_the_rule():
    assert "30 days" in FTC.info("314.4(j)")["obliges"] and "500 consumers" in FTC.info("314.4(j)")["obliges"]
    assert "at least annually" in FTC.info("314.4(d)(2)")["obliges"]
    assert "every six months" in FTC.info("314.4(d)(2)")["obliges"]
    assert "at least annually" in FTC.info("314.4(i)")["obliges"]
    assert "two years" in FTC.info("314.4(c)(6)")["obliges"]


def test_every_requirement_has_a_title_obliges_and_a_topic():
    for rid, info in FTC.requirements.items():
        assert info["title"].strip() and info["obliges"].strip(), rid
        obliges = info["obliges"]
        assert obliges[0].islower() or obliges.startswith("{org}"), rid
        assert not obliges.endswith("."), rid
        assert FTC.normal_id(rid) == rid and FTC.topics_of_id(rid), rid


# ------------------------------------------------------------------ pack-level text and facts
def test_pack_fields():
    assert FTC.key == "ftc_safeguards" and FTC.short == "16 CFR 314"
    assert FTC.name == "FTC Safeguards Rule (16 CFR Part 314)"
    assert FTC.item_term == "element" and "Federal Trade Commission" in FTC.assessor
    assert all(a == a.lower() for a in FTC.aliases)
    assert "(" in FTC.deliverable and FTC.deliverable.rstrip().endswith(".")
    assert "314.3(a)" in FTC.policy_rule and "written" in FTC.policy_rule
    assert "314.4(i)" in FTC.open_items_mean


def test_facts_are_sourced_and_cover_the_kinds():
    facts = FTC.facts
    assert len(facts) >= 10
    assert {f["kind"] for f in facts} >= {"enforcement", "penalty", "notice", "deliverable", "evidence",
                                          "cadence", "scope", "technical"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert re.search(CITATION.format(year=fact["year"]), fact["text"]), fact["text"]
        assert fact["url"].startswith(PRIMARY), fact["url"]
        assert "!" not in fact["text"]


def test_the_facts_state_the_thresholds():
    text = " ".join(f["text"] for f in FTC.facts)
    for phrase in ("500 consumers", "30 days", "5,000 consumers", "every six months", "9 June 2023",
                   "314.4(b)(1)", "314.4(d)(2)", "314.4(h)", "314.4(i)", "motor vehicle dealers"):
        assert phrase in text, phrase
    enforcement = next(f for f in FTC.facts if f["kind"] == "enforcement")
    assert "banks" in enforcement["text"]   # the rule's reach stops where other regulators' begins


# ------------------------------------------------------------------ the sample assessment
def test_the_sample_uses_this_pack_and_known_ids():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == "ftc_safeguards"
    assert body["policy"] == "NO" and 12 <= len(body["requirements"]) <= 20
    assert "displayName" not in body
    ids = [r["id"] for r in body["requirements"]]
    assert all(FTC.info(i) and FTC.topics_of_id(i) for i in ids), [i for i in ids if not FTC.info(i)]
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
