"""The food service pack: a cafe chain's reports speak of counters, tills and card readers, not of hotel rooms.

A reader panel judged a "Coffee shop chain (nine cafes)" PCI DSS assessment written with the hospitality pack, which
then held restaurants and cafes too: its reports spoke of reservation systems, "front-desk and reservations staff",
checking guests in by hand and cutting keys, property management and a booking page. Restaurants, cafes, coffee
shops, quick-service and fast food, caterers, bars and pubs and food trucks now have their own pack
(app/content/industries/food_service.toml). It sorts before healthcare, hospitality and manufacturing, so it must not
take texts that are theirs: no bare "food" (food processing, food banks and pantries, grocers), no bare "bar" (a bar
association) and no "food and beverage"; a text that also names a hotel, resort, casino or cruise stays hospitality.
"""

from __future__ import annotations

import re

import pytest

from app.catalog import PERSONAS
from app.content import load
from app.content.schemas import TOPICS
from app.generation.facts import AssessmentFacts
from app.generation.samples import markdown
from app.generation.template_engine import TemplateEngine

C = load()
ENGINE = TemplateEngine()

FOOD_SERVICE = [
    "Coffee shop chain (nine cafes)", "Coffee shops", "Coffeehouse", "Coffee house", "Cafe", "Cafes and bakery",
    "Bakery cafe", "Restaurant", "Restaurant group", "Family restaurants", "Fine dining", "Casual dining chain",
    "Fast casual", "Quick service restaurants (QSR)", "QSR franchisee", "Fast food franchise", "Food service",
    "Foodservice", "Contract catering", "Caterer", "Event catering", "Bistro", "Pizzeria", "Pizza chain", "Brewpub",
    "Gastropub", "Pub chain", "Pubs and bars", "Tavern", "Bar and grill", "Bar & Grill", "Sports bar", "Wine bar",
    "Food truck", "Food trucks", "Ghost kitchen", "Takeaway", "Drive-thru coffee", "Diner", "Steakhouse",
    "Restaurateur", "Hospitality (restaurants and bars)",
]

# Texts the pack must leave to another sector (or to none), though they name food, a bar or a restaurant.
ELSEWHERE = {
    "Food processing": "manufacturing", "Food manufacturer": "manufacturing",
    "Food and beverage manufacturing": "manufacturing", "Frozen pizza manufacturer": "manufacturing",
    "Restaurant equipment manufacturer": "manufacturing", "Food bank": "nonprofit",
    "Regional food bank": "nonprofit", "Food pantry": "nonprofit", "Grocery": "retail",
    "Supermarket chain": "retail", "Grocery retail (six supermarkets)": "retail", "Hotel": "hospitality",
    "Hotel group": "hospitality", "Boutique hotel group": "hospitality", "Hotel and restaurant group": "hospitality",
    "Casino resort": "hospitality", "Resort dining": "hospitality", "Cruise line": "hospitality",
    "Accommodation and food services": "hospitality", "Restaurant POS software": "saas",
    "Restaurant staffing agency": "staffing", "Bar association": None, "State bar": None, "Publishing": None,
    "Food distribution": None, "Catering equipment supplier": None, "Brewery": None, "Bakery": None,
    "Hospital": "healthcare",
}


@pytest.mark.parametrize("text", FOOD_SERVICE)
def test_partner_text_finds_the_food_service_pack(text):
    industry = C.industry_for(text)
    assert industry is not None and industry.key == "food_service", (text, industry and industry.key)


@pytest.mark.parametrize(("text", "key"), list(ELSEWHERE.items()))
def test_text_of_another_sector_is_not_taken_by_food_service(text, key):
    industry = C.industry_for(text)
    assert (industry.key if industry else None) == key, (text, industry and industry.key)


def test_the_restaurant_stems_moved_out_of_hospitality():
    mine = set(C.industries["food_service"].match)
    for stem in ("restaurant", "food service", "foodservice", "catering", "caterer", "cafe", "coffee shop",
                 "dining", "quick service", "qsr", "fast food"):
        assert stem in mine and stem not in C.industries["hospitality"].match, stem
    for other in C.industries.values():
        if other.key != "food_service":
            assert not mine & set(other.match), (other.key, mine & set(other.match))
    # never a bare word that food manufacturers, food banks, bar associations or publishers would share
    for unsafe in ("food", "bar", "pub", "food and beverage", "beverage", "kitchen", "bakery"):
        assert unsafe not in mine, unsafe


def test_served_systems_and_regulators_read_in_the_trades_words():
    ind = C.industries["food_service"]
    assert (ind.served, ind.one_served) == ("customers", "a customer")
    assert ind.sells_to_businesses is False
    assert ind.systems == "the point-of-sale, online ordering and payment systems"
    assert "PCI DSS" in ind.regulators and "GDPR" in ind.regulators and "gaming" not in ind.regulators
    text = " ".join([ind.data, ind.customers, ind.systems, ind.regulators, *ind.subject_notes.values(),
                     *ind.scenarios.values()]).lower()
    for hotel in ("reservation", "front desk", "front-desk", "guest", "room", "booking", "property management",
                  "check in", "check-in", "hotel"):
        assert hotel not in text, hotel


def test_the_one_fact_is_the_verified_naics_72_figure_shared_with_hospitality():
    facts = C.industries["food_service"].facts
    assert len(facts) == 1 and facts[0]["kind"] == "threat"
    fields = ("kind", "text", "source", "url", "year")   # reused verbatim, source and url included
    assert any(all(f[k] == facts[0][k] for k in fields) for f in C.industries["hospitality"].facts)
    assert "NAICS 72" in facts[0]["source"] and facts[0]["url"].startswith("https://www.verizon.com/")


def test_subject_notes_are_known_subjects_one_sentence_each_arguing_their_own_subject():
    notes = C.industries["food_service"].subject_notes
    assert len(notes) >= 12
    for sid in ("physical.payment_devices", "access.passwords", "access.mfa", "access.joiners_leavers",
                "hr.training", "network.segmentation", "network.wireless", "vendor.assessment",
                "logging.monitoring", "backup.recovery", "encryption.in_transit", "vuln.patching"):
        assert sid in notes, sid
    for sid, note in notes.items():
        assert sid in {s.id for s in C.subjects}, sid
        assert len(re.findall(r"[.!?](?:\s|$)", note)) == 1 and note.endswith("."), sid
        assert not re.search(r"\byou(r)?\b", note, re.I), sid
        assert not re.search(r"\d", note), sid   # no figure that would need a source
        assert C.main_subject(note, sid.split(".")[0]) == sid, sid


def test_scenarios_cover_the_event_topics_and_fill_cleanly():
    scenarios = C.industries["food_service"].scenarios
    assert {"access", "vuln", "backup", "logging", "incident", "vendor", "network", "encryption",
            "physical"} <= set(scenarios)
    assert set(scenarios) <= set(TOPICS)
    for topic, text in scenarios.items():
        filled = text.format(org="Northside Coffee")
        assert "{" not in filled and not filled.endswith(".") and filled[0].islower(), topic
        assert 15 <= len(filled.split()) <= 45, topic


def test_hospitality_keeps_no_restaurant_wording_that_now_reads_wrong():
    hosp = C.industries["hospitality"]
    notes = " ".join(hosp.subject_notes.values())
    assert "Hotels and restaurants" not in notes and "restaurant staff" not in notes
    assert not any("restaurant" in s for s in hosp.scenarios.values())


def _text(report: dict) -> str:
    return markdown({**report, "personaLabel": ""})   # the whole report as a reader sees it, appendix included


# The panel's case: a chain of nine cafes assessed against PCI DSS.
CAFES = {
    "companyId": "cs-9", "framework": "PCI DSS v4.0.1", "industry": "Coffee shop chain (nine cafes)",
    "policy": "PARTIAL", "displayName": "Northside Coffee",
    "requirements": [
        {"id": "9.5.1", "title": "POI devices are protected from tampering and unauthorized substitution",
         "status": "not_met"},
        {"id": "8.4.3", "title": "MFA is implemented for all remote network access", "status": "not_met"},
        {"id": "2.2.2", "title": "Vendor default accounts are managed", "status": "partially_met"},
        {"id": "10.4.1", "title": "Audit logs are reviewed at least once daily", "status": "not_met"},
        {"id": "6.3.3", "title": "Security patches are installed within one month of release",
         "status": "partially_met"},
        {"id": "1.3.1", "title": "Inbound traffic to the CDE is restricted", "status": "partially_met"},
        {"id": "4.2.1", "title": "Strong cryptography protects PAN during transmission", "status": "met"},
        {"id": "8.2.6", "title": "Inactive user accounts are removed or disabled within 90 days", "status": "not_met"},
        {"id": "12.6.1", "title": "A formal security awareness program is implemented", "status": "partially_met"},
        {"id": "12.8.4", "title": "TPSPs' PCI DSS compliance status is monitored at least once every 12 months",
         "status": "not_met"},
        {"id": "12.10.1", "title": "An incident response plan exists and is ready to be activated",
         "status": "partially_met"},
    ]}


@pytest.fixture(scope="module")
def cafe_reports():
    facts = AssessmentFacts.from_submission(CAFES)
    assert facts.industry_pack.key == "food_service"
    return {p.id: _text(ENGINE.write(facts, p.id, "spin")) for p in PERSONAS}


def test_a_cafe_chains_reports_carry_no_hotel_wording(cafe_reports):
    assert len(cafe_reports) == 25
    for pid, text in cafe_reports.items():
        lower = text.lower()
        for hotel in ("reservation", "front desk", "front-desk", "check guests in", "room key", "property management",
                      "booking"):
            assert not re.search(r"\b" + hotel, lower), (pid, hotel)   # "evidence preservation" is no reservation
        assert "{" not in text and "}" not in text, pid


def test_card_reader_and_skimming_wording_reaches_a_reader(cafe_reports):
    everything = "\n".join(cafe_reports.values()).lower()
    assert "card reader" in everything and "skimm" in everything
    assert any("counter" in text or "drive-thru" in text for text in cafe_reports.values())
