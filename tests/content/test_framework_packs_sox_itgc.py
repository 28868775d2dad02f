"""Framework pack: SOX IT general controls, Sarbanes-Oxley Act section 404 (key "sox_itgc").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not),
how the ids partners type normalise, which topic an id gets, and the facts the pack offers.

ITGC ids have no public numbering: audit firms number their own controls by domain ("ITGC-APD-03" access to
programs and data, "PC-02" program change, "PD-01" program development, "CO-04" computer operations). The pack
routes the domain prefixes that name one area; "CO" and "OPS" hold job scheduling, backup and incident controls
alike, so they get no topic from the id and the partner's title decides. SOC 1 / SOC 2 reports, COSO and COBIT are
other things and stay unmatched. "J-SOX" (Japan's regime) should stay unmatched too, but the matcher has no
exclusions and bare "SOX" is an alias partners type, so it is a known gap (strict xfail below).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS
from app.generation.facts import requirement_topics

C = load()
SOX = C.frameworks["sox_itgc"]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "sox_itgc_distributor.json"
CITATION = r"\([^()]*(\([^()]*\)[^()]*)*{year}[^()]*(\([^()]*\)[^()]*)*\)\.?$"
# The statute (US Code), the SEC's rule text (eCFR), the Federal Register and the SEC itself.
PRIMARY_HOSTS = ("uscode.house.gov", "www.ecfr.gov", "www.govinfo.gov", "www.federalregister.gov", "www.sec.gov")


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "SOX", "sox", "SOX ITGC", "SOX ITGCs", "SOX-ITGC", "SOX 404", "SOX 302", "SOX 404(b)", "SOX 404 ITGC",
    "SOX IT General Controls", "SOX IT controls", "SOX compliance", "Sarbanes-Oxley", "Sarbanes Oxley",
    "Sarbanes Oxley Act", "Sarbanes-Oxley Act of 2002", "Sarbanes-Oxley 404", "Sarbanes–Oxley section 404",
    "ITGC", "ITGCs", "IT general controls", "IT General Controls (ITGC)", "Information Technology General Controls",
    "ICFR", "Internal control over financial reporting", "Internal Controls over Financial Reporting (ICFR)",
    "PCAOB AS 2201", "AS 2201", "SOX ITGC FY2025", "ITGC review for SOX 404",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "sox_itgc", (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    # service organization reports and their standards: a SOC 1 report is reviewed within SOX, but is not SOX
    "SOC 2", "SOC 2 Type II", "SOC 1", "SOC 1 Type 2", "SOC", "SSAE 18", "ISAE 3402",
    # control frameworks that share words or a use with SOX
    "COBIT", "COBIT 2019", "COSO", "COSO 2013", "HITRUST", "HITRUST CSF", "ISO 27001", "ISO", "NIST", "NIST 800-53",
    "NIST CSF 2.0", "PCI DSS", "CIS Controls v8", "FTC Safeguards Rule", "NYDFS Part 500", "GLBA",
    # look-alike words
    "SOCKS proxy policy", "Internal security baseline v3", "",
])
def test_texts_that_are_not_sox(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "sox_itgc", (text, framework.key)


@pytest.mark.parametrize("text", ["J-SOX", "J SOX", "JSOX", "J-SOX internal control report", "Japan SOX (J-SOX)",
                                  "Japanese SOX"])
def test_japan_s_regime_names_no_pack(text):
    # Japan's internal control reporting under the Financial Instruments and Exchange Act is not the SEC's regime:
    # the pack's `unless` rules it out although "sox" is an alias
    assert C.framework_for(text) is None, text


def test_soc_reports_are_not_sox():
    assert C.framework_for("SOC 2 Type II").key == "soc2"
    assert C.framework_for("SOC 1") is None and C.framework_for("SOC 1 Type II") is None
    assert all("soc" not in alias.split() for alias in SOX.aliases)


def test_every_alias_resolves_to_this_pack():
    for alias in SOX.aliases:
        assert C.framework_for(alias).key == "sox_itgc", alias


def test_the_pack_takes_no_other_samples_framework():
    samples = sorted(SAMPLE.parent.glob("*.json"))
    assert len(samples) > 10
    for path in samples:
        framework = json.loads(path.read_text(encoding="utf-8"))["framework"]
        found = C.framework_for(framework)
        assert (found is not None and found.key == "sox_itgc") == (path == SAMPLE), (path.name, framework)


# ------------------------------------------------------------------ ids as partners type them
@pytest.mark.parametrize("ref,normal", [
    ("ITGC-AC-01", "ac-01"), ("AC-01", "ac-01"), ("itgc ac-01", "ac-01"), ("SOX ITGC AC-01", "ac-01"),
    ("SOX-AC-01", "ac-01"), (" AC-01 ", "ac-01"), ("Control AC-01", "ac-01"), ("ITGC_AC_01", "ac_01"),
    ("ITGC.APD.03", "apd.03"), ("APD-03", "apd-03"), ("PC-02", "pc-02"), ("SOX 404(b)", "404(b)"),
    ("Section 404(a)", "404(a)"), ("SOX section 302", "302"), ("Sarbanes-Oxley 906", "906"), ("SOX-404(b)", "404(b)"),
])
def test_ids_normalise(ref, normal):
    assert SOX.normal_id(ref) == normal


@pytest.mark.parametrize("ref,topic", [
    # access to programs and data
    ("ITGC-AC-01", "access"), ("AC-01", "access"), ("APD-03", "access"), ("ITGC-APD-03", "access"),
    ("LA-02", "access"), ("IAM-04", "access"), ("UAM-01", "access"), ("AC-PR-01", "access"), ("ac.01", "access"),
    ("SOD-01", "access"),
    # program change and program development
    ("PC-02", "change"), ("ITGC-PC-02", "change"), ("CM-01", "change"), ("CHG-12", "change"), ("PD-01", "sdlc"),
    ("SDLC-01", "sdlc"), ("sdlc_03", "sdlc"),
    # entity-level controls and the statute's sections
    ("ELC-01", "governance"), ("302", "governance"), ("SOX 404(a)", "governance"), ("404(b)", "governance"),
    ("906", "governance"),
    # operations sub-areas that name one area
    ("BKP-01", "backup"), ("JOB-02", "logging"), ("INC-01", "incident"),
])
def test_id_main_topic(ref, topic):
    topics = SOX.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("ref,title,topic", [
    # computer operations ids hold several areas: the title routes them
    ("CO-04", "Daily backups of the ERP database, with a restore test at least once a year", "backup"),
    ("CO-01", "Nightly batch jobs scheduled, monitored and failures resolved", "logging"),
    ("OPS-02", "IT incident and problem tickets affecting financial systems tracked to resolution", "incident"),
    ("ITGC-CO-04", "Backup and recovery of the general ledger database", "backup"),
])
def test_operations_ids_are_routed_by_their_title(ref, title, topic):
    assert SOX.topics_of_id(ref) == ()
    assert requirement_topics(SOX, ref, title)[0] == topic


@pytest.mark.parametrize("ref", ["CO-04", "OPS-02", "AC01", "ITGC-01", "ACCT-01", "ACE-01", "PCI-3", "CC6.1",
                                 "314.4(c)(5)", "A.8.15", "405", "303", "4.1"])
def test_ids_the_pack_does_not_route(ref):
    assert SOX.topics_of_id(ref) == () and SOX.info(ref) is None


def test_prefixes_match_only_at_a_boundary():
    # "ac" must not take "acct-01", "pc" not "pci-3", "la" not "lan-01"
    for ref in ("acct-01", "pci-3", "lan-01", "inch-1"):
        assert SOX.topics_of_id(ref) == (), ref


# ------------------------------------------------------------------ what the pack knows of its ids
def test_only_the_statutes_sections_have_entries():
    assert set(SOX.requirements) == {"302", "404", "404(a)", "404(b)", "906"}
    assert SOX.catalogue is None and SOX.designations == ()
    for rid, info in SOX.requirements.items():
        assert info["title"].strip() and info["obliges"].strip(), rid
        assert info["obliges"][0].islower() and not info["obliges"].endswith("."), rid
        assert SOX.normal_id(rid) == rid and SOX.topics_of_id(rid), rid


def test_404c_falls_back_to_section_404():
    assert SOX.info("SOX 404(c)")["obliges"] == SOX.info("404")["obliges"]
    assert SOX.info("404(b)")["title"] == "Auditor attestation on internal control over financial reporting"


def test_the_auditor_attestation_applies_only_to_accelerated_filers():
    condition = SOX.condition_for("SOX 404(b)")
    assert condition is not None and "accelerated" in condition["applies"]
    assert "emerging growth company" in condition["applies"] and condition["source"] == "SOX 404(b)-(c)"
    assert SOX.condition_for("404(a)") is None and SOX.condition_for("ITGC-AC-01") is None


# ------------------------------------------------------------------ pack-level text and facts
def test_pack_fields():
    assert SOX.key == "sox_itgc" and SOX.short == "SOX ITGC"
    assert SOX.name == "SOX IT general controls (Sarbanes-Oxley Act, section 404)"
    assert SOX.item_term == "control" and SOX.data_term == "financial reporting data"
    assert "AS 2201" in SOX.assessor and "accelerated" in SOX.assessor
    assert all(a == a.lower() for a in SOX.aliases)
    for phrase in ("Item 308(a)", "404(a)", "404(b)", "emerging growth", "302", "13a-14"):
        assert phrase in SOX.deliverable, phrase
    assert SOX.first_topics == ("access", "change")


def test_what_open_items_mean_names_the_deficiency_grades_and_the_auditors_reliance():
    text = SOX.open_items_mean
    for phrase in ("deficiency", "significant deficiency", "material weakness", "automated controls",
                   "cannot rely", "adverse opinion", "308(a)(3)", "AS 2201"):
        assert phrase in text, phrase


def test_an_accepted_gap_stays_a_deficiency_and_only_a_compensating_control_lowers_it():
    assert "compensating control" in SOX.accepted_gap and "designed and tested" in SOX.accepted_gap
    assert "AS 2201.68" in SOX.accepted_gap
    # an accept_route would drop the readers' risk-acceptance decisions that carry accepted_gap
    assert SOX.accept_route == ""


def test_the_audit_concludes_on_controls_that_operated_over_the_period():
    assert SOX.audit_period and "period of reliance" in SOX.audit_conclusion
    assert "{" not in SOX.audit_stake and "substantive testing" in SOX.audit_stake


def test_the_policy_rule_cites_the_secs_definition_and_coso():
    assert "13a-15(f)" in SOX.policy_rule and "principles 11 and 12" in SOX.policy_rule
    assert "no security policy" in SOX.policy_rule


def test_facts_are_sourced_and_cover_the_kinds():
    facts = SOX.facts
    assert len(facts) >= 6
    assert {f["kind"] for f in facts} >= {"enforcement", "penalty", "notice", "deliverable", "evidence", "cadence",
                                          "scope"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert re.search(CITATION.format(year=fact["year"]), fact["text"]), fact["text"]
        assert urlsplit(fact["url"]).scheme == "https" and urlsplit(fact["url"]).hostname in PRIMARY_HOSTS, fact["url"]
        assert 2002 <= fact["year"] <= 2026 and "!" not in fact["text"]


def test_the_facts_state_the_rules_readers_asked_for():
    text = " ".join(f["text"] for f in SOX.facts)
    for phrase in ("$1 million", "$5 million", "20 years", "material weakness", "significant deficiency",
                   "unqualified or adverse", "accelerated filer", "emerging growth companies", "$75 million",
                   "$700 million", "$100 million", "audit committee", "last fiscal quarter", "evidential matter",
                   "top-down"):
        assert phrase in text, phrase
    assert "404(c)" in text and "989G" in text   # who is exempt from the auditor's attestation, and why


# ------------------------------------------------------------------ the sample assessment
def test_the_sample_uses_this_pack_and_routes_every_id():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == "sox_itgc"
    assert body["policy"] in ("YES", "NO") and 14 <= len(body["requirements"]) <= 20
    assert "displayName" not in body
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
    main = {r["id"]: requirement_topics(SOX, r["id"], r["title"])[0] for r in body["requirements"]}
    assert {main[i] for i in main if i.startswith(("ITGC-APD", "SOD"))} == {"access"}
    assert {main[i] for i in main if i.startswith(("ITGC-PC", "CM"))} == {"change"}
    assert {main["CO-01"], main["CO-02"], main["CO-03"], main["ITGC-SO-01"]} == {"logging", "backup", "incident",
                                                                                  "vendor"}
