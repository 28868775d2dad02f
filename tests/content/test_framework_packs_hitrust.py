"""Framework pack: HITRUST CSF v11, with its e1, i1 and r2 validated assessments (key "hitrust").

Checked through the loader, as the writers use them: which partner texts name the pack (and which must not), how
the control reference ids partners type normalise, which topic an id gets, what the pack says of each reference,
and the facts it offers.

"CSF" alone is not an alias: it is as often NIST's Cybersecurity Framework, and names no pack today. Requirement
statement ids ("1202.09aa1System.1") carry their control reference inside the id, but the loader reads topics only
from an id's start, so such ids get no entry and no topic from the pack: their titles route them.

The pack's own words reach every assessment that names HITRUST, a biotech lab's and a veterinary group's among
them (panels: neither holds patients' protected health information as a covered entity), so its texts never speak
of patients or of HIPAA's covered entities, and the two facts that must (recognized security practices under the
HITECH Act, and healthcare customers' vendor programs) are ruled out for those industries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.content import load
from app.content.schemas import FACT_KINDS
from app.generation.facts import AssessmentFacts
from app.generation.reading import fact_pools

C = load()
HT = C.frameworks["hitrust"]
SAMPLE = Path(__file__).resolve().parents[2] / "app" / "content" / "samples" / "hitrust_health_tech.json"
CITATION = r"\([^()]*(\([^()]*\)[^()]*)*{year}[^()]*(\([^()]*\)[^()]*)*\)\.?$"
# HITRUST itself (advisories, FAQs, program pages, blog), HITRUST's Assessment Handbook as HITRUST publishes it on
# the Manula manual platform, and the law and HHS for recognized security practices.
PRIMARY = ("https://hitrustalliance.net/", "https://www.manula.com/manuals/hitrust/", "https://www.govinfo.gov/",
           "https://www.hhs.gov/")
# Words that must not reach a research company's or a veterinary group's reports from this pack.
HEALTHCARE_ONLY = re.compile(r"patient|protected health information|business associate|covered entit|Security Rule|"
                             r"clinic", re.I)


# ------------------------------------------------------------------ which pack a partner's text names
@pytest.mark.parametrize("text", [
    "HITRUST", "hitrust", "HITRUST CSF", "HITRUST CSF v11", "HITRUST CSF v11.0", "HITRUST CSF v11 (i1)",
    "HITRUST CSF v11.3", "HITRUST CSF v9.6", "HITRUST e1", "HITRUST i1", "HITRUST r2", "HITRUST CSF e1",
    "HITRUST r2 validated assessment", "HITRUST i1 Validated Assessment + Certification",
    "HITRUST Common Security Framework", "Common Security Framework", "HITRUST Alliance",
    "Health Information Trust Alliance", "HITRUST certification", "HITRUST-certified", "HITRUST CSF Certified",
    "HITRUST Risk-based, 2-year (r2)", "HITRUST Essentials, 1-year (e1)",
])
def test_aliases(text):
    framework = C.framework_for(text)
    assert framework is not None and framework.key == "hitrust", (text, framework and framework.key)


@pytest.mark.parametrize("text", [
    "CSF", "csf", "Cybersecurity Framework", "NIST CSF", "NIST CSF 2.0", "CSF 2.0", "NIST Cybersecurity Framework",
    "HIPAA", "HIPAA Security Rule", "HITECH Act", "HIPAA/HITECH", "45 CFR 164", "SOC 2", "SOC 2 Type II",
    "ISO 27001", "ISO/IEC 27002:2005", "PCI DSS 4.0", "NIST SP 800-53 Rev. 5", "Trust Services Criteria",
    "CIS Controls v8", "Health Information Exchange", "",
])
def test_texts_that_are_not_hitrust(text):
    framework = C.framework_for(text)
    assert framework is None or framework.key != "hitrust", (text, framework.key)


def test_csf_alone_still_names_no_pack_and_nist_keeps_its_own():
    assert C.framework_for("CSF") is None
    assert C.framework_for("NIST CSF 2.0").key == "nist_csf" and C.framework_for("CSF 2.0").key == "nist_csf"
    assert "csf" not in HT.aliases and "common security framework" in HT.aliases


def test_every_alias_resolves_to_this_pack():
    for alias in HT.aliases:
        assert C.framework_for(alias).key == "hitrust", alias


# ------------------------------------------------------------------ ids as partners type them
@pytest.mark.parametrize("ref", [
    "09.l", "09.L", "9.l", " 09.l ", "09. l", "HITRUST 09.l", "HITRUST CSF 09.l", "HITRUST CSF v11 09.l",
    "CSF 09.l", "Control Reference 09.l", "Control 09.l", "CR 09.l", "#09.l",
])
def test_every_form_of_an_id_gives_the_same_entry(ref):
    assert HT.resolve(ref) == "09.l"
    assert HT.info(ref) is HT.info("09.l") and HT.info(ref)["title"] == "Back-up"
    assert HT.topics_of_id(ref) == ("backup",)


@pytest.mark.parametrize("ref,normal", [
    ("CSF 01.b", "01.b"), ("HITRUST 01.B", "01.b"), ("1.b", "01.b"), ("HITRUST 09.AA", "09.aa"),
    ("12.C", "12.c"), ("13.k", "13.k"), ("10.m", "10.m"), ("00.a", "00.a"),
])
def test_ids_normalise(ref, normal):
    assert HT.resolve(ref) == normal and HT.info(ref) is HT.info(normal)


def test_category_zero_in_both_spellings():
    assert HT.info("0.a")["title"] == HT.info("00.a")["title"] == "Information Security Management Program"
    assert HT.info("0.a")["obliges"] == HT.info("00.a")["obliges"]
    assert HT.topics_of_id("0.a") == HT.topics_of_id("00.a") == ("governance",)


@pytest.mark.parametrize("ref,topic", [
    ("00.a", "governance"), ("01.a", "access"), ("01.b", "access"), ("01.c", "access"), ("01.e", "access"),
    ("01.j", "access"), ("01.m", "network"), ("01.q", "access"), ("01.t", "access"), ("01.x", "asset"),
    ("02.b", "hr"), ("02.e", "hr"), ("02.i", "access"), ("03.a", "governance"), ("03.b", "governance"),
    ("04.a", "governance"), ("04.b", "governance"), ("05.e", "hr"), ("05.i", "vendor"), ("05.k", "vendor"),
    ("06.a", "governance"), ("06.d", "privacy"), ("06.f", "encryption"), ("06.h", "vuln"), ("07.a", "asset"),
    ("07.d", "asset"), ("08.b", "physical"), ("08.l", "asset"), ("09.b", "change"), ("09.d", "sdlc"),
    ("09.e", "vendor"), ("09.f", "vendor"), ("09.j", "vuln"), ("09.l", "backup"), ("09.m", "network"),
    ("09.o", "asset"), ("09.s", "network"), ("09.v", "network"), ("09.aa", "logging"), ("09.ab", "logging"),
    ("09.ac", "logging"), ("09.ad", "logging"), ("09.af", "logging"), ("10.a", "sdlc"), ("10.b", "sdlc"),
    ("10.f", "encryption"), ("10.g", "encryption"), ("10.k", "change"), ("10.l", "vendor"), ("10.m", "vuln"),
    ("11.a", "incident"), ("11.c", "incident"), ("11.d", "incident"), ("12.a", "backup"), ("12.c", "backup"),
    ("12.e", "backup"), ("13.a", "privacy"), ("13.k", "privacy"), ("13.r", "privacy"), ("13.t", "privacy"),
])
def test_id_main_topic(ref, topic):
    topics = HT.topics_of_id(ref)
    assert topics and topics[0] == topic, (ref, topics)


@pytest.mark.parametrize("category,topic", [
    ("00", "governance"), ("01", "access"), ("02", "hr"), ("03", "governance"), ("04", "governance"),
    ("05", "governance"), ("06", "governance"), ("07", "asset"), ("08", "physical"), ("10", "sdlc"),
    ("11", "incident"), ("12", "backup"), ("13", "privacy"),
])
def test_every_category_routes_its_references(category, topic):
    # a reference the pack gives no line of its own still takes its category's topic
    assert HT.topics_of_id(f"{category}.zz")[0] == topic


@pytest.mark.parametrize("ref", ["1202.09aa1System.1", "0101.00a1Organizational.1 - 00.a", "14.a", "09", "9",
                                 "314.4(c)(5)", "164.308(a)(1)", "CC6.1", "A.8.13", "AC-2", "3.1.1", "09.l.1"])
def test_foreign_ids_and_requirement_statement_ids_get_no_topic_and_no_entry(ref):
    assert HT.topics_of_id(ref) == () and HT.info(ref) is None


# ------------------------------------------------------------------ what the pack knows of its ids
def test_requirement_count_covers_every_category():
    reqs = HT.requirements
    assert len(reqs) >= 140
    assert {rid.split(".")[0] for rid in reqs} >= {f"{n:02d}" for n in range(14)}


@pytest.mark.parametrize("ref,title", [
    ("00.a", "Information Security Management Program"), ("01.a", "Access Control Policy"),
    ("01.b", "User Registration"), ("01.j", "User Authentication for External Connections"),
    ("02.e", "Information Security Awareness, Education, and Training"), ("03.b", "Performing Risk Assessments"),
    ("04.a", "Information Security Policy Document"), ("05.i", "Identification of Risks Related to External Parties"),
    ("06.d", "Data Protection and Privacy of Covered Information"), ("07.a", "Inventory of Assets"),
    ("09.l", "Back-up"), ("09.aa", "Audit Logging"), ("09.ab", "Monitoring System Use"),
    ("10.m", "Control of Technical Vulnerabilities"), ("11.a", "Reporting Information Security Events"),
    ("12.c", "Developing and Implementing Continuity Plans Including Information Security"),
    ("13.k", "Use and Disclosure"),
])
def test_info_knows_well_known_references(ref, title):
    assert HT.info(ref)["title"] == title


def test_every_requirement_has_a_title_obliges_and_a_topic():
    for rid, info in HT.requirements.items():
        assert info["title"].strip() and info["obliges"].strip(), rid
        obliges = info["obliges"]
        assert obliges[0].islower() or obliges.startswith("{org}"), rid
        assert not obliges.endswith("."), rid
        assert len(obliges.split()) <= 30, (rid, len(obliges.split()))
        assert HT.normal_id(rid) == rid and HT.topics_of_id(rid), rid
        assert info["designation"] == "" and info["matters"] == "", rid


def test_no_designations_or_tiers():
    # e1, i1 and r2 select requirement statements, not control references: no reference has a level of its own
    assert HT.designations == () and not HT.tier_term and HT.first_topics == ()


def test_no_pack_text_speaks_of_patients_or_hipaa_roles():
    texts = [HT.deliverable, HT.policy_rule, HT.open_items_mean, HT.audit_conclusion, HT.audit_stake,
             HT.accepted_gap, HT.audit_fee, HT.data_term, HT.assessor]
    texts += [f"{info['title']} {info['obliges']}" for info in HT.requirements.values()]
    assert not [t for t in texts if HEALTHCARE_ONLY.search(t)]
    for fact in HT.facts:
        if HEALTHCARE_ONLY.search(fact["text"]) or "healthcare" in fact["text"]:
            kept_out = {"biotech", "pharmaceutic", "research lab", "veterinar"}
            assert kept_out <= set(fact["unless_industry"]), fact["text"]


# ------------------------------------------------------------------ pack-level text
def test_pack_fields():
    assert HT.key == "hitrust" and HT.name == "HITRUST CSF" and HT.short == "HITRUST CSF"
    assert HT.item_term == "control" and HT.data_generic
    assert "External Assessor" in HT.assessor and "quality assurance" in HT.assessor
    assert all(a == a.lower() for a in HT.aliases)
    assert "certification letter" in HT.deliverable and "interim assessment" in HT.deliverable
    assert "(" in HT.deliverable and HT.deliverable.rstrip().endswith(".")
    assert "00.a" in HT.policy_rule and "04.a" in HT.policy_rule and "04.b" in HT.policy_rule
    assert "83" in HT.open_items_mean and "62" in HT.open_items_mean
    assert "corrective action plans" in HT.open_items_mean and "without one" in HT.open_items_mean
    assert "Implemented" in HT.audit_conclusion and "quality assurance" in HT.audit_conclusion
    assert "opinion" in HT.audit_conclusion and not re.search(r"(?:across|during|from) the period", HT.audit_conclusion)
    assert "corrective action plan" in HT.audit_stake
    assert "not applicable" in HT.accepted_gap and "{org}" in HT.accepted_gap
    assert "External Assessor" in HT.audit_fee and not re.search(r"\d", HT.audit_fee)   # named, never priced
    assert HT.catalogue is None   # the number of control references in v11 was not confirmed at a primary source


# ------------------------------------------------------------------ facts
def test_facts_are_sourced_and_cover_the_kinds():
    facts = HT.facts
    assert len(facts) >= 8
    assert {f["kind"] for f in facts} >= {"scope", "cadence", "deliverable", "evidence", "penalty", "context"}
    assert all(f["kind"] in FACT_KINDS for f in facts)
    for fact in facts:
        assert re.search(CITATION.format(year=fact["year"]), fact["text"]), fact["text"]
        assert fact["url"].startswith(PRIMARY), fact["url"]
        assert 2017 <= fact["year"] <= 2026, fact
        assert "!" not in fact["text"]
        # a reader's fact is introduced with a lead and a colon ("For context: ..."): a second colon reads badly
        assert ":" not in fact["text"], fact["text"]


def test_the_facts_state_the_verified_numbers():
    text = " ".join(f["text"] for f in HT.facts)
    for phrase in ("44 requirement statements", "182 requirement statements", "at least 83", "at least 62",
                   "first anniversary", "two copies of the certification letter", "15, 20, 40, 10 and 15",
                   "previous 12 months", "section 405(d)", "Pub. L. 116-321", "MyCSF", "Rapid Recertification"):
        assert phrase in text, phrase


def test_the_law_is_cited_to_its_text_and_named_as_no_certification():
    law = next(f for f in HT.facts if "116-321" in f["text"])
    assert law["url"].startswith("https://www.govinfo.gov/") and law["year"] == 2021 and law["kind"] == "penalty"
    assert "names no certification" in law["text"]


def _pooled(framework: str, industry: str) -> str:
    facts = AssessmentFacts.from_submission({"companyId": "t", "framework": framework, "industry": industry,
                                             "policy": "YES", "requirements": [
                                                 {"id": "09.l", "title": "Back-up", "status": "not_met"}]})
    assert facts.framework_pack is HT
    return "\n".join(f["text"] for f in fact_pools(facts)[1])


def test_the_rapid_recertification_is_told_only_for_an_i1():
    assert "Rapid Recertification" in _pooled("HITRUST CSF v11 (i1)", "Health tech SaaS")
    assert "Rapid Recertification" not in _pooled("HITRUST r2", "Health tech SaaS")
    assert "Rapid Recertification" not in _pooled("HITRUST CSF", "Health tech SaaS")


@pytest.mark.parametrize("industry", ["Biotech research lab, 120 staff", "Contract research organization",
                                      "Veterinary hospital group"])
def test_no_hipaa_or_healthcare_customer_fact_for_a_lab_or_a_veterinary_group(industry):
    pooled = _pooled("HITRUST CSF e1", industry)
    assert "116-321" not in pooled and "healthcare organizations" not in pooled
    assert not HEALTHCARE_ONLY.search(pooled)
    assert "44 requirement statements" in pooled   # the pack's own facts still apply


def test_a_health_software_company_hears_both():
    pooled = _pooled("HITRUST CSF e1", "Health-tech SaaS, patient scheduling platform for hospitals, 140 staff")
    assert "116-321" in pooled and "healthcare organizations" in pooled


# ------------------------------------------------------------------ the sample assessment
def test_the_sample_uses_this_pack_and_known_ids():
    body = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert C.framework_for(body["framework"]).key == "hitrust" and "i1" in body["framework"]
    assert body["policy"] in ("YES", "NO") and 16 <= len(body["requirements"]) <= 22
    assert "displayName" not in body
    assert C.industry_for(body["industry"]).variant == "health_software"
    ids = [r["id"] for r in body["requirements"]]
    assert len(set(ids)) == len(ids)
    assert all(HT.info(i) and HT.topics_of_id(i) for i in ids), [i for i in ids if not HT.info(i)]
    assert {r["status"] for r in body["requirements"]} == {"met", "not_met", "partially_met"}
    main = {HT.topics_of_id(i)[0] for i in ids}
    assert main >= {"access", "logging", "vuln", "backup", "incident", "vendor", "governance", "hr"}
