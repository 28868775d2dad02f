"""The assessment's one work plan: effort and weeks derived once, so every report quotes the same.

Effort per open requirement comes from the planning table in app/content/topics.toml (person-days
by topic and status: our stated assumption, printed in each report's appendix). Steps take the
topics with open requirements, lowest tier first where the framework has tiers, then topics with a
control not met before those only partly met, then in `RISK_ORDER` (sign-in, backups, patching before
the rest); each step lasts as many
weeks as one person needs for its upper estimate (five working days a week), and the next step
starts halfway through it, so the plan overlaps work the way a small team does.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..content import Topic, load
from .facts import AssessmentFacts

DAYS_PER_WEEK = 5
UNMAPPED = "governance"   # a requirement no pack or title places is priced as governance work
POLICY_SUBJECT = "governance.policy"   # the subject of requirements about written policy itself
# The order in which closing a topic's gaps cuts the most likely loss first, the order insurers' conditions of
# cover and CISA's baseline guidance put them in: sign-in (MFA), recoverable backups, patching and malware, a
# response plan, staff who spot phishing, then detection and the rest. The plan follows it within a tier.
RISK_ORDER = ("access", "backup", "vuln", "incident", "hr", "logging", "network", "encryption", "vendor",
              "governance", "asset", "change", "privacy", "sdlc", "physical")


@dataclass(frozen=True)
class Step:
    topic: Topic
    indices: tuple[int, ...]
    first_week: int
    last_week: int

    @property
    def window(self) -> str:
        return (f"Week {self.first_week}" if self.first_week == self.last_week
                else f"Weeks {self.first_week}-{self.last_week}")


@dataclass(frozen=True)
class WorkPlan:
    per_requirement: dict[int, tuple[int, int]]
    steps: tuple[Step, ...]
    policy_effort: tuple[int, int]   # (0, 0) when a documented policy exists
    # Open requirements about written policy itself (HIPAA 164.316(a)), priced as part of writing the missing policy
    # rather than a second time (the panel added the two up and found the policy counted twice).
    policy_covers: tuple[int, ...] = ()

    def effort(self, indices) -> tuple[int, int]:
        lo = sum(self.per_requirement[i][0] for i in indices)
        hi = sum(self.per_requirement[i][1] for i in indices)
        return lo, hi

    @property
    def total(self) -> tuple[int, int]:
        lo, hi = self.effort(self.per_requirement)
        return lo + self.policy_effort[0], hi + self.policy_effort[1]

    @property
    def total_range(self) -> str:
        lo, hi = self.total
        return f"{lo}-{hi}"


def main_topic(facts: AssessmentFacts, i: int) -> str:
    """The requirement's main topic (its first), the one scope rule every reader and the plan share."""
    return facts.main_topics[i]


def work_plan(facts: AssessmentFacts) -> WorkPlan:
    """The plan for this assessment, computed once and shared by its 25 reports."""
    return facts.memo("work_plan", lambda: _work_plan(facts))


def tier_ranks(facts: AssessmentFacts) -> list[int]:
    """Each requirement's tier in a tiered framework (0 for the lowest; past the last for none); all 0 else."""
    pack = facts.framework_pack
    if not pack or not pack.tier_term:
        return [0] * len(facts.requirements)
    rank = {name: n for n, name in enumerate(pack.designations)}
    return [rank.get((info or {}).get("designation", ""), len(rank)) for info in facts.infos]


def _work_plan(facts: AssessmentFacts) -> WorkPlan:
    topics = load().topics
    per: dict[int, tuple[int, int]] = {}
    by_topic: dict[str, list[int]] = {}
    covers = () if facts.has_policy else tuple(
        i for i in facts.open_order if facts.subjects[i] and facts.subjects[i].id == POLICY_SUBJECT)
    for i in facts.open_order:
        tid = main_topic(facts, i)
        t = topics[tid]
        per[i] = (0, 0) if i in covers else \
            tuple(t.effort_not_met if facts.requirements[i].status == "not_met" else t.effort_partial)
        by_topic.setdefault(tid, []).append(i)
    not_met = Counter(main_topic(facts, i) for i in facts.open_order
                      if facts.requirements[i].status == "not_met")
    # In a tiered framework the lowest tier comes first (IG1 before IG2, ML1 before ML2): topics by the lowest
    # tier they hold open, and within a topic the lower tier first.
    tier = tier_ranks(facts)
    for tid in by_topic:
        by_topic[tid].sort(key=lambda i: tier[i])
    pack = facts.framework_pack
    risk = (*pack.first_topics, *(t for t in RISK_ORDER if t not in pack.first_topics)) if pack else RISK_ORDER
    # Within a tier, a topic with a control absent (not met) comes before one whose controls are only partly in
    # place: readers rank an absent control above a partial one whatever its topic.
    order = sorted(by_topic, key=lambda tid: (min(tier[i] for i in by_topic[tid]), not not_met[tid],
                                              risk.index(tid), -not_met[tid], -len(by_topic[tid])))
    steps, start = [], 1
    policy = (0, 0)
    if not facts.has_policy:   # the policy comes first: the controls are owned and mandated by it
        policy = tuple(topics[UNMAPPED].effort_not_met)
        weeks = max(1, math.ceil(policy[1] / DAYS_PER_WEEK))
        steps.append(Step(topics[UNMAPPED], (), 1, weeks))
        start += max(1, weeks // 2)
    for tid in order:
        hi = sum(per[i][1] for i in by_topic[tid])
        weeks = max(1, math.ceil(hi / DAYS_PER_WEEK))
        steps.append(Step(topics[tid], tuple(by_topic[tid]), start, start + weeks - 1))
        start += max(1, weeks // 2)
    return WorkPlan(per, tuple(steps), policy, covers)

