"""A consumer lender is not written to as a bank (financial services pack, `consumer_lending` variant).

Readers of a SOC 2 assessment for "Consumer lending platform (SaaS), 85 employees" (the lender's CFO, its CISO and
its external SOC 2 auditor) read of "account, card and transaction data", "the core banking, payment and account
systems" and an intruder "inside the payment systems" who "adds payees", and of nothing a lender runs on: loan
applications, Social Security numbers and bank details, credit reports pulled from the bureaus under the FCRA, the
loan origination and servicing systems, bank-account linking and payment processors, the bank partners and
warehouse lenders that fund the loans and run their own due diligence, and, for a lender that is not a bank, the FTC
Safeguards Rule with its 30-day notice to the FTC (16 CFR 314.4(j)). The variant is laid over the pack after the
insurance agency and the credit union, so both keep theirs; the lending facts are kept from banks, credit unions and
insurers (`not_regime`), and where the framework is the FTC rule itself its own pack tells the notice duty.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.openai_engine import assessment_prompt
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


# The case the readers were given.
LENDER = {"companyId": "lend-1", "framework": "SOC 2", "industry": "Consumer lending platform (SaaS), 85 employees",
          "policy": "YES", "displayName": "Northway Loans", "requirements": [
              _req("CC6.2", "User registration and deprovisioning", "not_met"),
              _req("CC7.2", "Monitoring of system components", "not_met"),
              _req("CC9.2", "Vendor and business partner risk", "not_met"),
              _req("CC6.1", "Logical access security", "partially_met"),
              _req("A1.2", "Backup and recovery infrastructure", "met")]}
AUTO = {**LENDER, "companyId": "auto-1", "framework": "FTC Safeguards Rule",
        "industry": "Auto finance company, 30 staff", "displayName": "Ridgeline Auto Credit"}

# What a bank's wording says that a lender's reports must not.
BANK_WORDS = ("account, card and transaction data", "core banking", "adds payees", "card brands", "core processor",
              "online banking portal", "pay or withdraw")


def reports(body: dict, methodology: str = "spin") -> dict[str, str]:
    facts = AssessmentFacts.from_submission(body)
    return {p.id: markdown({**ENGINE.write(facts, p.id, methodology), "personaLabel": p.label}) for p in PERSONAS}


@pytest.mark.parametrize("text", [
    "Consumer lending platform (SaaS), 85 employees", "Auto finance company, 30 staff", "Mortgage lender",
    "Mortgage broker", "Payday lender", "Installment loans", "Consumer finance company", "Consumer credit provider",
    "Auto financing", "Personal loan marketplace", "Fintech lending platform", "Peer-to-peer lending",
    # these matched no pack, or a school's, before the pack learned their words
    "Student loan servicer", "BNPL provider", "Buy now, pay later app",
])
def test_a_lender_is_read_as_a_lender(text):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("financial_services", "consumer_lending")
    assert industry.served == "borrowers" and "loan origination" in industry.systems


@pytest.mark.parametrize(("text", "variant"), [
    # a credit union's loans keep it a credit union, an agency's premium finance keeps it an agency
    ("Credit union", "credit_union"), ("Regional credit union, auto and mortgage loans", "credit_union"),
    ("Independent insurance agency, 18 staff", "insurance_agency"),
    # banks and the rest of the sector keep the pack's own wording
    ("Community bank", ""), ("Neobank", ""), ("Payments company", "payments"), ("Wealth management firm", ""),
    ("Credit card processor", ""), ("Calendar software for banks", ""),
])
def test_credit_unions_agencies_and_banks_keep_their_own_wording(text, variant):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("financial_services", variant)


def test_student_words_without_a_loan_still_mean_a_school():
    assert C.industry_for("Student information system vendor").key == "education"
    assert C.industry_for("University").key == "education"


def test_the_lenders_readers_are_not_written_to_as_a_bank():
    """The readers' case: no bank's wording anywhere in the run, and the lender's own world in it."""
    out = reports(LENDER)
    everything = "\n".join(out.values())
    for bank in BANK_WORDS:
        assert bank not in everything, bank
    assert "borrowers" in everything and "loan origination and servicing systems" in everything
    assert "credit bureau" in everything and "credit report" in everything
    # the CFO and the external auditor, who read the bank's payees before, read how a lender's incident starts
    for pid in ("cfo", "external_auditor"):
        at_stake = re.search(r"What a serious incident would mean: ([^\n]*)", out[pid])
        assert at_stake and re.search(r"credit report|loan|borrower", at_stake.group(1)), pid


def test_a_lenders_counsel_is_told_its_own_notice_to_the_ftc():
    out = reports(LENDER)
    counsel = out["general_counsel"]
    assert "notify the FTC" in counsel and "314.4(j)" in counsel and "500 consumers" in counsel
    assert "not a bank" in counsel
    # the bank partners' due diligence and the FCRA's permissible purpose each reach a reader
    everything = "\n".join(out.values())
    assert "Interagency Guidance on Third-Party Relationships" in everything
    assert "permissible purpose" in everything and "1681b" in everything


def test_under_the_ftc_rule_its_own_pack_tells_the_notice_once():
    """An auto finance company assessed against the FTC rule hears the 30-day notice from the framework's fact, not
    a second time from the industry's."""
    everything = "\n".join(reports(AUTO).values())
    assert "As a lender that is not a bank" not in everything
    assert everything.count("no later than 30 days after discovering") == 1
    for bank in BANK_WORDS:
        assert bank not in everything, bank
    assert "borrowers" in everything


@pytest.mark.parametrize("industry", ["Regional credit union, auto and mortgage loans",
                                      "Community bank, mortgage lending", "Mortgage insurance company"])
def test_no_ftc_notice_for_a_bank_a_credit_union_or_an_insurer(industry):
    """GLBA section 505(a) (15 U.S.C. 6805(a)) puts banks, credit unions and insurers under their own regulators:
    the lending facts' `not_regime` keeps the FTC's rule and the bank partners' guidance out of their reports."""
    everything = "\n".join(reports({**LENDER, "framework": "NIST CSF 2.0", "industry": industry}).values())
    assert "notify the FTC" not in everything and "As a lender that is not a bank" not in everything
    assert "Interagency Guidance on Third-Party Relationships" not in everything


def test_every_lending_fact_is_kept_to_lenders_and_away_from_banks():
    pack = C.industries["financial_services"]
    variant = next(v for v in pack.variants if v["key"] == "consumer_lending")
    lending = [f for f in pack.facts if f.get("when_industry") and "lend" in f["when_industry"]]
    assert len(lending) == 3
    for fact in lending:
        assert set(fact["when_industry"]) <= set(variant["match"]), fact["text"][:60]
        assert {"bank", "credit union", "insurance"} <= set(fact["not_regime"]), fact["text"][:60]
        # said mid-sentence after "For context:", so a fact never opens on the client's name
        assert not fact["text"].startswith("{")
    # the variant is tried after the kinds it must not take over
    keys = [v["key"] for v in pack.variants]
    assert keys.index("consumer_lending") > keys.index("credit_union")
    assert keys.index("consumer_lending") > keys.index("insurance_agency")


def test_the_language_models_brief_names_the_lenders_regulators():
    prompt = assessment_prompt(AssessmentFacts.from_submission(LENDER), C.methodologies[0])
    for said in ("16 CFR Part 314", "314.4(j)", "CFPB", "12 U.S.C. 5514", "license consumer lenders", "1681b",
                 "warehouse lenders", "bank partners"):
        assert said in prompt, said
    assert "core banking" not in prompt

