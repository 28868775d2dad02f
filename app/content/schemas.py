"""The shape of every content file, checked once at start-up (marshmallow, as for the API).

A file that does not fit fails with its path and the field at fault, before the app serves
anything. Text fields may use only the placeholders in `SLOTS`; an unknown one fails here, so no
`{...}` can reach a report or a prompt.
"""

from __future__ import annotations

import re
import string

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

TOPICS = ("access", "logging", "backup", "incident", "vendor", "privacy", "encryption", "hr",
          "governance", "vuln", "network", "physical", "change", "asset", "sdlc")
RELATIONS = ("decision_maker", "operator", "outside_reader")
# the kinds of reason a subject gives (subjects.toml), one sentence each, in the order readers fall back on them
REASON_LENSES = ("risk", "impact", "liability", "evidence", "cost", "operations", "oversight", "customers", "people",
                 "recovery")
AS_OF_DATE_FIELDS = ("summary", "summary_clean", "insight", "outcome", "measures", "decisions", "questions",
                     "decisions_clean", "questions_clean", "ask", "ask_clean", "angles", "done", "evidence")
# What a framework pack may reword for one reader (`readers`): the persona's framing, where the framework changes what
# the reader answers for (a SOX company's CFO certifies internal control; a breach budget is not the question).
READER_FIELDS = (*AS_OF_DATE_FIELDS, "title", "title_clean", "position", "assumption", "stake", "deliverable_lead")
_SUBJECT_ID = validate.Regexp(r"^[a-z]+\.[a-z_]+$")   # a subject id ("access.mfa")
CATEGORIES = ("Executive", "Management", "Operational", "Business", "External")
FACT_KINDS = (
    # framework packs
    "enforcement", "penalty", "notice", "deliverable", "evidence", "cadence", "proposal", "scope",
    "technical",
    # industry packs
    "breach_cost", "lifecycle", "threat", "context",
    # cross-industry facts (general.toml)
    "breach_cost_global", "detection", "credentials", "third_party", "ransomware", "insurer_controls",
    "sec_disclosure", "board_guidance", "smb_guidance", "internal_audit", "human_element",
)
BLOCKS = ("position", "assumption", "findings", "others", "strengths", "exposure", "scenario",
          "payoff", "measures", "effort", "sequence", "evidence", "decisions", "questions",
          "coverage", "residual", "alternatives")
# Placeholders a content text may use, filled per report: the client as named mid-sentence and at
# the start of one, the framework's short and full names, what the framework protects, and the
# industry as the partner wrote it. `ask` only in a methodology's call to action.
SLOTS = frozenset({"org", "Org", "framework", "a_framework", "A_framework", "framework_name", "data", "industry",
                   # "an automotive parts supplier"; what an owner calls the organization ("practice", "business")
                   "a_industry", "business",
                   # whom a board answers to besides a regulator ("shareholders", "funders and members")
                   "backers",
                   # what an outside auditor's conclusion rests on, and what an open item makes them decide
                   "audit_conclusion", "audit_stake", "served_and_partners",
                   # the organization by its kind: "a health care clinic" where the industry names one, else
                   # "an organization in banking"
                   "an_org",
                   # who the client is, beside its first mention in the summary ("a physical therapy clinic with 14
                   # staff"), or "" where the industry names no kind of organization
                   "profile",
                   # whom the organization serves, from the industry pack ("patients", "a patient"); without one,
                   # "the people {org} serves" and "someone {org} serves", never a guessed sector
                   "served", "one_served",
                   # the systems the organization runs on, from the industry pack ("the property management,
                   # reservations and point-of-sale systems"); without one, "the main systems"
                   "systems"})
CTA_SLOTS = SLOTS | {"ask", "Ask"}
# A methodology's voice for the reader's stake in one topic as a whole: the topic's label and the
# reader's angle on it (lower-case / capitalised). Never the requirements: they are named from their
# own entries, so a topic's argument is never joined to a requirement that is only partly about it.
FINDING_SLOTS = SLOTS | {"topic", "Topic", "angle", "Angle"}
# The next requirement of the same topic: the requirement with its status ("Data backup plan (...) is partly met"),
# then why it matters, without repeating the topic's lead.
FINDING_NEXT_SLOTS = SLOTS | {"item", "Item", "angle", "Angle"}
# A methodology's voice for the summary's sentence naming the reader's open items.
LEAD_SLOTS = SLOTS | {"items"}

_text = validate.Length(min=1, max=1200)


def _placeholders(text: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as exc:  # unbalanced braces
        raise ValidationError(f"not a valid template: {exc}") from None


def slots(allowed: frozenset[str] = SLOTS):
    """A validator: the text uses only these placeholders, by bare name."""

    def check(text: str) -> None:
        unknown = _placeholders(text) - allowed
        if unknown:
            raise ValidationError(f"unknown placeholder(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        if "the organization" in text.lower():   # a partner's displayName replaces {org}, not these words
            raise ValidationError("names the client as 'the organization'; write {org} or {Org}")
    return check


def Text(**kw):  # noqa: N802 - a field factory, read like a field class
    return fields.String(validate=[_text, slots(kw.pop("allowed", SLOTS))], **kw)


def _regex(text: str) -> None:
    try:
        re.compile(text)
    except re.error as exc:
        raise ValidationError(f"not a valid regular expression: {exc}") from None


class FactSchema(Schema):
    """A figure or rule with its public source beside it."""

    kind = fields.String(required=True, validate=validate.OneOf(FACT_KINDS))
    text = Text(required=True)
    source = fields.String(required=True, validate=validate.Length(min=3, max=400))
    url = fields.Url(required=True)
    year = fields.Integer(required=True, validate=validate.Range(min=0, max=2100))  # 0: undated
    note = fields.String(load_default="", validate=validate.Length(max=600))
    # words of the partner's framework text that make a fact apply ("uk": the UK GDPR's fines), or rule it out
    regime = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)
    not_regime = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)
    # an industry pack's fact about part of its sector only ("credit union": NCUA's 72-hour notice): word starts,
    # one of which the partner's industry text must hold
    when_industry = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)
    # a fact that does not hold where the partner's industry text holds one of these word starts (a covered entity's
    # notice duties, for a business associate such as a claims administrator or a health software vendor)
    unless_industry = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)


class TopicSchema(Schema):
    label = fields.String(required=True, validate=_text)
    chart_label = fields.String(required=True, validate=validate.Length(min=2, max=22))   # a chart row's name
    spend = Text(load_default="")   # outside spend the area's work commonly brings, unpriced
    stems = fields.List(fields.String(validate=validate.Length(min=2, max=40)), required=True,
                        validate=validate.Length(min=1))
    absent = Text(required=True)
    partial = Text(required=True)
    risk = Text(required=True)
    impact = Text(required=True)
    liability = Text(required=True)
    effort_not_met = fields.List(fields.Integer(validate=validate.Range(min=1, max=60)), required=True,
                                 validate=validate.Length(equal=2))
    effort_partial = fields.List(fields.Integer(validate=validate.Range(min=1, max=60)), required=True,
                                 validate=validate.Length(equal=2))
    # Weighted word starts and phrases that route a title to its main topic, by weight ("2" to "9"; a
    # stem weighs 1). Read as (phrase, weight) pairs, heaviest first, so a Topic stays hashable.
    phrases = fields.Dict(keys=fields.String(validate=validate.OneOf([str(n) for n in range(2, 10)])),
                          values=fields.List(fields.String(validate=validate.Length(min=2, max=60)),
                                             validate=validate.Length(min=1)),
                          load_default=dict)

    @post_load
    def phrase_pairs(self, data, **_):
        data["phrases"] = tuple((phrase, int(weight)) for weight in sorted(data["phrases"], reverse=True)
                                for phrase in data["phrases"][weight])
        return data


class TopicsFileSchema(Schema):
    effort_basis = fields.String(required=True, validate=_text)
    topics = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)),
                         values=fields.Nested(TopicSchema), required=True)

    @validates_schema
    def every_topic(self, data, **_):
        missing = set(TOPICS) - set(data.get("topics", {}))
        if missing:
            raise ValidationError(f"missing topics {sorted(missing)}", "topics")


TopicList = fields.List(fields.String(validate=validate.OneOf(TOPICS)), validate=validate.Length(min=1))


class SchemeSchema(Schema):
    name = fields.String(required=True, validate=_text)
    pattern = fields.String(required=True, validate=_regex)
    topics = fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=60)), values=TopicList,
                         required=True)


class RequirementInfoSchema(Schema):
    title = fields.String(required=True, validate=_text)
    obliges = Text(required=True)
    # The designation the framework itself gives the requirement, from the pack's `designations`:
    # "required"/"addressable" (HIPAA), "IG1" (CIS), "ML2" (Essential Eight), "L2" (CMMC).
    designation = fields.String(load_default="", validate=validate.Length(max=40))
    # What this requirement means under the framework's own rules (a breach presumption, a safe harbour, an
    # enforcement focus), one sentence with its citation: the reason a report gives first for it, to one reader
    # per run (app/generation/reading.py, `note_allotment`).
    matters = Text(load_default="")
    # What the requirement takes off the maximum score where the framework scores by points: the 1, 3 or 5 of
    # the DoD Assessment Methodology for NIST SP 800-171 Rev. 2 (app/generation/dod_score.py); None elsewhere.
    points = fields.Integer(load_default=None, allow_none=True, validate=validate.OneOf([1, 3, 5]))


class ConditionSchema(Schema):
    """Requirements that apply only where a fact about the organization holds (16 CFR 314.6: four Safeguards Rule
    paragraphs bind only institutions holding customer information on 5,000 or more consumers)."""

    ids = fields.List(fields.String(validate=validate.Length(min=1, max=40)), required=True,
                      validate=validate.Length(min=1))
    applies = fields.String(required=True, validate=_text)   # "where {org} holds information on 5,000 or more ..."
    check = fields.String(required=True, validate=_text)     # what to confirm first: "the count"
    source = fields.String(required=True, validate=_text)    # "16 CFR 314.6"


class CatalogueSchema(Schema):
    size = fields.Integer(required=True, validate=validate.Range(min=1))
    name = fields.String(required=True, validate=_text)
    id_prefix = fields.String(required=True, validate=validate.Length(min=1))
    also = fields.String(load_default="")


class FrameworkSchema(Schema):
    key = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_]+$"))
    name = fields.String(required=True, validate=_text)
    short = fields.String(required=True, validate=_text)
    aliases = fields.List(fields.String(validate=validate.Length(min=2, max=80)), required=True,
                          validate=validate.Length(min=1))
    data_term = fields.String(required=True, validate=_text)
    # true where data_term is the framework's scope rather than a defined kind of data ("information in the ISMS
    # scope", "data and information systems"): the industry's own words for its data are used where a pack matched
    data_generic = fields.Boolean(load_default=False)
    item_term = fields.String(required=True, validate=_text)
    assessor = fields.String(required=True, validate=_text)
    deliverable = Text(required=True)
    # What the framework itself requires of written security policies, with its clause ("" if not written yet).
    policy_rule = Text(load_default="")
    # What open (not met / partly met) items mean for the document customers, acquirers, regulators or insurers
    # read: the report, certificate, attestation or investigation file ("" if not written yet).
    open_items_mean = Text(load_default="")
    # The same, where the partner's framework names a report as of a date on a framework that also has one over a
    # period (SOC 2 Type 1, "" where the framework has no such variant).
    open_items_mean_as_of = Text(load_default="")
    # What an outside auditor's conclusion rests on and what an open item makes them decide, where the framework's
    # audit is not an attestation over a period (an ISO certification body grades nonconformities; a QSA reports a
    # requirement in place or not). "" for the attestation wording in the external auditor's persona.
    audit_conclusion = Text(load_default="")
    audit_stake = Text(load_default="")
    # true where the audit concludes on a period of operation (a SOC 2 Type 2 report), not as of a date; "Type 1"
    # in the partner's framework text still means a date
    audit_period = fields.Boolean(load_default=False)
    # where the framework accepts no risk in place of a requirement, its own route instead of "Accept: in writing"
    accept_route = Text(load_default="")
    # ids (a regex over the normal id) that can be neither excluded nor risk-accepted when the framework allows that
    # of its other items (ISO 27001's clauses 4 to 10, clause 1), and the route line said for them instead
    unexcludable = fields.String(load_default="", validate=validate.Length(max=200))
    unexcludable_route = Text(load_default="")
    # what outsiders charge to issue the deliverable, named unpriced beside the labour estimate
    audit_fee = Text(load_default="")
    # where the framework gives no half credit (PCI DSS, CMMC), what a partly met requirement is in it, with source;
    # said beside the compliance score, which counts partly met as half
    no_partial = Text(load_default="")
    # What accepting a risk instead of closing it means for the document outsiders read ("" for "an accepted or
    # insured gap still shows in the assessor's report", true of a SOC 2 report and a PCI DSS ROC).
    accepted_gap = Text(load_default="")
    strip = fields.List(fields.String(validate=validate.Length(min=1, max=40)), load_default=list)
    # kinds of industry and general facts that say nothing about this framework's question (a breach's cost is not
    # what a SOX company's readers weigh: an open ITGC is a deficiency in financial reporting, not a data breach)
    foreign_kinds = fields.List(fields.String(validate=validate.OneOf(FACT_KINDS)), load_default=list)
    # subjects' reasons reworded for this framework ({subject id: {lens: sentence}}), where the subject's own reason
    # argues the wrong stake (a SOX company's privileged access is about the auditor's reliance, not a server rebuild)
    reasons = fields.Dict(keys=fields.String(validate=_SUBJECT_ID),
                          values=fields.Dict(keys=fields.String(validate=validate.OneOf(REASON_LENSES)), values=Text()),
                          load_default=dict)
    # incident scenarios by topic that replace the industry's where the framework's incident is of another kind (a SOX
    # company's is a misstatement nobody caught, not a stopped line)
    scenarios = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), load_default=dict)
    # a reader's framing reworded for this framework, field by field ({persona id: {field: text or list or table}}),
    # laid over the persona as its `as_of_date` wording is (`Persona.for_framework`)
    readers = fields.Dict(keys=fields.String(validate=validate.Regexp(r"^[a-z_]+$")),
                          values=fields.Dict(keys=fields.String(validate=validate.OneOf(READER_FIELDS))),
                          load_default=dict)
    # phrases that, anywhere in the partner's framework text, name another regime despite an alias ("J-SOX", Japan's
    # internal control reporting, is not the Sarbanes-Oxley Act)
    unless = fields.List(fields.String(validate=validate.Length(min=2, max=60)), load_default=list)
    # prefixes partners leave off an id ("a." for ISO 27001's Annex A), tried as `Framework.resolve` says
    implied_prefixes = fields.List(fields.String(validate=validate.Length(min=1, max=10)), load_default=list)
    # The designations requirements may carry, in the framework's order. With `tier_term`, they are cumulative
    # tiers, lowest first (CIS Implementation Groups, Essential Eight maturity levels, CMMC levels): a
    # requirement of a tier belongs to every higher tier, and readers are told which tier the assessment reaches.
    designations = fields.List(fields.String(validate=validate.Length(min=1, max=40)), load_default=list)
    tier_term = fields.String(load_default="", validate=validate.Length(max=80))
    # One sentence on what the tiers mean, with its source ("" when the designations are not tiers).
    tier_note = Text(load_default="")
    # Topics that lead the work plan for this framework, ahead of the general risk order, where the framework
    # itself builds on them (HIPAA: the risk analysis every other safeguard rests on). Empty for most.
    first_topics = fields.List(fields.String(validate=validate.OneOf(TOPICS)), load_default=list)
    # The catalogue an assessment samples from, for outside readers' scope: "12 of the 93 Annex A controls". Ids
    # starting `id_prefix` count; `also` names what the audit covers beyond the catalogue when no id of it is given.
    catalogue = fields.Nested(CatalogueSchema, load_default=None)
    conditions = fields.List(fields.Nested(ConditionSchema), load_default=list)
    schemes = fields.List(fields.Nested(SchemeSchema), required=True, validate=validate.Length(min=1))
    # An earlier edition's ids and the ids each became (ISO/IEC 27001:2013 -> 2022), both in normal form.
    renumbered_from = fields.String(load_default="", validate=validate.Length(max=80))
    renumbered = fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=40)),
                             values=fields.List(fields.String(validate=validate.Length(min=1, max=40)),
                                                validate=validate.Length(min=1)), load_default=dict)
    requirements = fields.Dict(keys=fields.String(), values=fields.Nested(RequirementInfoSchema),
                               load_default=dict)
    facts = fields.List(fields.Nested(FactSchema), required=True, validate=validate.Length(min=3))

    @validates_schema
    def known_designations(self, data, **_):
        allowed = set(data.get("designations", ()))
        wrong = sorted(rid for rid, info in data.get("requirements", {}).items()
                       if info.get("designation") and info["designation"] not in allowed)
        if wrong:
            raise ValidationError(f"designation not in `designations` for {wrong[:5]}", "requirements")
        if data.get("tier_term") and (len(allowed) < 2 or not data.get("tier_note")):
            raise ValidationError("tiers need at least two designations and a tier_note", "tier_term")




class VariantSchema(Schema):
    """One kind of organization within a sector that the pack's own wording misdescribes (a home health agency is not
    a clinic with a front desk; a medical device maker has no patients' charts): matched like the pack, after it, and
    laid over it. Fields left out keep the pack's value; `subject_notes` and `scenarios` are laid over the pack's
    (or over `notes_from`'s), after dropping those named in `drop`."""

    key = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_]+$"))
    match = fields.List(fields.String(validate=validate.Length(min=2, max=40)), required=True,
                        validate=validate.Length(min=1))
    # stems that, anywhere in the partner's text, mean this is not that kind ("software architecture consultancy"
    # is no architects' practice)
    unless = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)
    name = fields.String(validate=_text)
    sells_to_businesses = fields.Boolean()
    data = fields.String(validate=_text)
    customers = fields.String(validate=_text)
    served = fields.String(validate=validate.Length(min=3, max=60))
    one_served = fields.String(validate=validate.Length(min=3, max=60))
    systems = fields.String(validate=validate.Regexp(r"^the [a-z]"))
    regulators = fields.String(validate=_text)
    # subject ids and topic ids of the pack's notes and scenarios to leave out; "*notes", "*scenarios" or "*" for all
    drop = fields.List(fields.String(validate=validate.Length(min=1, max=60)), load_default=list)
    # another pack whose notes and scenarios this kind of organization takes instead of its own pack's
    notes_from = fields.String(validate=validate.Regexp(r"^[a-z0-9_]+$"))
    subject_notes = fields.Dict(keys=fields.String(validate=_SUBJECT_ID), values=Text(), load_default=dict)
    scenarios = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), load_default=dict)


class IndustrySchema(Schema):
    key = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_]+$"))
    name = fields.String(required=True, validate=_text)
    match = fields.List(fields.String(validate=validate.Length(min=2, max=40)), required=True,
                        validate=validate.Length(min=1))
    # stems that, anywhere in the partner's text, mean another sector despite a matching stem
    unless = fields.List(fields.String(validate=validate.Length(min=2, max=40)), load_default=list)
    # true where the organization's buyers are businesses that vet their suppliers (see `Industry`)
    sells_to_businesses = fields.Boolean(load_default=False)
    data = fields.String(required=True, validate=_text)
    customers = fields.String(required=True, validate=_text)
    # Whom the organization serves, as its own people say it: plural ("patients", "donors and beneficiaries")
    # and one of them with its article ("a patient", "a donor"). Used wherever a report would say "customers".
    served = fields.String(required=True, validate=validate.Length(min=3, max=60))
    one_served = fields.String(required=True, validate=validate.Length(min=3, max=60))
    # The systems such an organization runs on, as its people name them, starting with "the".
    systems = fields.String(required=True, validate=validate.Regexp(r"^the [a-z]"))
    regulators = fields.String(required=True, validate=_text)
    facts = fields.List(fields.Nested(FactSchema), required=True, validate=validate.Length(min=1))
    # What a control subject (subjects.toml: "access.passwords") means in this industry, one sentence each: the
    # reason a report gives first for a requirement of that subject (`lens_allotment`, kind "industry").
    subject_notes = fields.Dict(keys=fields.String(validate=_SUBJECT_ID), values=Text(), load_default=dict)
    # How a serious incident typically starts in this industry when a topic's controls are open, as a clause that
    # reads after "If ..." and after "What a serious incident would mean: ..." ("a point-of-sale integrator's shared
    # remote-support password lets an intruder plant card-scraping malware at every site"): the report's scenario
    # for that topic, instead of the topic's generic one.
    scenarios = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), load_default=dict)
    # kinds of organization in the sector that its wording would misdescribe, first match wins (`VariantSchema`)
    variants = fields.List(fields.Nested(VariantSchema), load_default=list)


class SubjectSchema(Schema):
    terms = fields.List(fields.String(validate=validate.Length(min=2, max=60)), required=True,
                        validate=validate.Length(min=1))
    # Terms too broad to decide alone ("polic", "incident"): they count half, so "Sanction policy" is about
    # sanctions and "Incident reporting" about reporting, and they still decide when nothing else is named.
    weak_terms = fields.List(fields.String(validate=validate.Length(min=2, max=60)), load_default=list)
    # Subjects this one beats whenever one of its own terms is in the title, however the counts fall: the
    # title's action ("log review") decides over its object ("audit logs").
    outranks = fields.List(fields.String(validate=_SUBJECT_ID), load_default=list)
    risk = Text(required=True)
    impact = Text(required=True)
    liability = Text(required=True)
    evidence = Text(required=True)
    cost = Text(required=True)
    operations = Text(required=True)
    oversight = Text(required=True)
    customers = Text(required=True)
    people = Text(required=True)
    recovery = Text(required=True)


class SubjectsFileSchema(Schema):
    """subjects.toml: [<topic>.<subject>] tables."""
    class Meta:
        unknown = "include"

    @post_load
    def nested(self, data, **_):
        errors, out = {}, {}
        for topic, table in sorted(data.items()):   # unknown fields come back in no fixed order
            if topic not in TOPICS:
                errors[topic] = [f"not a topic; one of {list(TOPICS)}"]
                continue
            if not isinstance(table, dict) or not table:
                errors[topic] = ["must hold subject tables"]
                continue
            for sid, entry in sorted(table.items()):
                try:
                    out[f"{topic}.{sid}"] = SubjectSchema().load(entry)
                except ValidationError as exc:
                    errors[f"{topic}.{sid}"] = exc.messages
        if errors:
            raise ValidationError(errors)
        return out


# An interaction's text names its requirements with their own statuses (interactions.toml).
INTERACTION_SLOTS = SLOTS | {"met", "open", "open2", "open_status", "open2_status", "open_gap"}


class InteractionSchema(Schema):
    met = fields.List(fields.String(validate=_SUBJECT_ID), load_default=list, validate=validate.Length(max=1))
    open = fields.List(fields.String(validate=_SUBJECT_ID), required=True, validate=validate.Length(min=1, max=2))
    readers = fields.List(fields.String(validate=validate.Regexp(r"^[a-z_]+$")), required=True,
                          validate=validate.Length(min=1))
    decision = Text(required=True, allowed=INTERACTION_SLOTS)
    operator = Text(required=True, allowed=INTERACTION_SLOTS)
    outside = Text(required=True, allowed=INTERACTION_SLOTS)
    owner = Text(load_default=None, allowed=INTERACTION_SLOTS)   # the small-business owner's own version, besides

    @validates_schema
    def slots_match(self, data, **_):
        for kind in ("decision", "operator", "outside", "owner"):
            text = data.get(kind)
            if text is None:
                continue
            if ("{met}" in text) != bool(data.get("met")) or ("{open2}" in text) != (len(data.get("open", ())) == 2):
                raise ValidationError("names {met} exactly when `met` is given, {open2} exactly when `open` has two",
                                      kind)


class InteractionsFileSchema(Schema):
    """interactions.toml: [<id>] tables."""
    class Meta:
        unknown = "include"

    @post_load
    def tables(self, data, **_):
        errors, out = {}, {}
        for iid, entry in sorted(data.items()):
            try:
                out[iid] = InteractionSchema().load(entry)
            except ValidationError as exc:
                errors[iid] = exc.messages
        if errors:
            raise ValidationError(errors)
        return out


class GeneralSchema(Schema):
    facts = fields.List(fields.Nested(FactSchema), required=True, validate=validate.Length(min=1))


class PersonaSchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z_]+$"))
    label = fields.String(required=True, validate=_text)
    category = fields.String(required=True, validate=validate.OneOf(CATEGORIES))
    position_in_catalogue = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    relation = fields.String(required=True, validate=validate.OneOf(RELATIONS))
    role = Text(required=True)
    needs = Text(required=True)
    topics = fields.List(fields.String(validate=validate.OneOf(TOPICS)), required=True,
                         validate=validate.Length(min=2, max=8))
    fact_kinds = fields.List(fields.String(validate=validate.OneOf(FACT_KINDS)), required=True)
    title = Text(required=True)
    title_clean = Text(required=True)
    summary = Text(required=True)
    summary_elsewhere = Text(required=True)
    summary_clean = Text(required=True)
    position = Text(required=True)
    assumption = Text(required=True)
    insight = Text(required=True)
    angles = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), required=True)
    done = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), required=True)
    evidence = fields.Dict(keys=fields.String(validate=validate.OneOf(TOPICS)), values=Text(), required=True)
    stake = Text(required=True)
    outcome = Text(required=True)
    measures = fields.List(Text(), required=True, validate=validate.Length(min=2, max=5))
    # the topic each measure tracks, "" for one about the whole programme: a measure of a topic the assessment did
    # not cover (a restore test where no backup requirement was assessed) is not offered as what closing gives
    measure_topics = fields.List(fields.String(validate=validate.OneOf(("", *TOPICS))), load_default=list)
    decisions = fields.List(Text(), required=True, validate=validate.Length(min=2, max=5))
    questions = fields.List(Text(), required=True, validate=validate.Length(min=2, max=6))
    decisions_clean = fields.List(Text(), required=True, validate=validate.Length(min=2, max=5))
    questions_clean = fields.List(Text(), required=True, validate=validate.Length(min=2, max=6))
    ask = Text(required=True)
    ask_clean = Text(required=True)
    # whether the ask is about the open items at large, so ", starting with <the first item>" may follow it; false
    # for an ask about one workstream ("tier every supplier ...", "approve two legal workstreams ..."), where the
    # first item of the plan is often not one the ask is about
    ask_names_first = fields.Boolean(load_default=True)
    # how the findings lead into what open items mean for the document outsiders read, where a framework words it
    # for this reader (`[readers.cfo]` in sox_itgc.toml); "" for the reader's own lead (blocks.DELIVERABLE_LEAD)
    deliverable_lead = Text(load_default="")
    # wording for an audit that concludes as of a date, not on a period (see `Persona.for_audit`)
    as_of_date = fields.Dict(keys=fields.String(validate=validate.OneOf(AS_OF_DATE_FIELDS)), load_default=dict)

    @validates_schema
    def a_topic_per_measure(self, data, **_):
        if data.get("measure_topics") and len(data["measure_topics"]) != len(data.get("measures", ())):
            raise ValidationError("one topic (or \"\") per measure", "measure_topics")

    @validates_schema
    def text_for_every_topic(self, data, **_):
        for table, what in (("angles", "angle"), ("done", "definition of done"), ("evidence", "evidence")):
            missing = [t for t in data.get("topics", ()) if t not in data.get(table, {})]
            if missing:
                raise ValidationError(f"no {what} for topic(s) {missing}", table)


class SectionPlanSchema(Schema):
    heading = Text(required=True)
    heading_clean = Text(load_default=None)   # when nothing is open, if `heading` implies gaps
    blocks = fields.List(fields.String(validate=validate.OneOf(BLOCKS)), required=True,
                         validate=validate.Length(min=1, max=4))


class PlanSchema(Schema):
    sections = fields.List(fields.Nested(SectionPlanSchema), required=True, validate=validate.Length(min=3, max=6))
    cta = Text(required=True, allowed=CTA_SLOTS)
    lead = Text(required=True, allowed=LEAD_SLOTS)
    # an open requirement leads its own sentence and the reader's reason follows it: a topic-level lead ("Why backup
    # matters to you: ...; here, X is not met") read as a form being filled
    finding = Text(required=True, allowed=FINDING_NEXT_SLOTS)
    finding_met = Text(required=True, allowed=FINDING_SLOTS)   # the same, when nothing is open
    finding_next = Text(load_default="{Item}: {angle}.", allowed=FINDING_NEXT_SLOTS)
    # A subject's `operations` and `evidence` sentences describe the working control and how it is tested: they
    # follow the requirement as that, never as why it matters ("Why ... matters to you: IT staff enable ...").
    finding_operations = Text(load_default="{Item}; fully in place, it means {angle}.", allowed=FINDING_NEXT_SLOTS)
    finding_evidence = Text(load_default="{Item}; to test it, {angle}.", allowed=FINDING_NEXT_SLOTS)


class MethodologySchema(Schema):
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z_]+$"))
    label = fields.String(required=True, validate=_text)
    position_in_catalogue = fields.Integer(required=True, validate=validate.Range(min=1, max=99))
    tone = fields.String(required=True, validate=_text)
    structure = fields.String(required=True, validate=_text)
    source = fields.String(required=True, validate=_text)
    decision_maker = fields.Nested(PlanSchema, required=True)
    operator = fields.Nested(PlanSchema, required=True)
    outside_reader = fields.Nested(PlanSchema, required=True)
