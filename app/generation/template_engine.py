"""The built-in, offline report writer.

Reads top to bottom: the assessment's facts (framework and industry packs, each requirement's
topics, the work plan) are computed once per run; each persona's `Reading` selects from them for its
reader; the methodology's plan for the reader's relation says which sections, with which
client-facing headings, and which blocks fill them; every report ends with the appendix of all
requirements in scope and the basis of its figures. Deterministic: no randomness, no clock.
"""

from __future__ import annotations

import re

from ..catalog import METHODOLOGY_BY_ID, PERSONA_BY_ID
from ..content import Persona, load
from .blocks import BLOCKS, POLICY_STEP, _owns_policy, key_points, since_last
from .consistency import check_report
from .facts import AssessmentFacts
from .plan import main_topic, work_plan
from .pricing import BLS_SOURCE, MONEY_READERS, basis_sentence
from .reading import POLICY, STATUS_WORD, Reading, slots_for
from .wording import cap

DBIR_CITED = "(Verizon DBIR 2025)"   # the figure behind "First to close", listed as general.toml's DBIR fact lists it
NO_REQUIREMENTS_TITLE = "{framework}: no requirements assessed yet"
APPENDIX_HEADING = "Appendix: requirements in scope"
BASIS_HEADING = "Appendix: sources and planning assumptions"


# The heading of a block that follows a list within one planned section.
CONTINUATION = {"effort": "Effort", "sequence": "Schedule", "evidence": "Evidence", "measures": "What done looks like",
                "questions": "Questions to ask", "alternatives": "Options", "payoff": "Measures",
                "strengths": "Already in place", "scenario": "What could happen",
                "exposure": "What is at stake",
                "others": "Held by other owners", "findings": "Findings", "coverage": "Evidence by area",
                "residual": "Residual risk", "position": "Context", "assumption": "What may be assumed"}
DECISIONS_HEADING = {"decision_maker": "Decisions", "operator": "Sign-offs", "outside_reader": "For your judgement"}


def continuation_heading(block: str, r: Reading) -> str:
    return DECISIONS_HEADING[r.relation] if block == "decisions" else CONTINUATION.get(block, "More")


def reading_for(facts: AssessmentFacts, persona_id: str, methodology_id: str) -> Reading:
    """The reader's selection under a methodology; ValueError for an unknown persona or methodology."""
    try:
        persona = PERSONA_BY_ID[persona_id]
        method = METHODOLOGY_BY_ID[methodology_id]
    except KeyError as exc:
        raise ValueError(f"unknown persona or methodology: {exc.args[0]!r}") from None
    return Reading(facts, persona, method.plans[persona.relation], method.id)


# How a reader should understand the two open statuses, in the terms of their relation.
STATUS_NOTE = {
    "decision_maker": "Not met means the assessment found the requirement not in place, or not working as it "
                      "requires; partly met means it is in place in part, and the assessment does not say where "
                      "it stops.",
    "operator": "A not-met item has nothing to extend and must be built; a partly met one already works "
                "somewhere, so the first task is to find where it stops.",
    "outside_reader": "Statuses are as recorded by the assessment, not tested for this report. Not met means not "
                      "in place, or not working as the requirement asks, on the assessment date; partly met means "
                      "in place in part, with coverage the assessment does not quantify.",
}


def appendix(facts: AssessmentFacts, relation: str) -> dict:
    """Every requirement in scope with its recorded status, and what an open one asks for where the
    framework pack knows it; the same list in all 25 reports."""
    def build():
        bullets, rows = [], []
        for r, known in zip(facts.requirements, facts.infos, strict=True):
            info = known if r.status != "met" else None
            asks = info["obliges"].format_map(slots_for(facts)) if info else None
            bullets.append(_appendix_line(r, asks))
            rows.append({"id": r.id.strip(), "title": r.title.strip(), "status": r.status, "asks": asks})
        pack = facts.framework_pack
        # the date an auditor or underwriter needs to place the record (the day the partner submitted it)
        on = f" submitted on {facts.as_of.day} {facts.as_of:%B %Y}" if facts.as_of else ""
        counts = (f"Statuses as recorded by the assessment{on}: {facts.met} met, {facts.partially_met} partly met "
                  f"and {facts.not_met} not met, of {facts.total}. The compliance score, {facts.compliance_score:g} %, "
                  f"counts a met requirement as one and a partly met one as half."
                  + (f" {pack.no_partial}" if pack and pack.no_partial and facts.partially_met else "")
                  if facts.open_count else
                  f"All {facts.total} requirements are recorded as met in the assessment{on}." if facts.total else
                  f"The assessment{on} lists no requirements.")
        return {"heading": APPENDIX_HEADING, "paragraphs": [counts, STATUS_NOTE[relation]]
                if facts.open_count or relation == "outside_reader" else [counts], "bullets": bullets,
                # The same list as data, for pages that show it as a table with status chips.
                "requirements": rows}
    return facts.memo(("appendix", relation), build)


def _appendix_line(req, asks: str | None) -> str:
    """One requirement as the appendix lists it: id, title and status, and what it asks for where that is said."""
    line = f"{req.id} {req.title}: {STATUS_WORD[req.status]}".strip()
    return f"{line}. Asks for {asks}" if asks else line


def _unrepeated(section: dict, body: list[dict], facts: AssessmentFacts) -> dict:
    """The appendix as this report lists it: an open requirement whose obligation the body has spelled out is
    listed with its status only (every panel found the requirement's wording said twice, in a finding and again
    under "Asks for"). The table data keeps every obligation: pages show it as a reference to filter."""
    said = " ".join(t for s in body for t in (*s["paragraphs"], *s["bullets"]))
    bullets = [_appendix_line(req, None if row["asks"] and row["asks"] in said else row["asks"])
               for req, row in zip(facts.requirements, section["requirements"], strict=True)]
    return {**section, "bullets": bullets}


# Who reads the planning table line by line: those who build the plan or budget it; the other decision makers read
# its basis in one paragraph (a panel: "the full planning-table and wage appendix is dumped on a CEO").
TABLE_READERS = frozenset({"cfo", "project_manager"})


def basis(r: Reading) -> dict:
    """Where this report's figures come from: the facts it quoted, the effort table and the day rate it used.
    Maintainers' notes on a source stay in the data files."""
    bullets = list(dict.fromkeys(f"{f['source']}, {f['url']}" for f in r.sources))
    plan = work_plan(r.f)
    paragraphs = []
    if plan.per_requirement and r.relation != "outside_reader":   # outside readers are shown no effort
        paragraphs.append(f"Effort figures use {r.content.effort_basis}. Weeks: each step of the plan lasts as "
                          f"many weeks as one person needs for its upper estimate, at five working days a week "
                          f"rounded up to whole weeks, and the next step starts halfway through it.")
        if r.p.id in MONEY_READERS:
            paragraphs.append(basis_sentence(r.f))
            if not r.f.day_rate:
                bullets.append(f"{BLS_SOURCE['source']}, {BLS_SOURCE['url']}")
        if r.relation != "operator" and r.p.id not in TABLE_READERS:
            return {"heading": BASIS_HEADING, "paragraphs": paragraphs, "bullets": bullets}
        if plan.policy_effort != (0, 0):
            covers = f", which covers {r.refs(list(plan.policy_covers))}" if plan.policy_covers else ""
            bullets.append(f"Planning table, {POLICY_STEP}: {plan.policy_effort[0]}-"
                           f"{plan.policy_effort[1]} person-days, once{covers}")
        topics = dict.fromkeys(main_topic(r.f, i) for i in plan.per_requirement)
        for tid in topics:
            t = r.content.topics[tid]
            bullets.append(f"Planning table, {t.label}: {t.effort_not_met[0]}-{t.effort_not_met[1]} "
                           f"person-days per not-met item, {t.effort_partial[0]}-{t.effort_partial[1]} per "
                           f"partly met item")
    return {"heading": BASIS_HEADING, "paragraphs": paragraphs, "bullets": bullets}


class TemplateEngine:
    """Writes a report from the content files; no network, no randomness, no clock."""

    name = "template"

    def write(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> dict:
        r = reading_for(facts, persona_id, methodology_id)
        p = r.p
        sections = []
        for plan_section in r.plan.sections:
            heading = r.fill(plan_section.heading_clean if r.all_met else plan_section.heading)
            current = {"heading": heading, "paragraphs": [], "bullets": []}
            for name in plan_section.blocks:
                paras, items = BLOCKS[name](r)
                if not paras and not items:
                    continue
                if current["bullets"]:   # a list closes its section: what follows gets a heading of its own
                    sections.append(current)
                    current = {"heading": continuation_heading(name, r), "paragraphs": [], "bullets": []}
                if not current["paragraphs"] and paras and _same(paras[0], current["heading"]):
                    paras = paras[1:]   # "Already in place" over "Already in place:" says it twice
                current["paragraphs"] += paras
                current["bullets"] = items
            if current["paragraphs"] or current["bullets"]:
                sections.append(current)
        since = since_last(r)   # the change since the client's previous assessment, in the first section
        if since and sections:
            first = sections[0]["paragraphs"]
            first.insert(min(1, len(first)), since)
        sections.append(_unrepeated(appendix(facts, r.relation), sections, facts))
        points = key_points(r)
        basis_section = basis(r)
        if any(DBIR_CITED in p for p in points):   # "First to close ...; ... (Verizon DBIR 2025)" lists its source
            dbir = next(f for f in load().general_facts if DBIR_CITED in f["text"])
            basis_section["bullets"].append(f"{dbir['source']}, {dbir['url']}")
        if basis_section["paragraphs"] or basis_section["bullets"]:
            sections.append(basis_section)
        title = (p.title_clean if r.all_met else p.title) if facts.total else NO_REQUIREMENTS_TITLE
        report = {"title": r.fill(title),
                  "summary": summary(r), "keyPoints": points, "sections": sections,
                  "callToAction": call_to_action(r, p),
                  "readerRelation": p.relation,
                  "knowledge": {"framework": r.framework.key if r.framework else None,
                                "industry": r.industry.key if r.industry else None}}
        if facts.display_name:
            report = _possessives(report, facts.display_name)
        report = _abbreviated(report, r.slots["data"])
        check_report(report, r)   # a disagreement with the selection is a bug: it raises, never falls back
        return report


ABBREVIATED = re.compile(r"^(.+) \(([a-z]?[A-Z]{2,}[a-z]?)\)$")   # "electronic protected health information (ePHI)"


def _abbreviated(report: dict, term: str) -> dict:
    """A term defined with its abbreviation is spelled out once, where the report first uses it, and abbreviated
    after that (a panel counted "electronic protected health information (ePHI)" four times in one report)."""
    match = ABBREVIATED.match(term)
    if not match:
        return report
    seen = False

    def walk(value):
        nonlocal seen
        if isinstance(value, str):
            if term not in value:
                return value
            head, *rest = value.split(term)
            if not seen:
                seen = True
                return head + term + match.group(2).join(rest)
            return match.group(2).join([head, *rest])
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: (walk(v) if k not in ("requirements",) else v) for k, v in value.items()}
        return value
    # in reading order: title, summary, key points, sections, call to action
    ordered = {k: report[k] for k in ("title", "summary", "keyPoints", "sections", "callToAction") if k in report}
    done = {k: walk(v) for k, v in ordered.items()}
    return {**report, **done}


def _possessives(value, name: str):
    """ "Harbourline Properties's" -> "Harbourline Properties'": a name that reads as a plural takes the apostrophe
    alone ("Acme Widgets'"); "Jones's" and "Glass's" keep theirs."""
    if not name.endswith("s") or name.endswith("ss") or " " not in name:
        return value
    if isinstance(value, str):
        return value.replace(f"{name}'s", f"{name}'").replace(f"{name}\u2019s", f"{name}\u2019")
    if isinstance(value, list):
        return [_possessives(v, name) for v in value]
    if isinstance(value, dict):
        return {k: _possessives(v, name) for k, v in value.items()}
    return value


def _same(lead: str, heading: str) -> bool:
    return lead.rstrip(":").strip().lower() == heading.strip().lower()


def introduce(text: str, org: str, profile: str) -> str:
    """The summary names who the client is once, beside its first mention ("... could the organization, a physical
    therapy clinic with 14 staff, keep serving patients ..."): a panel read four held-out assessments' reports with
    no word of the client's kind or size in any of them."""
    if not profile:
        return text
    for name in dict.fromkeys((org, org[:1].upper() + org[1:])):
        match = re.search(rf"\b{re.escape(name)}\b(?![\u2019']s)", text)
        if match:
            end = match.end()
            closing = "" if re.match(r"[.,;:?!)]", text[end:end + 1]) else ","
            return f"{text[:end]}, {profile}{closing}{text[end:]}"
    return text


def summary(r: Reading) -> str:
    return introduce(_summary(r), r.f.organization, r.slots["profile"])


def _summary(r: Reading) -> str:
    if not r.f.total:
        return r.fill("The assessment of {org} lists no requirements, so there is nothing to report on for this "
                      "reader yet.")
    if r.all_met:
        return r.fill(r.p.summary_clean)
    if not r.groups and not r.policy_first:
        return r.fill(r.p.summary_elsewhere)
    # The reader's first three items in the order the sections take them (the shared plan's), the first
    # being the one the key points and the call to action start with; all are named in the sections.
    first = [] if r.first_item is None else [r.first_item]
    if r.relation == "outside_reader":   # no work to start: absent controls first, each in the reader's own areas'
        # order (an underwriter's "MFA for all access into the CDE" before a partly met scan), then the plan's
        rank = {t: n for n, t in enumerate(r.p.topics)}
        plan_at = {i: n for n, i in enumerate(i for s in work_plan(r.f).steps for i in s.indices)}
        leads = sorted((i for i in r.f.open_order if main_topic(r.f, i) in rank),
                       key=lambda i: (r.f.requirements[i].status != "not_met", rank[main_topic(r.f, i)],
                                      plan_at.get(i, len(plan_at))))
        leads = leads or list(r.f.open_order)
    elif r.argued_items:   # the first item to close, then the items the findings argue, in their order
        leads = first + [i for i in r.argued_items if i not in first]
    elif r.whole:   # the first item to close, then the lead item of each area
        own = [g for g in r.groups if g.topic.id in r.p.topics and g.indices] or [g for g in r.groups if g.indices]
        leads = first + [g.indices[0] for g in own if g.indices[0] not in first]
    else:
        leads = first + [i for i in r.mine_open if i not in first]
    # an item that applies only under a condition (16 CFR 314.6) is not "most pressing" while others are open
    leads = sorted(leads, key=lambda i: bool(r.f.conditions[i]))
    names = [POLICY] * _owns_policy(r) + [r.ref(i) for i in leads]
    items = names[:3]
    listed = ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]
    return f"{r.fill(r.p.summary)} {r.fill(r.plan.lead, items=listed)}"


def call_to_action(r: Reading, p: Persona) -> str:
    ask = r.fill(p.ask_clean if r.all_met else p.ask)
    if r.relation != "outside_reader" and not r.all_met and p.ask_names_first:
        first = r.first_item
        if r.policy_first or (_owns_policy(r) and (r.whole or first is None)):
            ask += f", starting with {POLICY}"
        elif first is not None:
            ask += f", starting with {r.ref(first)}"
    return r.fill(r.plan.cta, ask=ask, Ask=cap(ask))
