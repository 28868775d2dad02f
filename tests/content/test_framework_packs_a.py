"""Framework packs, set A: SOC 2, ISO/IEC 27001, HIPAA Security Rule, PCI DSS and NIST CSF.

Checked through the loader, as the writers use them: which pack a partner's framework text names,
which topic a partner's requirement id gets, what the pack knows of an id, and the facts it offers.
"""

from __future__ import annotations

import re

import pytest

from app.content import load

C = load()
MINE = ("soc2", "iso27001", "hipaa", "pci_dss", "nist_csf")
# A bracketed source with a year, "n.d." or a CFR citation, which may itself hold "(b)".
CITATION = re.compile(r"\((?:[^()]|\([^()]*\))*(\d{4}|n\.d\.|CFR)(?:[^()]|\([^()]*\))*\)")


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text,key", [
    # SOC 2
    ("SOC2", "soc2"), ("SOC 2", "soc2"), ("soc 2 type ii", "soc2"), ("SOC 2 Type 2", "soc2"),
    ("SOC2 Type II", "soc2"), ("SOC2-Type2", "soc2"), ("SOC 2 Type I", "soc2"), ("AICPA TSC", "soc2"),
    ("Trust Services Criteria", "soc2"), ("AICPA Trust Service Criteria (2017)", "soc2"),
    # ISO/IEC 27001
    ("ISO 27001", "iso27001"), ("ISO/IEC 27001:2022", "iso27001"), ("ISO27001", "iso27001"),
    ("iso27001:2013", "iso27001"), ("ISO-27001", "iso27001"), ("27001:2022", "iso27001"),
    ("ISO/IEC 27002:2022", "iso27001"), ("ISO 27001 certification", "iso27001"),
    # HIPAA
    ("HIPAA", "hipaa"), ("HIPAA Security Rule", "hipaa"), ("HIPAA/HITECH", "hipaa"), ("hipaa-hitech", "hipaa"),
    ("45 CFR 164", "hipaa"), ("45 CFR Part 164 Subpart C", "hipaa"), ("HITECH Act", "hipaa"),
    ("Health Insurance Portability and Accountability Act", "hipaa"), ("HIPAA Privacy Rule", "hipaa"),
    # PCI DSS
    ("PCI DSS", "pci_dss"), ("PCI", "pci_dss"), ("PCI-DSS", "pci_dss"), ("PCIDSS", "pci_dss"),
    ("PCI DSS 4.0", "pci_dss"), ("PCI-DSS 4.0.1", "pci_dss"), ("pci dss v4", "pci_dss"), ("PCI v4", "pci_dss"),
    ("Payment Card Industry Data Security Standard", "pci_dss"), ("PCI DSS v3.2.1", "pci_dss"),
    # NIST CSF
    ("NIST CSF", "nist_csf"), ("NIST CSF 2.0", "nist_csf"), ("CSF 2.0", "nist_csf"), ("NIST-CSF", "nist_csf"),
    ("NIST Cybersecurity Framework", "nist_csf"), ("NIST Cybersecurity Framework 2.0", "nist_csf"),
    ("NIST CSF 1.1", "nist_csf"), ("NIST CSWP 29", "nist_csf"), ("nist csf v2.0", "nist_csf"),
])
def test_aliases(text, key):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == key, text


@pytest.mark.parametrize("text", [
    # other standards that share a word or a number with ours
    "ISO 9001", "ISO 22301", "ISO/IEC 27701", "SOC 1", "SOC 1 Type II", "HITRUST CSF", "HITRUST CSF v11",
    "SAMA Cyber Security Framework", "CSF", "NIST", "CIS Controls v8", "Cybersecurity Framework",
    # aliases of the other set's packs
    "GDPR", "UK GDPR", "NIST SP 800-53 Rev. 5", "800-53", "NIST SP 800-171", "CMMC Level 2", "FedRAMP Moderate",
    "NIS2", "DORA",
])
def test_not_our_packs(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key not in MINE, f"{text} -> {framework.key}"


def test_every_alias_resolves_to_its_own_pack():
    for key in MINE:
        for alias in C.frameworks[key].aliases:
            assert C.framework_for(alias).key == key, alias


# ------------------------------------------------------------------ which topic a partner's id gets
@pytest.mark.parametrize("key,ref,topic", [
    # SOC 2
    ("soc2", "CC6.1", "access"), ("soc2", "CC6.4", "physical"), ("soc2", "CC 6.6", "network"),
    ("soc2", "CC6.7", "encryption"), ("soc2", "CC6.8", "vuln"), ("soc2", "CC7.2", "logging"),
    ("soc2", "CC7.4", "incident"), ("soc2", "CC8.1", "change"), ("soc2", "CC9.2", "vendor"),
    ("soc2", "CC1.4", "hr"), ("soc2", "CC3.2", "governance"), ("soc2", "A1.2", "backup"),
    ("soc2", "C1.1", "encryption"), ("soc2", "P4.3", "privacy"), ("soc2", "cc6.1.3", "access"),
    ("soc2", "TSC CC7.1", "vuln"),
    # ISO/IEC 27001:2022, 2013 and clauses
    ("iso27001", "A.5.1", "governance"), ("iso27001", "A.5.15", "access"), ("iso27001", "A.5.19", "vendor"),
    ("iso27001", "A.5.24", "incident"), ("iso27001", "A.6.3", "hr"), ("iso27001", "A.7.4", "physical"),
    ("iso27001", "A.8.8", "vuln"), ("iso27001", "A.8.13", "backup"), ("iso27001", "A.8.15", "logging"),
    ("iso27001", "A.8.20", "network"), ("iso27001", "A.8.24", "encryption"), ("iso27001", "A.8.28", "sdlc"),
    ("iso27001", "A.8.32", "change"), ("iso27001", "A.5.9", "asset"), ("iso27001", "A.5.34", "privacy"),
    ("iso27001", "Annex A 8.15", "logging"), ("iso27001", "A8.24", "encryption"),
    ("iso27001", "A.9.2.1", "access"), ("iso27001", "A.12.4.1", "logging"), ("iso27001", "A.12.3.1", "backup"),
    ("iso27001", "A.10.1.1", "encryption"), ("iso27001", "A.15.1.2", "vendor"), ("iso27001", "A.16.1.5", "incident"),
    ("iso27001", "A.14.2.2", "change"), ("iso27001", "Clause 6.1.2", "governance"), ("iso27001", "7.2", "hr"),
    # HIPAA
    ("hipaa", "45 CFR 164.312(b)", "logging"), ("hipaa", "§ 164.308(a)(1)(ii)(A)", "governance"),
    ("hipaa", "164.308(a)(1)(ii)(D)", "logging"), ("hipaa", "164.308(a)(3)(ii)(C)", "access"),
    ("hipaa", "164.308(a)(5)(ii)(A)", "hr"), ("hipaa", "164.308(a)(5)(ii)(C)", "logging"),
    ("hipaa", "164.308(a)(6)(ii)", "incident"), ("hipaa", "164.308(a)(7)(ii)(B)", "backup"),
    ("hipaa", "164.308(b)(1)", "vendor"), ("hipaa", "164.310(a)(2)(ii)", "physical"),
    ("hipaa", "164.310(d)(2)(iii)", "asset"), ("hipaa", "164.312(a)(2)(iv)", "encryption"),
    ("hipaa", "164.312(d)", "access"), ("hipaa", "164.312(e)(1)", "encryption"),
    ("hipaa", "164.314(a)(1)", "vendor"), ("hipaa", "164.316(b)(2)(i)", "governance"),
    ("hipaa", "45 CFR §164.404", "incident"), ("hipaa", "164.530(c)", "privacy"),
    ("hipaa", "HIPAA 164.308(a)(4)(ii)(B)", "access"), ("hipaa", "164.312 (c)(1)", "privacy"),
    # PCI DSS
    ("pci_dss", "Req 10.2.1", "logging"), ("pci_dss", "Requirement 1", "network"), ("pci_dss", "1.3.1", "network"),
    ("pci_dss", "2.2.1", "vuln"), ("pci_dss", "3.5.1", "encryption"), ("pci_dss", "4.2.1", "encryption"),
    ("pci_dss", "5.2.1", "vuln"), ("pci_dss", "6.2.4", "sdlc"), ("pci_dss", "6.5.1", "change"),
    ("pci_dss", "7.2.4", "access"), ("pci_dss", "Req. 8.4.2", "access"), ("pci_dss", "9.4.7", "asset"),
    ("pci_dss", "9.2.1", "physical"), ("pci_dss", "10.5.1", "logging"), ("pci_dss", "11.3.2", "vuln"),
    ("pci_dss", "12.6.3", "hr"), ("pci_dss", "12.8.2", "vendor"), ("pci_dss", "12.10.1", "incident"),
    ("pci_dss", "12.1.1", "governance"), ("pci_dss", "3.2.1", "privacy"), ("pci_dss", "10.2.1.2", "logging"),
    ("pci_dss", "12.10.4.1", "incident"), ("pci_dss", "A1.1", "network"), ("pci_dss", "PCI DSS 11.4.3", "vuln"),
    # NIST CSF 2.0 and 1.1
    ("nist_csf", "GV.OC-03", "governance"), ("nist_csf", "GV.SC-05", "vendor"), ("nist_csf", "ID.AM-01", "asset"),
    ("nist_csf", "ID.RA-01", "vuln"), ("nist_csf", "PR.AA-03", "access"), ("nist_csf", "PR.AT-01", "hr"),
    ("nist_csf", "PR.DS-01", "encryption"), ("nist_csf", "PR.DS-11", "backup"), ("nist_csf", "PR.PS-04", "logging"),
    ("nist_csf", "PR.PS-06", "sdlc"), ("nist_csf", "PR.IR-01", "network"), ("nist_csf", "PR.AA-06", "physical"),
    ("nist_csf", "DE.CM-01", "logging"), ("nist_csf", "RS.MA-01", "incident"), ("nist_csf", "RC.RP-03", "backup"),
    ("nist_csf", "ID.RA-07", "change"), ("nist_csf", "PR.AA-1", "access"), ("nist_csf", "RS.MA", "incident"),
    ("nist_csf", "PR.AC-1", "access"), ("nist_csf", "PR.AC-2", "physical"), ("nist_csf", "PR.IP-4", "backup"),
    ("nist_csf", "PR.PT-1", "logging"), ("nist_csf", "ID.SC-2", "vendor"), ("nist_csf", "DE.CM-8", "vuln"),
    ("nist_csf", "PR.IP-3", "change"), ("nist_csf", "CSF PR.DS-02", "encryption"),
])
def test_id_main_topic(key, ref, topic):
    assert C.frameworks[key].topics_of_id(ref)[0] == topic, ref


@pytest.mark.parametrize("key,ref", [
    ("soc2", "A.5.1"), ("soc2", "CC10.1"), ("iso27001", "A.9.1"), ("iso27001", "11.2"), ("iso27001", "CC6.1"),
    ("hipaa", "164.105"), ("hipaa", "160.404"), ("pci_dss", "13.1"), ("pci_dss", "A4"),
    ("nist_csf", "AC-2"), ("nist_csf", "XX.AM-01"),
])
def test_foreign_ids_get_no_topic(key, ref):
    assert C.frameworks[key].topics_of_id(ref) == ()


def test_prefixes_match_only_at_a_boundary():
    iso, pci, hipaa = C.frameworks["iso27001"], C.frameworks["pci_dss"], C.frameworks["hipaa"]
    assert iso.topics_of_id("A.5.1")[0] == "governance" and iso.topics_of_id("A.5.15")[0] == "access"
    assert pci.topics_of_id("10.2.1")[0] == "logging" and pci.topics_of_id("1.2.1")[0] == "network"
    assert hipaa.topics_of_id("164.308(a)(1)(ii)(B)")[0] == "governance"
    assert hipaa.topics_of_id("164.308(a)(7)(ii)(A)")[0] == "backup"


@pytest.mark.parametrize("key", MINE)
def test_every_requirement_key_gets_a_topic(key):
    framework = C.frameworks[key]
    missing = [rid for rid in framework.requirements if not framework.topics_of_id(rid)]
    assert not missing, missing


# ------------------------------------------------------------------ what the pack knows of an id
def test_coverage_of_the_catalogues():
    soc2, iso = C.frameworks["soc2"].requirements, C.frameworks["iso27001"].requirements
    counts = {1: 5, 2: 3, 3: 4, 4: 2, 5: 3, 6: 8, 7: 5, 8: 1, 9: 2}
    common = [f"cc{family}.{n}" for family, k in counts.items() for n in range(1, k + 1)]
    assert len(common) == 33 and all(c in soc2 for c in common)
    assert all(c in soc2 for c in ("a1.1", "a1.2", "a1.3", "c1.1", "c1.2"))
    annex = [f"a.5.{n}" for n in range(1, 38)] + [f"a.6.{n}" for n in range(1, 9)] + \
        [f"a.7.{n}" for n in range(1, 15)] + [f"a.8.{n}" for n in range(1, 35)]
    assert len(annex) == 93 and all(c in iso for c in annex)
    csf = C.frameworks["nist_csf"].requirements
    assert sum(1 for k in csf if "-" not in k) == 22 and sum(1 for k in csf if "-" in k) == 106
    pci = C.frameworks["pci_dss"].requirements
    assert all(str(n) in pci for n in range(1, 13))


# Appendix A to 45 CFR 164 Subpart C, and the regulation text for 164.314 and 164.316.
HIPAA_DESIGNATIONS = {
    "164.308(a)(1)(ii)(a)": "required", "164.308(a)(1)(ii)(b)": "required", "164.308(a)(1)(ii)(c)": "required",
    "164.308(a)(1)(ii)(d)": "required", "164.308(a)(2)": "required", "164.308(a)(3)(ii)(a)": "addressable",
    "164.308(a)(3)(ii)(b)": "addressable", "164.308(a)(3)(ii)(c)": "addressable",
    "164.308(a)(4)(ii)(a)": "required", "164.308(a)(4)(ii)(b)": "addressable",
    "164.308(a)(4)(ii)(c)": "addressable", "164.308(a)(5)(ii)(a)": "addressable",
    "164.308(a)(5)(ii)(b)": "addressable", "164.308(a)(5)(ii)(c)": "addressable",
    "164.308(a)(5)(ii)(d)": "addressable", "164.308(a)(6)(ii)": "required", "164.308(a)(7)(ii)(a)": "required",
    "164.308(a)(7)(ii)(b)": "required", "164.308(a)(7)(ii)(c)": "required", "164.308(a)(7)(ii)(d)": "addressable",
    "164.308(a)(7)(ii)(e)": "addressable", "164.308(a)(8)": "required", "164.308(b)(3)": "required",
    "164.310(a)(2)(i)": "addressable", "164.310(a)(2)(ii)": "addressable", "164.310(a)(2)(iii)": "addressable",
    "164.310(a)(2)(iv)": "addressable", "164.310(b)": "required", "164.310(c)": "required",
    "164.310(d)(2)(i)": "required", "164.310(d)(2)(ii)": "required", "164.310(d)(2)(iii)": "addressable",
    "164.310(d)(2)(iv)": "addressable", "164.312(a)(2)(i)": "required", "164.312(a)(2)(ii)": "required",
    "164.312(a)(2)(iii)": "addressable", "164.312(a)(2)(iv)": "addressable", "164.312(b)": "required",
    "164.312(c)(2)": "addressable", "164.312(d)": "required", "164.312(e)(2)(i)": "addressable",
    "164.312(e)(2)(ii)": "addressable", "164.314(a)(2)(i)": "required", "164.314(a)(2)(iii)": "required",
    "164.316(a)": "required", "164.316(b)(1)": "required", "164.316(b)(2)(i)": "required",
    "164.316(b)(2)(ii)": "required", "164.316(b)(2)(iii)": "required",
}


@pytest.mark.parametrize("rid,designation", sorted(HIPAA_DESIGNATIONS.items()))
def test_hipaa_designations(rid, designation):
    assert C.frameworks["hipaa"].info(rid)["designation"] == designation


@pytest.mark.parametrize("key,ref,title", [
    ("hipaa", "45 CFR § 164.312(b)", "Audit controls"), ("hipaa", "§ 164.308(a)(1)(ii)(A)", "Risk analysis"),
    ("hipaa", "164.308(a)(1)(i)", "Security management process"),
    ("soc2", "CC6.1", "Logical access security"), ("iso27001", "A.8.15", "Logging"),
    ("iso27001", "Clause 9.2", "Internal audit"), ("pci_dss", "Req 10.5.1", "Audit log retention"),
    ("nist_csf", "PR.DS-11", "Backups"), ("nist_csf", "GV.SC", "Cybersecurity Supply Chain Risk Management"),
])
def test_info_by_partner_spelling(key, ref, title):
    assert C.frameworks[key].info(ref)["title"] == title


# Partners often type ISO 27001:2022 Annex A controls without their letter; where the number is also a clause of
# the management system (5.1-5.3, 6.1-6.3, 7.1-7.5, 8.1-8.3), the partner's title says which one is meant.
@pytest.mark.parametrize("ref,title,entry,topic", [
    ("6.3", "Information security awareness, education and training", "Information security awareness", "hr"),
    ("6.3", "Planning of changes", "Planning of changes", "governance"),
    ("5.1", "Policies for information security", "Policies for information security", "governance"),
    ("5.1", "Leadership and commitment", "Leadership and commitment", "governance"),
    ("8.2", "Privileged access rights", "Privileged access rights", "access"),
    ("8.2", "Information security risk assessment", "Information security risk assessment", "governance"),
    ("9.2", "Internal audit", "Internal audit", "governance"),
    ("5.34", "Privacy and protection of PII", "Privacy and protection of PII", "privacy"),
    ("8.15", "Logging", "Logging", "logging"), ("5.19", "Supplier relationships", "Information security in supplier",
                                                "vendor"),
    ("8.13", "", "Information backup", "backup"),   # only Annex A has an 8.13: no title needed
])
def test_iso_annex_a_ids_without_their_letter(ref, title, entry, topic):
    iso = C.frameworks["iso27001"]
    assert iso.info(ref, title)["title"].startswith(entry)
    assert iso.topics_of_id(ref, title)[0] == topic


def test_iso_bare_clause_id_without_a_title_stays_the_clause():
    assert C.frameworks["iso27001"].info("6.3")["title"] == "Planning of changes"


@pytest.mark.parametrize("key", MINE)
def test_obliges_completes_it_asks_for(key):
    for rid, info in C.frameworks[key].requirements.items():
        text = info["obliges"]
        first = text.split()[0]
        assert not text.endswith("."), rid
        assert first.islower() or first.isupper(), rid   # "a mechanism ...", "PAN masked ...", "ICT readiness ..."


# ------------------------------------------------------------------ the pack's own fields and facts
@pytest.mark.parametrize("key", MINE)
def test_fields(key):
    framework = C.frameworks[key]
    assert framework.key == key and framework.name and framework.short and framework.data_term
    assert "{org}" in framework.deliverable and CITATION.search(framework.deliverable)
    assert framework.deliverable.endswith(").")


# Fact kinds each pack must carry; SOC 2, ISO 27001 and NIST CSF set no notification clock of their own.
KINDS = {
    "soc2": {"enforcement", "penalty", "deliverable", "evidence", "cadence", "proposal", "scope", "technical"},
    "iso27001": {"enforcement", "penalty", "deliverable", "evidence", "cadence", "proposal", "scope", "technical"},
    "hipaa": {"enforcement", "penalty", "notice", "deliverable", "evidence", "cadence", "proposal", "scope",
              "technical"},
    "pci_dss": {"enforcement", "penalty", "notice", "deliverable", "evidence", "cadence", "proposal", "scope",
                "technical"},
    "nist_csf": {"enforcement", "deliverable", "evidence", "cadence", "proposal", "scope", "technical"},
}


@pytest.mark.parametrize("key", MINE)
def test_facts(key):
    facts = C.frameworks[key].facts
    assert len(facts) >= 6
    assert KINDS[key] <= {f["kind"] for f in facts}
    for fact in facts:
        assert CITATION.search(fact["text"]), fact["text"]
        assert fact["text"].endswith("."), fact["text"]
        assert "!" not in fact["text"]
