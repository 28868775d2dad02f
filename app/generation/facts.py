"""What a report writer may know about an assessment, and nothing more.

`AssessmentFacts` deliberately has no company id: the partner's `companyId` must never reach
report text, so it is not handed to the engines at all. The client is named by `organization`:
the partner's `displayName`, or "the organization".

One facts object serves all 25 reports of a run, possibly from 25 threads at once. The
per-assessment work (the framework and industry packs that apply, each requirement's topics, the
work plan) is computed lazily, once, and cached on the object. `functools.cached_property` works
on a frozen dataclass without slots, because it writes straight into the instance `__dict__` and
never calls the frozen `__setattr__`; a race at worst computes the same value twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from ..content import Framework, Industry, load
from .scoring import compliance_score

STATUSES = ("met", "not_met", "partially_met")
OPEN_STATUSES = ("not_met", "partially_met")
DEFAULT_ORGANIZATION = "the organization"


def requirement_topics(pack: Framework | None, ref: str, title: str) -> tuple[str, ...]:
    """A requirement's topics, main topic first: from its id in the framework's pack, else from its title."""
    return (pack.topics_of_id(ref, title) if pack else ()) or load().topics_of_title(title)


def main_topic(topics: tuple[str, ...]) -> str:
    """The area a requirement's work belongs to: its first topic; one placed nowhere is governance work."""
    return topics[0] if topics else "governance"


@dataclass(frozen=True)
class RequirementFact:
    id: str
    title: str
    status: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"requirement {self.id!r}: status must be one of {STATUSES}, "
                             f"not {self.status!r}")


SMALL_HEADCOUNT = 250   # fewer staff than this is small: the EU's SME line, and far below IBM's surveyed companies
# "12 staff", "60 employees", "40 lawyers", "1,200 people": volunteers, beds or properties are not staff.
HEADCOUNT = re.compile(r"\b(\d{1,3}(?:,\d{3})*|\d+)\s*(?:-\s*)?(?:full-time\s+)?(?:staff|employees|people|personnel|"
                       r"workers|lawyers|attorneys|accountants|engineers|clinicians|fte)\b", re.I)


@dataclass(frozen=True)
class AssessmentFacts:
    framework: str
    industry: str
    has_policy: bool
    display_name: str | None
    requirements: tuple[RequirementFact, ...]
    # How the partner prices a person-day (their key's `dayRate` and `currency`); None: our default range.
    day_rate: int | None = None
    currency: str = "USD"
    # The day the plan starts from (the assessment's submission date), so week numbers become dates.
    as_of: date | None = None
    # What changed since the client's previous assessment (the record's `change`: counts, ids, openSince), or None.
    change: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    def __post_init__(self) -> None:
        reqs = tuple(r if isinstance(r, RequirementFact) else
                     RequirementFact(str(r["id"]), str(r["title"]), str(r["status"]))
                     for r in self.requirements)
        object.__setattr__(self, "requirements", reqs)
        object.__setattr__(self, "has_policy", bool(self.has_policy))
        name = (self.display_name or "").strip()
        object.__setattr__(self, "display_name", name or None)

    @classmethod
    def from_submission(cls, data: Mapping[str, Any]) -> AssessmentFacts:
        """From an API-shaped mapping; either spelling of framework and policy; companyId is ignored."""
        framework = data.get("framework", data.get("frameworkName"))
        if "hasPolicy" in data:
            has_policy = bool(data["hasPolicy"])
        else:
            has_policy = str(data.get("policy", "")).strip().upper() == "YES"
        return cls(framework=str(framework), industry=str(data["industry"]), has_policy=has_policy,
                   display_name=data.get("displayName"),
                   requirements=tuple(data.get("requirements", ())),
                   day_rate=data.get("dayRate"), currency=data.get("currency") or "USD",
                   as_of=date.fromisoformat(data["asOf"]) if data.get("asOf") else None,
                   change=data.get("change"))

    # ---------------------------------------------------------------- naming the client
    @property
    def organization(self) -> str:
        """How reports name the client mid-sentence."""
        return self.display_name or DEFAULT_ORGANIZATION

    @property
    def organization_at_start(self) -> str:
        """How reports name the client at the start of a sentence ("The organization")."""
        return self.display_name or "The organization"

    # ---------------------------------------------------------------- counts and score
    @cached_property
    def _counts(self) -> tuple[int, int, int]:
        met = not_met = partial = 0
        for r in self.requirements:
            if r.status == "met":
                met += 1
            elif r.status == "not_met":
                not_met += 1
            else:
                partial += 1
        return met, not_met, partial

    @property
    def met(self) -> int:
        return self._counts[0]

    @property
    def not_met(self) -> int:
        return self._counts[1]

    @property
    def partially_met(self) -> int:
        return self._counts[2]

    @property
    def total(self) -> int:
        return len(self.requirements)

    @property
    def open_count(self) -> int:
        """Requirements not fully met."""
        return self.not_met + self.partially_met

    @cached_property
    def compliance_score(self) -> float:
        return compliance_score(self.met, self.partially_met, self.total)

    def score_if_closed(self, indices: Iterable[int]) -> float:
        """The score once the requirements at these indices are met."""
        met, partial = self.met, self.partially_met
        for i in set(indices):
            status = self.requirements[i].status
            if status != "met":
                met += 1
                partial -= status == "partially_met"
        return compliance_score(met, partial, self.total)

    # ---------------------------------------------------------------- knowledge that applies
    @cached_property
    def _headcount(self) -> re.Match | None:
        return HEADCOUNT.search(self.industry or "")

    @property
    def headcount(self) -> int | None:
        """The staff count the partner's industry text gives ("Law firm, 40 lawyers", "Tax preparer, 12 staff"),
        else None: what says whether survey averages of large companies' breaches mean anything to this reader."""
        return int(self._headcount.group(1).replace(",", "")) if self._headcount else None

    @property
    def headcount_text(self) -> str:
        """The staff count as the partner wrote it ("14 staff", "85 employees"), or ""."""
        return " ".join(self._headcount.group(0).split()) if self._headcount else ""

    @property
    def small(self) -> bool:
        """Whether the partner's text says the organization has fewer than SMALL_HEADCOUNT staff."""
        return self.headcount is not None and self.headcount < SMALL_HEADCOUNT

    @cached_property
    def conditions(self) -> tuple[dict | None, ...]:
        """Each requirement's condition of applying (`Framework.conditions`: 16 CFR 314.6), or None."""
        pack = self.framework_pack
        return tuple(pack.condition_for(r.id, r.title) if pack else None for r in self.requirements)

    @cached_property
    def framework_pack(self) -> Framework | None:
        """The framework pack the partner's framework text names, or None (generic wording)."""
        return load().framework_for(self.framework)

    @cached_property
    def industry_pack(self) -> Industry | None:
        """The industry pack the partner's industry text means, or None."""
        return load().industry_for(self.industry)

    @cached_property
    def topics(self) -> tuple[tuple[str, ...], ...]:
        """Each requirement's topics, main topic first: from its framework id, else from its title."""
        return tuple(requirement_topics(self.framework_pack, r.id, r.title) for r in self.requirements)

    @cached_property
    def main_topics(self) -> tuple[str, ...]:
        """Each requirement's main topic (its first); one the topics place nowhere is governance work."""
        return tuple(main_topic(ts) for ts in self.topics)

    @cached_property
    def infos(self) -> tuple[dict | None, ...]:
        """What the framework pack knows of each requirement (its entry: what it obliges, its designation)."""
        pack = self.framework_pack
        return tuple(pack.info(r.id, r.title) if pack else None for r in self.requirements)

    @cached_property
    def subjects(self) -> tuple:
        """What each requirement is about (its `Subject`, or None), from its title and what it obliges."""
        content = load()
        return tuple(content.subject_of(r.title, (info or {}).get("obliges", ""), self.main_topics[i],
                                        (info or {}).get("title", ""))
                     for i, (r, info) in enumerate(zip(self.requirements, self.infos, strict=True)))

    # ---------------------------------------------------------------- lookups
    @cached_property
    def open_order(self) -> tuple[int, ...]:
        """Indices of open requirements: not met first, then partially met, each in input order."""
        reqs = self.requirements
        return (tuple(i for i, r in enumerate(reqs) if r.status == "not_met")
                + tuple(i for i, r in enumerate(reqs) if r.status == "partially_met"))

    @cached_property
    def open_set(self) -> frozenset[int]:
        return frozenset(self.open_order)

    @cached_property
    def _cache(self) -> dict:
        return {}

    def memo(self, key: Any, factory: Callable[[], Any]) -> Any:
        """A value computed once per assessment and shared by every report of the run."""
        cache = self._cache
        try:
            return cache[key]
        except KeyError:
            value = cache[key] = factory()
            return value
