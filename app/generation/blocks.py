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

from .plan import work_plan
from .reading import MAX_GROUPS, POLICY, STATUS_WORD, Reading, topic_labels
from .wording import cap, plural

Output = tuple[list[str], list[str]]
FIGURE = re.compile(r"[$€£]\s?\d|EUR \d|\d+(\.\d+)?%")

def position(r: Reading) -> Output:
    return [r.fill(r.p.position)], []


def assumption(r: Reading) -> Output:
    paras = [f"{r.fill(r.p.assumption)} {r.fill(r.p.insight)}"]
    cluster = _cluster(r)
    if cluster and cluster[0].id in r.p.topics and r.relation == "decision_maker":
        topic, k = cluster
        paras.append(f"In this assessment the open items cluster: {k} of {r.f.open_count} concern "
                     f"{topic.label}, which makes them one weakness to fix at the root rather than {_word(k)} "
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


def findings(r: Reading) -> Output:
    if r.all_met:
        return _findings_all_met(r)
    if not r.groups:
        where = "among the controls you weigh" if r.relation == "outside_reader" else "in your area"
        return [f"Nothing open falls {where}."] + _met_findings(r), []
    paras = []
    for group in r.groups[:MAX_GROUPS]:
        angle = r.angle(group.topic)
        if group.not_met or group.policy:
            text = r.finding(group.not_met, "not_met", angle, policy=group.policy)
            if group.partial:
                shown = [r.short(i) for i in group.partial[:1]]
                more = len(group.partial) - len(shown)
                text += f" Also partly met: {', '.join(shown)}{f' (+{more})' if more else ''}."
        else:
            text = r.finding(group.partial, "partially_met", angle)
        paras.append(text)
    later = r.groups[MAX_GROUPS:]
    if later:
        n = sum(len(g.indices) for g in later)
        also = "Also open" if r.relation == "outside_reader" else "Also open in your area"   # not theirs to own
        paras.append(f"{also}, and listed in the appendix: {r.item(n)} on "
                     f"{topic_labels([g.topic for g in later])}.")
    return paras, []


def _findings_all_met(r: Reading) -> Output:
    if not r.f.total:
        return ["No requirements were assessed, so there is nothing in your area to report on yet."], []
    if not r.met_mine:
        mine = topic_labels([r.content.topics[t] for t in r.p.topics])
        return [f"Every requirement in scope is met, and none of them concerns {mine} directly."], []
    return _met_findings(r), []


def _met_findings(r: Reading) -> list[str]:
    """The met requirements of the reader's topics, each topic with the reader's angle on it."""
    paras: list[str] = []
    done: set[int] = set()
    for tid in r.p.topics:
        ix = tuple(i for i in r.met_mine if tid in r.f.topics[i] and i not in done)
        if not ix or len(paras) >= MAX_GROUPS:
            continue
        done.update(ix)
        paras.append(r.finding(ix, "met", r.angle(r.content.topics[tid]), template=r.plan.finding_met))
    return paras


def others(r: Reading) -> Output:
    n = r.others_count
    if not n:
        return [], []
    if not r.groups:
        return ["Every open item sits with other owners."], []
    return [f"Other owners hold {n} more open {'item' if n == 1 else 'items'}."], []


def strengths(r: Reading) -> Output:
    if r.all_met:
        return [], []     # findings already says what is met
    outside = r.relation == "outside_reader"
    if not r.met_mine:
        return ["Nothing here is recorded as met yet." if outside else "Nothing in your area is met yet."], []
    met = [f"{r.f.requirements[i].id} {r.f.requirements[i].title}: met".strip() for i in r.met_mine[:8]]
    return ["Recorded as met:" if outside else "Already sound in your area:"], met


def exposure(r: Reading) -> Output:
    facts = r.facts_for()
    if not facts:   # no fact of this reader's kinds is left for them: the loss in the reader's terms
        return [f"What a serious incident would mean for you: {r.fill(r.p.stake)}."], []
    return [r.cite(f) for f in facts], []


def _scenario_topic(r: Reading):
    if r.groups:
        return r.groups[0].topic
    return r.content.topics[r.p.topics[0]]


WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _word(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else str(n)


def one_sentence(text: str) -> str:
    """A fact's sentences as one, so its caveat stays attached ("...(IBM 2024); these are averages...")."""
    parts = re.split(r"(?<=[.])\s+(?=(?:These|This|That|It|The|Such)\b)", text)
    return "; ".join([parts[0].rstrip(".")] + [p[0].lower() + p[1:].rstrip(".") for p in parts[1:]]) + "."


def _lens(r: Reading, topic) -> str:
    """The failure scenario in the reader's lens: how it happens, what the business loses, or what
    it triggers with regulators, clients and courts."""
    if r.relation == "operator":
        return topic.risk
    if r.relation == "decision_maker" and r.p.category == "Management":
        return topic.liability
    return topic.impact


def scenario(r: Reading) -> Output:
    topic = _scenario_topic(r)
    if r.all_met or not r.groups:
        text = (f"The controls in place are what keep this hypothetical: if {r.fill(_lens(r, topic))}, "
                f"{r.fill(r.p.stake)}.")
    else:
        text = f"If {r.fill(_lens(r, topic))}, {r.fill(r.p.stake)}."
    facts = r.facts_for() if "exposure" not in r.plan_blocks else []
    if facts:   # the reader's first figure, for scale, when no section quotes them
        fact = next((f for f in facts if FIGURE.search(f["text"])), facts[0])
        text = text[:-1] + ("; for scale: " if FIGURE.search(fact["text"]) else "; for reference: ") + \
            one_sentence(r.cite(fact))
    return [text], []


def payoff(r: Reading) -> Output:
    measures = [cap(r.fill(m)) for m in r.p.measures]
    if r.all_met or not r.groups:
        return ["What holds today is worth keeping visible. Measures to follow:"], measures
    return [r.fill(r.p.outcome), "Measures you can follow:"], measures


def _reader_topics(r: Reading):
    """The topics a work block covers: the reader's open ones, or (nothing open there) their first three."""
    if r.groups:
        return [g.topic for g in r.groups[:MAX_GROUPS]]
    return [r.content.topics[t] for t in r.p.topics[:3]]


def measures(r: Reading) -> Output:
    lead = "Complete, in your terms:" if r.all_met or not r.groups else "Done, in your terms:"
    return [lead], [f"{cap(t.label)}: {r.fill(r.p.done[t.id])}" for t in _reader_topics(r)]


def effort(r: Reading) -> Output:
    plan = work_plan(r.f)
    if r.all_met:
        return ["No effort to budget beyond upkeep."], []
    if not r.groups:
        return ["None of the open work is yours."], [f"Whole assessment: {plan.total_range} person-days"]
    bullets = []
    lo = hi = 0
    for g in r.groups:
        a, b = plan.effort(g.indices)
        if g.policy:
            a, b = a + plan.policy_effort[0], b + plan.policy_effort[1]
        lo, hi = lo + a, hi + b
        bullets.append(f"{cap(g.topic.label)}: {a}-{b} person-days")
    if len(bullets) > 1:
        bullets.append(f"Your area in all: {lo}-{hi} person-days")
    bullets.append(f"Whole assessment: {plan.total_range} person-days")
    return ["Planning-table effort (an assumption, not a quote):"], bullets


def sequence(r: Reading) -> Output:
    plan = work_plan(r.f)
    if r.all_met:
        topics = [r.content.topics[t] for t in r.p.topics[:4]]
        return ["The upkeep calendar for your area:"], [f"Quarterly: {t.label} review" for t in topics] + [
            r.fill("Yearly: re-assessment against {framework}")]
    mine = set(r.mine_open)
    policy = any(g.policy for g in r.groups)
    steps = [s for s in plan.steps if mine & set(s.indices) or (policy and not s.indices)]
    if not steps:
        return ["No step of the plan is yours."], []
    bullets = [f"{s.window}: {s.topic.label}" if s.indices else f"{s.window}: {POLICY}" for s in steps]
    return ["Your steps in the shared work plan:"], bullets


def evidence(r: Reading) -> Output:
    lead = "Evidence to ask for:" if r.relation == "outside_reader" else "Evidence to keep:"
    return [lead], [f"{cap(t.label)}: {r.fill(r.p.evidence[t.id])}" for t in _reader_topics(r)]


def decisions(r: Reading) -> Output:
    items = [cap(r.fill(d)) for d in (r.p.decisions_clean if r.all_met else r.p.decisions)]
    lead = {"decision_maker": "Yours to decide:" if r.all_met else "Yours to decide, item by item:",
            "operator": "Sign-offs to secure:" if r.all_met else "Sign-offs to secure before the work starts:",
            "outside_reader": "Points for your own judgement:"}[r.relation]
    return [lead], items


def questions(r: Reading) -> Output:
    asked = [r.fill(q) for q in (r.p.questions_clean if r.all_met else r.p.questions)]
    return ["Questions worth putting to the team:" if r.relation != "outside_reader" else
            "To put to management:"], list(dict.fromkeys(asked))


def coverage(r: Reading) -> Output:
    """Evidence status by the reader's control areas: one paragraph per area, one status per sentence.
    A requirement counts for its main topic only: a risk analysis is not evidence of patching."""
    paras = []
    uncovered = []
    for tid in r.p.topics:
        topic = r.content.topics[tid]
        ix = [i for i, ts in enumerate(r.f.topics) if ts[:1] == (tid,)]
        if not ix:
            uncovered.append(topic)
            continue
        text = f"{cap(topic.label)}: {r.angle(topic)}."
        for status in ("not_met", "partially_met", "met"):
            these = [i for i in ix if r.f.requirements[i].status == status]
            if these:
                text += f" {cap(STATUS_WORD[status])}: {r.shorts(these, limit=4)}."
        paras.append(text)
    if uncovered:
        paras.append(f"Not assessed here: {topic_labels(uncovered)}.")
    return paras, []


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
    topic = _scenario_topic(r)
    if r.all_met:
        return [f"Who keeps {topic.label} evidenced:"], ["The team that runs it", "An outside reviewer, once a year"]
    return [f"For {topic.label}, three routes:"], [
        "Build: the team does the work", "Buy: a managed service you oversee",
        "Accept: in writing, with a review date"]


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
    return [point[:1].upper() + point[1:] for point in _key_points(r)]


def _key_points(r: Reading) -> list[str]:
    if not r.f.total:
        return ["The assessment lists no requirements yet"]
    if r.relation == "outside_reader":
        return _outside_points(r)
    plan = work_plan(r.f)
    term = r.item_term
    if r.all_met:
        points = [f"All {r.f.total} {plural(term)} recorded as met"]
        points.append(f"Not assessed here: {topic_labels(r.uncovered)}" if r.uncovered else
                      "What is left is keeping the evidence current between assessments")
        kept = [t for t in (r.content.topics[t] for t in r.p.topics) if t not in r.uncovered][:3]
        if kept:
            points.append(f"Your upkeep: {topic_labels(kept)}")
        return points
    if not r.groups:
        points = [f"Nothing open in your area; {r.others_count} open "
                  f"{'item sits' if r.others_count == 1 else 'items sit'} with other owners",
                  f"Whole assessment: {plan.total_range} person-days of work (planning table)"]
        if r.met_mine:
            points.append(f"Met in your area: {r.shorts(r.met_mine, limit=3)}")
        return points
    policy = any(g.policy for g in r.groups)
    n = len(r.mine_open)
    head = f"{r.item(n)} open in your area" if n else "Open in your area"
    mix = ", ".join(filter(None, [_open_mix(r, r.mine_open), "no documented security policy" if policy else ""]))
    points = [f"{head}: {mix}"]
    first = next((i for g in r.groups for i in g.indices), None)
    if first is not None:
        points.append(f"First to close: {_brief_ref(r, first)}, {STATUS_WORD[r.f.requirements[first].status]}")
    lo = sum(plan.effort(g.indices)[0] + (plan.policy_effort[0] if g.policy else 0) for g in r.groups)
    hi = sum(plan.effort(g.indices)[1] + (plan.policy_effort[1] if g.policy else 0) for g in r.groups)
    if r.relation == "operator":
        mine = set(r.mine_open)
        weeks = [s for s in plan.steps if mine & set(s.indices) or (policy and not s.indices)]
        when = f", in {weeks[0].window.lower()}" if len(weeks) == 1 else (
            f", from week {weeks[0].first_week} to week {max(s.last_week for s in weeks)}" if weeks else "")
        points.append(f"Your work: {lo}-{hi} person-days{when} (planning table)")
    else:
        points.append(f"Your area: {lo}-{hi} of {plan.total_range} person-days for the whole assessment "
                      f"(planning table)")
    if r.others_count:
        points.append(f"{r.others_count} more open {'item sits' if r.others_count == 1 else 'items sit'} "
                      f"with other owners")
    return points


def _brief_ref(r: Reading, i: int, limit: int = 70) -> str:
    """A requirement's ref with its title cut at a word near `limit` characters (NIST CSF titles are
    whole outcome statements); the appendix and the prose carry the full title."""
    req = r.f.requirements[i]
    title = req.title.strip()
    if len(title) <= limit:
        return r.ref(i)
    cut = title[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return r.ref(i).replace(title, cut + "\u2026", 1)


def _outside_points(r: Reading) -> list[str]:
    """Evidence, not work: where the record is weakest in the reader's areas, what was not assessed."""
    weak = []
    for tid in r.p.topics:
        ix = [i for i, ts in enumerate(r.f.topics) if ts[:1] == (tid,) and i in r.f.open_set]
        if ix:
            weak.append(f"{r.content.topics[tid].label} ({_open_mix(r, ix)})")
    points = [f"Weakest evidence: {'; '.join(weak[:2])}" if weak else
              f"Every assessed {r.item_term} in your areas is recorded as met"]
    if r.policy_gap:
        points.append("No documented security policy: a governance finding")
    if r.uncovered:
        points.append(f"Not assessed here: {topic_labels(r.uncovered)}")
    if not weak:
        points.append("Residual risk is upkeep: met controls weaken unless their evidence is kept current")
    points.append("Statuses as recorded by the assessment, not tested for this report")
    return points
