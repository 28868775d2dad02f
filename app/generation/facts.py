"""What a report writer may know about an assessment, and nothing more.

`AssessmentFacts` deliberately has no company id: the partner's `companyId` must never reach
report text, so it is not handed to the engines at all. The client is named by `organization`:
the partner's `displayName`, or "the organization".

One facts object serves all 25 reports of a run, possibly from 25 threads at once. The
per-assessment work (normalised texts, keyword hits) is computed lazily and cached on the
object. `functools.cached_property` works on a frozen dataclass without slots, because it writes
straight into the instance `__dict__` and never calls the frozen `__setattr__`; the hit caches
are plain dicts on which a race at worst computes the same tuple twice.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .scoring import compliance_score

STATUSES = ("met", "not_met", "partially_met")
OPEN_STATUSES = ("not_met", "partially_met")
DEFAULT_ORGANIZATION = "the organization"
_NON_WORD = re.compile(r"[\W_]+")


def normalize(text: str) -> str:
    """Lowercase words separated by single spaces, padded: "A.5.15 Access-control" -> " a 5 15 access control "."""
    return " " + _NON_WORD.sub(" ", text.lower()).strip() + " "


@dataclass(frozen=True)
class RequirementFact:
    id: str
    title: str
    status: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"requirement {self.id!r}: status must be one of {STATUSES}, "
                             f"not {self.status!r}")


@dataclass(frozen=True)
class AssessmentFacts:
    framework: str
    industry: str
    has_policy: bool
    display_name: str | None
    requirements: tuple[RequirementFact, ...]

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
                   requirements=tuple(data.get("requirements", ())))

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

    # ---------------------------------------------------------------- lookups for ranking
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
    def texts(self) -> tuple[str, ...]:
        """Normalised "id title" of every requirement, for word-start stem matching."""
        return tuple(normalize(f"{r.id} {r.title}") for r in self.requirements)

    @cached_property
    def _word_index(self) -> tuple[list[str], dict[str, list[int]]]:
        """Sorted distinct words, and word -> indices of the requirements that contain it."""
        index: dict[str, list[int]] = {}
        for i, text in enumerate(self.texts):
            for word in set(text.split()):
                index.setdefault(word, []).append(i)
        return sorted(index), index

    @cached_property
    def _sorted_ids(self) -> tuple[list[str], list[int]]:
        order = sorted(range(len(self.requirements)), key=lambda i: self.ids_lower[i])
        return [self.ids_lower[i] for i in order], order

    @cached_property
    def ids_lower(self) -> tuple[str, ...]:
        return tuple(r.id.strip().lower() for r in self.requirements)

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

    def stem_hits(self, stem: str) -> tuple[int, ...]:
        """Indices (ascending) of requirements with a word that starts with `stem`; a stem with
        spaces must match consecutive words, and a trailing space demands a whole word."""
        return self.memo(("stem", stem), lambda: self._find_stem(stem))

    def _find_stem(self, stem: str) -> tuple[int, ...]:
        words, index = self._word_index
        first, _, more = stem.partition(" ")
        if " " in stem:          # the first word is whole: look it up, then check the rest
            needle = " " + stem
            return tuple(i for i in index.get(first, ()) if not more or needle in self.texts[i])
        hits: set[int] = set()
        for k in range(bisect_left(words, first), len(words)):
            if not words[k].startswith(first):
                break
            hits.update(index[words[k]])
        return tuple(sorted(hits))

    def clause_hits(self, hint: str) -> tuple[int, ...]:
        """Indices of requirements whose id is `hint` or continues it past a clause boundary
        ("a.6." matches "a.6.3"; "cc6" matches "cc6.1" but not "cc60")."""
        return self.memo(("clause", hint), lambda: self._find_clause(hint))

    def _find_clause(self, hint: str) -> tuple[int, ...]:
        ids, order = self._sorted_ids
        n, boundary, hits = len(hint), not hint[-1:].isalnum(), []
        for k in range(bisect_left(ids, hint), len(ids)):
            rid = ids[k]
            if not rid.startswith(hint):
                break
            if len(rid) == n or boundary or not rid[n].isalnum():
                hits.append(order[k])
        return tuple(sorted(hits))
