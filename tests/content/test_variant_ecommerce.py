"""An online-only retailer reads of its storefront and checkout, not of tills and stores (retail pack, `ecommerce`
variant).

"E-commerce retailer, 30 staff" matched the retail pack, whose wording is about stores, tills, self-checkouts, card
readers and point-of-sale systems. Its readers (the CFO, the security analyst and the insurance underwriter of a PCI DSS
v4.0.1 assessment) said all three reports described a chain of shops. The `ecommerce` variant speaks of what such a
retailer runs: the storefront platform, the checkout and the payment service provider behind its card form, the
analytics, chat and marketing tags on its pages, customer accounts with addresses and order histories, and the order
management system and fulfilment partners. A retailer that names shops or stores as well keeps the pack's wording.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.generation.facts import AssessmentFacts
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()
PACK = C.industries["retail"]
VARIANT = next(v for v in PACK.variants if v["key"] == "ecommerce")


def _req(rid: str, title: str, status: str) -> dict:
    return {"id": rid, "title": title, "status": status}


# The case the readers were given.
SHOP = {"companyId": "shop-55", "framework": "PCI DSS v4.0.1", "industry": "E-commerce retailer, 30 staff",
        "policy": "YES",
        "requirements": [_req("1.2.1", "Network security controls configuration standards", "met"),
                         _req("3.5.1", "PAN rendered unreadable wherever stored", "partially_met"),
                         _req("6.4.3", "Payment page scripts are managed", "not_met"),
                         _req("8.4.2", "MFA for all access into the CDE", "not_met"),
                         _req("10.4.1", "Audit logs reviewed at least once daily", "partially_met"),
                         _req("11.3.2", "External vulnerability scans by an ASV quarterly", "met"),
                         _req("11.6.1", "Change- and tamper-detection on payment pages", "not_met"),
                         _req("12.8.2", "Written agreements with TPSPs", "partially_met"),
                         _req("12.10.1", "Incident response plan exists and is ready", "met")]}

# The pack's wording of physical stores. PCI DSS's own exemption for "point-of-sale accounts" that reach one card number
# at a time (8.4.2, in the framework pack) is the standard's text, not the industry's, and is not counted.
STORE_WORDS = re.compile(r"\btills?\b|self-checkouts?|card readers?|point-of-sale(?! accounts)|\bin-store\b"
                         r"|\b(?:its|every|each) stores?\b|\bstore (?:networks|teams|associates)\b", re.I)

_REPORTS: dict[str, dict[str, str]] = {}


def reports(body: dict) -> dict[str, str]:
    """Every persona's report (SPIN) for the body, without its appendices, by persona id; written once per module."""
    key = f"{body['framework']}|{body['industry']}"
    if key not in _REPORTS:
        facts = AssessmentFacts.from_submission(body)
        _REPORTS[key] = {p.id: markdown({**ENGINE.write(facts, p.id, "spin"), "personaLabel": p.label})
                         .split("## Appendix")[0] for p in PERSONAS}
    return _REPORTS[key]


# ------------------------------------------------------------------ which texts mean an online-only retailer
@pytest.mark.parametrize("text", [
    "E-commerce retailer, 30 staff", "Online fashion retailer", "DTC skincare brand", "D2C coffee brand",
    "Direct-to-consumer furniture brand", "eCommerce", "Online store selling pet supplies", "Online shop", "Webshop",
    "Web shop", "E-tailer", "Shopify store", "Online sales of outdoor gear",
])
def test_an_online_only_retailer_reads_as_ecommerce(text):
    industry = C.industry_for(text)
    assert industry is not None, text
    assert (industry.key, industry.variant) == ("retail", "ecommerce"), text


@pytest.mark.parametrize(("text", "key"), [
    # a retailer with shops of its own keeps the pack's stores and tills
    ("Grocery store chain", "retail"), ("Omnichannel retailer with 40 stores", "retail"),
    ("Retailer with 12 stores and an online shop", "retail"), ("Supermarket chain with online shop", "retail"),
    ("Brick-and-mortar and online retailer", "retail"), ("Online and in-store fashion retailer", "retail"),
    ("Grocery store with online ordering", "retail"), ("Car dealership", "retail"),
    ("Car dealer with online sales", "retail"),
    # no checkout of its own to speak of: a marketplace, a firm that builds shops for others
    ("Online marketplace", "retail"), ("E-commerce software", "retail"),
    # "online" is read only after the retail pack matched: other packs keep their texts
    ("Online banking", "financial_services"), ("Online pharmacy", "healthcare"), ("Online education", "education"),
    ("E-commerce fulfillment", "logistics"),
])
def test_other_texts_keep_their_own_wording(text, key):
    industry = C.industry_for(text)
    assert industry is not None and (industry.key, industry.variant) == (key, ""), (text, industry and industry.key,
                                                                               industry and industry.variant)


# ------------------------------------------------------------------ the variant
def test_the_variant_speaks_of_the_online_shop_only():
    online = C.industry_for("E-commerce retailer, 30 staff")
    said = [*online.subject_notes.values(), *online.scenarios.values(), online.data, online.systems,
            online.customers, online.regulators]
    for text in said:
        # not even an online "store": the variant says storefront, checkout and website
        assert not STORE_WORDS.search(text) and not re.search(r"\bstores?\b", text, re.I), text
    # what it keeps of the pack is the pack's own wording of the online shop
    assert set(online.subject_notes) - set(VARIANT["subject_notes"]) == {"change.change_control",
                                                                         "sdlc.secure_development"}
    assert set(online.scenarios) - set(VARIANT["scenarios"]) == {"change", "encryption"}
    assert 6 <= len(VARIANT["subject_notes"]) <= 10 and 4 <= len(VARIANT["scenarios"]) <= 6
    for sid, note in VARIANT["subject_notes"].items():
        assert C.main_subject(note, sid.split(".")[0]) == sid, sid
    # the sector fact about SAQ A is said where the variant is, by the same stems
    saq = [f for f in PACK.facts if f.get("when_industry")]
    assert len(saq) == 1 and saq[0]["when_industry"] == VARIANT["match"]
    assert saq[0]["url"].startswith("https://www.pcisecuritystandards.org/")


# ------------------------------------------------------------------ the reports
def test_an_online_retailers_reports_speak_of_its_checkout_not_its_tills():
    assert AssessmentFacts.from_submission(SHOP).industry_pack.variant == "ecommerce"
    out = reports(SHOP)
    for pid, text in out.items():
        found = STORE_WORDS.search(text)
        assert not found, (pid, text[max(0, found.start() - 80):found.end() + 40])
    everything = "\n".join(out.values())
    for phrase in ("the storefront, checkout and order management systems", "payment service provider",
                   "skimming code on the checkout", "order management system", "customer accounts"):
        assert phrase in everything, phrase
    # the readers who asked: the underwriter's incident is a skimmed checkout traced to the website, not to stores
    assert "traces fraud on customers' cards back to its website" in out["insurance_underwriter"]
    assert "a storefront app, a marketing tag on the checkout" in out["ceo_president"]
    # the CFO's question on downtime names the systems an online retailer stops without (the challenger's plan)
    cfo = markdown({**ENGINE.write(AssessmentFacts.from_submission(SHOP), "cfo", "challenger"), "personaLabel": "CFO"})
    assert "one week without the storefront, checkout and order management systems" in cfo
    assert not STORE_WORDS.search(cfo.split("## Appendix")[0])
