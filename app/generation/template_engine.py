"""The built-in, offline report writer.

A report combines the assessment facts (app.generation.facts), the persona (what this reader
cares about, in their words) and the methodology (which sections, in which order, and the call
to action). Each methodology stage lists content blocks; the blocks (app.generation.blocks) turn
facts and persona into paragraphs and bullets. Deterministic: no randomness, no clock.

Ranking: a requirement's relevance to a persona is the sum of the weights of the persona's
keywords found at the start of a word of its id or title (earlier keywords weigh more), plus
CLAUSE_WEIGHT per matching clause hint. Open requirements are ordered by relevance, then not met
before partially met, then input order. Up to MAX_NAMED relevant ones are named; when fewer than
MIN_NAMED are relevant, the most serious others fill up (see `_fill_order`).
"""

from __future__ import annotations

import heapq

from ..catalog import GENERAL_THEME, METHODOLOGY_BY_ID, PERSONA_BY_ID, THEMES, Persona, Stage, Theme
from .blocks import BLOCKS
from .facts import AssessmentFacts, RequirementFact
from .wording import _are, _cap, _count, _fmt_score, _join, _lower_first

MAX_NAMED = 5
MIN_NAMED = 3
CLAUSE_WEIGHT = 2
STATE = {"not_met": "is not met", "partially_met": "is only partly in place"}
STATUS_LABEL = {"not_met": "not met", "partially_met": "partially met", "met": "met"}
SPILLOVER = (  # consequence paragraphs for named requirements outside the persona's own area
    "{ref} {state}. It is not squarely about {stakes}, but it exposes {org} to {risk}, and the "
    "consequences would reach you as well.",
    "Then there is {ref}, which {state}. Although it lies outside {stakes}, the exposure to {risk} "
    "would not stop at another department's door.",
)


def keyword_weight(position: int) -> int:
    """3 for a persona's first four keywords, 2 for the next four, then 1."""
    return max(1, 3 - position // 4)


def relevance(facts: AssessmentFacts, persona: Persona) -> dict[int, int]:
    """Requirement index -> relevance to this persona; absent means 0. Cached per assessment."""
    return facts.memo(("relevance", persona.id), lambda: _relevance(facts, persona))


def _relevance(facts: AssessmentFacts, persona: Persona) -> dict[int, int]:
    scores: dict[int, int] = {}
    for position, stem in enumerate(persona.keywords):
        weight = keyword_weight(position)
        for i in facts.stem_hits(stem):
            scores[i] = scores.get(i, 0) + weight
    for hint in persona.clause_hints:
        for i in facts.clause_hits(hint):
            scores[i] = scores.get(i, 0) + CLAUSE_WEIGHT
    return scores


def theme_of(facts: AssessmentFacts, index: int) -> Theme:
    """The first theme with a stem at the start of a word of the requirement; cached."""
    return facts.memo(("theme", index), lambda: _theme_of(facts.texts[index]))


def _theme_of(text: str) -> Theme:
    for theme in THEMES:
        for stem in theme.stems:
            if " " + stem in text:
                return theme
    return GENERAL_THEME


def _fill_order(facts: AssessmentFacts) -> tuple[int, ...]:
    """Open requirements, most serious first: not met before partially met, then by how much they
    concern all readers together (relevance summed over the personas), then input order."""
    reach: dict[int, int] = {}
    for persona in PERSONA_BY_ID.values():
        for i, s in relevance(facts, persona).items():
            reach[i] = reach.get(i, 0) + s
    reqs = facts.requirements
    return tuple(sorted(facts.open_order,
                        key=lambda i: (reqs[i].status != "not_met", -reach.get(i, 0), i)))


class _Report:
    """Everything one report needs, computed once."""

    def __init__(self, facts: AssessmentFacts, persona: Persona):
        self.f, self.p = facts, persona
        reqs = facts.requirements
        scores = relevance(facts, persona)
        relevant_open = scores.keys() & facts.open_set
        ranked = heapq.nsmallest(MAX_NAMED, ((-scores[i], reqs[i].status != "not_met", i)
                                             for i in relevant_open))
        self.named = [i for _, _, i in ranked]
        self.n_relevant = len(self.named)
        if len(self.named) < MIN_NAMED and facts.open_count > len(self.named):
            for i in facts.memo("fill_order", lambda: _fill_order(facts)):
                if len(self.named) >= MIN_NAMED:
                    break
                if i not in self.named:
                    self.named.append(i)
        self.relevant_open = len(relevant_open)
        self.top_met: list[int] = []
        if not facts.open_count:
            self.top_met = [i for _, i in heapq.nsmallest(MIN_NAMED, ((-s, i) for i, s in
                                                                      scores.items()))]
            for i in range(min(facts.total, MIN_NAMED + len(self.top_met))):
                if len(self.top_met) < MIN_NAMED and i not in self.top_met:
                    self.top_met.append(i)
        self.policy_gap = not facts.has_policy
        self.has_gaps = bool(self.named) or self.policy_gap
        self.rest = facts.open_count - len(self.named)
        first = self.named[:min(2, self.n_relevant)] or self.named[:2]   # lead with relevant ones
        self.v = {"org": facts.organization, "Org": facts.organization_at_start,
                  "framework": facts.framework, "industry": facts.industry,
                  "score": _fmt_score(facts.compliance_score),
                  "target": _fmt_score(facts.score_if_closed(self.named)),
                  "open_phrase": _count(facts.open_count, "open requirement"),
                  "stakes": persona.stakes, "label": persona.label,
                  "top": _join([self.ref(i) for i in first]) or "the policy gap",
                  "top_short": _join([self.short(i) for i in first]) or "the policy gap"}
        for name in ("outcome", "ask", "maintain", "allies", "role", "buyer", "proof", "decides"):
            self.v[name] = self.fill(getattr(persona, name))
        if not self.named and self.policy_gap:
            self.v["ask"] = self.fill("approve a documented policy and name the person who "
                                      "maintains it, with {allies} involved")
        self.v["Ask"], self.v["Maintain"] = _cap(self.v["ask"]), _cap(self.v["maintain"])

    def fill(self, template: str, **extra: str) -> str:
        return template.format_map({**self.v, **extra} if extra else self.v)

    def req(self, i: int) -> RequirementFact:
        return self.f.requirements[i]

    def ref(self, i: int) -> str:
        r = self.f.requirements[i]
        return f"{r.id} {r.title}".strip()

    def short(self, i: int) -> str:
        """The id alone, for later mentions; a bare number gets a noun."""
        rid = self.f.requirements[i].id.strip()
        return f"requirement {rid}" if rid.isdigit() else rid

    def bullet(self, i: int) -> str:
        return f"{self.ref(i)} ({STATUS_LABEL[self.req(i).status]})"

    def consequence(self, n: int, i: int, explained: set[str]) -> str:
        """The n-th consequence paragraph, about requirement i, in this persona's terms."""
        theme = theme_of(self.f, i)
        risk = theme.risk_again if theme.id in explained else theme.risk
        explained.add(theme.id)
        template = (self.p.consequences[n % len(self.p.consequences)]
                    if i in self.named[:self.n_relevant]
                    else SPILLOVER[max(0, n - self.n_relevant) % len(SPILLOVER)])
        return self.fill(template, ref=self.ref(i), state=STATE[self.req(i).status], risk=risk)

    def grouped(self, indices: list[int], attr: str) -> list[str]:
        """Bullets "refs (status): theme text"; requirements of one theme share a bullet."""
        groups: dict[Theme, list[int]] = {}
        for i in indices:
            groups.setdefault(theme_of(self.f, i), []).append(i)
        return [f"{_join([self.bullet(i) for i in members])}: {getattr(theme, attr)}"
                for theme, members in groups.items()]

    def counts_sentence(self) -> str:
        f = self.f
        if f.total == 0:
            return self.fill("No requirements were included in this {framework} assessment, so "
                             "there is nothing to score yet.")
        if f.total == 1:
            return self.fill("{Org} was assessed on a single {framework} requirement, for a "
                             "compliance score of {score}%.")
        if f.met == f.total:
            return self.fill(f"{{Org}} meets all {f.total} {{framework}} requirements assessed, for "
                             f"a compliance score of {{score}}%.")
        rest = [f"{n} {_are(n)} {label}" for n, label in
                ((f.partially_met, "partially met"), (f.not_met, "not met")) if n]
        return self.fill(f"{{Org}} meets {f.met or 'none'} of the {f.total} {{framework}} "
                         f"requirements assessed, for a compliance score of {{score}}%; "
                         f"{' and '.join(rest)}.")


# A section has one bullet list, printed after its paragraphs. The last block with bullets keeps
# them; an earlier block folds its bullets into its last paragraph when they read as a list
# (FOLDABLE), and otherwise drops them (they repeat what its paragraphs already say).
FOLDABLE = frozenset({"metrics", "criteria", "process", "paper"})


class TemplateEngine:
    """Writes a report from templates and the catalogue; no network, no randomness, no clock."""

    name = "template"

    def write(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> dict:
        try:
            persona = PERSONA_BY_ID[persona_id]
            method = METHODOLOGY_BY_ID[methodology_id]
        except KeyError as exc:
            raise ValueError(f"unknown persona or methodology: {exc.args[0]!r}") from None
        r = _Report(facts, persona)
        return {"title": r.fill(persona.title if facts.open_count else persona.title_clean),
                "summary": self._summary(r),
                "sections": [self._section(r, stage) for stage in method.stages],
                "callToAction": r.fill(method.cta_style if r.has_gaps else method.cta_clean)}

    @staticmethod
    def _summary(r: _Report) -> str:
        parts = [r.counts_sentence()]
        if r.named and r.policy_gap:
            parts.append("No documented policy is in place, which is a gap in its own right.")
        if r.n_relevant == 1 or len(r.named) == 1:
            parts.append(r.consequence(0 if r.n_relevant == 0 else len(r.p.consequences) - 1,
                                       r.named[0], set()))
        elif r.named and r.n_relevant == 0:
            parts.append(r.fill("None of the open requirements is squarely about {stakes}; the most "
                                "serious are {top}, and their consequences would reach you all the "
                                "same."))
        elif r.named:
            parts.append(r.fill(r.p.summary))
        elif r.policy_gap:
            parts.append("The one gap is the absence of a documented policy. " + r.fill(r.p.policy_gap))
        elif r.f.total:
            parts.append(r.fill("Nothing is open, so the task for you is to {maintain}."))
        else:
            parts.append(r.fill(r.p.lens))
        return " ".join(parts)

    @staticmethod
    def _section(r: _Report, stage: Stage) -> dict:
        outputs = [(name, *BLOCKS[name](r)) for name in stage.blocks]
        keeper = max((k for k, (_, _, items) in enumerate(outputs) if items), default=-1)
        paragraphs: list[str] = []
        bullets: list[str] = []
        for k, (name, paras, items) in enumerate(outputs):
            if k == keeper:
                bullets = items
            elif items and name in FOLDABLE and paras and paras[-1].endswith(":"):
                paras = paras[:-1] + [f"{paras[-1]} {_join([_lower_first(b) for b in items])}."]
            paragraphs += paras
        if stage.lead and r.has_gaps:
            lead = r.fill(stage.lead)
            paragraphs[:1] = [f"{lead} {paragraphs[0]}" if paragraphs else lead]
        return {"heading": stage.heading, "paragraphs": paragraphs, "bullets": bullets}
