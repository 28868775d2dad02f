"""Framework packs, set B: GDPR (EU and UK), NIST SP 800-53, NIST SP 800-171, NIS2 and DORA (CMMC: its own file).

Checked through the loader, as the writers use them: which pack a partner's framework text names,
which topic a partner's requirement id gets, what the pack knows of an id, and the facts it offers.
"""

from __future__ import annotations

import re

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS

C = load()
MINE = ("gdpr", "nist_800_53", "nist_800_171", "nis2", "dora")
# Fact kinds every pack in this set carries (all nine framework kinds).
FRAMEWORK_KINDS = {
    "enforcement",
    "penalty",
    "notice",
    "deliverable",
    "evidence",
    "cadence",
    "proposal",
    "scope",
    "technical",
}


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize(
    "text,key",
    [
        # GDPR, EU and UK
        ("GDPR", "gdpr"),
        ("EU GDPR", "gdpr"),
        ("UK GDPR", "gdpr"),
        ("UK-GDPR", "gdpr"),
        ("General Data Protection Regulation", "gdpr"),
        ("Regulation (EU) 2016/679", "gdpr"),
        ("DSGVO", "gdpr"),
        ("RGPD", "gdpr"),
        ("Data Protection Act 2018", "gdpr"),
        ("gdpr compliance 2024", "gdpr"),
        # NIST SP 800-53
        ("NIST SP 800-53 Rev. 5", "nist_800_53"),
        ("800-53", "nist_800_53"),
        ("NIST 800-53", "nist_800_53"),
        ("SP800-53", "nist_800_53"),
        ("NIST SP 800-53r5", "nist_800_53"),
        ("800-53 rev 4", "nist_800_53"),
        ("FedRAMP Moderate", "nist_800_53"),
        ("FISMA", "nist_800_53"),
        ("NIST SP 800-53A", "nist_800_53"),
        # NIST SP 800-171, with DFARS 252.204-7012, which requires it (CMMC has its own pack)
        ("NIST SP 800-171", "nist_800_171"),
        ("800-171 Rev 2", "nist_800_171"),
        ("800-171 Rev 3", "nist_800_171"),
        ("NIST 800-171 r3", "nist_800_171"),
        ("DFARS 7012", "nist_800_171"),
        ("DFARS 252.204-7012", "nist_800_171"),
        ("DFARS", "nist_800_171"),
        ("CUI protection", "nist_800_171"),
        # NIS2
        ("NIS2", "nis2"),
        ("NIS 2", "nis2"),
        ("NIS-2", "nis2"),
        ("NIS2 Directive", "nis2"),
        ("NIS II", "nis2"),
        ("Directive (EU) 2022/2555", "nis2"),
        ("NIS2UmsuCG", "nis2"),
        ("nis2 (Belgium)", "nis2"),
        # DORA
        ("DORA", "dora"),
        ("EU DORA", "dora"),
        ("Digital Operational Resilience Act", "dora"),
        ("Regulation (EU) 2022/2554", "dora"),
        ("DORA regulation", "dora"),
        ("dora compliance", "dora"),
        ("2022/2554", "dora"),
        ("Digital Operational Resilience", "dora"),
    ],
)
def test_aliases(text, key):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == key, text


@pytest.mark.parametrize(
    "text,key",
    [
        # the longer, more specific alias wins when two packs could claim the text
        ("NIST SP 800-171 (derived from SP 800-53)", "nist_800_171"),
        ("CMMC Level 2 / DFARS 7012", "cmmc"),  # the CMMC assessment of a 7012 contract is titled CMMC
        ("NIS2 / Digital Operational Resilience Act", "dora"),
    ],
)
def test_longest_alias_wins(text, key):
    assert C.framework_for(text).key == key


@pytest.mark.parametrize(
    "text",
    [
        "ISO 9001",
        "ISO/IEC 27001:2022",
        "SOC 2 Type II",
        "HIPAA Security Rule",
        "PCI DSS v4.0.1",
        "NIST CSF 2.0",
        "Cybersecurity Framework",
        "NIST",
        "CCPA",
        "ISO 27701",
        "NIST SP 800-61",
        # CMMC names its own pack, not 800-171's
        "CMMC",
        "CMMC 2.0",
        "CMMC Level 2",
        "CMMC L2",
        "Cybersecurity Maturity Model Certification",
        "DFARS 252.204-7021",
        "",
    ],
)
def test_other_frameworks_do_not_match_these_packs(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key not in MINE, (text, framework and framework.key)


def test_800_53_and_800_171_do_not_claim_each_other():
    assert C.framework_for("800-53").key == "nist_800_53"
    assert C.framework_for("800-171").key == "nist_800_171"
    assert C.framework_for("800-172").key == "nist_800_171"


# ------------------------------------------------------------------ ids as partners write them
@pytest.mark.parametrize(
    "key,ref,topic",
    [
        # GDPR
        ("gdpr", "Article 32", "encryption"),
        ("gdpr", "Art. 33", "incident"),
        ("gdpr", "Art 34", "incident"),
        ("gdpr", "Art. 28", "vendor"),
        ("gdpr", "Article 28(3)", "vendor"),
        ("gdpr", "Art. 30", "asset"),
        ("gdpr", "Art. 25", "sdlc"),
        ("gdpr", "Art. 35", "privacy"),
        ("gdpr", "Art. 5(1)(f)", "encryption"),
        ("gdpr", "Art. 5.1.f", "encryption"),
        ("gdpr", "Art. 5(2)", "governance"),
        ("gdpr", "Art. 32(1)(c)", "backup"),
        ("gdpr", "Art. 32(1)(d)", "vuln"),
        ("gdpr", "Art. 37", "governance"),
        ("gdpr", "Art. 46", "vendor"),
        ("gdpr", "Art. 15", "privacy"),
        ("gdpr", "UK GDPR Article 34", "incident"),
        ("gdpr", "GDPR Art. 33(5)", "incident"),
        ("gdpr", "32", "encryption"),
        ("gdpr", "Art. 88", "hr"),
        # NIST SP 800-53
        ("nist_800_53", "AC-2", "access"),
        ("nist_800_53", "AC-2(1)", "access"),
        ("nist_800_53", "AU-2", "logging"),
        ("nist_800_53", "AU-6", "logging"),
        ("nist_800_53", "IA-2(1)", "access"),
        ("nist_800_53", "CP-9", "backup"),
        ("nist_800_53", "IR-6", "incident"),
        ("nist_800_53", "RA-5", "vuln"),
        ("nist_800_53", "RA-3", "governance"),
        ("nist_800_53", "SC-7", "network"),
        ("nist_800_53", "SC-28", "encryption"),
        ("nist_800_53", "SC-8(1)", "encryption"),
        ("nist_800_53", "CM-3", "change"),
        ("nist_800_53", "CM-8", "asset"),
        ("nist_800_53", "PE-3", "physical"),
        ("nist_800_53", "PS-3", "hr"),
        ("nist_800_53", "AT-2", "hr"),
        ("nist_800_53", "SA-11", "sdlc"),
        ("nist_800_53", "SR-3", "vendor"),
        ("nist_800_53", "PT-2", "privacy"),
        ("nist_800_53", "AC-17(2)", "encryption"),
        ("nist_800_53", "AC-17(02)", "encryption"),
        ("nist_800_53", "ac-17.2", "encryption"),
        ("nist_800_53", "SC-07", "network"),
        ("nist_800_53", "NIST SP 800-53 SI-4", "logging"),
        ("nist_800_53", "AC-2 (3)", "access"),
        ("nist_800_53", "SA-24", "sdlc"),
        # NIST SP 800-171 Rev. 2, Rev. 3 and CMMC
        ("nist_800_171", "3.1.1", "access"),
        ("nist_800_171", "3.3.1", "logging"),
        ("nist_800_171", "3.5.3", "access"),
        ("nist_800_171", "3.6.1", "incident"),
        ("nist_800_171", "3.8.9", "encryption"),   # confidentiality of backup CUI, not recovery
        ("nist_800_171", "3.13.11", "encryption"),
        ("nist_800_171", "3.13.1", "network"),
        ("nist_800_171", "3.14.1", "vuln"),
        ("nist_800_171", "3.4.3", "change"),
        ("nist_800_171", "3.10.1", "physical"),
        ("nist_800_171", "3.9.1", "hr"),
        ("nist_800_171", "3.12.4", "governance"),
        ("nist_800_171", "AC.L2-3.1.1", "access"),
        ("nist_800_171", "SC.L2-3.13.11", "encryption"),
        ("nist_800_171", "IA.L2-3.5.3", "access"),
        ("nist_800_171", "AU.L2-3.3.1", "logging"),
        ("nist_800_171", "AC.L1-b.1.i", "access"),
        ("nist_800_171", "PE.L1-b.1.ix", "physical"),
        ("nist_800_171", "SI.L1-b.1.xii", "vuln"),
        ("nist_800_171", "RA.L3-3.11.1e", "vuln"),
        ("nist_800_171", "03.01.01", "access"),
        ("nist_800_171", "03.03.01", "logging"),
        ("nist_800_171", "03.05.03", "access"),
        ("nist_800_171", "03.06.01", "incident"),
        ("nist_800_171", "03.13.11", "encryption"),
        ("nist_800_171", "03.14.01", "vuln"),
        ("nist_800_171", "03.15.02", "governance"),
        ("nist_800_171", "03.16.01", "sdlc"),
        ("nist_800_171", "03.17.01", "vendor"),
        ("nist_800_171", "NIST SP 800-171 3.5.3", "access"),
        ("nist_800_171", "3.1.1[a]", "access"),
        ("nist_800_171", "AC.2.016", "access"),
        # NIS2
        ("nis2", "Art. 20", "governance"),
        ("nis2", "Article 20(2)", "hr"),
        ("nis2", "Art. 21", "governance"),
        ("nis2", "Art. 21(2)(a)", "governance"),
        ("nis2", "Art. 21(2)(b)", "incident"),
        ("nis2", "Art. 21(2)(c)", "backup"),
        ("nis2", "Art. 21(2)(d)", "vendor"),
        ("nis2", "Art. 21(2)(e)", "sdlc"),
        ("nis2", "Art. 21(2)(f)", "governance"),
        ("nis2", "Art. 21(2)(g)", "hr"),
        ("nis2", "Art. 21(2)(h)", "encryption"),
        ("nis2", "Art. 21(2)(i)", "hr"),
        ("nis2", "Art. 21(2)(j)", "access"),
        ("nis2", "Art. 23", "incident"),
        ("nis2", "Art. 23(4)(a)", "incident"),
        ("nis2", "21.2.d", "vendor"),
        ("nis2", "NIS2 Article 21(2)(h)", "encryption"),
        ("nis2", "Art. 21(3)", "vendor"),
        # DORA
        ("dora", "Art. 5", "governance"),
        ("dora", "Art. 6", "governance"),
        ("dora", "Art. 8", "asset"),
        ("dora", "Art. 9", "access"),
        ("dora", "Art. 10", "logging"),
        ("dora", "Art. 11", "backup"),
        ("dora", "Art. 12", "backup"),
        ("dora", "Art. 17", "incident"),
        ("dora", "Art. 19", "incident"),
        ("dora", "Art. 24", "vuln"),
        ("dora", "Art. 26", "vuln"),
        ("dora", "Art. 28", "vendor"),
        ("dora", "Article 28(3)", "vendor"),
        ("dora", "Art. 30", "vendor"),
        ("dora", "DORA Art. 13", "incident"),
        ("dora", "Art. 45", "vuln"),
    ],
)
def test_id_main_topic(key, ref, topic):
    topics = C.frameworks[key].topics_of_id(ref)
    assert topics and topics[0] == topic, (key, ref, topics)


@pytest.mark.parametrize(
    "key,ref",
    [
        ("gdpr", "Art. 320"),
        ("nist_800_53", "XX-1"),
        ("nist_800_53", "3.1.1"),
        ("nist_800_171", "AC-2"),
        ("nis2", "A.5.1"),
        ("dora", "CC6.1"),
    ],
)
def test_foreign_ids_get_no_topic(key, ref):
    assert C.frameworks[key].topics_of_id(ref) == ()


def test_prefix_matches_only_at_a_boundary():
    nist53, nist171, gdpr = C.frameworks["nist_800_53"], C.frameworks["nist_800_171"], C.frameworks["gdpr"]
    assert nist53.topics_of_id("AC-1") == ("access", "governance")  # policy and procedures
    assert nist53.topics_of_id("AC-17") == ("access", "network")  # not AC-1's mapping
    assert nist53.topics_of_id("AC-20") == ("access", "vendor")  # not AC-2's
    assert nist171.topics_of_id("3.13.1") == ("network",)  # 3.1 (access) does not swallow 3.13.1
    assert nist171.topics_of_id("3.1.13")[0] == "encryption"  # and 3.1.1 does not swallow 3.1.13
    assert gdpr.topics_of_id("Art. 3")[0] == "governance" and gdpr.topics_of_id("Art. 33")[0] == "incident"


# ------------------------------------------------------------------ what each pack knows of its ids
@pytest.mark.parametrize("key", MINE)
def test_every_requirement_key_gets_a_topic(key):
    framework = C.frameworks[key]
    assert framework.requirements
    for rid in framework.requirements:
        assert framework.topics_of_id(rid), (key, rid)
        assert framework.normal_id(rid) == rid, (key, rid)  # keys are stored in the stripped form


@pytest.mark.parametrize(
    "key,ref,title",
    [
        ("gdpr", "Art. 32", "Security of processing"),
        ("gdpr", "Article 33", "Notification of a personal data breach to the supervisory authority"),
        ("gdpr", "Art. 30", "Records of processing activities"),
        ("nist_800_53", "AC-2", "Account Management"),
        ("nist_800_53", "IA-2(1)", "Multi-factor Authentication to Privileged Accounts"),
        ("nist_800_53", "AU-11", "Audit Record Retention"),
        ("nist_800_171", "AC.L2-3.1.1", "Authorized Access Control"),
        ("nist_800_171", "03.05.03", "Multi-Factor Authentication"),
        ("nist_800_171", "3.13.11", "CUI Encryption"),
        ("nis2", "Art. 21(2)(d)", "Supply chain security"),
        ("nis2", "Art. 23", "Reporting obligations"),
        ("dora", "Art. 28(3)", "General principles: register of information"),
        ("dora", "Art. 26", "Advanced testing of ICT tools, systems and processes based on TLPT"),
    ],
)
def test_info_knows_well_known_ids(key, ref, title):
    info = C.frameworks[key].info(ref)
    assert info is not None and info["title"] == title
    # GDPR articles carry the Article 83 fine tier; none of the others here has a designation
    assert info["designation"] == ("Art. 83(4) fines" if key == "gdpr" else "")


def test_gdpr_articles_carry_the_article_83_fine_tier():
    gdpr = C.frameworks["gdpr"]
    assert gdpr.info("Art. 5(1)(e)")["designation"] == "Art. 83(5) fines"     # principles
    assert gdpr.info("Art. 13")["designation"] == "Art. 83(5) fines"          # data subjects' rights, 12-22
    assert gdpr.info("Art. 44")["designation"] == "Art. 83(5) fines"          # transfers, 44-49
    assert gdpr.info("Art. 28")["designation"] == "Art. 83(4) fines"          # controller and processor, 25-39
    assert gdpr.info("Art. 8")["designation"] == "Art. 83(4) fines"
    assert gdpr.info("Art. 24")["designation"] == ""                          # not listed in Art. 83(4)-(5)


def test_requirement_counts_cover_the_catalogues():
    nist171 = C.frameworks["nist_800_171"].requirements
    assert sum(1 for k in nist171 if re.fullmatch(r"3\.\d+\.\d+", k)) == 110  # Rev. 2
    assert sum(1 for k in nist171 if re.fullmatch(r"03\.\d\d\.\d\d", k)) == 97  # Rev. 3
    assert sum(1 for k in nist171 if k.startswith("b.1.")) == 15  # CMMC Level 1 (FAR)
    nis2 = C.frameworks["nis2"].requirements
    assert all(f"21(2)({p})" in nis2 for p in "abcdefghij") and "20" in nis2 and "23" in nis2
    dora = C.frameworks["dora"].requirements
    assert all(str(a) in dora for a in (5, 6, 8, 9, 10, 11, 12, 13, 17, 18, 19, 24, 25, 26, 28, 29, 30))
    assert {str(a) for a in range(5, 50) if a not in (11, 23, 41, 43)} <= set(C.frameworks["gdpr"].requirements)
    families = {k.split("-")[0] for k in C.frameworks["nist_800_53"].requirements}
    assert len(families) == 20


# ------------------------------------------------------------------ facts
@pytest.mark.parametrize("key", MINE)
def test_facts_are_sourced_and_cover_the_kinds(key):
    framework = C.frameworks[key]
    facts = framework.facts
    assert len(facts) >= 6
    assert {f["kind"] for f in facts} >= FRAMEWORK_KINDS
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        text = fact["text"]
        assert "!" not in text, text
        year = str(fact["year"]) if fact["year"] else "n.d."
        assert re.search(r"\([^()]*(\([^()]*\)[^()]*)*" + re.escape(year) + r"[^()]*\)", text), text
        assert fact["url"].startswith("https://"), fact["url"]


@pytest.mark.parametrize("key", MINE)
def test_pack_fields(key):
    framework = C.frameworks[key]
    assert framework.key == key and framework.name and framework.short
    assert all(a == a.lower() for a in framework.aliases)
    assert "nist" not in framework.aliases and "csf" not in framework.aliases
    assert "(" in framework.deliverable and framework.deliverable.rstrip().endswith(".")
    for text in (framework.deliverable, *(f["text"] for f in framework.facts)):
        assert not re.search(r"\{(?!org\}|Org\}|framework\}|framework_name\}|data\}|industry\})", text), text
