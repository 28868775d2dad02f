"""Industry packs: a partner's free-text industry finds the right pack, and every fact is sourced.

Industries are tried in file-name order and the first stem that starts a word wins, so these
cases also pin the collisions that ordering decides ("Fintech" before "tech", "Hospitality" is not
a hospital, "Department of Defense" is government, not a defense manufacturer).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content import ROOT, load, read, schemas

INDUSTRY_FILES = sorted((ROOT / "industries").glob("*.toml"))

CASES = {
    "healthcare": [
        "Health care", "Healthcare", "Hospital", "Hospitals and health systems", "Medical billing services",
        "Health-tech", "Clinic", "Dental practice", "Pharmaceuticals", "Telehealth",
        "Patient engagement software", "Behavioral health", "Healthcare SaaS", "Physician group",
    ],
    "financial_services": [
        "Fintech", "FinTech", "Fin-tech", "Banking", "Bank", "Credit union", "Federal credit union",
        "Insurance", "InsurTech", "Payments", "Payment processing", "Lending", "Mortgage lender",
        "Asset management", "Wealth management", "Financial services", "Investment banking",
        "Cryptocurrency exchange", "Retail banking",
    ],
    "saas": [
        "SaaS", "B2B SaaS", "Software", "Technology", "Tech", "High tech", "Cloud services", "IT services",
        "Information technology", "Managed service provider", "Cybersecurity", "Web hosting",
        "AI startup", "Software development",
    ],
    "retail": [
        "E-commerce", "Online retail", "Retail", "Ecommerce", "eCommerce", "Retailer", "Online store",
        "Shopify merchant", "Grocery", "Supermarket chain", "Fashion and apparel", "Consumer goods",
    ],
    "manufacturing": [
        "Automotive manufacturing", "Manufacturing", "Industrial", "Aerospace", "Defense contractor",
        "Chemicals", "Semiconductor fabrication", "Factory automation", "Electronics",
        "Discrete manufacturer", "Apparel manufacturing", "Precision machine shop", "CNC machining",
    ],
    "public_sector": [
        "Local government", "Government", "Public sector", "Municipality", "Federal agency",
        "County government", "City of Springfield", "State agency", "Department of Defense",
        "Police department", "Public administration", "Law enforcement",
    ],
    "education": [
        "Higher education", "K-12 school district", "University", "Community college", "EdTech",
        "Ed tech", "Educational services", "E-learning", "Online learning platform", "Charter schools",
    ],
    # Law firms, legal services and attorneys have their own pack since legal.toml (test_industry_packs_new.py);
# staffing and recruitment since staffing.toml (test_industry_packs_staffing.py).
    "professional_services": [
        "Management consulting", "Accounting", "CPA firm", "Tax preparation", "Professional services",
        "Advertising agency", "Marketing agency", "Architecture firm", "Consultancy",
    ],
    "energy": [
        "Energy", "Oil & gas", "Oil and Gas", "Electric utility", "Utilities", "Renewable energy", "Solar",
        "Power generation", "Natural gas distribution", "Nuclear power", "Electric cooperative",
    ],
    # animal care is not human healthcare (no patients' protected health information), even as a hospital
    "veterinary": ["Veterinary hospital group", "Vet clinic", "Equine hospital", "Veterinary hospitl",
                   "Small animal practice", "Veterinary clinics group", "Vet practice", "Animal hospital",
                   "Mixed animal veterinary practice"],
}

# No pack fits these; the report then speaks of the industry only as the partner wrote it. (Hospitality,
# nonprofits, logistics, legal, and construction and real estate have packs: test_industry_packs_new.py.)
UNKNOWN = ["", "   ", "Other", "N/A", "Agriculture", "Agriculture cooperative", "Botanical gardens", None,
           "Animal health"]

FIGURE = re.compile(r"\$\d|\d%|\bEUR \d")
# A bracket (one level of nesting allowed, as in "Directive (EU) 2022/2555") that names a year,
# "n.d." or a regulation: "(IBM Cost of a Data Breach 2024)", "(45 CFR 164.404)", "(FTC, n.d.)".
BRACKET = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
CITATION = re.compile(r"\b(?:19|20)\d\d\b|n\.d\.|CFR|Art\.|Directive|Regulation")


@pytest.fixture(scope="module")
def content():
    return load()


@pytest.mark.parametrize(("text", "key"), [(t, k) for k, texts in CASES.items() for t in texts])
def test_partner_text_finds_its_industry(content, text, key):
    industry = content.industry_for(text)
    assert industry is not None, text
    assert industry.key == key, (text, industry.key)


@pytest.mark.parametrize("text", UNKNOWN)
def test_unknown_industry_finds_no_pack(content, text):
    assert content.industry_for(text) is None


def test_every_pack_has_at_least_eight_realistic_spellings(content):
    # The packs added later keep their cases in test_industry_packs_new.py, which checks that the two
    # sets together cover every pack.
    assert set(CASES) <= set(content.industries)
    for key, texts in CASES.items():
        assert len(texts) >= 8, key


@pytest.mark.parametrize("path", INDUSTRY_FILES, ids=lambda p: p.stem)
def test_industry_file_fits_its_schema(path):
    data = read(path, schemas.IndustrySchema())
    assert data["key"] == path.stem
    assert all(stem == stem.lower() and not stem.startswith(" ") for stem in data["match"]), data["match"]
    assert len(set(data["match"])) == len(data["match"]), "duplicate stems"


def test_every_industry_fact_has_a_source_and_a_year(content):
    for industry in content.industries.values():
        assert industry.facts, industry.key
        assert {f["kind"] for f in industry.facts if not f.get("when_industry")} <= {
            "breach_cost", "lifecycle", "threat", "context"}
        # a fact about part of the sector may be its own rule: NCUA's 72-hour notice, who the IRS says is covered
        assert {f["kind"] for f in industry.facts if f.get("when_industry")} <= {
            "lifecycle", "context", "notice", "scope"}
        for fact in industry.facts:
            assert len(fact["source"]) >= 3 and fact["url"].startswith("https://"), (industry.key, fact)
            assert fact["year"] == 0 or 1990 <= fact["year"] <= 2030, (industry.key, fact)


def test_breach_costs_carry_the_survey_caveat(content):
    for industry in content.industries.values():
        for fact in industry.facts:
            if fact["kind"] == "breach_cost":
                assert "not an estimate for any one" in fact["text"], industry.key
                assert "IBM Cost of a Data Breach" in fact["text"], industry.key


def test_general_facts_cover_every_cross_industry_kind(content):
    kinds = [f["kind"] for f in content.general_facts]
    expected = {"breach_cost_global", "detection", "credentials", "third_party", "ransomware",
                "insurer_controls", "sec_disclosure", "board_guidance", "smb_guidance", "internal_audit",
                "human_element"}
    assert set(kinds) == expected
    for fact in content.general_facts:
        assert len(fact["source"]) >= 3 and fact["url"].startswith("https://"), fact
        assert fact["year"] == 0 or 1990 <= fact["year"] <= 2030, fact


def test_every_figure_is_cited_in_its_own_text(content):
    facts = [f for ind in content.industries.values() for f in ind.facts] + list(content.general_facts)
    for fact in facts:
        for sentence in re.split(r"(?<=[.])\s+(?=[A-Z])", fact["text"]):
            if FIGURE.search(sentence):
                assert any(CITATION.search(b) for b in BRACKET.findall(sentence)), sentence


def test_general_file_fits_its_schema():
    data = read(Path(ROOT / "general.toml"), schemas.GeneralSchema())
    assert len(data["facts"]) >= 11
