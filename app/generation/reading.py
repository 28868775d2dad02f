"""What one reader gets from an assessment: content selection, before any sentence is written.

A `Reading` routes the assessment's requirements to one persona: the open requirements of the
persona's topics, grouped by topic in the persona's order; the met ones in those topics; the open
ones that belong to other readers; the persona's topics that the assessment does not cover; and the
sourced facts of the kinds the persona reads. Blocks (app.generation.blocks) write from it. The
per-assessment parts (topics, the work plan) are computed once on the facts and shared by all 25.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..content import TOPICS, Persona, Plan, Subject, Topic, load, padded_words
from ..content.schemas import REASON_LENSES
from .facts import AssessmentFacts
from .plan import POLICY_SUBJECT, main_topic, tier_ranks, work_plan
from .wording import join, plural

STATUS_WORD = {"met": "met", "not_met": "not met", "partially_met": "partly met"}
MAX_GROUPS = 4       # topic groups discussed in the body of one report
KEY_POINT_MAX = 200  # characters in one key point: read at a glance
MAX_NAMED = 4        # requirements named per group; the rest are counted and left to the appendix
MAX_FACTS = 3        # sourced facts quoted in one report
LENS_REASONS = 3     # requirements argued by their subject's reason (not the reader's own angle) in one report
# A subject's reasons, one per kind (app/content/subjects.toml), each read by one reader per run (`lens_allotment`):
# readers take the kinds in their own order of interest and fall back to the next where a kind is taken.
LENSES = REASON_LENSES
_FIRST = {   # the kinds a reader wants first; the other kinds follow in LENSES order
    # an investor weighs what a loss does to the business before how directors oversee it ("board members should
    # expect ..." read as board text pasted into an investor's report)
    "board_member": ("oversight", "impact"), "investor": ("impact", "evidence", "liability", "risk", "recovery"),
    "ceo_president": ("impact", "customers"), "small_business_owner": ("impact", "cost"), "cfo": ("cost", "impact"),
    "coo": ("recovery", "operations"), "sales_director": ("customers",), "marketing_director": ("customers",),
    "hr_director": ("people",), "project_manager": ("people", "operations"), "incident_responder": ("recovery",),
    "internal_auditor": ("evidence",), "external_auditor": ("evidence",),
    # an underwriter prices how likely a claim is and how large: how a loss happens, then how long it lasts
    "insurance_underwriter": ("risk", "recovery", "liability"),
}
_BY_RELATION = {"operator": ("risk", "operations"), "outside_reader": ("evidence",), "decision_maker": ("impact",)}


# Kinds that do not fit a reader at all: a practice owner has no buyers' due diligence or board to answer to, an
# operator reads neither, and outside readers are not told how staff or budgets run.
# Nor do the steps of the working control ("system administrators enable logging on each new system") fit the
# readers who decide rather than run it.
_DECIDE = {"operations"}
# What a control asks of staff ("analysts flooded with false alarms learn to dismiss alerts") is not a director's,
# counsel's or finance's reason for it: a board member read it as the reason monitoring matters.
_STAFF = {"people"}
_NEVER = {"small_business_owner": {"customers", "oversight", *_DECIDE}, "operator": {"customers", "oversight"},
          "general_counsel": {*_DECIDE, *_STAFF}, "board_member": {*_DECIDE, *_STAFF}, "ceo_president": _DECIDE,
          "cfo": {*_DECIDE, *_STAFF},
          "outside_reader": {"customers", "people", "cost", "operations"}}


def reason_order(persona: Persona, facts: AssessmentFacts | None = None) -> tuple[str, ...]:
    """The kinds of a subject's reasons this reader takes, most wanted first; kinds that do not fit them left out,
    and, where the organization's buyers are not businesses that vet suppliers (a hotel's guests, a practice's
    patients, an industry no pack knows), the buyers' due-diligence reason."""
    first = _FIRST.get(persona.id) or (("liability", "evidence") if persona.category == "Management"
                                       else _BY_RELATION[persona.relation])
    never = _NEVER.get(persona.id, set()) | _NEVER.get(persona.relation, set())
    if facts is not None and not (facts.industry_pack and facts.industry_pack.sells_to_businesses):
        never = never | {"customers"}
    return tuple(k for k in (*first, *(k for k in LENSES if k not in first)) if k not in never)


GENERIC_DATA = "sensitive data"
POLICY = "the missing security policy"   # named among requirements: in lists, "starting with ..."
# Readers who answer for the whole organization see the whole assessment from their angle; outside
# readers do too. Everyone else reads the topics they own (persona `topics`) and who owns the rest.
WHOLE_SCOPE = frozenset({"board_member", "ceo_president", "cfo", "coo", "general_counsel", "small_business_owner",
                         "ciso", "cio", "compliance_officer", "risk_manager", "internal_auditor", "project_manager"})
# Readers for whom a missing written security policy is the first finding.
POLICY_FIRST = frozenset({"small_business_owner", "ceo_president", "general_counsel", "compliance_officer",
                          "internal_auditor", "external_auditor"})
# Readers who own nothing day to day and so are never named as a topic's owner.
# Readers never named as the owner of others' open items: they answer for the outcome, judge it from outside, or
# (sales, marketing) carry its consequences to buyers and the public without running any control: readers found
# "Restricts the transmission ... of information" (SOC 2 CC6.7) handed to "the sales director".
NOT_OWNERS = frozenset({"board_member", "ceo_president", "cfo", "coo", "general_counsel", "small_business_owner",
                        "investor", "insurance_underwriter", "external_auditor", "sales_director",
                        "marketing_director"})
ALLOT_ORDER = ("External", "Executive", "Management", "Business", "Operational")
# Who reads what a subject means in the client's industry first: those who act on it (the owner before all).
INDUSTRY_ORDER = ("Operational", "Management", "Business", "Executive", "External")
INDUSTRY_NOTES = 2   # industry notes one reader is given before the others are served
# Figures about one kind of failure, quoted only when the assessment has that kind of gap: a supply-chain
# statistic in a report whose open items are backup and logging reads as boilerplate.
FACT_TOPICS = {
    "third_party": {"vendor"},
    "ransomware": {"backup", "incident", "vuln"},
    "credentials": {"access"},
    "human_element": {"hr"},
    "detection": {"logging", "incident"},
}


@dataclass(frozen=True)
class Group:
    """The reader's open requirements of one topic, not met first."""

    topic: Topic
    indices: tuple[int, ...]   # in the shared plan's order: lower tier first where the framework has tiers,
                               # then not met before partly met
    policy: bool = False     # the assessment says no documented security policy exists (governance)


# What a partner appends to the industry as a note on size or form, not part of its name: "Law firm, 40 lawyers",
# "Freight software (SaaS)", "Charity running food banks with 300 volunteers". Said mid-sentence, it broke the
# sentence ("an organization in boutique hotel group, 6 properties" reached a panel's underwriter).
_INDUSTRY_QUALIFIER = re.compile(r"\s*(?:[,;(]|\s-\s|\s+with\s+(?:about\s+|around\s+|over\s+)?\d).*$")


def _industry_name(text: str) -> str:
    """The partner's industry text, readable mid-sentence ("Medical billing" -> "medical billing"), without a
    note on size or form ("Law firm, 40 lawyers" -> "law firm")."""
    text = " ".join(text.split())
    text = _INDUSTRY_QUALIFIER.sub("", text) or text
    first = text.split(" ", 1)[0] if text else ""
    return text[:1].lower() + text[1:] if first[1:].islower() else text


NOT_A_BUSINESS = frozenset({"nonprofit", "public_sector", "education"})
# A water utility is a public body where its name says so (most US drinking water systems are publicly owned);
# an investor-owned water company answers to shareholders like any business.
PUBLIC_OWNED = re.compile(r"\b(?:municipal|public|district|authority|city|county|regional|council|board)\b", re.I)


def _business_word(industry: str, pack) -> str:
    """What an owner calls the organization: "practice" (a dental or medical practice, a law practice),
    "organization" (a charity, a council, a school), else "business"."""
    if re.search(r"\b(non-?profit|not-for-profit|charit|ngo\b|foundation\b)", industry or "", re.I):
        return "organization"
    if re.search(r"\bpractice\b", industry or "", re.I):
        return "practice"
    if pack and pack.key == "water" and PUBLIC_OWNED.search(industry or ""):
        return "organization"
    return "organization" if pack and pack.key in NOT_A_BUSINESS else "business"


# Owned by its members, not by shareholders: a credit union, a cooperative, a mutual insurer.
MEMBER_OWNED = re.compile(r"\b(?:credit unions?|co-?operatives?|co-ops?|mutual)\b", re.I)


def _backers(industry: str, pack) -> str:
    """Whom a board answers to besides a regulator: "funders and members" at a charity, "the public" at a
    council or school, "members" at a credit union or cooperative, else "shareholders"."""
    if MEMBER_OWNED.search(industry or ""):
        return "members"
    kind = _business_word(industry, pack)
    if kind == "organization" and not (pack and pack.key in {"public_sector", "education", "water"}):
        return "funders and members"
    return "the public" if kind == "organization" else "shareholders"


def _article(word: str) -> str:
    """ "an" before a vowel as written (an ISO 27001, an automotive parts supplier), else "a" (a HIPAA, a SOC 2)."""
    return "an" if word[:1].upper() in "AEIOU" else "a"


# Last words that make a partner's industry text name a kind of organization ("Health care clinic", "Law firm"),
# not a sector ("Banking", "Medical billing services").
_ORG_NOUN = re.compile(r"\b(?:agency|association|authority|bank|brokerage|business|carrier|centre|center|chain|"
                       r"charity|clinic|co-?op|college|company|contractor|cooperative|council|credit union|"
                       r"dealer(?:ship)?|department|district|firm|foundation|group|hospital|hotel|insurer|"
                       r"lab(?:oratory)?|manufacturer|marketplace|network|non-?profit|office|partnership|pharmacy|"
                       r"platform|practice|processor|provider|restaurant|retailer|school|service|shop|society|"
                       r"startup|store|studio|subcontractor|supplier|trust|university|utility|vendor)$", re.I)


# An organization's kind followed by what it does: "charity running food banks", "clinic for veterans".
_ORG_THEN = re.compile(_ORG_NOUN.pattern[:-1] + r"\s+(?:running|serving|operating|providing|offering|for|in|of|that|"
                       r"which)\b", re.I)


def _names_kind(industry: str) -> bool:
    """Whether the partner's industry text names a kind of organization ("clinic", "charity running ...")."""
    return bool(industry and (_ORG_NOUN.search(industry) or _ORG_THEN.search(industry)))


def _profile(industry: str, staff: str) -> str:
    """Who the client is, as an appositive to its name: "a physical therapy clinic with 14 staff"; "" where the
    partner's industry text names no kind of organization ("Healthcare": "an organization in healthcare" would say
    nothing the reader does not know)."""
    if not _names_kind(industry):
        return ""
    return f"{_article(industry)} {industry}" + (f" with {staff}" if staff else "")


def _an_org(industry: str) -> str:
    """The organization by its kind, mid-sentence: "a health care clinic", "a charity running food banks", or
    "an organization in banking"."""
    if not industry:
        return "an organization"
    return f"{_article(industry)} {industry}" if _names_kind(industry) else f"an organization in {industry}"


AUDIT_CONCLUSION = ("An assessor's conclusion on {framework} rests on evidence, from documents, interviews and the "
                    "assessor's own testing, that each control is in place and working as of the assessment.")
# said after an incident ("If ..., <stake>"): what the assessor would make of it, not that it is itself a finding
AUDIT_STAKE = ("you would find it in the incident records and weigh it as evidence that the control does "
               "not work")
_TYPE_1 = re.compile(r"\btype\s*(?:1|i)\b", re.I)


def audit_over_period(facts: AssessmentFacts) -> bool:
    """Whether the framework's audit concludes on a period of operation (a SOC 2 Type 2 report) rather than as of a
    date (ISO certification, a PCI DSS ROC, a HIPAA or CMMC assessment, a SOC 2 Type 1 report)."""
    pack = facts.framework_pack
    return bool(pack and pack.audit_period and not _TYPE_1.search(facts.framework))


def slots_for(facts: AssessmentFacts) -> dict[str, str]:
    """What the content files' placeholders stand for in this assessment's reports."""
    def build():
        fw, ind = facts.framework_pack, facts.industry_pack
        framework = fw.short if fw else facts.framework
        industry = _industry_name(facts.industry)
        return {"org": facts.organization, "Org": facts.organization_at_start,
                "framework": framework, "a_framework": f"{_article(framework)} {framework}",
                "A_framework": f"{_article(framework).capitalize()} {framework}",
                "framework_name": fw.name if fw else facts.framework,
                "data": ind.data if ind and (not fw or fw.data_generic) else fw.data_term if fw else GENERIC_DATA,
                "industry": industry, "a_industry": f"{_article(industry)} {industry}", "an_org": _an_org(industry),
                "profile": _profile(industry, facts.headcount_text),
                "served": ind.served if ind else f"the people {facts.organization} serves",
                # "candidates, client employers and partners", not "candidates and client employers and partners"
                "served_and_partners": (ind.served.replace(" and ", ", ", 1) if ind and " and " in ind.served
                                        else ind.served if ind else f"the people {facts.organization} serves")
                + " and partners",
                "one_served": ind.one_served if ind else f"someone {facts.organization} serves",
                "systems": ind.systems if ind else "the main systems",
                "business": _business_word(facts.industry, ind),
                # to whom a board answers besides a regulator: no shareholders at a charity or a council
                "backers": _backers(facts.industry, ind),
                # an attestation over a period unless the framework's audit is another kind (ISO certification, PCI ROC)
                "audit_conclusion": (fw.audit_conclusion if fw and fw.audit_conclusion else AUDIT_CONCLUSION).format(
                    framework=framework, org=facts.organization),
                "audit_stake": fw.audit_stake if fw and fw.audit_stake else AUDIT_STAKE}
    return facts.memo("slots", build)


class Reading:
    """One persona's selection from one assessment, with the helpers to name things consistently.

    One scope rule: a requirement belongs to its main topic (its first, from the framework id or the
    title). Readers who answer for the whole organization (`WHOLE_SCOPE`, and every outside reader)
    see every open requirement, grouped by topic in the shared plan's order (most absent controls
    first); the others see the topics they own, in that order, and are told who owns the rest.
    """

    def __init__(self, facts: AssessmentFacts, persona: Persona, plan: Plan, methodology: str = "spin"):
        # an auditor's words fit the audit's kind, and a framework may reword what the reader answers for
        persona = persona.for_audit(audit_over_period(facts)).for_framework(facts.framework_pack)
        self.f, self.p, self.plan, self.methodology = facts, persona, plan, methodology
        self.content = load()
        self.relation = persona.relation
        self.framework = facts.framework_pack
        self.industry = facts.industry_pack
        reqs = facts.requirements
        mine = persona.topics
        if facts.small and persona.id in SMALL_IT_HEADS:   # the head of IT at a firm this size runs all of IT
            mine = persona.topics + tuple(t for t in TOPICS if t not in persona.topics and t not in SMALL_OWNER)
        self.whole = persona.relation == "outside_reader" or persona.id in WHOLE_SCOPE
        by_topic: dict[str, list[int]] = {}
        for step in work_plan(facts).steps:
            if step.indices:
                by_topic[step.topic.id] = list(step.indices)
        # A missing documented policy is a governance gap. Readers who answer for policy hear of it first,
        # in a finding of its own; other readers of the whole assessment find it in the governance group.
        self.policy_gap = not facts.has_policy
        self.policy_first = self.policy_gap and persona.id in POLICY_FIRST
        policy_grouped = self.policy_gap and not self.policy_first and (self.whole or "governance" in mine)
        if policy_grouped:
            by_topic.setdefault("governance", [])
        # One order everywhere: the shared work plan's (the topics with most absent controls first), so the
        # findings, the summary, "first to close", the call to action and the schedule agree.
        plan_order = [s.topic.id for s in work_plan(facts).steps if s.indices]
        order = [t for t in plan_order if t in by_topic] + [t for t in by_topic if t not in plan_order]
        if not self.whole:
            order = [t for t in order if t in mine]
        self.groups = tuple(
            Group(self.content.topics[t], tuple(by_topic[t]), policy_grouped and t == "governance")
            for t in order)
        self.mine_open = tuple(i for g in self.groups for i in g.indices)
        mine_set = set(self.mine_open)
        self.others = tuple(i for i in facts.open_order if i not in mine_set)
        # an open requirement about written policy itself (ISO 27001 A.5.1) is the missing policy, not one more item
        # (a panel read "Six more open items" over five)
        about_policy = any(facts.subjects[i] and facts.subjects[i].id == POLICY_SUBJECT for i in self.others)
        self.policy_elsewhere = self.policy_gap and not self.policy_first and not policy_grouped and not about_policy
        self.others_count = len(self.others) + self.policy_elsewhere
        self.met_mine = tuple(i for i, r in enumerate(reqs)
                              if r.status == "met" and (self.whole or main_topic(facts, i) in mine))
        covered = {t for ts in facts.topics for t in ts}
        # "Not assessed here" names only what the framework could have assessed: Part 500 has no change control.
        can = self.framework.covers if self.framework else frozenset(mine)
        self.uncovered = tuple(self.content.topics[t] for t in persona.topics if t not in covered and t in can)
        self.plan_blocks = {b for section in plan.sections for b in section.blocks}
        self.sources: list[dict] = []     # facts quoted, in order, for the sources appendix
        self.argued: set[str] = set()     # the topics whose persona angle a finding has used
        self.argued_items: list[int] = []  # the requirements the findings argue, in order (the summary names them)
        self.leads: set[str] = set()      # the topic leads ("Why backup and recovery matters to you") already said
        self.voiced: set[str] = set()     # the methodology's connectives ("it matters to you because") already used
        self.unargued: list[int] = []     # open items of argued areas that no reason of this reader's covers
        self.slots = slots_for(facts)

    @property
    def first_item(self) -> int | None:
        """The reader's first open requirement in the shared work plan's order: "first to close" everywhere. One
        that applies only under a condition (16 CFR 314.6) comes first only where nothing else is open: a panel's
        counsel was told to start with two items the firm may be exempt from."""
        mine, conditional = set(self.mine_open), None
        for step in work_plan(self.f).steps:
            for i in step.indices:
                if i in mine and not self.f.conditions[i]:
                    return i
                if i in mine and conditional is None:
                    conditional = i
        return conditional

    def others_by_owner(self) -> list[tuple[str, str, int]]:
        """The open items outside this reader's area: (owner, topic label, count), largest first."""
        counts: dict[str, int] = {}
        for i in self.others:
            t = main_topic(self.f, i)
            counts[t] = counts.get(t, 0) + 1
        if self.policy_elsewhere:
            counts["governance"] = counts.get("governance", 0) + 1
        rows = [(topic_owner(t, self.p.id, self.f.small), self.content.topics[t].label, n) for t, n in counts.items()]
        return sorted(rows, key=lambda row: -row[2])

    # ------------------------------------------------------------------ state of the reader
    @property
    def all_met(self) -> bool:
        """Nothing open anywhere: the report is about sustaining and evidencing compliance."""
        return self.f.open_count == 0 and not self.policy_gap

    @property
    def item_term(self) -> str:
        return self.framework.item_term if self.framework else "requirement"

    def item(self, n: int) -> str:
        """ "one criterion", "3 controls" """
        term = self.item_term
        return f"one {term}" if n == 1 else f"{n} {plural(term)}"

    # ------------------------------------------------------------------ filling text
    def fill(self, text: str, **extra: str) -> str:
        return text.format_map({**self.slots, **extra} if extra else self.slots)

    # ------------------------------------------------------------------ naming requirements
    def ref(self, i: int) -> str:
        """ "Audit controls (164.312(b), required)": title, then id and any designation the pack gives."""
        return refs_of(self.f)[i]

    def list_ref(self, i: int) -> str:
        """The ref as a list item carries it: a one-word designation ("required") kept, a longer one ("Art. 83(4)
        fines") left to the prose and the appendix, so a list line stays the requirement and its status."""
        info = infos_of(self.f)[i]
        if info and " " in info.get("designation", ""):
            r = self.f.requirements[i]
            return f"{named(r.title)} ({r.id.strip()})" if r.title.strip() else r.id.strip()
        return self.ref(i)

    def refs(self, indices: tuple[int, ...] | list[int], limit: int = MAX_NAMED) -> str:
        """Up to `limit` refs joined, then "and N more" for the rest."""
        shown = [self.ref(i) for i in indices[:limit]]
        rest = len(indices) - len(shown)
        if rest:
            shown.append(f"{rest} more")
        return join(shown)

    def short(self, i: int) -> str:
        return self.f.requirements[i].id.strip()

    def shorts(self, indices: tuple[int, ...] | list[int], limit: int = 5) -> str:
        shown = [self.short(i) for i in indices[:limit]]
        rest = len(indices) - len(shown)
        if rest:
            shown.append(f"{rest} more")
        return join(shown)

    def stake(self, topic: Topic) -> str:
        """The reader's stake in a topic as a whole: the persona's own angle, or for a topic outside the
        persona's list, the topic's failure scenario in the reader's lens."""
        if topic.id in self.p.angles:
            return self.fill(self.p.angles[topic.id])
        return self.lens(topic)

    def lens(self, topic: Topic) -> str:
        """What an open item of the topic risks, in the reader's lens: how it happens (operators), what it
        triggers with regulators, clients and courts (management) or what the business loses."""
        if self.relation == "operator":
            return self.fill(topic.risk)
        return self.fill(topic.liability if self.p.category == "Management" else topic.impact)

    def incident(self, topic: Topic) -> str:
        """How a serious incident through this topic starts, as an event: for the readers who weigh what the
        business loses, the industry's own scenario where its pack has one (a restaurant's point-of-sale integrator,
        a water plant's SCADA); for operators and management, and where no pack has one, the topic's risk ("an
        intruder works unnoticed for months ..."). Never a consequence in a reader's lens: "If after an incident the
        organization cannot show which records were touched, ..., the next audit finds it" reads as no event at all
        (panel, 2026-11-27). Operators and management keep the short form: a long scenario shared by more readers
        would read as the same paragraph in every report."""
        scenario = scenarios_of(self.f).get(topic.id)
        if scenario and scenario_allotment(self.f, self.methodology).get(self.p.id) == topic.id:
            return self.fill(scenario)
        return self.fill(topic.risk)

    def exposure_facts(self) -> list[dict]:
        """The facts of the run given to this reader that say what a failure costs or triggers, or put a figure on
        it: what an exposure section quotes (without one left, it tells the reader's scenario instead)."""
        return [f for f in self.facts_for() if f["kind"] in CONSEQUENCE_KINDS or FIGURE.search(f["text"])]

    def tells_scenario(self) -> bool:
        """Whether this reader's report tells how a serious incident would come about: its plan has the scenario,
        or an exposure section that starts from one (`exposure_tells_incident`)."""
        blocks = self.plan_blocks
        return "scenario" in blocks or "exposure" in blocks and self.exposure_tells_incident()

    def exposure_tells_incident(self) -> bool:
        """Whether the exposure section starts from how a serious incident would come about in the reader's open
        areas: when no fact of theirs is left to quote, or when the only ones are survey figures from the general
        pool, which a panel read as "one IBM statistic, irrelevant to this client" standing for the whole stake."""
        if "scenario" in self.plan_blocks or not self.groups:
            return False
        general = general_fact_ids(self.f)
        return all(id(f) in general for f in self.exposure_facts())

    def event_topics(self) -> list[Topic]:
        """The reader's areas a serious incident can start from, their open ones first: a failure of governance or
        privacy is not an event, so a scenario told through one would have nothing happen ("if ..., the owner loses
        days of work" must follow from what happened)."""
        seen: list[Topic] = []
        for topic in [g.topic for g in self.groups] + [self.content.topics[t] for t in self.p.topics]:
            if topic.id not in NOT_AN_EVENT and topic not in seen:
                seen.append(topic)
        return seen

    def scenario_topic(self) -> Topic:
        """The area this reader's scenario starts from: the one the run gave it (`scenario_allotment`), else its
        first event area."""
        allotted = scenario_allotment(self.f, self.methodology).get(self.p.id)
        return self.content.topics[allotted] if allotted else self.first_event_topic()

    def first_event_topic(self) -> Topic:
        """The reader's first area an incident can start from, else its first area at all."""
        events = self.event_topics()
        if events:
            return events[0]
        return self.groups[0].topic if self.groups else self.content.topics[self.p.topics[0]]

    def obliges(self, i: int) -> str | None:
        """What the requirement obliges, from its pack entry, or None when no pack knows it."""
        info = infos_of(self.f)[i]
        return self.fill(info["obliges"]) if info and info.get("obliges") else None

    def why(self, i: int) -> tuple[str, str | None, str] | None:
        """Why requirement i matters to this reader: the framework's own rule about it (its pack note), where the
        run gave it to this reader (`note_allotment`), as (note, None, "framework"); else, from its own subject, the
        persona's angle that is mainly about that subject (the requirement's topic's angle first; each angle argued
        once per report), as (angle, its topic, "angle"); else the subject's own reason in the reader's lens, as
        (sentence, None, kind), where the run allotted it to this reader (`lens_allotment`); None otherwise. An
        angle about multi-factor sign-in never argues "Termination procedures"."""
        if note_allotment(self.f, self.methodology).get(i) == self.p.id:   # the framework's own rule comes first
            return self.fill(infos_of(self.f)[i]["matters"]), None, "framework"
        sub = subjects_of(self.f)[i]
        own = main_topic(self.f, i)
        if sub is None:   # a requirement as broad as its topic ("Access control"): the topic's angle is about it
            title = " ".join(re.findall(r"[a-z]+", self.f.requirements[i].title.lower()))
            label = self.content.topics[own].label
            if title and title in label and own in self.p.angles and own not in self.argued:
                self.argued.add(own)
                return self.fill(self.p.angles[own]), own, "angle"
            return None
        for tid in [own, *(t for t in self.p.angles if t != own)]:
            if tid in self.p.angles and tid not in self.argued and sub.id == self._angle_subject(tid):
                self.argued.add(tid)
                return self.fill(self.p.angles[tid]), tid, "angle"
        allotted = lens_allotment(self.f, self.methodology)
        lens = next((name for name in ("industry", *LENSES) if allotted.get((sub.id, name)) == (self.p.id, i)), None)
        if lens == "industry":
            return self.fill(self.industry.subject_notes[sub.id]), None, lens
        return (self.fill(reason_of(self.f, sub, lens)), None, lens) if lens else None

    def interactions(self) -> list[str]:
        """What two of the assessment's requirements mean together, for the interactions the run gave this
        reader (`interaction_allotment`), each naming its requirements with their own statuses."""
        out = []
        for it, met, opened in interaction_allotment(self.f, self.methodology).get(self.p.id, []):
            names = {"met": self.ref(met[0]) if met else "", "open": self.ref(opened[0]),
                     "open_status": STATUS_WORD[self.f.requirements[opened[0]].status],
                     "open2": self.ref(opened[1]) if len(opened) > 1 else "",
                     "open2_status": STATUS_WORD[self.f.requirements[opened[1]].status] if len(opened) > 1 else "",
                     "open_gap": GAP[self.f.requirements[opened[0]].status]}
            text = self.fill(it.texts["owner" if self.p.id == OWNER else self.relation], **names)
            out.append(text[:1].upper() + text[1:])
        return out

    def angle_for(self, i: int) -> bool:
        """Whether any of this reader's angles is mainly about requirement i's subject."""
        sub = subjects_of(self.f)[i]
        return bool(sub) and any(sub.id == self._angle_subject(t) for t in self.p.angles)

    def _angle_subject(self, tid: str) -> str | None:
        return self.content.main_subject(self.p.angles[tid], tid)

    def item_clause(self, i: int, with_obligation: bool = True) -> str:
        """One requirement with its own status, and what it obliges where the pack knows it."""
        status = self.f.requirements[i].status
        text = f"{self.ref(i)} is {STATUS_WORD[status]}"
        asks = self.obliges(i) if with_obligation else None
        if asks and not echoes(self.f.requirements[i].title, asks):
            text += f", where {self.slots['framework']} asks for {asks}"
        return text

    # ------------------------------------------------------------------ sourced facts
    def facts_for(self) -> list[dict]:
        """The sourced facts the run allotted to this reader (see `allot_facts`), most wanted first."""
        return list(allot_facts(self.f)[self.p.id])

    def cite(self, fact: dict) -> str:
        """A fact's text, recorded for the sources appendix."""
        if fact not in self.sources:
            self.sources.append(fact)
        return self.fill(fact["text"])


def general_fact_ids(facts: AssessmentFacts) -> frozenset[int]:
    """The general pool's facts (IBM, Verizon, NIST, SEC), by identity: not the client's own rules or sector."""
    return facts.memo("general_fact_ids", lambda: frozenset(id(f) for f in load().general_facts))


def infos_of(facts: AssessmentFacts) -> tuple[dict | None, ...]:
    """What the framework pack knows of each requirement, looked up once per run."""
    return facts.infos


def subjects_of(facts: AssessmentFacts) -> tuple[Subject | None, ...]:
    """What each requirement is about (its subject), from its title and what it obliges, once per run."""
    return facts.subjects

# Why a requirement leads a reader's list, for "First to close": said only of the subjects the plan's risk order
# is about (Verizon's DBIR puts credential abuse, exploited vulnerabilities and phishing among the commonest first
# steps of a breach), never of the whole topic: segregation of duties is access control, but stolen sign-ins are
# no reason to close it first.
WHY_SUBJECT_FIRST = {
    **dict.fromkeys(("access.mfa", "access.passwords", "access.remote", "access.privileged"),
                    "credential abuse was the commonest way into breaches, the initial access vector in 22% of them "
                    "(Verizon DBIR 2025)"),
    "backup.copies": "restorable backups decide whether ransomware costs days or weeks",
    "backup.recovery": "a planned, rehearsed recovery decides whether an outage costs days or weeks",
    "vuln.patching": "exploited vulnerabilities were the initial access vector in 20% of breaches (Verizon DBIR 2025)",
    **dict.fromkeys(("hr.training", "vuln.email_web"), "phishing is among the commonest ways in"),
    **dict.fromkeys(("incident.plan", "incident.handling"),
                    "a practised response decides how quickly an incident is contained"),
    **dict.fromkeys(("logging.collection", "logging.monitoring"),
                    "without logs an intrusion goes unseen and its scope cannot be shown"),
}


def why_first(facts: AssessmentFacts, i: int, others) -> str:
    """Why requirement `i` comes before `others` (the rest of a reader's open items) in the plan's order, as the
    tail of "First to close: <requirement>, not met"; "" when nothing but the list's order says so. It restates the
    plan's sort keys: the lowest tier, then the subject's own reason where the plan's risk order is about it."""
    others = [j for j in others if j != i]
    if not others:
        return ""
    tier = tier_ranks(facts)
    pack = facts.framework_pack
    if pack and pack.tier_term and tier[i] < min(tier[j] for j in others):
        return f"; {pack.designations[tier[i]]} comes before the higher {pack.tier_term}s"
    # An absent control before partly met ones is what "not met" already says; the reason given is the subject's
    subject = subjects_of(facts)[i]
    if subject and subject.id in WHY_SUBJECT_FIRST and any(main_topic(facts, j) != subject.topic for j in others):
        return f"; {WHY_SUBJECT_FIRST[subject.id]}"
    return ""

_FILLER = frozenset({"and", "or", "of", "the", "a", "an", "to", "for", "with", "its", "their", "by", "in", "on"})


def echoes(title: str, obliges: str) -> bool:
    """Whether what a requirement obliges only repeats its title ("Assesses and manages risks associated with
    vendors" asks for "assessment and management of risks associated with vendors"): every word of the
    obligation starts like a word of the title."""
    def stems(text: str) -> set[str]:
        return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FILLER}
    said, asked = stems(title), stems(obliges)
    return bool(asked) and len(asked - said) <= 1 and len(asked) <= len(said) + 2


# Verbs that open a title written as a sentence ("Identifies, selects, and develops ...", SOC 2's criteria):
# such a title is quoted in prose, as a consultant would, so it does not read as a noun pasted mid-sentence.
_TITLE_VERBS = frozenset({
    "addresses", "analyzes", "approves", "assesses", "attracts", "authorizes", "collects", "conducts", "disposes",
    "encrypts", "enforces", "generates", "notifies", "retains", "tests", "communicates", "considers", "defines",
    "demonstrates",
    "deploys", "designs", "detects", "develops", "discloses", "establishes", "evaluates", "exercises", "holds",
    "identifies", "implements", "internally", "externally", "maintains", "manages", "monitors", "obtains",
    "performs", "prevents", "protects", "provides", "recovers", "registers", "removes", "responds", "restricts",
    "selects", "specifies", "uses"})
_SENTENCE_TITLE = re.compile(r"\b(?:is|are|was|were|has been|have been)\b")


def named(title: str) -> str:
    """A requirement's title as prose names it: a title that is a sentence or a verb phrase ("Vendor default
    accounts are managed", "Monitors system components for anomalies") in quotation marks, any other as it is."""
    title = title.strip()
    first = title.split(" ", 1)[0].rstrip(",").lower()
    if first in _TITLE_VERBS or _SENTENCE_TITLE.search(title):
        return f"\u201c{title}\u201d"
    return title


def refs_of(facts: AssessmentFacts) -> tuple[str, ...]:
    """Each requirement as prose names it, once per run: title (quoted when it is a sentence), then id and any
    designation the pack gives."""
    def build():
        out = []
        for r, info in zip(facts.requirements, infos_of(facts), strict=True):
            title, rid = named(r.title), r.id.strip()
            designation = info.get("designation", "") if info else ""
            # a designation the id already spells ("IA.L2-3.5.3" is a Level 2 requirement) is not said twice
            said = designation and re.search(rf"(?<![A-Za-z0-9]){re.escape(designation)}(?![A-Za-z0-9])", rid)
            tail = f", {designation}" if designation and not said else ""
            out.append(f"{title} ({rid}{tail})" if title else f"{rid}{tail}")
        return tuple(out)
    return facts.memo("refs", build)


@dataclass(frozen=True)
class Tier:
    """One tier of a tiered framework (CIS Implementation Group, Essential Eight maturity level, CMMC level):
    the requirements assessed that the tier includes (its own and every lower tier's) and how many are met;
    the same for the tier's own requirements; and how many of its own the pack holds."""

    name: str
    assessed: int
    met: int
    own_assessed: int
    own_met: int
    own_in_pack: int


def tiers_of(facts: AssessmentFacts) -> tuple[tuple[Tier, ...], str | None]:
    """The tiers the assessment touches, lowest first, and the highest tier it reaches (every requirement of
    that tier and below that was assessed is met), or None. Empty when the framework has no tiers."""
    def build():
        pack = facts.framework_pack
        if not pack or not pack.tier_term:
            return (), None
        rank = {name: n for n, name in enumerate(pack.designations)}
        own = [rank.get((info or {}).get("designation", ""), None) for info in infos_of(facts)]
        # Distinct requirements per tier: a pack may key one requirement under several id forms.
        in_pack = [len({(info["title"], info["obliges"]) for info in pack.requirements.values()
                        if rank.get(info.get("designation")) == n}) for n in range(len(rank))]
        met = [facts.requirements[i].status == "met" for i in range(len(own))]
        tiers = []
        for n, name in enumerate(pack.designations):
            mine = [i for i, k in enumerate(own) if k == n]
            if not mine:
                continue   # nothing of this tier itself was assessed
            upto = [i for i, k in enumerate(own) if k is not None and k <= n]
            tiers.append(Tier(name, len(upto), sum(met[i] for i in upto), len(mine), sum(met[i] for i in mine),
                              in_pack[n]))
        # A tier includes the tiers below it, so the highest tier whose assessed requirements are all met is
        # reached, provided the lowest tier was assessed at all.
        full = [t.name for t in tiers if t.met == t.assessed]
        reached = full[-1] if full and tiers[0].name == pack.designations[0] else None
        return tuple(tiers), reached
    return facts.memo("tiers", build)


# Who holds an area's open items at a firm of a few dozen staff, which has no security analyst, incident responder
# or security architect (panels of a 60-person machine shop and a six-hotel group read those as invented roles).
# "Whoever leadership names": such a firm has no security manager until someone is named (a panel read "the manager
# named to run security" as a person the assessment never mentions).
SECURITY_LEAD = "whoever leadership names to run security"
SMALL_OWNER = {"hr": "whoever manages HR", "governance": SECURITY_LEAD, "vendor": SECURITY_LEAD,
               "privacy": SECURITY_LEAD}
SMALL_IT_OWNER = "the IT lead or outside IT provider"
# The head of IT at such a firm: the network, logging and encryption are theirs too, not "a colleague's or the outside
# IT provider's" (a panel's IT director at a 90-person utility read that of the network).
SMALL_IT_HEADS = frozenset({"it_director"})
IT_READERS = frozenset({"cio", "it_director", "ciso", "network_admin", "security_analyst", "security_architect",
                        "incident_responder"})


def topic_owner(topic: str, reader: str, small: bool = False) -> str:
    """Who owns a topic's open items, as a reader would say it ("the IT director"): the persona that lists
    the topic highest among its own, catalogue order breaking ties; never the reader themselves. At a small firm
    (`AssessmentFacts.small`), the people such a firm has."""
    if small:   # an IT reader there is the IT lead: the rest of IT's work is a colleague's or the provider's
        it = SMALL_IT_OWNER if reader not in IT_READERS else "a colleague or the outside IT provider"
        return SMALL_OWNER.get(topic, it)
    candidates = [(p.topics.index(topic), n, p) for n, p in enumerate(load().personas)
                  if topic in p.topics and p.id not in NOT_OWNERS and p.id != reader]
    if not candidates:
        return "leadership"
    label = min(candidates, key=lambda c: c[:2])[2].label
    return "the " + " ".join(w if w.isupper() else w.lower() for w in label.split())


# Who hears a requirement's framework note first (a breach presumption, a safe harbour, an enforcement focus):
# the readers who answer for the law and for the organization, then those who examine it.
NOTE_READERS = ("general_counsel", "compliance_officer", "small_business_owner", "data_privacy_officer",
                "ceo_president", "risk_manager", "cfo", "board_member", "internal_auditor", "external_auditor",
                "insurance_underwriter", "ciso", "coo", "incident_responder", "it_director")
NOTES_PER_READER = 2


def _allotting(facts: AssessmentFacts, methodology: str) -> dict[str, Reading]:
    """Every reader's Reading under the methodology, once per run, for the allotments (which read its groups and
    scope only; each report writes with a Reading of its own)."""
    def build():
        method = next(m for m in load().methodologies if m.id == methodology)
        return {p.id: Reading(facts, p, method.plans[p.relation], methodology) for p in load().personas}
    return facts.memo(f"allotting:{methodology}", build)


FIGURE = re.compile(r"[$€£]\s?\d|EUR \d|\d+(\.\d+)?%")
# Facts that say what a failure costs or triggers: the only ones an exposure section quotes.
CONSEQUENCE_KINDS = frozenset({"penalty", "notice", "enforcement", "breach_cost", "breach_cost_global", "ransomware",
                               "insurer_controls", "sec_disclosure", "detection", "credentials", "third_party"})


# Readers who tell a scenario another reader of the run tells when none of theirs is free (`scenario_allotment`).
REPEAT_SCENARIOS = frozenset({"Executive", "External"})

# Topics whose failure is not an event (see `Reading.event_topics`).
NOT_AN_EVENT = frozenset({"governance", "privacy"})


def _belied(facts: AssessmentFacts, scenario: str) -> bool:
    """Whether a scenario has the backups fail ("... together with backups on the same network") where the
    assessment records its backup copies met and none open: a board read that beside "Back-up (09.l): met"."""
    if "backup" not in scenario.lower():
        return False
    copies = [r.status for r, s in zip(facts.requirements, facts.subjects, strict=True)
              if s and s.id == "backup.copies"]
    return bool(copies) and all(status == "met" for status in copies)


def reason_of(facts: AssessmentFacts, subject: Subject, lens: str) -> str:
    """Why a subject matters in one kind of reason: the framework pack's own wording where it has one (under SOX,
    excess privileged access is a reliance problem for the auditor, not a server rebuild), else the subject's."""
    fw = facts.framework_pack
    return (fw.reasons.get(subject.id, {}).get(lens) if fw else None) or getattr(subject, lens)


def scenarios_of(facts: AssessmentFacts) -> dict[str, str]:
    """The incident scenarios readers are told, by topic: the framework pack's own where it has them (a SOX company's
    incident is a misstatement, not a stopped line), else the industry pack's."""
    fw, ind = facts.framework_pack, facts.industry_pack
    return fw.scenarios if fw and fw.scenarios else ind.scenarios if ind else {}


def scenario_allotment(facts: AssessmentFacts, methodology: str = "spin") -> dict[str, str]:
    """Which reader tells which of the industry's incident scenarios, once per run: {persona: topic}. A scenario is a
    long, particular paragraph; told to every reader whose first open area shares it, it read as the same paragraph
    pasted across reports (panel, 2026-11-28). The owner chooses first, then readers in the allotment order of facts;
    each takes the first of its event areas whose scenario no one has taken. When every one is taken, executives and
    outside readers, who weigh the loss, tell their first again (the industry's events read better twice than not at
    all), and sales and marketing the topic's short risk, as operators and management always do."""
    def allot():
        scenarios = scenarios_of(facts)
        if not scenarios:
            return {}
        readings = _allotting(facts, methodology)
        taken: set[str] = set()
        out: dict[str, str] = {}
        for persona in sorted(load().personas, key=lambda p: (p.id != OWNER, ALLOT_ORDER.index(p.category))):
            r = readings[persona.id]
            if r.relation == "operator" or persona.category == "Management" or not r.tells_scenario():
                continue
            # Its own open areas first: a scenario through an area the assessment left alone (ransomware and
            # restores on a PCI DSS assessment with no backup requirement) reads as beside the point.
            told = [t for t in r.event_topics() if t.id in scenarios and not _belied(facts, scenarios[t.id])]
            own = [t for t in told if any(g.topic is t for g in r.groups)]
            told = own or told
            # (a reader with a survey figure to quote in its exposure section tells a story only where one is free:
            # `exposure_tells_incident`; and the owner's story is the owner's own)
            repeats = persona.category in REPEAT_SCENARIOS and ("scenario" in r.plan_blocks or not r.exposure_facts())
            again = next((t for t in told if t.id != out.get(OWNER)), None) if repeats else None
            topic = next((t for t in told if t.id not in taken), again)
            if topic is not None:
                taken.add(topic.id)
                out[persona.id] = topic.id
        return out
    return facts.memo(f"scenarios:{methodology}", allot)


def _has(r: Reading, *blocks: str) -> bool:
    """Whether the reader's plan has any of these blocks ("findings", "coverage")."""
    return any(set(blocks) & set(s.blocks) for s in r.plan.sections)


def _argued(r: Reading) -> list[int]:
    """The requirements the reader's findings argue: the first two of each of the first MAX_GROUPS groups."""
    return [i for g in r.groups[:MAX_GROUPS] for i in g.indices[:2]]


# Who says what "first to close" obliges when no reason of theirs argues it: the readers who build the fix, in this
# order, one per run, since the sentence (the requirement and what the framework asks) reads the same for each.
FIRST_CLAUSE_ORDER = ("it_director", "network_admin", "security_architect", "security_analyst", "incident_responder",
                      "hr_director", "procurement_manager", "data_privacy_officer", "project_manager")


def first_clause_reader(facts: AssessmentFacts, methodology: str, i: int) -> str | None:
    """The one area reader of the run who spells out what requirement i, first to close in its report, obliges where
    no reason argues it (a panel's IT director found "First to close: CC6.3" only as a bullet under "Also open");
    None when no such reader has it first."""
    def allot():
        readings = _allotting(facts, methodology)
        chosen: dict[int, str] = {}
        for pid in FIRST_CLAUSE_ORDER:
            r = readings[pid]
            if not r.whole and r.first_item is not None:
                chosen.setdefault(r.first_item, pid)
        return chosen
    return facts.memo(f"first_clause:{methodology}", allot).get(i)


def note_allotment(facts: AssessmentFacts, methodology: str = "spin") -> dict[int, str]:
    """Which reader is told each open requirement's framework note (its pack entry's `matters`), decided once for
    all 25: {requirement: persona}. The note reads the same wherever it is quoted, so it goes to one reader: the
    first in NOTE_READERS whose findings argue the requirement and who has fewer than NOTES_PER_READER."""
    def allot():
        noted = [i for i, info in enumerate(infos_of(facts)) if info and info.get("matters")
                 and facts.requirements[i].status != "met"]
        taken: dict[int, str] = {}
        if not noted:
            return taken
        readings = _allotting(facts, methodology)
        for pid in NOTE_READERS:
            r = readings[pid]
            if _has(r, "findings"):
                for i in [i for i in _argued(r) if i in noted and i not in taken][:NOTES_PER_READER]:
                    taken[i] = pid
        return taken
    return facts.memo(f"note_allotment:{methodology}", allot)


def lens_allotment(facts: AssessmentFacts, methodology: str = "spin") -> dict[tuple[str, str], tuple[str, int]]:
    """Which reader argues which requirement by its subject's own reason, decided once for all 25: {(subject,
    kind): (persona, requirement)}. A subject's reason reads the same wherever it is quoted, so each goes to one
    reader and one requirement per run, and a reader quotes at most LENS_REASONS: readers in the allotment order
    of facts (outside readers first), each taking, in the plan's order, the requirements its findings name that
    none of its own angles argues, with the first kind of reason it weighs (`reason_order`) still free. Only
    readers whose plan under this methodology has findings take part: a reason allotted to a report that never
    argues requirements would be lost to the others."""
    def allot():
        content = load()
        readings = _allotting(facts, methodology)
        subjects = subjects_of(facts)
        notes = facts.industry_pack.subject_notes if facts.industry_pack else {}
        taken: dict[tuple[str, str], tuple[str, int]] = {}
        order = sorted(content.personas, key=lambda p: ALLOT_ORDER.index(p.category))
        wanted: dict[str, list[int]] = {}
        noted = note_allotment(facts, methodology)   # a reader told a requirement's framework rule needs no more
        for persona in order:
            r = readings[persona.id]
            if _has(r, "findings"):
                # an angle argues one requirement of its subject per report, so a second of the same subject wants
                # a reason of its own (a panel's network admin read "Segregation of networks (A.8.22) is not met"
                # with no reason, the segmentation angle spent on A.8.20 and the plant-floor note given elsewhere)
                angled: set[str] = set()
                wanted[persona.id] = []
                for i in _argued(r):
                    if subjects[i] is None or noted.get(i) == persona.id:
                        continue
                    if r.angle_for(i) and subjects[i].id not in angled:
                        angled.add(subjects[i].id)
                        continue
                    wanted[persona.id].append(i)
        given: dict[str, int] = {}
        # What a subject means in this industry goes first to the reader who acts on it: the owner of a small
        # organization (up to INDUSTRY_NOTES), then the reader whose own areas put the subject's topic first, the
        # people who run controls before management and executives (panel: the practice's owner read none of the
        # practice notes, which went to whoever came first in the allotment order, often an auditor).
        def fit(persona, topic):
            return (persona.id != OWNER, persona.topics.index(topic) if topic in persona.topics else len(LENSES),
                    INDUSTRY_ORDER.index(persona.category))
        for i in facts.open_order:
            sub = subjects[i]
            if sub is None or sub.id not in notes or (sub.id, "industry") in taken:
                continue
            takers = [p for p in order if i in wanted.get(p.id, []) and given.get(p.id, 0) < INDUSTRY_NOTES]
            if takers:
                best = min(takers, key=lambda p: fit(p, sub.topic))
                taken[(sub.id, "industry")] = (best.id, i)
                given[best.id] = given.get(best.id, 0) + 1
        # Two rounds: every reader's first wanted requirement (most often "first to close"), then the rest.
        for round_ in (slice(0, 1), slice(1, None)):
            for persona in order:
                for i in wanted.get(persona.id, [])[round_]:
                    if given.get(persona.id, 0) >= LENS_REASONS:
                        break
                    if (persona.id, i) in taken.values():
                        continue   # argued already, by its industry note
                    kinds = (("industry",) if subjects[i].id in notes else ()) + reason_order(persona, facts)
                    kind = next((k for k in kinds if (subjects[i].id, k) not in taken), None)
                    if kind:
                        taken[(subjects[i].id, kind)] = (persona.id, i)
                        given[persona.id] = given.get(persona.id, 0) + 1
        return taken
    return facts.memo(f"lens_allotment:{methodology}", allot)


MAX_INTERACTIONS = 2   # interactions told to one reader
GAP = {"not_met": "not in place", "partially_met": "only partly in place"}   # an open requirement, in a clause
OWNER = "small_business_owner"


def interactions_held(facts: AssessmentFacts) -> tuple[tuple[object, tuple[int, ...], tuple[int, ...]], ...]:
    """The interactions (interactions.toml) this assessment shows: (interaction, met requirements, open
    requirements), each requirement the first of its subject in the assessment's order (not met before partly met)."""
    def build():
        subjects = subjects_of(facts)
        reqs = facts.requirements
        def first(subject: str, is_open: bool) -> int | None:
            """The subject's first met requirement, or its first open one, not met before partly met."""
            found = [i for i, s in enumerate(subjects)
                     if s and s.id == subject and (reqs[i].status != "met") == is_open]
            return min(found, key=lambda i: (reqs[i].status == "partially_met", i), default=None)
        held = []
        for it in load().interactions:
            met = tuple(first(s, False) for s in it.met)
            opened = tuple(first(s, True) for s in it.open)
            if None not in met and None not in opened and len(set(met + opened)) == len(met + opened):
                held.append((it, met, opened))
        return tuple(held)
    return facts.memo("interactions", build)


def interaction_allotment(facts: AssessmentFacts, methodology: str = "spin") -> dict[str, list[tuple]]:
    """Who is told which interaction, decided once for all 25: {persona: [(interaction, met, open)]}. Each
    interaction's text for a relation goes to the first persona of that relation in its `readers` whose report
    argues findings or evidence by area under this methodology, whose area holds the open requirements (outside
    readers read the whole record) and who has fewer than MAX_INTERACTIONS; so no sentence is shared by two
    reports of a run. The small-business owner is told, besides, every interaction written in the owner's terms."""
    def allot():
        readings = _allotting(facts, methodology) if interactions_held(facts) else {}
        given: dict[str, list[tuple]] = {}
        for held in interactions_held(facts):
            it, _, opened = held
            for relation in ("outside_reader", "decision_maker", "operator"):
                for pid in it.readers:
                    r = readings[pid]
                    if r.relation != relation or len(given.get(pid, [])) >= MAX_INTERACTIONS:
                        continue
                    if not _has(r, "findings", "coverage"):
                        continue
                    if r.relation == "outside_reader" or r.whole or set(opened) <= set(r.mine_open):
                        given.setdefault(pid, []).append(held)
                        break
            if "owner" in it.texts and held not in given.get(OWNER, []):   # in the owner's own words, besides
                given.setdefault(OWNER, []).append(held)
        return given
    return facts.memo(f"interaction_allotment:{methodology}", allot)


def fact_pools(facts: AssessmentFacts) -> tuple[tuple[dict, ...], ...]:
    """Where facts come from, most specific first: the industry pack's facts about this part of the sector
    (`when_industry`: NCUA's rules for a credit union, not a bank), the framework pack, the rest of the industry
    pack, general. A pack fact about one regime only (`regime`: the UK's fines under the UK GDPR) is used where the
    partner's framework names that regime (for an industry fact, the framework or the industry text: DORA for a
    European bank, not a US credit union), and a fact about the others (`not_regime`) only where it does not. A fact
    the industry rules out (`unless_industry`: a covered entity's notice duties, for a claims administrator) is left
    out."""
    fw, ind = facts.framework_pack, facts.industry_pack
    framework, industry = padded_words(facts.framework), padded_words(facts.industry or "")

    def fits(fact: dict, said: str) -> bool:
        regime, other = fact.get("regime") or [], fact.get("not_regime") or []
        return ((not regime or any(f" {w} " in said for w in regime))
                and not any(f" {w} " in said for w in other))
    # The SEC's disclosure rules are for companies whose shares trade: never for a charity, a public body, a
    # school or a member-owned credit union (panel: an investor in a credit union was quoted Form 8-K).
    # Nor for a firm whose industry text says it has a few dozen staff (a 60-person machine shop read of Form 8-K), to
    # whom, too, the survey averages of breach costs (IBM's millions) are no measure of its own loss: panels of
    # a charity, a tax preparer and an insurance agency read them as the whole of what was at stake.
    small = facts.small
    listed = (_business_word(facts.industry, ind) == "business" and not MEMBER_OWNED.search(facts.industry or "")
              and not small)
    foreign = fw.foreign_kinds if fw else frozenset()   # kinds that do not bear on the framework's question
    general = tuple(f for f in load().general_facts if (listed or f["kind"] not in SHARE_MARKET_KINDS)
                    and not (small and f["kind"] in AVERAGE_KINDS) and f["kind"] not in foreign)
    def here(fact: dict) -> bool:   # not ruled out by the industry (`unless_industry`)
        return not any(f" {w}" in industry for w in fact.get("unless_industry") or ())
    pack = [f for f in (ind.facts if ind else ()) if here(f) and not (small and f["kind"] in AVERAGE_KINDS)
            and f["kind"] not in foreign]
    sector = tuple(f for f in pack if f.get("when_industry") and any(f" {w}" in industry for w in f["when_industry"])
                   and fits(f, framework + industry))
    rest = tuple(f for f in pack if not f.get("when_industry") and fits(f, framework + industry))
    return (sector, tuple(f for f in fw.facts if fits(f, framework) and here(f)) if fw else (), rest, general)


# Facts about companies whose shares trade (`fact_pools`).
SHARE_MARKET_KINDS = frozenset({"sec_disclosure"})
# Survey averages of what a breach costs (IBM's $4.44M), which say nothing of a small organization's own loss.
AVERAGE_KINDS = frozenset({"breach_cost", "breach_cost_global"})


def allot_facts(facts: AssessmentFacts) -> dict[str, tuple[dict, ...]]:
    """Which sourced facts each persona quotes in this run, decided once for all 25.

    Readers take facts of their kinds in rounds: every persona's first kind, then every second
    kind, and so on; within a round outside readers choose first, then executives, management,
    business and operational readers (those who most need a figure to weigh). A fact goes to
    one reader only, from the most specific pool that still has an unused fact of the kind. So
    the CFO and the board do not quote the same figure, and a reader whose kinds are exhausted
    quotes fewer facts rather than someone else's.
    """
    def allot():
        pools = fact_pools(facts)
        gaps = relevant_topics(facts)
        used: set[int] = set()
        out: dict[str, list[dict]] = {p.id: [] for p in load().personas}
        order = sorted(load().personas, key=lambda p: ALLOT_ORDER.index(p.category))
        for rank in range(max(len(p.fact_kinds) for p in order)):
            for persona in order:
                if rank >= len(persona.fact_kinds) or len(out[persona.id]) >= MAX_FACTS:
                    continue
                kind = persona.fact_kinds[rank]
                bound = FACT_TOPICS.get(kind)
                if bound is not None and not bound & gaps:
                    continue
                fact = next((x for pool in pools for x in pool if x["kind"] == kind and id(x) not in used), None)
                if fact is not None:
                    used.add(id(fact))
                    out[persona.id].append(fact)
        return {k: tuple(v) for k, v in out.items()}
    return facts.memo("allotted_facts", allot)


def relevant_topics(facts: AssessmentFacts) -> set[str]:
    """The topics of the open requirements (of every requirement when none is open)."""
    indices = facts.open_order or range(len(facts.requirements))
    return {topic for i in indices for topic in facts.topics[i]}


def topic_labels(topics: list[Topic] | tuple[Topic, ...]) -> str:
    return join([t.label for t in topics])
