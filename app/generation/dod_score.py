"""What the DoD's scoring makes of this assessment's open NIST SP 800-171 Rev. 2 requirements.

Readers of a CMMC or NIST SP 800-171 assessment were told the rule ("each open requirement takes 1, 3 or 5
points off 110 ...") and left to apply it; a reader panel did the sums itself and found that the open items ruled
out even a conditional status, which no report said. This module does the sums on the pack's `points`
(the DoD Assessment Methodology's Annex A) and says what follows, as a clause each reader's lead goes before.

Rules applied, with their sources:
- a requirement not fully met scores as NOT MET, except that 3.5.3 (multi-factor authentication) and 3.13.11
  (FIPS-validated cryptography) lose 3 rather than 5 points when implemented in part (3.5.3: for remote and
  privileged users but not general users; 3.13.11: encryption employed but not FIPS-validated); a "partly met"
  status does not say which part, so those two count as 3 to 5, and 3.13.11 "not met" too, since encryption that
  is merely not FIPS-validated is often recorded so (DoD Assessment Methodology v1.2.1, 2020, section 5(e) and
  Annex A);
- 3.12.4, the system security plan, has no points: without one no assessment is scored (ibid., Annex A);
- a Conditional Level 2 status needs a score of at least 88 of 110, with only 1-point requirements on the plan
  of action, 3.13.11 excepted when encryption is employed but not FIPS-validated, and never 3.1.20, 3.1.22,
  3.10.3, 3.10.4, 3.10.5 or 3.12.4 (32 CFR 170.21(a)(2), 2024).
Level 1 (no plan of action at all, no points) and Level 3 (its own rules over a Final Level 2) are left to the
pack's wording: the clause is said only for a CMMC assessment that is not named Level 1 or Level 3, and for a
NIST SP 800-171 one, whose score is the one posted in SPRS under DFARS 252.204-7019.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import AssessmentFacts
from .wording import join, number_word

MAXIMUM = 110
CONDITIONAL = 88
PART_CREDIT = {"3.5.3": 3, "3.13.11": 3}
NEVER_ON_PLAN = ("3.1.20", "3.1.22", "3.10.3", "3.10.4", "3.10.5", "3.12.4")
SSP = "3.12.4"
# Open, whether "not met" or "partly met", 3.13.11 may be encryption that is in place but not FIPS-validated, which
# loses 3 points rather than 5 and may wait on a plan of action: the status does not say, so both are given.
FIPS = "3.13.11"
SCORED = frozenset({"cmmc", "nist_800_171"})
OTHER_LEVEL = re.compile(r"\b(?:level|l)\s*[13]\b|\bfar 52\.204-21\b", re.I)
SOURCES = "DoD Assessment Methodology v1.2.1, 2020"
NO_AWARD = "and without one no contract that names Level 2 can be awarded"


@dataclass(frozen=True)
class Score:
    cmmc: bool
    scored: int           # open requirements that carry points
    lo: int               # points lost at least (3.5.3 and 3.13.11 partly met at 3)
    hi: int               # and at most
    whole: bool           # every scored requirement was assessed, so the score is known, not a ceiling
    ssp_open: bool        # the system security plan is open: no score at all
    blocking: tuple[str, ...]   # open requirements no plan of action may hold (CMMC)
    maybe: bool           # 3.13.11 is open: on a plan only if encryption is in place but not FIPS-validated
    single: bool          # one open requirement in all

    @property
    def ceiling(self) -> str:
        if self.whole:
            return f"{MAXIMUM - self.hi}" + ("" if self.lo == self.hi else f" to {MAXIMUM - self.lo}")
        return f"{MAXIMUM - self.lo} at most"


def score_of(facts: AssessmentFacts) -> Score | None:
    """The sums, once per assessment; None where the framework is not scored this way or nothing open is."""
    return facts.memo("dod_score", lambda: _score(facts))


def _score(facts: AssessmentFacts) -> Score | None:
    pack = facts.framework_pack
    if not pack or pack.key not in SCORED:
        return None
    cmmc = pack.key == "cmmc"
    if cmmc and OTHER_LEVEL.search(facts.framework or ""):
        return None
    open_rows, scored_ids = [], set()
    for r, info in zip(facts.requirements, facts.infos, strict=True):
        rid = pack.resolve(r.id, r.title)
        points = (info or {}).get("points")
        if points:
            scored_ids.add(rid)
        if r.status != "met" and (points or rid == SSP):
            open_rows.append((rid, r.status, points or 0))
    if not open_rows:
        return None
    return Score(
        cmmc=cmmc, scored=sum(1 for row in open_rows if row[2]),
        lo=sum(PART_CREDIT.get(rid, p) if status == "partially_met" or rid == FIPS else p
               for rid, status, p in open_rows),
        hi=sum(p for _, _, p in open_rows), whole=len(scored_ids) >= MAXIMUM - 1,
        ssp_open=any(rid == SSP for rid, _, _ in open_rows),
        blocking=tuple(rid for rid, status, p in open_rows
                       if rid in NEVER_ON_PLAN or p > 1 and rid != FIPS),
        maybe=any(rid == FIPS for rid, _, _ in open_rows),
        single=len(open_rows) == 1)


def score_clause(facts: AssessmentFacts) -> str | None:
    """For the readers who decide on the status: "the seven open requirements here take 29 to 31 points off
    CMMC's maximum of 110, so the organization would score 81 at most, and a plan of action may not hold ...",
    with what no status means for award."""
    s = score_of(facts)
    if not s:
        return None
    parts = []
    if s.scored:
        subject = (f"the {number_word(s.scored)} open requirements here take" if s.scored > 1
                   else "the open requirement here takes")
        unit = "point" if s.lo == s.hi == 1 else "points"
        whose = "CMMC's" if s.cmmc else "the SPRS"
        checked = "" if s.cmmc else ", the score contracting officers check before award"
        parts.append(f"{subject} {s.lo if s.lo == s.hi else f'{s.lo} to {s.hi}'} {unit} off {whose} maximum of "
                     f"{MAXIMUM}, so {facts.organization} would score {s.ceiling}{checked}")
    if s.cmmc:
        parts.append(_conditional(s))
    text = ", and ".join(parts)
    if s.ssp_open:
        ssp = "the system security plan (3.12.4) is open, and without one no score can be given at all"
        text = f"{ssp}; beyond it, {text}" if s.scored else ssp
    return f"{text} ({_cites(s, NO_AWARD in text)})"


def score_brief(facts: AssessmentFacts) -> str | None:
    """For those who check the status rather than decide on it (compliance, the assessor): the score the
    statuses imply and the requirements that rule out a plan of action, in few words."""
    s = score_of(facts)
    if not s:
        return None
    if s.ssp_open:   # said where the plan is: no score at all (the pack's policy rule, the open item itself)
        return None
    held = ""
    if s.cmmc and s.blocking:
        held = f"; {join(list(s.blocking))} cannot wait on a plan of action"
    elif s.cmmc:
        held = "; each open item could wait on a plan of action"
    exact = s.whole and s.lo == s.hi
    return f"{'' if exact else 'at most '}{MAXIMUM - s.lo} of {MAXIMUM}{held} ({_cites(s, False)})"


def _cites(s: Score, award: bool) -> str:
    rules = (["32 CFR 170.21, 2024"] if s.cmmc else ["DFARS 252.204-7019"]) + (["DFARS 252.204-7021"] if award else [])
    return "; ".join([SOURCES, *rules])


def _conditional(s: Score) -> str:
    """Whether a plan of action can hold the open items, so that a Conditional Level 2 status is possible."""
    if_encrypted = " (3.13.11 only if its encryption is in place but not FIPS-validated)" if s.maybe else ""
    if s.blocking:
        k = len(s.blocking)
        which = f"{number_word(k)} of them ({join(list(s.blocking))})" if not s.single else s.blocking[0]
        also = ", and may hold 3.13.11 only if its encryption is in place but not FIPS-validated" if s.maybe else ""
        return (f"a plan of action may not hold {which}{also}, so until {'it is' if k == 1 else 'they are'} "
                f"closed no Level 2 status is possible, not even a conditional one, {NO_AWARD}")
    them = "it" if s.single else "them"
    if MAXIMUM - s.lo < CONDITIONAL:
        return (f"a plan of action may hold {them}{if_encrypted}, but the score stays below the {CONDITIONAL} a "
                f"Conditional Level 2 status needs, {NO_AWARD}")
    return (f"a plan of action may hold {them}{if_encrypted}, so a Conditional Level 2 status is within reach, "
            f"provided {'it is' if s.single else 'they are'} closed and reassessed within 180 days")


def none_deferrable(facts: AssessmentFacts, indices) -> bool:
    """Whether no open requirement among these may wait on a CMMC plan of action (each is worth more than 1 point
    or barred), so CMMC's "Defer" route is not open to them."""
    s = score_of(facts)
    if not s or not s.cmmc:
        return False
    pack = facts.framework_pack
    ids = [pack.resolve(facts.requirements[i].id, facts.requirements[i].title) for i in indices
           if facts.requirements[i].status != "met"]
    return bool(ids) and all(rid in s.blocking for rid in ids)
