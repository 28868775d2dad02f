"""Effort as money and dates, for the readers who decide money (CFO, board, CEO, owner).

Person-days come from the shared work plan. A partner sets its day rate and currency on its key
(`dayRate`, `currency`); without one, a stated default range is used, with its basis printed in the
report. Weeks become dates from the day the assessment was submitted, when the run knows it.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from .facts import AssessmentFacts

MONEY_READERS = frozenset({"cfo", "board_member", "ceo_president", "small_business_owner"})
# Eight hours at the median hourly wage of US information security analysts ($60.05, May 2024) is about 480 USD;
# the range runs from one and a half times that (an employee with employer costs and overheads) to two and a half
# times (an outside specialist). Wider ranges gave readers nothing to approve (issue 28 panel).
DEFAULT_DAY_RATE = (720, 1200)
LABOUR_ONLY = "People's time only: tools, subscriptions and audit or certification fees are not included."
DEFAULT_BASIS = ("Priced at USD 720-1,200 a person-day, a default range: eight hours at the median hourly wage of US "
                 "information security analysts ($60.05, U.S. Bureau of Labor Statistics, Occupational Outlook "
                 "Handbook, May 2024 data) is about USD 480; the low end is one and a half times that, for an "
                 "employee with employer costs, the high end two and a half times, for an outside specialist. "
                 f"{LABOUR_ONLY} An assumption for budgeting, not a quote.")
BLS_SOURCE = {"source": "U.S. Bureau of Labor Statistics, Occupational Outlook Handbook: Information Security "
                        "Analysts (May 2024 wage data), 2025",
              "url": "https://www.bls.gov/ooh/computer-and-information-technology/information-security-analysts.htm"}


# Where the client is recognisably outside the US, the default range is a US benchmark, and the reports say so where
# they price (readers at a UK accountancy and a Polish software house read US wages in USD as their budget). A place
# the industry text names wins over the framework's own country.
_PLACES = (   # country names, not adjectives: an "Italian restaurant group" in New York is in the US
    (r"uk|u k|united kingdom|great britain|(?<!new )england|scotland|(?<!south )wales|northern ireland", "the UK"),
    (r"ireland", "Ireland"), (r"germany|deutschland", "Germany"), (r"france", "France"),
    (r"netherlands|holland", "the Netherlands"), (r"poland", "Poland"), (r"spain", "Spain"), (r"italy", "Italy"),
    (r"belgium", "Belgium"), (r"austria", "Austria"), (r"switzerland", "Switzerland"), (r"sweden", "Sweden"),
    (r"denmark", "Denmark"), (r"norway", "Norway"), (r"finland", "Finland"), (r"portugal", "Portugal"),
    (r"canada", "Canada"), (r"australia|new south wales", "Australia"), (r"new zealand", "New Zealand"),
    (r"india", "India"), (r"singapore", "Singapore"), (r"japan", "Japan"), (r"eu|europe|european union", "the EU"),
)
_PLACE = [(re.compile(rf"\b(?:{words})\b", re.I), place) for words, place in _PLACES]
FRAMEWORK_PLACE = {"cyber_essentials": "the UK", "essential_eight": "Australia", "nis2": "the EU", "dora": "the EU",
                   "gdpr": "the EU"}


def abroad(facts: AssessmentFacts) -> str | None:
    """Where a client outside the US is ("the UK", "Germany"), when the assessment says so and the key set no day rate
    of its own; None otherwise."""
    if facts.day_rate:
        return None

    def place() -> str | None:   # once per run: every money reader asks
        said = " ".join(re.sub(r"[^A-Za-z]+", " ", text or "") for text in (facts.industry, facts.display_name))
        named = next((place for pattern, place in _PLACE if pattern.search(said)), None)
        if named:
            return named
        key = facts.framework_pack.key if facts.framework_pack else None
        if key == "gdpr" and re.search(r"\buk\b", facts.framework, re.I):
            return "the UK"
        return FRAMEWORK_PLACE.get(key)
    return facts.memo("abroad", place)


def at_us_rates(facts: AssessmentFacts) -> str:
    """ " at US rates" after a default-priced figure for a client abroad, else "". """
    return " at US rates" if abroad(facts) else ""


def rates(facts: AssessmentFacts) -> tuple[int, int, str]:
    """(low, high, currency) per person-day."""
    if facts.day_rate:
        return facts.day_rate, facts.day_rate, facts.currency
    return DEFAULT_DAY_RATE[0], DEFAULT_DAY_RATE[1], "USD"


def money(facts: AssessmentFacts, days: tuple[int, int]) -> str:
    """ "USD 9,600-57,600" for a range of person-days. """
    lo_rate, hi_rate, currency = rates(facts)
    lo, hi = days[0] * lo_rate, days[1] * hi_rate
    return f"{currency} {lo:,}" if lo == hi else f"{currency} {lo:,}-{hi:,}"


def likely(facts: AssessmentFacts, days: tuple[int, int]) -> str:
    """The middle of the money range, to two significant figures: "USD 33,000", the figure a budget line carries."""
    lo_rate, hi_rate, currency = rates(facts)
    mid = (days[0] * lo_rate + days[1] * hi_rate) / 2
    digits = max(0, len(str(int(mid))) - 2)
    return f"{currency} {int(round(mid, -digits)):,}"


def basis_sentence(facts: AssessmentFacts) -> str:
    if facts.day_rate:
        return (f"Priced at {facts.currency} {facts.day_rate:,} a person-day, the day rate your adviser set for "
                f"this work. {LABOUR_ONLY} An assumption for budgeting, not a quote.")
    place = abroad(facts)
    if place:
        return (f"{DEFAULT_BASIS} For a client in {place} these are US rates, not local ones: the person-days are the "
                f"figure to carry over, priced at what a day of in-house or contracted security work costs there.")
    return DEFAULT_BASIS


def week_end(facts: AssessmentFacts, week: int) -> date | None:
    """The last day of a plan week, counted from the assessment's date."""
    return facts.as_of + timedelta(weeks=week) if facts.as_of else None


def when(facts: AssessmentFacts, week: int) -> str:
    """ " (by 9 December 2026)" or "" without a start date. """
    end = week_end(facts, week)
    return f" (by {end.day} {end:%B %Y})" if end else ""
