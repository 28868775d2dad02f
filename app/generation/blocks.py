"""Content blocks: each writes one part of a section from a reader's selection (a `Reading`).

A methodology plan (app/content/methodologies/*.toml) lists, per reader relation, its sections
and the blocks that fill each. A block returns (paragraphs, bullets) and may return nothing when
it has nothing true to say for this reader (a section keeps the blocks that wrote something).
Sentence frames here are short; the words a reader weighs come from the content files: the
persona's angles and asks, the topic texts, and sourced facts.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date

from ..content import subjects_named
from .dod_score import none_deferrable, score_brief, score_clause
from .plan import POLICY_SUBJECT, main_topic, work_plan
from .pricing import MONEY_READERS, at_us_rates, likely, money, rates, week_end, when
from .reading import (
    CONSEQUENCE_KINDS,
    FACT_TOPICS,
    FIGURE,
    KEY_POINT_MAX,
    MAX_GROUPS,
    MAX_NAMED,
    STATUS_WORD,
    Reading,
    Tier,
    audit_over_period,
    first_clause_reader,
    general_fact_ids,
    infos_of,
    interaction_allotment,
    named,
    scenario_allotment,
    subjects_of,
    tiers_of,
    topic_labels,
    why_first,
)
from .wording import cap, join, number_word, plural

Output = tuple[list[str], list[str]]
# Readers who verify the control owners' work rather than do it: their key points never call it theirs.
ASSURANCE_READERS = frozenset({"internal_auditor"})


def position(r: Reading) -> Output:
    return [r.fill(r.p.position)], []


# Who reads what of the change since the client's previous assessment (issue 34): the trend for those who answer
# for exposure and spend; regressions and what stayed open for those who run the controls; what improved, to be
# evidenced, for outside readers and auditors; what stayed open across both for counsel and compliance.
TREND_READERS = frozenset({"board_member", "ceo_president", "cfo", "small_business_owner", "investor", "coo",
                           "risk_manager", "cio"})
NEGLECT_READERS = frozenset({"general_counsel", "compliance_officer", "data_privacy_officer"})
EVIDENCE_READERS = frozenset({"external_auditor", "internal_auditor", "insurance_underwriter"})
TREND_CLAUSE = {   # what the trend means for the reader, where it differs
    "board_member": ", the trend the board's reporting should show from quarter to quarter",
    "cfo": ", and what stayed open carries into this budget",
    "ceo_president": ", and what stayed open is what customers and partners will ask about next",
    "investor": ", the direction a diligence reader weighs more than any single score",
    "small_business_owner": ", and what stayed open is where the next month's effort should go",
}


def _day(iso: str) -> str:
    d = date.fromisoformat(iso[:10])
    return f"{d.day} {d:%B %Y}"


def since_last(r: Reading) -> str | None:
    """What changed since the client's previous assessment, as this reader weighs it; None without one. Nothing is
    said that the stored change (and, for items open longer, the earlier assessments' own changes) does not hold:
    what moved is named, a change in what was assessed is said, and improved items are not filed as unchanged."""
    change = r.f.change
    if not change:
        return None
    when = f" ({_day(change['openSince'])})" if change.get("openSince") else ""
    index = {req.id.strip(): i for i, req in enumerate(r.f.requirements)}
    improved = set(change.get("improvedIds") or ())

    def named(ids, limit: int = 6) -> str:
        ids = [x for x in ids if x in index]
        shown = [r.ref(index[x]) for x in ids[:limit]] + ([f"{len(ids) - limit} more"] if len(ids) > limit else [])
        return join(shown)

    def ids(*keys: str) -> list[str]:
        return [x for key in keys for x in change.get(key) or () if x in index]

    stuck = [x for x in ids("stillOpenIds") if x not in improved]     # open then, and no better now
    score = f"the score moved from {change['scoreBefore']:g} % to {change['scoreAfter']:g} %"
    counts = [f"{change[k]} {k}" for k in ("closed", "improved", "regressed", "new") if change.get(k)]
    tally = join(counts) if counts else "no requirement changed status"
    extra = " ".join(x for x in (_scope(change, named, ids), _stalled(change, named, index)) if x)
    extra = f" {extra}" if extra else ""
    if r.p.id in TREND_READERS:
        n = change.get("stillOpen") or 0
        still = f"; {n} {'was' if n == 1 else 'were'} open then and {'is' if n == 1 else 'are'} open still" if n else ""
        moved = "".join(f" {words}: {named(ids(key))}." for key, words in (("closedIds", "Closed since then"),
                                                                         ("regressedIds", "Worse than then"))
                        if ids(key))
        return f"Since the last assessment{when}, {score}: {tally}{still}{TREND_CLAUSE.get(r.p.id, '')}.{moved}{extra}"
    if r.p.id in NEGLECT_READERS:
        if not change.get("stillOpen") and not change.get("regressed"):
            return f"Since the last assessment{when}, {score}, and nothing open then is open still.{extra}"
        parts = []
        if stuck:
            parts.append(f"open at the last assessment{when} and no better now: {named(stuck)}")
        if improved & set(ids("stillOpenIds")):
            parts.append(f"better but still open: {named(ids('improvedIds'))}")
        if change.get("regressed"):
            parts.append(f"worse than then: {named(ids('regressedIds'))}")
        neglect = ("; a gap left open across assessments is the kind a regulator, an auditor or a claimant reads as "
                   "known and not acted on") if set(ids("stillOpenIds")) else ""
        return cap("; ".join(parts)) + neglect + "." + extra
    if r.p.id in EVIDENCE_READERS:
        parts = [f"since the last assessment{when}, {score}"]
        if change.get("closed") or change.get("improved"):
            parts.append(f"recorded as better: {named(ids('closedIds', 'improvedIds'))}, each to be evidenced as "
                         f"operating")
        if change.get("regressed"):
            parts.append(f"worse: {named(ids('regressedIds'))}")
        return cap("; ".join(parts)) + "." + extra
    parts = []
    if change.get("regressed"):
        parts.append(f"worse than at the last assessment{when}: {named(ids('regressedIds'))}")
    if improved & set(ids("stillOpenIds")):
        parts.append(f"better but still open: {named(ids('improvedIds'))}")
    if stuck:
        parts.append(f"open then and no better now: {named(stuck)}")
    if parts:
        return cap("; ".join(parts)) + "." + extra
    return f"Since the last assessment{when}, {tally}.{extra}"


def _scope(change, named, ids) -> str:
    """That the two scores cover different requirements, when they do: what is new, and how many are no longer
    assessed. Those are counted, never named: their ids are the earlier assessment's, and once it is erased
    nothing of it may survive in these reports beyond the counts (app/progress.py)."""
    new, dropped = ids("newIds"), change.get("dropped") or 0
    if not new and not dropped:
        return ""
    parts = []
    if new:
        parts.append(f"{named(new)} {'is' if len(new) == 1 else 'are'} assessed for the first time")
    if dropped:
        parts.append(f"{dropped} requirement{'s' if dropped != 1 else ''} assessed last time "
                     f"{'is' if dropped == 1 else 'are'} not assessed now")
    return f"The two scores do not cover the same requirements: {join(parts)}."


def _stalled(change, named, index) -> str:
    """The open items open at every assessment for longer than the last one: since when, earliest first."""
    last = change.get("openSince")
    by_date: dict[str, list[str]] = {}
    for ref, since in (change.get("openSinceById") or {}).items():
        if last and since and since < last and ref in index:
            by_date.setdefault(since, []).append(ref)
    return " ".join(f"Open at every assessment since {_day(since)}: {named(refs)}."
                    for since, refs in sorted(by_date.items()))


def assumption(r: Reading) -> Output:
    paras = [f"{r.fill(r.p.assumption)} {r.fill(r.p.insight)}"]
    cluster = _cluster(r)
    if cluster and cluster[0].id == r.p.topics[0] and r.relation == "decision_maker":
        topic, k = cluster
        paras.append(f"In this assessment the open items cluster: {k} of {r.f.open_count} concern "
                     f"{topic.label}, which makes them one weakness to fix at the root rather than {number_word(k)} "
                     f"separate tasks.")
    return paras, []


def _cluster(r: Reading):
    """The topic holding at least a quarter (and two) of all open items, if any; computed once."""
    def find():
        counts = Counter(ts[0] for i, ts in enumerate(r.f.topics) if ts and i in r.f.open_set)
        if not counts:
            return None
        tid, k = counts.most_common(1)[0]
        return (r.content.topics[tid], k) if k >= 3 and 3 * k >= r.f.open_count else None
    return r.f.memo("cluster", find)


# Who reads the tier standing argued in the body, in their own lead-in, with its counts (and, for the two who
# act on it, what the tiers mean); every reader has it among the key points at the top of the report.
TIER_LEAD = {"ciso": "Measured by {term}", "compliance_officer": "Read against the {framework} {terms}",
             "external_auditor": "By {term}, as recorded",
             "insurance_underwriter": "By {term}, on the statuses reported"}
TIER_NOTE_READERS = frozenset({"ciso", "compliance_officer"})
# Their lead-in to the points the open items cost where the framework scores by points (CMMC, NIST SP 800-171).
# The deciding readers have it with what it means for award (`_deliverable_note`).
SCORE_LEAD = {"compliance_officer": "The score these statuses would enter in SPRS is",
              "external_auditor": "Scored from the statuses as recorded, the assessment would reach"}


def tier_standing(r: Reading) -> str | None:
    """Which tier of a tiered framework the assessment reaches (CIS Implementation Group, Essential Eight
    maturity level, CMMC level), with the counts behind it and what the tiers mean; None without tiers."""
    tiers, reached = tiers_of(r.f)
    if not tiers or r.p.id not in TIER_LEAD:
        return None
    fw = r.framework
    # "the CMMC levels", not "the CMMC CMMC levels": a tier term may carry the framework's name already.
    lead = TIER_LEAD[r.p.id].replace("{framework} ", "") if fw.short in fw.tier_term else TIER_LEAD[r.p.id]
    intro = r.fill(lead, term=fw.tier_term, terms=plural(fw.tier_term))
    items = plural(r.item_term)

    def count(t: Tier) -> str:   # "5 of the 15 IG1 safeguards assessed are met"
        if t.own_assessed == 1:
            return f"the one {t.name} {r.item_term} assessed is {'met' if t.own_met else 'not met'}"
        return f"{t.own_met} of the {t.own_assessed} {t.name} {items} assessed {'is' if t.own_met == 1 else 'are'} met"
    first = tiers[0]
    # "Reached" is claimed only for what was assessed: a tier can be a formal status (a CMMC level needs its own
    # assessment and affirmation), which one partner's assessment does not confer.
    if reached:
        lead = f"{intro}, every {r.item_term} assessed up to {reached} is met at {r.slots['org']}"
    else:
        lead = f"{intro}, {r.slots['org']} does not yet reach {first.name}: {count(first)}"
    covered = join([f"{t.own_assessed} of {t.name}'s {t.own_in_pack}" for t in tiers])
    higher = [count(t) for t in tiers[1:]] if not reached else []
    # One sentence, so the readers who share the counts do not share a sentence.
    above = f", and above {first.name}, {join(higher)}" if higher else ""
    text = f"{lead}; the assessment covered {covered}{above}."
    return text + (f" {r.fill(fw.tier_note)}" if r.p.id in TIER_NOTE_READERS else "")


def score_standing(r: Reading) -> str | None:
    """The score the statuses imply, in brief, for the readers who check the status (CMMC, NIST SP 800-171: whether
    or not the framework has tiers); the deciding readers have it with what it means for award."""
    brief = score_brief(r.f) if r.p.id in SCORE_LEAD else None
    return f"{SCORE_LEAD[r.p.id]} {brief}." if brief else None


def tier_point(r: Reading) -> str | None:
    """The tier standing as a key point."""
    tiers, reached = tiers_of(r.f)
    if not tiers:
        return None
    if reached:
        return f"Every {r.item_term} assessed up to {reached} met"
    first = tiers[0]
    k = first.assessed - first.met
    return f"{first.name} not yet reached: {k} of its {first.assessed} assessed {plural(r.item_term)} open"


def findings(r: Reading) -> Output:
    tier = tier_standing(r)
    if r.all_met:
        paras, bullets = _findings_all_met(r)
        return ([paras[0], tier, *paras[1:]] if tier and paras else paras), bullets
    paras = [policy_finding(r)] if r.policy_first else []
    paras += [p for p in (tier, score_standing(r), policy_held(r)) if p]
    # Counsel reads first what the open items mean for what can be certified or reported; the others after
    # the areas that are theirs.
    note = _deliverable_note(r) if _gets_deliverable(r) else None
    if note and r.p.id in COUNSEL_FIRST:
        paras.append(note)
    if not r.groups:
        if not paras:
            paras.append("Nothing open falls in your area.")
        return paras + _met_findings(r), []
    # The reader's own topics are argued, in the plan's order, each with the reader's stake in it; the rest of
    # the assessment is listed, each requirement with its status, so nothing open is out of view.
    # Readers of the whole assessment have the first groups of the shared plan argued, so "first to close" is
    # always among them; area readers have their own (their groups are their own topics already).
    own, unargued = [], []
    for g in r.groups[:MAX_GROUPS]:
        text = _group_finding(r, g, first=not own)
        if text:
            own.append(text)
        else:
            unargued.append(g)
    rest = unargued + list(r.groups[MAX_GROUPS:])
    paras += own + r.interactions()
    if note and r.p.id not in COUNSEL_FIRST:
        paras.append(note)
    standing = _standing_fact(r)
    if standing:
        paras.append(standing)
    if "exposure" not in r.plan_blocks:
        paras += [c for c in [_cost_sentence(r)] if c]
    bullets = []
    if rest or r.unargued:   # the whole assessment stays in view: the reader's areas argued, the rest listed last
        # already in the policy finding, or in what two requirements mean together ("Data backup plan is met, but
        # Disaster recovery plan is partly met: ..."), which a panel then read again under "Also open"
        told = set(policy_items(r)) | {i for _, _, opened in interaction_allotment(r.f, r.methodology).get(r.p.id, [])
                                       for i in opened}
        order = {i: n for n, i in enumerate(i for s in work_plan(r.f).steps for i in s.indices)}   # as the heading says
        bullets = _listed(r, sorted([*(i for i in r.unargued if i not in told),
                                     *(i for g in rest for i in g.indices if i not in told)],
                                    key=lambda i: order.get(i, len(order))))
        # outside readers have no plan to follow (the order is the plan's all the same, unsaid); one item has no order
        order_said = "" if r.relation == "outside_reader" or len(bullets) < 2 else ", in plan order"
        if bullets:
            paras.append(f"Also open{order_said}:" if own else r.fill(f"Open at {{org}}{order_said}:"))
    return paras, bullets


# How each methodology introduces the framework or industry fact the run gave this reader (`_standing_fact`): a lead
# of its own, so one reader's fact is not the same sentence under every methodology; none names a sales stage.
STANDING_LEAD = {"spin": "For context", "challenger": "Worth knowing", "meddpicc": "On the record",
                 "bant": "Background", "sandler": "One point of fact", "gap_selling": "Behind the numbers",
                 "value_selling": "In the rules", "solution_selling": "Relevant here",
                 "consultative_selling": "As the rules stand", "command_of_message": "The reference point"}


# A requirement-level rule (`technical`) is the requirement's own note's to say, to one reader of the run. A proposal
# is quoted as the pack words it, a draft that changes no obligation yet (panel: a dialysis center's compliance
# officer was never told of the 2025 proposed HIPAA Security Rule, which would make MFA and encryption required).
NOT_STANDING = frozenset({"technical"})


def _told_in_notes(r: Reading, text: str) -> bool:
    """Whether a fact says what a note of the run says already (four words in a row in common: "the Security Risk
    Assessment Tool"): each note is told to one reader, and the fact would tell it to a second."""
    def grams(t: str) -> set[tuple[str, ...]]:
        # a citation's run of short tokens ("pci dss v4 0 1") is not something said: a run counts only with two words
        words = re.findall(r"[a-z0-9]+", t.lower())
        return {run for run in (tuple(words[i:i + 4]) for i in range(len(words) - 3))
                if sum(len(w) > 3 and w.isalpha() for w in run) >= 2}

    def notes() -> set[tuple[str, ...]]:
        told: set[tuple[str, ...]] = set()
        for note in (r.industry.subject_notes.values() if r.industry else ()):
            told |= grams(note)
        for info in infos_of(r.f):
            told |= grams((info or {}).get("matters", ""))
        return told
    return bool(grams(text) & r.f.memo("note_grams", notes))


def _standing_fact(r: Reading) -> str | None:
    """The first sourced fact the run gave this reader (the framework's or industry's own rule, deliverable, scope or
    threat: `allot_facts`) that no other block of this report will quote: the exposure section quotes consequences
    and figures, a scenario a fact about its own kind of failure. Panels found the packs' regime facts (DFARS
    7012's 72-hour report, HIPAA's breach-notice clock, SDWA 1433) never reached the template reports. General facts
    are not the client's rules: NIST's quick-start guide to the CSF read as spliced on to a PCI DSS grocer's owner."""
    general = general_fact_ids(r.f)
    for fact in r.facts_for():
        kind = fact["kind"]
        if id(fact) in general:
            continue
        if kind in NOT_STANDING or kind in FACT_TOPICS or kind == "deliverable" and _gets_deliverable(r):
            continue
        if "exposure" in r.plan_blocks and (kind in CONSEQUENCE_KINDS or FIGURE.search(fact["text"])):
            continue
        if _told_in_notes(r, f"{fact['text']} {fact.get('source', '')}"):
            continue
        lead = STANDING_LEAD.get(r.methodology, "For context")
        return f"{lead}: {_lower_first(_as_one(r.cite(fact)), r)}."
    return None


POLICY_STEP = "writing the missing security policy"   # the plan's first step when no policy exists


COUNSEL_FIRST = frozenset({"general_counsel"})


# Who reads the cost in the body; the board and the chief executive read it in their key points.
PAYER = frozenset({"cfo", "small_business_owner"})


def _cost_sentence(r: Reading) -> str | None:
    """What closing the open items costs, for the readers who decide money, where no effort section says it."""
    if r.p.id not in PAYER or "effort" in r.plan_blocks or r.all_met:
        return None
    plan = work_plan(r.f)
    last = max((s.last_week for s in plan.steps), default=0)
    # Short sentences, a figure each, as a budget line reads; the basis is in the appendix.
    end = week_end(r.f, last)
    return " ".join([f"Cost to close: about {likely(r.f, plan.total)}{at_us_rates(r.f)}.",
                     f"Range: {money(r.f, plan.total)}, people's time only.",
                     f"Work: {plan.total_range} person-days over {last} {'week' if last == 1 else 'weeks'}.",
                     *([f"Finish: {end.day} {end:%B %Y}."] if end else []), *filter(None, [_unpriced(r)]),
                     "Basis: see the appendix."])


def _unpriced(r: Reading) -> str | None:
    """What the labour figure leaves out, named for this assessment: the outside spend its open areas commonly
    bring and the fee for the framework's deliverable (readers found "people's time only" with a managed detection
    service the report itself called necessary)."""
    spend = list(dict.fromkeys(g.topic.spend for g in r.groups if g.topic.spend))[:3]
    fee = r.framework.audit_fee if r.framework else ""
    items = spend + ([fee] if fee else [])
    if not items:
        return None
    # worded by reader and methodology: the same list under one lead in several reports reads as shared text
    turn = METHOD_TURN.get(r.methodology, 0) + (r.p.id == "small_business_owner")
    return f"{UNPRICED_LEADS[turn % len(UNPRICED_LEADS)]} {join(items)}."


UNPRICED_LEADS = ("Not in the figure, and to budget separately:", "On top of that, expect to pay for",
                  "The figure leaves out", "Budget separately for")


MAX_LISTED = 12   # requirements listed as bullets in the body; the appendix lists every one


def _listed(r: Reading, indices: list[int]) -> list[str]:
    """Requirements as list items with their own status, at most MAX_LISTED, then how many more."""
    items = [f"{r.list_ref(i)}: {STATUS_WORD[r.f.requirements[i].status]}" for i in indices[:MAX_LISTED]]
    rest = len(indices) - MAX_LISTED
    return items + ([f"{rest} more, in the appendix"] if rest > 0 else [])


# Who is told what open items mean for the certificate, attestation or report that customers read.
DELIVERABLE_READERS = frozenset({"ceo_president", "board_member", "cfo", "small_business_owner", "general_counsel",
                                 "investor"})
# Frameworks whose result is a document customers and acquirers read (attestation, certificate, ROC/SAQ):
# there finance and the owner are told too.
# A decision to accept a risk rather than fix it ("accepts it with a written reason", "formal risk acceptance",
# "exceptions to accept"), not evidence or an action plan someone accepts.
RISK_ACCEPTANCE = re.compile(r"\baccepts?\b.*\b(?:transfer|insur)|\b(?:transfer|insur)\w*\b.*\baccept|risk acceptance"
                             r"|exceptions to accept")
ATTESTED = frozenset({"soc2", "iso27001", "pci_dss", "cmmc", "cyber_essentials", "tisax", "hitrust", "sox_itgc"})


# Why a missing written security policy comes first, for each reader who hears of it first.
POLICY_WHY = {
    "small_business_owner": "it need not be long, but it is what tells the staff and the IT provider what is "
                            "expected of them and what a partner or insurer is shown when they ask",
    "ceo_president": "it is the instrument through which you give every control its mandate and its owner, and "
                     "the first document a regulator, insurer or acquirer asks to see",
    "general_counsel": "it is the first document a regulator, a claimant's counsel or a court asks for to judge "
                       "whether {org} took reasonable care, and without it each control is an undocumented habit",
    "compliance_officer": "every control test, exception and evidence request is measured against it, so "
                          "without it there is no agreed standard to monitor",
    "internal_auditor": "it supplies the criteria that audit work tests against, so its absence is a finding in "
                        "itself and leaves every other test without an approved benchmark",
    "external_auditor": "management's own criteria are missing, so the controls recorded as met rest on no "
                        "approved mandate, and its absence is a finding to weigh before any other",
}


POLICY_RULE_READERS = frozenset({"general_counsel", "compliance_officer", "internal_auditor", "external_auditor"})

# What a documented security policy means for the open items, for the readers told first when it is missing: four
# panels found that no report used `policy` YES, though an auditor's first request and counsel's first exposure
# turn on it. {n} is the number of open items, {items} "open items" or the framework's own term.
POLICY_HELD = {
    "small_business_owner": "You have a written security policy; where it already covers one of the {n} open {items}, "
                            "the item is a rule you set that day-to-day practice has not caught up with, and where it "
                            "does not, the policy needs a line for it",
    "ceo_president": "{Org} has a documented security policy; where it covers the {n} open {items}, it is your "
                     "mandate as chief executive to give each one an owner and a date, and where it is silent on one, "
                     "the policy is the place to set the rule",
    "general_counsel": "{Org} has a documented security policy, and that cuts both ways: it shows intent, but where it "
                       "covers one of the {n} open {items}, the gap between what {org} wrote and what it does is the "
                       "first thing a regulator or a claimant's counsel reads",
    "compliance_officer": "{Org} has a documented security policy, so the first check is which of the {n} open {items} "
                          "it covers: those are gaps between what {org} committed to in writing and what it does, each "
                          "needing an owner under the policy, and the rest are requirements the policy does not yet "
                          "address",
    "internal_auditor": "A documented security policy exists, so the audit has approved criteria to test against: "
                        "its owner, last review date and which of the {n} open {items} it covers are the first things "
                        "to confirm, since an item it covers departs from {org}'s own policy as well as from "
                        "{framework}",
    "external_auditor": "A documented security policy exists, so management's own criteria are stated: it is the "
                        "first document to request, to see which of the {n} open {items} it addresses, since the "
                        "assessment records only that the policy exists, not what it covers",
}
# The same point in other words under the other methodologies, for the readers whose reports are short enough that
# one shared sentence makes their SPIN and other reports too alike.
POLICY_HELD_TURNED = {
    "ceo_president": "With a documented security policy in place, those of the {n} open {items} it covers are not new "
                     "rules but places where {org} does not yet do what its own policy says, and giving each an owner "
                     "and a date is yours to require",
    "general_counsel": "A documented security policy shows {org} meant to take care, yet where it covers the {n} "
                       "open {items}, they are the distance between that written intent and practice, and that "
                       "distance is what a regulator or a claimant's counsel asks about first",
}


def policy_held(r: Reading) -> str | None:
    """What the documented security policy means for the open items, for the readers it concerns first."""
    if r.policy_gap or r.all_met or r.p.id not in POLICY_HELD:
        return None
    n = r.f.open_count
    text = (POLICY_HELD_TURNED.get(r.p.id) if METHOD_TURN.get(r.methodology, 0) else None) or POLICY_HELD[r.p.id]
    return cap(r.fill(text, n=str(n), items=plural(r.item_term) if n != 1 else r.item_term)) + "."


def policy_items(r: Reading) -> list[int]:
    """The open requirements about written policy itself ("Policies and procedures", 164.316(a)): where no
    policy exists, they are told in the policy finding, not argued again in the governance group."""
    if not r.policy_first:
        return []
    subjects = subjects_of(r.f)
    return [i for i in r.f.open_order if subjects[i] and subjects[i].id == POLICY_SUBJECT]



def policy_finding(r: Reading) -> str:
    """The missing written security policy, first for the readers who answer for policy, with the open
    requirements it bears on directly."""
    rule = r.framework.policy_rule if r.framework else ""
    items = policy_items(r)
    # the requirements about written policy are open for the same reason, so they are said in the same breath
    also = f", and {join([r.item_clause(i, with_obligation=False) for i in items[:MAX_NAMED]])}" if items else ""
    text = f"{r.slots['Org']} has no documented security policy{also}; for you that comes first: " \
           f"{r.fill(POLICY_WHY[r.p.id])}"
    # what the framework itself requires of written policy, for the readers who test or answer for it (in the same
    # sentence as their own reason: said alone, the rule would read the same in four reports)
    if rule and r.p.id in POLICY_RULE_READERS:
        text = f"{text}; {_lower_first(_as_one(r.fill(rule)), r)}"
    return f"{text}."


def _lower_first(text: str, r: Reading | None = None) -> str:
    """ "The Security Rule requires" -> "the Security Rule requires"; "HIPAA requires" and a framework's own
    name ("Cyber Essentials requires") stay."""
    names = (r.framework.short, r.framework.name) if r and r.framework else ()
    if _acronym(text.split(" ", 1)[0]) or any(n and text.startswith(n) for n in names):
        return text
    return text[:1].lower() + text[1:]


# A requirement and the reader's reason, once the methodology's own connective has been used in the report: taken by
# the requirement's place, so neighbours read differently, and turned under each methodology, so one reader's reports
# under SPIN and another methodology do not read the same sentence.
PLAIN_FINDINGS = ("{Item}; {angle}.", "{Item}, which matters because {angle}.",
                  "{Item}: {angle}.", "{Item}; in practice, {angle}.")
PLAIN_KIND = {"operations": "{Item}; once in place, {angle}.", "evidence": "{Item}; evidence of it: {angle}."}
# What a control asks of staff is often its burden ("carry a phone or key for every sign-in"): never said as a reason
# ("it is needed because employees must carry a phone"); turned like PLAIN_FINDINGS, so methodologies differ.
PEOPLE_FINDINGS = ("{Item}; on the staff side, {angle}.", "{Item}; for staff, {angle}.",
                   "{Item}; in day-to-day practice, {angle}.", "{Item}; among staff, {angle}.")
METHOD_TURN = {"spin": 0, "challenger": 1, "sandler": 2, "meddpicc": 3, "bant": 1, "value_selling": 2,
               "gap_selling": 3, "solution_selling": 1, "consultative_selling": 2, "command_of_message": 3}


def _no_colon(text: str) -> str:
    """The text's own colons outside brackets as semicolons, so it can follow "is not met:"; a cited title keeps its
    colon ("(HHS, Fact Sheet: Ransomware and HIPAA, 2016)")."""
    out, depth = [], 0
    for n, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        out.append(";" if ch == ":" and depth == 0 and text[n + 1:n + 2] == " " else ch)
    return "".join(out)


def _plain_finding(r: Reading, i: int) -> str:
    """The connective for requirement i: by its place in the assessment, so neighbours differ, turned by methodology."""
    return PLAIN_FINDINGS[(METHOD_TURN.get(r.methodology, 0) + i) % len(PLAIN_FINDINGS)]


def _group_finding(r: Reading, group, first: bool = True) -> str | None:
    """One topic's open requirements, argued one by one: each requirement that this reader has a reason for
    (`Reading.why`: the reader's angle mainly about the requirement's subject, an industry note, or one of the
    subject's own reasons) gets a
    sentence with that reason, its status and, where the pack knows it, what it obliges; the others of the
    topic are named in the last sentence. None when no requirement of the topic has a reason (the caller lists
    it): a topic-level argument is never joined to a requirement it is not about.

    Each sentence carries the reader's own words or is short, so reports of the same run do not share it."""
    # What a requirement obliges is spelled out for the readers who build or test it, and for a decision maker
    # on the first item; the appendix gives it for every open requirement.
    explain = r.relation != "decision_maker" or first
    sentences, bare = [], []
    told = set(policy_items(r))   # already in the policy finding
    shown = [i for i in group.indices if i not in told][:2]
    for i in shown:
        why = r.why(i)
        sub = subjects_of(r.f)[i]
        if why is None:
            # the reader's own first concern (a privacy officer's "Privacy and protection of PII") is never only
            # listed: with no reason of this reader's for it, it is said with what the framework asks, and no more.
            # (Not for every reader of the whole assessment: a dozen reports would share the sentence.) Nor is the
            # item the report calls first to close, where it opens the reader's first area (a panel's IT director
            # read "First to close: CC6.3" and found it only as a bullet under "Also open").
            core = ((main_topic(r.f, i) == r.p.topics[0] and r.f.requirements[i].status == "not_met")
                    or (first and not sentences and i == r.first_item
                        and first_clause_reader(r.f, r.methodology, i) == r.p.id))
            clause = r.item_clause(i) if core else ""
            if clause and clause != r.item_clause(i, with_obligation=False):
                r.argued_items.append(i)
                sentences.append(cap(clause))
            else:
                bare.append(i)
            continue
        r.argued_items.append(i)
        clause = r.item_clause(i, with_obligation=explain and not sentences)
        # framed by the topic the reason is about: the angle's, or the subject's (CC9.1 argued as risk treatment is
        # governance, whatever topic the pack files it under)
        reason, tid = why[0].rstrip("."), why[1] or (sub.topic if sub else main_topic(r.f, i))
        label = r.content.topics[tid].label
        if why[2] == "people":
            form = PEOPLE_FINDINGS[(METHOD_TURN.get(r.methodology, 0) + i) % len(PEOPLE_FINDINGS)]
        elif why[2] in ("operations", "evidence"):   # not a reason: what the working control looks like, or its test
            form = r.plan.finding_operations if why[2] == "operations" else r.plan.finding_evidence
        elif sentences or label in r.leads or why[2] == "framework":
            # the topic was argued already (by this group's first sentence, or by an earlier group whose requirement
            # argues the same topic), or the reason is the framework's rule about this requirement
            form = r.plan.finding_next
        else:
            r.leads.add(label)
            form = r.plan.finding
        # a connective said once reads as a voice, said four times as a template ("it matters to you because" and
        # "and that matters to you because" are one voice)
        voice = "voice" if form in (r.plan.finding, r.plan.finding_next) else form
        if why[2] == "people":
            pass   # its forms are turned already, and none of them is a reason
        elif voice in r.voiced:   # what a working control looks like, or its test, is never said as a reason
            form = PLAIN_KIND.get(why[2]) or _plain_finding(r, i)
        else:
            r.voiced.add(voice)
        angle = _lower_first(reason, r)
        if form.startswith("{Item}:"):   # never a second colon: "is not met: ... since 31 March 2025: the mechanism"
            angle = _no_colon(angle)
        sentences.append(r.fill(form, item=clause, Item=cap(clause), angle=angle, Angle=cap(angle)).rstrip("."))
    policy = f"{r.slots['Org']} has no documented security policy." if group.policy else ""
    if not sentences:
        if policy:   # the policy is said; the area's open requirements are listed with the rest
            r.unargued += [i for i in group.indices if i not in told]
        return policy or None
    # the area's other open items are listed with the rest of the assessment, each with its status
    r.unargued += bare + [i for i in group.indices if i not in shown and i not in told]
    return " ".join(filter(None, [policy, *(s + "." for s in sentences)]))


DELIVERABLE_LEAD = {
    "ceo_president": "What you can promise {served_and_partners} rests on what they read",
    "board_member": "What the board can rely on, and report outward, rests on what outsiders read",
    "cfo": "For finance, the open items show up in the document that revenue and renewals depend on",
    "small_business_owner": "Beyond the day-to-day risk, the open items matter to whoever checks on {org}",
    "general_counsel": "For counsel, the first question is what {org} can truthfully certify or report",
    "investor": "For value, the open items count in what acquirers, regulators and partners read of {org}",
}


def _as_one(text: str) -> str:
    """Sentences joined into one, so a lead clause carries the whole note."""
    parts = [s.strip().rstrip(".") for s in re.split(r"(?<=\.)\s+(?=[A-Z])", text.strip()) if s.strip()]
    return "; ".join(p if not n or _acronym(p.split(" ", 1)[0]) else p[:1].lower() + p[1:] for n, p in enumerate(parts))


def _acronym(word: str) -> bool:
    """ "HIPAA", "SOC", "ISO/IEC" keep their capitals mid-sentence; "A" and "The" do not."""
    return len(word) > 1 and word[:2].isupper()


def _deliverable_note(r: Reading) -> str | None:
    """What the open items mean for the document customers, acquirers or regulators read."""
    note = r.framework.open_items_mean if r.framework else ""
    if note and r.framework.open_items_mean_as_of and not audit_over_period(r.f):
        note = r.framework.open_items_mean_as_of   # a SOC 2 Type 1 report has no period and no tests of operation
    if not note:
        return None
    # a framework may word the lead for this reader (a SOX company's CFO certifies; revenue is not the point)
    lead = r.fill(r.p.deliverable_lead or DELIVERABLE_LEAD[r.p.id])
    scored = score_clause(r.f)
    if scored:
        # The rule applied to this assessment's open items (with what no status means for award) stands in for
        # the note; counsel also reads its last sentence, the False Claims Act exposure of an untrue affirmation.
        rest = re.split(r"(?<=\.)\s+(?=[A-Z])", r.fill(note).strip())[1:]
        fca = f"; {_lower_first(rest[-1].rstrip('.'), r)}" if rest and r.p.id in COUNSEL_FIRST else ""
        return f"{lead}: {scored}{fca}."
    return f"{lead}: {_lower_first(_as_one(r.fill(note)), r)}."


def _findings_all_met(r: Reading) -> Output:
    if not r.f.total:
        return ["No requirements were assessed, so there is nothing in your area to report on yet."], []
    if not r.met_mine:
        mine = topic_labels([r.content.topics[t] for t in r.p.topics])
        return [r.fill(f"Every requirement in scope at {{org}} is met, and none of them concerns {mine} directly.")], []
    lead = r.fill(f"At {{org}}, all {r.f.total} are met.")   # short: the counts are on the summary card
    return [lead, *_met_findings(r)], []


def _met_findings(r: Reading) -> list[str]:
    """The met requirements of the reader's topics, each topic with the reader's stake in keeping it."""
    paras: list[str] = []
    for tid in r.p.topics:
        ix = tuple(i for i in r.met_mine if main_topic(r.f, i) == tid)
        if not ix or len(paras) >= MAX_GROUPS:
            continue
        topic = r.content.topics[tid]
        stake = r.stake(topic)
        voice = r.fill(r.plan.finding_met, topic=topic.label, Topic=cap(topic.label), angle=stake, Angle=cap(stake))
        paras.append(f"{voice.rstrip('.')}; met at {r.slots['org']}: {r.refs(ix)}.")
    return paras


def others(r: Reading) -> Output:
    """The open items outside this reader's area, listed (area readers only); the key points say who holds them."""
    n = r.others_count
    if not n or r.whole:
        return [], []
    head = "Every open item sits with other owners:" if not r.groups and not r.policy_first else \
        f"Other owners hold {number_word(n)} more open {'item' if n == 1 else 'items'}:"
    return [head], (["Documented security policy: missing"] if r.policy_elsewhere else []) + _listed(r, list(r.others))


def strengths(r: Reading) -> Output:
    if r.all_met:
        return [], []     # findings already says what is met
    outside = r.relation == "outside_reader"
    if not r.met_mine:
        where = "" if r.whole else " in your area"
        return [f"Nothing{where} is recorded as met yet."], []
    met = [f"{r.f.requirements[i].id} {r.f.requirements[i].title}: met".strip() for i in r.met_mine[:8]]
    rest = len(r.met_mine) - len(met)
    if rest:
        met.append(f"{rest} more, listed in the appendix")
    lead = "Recorded as met:" if outside else ("Already in place:" if r.whole else "Already sound in your area:")
    return [lead], met


def _gets_deliverable(r: Reading) -> bool:
    """Whether the findings tell this reader what open items mean for the document outsiders read."""
    return bool(r.p.id in DELIVERABLE_READERS
                and (r.p.id == "small_business_owner" or r.p.id not in PAYER
                     or r.framework and r.framework.key in ATTESTED)
                and r.framework and r.framework.open_items_mean)


def exposure(r: Reading) -> Output:
    facts = r.exposure_facts()
    # the deliverable is the exposure that reaches them first, said in the findings where the plan has them
    # (else here), with one figure beside it
    deliverable = _deliverable_note(r) if _gets_deliverable(r) and not r.all_met else None
    if deliverable:
        facts = facts[:1]
    first = [deliverable] if deliverable and "findings" not in r.plan_blocks else []
    cost = [c for c in [_cost_sentence(r)] if c]
    told = not facts or r.p.id in scenario_allotment(r.f, r.methodology)
    if r.exposure_tells_incident() and told:   # the loss in the reader's terms, as it would come about through the
        # first open area (worded unlike `scenario`'s "If ..."), and a survey figure, if any, only beside it
        return [*first, f"What a serious incident would mean: {r.incident(r.scenario_topic())}; "
                f"{r.fill(r.p.stake)}.", *(r.cite(f) for f in facts[:1]), *cost], []
    if not facts:
        return [*first, f"What a serious incident would mean: {r.fill(r.p.stake)}.", *cost], []
    return [*first, *(_borne(r, f) for f in facts), *cost], []


def _borne(r: Reading, fact: dict) -> str:
    """A survey figure about one kind of failure, led by the open requirement it bears on ("Identification of risks
    related to external parties (05.i) is not met, and what the surveys find about that kind of failure bears on it:
    supply chain compromise was ..."): panels read such a figure alone under "What is at stake" as a statistic
    spliced on. Other facts as cited."""
    topics = FACT_TOPICS.get(fact["kind"], ())
    bearing = next((i for i in r.f.open_order if main_topic(r.f, i) in topics), None)
    text = r.cite(fact)
    if bearing is None:
        return text
    return f"{cap(r.item_clause(bearing, with_obligation=False))}, and what the surveys find about that kind of " \
           f"failure bears on it: {_lower_first(text, r)}"


def scenario(r: Reading) -> Output:
    topic = r.scenario_topic()
    if r.all_met or not r.groups:
        text = (f"The controls in place are what keep this hypothetical: if {r.incident(topic)}, "
                f"{r.fill(r.p.stake)}.")
    else:
        text = f"If {r.incident(topic)}, {r.fill(r.p.stake)}."
    facts = r.facts_for() if "exposure" not in r.plan_blocks else []
    fact = next((f for f in facts if topic.id in FACT_TOPICS.get(f["kind"], ())), None)
    if fact is not None:   # a figure about this kind of failure supports the scenario; any other would not
        text += " " + r.cite(fact)
    return [text], []


def _measures(r: Reading) -> list[str]:
    """The reader's measures of what closing gives, without those of a topic the assessment did not cover (a test
    restore where no backup requirement was assessed), made up from the reader's definitions of done for their open
    topics where fewer than two are left. Outside readers keep every measure: what they ask about is theirs."""
    tags = r.p.measure_topics or ("",) * len(r.p.measures)
    covered = r.f.memo("covered_topics", lambda: frozenset(main_topic(r.f, i) for i in range(r.f.total)))
    kept = [m for m, t in zip(r.p.measures, tags, strict=True)
            if r.relation == "outside_reader" or not t or t in covered]
    if len(kept) < 2:
        done = [r.p.done[g.topic.id] for g in r.groups if g.topic.id in r.p.done and g.topic.id not in tags]
        kept += done[:3 - len(kept)]
    return [cap(r.fill(m)) for m in kept]


def payoff(r: Reading) -> Output:
    measures = _measures(r)
    if r.all_met or not r.groups:
        return ["What holds today is worth keeping visible. Measures to follow:"], measures
    return [r.fill(r.p.outcome), "Measures you can follow:"], measures


def _reader_topics(r: Reading):
    """The topics a work block covers: the reader's own topics with open items, or (none open) their first three."""
    own = [g.topic for g in r.groups if g.topic.id in r.p.topics][:MAX_GROUPS]
    return own or [r.content.topics[t] for t in r.p.topics[:3]]


def measures(r: Reading) -> Output:
    lead = "Complete, in your terms:" if r.all_met or not r.groups else "Done, in your terms:"
    return [lead], [f"{cap(t.label)}: {r.fill(r.p.done[t.id])}" for t in _reader_topics(r)]


def _owns_policy(r: Reading) -> bool:
    return r.policy_first or any(g.policy for g in r.groups)


def effort(r: Reading) -> Output:
    plan = work_plan(r.f)
    if r.all_met:
        return ["No effort to budget beyond upkeep."], []
    priced = r.p.id in MONEY_READERS

    def line(label: str, days: tuple[int, int]) -> str:   # a table row: money first when priced
        if priced:
            return f"{label}: {money(r.f, days).split(' ', 1)[1]} ({days[0]}-{days[1]} person-days)"
        return f"{label}: {days[0]}-{days[1]} person-days"

    whole = line("All open items", plan.total)
    if not r.groups and not r.policy_first:
        return ["The open work sits with other owners; for reference in planning:"], [whole]
    bullets = [line(cap(POLICY_STEP), plan.policy_effort)] if r.policy_first else []
    lo = hi = 0
    for g in r.groups:
        a, b = plan.effort(g.indices)
        if g.policy:
            a, b = a + plan.policy_effort[0], b + plan.policy_effort[1]
        lo, hi = lo + a, hi + b
        bullets.append(line(cap(g.topic.label), (a, b)))
    if not r.whole and len(bullets) > 1:
        bullets.append(line("Your area in all", (lo, hi)))
    bullets.append(whole)
    unpriced = _unpriced(r) if r.p.id in PAYER else None   # the readers who approve the spend
    if unpriced:
        bullets.append(unpriced.rstrip("."))
    lead = (f"Effort in {rates(r.f)[2]}{at_us_rates(r.f)} (assumption, see appendix):" if priced
            else "Effort (an assumption, not a quote):")
    return [lead], bullets


def sequence(r: Reading) -> Output:
    plan = work_plan(r.f)
    if r.all_met:
        topics = [r.content.topics[t] for t in r.p.topics[:4]]
        return ["The upkeep calendar for your area:"], [f"Quarterly: {t.label} review" for t in topics] + [
            r.fill("Yearly: re-assessment against {framework}")]
    mine = set(r.mine_open)
    policy = _owns_policy(r)
    steps = [s for s in plan.steps if mine & set(s.indices) or (policy and not s.indices)]
    if not steps:
        return ["No step of the shared work plan falls to you; the other owners' steps set the dates."], []
    bullets = [f"{s.window}{when(r.f, s.last_week)}: {s.topic.label if s.indices else POLICY_STEP}" for s in steps]
    return ["The work plan, in order:" if r.whole else "Your steps in the shared work plan:"], bullets


def evidence(r: Reading) -> Output:
    lead = "Evidence to ask for:" if r.relation == "outside_reader" else "Evidence to keep:"
    return [lead], [f"{cap(t.label)}: {r.fill(r.p.evidence[t.id])}" for t in _reader_topics(r)]


def decisions(r: Reading) -> Output:
    items = [cap(r.fill(d)) for d in (r.p.decisions_clean if r.all_met else r.p.decisions)]
    if r.framework and (r.framework.accepted_gap or r.framework.key in ATTESTED):
        # What accepting a risk means under the framework: under an attested one it is still an open item in what
        # customers read; under HIPAA a required specification cannot be accepted at all.
        gap = r.fill(r.framework.accepted_gap) if r.framework.accepted_gap else \
            f"under {r.slots['framework']} an accepted or insured gap still shows in the assessor's report"
        items = [f"{d}, knowing that {gap}" if RISK_ACCEPTANCE.search(d) else d for d in items]
    if r.framework and r.framework.accept_route:
        # where the framework accepts no risk at all and has a route of its own (PCI DSS's compensating control,
        # CMMC's and NIST SP 800-171's plan of action), there is no acceptance to decide; the routes say what may wait
        items = [d for d in items if not RISK_ACCEPTANCE.search(d)]
    lead = {"decision_maker": "Yours to decide:" if r.all_met else "Yours to decide, item by item:",
            "operator": "Sign-offs to secure:" if r.all_met else "Sign-offs to secure before the work starts:",
            "outside_reader": "Points for your own judgement:"}[r.relation]
    return [lead], items


def questions(r: Reading) -> Output:
    asked = [r.fill(q) for q in (r.p.questions_clean if r.all_met else r.p.questions)]
    return ["Questions worth putting to the team:" if r.relation != "outside_reader" else
            "To put to management:"], list(dict.fromkeys(asked))


def coverage(r: Reading) -> Output:
    """Evidence status by control area over the whole assessment: the reader's areas one sentence each, with
    why the area weighs in their reading; the other areas' open items named after them. A requirement
    counts for its main topic only."""
    by_topic: dict[str, list[int]] = {}
    for i in range(len(r.f.requirements)):
        by_topic.setdefault(main_topic(r.f, i), []).append(i)
    paras = [policy_finding(r)] if r.policy_first and not r.all_met else []
    if "findings" not in r.plan_blocks:
        paras += [p for p in (tier_standing(r), score_standing(r), policy_held(r)) if p]
    # the reader's angle on an area frames it only where the angle is about one of the area's requirements here: an
    # underwriter's multi-factor angle never frames "Registers and authorizes new users" (read as "MFA: not met");
    # there the statuses come first and the angle is said as what the record does not show
    def angled(tid: str) -> bool:
        if tid not in r.p.angles:
            return True
        named = subjects_named(r.content.subjects, r.fill(r.p.angles[tid]), tid)
        # a requirement as broad as its area ("Logging", no narrower subject) is about every angle on it
        return not named or any(subjects_of(r.f)[i] is None or subjects_of(r.f)[i].id in named for i in by_topic[tid])
    own = [t for t in r.p.topics if t in by_topic]
    for tid in own:
        topic, ix = r.content.topics[tid], by_topic[tid]
        parts = []
        for status in ("not_met", "partially_met", "met"):
            these = [i for i in ix if r.f.requirements[i].status == status]
            if these:
                # by title and id, met ones too ("met, 164.312(a)(2)(iii)" told an underwriter nothing), without
                # the designation, so a list of three reads "A (1), B (2) and C (3)" between the statuses' semicolons
                shown = [_titled(r, i) for i in these[:3]] + ([f"{len(these) - 3} more"] if len(these) > 3 else [])
                parts.append(f"{join(shown)} {STATUS_WORD[status]}")
        # the statuses first, then, in the same sentence (three outside readers share the statuses), why the area
        # weighs in this reader's reading: said as the reading, or, where no requirement here is about it, as what
        # the record leaves open
        said = f"{cap(topic.label)}: {'; '.join(parts)}"
        if angled(tid):   # the reader's reading said three ways in turn, not "in your reading" four times
            paras.append(COVERAGE_READINGS[len(paras) % len(COVERAGE_READINGS)].format(said=said, stake=r.stake(topic)))
        else:
            # no requirement here is about what the reader looks at first in the area: said as reaching beyond the
            # items, not as their silence ("Incident Handling not met, but none of the items assessed here covers
            # ... the incident procedure" read to a CMMC investor as a contradiction)
            them = "it" if len(ix) == 1 else "them"
            paras.append(f"{said}; what you would look at first goes beyond {them}: {r.stake(topic)}.")
    rest = [(r.content.topics[t], [i for i in ix if i in r.f.open_set]) for t, ix in by_topic.items()
            if t not in own]
    open_rest = [(topic, ix) for topic, ix in rest if ix]
    if open_rest:
        paras.append("Open in the other areas assessed: " + "; ".join(
            r.refs(ix, limit=3) if r.f.requirements[ix[0]].title.lower().startswith(topic.label) else
            f"{topic.label}, {r.refs(ix, limit=3)}" for topic, ix in open_rest) + ".")
    paras += r.interactions()
    scope = catalogue_scope(r)
    if scope:
        paras.append(f"The assessment covered {scope}.")
    elif r.uncovered:
        paras.append(f"Not assessed here: {topic_labels(r.uncovered)}.")
    # the framework's or industry's own rule the run gave this reader, where the findings do not say it (an auditor
    # reading a short SAQ is told first who may use it)
    standing = None if "findings" in r.plan_blocks else _standing_fact(r)
    return paras + ([standing] if standing else []), []


COVERAGE_READINGS = ("{said}; in your reading, {stake}.", "{said}; this bears on your review because {stake}.",
                     "{said}; what weighs here is that {stake}.")


def _titled(r: Reading, i: int) -> str:
    """ "Automatic logoff (164.312(a)(2)(iii))": title and id, no designation."""
    req = r.f.requirements[i]
    return f"{named(req.title)} ({req.id.strip()})" if req.title.strip() else req.id.strip()


def residual(r: Reading) -> Output:
    if r.all_met or not r.groups:
        if r.uncovered:
            return [f"With the assessed controls met, residual risk sits in what was not assessed: "
                    f"{topic_labels(r.uncovered)}."], []
        return ["With every assessed control met, residual risk is what any met control carries: that it "
                "weakens between assessments unless its evidence is kept."], []
    risks = [r.fill(g.topic.risk) for g in r.groups[:MAX_GROUPS]]
    return [f"What the open items leave possible: {'; '.join(risks[:-1]) + '; or ' if len(risks) > 1 else ''}"
            f"{risks[-1]}."], []


def alternatives(r: Reading) -> Output:
    if r.all_met:
        topic = r.first_event_topic()
        return [f"Who keeps {topic.label} evidenced:"], ["The team that runs it", "An outside reviewer, once a year"]
    # The routes are for an area with open items: the reader's first open area an incident can start from, else its
    # first open area, else (nothing open in the reader's areas) the shared plan's first. A panel's ISO reader was
    # offered routes for backup and recovery, which nothing assessed.
    areas = {g.topic: g.indices for g in r.groups if g.indices} or \
        {s.topic: s.indices for s in work_plan(r.f).steps if s.indices}
    topic = next((t for t in r.event_topics() if t in areas), None) or next(iter(areas), r.first_event_topic())
    indices = areas.get(topic, ())
    # A requirement the framework marks "required" (HIPAA) cannot be accepted as a risk; it is implemented.
    required = [i for i in indices if (infos_of(r.f)[i] or {}).get("designation") == "required"]
    # Where the third route is closed, it is listed as closed under a heading that counts no routes (a panel read
    # "two routes" over three bullets). Each line stays under eight words: the routes are every reader's.
    if required and len(required) < len(indices) and "addressable" in r.framework.designations:
        # the area mixes required and addressable items: acceptance is closed to the first only, and open to the
        # second only as a documented reason with an equivalent measure (HIPAA 164.306(d)(3)); a panel read "Accept:
        # not open, HIPAA requires it" over two addressable items as a contradiction
        return [f"For {topic.label}, the routes:"], [
            *OPEN_ROUTES, "Accept: not open for the required items",
            "Addressable items: a documented equivalent instead"]
    if required:
        these = "it" if len(required) == 1 else "these"
        return [f"For {topic.label}, the routes:"], [
            *OPEN_ROUTES, f"Accept: not open, {r.slots['framework']} requires {these}"]
    if indices and none_deferrable(r.f, indices):   # CMMC: worth more than 1 point, or barred from a plan
        return [f"For {topic.label}, the routes:"], [*OPEN_ROUTES, "Defer: not open to these items"]
    if r.framework and r.framework.unexcludable_route and not all(
            r.framework.excludable(r.f.requirements[i].id, r.f.requirements[i].title) for i in indices):
        # ISO 27001's clauses 4 to 10 cannot be excluded (clause 1): a panel's ISO CEO was told any item could be
        return [f"For {topic.label}, the routes:"], [*OPEN_ROUTES, r.framework.unexcludable_route]
    # where the framework has no risk acceptance (PCI DSS), its own route for a requirement that cannot be met
    accept = r.fill(r.framework.accept_route) if r.framework and r.framework.accept_route else \
        "Accept: in writing, with a review date"
    return [f"For {topic.label}, three routes:"], [*OPEN_ROUTES, accept]


OPEN_ROUTES = ["Build: the team does the work", "Buy: a managed service you oversee"]


BLOCKS = {"position": position, "assumption": assumption, "findings": findings, "others": others,
          "strengths": strengths, "exposure": exposure, "scenario": scenario, "payoff": payoff,
          "measures": measures, "effort": effort, "sequence": sequence, "evidence": evidence,
          "decisions": decisions, "questions": questions, "coverage": coverage, "residual": residual,
          "alternatives": alternatives}


# ---------------------------------------------------------------------- key points
def _open_mix(r: Reading, indices: tuple[int, ...] | list[int]) -> str:
    """ "2 not met, 1 partly met" """
    statuses = Counter(r.f.requirements[i].status for i in indices)
    parts = [f"{statuses[s]} {STATUS_WORD[s]}" for s in ("not_met", "partially_met") if statuses[s]]
    return ", ".join(parts)


def key_points(r: Reading) -> list[str]:
    """Three to five short points for the top of the page: what this reader should take away at a glance.
    Facts only (counts, names, the plan's figures); the report's prose argues them. Each starts with a
    capital, as a list item does ("one control open ..." comes from the item counter)."""
    points = _key_points(r)
    tier = tier_point(r)
    if tier:   # second: right after what is open, before the work
        points = [*points[:1], tier, *points[1:]][:5]
    condition = condition_point(r)
    if condition:   # right after what is open (and the missing policy, where it leads): it may take items out of it
        at = 1 + (len(points) > 2 and points[0].startswith("No documented security policy"))
        points = [*points[:at], condition, *points[at:]][:5]
    return [point[:1].upper() + point[1:] for point in points]


def condition_point(r: Reading) -> str | None:
    """The open items that apply only under a condition the assessment does not record (16 CFR 314.6's 5,000
    consumers), for every reader who has one of them to close, decide or examine: what to confirm first."""
    if r.all_met:
        return None
    scope = r.f.open_order if r.whole or r.relation == "outside_reader" else r.mine_open
    held = [i for i in scope if r.f.conditions[i]]
    if not held:
        return None
    condition = r.f.conditions[held[0]]
    held = [i for i in held if r.f.conditions[i] is condition]
    ids = join([r.f.requirements[i].id.strip() for i in held])
    verb = "applies" if len(held) == 1 else "apply"
    return f"{ids} {verb} only {r.fill(condition['applies'])} ({condition['source']}): confirm " \
           f"{r.fill(condition['check'])} first"


def _key_points(r: Reading) -> list[str]:
    if not r.f.total:
        return [f"The assessment of {r.slots['org']} lists no requirements yet"]
    if r.relation == "outside_reader":
        return _outside_points(r)
    plan = work_plan(r.f)
    term = r.item_term
    if r.all_met:
        points = [f"All {r.f.total} {plural(term)} at {r.slots['org']} recorded as met"]
        points.append(f"Not assessed here: {topic_labels(r.uncovered)}" if r.uncovered else
                      "What is left is keeping the evidence current between assessments")
        kept = [t for t in (r.content.topics[t] for t in r.p.topics) if t not in r.uncovered][:3]
        if kept:
            points.append(f"Your upkeep: {topic_labels(kept)}")
        return points
    policy = _owns_policy(r)
    n = len(r.mine_open)
    if not r.groups and not r.policy_first:
        k = r.others_count
        points = [f"Nothing open in your area at {r.slots['org']}; {number_word(k)} open "
                  f"{'item sits' if k == 1 else 'items sit'} with "
                  f"{join(list(dict.fromkeys(owner for owner, _, _ in r.others_by_owner())))}",
                  f"All open items: {plan.total_range} person-days of work (planning table)"]
        if r.met_mine:
            points.append(f"Met in your area: {r.shorts(r.met_mine, limit=3)}")
        return points
    points = ["No documented security policy: the first item to settle"] if r.policy_first else []
    where = "across the assessment" if r.whole else "in your area"
    covered = [i for i in plan.policy_covers if i in r.mine_open]
    # the policy requirement (12.1.1) is one of the counted items: it is not a further one
    missing = (f"the missing security policy among them ({', '.join(r.f.requirements[i].id.strip() for i in covered)})"
               if covered else "no documented security policy") if policy else ""
    mix = ", ".join(filter(None, [_open_mix(r, r.mine_open), missing]))
    points.append(f"{r.item(n)} open {where}: {mix}" if n else f"Open {where}: {mix}")
    first = r.first_item
    if r.policy_first:
        pass    # the policy point above says what comes first
    elif policy and r.whole:   # the plan starts with the policy: every reader of the whole assessment is told so
        points.append("First to close: the missing security policy, which gives the other controls their mandate "
                      "and owners")
    elif first is not None:
        verb = "verify" if r.p.id in ASSURANCE_READERS else "close"
        point = f"First to {verb}: {_brief_ref(r, first)}, {STATUS_WORD[r.f.requirements[first].status]}"
        why = why_first(r.f, first, r.mine_open)
        while len(point + why) > KEY_POINT_MAX and ";" in why:   # a key point stays short: the last reason goes first
            why = why.rsplit(";", 1)[0]
        points.append(point + (why if len(point + why) <= KEY_POINT_MAX else ""))
    days = plan.total if r.whole else _area_days(r)
    steps = [s for s in plan.steps if set(r.mine_open) & set(s.indices) or (policy and not s.indices)]
    last = max((s.last_week for s in steps), default=0)
    if r.p.id in MONEY_READERS:
        points.append(f"Cost to close: {days[0]}-{days[1]} person-days, about {money(r.f, days)}"
                      f"{at_us_rates(r.f)}, over {last} weeks{when(r.f, last)}")
    elif r.p.id in ASSURANCE_READERS:   # the control owners do the work; internal audit verifies it independently
        points.append(f"Owners' work to verify: {days[0]}-{days[1]} person-days, to week {last}{when(r.f, last)} "
                      "(planning table)")
    elif r.relation == "operator" or not r.whole:
        points.append(f"Your work: {days[0]}-{days[1]} person-days, to week {last}{when(r.f, last)} (planning table)")
    else:
        points.append(f"All open items: {days[0]}-{days[1]} person-days over {last} weeks (planning table)")
    if r.others_count and not r.whole:
        owners = list(dict.fromkeys(owner for owner, _, _ in r.others_by_owner()))
        k = r.others_count
        points.append(f"{cap(number_word(k))} more open {'item sits' if k == 1 else 'items sit'} with {join(owners)}")
    return points


def _area_days(r: Reading) -> tuple[int, int]:
    plan = work_plan(r.f)
    lo = sum(plan.effort(g.indices)[0] + (plan.policy_effort[0] if g.policy else 0) for g in r.groups)
    hi = sum(plan.effort(g.indices)[1] + (plan.policy_effort[1] if g.policy else 0) for g in r.groups)
    if r.policy_first:
        lo, hi = lo + plan.policy_effort[0], hi + plan.policy_effort[1]
    return lo, hi


def _brief_ref(r: Reading, i: int, limit: int = 70) -> str:
    """A requirement's ref with its title cut at a word near `limit` characters (NIST CSF titles are
    whole outcome statements); the appendix and the prose carry the full title."""
    req = r.f.requirements[i]
    title = req.title.strip()
    if len(title) <= limit:
        return r.ref(i)
    cut = title[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return r.ref(i).replace(title, cut + "\u2026", 1)


def catalogue_scope(r: Reading) -> str | None:
    """ "12 of the 93 Annex A controls; certification also audits ...": how much of the framework's catalogue the
    assessment sampled, where the pack knows the catalogue and the ids are its own."""
    cat = r.framework.catalogue if r.framework else None
    if not cat:
        return None
    # by the id the pack reads ("8.15 Logging" is Annex A 8.15, "AC.L2-3.1.1" is 3.1.1), not as typed
    prefix = cat["id_prefix"].upper()
    n = sum(1 for q in r.f.requirements if r.framework.resolve(q.id, q.title).upper().startswith(prefix))
    if not n:
        return None
    return f"{n} of the {cat['size']} {cat['name']}" + (f"; {cat['also']}" if cat["also"] else "")


def _outside_points(r: Reading) -> list[str]:
    """Evidence, not work: where the record is weakest (the reader's areas first), what was not assessed."""
    # weakest first: most not met, then most partly met (the plan's order is the order of work, not of evidence)
    def gaps(g) -> tuple[int, int]:
        statuses = [r.f.requirements[i].status for i in g.indices]
        return -statuses.count("not_met"), -statuses.count("partially_met")
    # areas with two or more open items, most first: a single item is not "most" (a panel found one not-met item
    # named while three other areas each had one too)
    weak = [f"{g.topic.label} ({_open_mix(r, g.indices) or 'no documented policy'})"
            for g in sorted(r.groups, key=gaps) if len(g.indices) > 1]
    points = ["No documented security policy: a governance finding to read first"] if r.policy_first else []
    if r.f.open_count:
        points.append(f"{r.item(r.f.open_count)} open of {r.f.total}: {_open_mix(r, r.f.open_order)}")
    if weak:
        points.append(f"Most open items: {'; '.join(weak[:2])}")
    elif not r.f.open_count:
        points.append(f"Every assessed {r.item_term} is recorded as met")
    if r.policy_gap and not r.policy_first:
        points.append("No documented security policy: a governance finding")
    scope = catalogue_scope(r)
    if scope:
        points.append(f"Scope: {scope}")
    elif r.uncovered:
        points.append(f"Not assessed here: {topic_labels(r.uncovered)}")
    if not r.f.open_count:
        points.append("Residual risk is upkeep: met controls weaken unless their evidence is kept current")
    if len(points) < 2:
        points.append("Statuses as recorded by the assessment, not tested for this report")
    return points
