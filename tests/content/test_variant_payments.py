"""A payments company is not written to as a bank (financial services pack, `payments` variant).

Readers of a SOC 2 Type II assessment for "B2B payments software (invoicing and supplier payouts), 65 employees"
read of an "online banking portal", "account, card and transaction data" and "the core banking, payment and account
systems", and of nothing a payments company runs on: payouts and the payees' bank-account details behind them, the
sponsor or partner bank and the payment processors, payout fraud (a payee's bank details changed before a payout run,
business email compromise of customers' finance teams), its business customers' finance teams asking for the SOC 2
report, the sponsor bank's third-party risk management under the banking agencies' 2023 guidance, and, for a money
transmitter, FinCEN registration and state licensing. The variant is tried after the insurance agency, the credit
union and the consumer lender, and its `unless` keeps banks, thrifts, credit unions, insurers and lenders on their
own wording; the pack's own `unless` keeps merchants that take payments (an online retailer, a restaurant) out of
financial services altogether.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load, padded_words
from app.generation.facts import AssessmentFacts
from app.generation.openai_engine import assessment_prompt
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()
PACK = C.industries["financial_services"]


def _variant() -> dict:
    return next(v for v in PACK.variants if v["key"] == "payments")


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


# The case the readers were given, with the areas a payments company's readers argue over.
PAYMENTS = {"companyId": "pay-1", "framework": "SOC 2 Type II", "policy": "YES", "displayName": "Ledgerline",
            "industry": "B2B payments software (invoicing and supplier payouts), 65 employees", "requirements": [
                _req("CC6.1", "Logical access security, including multi-factor authentication", "not_met"),
                _req("CC6.2", "User registration and de-registration", "partially_met"),
                _req("CC6.3", "Role-based access and segregation of duties", "not_met"),
                _req("CC6.6", "Privileged access to production systems", "not_met"),
                _req("CC6.7", "Encryption of data at rest and in transit", "partially_met"),
                _req("CC7.1", "Vulnerability scanning and penetration testing", "partially_met"),
                _req("CC7.2", "Monitoring of system components for anomalies", "not_met"),
                _req("CC7.4", "Incident response and escalation", "partially_met"),
                _req("CC8.1", "Change management: authorized, tested and approved changes", "not_met"),
                _req("CC9.2", "Vendor and business partner risk management", "not_met"),
                _req("A1.3", "Recovery plan testing", "not_met"),
                _req("CC2.2", "Security awareness and email protection", "met")]}
# The sample an EU payments fintech writes (app/content/samples/dora_fintech.json): the variant, no US rules.
EU_FINTECH = {**PAYMENTS, "companyId": "pay-eu", "framework": "DORA", "industry": "Fintech payments"}

# What a bank's wording says that a payments company's reports must not.
BANK_WORDS = ("account, card and transaction data", "core banking", "online banking", "core processor",
              "adds payees", "pay or withdraw", "card brands")
# A payments company's own world, as its readers named it.
PAYMENTS_WORDS = re.compile(r"payout|payee|partner bank|payment run|bank details")


def reports(body: dict, methodology: str = "spin") -> dict[str, str]:
    facts = AssessmentFacts.from_submission(body)
    return {p.id: markdown({**ENGINE.write(facts, p.id, methodology), "personaLabel": p.label}) for p in PERSONAS}


def _body(report: str) -> str:
    return report.split("## Appendix")[0]


def _stem_of_variant(text: str) -> str | None:
    """The variant's stem found in the text as `Industry.variant_for` finds it, if any."""
    words = padded_words(text)
    joined = " " + words.replace(" ", "") + " "
    return next((s for s in _variant()["match"] if any(" " + s in hay for hay in (words, joined))), None)


@pytest.mark.parametrize("text", [
    "B2B payments software (invoicing and supplier payouts), 65 employees", "Payments company", "Payment processor",
    "Payment facilitator", "Payments platform for marketplaces", "Fintech payments", "Invoicing and payments SaaS",
    "Remittance company", "Money transfer service", "Payment software for banks",
    # these matched no pack, retail's "merchant" or saas's "platform" and "software" before the pack learned them
    "PayFac", "Money transmitter", "Merchant acquirer", "Merchant services provider", "Accounts payable automation",
    "AP automation software", "Card issuing platform", "Digital wallet", "Mobile wallet app", "Cross-border payouts",
])
def test_a_payments_company_is_read_as_one(text):
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("financial_services", "payments"), text
    assert industry.systems == "the payment and payout systems" and "payees' bank-account details" in industry.data
    assert industry.sells_to_businesses


@pytest.mark.parametrize(("text", "variant"), [
    # the kinds tried before it keep theirs, payments or not
    ("Credit union payments and lending", "credit_union"),
    ("Independent insurance agency, premium payments", "insurance_agency"),
    ("Loan payments servicing", "consumer_lending"),
    ("Mortgage payments", "consumer_lending"), ("Buy now, pay later payments app", "consumer_lending"),
    # a bank, a thrift or an insurer that names its payments keeps the pack's own wording
    ("Community bank, payments", ""), ("Bank payments division", ""), ("Neobank with payments", ""),
    ("Savings and loan, bill payments", ""), ("Insurance company, claims payments", ""),
])
def test_banks_credit_unions_lenders_and_insurers_keep_their_own_wording(text, variant):
    # each names a payments stem, so only the order of the variants or the variant's `unless` keeps it
    assert _stem_of_variant(text), text
    industry = C.industry_for(text)
    assert (industry.key, industry.variant) == ("financial_services", variant), text
    keys = [v["key"] for v in PACK.variants]
    assert keys.index("payments") > max(keys.index(k) for k in ("insurance_agency", "credit_union", "consumer_lending"))


def test_other_samples_and_sectors_resolve_as_before():
    for text, kind in (("Credit union", "credit_union"), ("Community bank", ""),
                       ("Insurance agency", "insurance_agency"), ("Banking", ""), ("Insurance", ""),
                       ("Wealth management firm", ""), ("Cryptocurrency exchange", ""),
                       ("Consumer lending platform (SaaS), 85 employees", "consumer_lending")):
        industry = C.industry_for(text)
        assert (industry.key, industry.variant) == ("financial_services", kind), text
    # the sample DORA fintech ("Fintech payments") now reads as a payments company
    assert C.industry_for("Fintech payments").variant == "payments"


def test_merchants_that_take_payments_are_not_financial_services():
    """"Online retailer with payment page" was a bank, and would have become a payments company: a merchant's own
    description (singular, a whole word) rules the pack out, and the text reaches its own sector."""
    for text, key in (("Online retailer with payment page", "retail"),
                      ("Ecommerce store accepting card payments", "retail"),
                      ("Restaurant with online payments", "food_service")):
        assert _stem_of_variant(text), text
        assert C.industry_for(text).key == key, text
    assert C.industry_for("Casual dining restaurant group").key == "food_service"
    # but a payments company that serves merchants is one
    for text in ("Payments for online stores", "Payment services for restaurants", "Restaurant payments platform"):
        assert C.industry_for(text).variant == "payments", text


def test_a_misspelt_payout_is_not_a_page_layout():
    assert "payout" in PACK.match
    assert C.industry_for("Page layout studio") is None
    assert C.industry_for("Payouts API").variant == "payments"


def test_the_payments_readers_are_not_written_to_as_a_bank():
    """The readers' case: no bank's wording anywhere in the run, and the payments company's own world in the CFO's,
    the CISO's and the IT director's reports."""
    out = reports(PAYMENTS)
    everything = "\n".join(out.values())
    for bank in BANK_WORDS:
        assert bank not in everything, bank
    for pid in ("cfo", "ciso", "it_director"):
        assert PAYMENTS_WORDS.search(_body(out[pid])), pid
    # the CFO and the external auditor read how a payments company's incident starts
    for pid in ("cfo", "external_auditor"):
        at_stake = re.search(r"What a serious incident would mean: ([^\n]*)", out[pid])
        assert at_stake and PAYMENTS_WORDS.search(at_stake.group(1)), pid
    # payout fraud, the partner bank and a software company's change control each reach a reader
    assert "payee's bank details" in everything and "partner bank" in everything
    assert "the payment and payout systems" in everything


def test_the_payments_rules_reach_a_reader_with_their_sources():
    """The facts beside the variant (`when_industry` its stems): FinCEN registration and state licensing, and the
    sponsor bank's third-party guidance, each quoted to one reader with its source."""
    assert C.industry_for(PAYMENTS["industry"]).variant == "payments"
    everything = "\n".join(reports(PAYMENTS).values())
    assert "money services business" in everything and "31 CFR 1022.380" in everything
    assert "18 U.S.C. 1960" in everything
    assert "Interagency Guidance on Third-Party Relationships" in everything and "88 FR 37920" in everything


def test_an_eu_payments_fintech_reads_the_variant_without_us_rules():
    everything = "\n".join(reports(EU_FINTECH).values())
    assert PAYMENTS_WORDS.search(everything)
    for bank in BANK_WORDS:
        assert bank not in everything, bank
    for us in ("FinCEN", "1022.380", "Interagency Guidance", "18 U.S.C. 1960"):
        assert us not in everything, us


def test_every_payments_fact_is_kept_to_payments_companies():
    variant = _variant()
    payments = [f for f in PACK.facts if f.get("when_industry") and "payment" in f["when_industry"]]
    assert len(payments) == 2
    for fact in payments:
        assert set(fact["when_industry"]) <= set(variant["match"]), fact["text"][:60]
        assert {"bank", "credit union", "insurance", "lending", "dora", "eu", "uk"} <= set(fact["not_regime"])
        assert not fact["text"].startswith("{")


def test_the_language_models_brief_names_the_payments_regulators():
    prompt = assessment_prompt(AssessmentFacts.from_submission(PAYMENTS), C.methodologies[0])
    for said in ("31 CFR 1022.380", "license money transmitters", "Interagency Guidance on Third-Party Relationships",
                 "Nacha Operating Rules", "third-party sender", "OFAC",
                 "only where it stores, processes or transmits card",
                 "SOC 2 report", "sponsor or partner bank"):
        assert said in prompt, said
    assert "core banking" not in prompt


@pytest.mark.parametrize("subject", ["access.mfa", "access.least_privilege", "access.privileged", "logging.monitoring",
                                     "vendor.assessment", "vendor.contracts", "backup.recovery", "incident.reporting",
                                     "encryption.at_rest", "vuln.email_web", "vuln.testing", "change.change_control",
                                     "sdlc.secure_development"])
def test_each_subject_note_is_a_payments_companys(subject):
    note = _variant()["subject_notes"][subject]
    assert re.search(r"payout|payee|payment|partner bank|customers' finance", note), subject
    # a software company's change control, not a bank's change windows
    if subject == "change.change_control":
        assert "CI/CD pipeline" in note and "other than its author" in note and "window" not in note
