"""Content blocks: each writes one part of a report section from the facts and the persona.

A methodology stage lists block names (app.catalog); BLOCKS maps them to the writers below, and
the template engine (app.generation.template_engine) assembles their output into sections.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog import THEMES, Theme
from .facts import AssessmentFacts
from .wording import _are, _cap, _count, _join, _word

if TYPE_CHECKING:
    from .template_engine import _Report

MAX_DETAILED = 3     # named requirements that get a consequence paragraph of their own


def _theme_counts(facts: AssessmentFacts) -> list[tuple[Theme, int]]:
    """(theme, open requirements of that theme), largest first."""
    open_set, claimed, out = set(facts.open_order), set(), []
    for theme in THEMES:
        hits = {i for stem in theme.stems for i in facts.stem_hits(stem) if i in open_set} - claimed
        claimed |= hits
        if hits:
            out.append((theme, len(hits)))
    return sorted(out, key=lambda pair: -pair[1])


# ---------------------------------------------------------------------- content blocks
# Each returns (paragraphs, bullets). `r.has_gaps` is False only when every requirement is met
# and a policy exists; `r.named` is empty whenever nothing is open.

def _facts(r: _Report):
    f = r.f
    if not f.has_policy:
        policy = ("No documented policy is in place, and that absence is itself one of the gaps "
                  "this report addresses.")
    elif f.open_count:
        policy = ("A documented policy is in place, so the open items are a matter of execution "
                  "rather than intent.")
    else:
        policy = "A documented policy is in place and every requirement is met."
    where = r.counts_sentence() if not f.total else r.fill(
        f"The assessment places {{org}}, operating in {{industry}}, at {{score}}% against "
        f"{{framework}}: {f.met} met, {f.partially_met} partially met and {f.not_met} not met.")
    bullets = [f"Compliance score: {r.v['score']}%", f"Met: {f.met} of {f.total}",
               f"Partially met: {f.partially_met}", f"Not met: {f.not_met}",
               f"Documented policy: {'in place' if f.has_policy else 'absent'}"]
    if f.open_count:
        bullets.append(r.fill(f"Open requirements bearing on {{stakes}}: {r.relevant_open} of "
                              f"{f.open_count}"))
    return [f"{where} {policy} {r.fill(r.p.lens)}"], bullets


def _gaps(r: _Report):
    paragraphs, bullets, f = [], [], r.f
    n, k = len(r.named), r.n_relevant
    if n == 1:
        text = ("The one open requirement, listed below, bears directly on {stakes}." if k else
                "The one open requirement, listed below, is not squarely about {stakes}, but it "
                "will reach your desk all the same.")
    elif n:
        text = ("Ranked by their bearing on {stakes}, the open requirements listed below are the "
                "ones that matter most to you." if k >= n else
                "None of the open requirements is squarely about {stakes}, but the most serious "
                "ones, listed below, will reach your desk all the same." if k == 0 else
                f"Of the requirements listed below, the first {_word(k)} "
                f"{'bears' if k == 1 else 'bear'} directly on {{stakes}}; the others are the most "
                f"serious remaining gaps.")
    if n:
        text = r.fill(text)
        if n == f.open_count:
            text += "" if n == 1 else " They are all the open requirements."
        else:
            text += f" They are {n} of the {f.open_count} open requirements"
            text += (f"; in all, {r.relevant_open} of the {f.open_count} touch your area."
                     if r.relevant_open > k else ".")
            text += (f" The other {_count(r.rest, 'open requirement')} {_are(r.rest)} in the full "
                     f"assessment and should follow in a second wave.")
        paragraphs.append(text)
        bullets = [r.bullet(i) for i in r.named]
    elif f.total:
        paragraphs.append(r.fill("No requirement is open. Those closest to {stakes}, listed below, "
                                 "are met, and the task is to keep them that way."))
        bullets = [r.bullet(i) for i in r.top_met]
    else:
        paragraphs.append(r.fill("No requirements were assessed, so nothing can be ranked yet by its "
                                 "bearing on {stakes}."))
    if r.policy_gap:
        paragraphs.append("The missing policy is itself a gap, and the first one to close. "
                          + r.fill(r.p.policy_gap))
        bullets.insert(0, "Documented policy: absent")
    return paragraphs, bullets


def _impact(r: _Report):
    explained: set[str] = set()
    paragraphs = [r.consequence(n, i, explained) for n, i in enumerate(r.named[:MAX_DETAILED])]
    more = r.named[MAX_DETAILED:]
    if more:
        paragraphs.append(r.fill("{refs} " + ("carries" if len(more) == 1 else "carry") + " the same "
                                 "kind of exposure for {stakes}, on a smaller scale.",
                                 refs=_join([r.ref(i) for i in more])))
    if not r.named:
        paragraphs.append(r.fill(
            "Every assessed requirement is met, so the exposure is narrower but real: the controls "
            "work today without a documented mandate, and nothing ensures they survive a change of "
            "people, suppliers or priorities. For {stakes}, that is a risk of slow drift rather "
            "than sudden failure." if r.policy_gap else
            "With every requirement met, the risk that remains is drift: controls weaken quietly "
            "as people, systems and suppliers change. For {stakes}, the way to prevent it is to "
            "{maintain}."))
    return paragraphs, []


def _outcome(r: _Report):
    if not r.has_gaps:
        return [r.fill("The payoff of the current position is already yours: {outcome}. It lasts "
                       "only as long as the controls keep operating.")], []
    if not r.named:
        return [r.fill("Closing the policy gap would give you {outcome}.")], []
    what = f"the {_count(len(r.named), 'requirement')} named here" if len(r.named) > 1 else \
        "the requirement named here"
    if r.policy_gap:
        what += " and approving a documented policy"
    paragraphs = [r.fill(f"Closing {what} would lift the compliance score from {{score}}% to "
                         f"{{target}}% and give you {{outcome}}.")]
    if r.rest > 0:
        paragraphs.append(r.fill(f"Closing the remaining {_count(r.rest, 'open requirement')} would "
                                 f"take the score to 100%; the named ones come first because they "
                                 f"carry most of the weight in {{stakes}}."))
    return paragraphs, []


def _metrics(r: _Report):
    bullets = [r.fill(_cap(m)) for m in r.p.metrics]
    bullets.append(r.fill("The compliance score, from {score}% today to {target}% once the named "
                          "requirements are closed" if r.named else
                          "The compliance score, held at {score}% at every review"))
    return [r.fill("Track progress in the measures you already use for {stakes}:")], bullets


def _insight(r: _Report):
    f = r.f
    paragraphs = [r.fill(r.p.insight)]
    counts = f.memo("theme_counts", lambda: _theme_counts(f)) if f.open_count >= 3 else []
    theme, k = counts[0] if counts else (None, 0)
    if theme is not None and k >= 2 and 4 * k >= f.open_count:
        paragraphs.append(r.fill(
            f"In this assessment, {k} of the {f.open_count} open requirements concern "
            f"{theme.label}: one underlying weakness rather than {k} separate ones, and fixing it at "
            f"the root closes them together. For you, {r.relevant_open} of the open requirements "
            f"bear directly on {{stakes}}."))
    elif f.open_count >= 3 and 3 * f.partially_met >= f.open_count:
        paragraphs.append(r.fill(
            f"{f.partially_met} of the {f.open_count} open requirements are partially met. Partial "
            f"controls are the costly kind of gap: {{org}} already pays for them but cannot show "
            f"that they work, and {{stakes}} suffer as if they were absent."))
    elif not f.open_count and f.total:
        paragraphs[0] += r.fill(" This assessment found nothing open, which puts {org} ahead of "
                                "most; the point is to stay there.")
    return paragraphs, []


def _timeline(r: _Report):
    if not r.has_gaps:
        return [r.fill("To {maintain}, a light calendar is enough:")], [
            "Monthly: confirm that the routine controls ran and kept their records",
            r.fill("Quarterly: review changes in people, systems and suppliers against {framework}"),
            r.fill("Yearly: re-assess against {framework} and compare with today's {score}%")]
    not_met = [r.ref(i) for i in r.named if r.req(i).status == "not_met"]
    partial = [r.ref(i) for i in r.named if r.req(i).status == "partially_met"]
    first = ["approve and publish a documented policy"] if r.policy_gap else []
    if r.named:
        first.append("give each named requirement an owner and a target date" if len(r.named) > 1
                     else "give the named requirement an owner and a target date")
    if partial:
        first.append(f"finish and evidence {_join(partial)}, already partly in place")
    bullets = [f"Within 30 days: {'; '.join(first)}"]
    if not_met:
        bullets.append(f"Within 60 days: implement {_join(not_met)}")
    elif r.named:
        bullets.append("Within 60 days: confirm that the completed controls operate as designed, "
                       "and keep the records")
    bullets.append(f"Within 90 days: collect the evidence an auditor will ask for, re-assess, and "
                   f"schedule the remaining {_count(r.rest, 'open requirement')}" if r.rest > 0 else
                   r.fill("Within 90 days: collect the evidence and re-assess against {framework}, "
                          "expecting {target}% against today's {score}%"))
    return [r.fill(r.p.phasing)], bullets


def _decision(r: _Report):
    if not r.has_gaps:
        return [r.fill("As {role}, your decision is a light one: how to {maintain}. Keep {allies} "
                       "involved so that nothing drifts unnoticed.")], []
    text = r.fill("As {role}, the decision in front of you is {decides}. Bring in {allies} at the "
                  "start: the plan works only if they own their part of it.")
    if r.named:
        scope = (f"whether {_join([r.short(i) for i in r.named])} all go into the first phase"
                 if len(r.named) > 1 else f"when {r.short(r.named[0])} is scheduled")
        text += (f" Three decisions follow: {scope}; which budget line funds the work; and who "
                 f"formally accepts, with a review date, any named item that is not fixed.")
    if r.policy_gap:
        text += (" Approving a documented policy, and naming who maintains it, comes before all three."
                 if r.named else " The first decision is to approve a documented policy and name "
                                 "who maintains it.")
    return [text], []


def _cost(r: _Report):
    f = r.f
    if not r.has_gaps:
        return [r.fill("With nothing open, the budget question is the cost of staying here: enough "
                       "to {maintain}. That costs far less than rebuilding controls after they have "
                       "lapsed.")], []
    kinds = [(n, label, work) for n, label, work in (
        (f.not_met, "not met", "design and implementation"),
        (f.partially_met, "partially met", "mostly finishing and evidence, which is usually the "
                                           "cheaper work")) if n]
    if f.open_count == 1:
        text = f"The one open requirement is {kinds[0][1]} and needs {kinds[0][2]}. "
    else:
        text = "".join([f"Of the {f.open_count} open requirements, ", ", while ".join(
            f"{n} {_are(n)} {label} and {'needs' if n == 1 else 'need'} {work}"
            for n, label, work in kinds), ". "]) if kinds else ""
    bullets = ["Documented policy: draft and approve (small effort, high leverage)"] \
        if r.policy_gap else []
    bullets += [f"{r.ref(i)}: " + ("design and implement (larger effort)" if
                                   r.req(i).status == "not_met" else
                                   "complete and evidence (smaller effort)") for i in r.named]
    return [text + r.fill(r.p.budget_view)], bullets


def _capabilities(r: _Report):
    policy = ["Documented policy: approved by management, communicated to staff and reviewed every "
              "year"] if r.policy_gap else []
    if not r.named:
        return [r.fill(("One capability is missing, a documented policy; the others " if r.policy_gap
                        else "The capabilities ") + "behind the requirements closest to {stakes} are "
                       "in place and should stay so:")], \
            policy + r.grouped(r.top_met, "capability")
    return [r.fill("Measured against {stakes}, closing the named items means having these "
                   "capabilities in place and operating at {org}:")], \
        policy + r.grouped(r.named, "capability")


def _evidence(r: _Report):
    policy = ["Documented policy: the approved document, its approval record and proof that staff "
              "have been told"] if r.policy_gap else []
    if not r.named:
        return [r.fill("Keep the evidence current, in the form you would accept: {proof}. For the "
                       "requirements closest to you, that means:")], \
            policy + r.grouped(r.top_met, "evidence")
    return [r.fill("Closure should be proven, not asserted. The evidence you would accept is "
                   "{proof}; for each named item that means:")], policy + r.grouped(r.named, "evidence")


def _future(r: _Report):
    if not r.has_gaps:
        return [r.fill("The future state is the present one, held: every requirement met, the score "
                       "at {score}%, and {outcome}. From here the job is to {maintain}.")], []
    done = (f"{_join([r.ref(i) for i in r.named])} {_are(len(r.named))} met and evidenced"
            if r.named else "a documented policy is approved")
    if r.named and r.policy_gap:
        done += " and a documented policy is approved"
    return [r.fill("In the future state, {done}. The compliance score stands at {target}%, and you "
                   "have {outcome}.", done=done),
            r.fill("From there, staying compliant is routine work: the job becomes to {maintain}.")], []


def _buyer(r: _Report):
    return [r.fill("The economic buyer for this work is {buyer}. Whoever signs will want to see "
                   "{proof}.")], []


def _criteria(r: _Report):
    return [r.fill(f"Your standing concerns are {_join(list(r.p.concerns))}. Judge any proposal "
                   f"against these criteria:")], [r.fill(_cap(c)) for c in r.p.criteria]


def _process(r: _Report):
    if not r.has_gaps:
        bullets = [r.fill("Confirm with {allies} that the controls are still operating"),
                   r.fill("Agree the review calendar and the evidence routine for {framework}")]
    else:
        subject = "{top_short} and the other named items" if len(r.named) > 2 else "{top_short}"
        bullets = [r.fill("Validate the findings with {allies}"),
                   r.fill(f"Agree scope, owners and sequence for {subject}"),
                   "Secure approval from the economic buyer",
                   r.fill("Confirm the start date and the first review checkpoint")]
    return [r.fill("The decision to make is {decides}. A workable process from this report to the "
                   "start of work:")], bullets


def _paper(r: _Report):
    lead = ("Start the paperwork now so that it does not hold up work on {top_short}; for {stakes}, "
            "a delay here costs more than the paperwork does." if r.has_gaps else
            "Keep any paperwork proportionate; for {stakes}, a light annual agreement is enough.")
    scope = "the named requirements" if r.named else "the agreed scope"
    return [r.fill(lead)], [
        f"A statement of work covering {scope}, with acceptance criteria for each item",
        "A confidentiality agreement, and a data-processing agreement if the work touches personal "
        "data", "A purchase order through the usual procurement route, sized to the first phase"]


def _champion(r: _Report):
    tail = (" What the champion needs is a clear mandate to move {top_short} forward and visible "
            "support when priorities collide." if r.has_gaps else
            " What the champion needs is a standing mandate and a place on the agenda.")
    return [r.fill(r.p.champion + tail)], []


def _inaction(r: _Report):
    text = "The main competitor here is not another provider but the status quo. " + r.p.inaction
    if r.has_gaps:
        text += (" The other alternatives are internal delivery alone, which works when the team "
                 "has the capacity and the expertise for {top_short}, or a new tool, which closes "
                 "nothing without an owner to run it.")
    return [r.fill(text)], []


BLOCKS = {"facts": _facts, "gaps": _gaps, "impact": _impact, "outcome": _outcome,
          "metrics": _metrics, "insight": _insight, "timeline": _timeline, "decision": _decision,
          "cost": _cost, "capabilities": _capabilities, "evidence": _evidence, "future": _future,
          "buyer": _buyer, "criteria": _criteria, "process": _process, "paper": _paper,
          "champion": _champion, "inaction": _inaction}
