"""Report knowledge as data: frameworks, industries, topics, personas and methodologies.

The TOML files beside this module are the content; this module reads them once (stdlib `tomllib`),
checks each against its schema (`schemas.py`) and answers the few questions the writers ask:
which pack a partner's framework or industry text means, and which topics a requirement is about.
A bad file raises `ContentError` naming the file and the field, at start-up.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from marshmallow import Schema, ValidationError

from . import schemas
from .schemas import TOPICS

ROOT = Path(__file__).parent


MEMO_LIMIT = 50_000   # subject lookups kept per process (a few MB)


class ContentError(ValueError):
    """A content file is missing, unreadable or does not fit its schema."""


def padded_words(text: str) -> str:
    """Lower case with accents folded ("Café" is "cafe"), runs of anything but letters and digits as one space,
    padded with spaces."""
    folded = text if text.isascii() else "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " " + re.sub(r"[^a-z0-9]+", " ", folded.lower()).strip() + " "


_MINOR_WORDS = frozenset("a an and for in of on or the to with".split())


def _closeness(title: str, other: str) -> float:
    """Share of the two titles' words they have in common (0 when either is empty)."""
    a, b = (set(padded_words(t).split()) - _MINOR_WORDS for t in (title, other))
    return len(a & b) / len(a | b) if a and b else 0.0


def _errors(messages: Any, prefix: str = "") -> list[str]:
    if isinstance(messages, dict):
        return [line for key, value in messages.items() for line in _errors(value, f"{prefix}{key}.")]
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return [f"{prefix.rstrip('.')}: {'; '.join(messages)}"]
    return [f"{prefix.rstrip('.')}: {messages}"]


def read(path: Path, schema: Schema) -> dict:
    """One file, parsed and validated; ContentError names the path and every field at fault."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ContentError(f"{path}: {exc}") from None
    try:
        return schema.load(raw)
    except ValidationError as exc:
        raise ContentError(f"{path}: " + "; ".join(_errors(exc.messages))) from None


@dataclass(frozen=True)
class Scheme:
    name: str
    pattern: re.Pattern
    prefixes: tuple[tuple[str, tuple[str, ...]], ...]   # longest first


@dataclass(frozen=True)
class Framework:
    key: str
    name: str
    short: str
    aliases: tuple[str, ...]
    data_term: str
    item_term: str
    assessor: str
    deliverable: str
    strip: tuple[str, ...]
    schemes: tuple[Scheme, ...]
    requirements: dict
    facts: tuple[dict, ...]
    policy_rule: str = ""       # what the framework requires of written security policies, with its clause
    open_items_mean: str = ""   # what open items mean for the document outside readers receive
    open_items_mean_as_of: str = ""   # the same for a report as of a date (SOC 2 Type 1)
    audit_conclusion: str = ""  # what an outside auditor's conclusion rests on, where not an attestation over a period
    audit_stake: str = ""       # what an open item makes that auditor decide
    no_partial: str = ""        # where the framework itself gives no half credit, what partly met means in it
    audit_fee: str = ""         # what outsiders charge to issue the deliverable, named unpriced ("the QSA's fee")
    accept_route: str = ""      # the route for a gap where the framework accepts no risk ("Compensate: ...")
    unexcludable: re.Pattern | None = None   # normal ids that cannot be excluded or accepted (ISO 27001 clauses 4-10)
    unexcludable_route: str = ""   # the route line for them ("Accept: not open to clauses 4 to 10")
    audit_period: bool = False  # the audit concludes on a period of operation (SOC 2 Type 2), not as of a date
    accepted_gap: str = ""      # what accepting a risk means for that document, where an open item is not simply shown
    catalogue: dict | None = None   # what an assessment samples from: size, name, id_prefix, also
    data_generic: bool = False  # data_term names the scope, not a kind of data: the industry's words win
    covers: frozenset = frozenset()      # the topics any of its ids maps to: what the framework can assess
    designations: tuple[str, ...] = ()   # the designations requirements may carry, in the framework's order
    tier_term: str = ""         # set when the designations are cumulative tiers ("Implementation Group")
    tier_note: str = ""         # what the tiers mean, with its source
    first_topics: tuple[str, ...] = ()   # topics that lead the work plan for this framework
    unless: tuple[str, ...] = ()   # phrases that name another regime despite an alias ("j sox" is Japan's, not SOX)
    readers: dict = field(default_factory=dict, hash=False, compare=False)   # {persona id: fields reworded}
    foreign_kinds: frozenset = frozenset()   # industry and general fact kinds that do not bear on this framework
    scenarios: dict = field(default_factory=dict, hash=False, compare=False)   # {topic: incident}, over the industry's
    reasons: dict = field(default_factory=dict, hash=False, compare=False)   # {subject: {lens: reason}}, over its own
    # prefixes partners leave off ("a." for ISO 27001's Annex A, typed "8.15"): tried when the bare id is unknown
    # or its entry's title is further from the partner's title than the prefixed entry's
    implied_prefixes: tuple[str, ...] = ()
    # An earlier edition's ids (normal form) -> the ids they became; compared across editions (app/progress.py)
    renumbered: dict = field(default_factory=dict, hash=False, compare=False)
    # requirements that apply only where a fact about the organization holds: {"ids", "applies", "check", "source"}
    conditions: tuple[dict, ...] = field(default=(), hash=False, compare=False)

    def condition_for(self, ref: str, title: str = "") -> dict | None:
        """The condition this requirement applies under, if the pack names one for its id."""
        rid = self.resolve(ref, title)
        return next((c for c in self.conditions if rid in {self.normal_id(i) for i in c["ids"]}), None)

    def excludable(self, ref: str, title: str = "") -> bool:
        """Whether the framework lets this requirement be left out or its risk accepted at all."""
        return not (self.unexcludable and self.unexcludable.match(self.resolve(ref, title)))

    def normal_id(self, ref: str) -> str:
        """The id as the schemes see it: lower case, known prefixes ("45 cfr", "§", "article")
        removed, longest first and repeatedly, then no whitespace."""
        text = ref.strip().lower()
        stripped = True
        while stripped:
            stripped = False
            for prefix in self.strip:   # longest first, so "article" goes before "art"
                if text.startswith(prefix):
                    text, stripped = text[len(prefix):].lstrip(" .:"), True
                    break
        return re.sub(r"\s+", "", text)

    def resolve(self, ref: str, title: str = "") -> str:
        """The normal id this requirement has in the pack. An id written without an implied prefix is read
        with it when only that form is known, or when the partner's title is closer to its entry's title:
        ISO 27001's "6.3 Information security awareness, education and training" is Annex A 6.3, not
        clause 6.3 (planning of changes); "9.2 Internal audit" stays clause 9.2."""
        rid = self.normal_id(ref)
        for prefix in self.implied_prefixes:
            alt = prefix + rid
            if rid.startswith(prefix) or not self._known(alt):
                continue
            if not self._known(rid) or _closeness(title, self._title(alt)) > _closeness(title, self._title(rid)):
                return alt
        return rid

    def _known(self, rid: str) -> bool:
        return rid in self.requirements or any(rid == prefix for s in self.schemes for prefix, _ in s.prefixes)

    def _title(self, rid: str) -> str:
        return (self.requirements.get(rid) or {}).get("title", "")

    def topics_of_id(self, ref: str, title: str = "") -> tuple[str, ...]:
        """Topics from the id (and, where an implied prefix is in doubt, the title): the first scheme whose
        pattern matches, its longest prefix."""
        rid = self.resolve(ref, title)
        for scheme in self.schemes:
            if not scheme.pattern.match(rid):
                continue
            for prefix, topics in scheme.prefixes:
                if rid.startswith(prefix) and (len(rid) == len(prefix) or not prefix[-1].isalnum()
                                               or not rid[len(prefix)].isalnum()):
                    return topics
        return ()

    def info(self, ref: str, title: str = "") -> dict | None:
        """What the pack knows of this id (title, what it obliges, designation), if anything: the id's own
        entry, else its nearest parent's, a bracketed part at a time ("314.4(h)(3)" -> "314.4(h)")."""
        rid = self.resolve(ref, title)
        own = rid
        while rid:
            if rid in self.requirements:
                info = self.requirements[rid]
                # A parent's designation need not be its part's (a HIPAA standard is required where one of its
                # specifications is addressable), nor its note, so only what it obliges is carried down.
                return info if rid == own else {**info, "designation": "", "matters": ""}
            parent = re.sub(r"\([^()]*\)$", "", rid)
            if parent == rid:
                return None
            rid = parent
        return None


@dataclass(frozen=True)
class Industry:
    key: str
    name: str
    match: tuple[str, ...]
    data: str
    customers: str
    served: str        # "patients"
    one_served: str    # "a patient"
    systems: str       # "the patient record, scheduling and billing systems"
    regulators: str
    facts: tuple[dict, ...]
    subject_notes: dict = field(default_factory=dict, hash=False, compare=False)   # subject id -> sentence
    scenarios: dict = field(default_factory=dict, hash=False, compare=False)   # topic id -> incident clause
    unless: tuple[str, ...] = ()   # stems that say the text means another sector ("veterinary" for healthcare)
    # whose buyers are businesses that vet suppliers (due diligence, questionnaires, procurement): only then does a
    # subject's `customers` reason ("buyers performing due diligence ask ...") fit; a hotel's guests do not
    sells_to_businesses: bool = False
    variants: tuple[dict, ...] = field(default=(), hash=False, compare=False)   # see `Industry.variant_for`
    variant: str = ""   # the variant laid over the pack ("home_care"), or ""

    def variant_for(self, words: str) -> Industry:
        """This pack as the partner's industry text (`padded_words`) means it: the first variant with a stem at the
        start of a word in it laid over the pack (a home health agency, not a clinic), else the pack as it is."""
        joined = " " + words.replace(" ", "") + " "
        chosen = next((v for v in self.variants
                       if any(" " + stem in hay for stem in v["match"] for hay in (words, joined))
                       and not any(" " + stem in words for stem in v["unless"])), None)
        if chosen is None:
            return self
        drop = set(chosen["drop"])

        def laid(own: dict, over: dict, every: str) -> dict:
            return {**({} if drop & {"*", every} else {k: v for k, v in own.items() if k not in drop}), **over}
        fields_ = {k: chosen[k] for k in ("name", "data", "customers", "served", "one_served", "systems",
                                          "regulators", "sells_to_businesses") if k in chosen}
        return replace(self, **fields_, subject_notes=laid(self.subject_notes, chosen["subject_notes"], "*notes"),
                       scenarios=laid(self.scenarios, chosen["scenarios"], "*scenarios"), variants=(),
                       variant=chosen["key"])


@dataclass(frozen=True)
class Topic:
    id: str
    label: str
    stems: tuple[str, ...]
    absent: str
    partial: str
    risk: str
    impact: str
    liability: str
    effort_not_met: tuple[int, int]
    effort_partial: tuple[int, int]
    chart_label: str = ""   # the area's name where a chart has little room ("Patching and malware")
    spend: str = ""         # outside spend the area's work commonly brings, unpriced ("a managed detection service")
    phrases: tuple[tuple[str, int], ...] = ()   # weighted word starts / phrases for titles (a stem weighs 1)


@dataclass(frozen=True)
class Subject:
    id: str          # "access.joiners_leavers"
    topic: str
    terms: tuple[str, ...]
    risk: str
    impact: str
    liability: str
    evidence: str
    cost: str
    operations: str
    oversight: str
    customers: str
    people: str
    recovery: str
    weak_terms: tuple[str, ...] = ()   # count half: "polic" alone does not make "Sanction policy" a policy matter
    outranks: tuple[str, ...] = ()     # subjects this one beats when the title names it ("log review" over logs)


@dataclass(frozen=True)
class Interaction:
    """Two requirements read together (interactions.toml): holds when each `met` subject has a met requirement
    and each `open` subject an open one; one text per relation, each told to one reader per run."""
    id: str
    met: tuple[str, ...]
    open: tuple[str, ...]
    readers: tuple[str, ...]
    texts: dict[str, str]     # relation -> text; "owner": the small-business owner's own, where written


@dataclass(frozen=True)
class Persona:
    id: str
    label: str
    category: str
    relation: str
    role: str
    needs: str
    topics: tuple[str, ...]
    fact_kinds: tuple[str, ...]
    title: str
    title_clean: str
    summary: str
    summary_elsewhere: str
    summary_clean: str
    position: str
    assumption: str
    insight: str
    angles: dict
    done: dict
    evidence: dict
    stake: str
    outcome: str
    measures: tuple[str, ...]
    decisions: tuple[str, ...]
    questions: tuple[str, ...]
    decisions_clean: tuple[str, ...]
    questions_clean: tuple[str, ...]
    ask: str
    ask_clean: str
    ask_names_first: bool = True
    measure_topics: tuple[str, ...] = ()
    # The same fields worded for an audit that concludes as of a date (ISO certification, a PCI DSS ROC, a HIPAA
    # or CMMC assessment) rather than on a period of operation (a SOC 2 Type 2 report); angles, done and evidence
    # replace only the topics they name.
    as_of_date: dict = field(default_factory=dict, hash=False, compare=False)
    deliverable_lead: str = ""   # a framework's lead into what open items mean for its document ("" for the default)

    def for_audit(self, over_period: bool) -> Persona:
        """This persona as the framework's audit needs it: itself, or with its `as_of_date` wording."""
        return self if over_period else self.laid_over(self.as_of_date)

    def for_framework(self, framework: Framework | None) -> Persona:
        """This persona as the framework's pack rewords it for this reader (`Framework.readers`), else itself."""
        return self.laid_over(framework.readers.get(self.id, {})) if framework else self

    def laid_over(self, changes: dict) -> Persona:
        """This persona with some fields replaced; a table (angles, done, evidence) replaces only the topics named."""
        if not changes:
            return self
        return replace(self, **{k: (tuple(v) if isinstance(v, list) else {**getattr(self, k), **v}
                                    if isinstance(v, dict) else v) for k, v in changes.items()})


@dataclass(frozen=True)
class Section:
    heading: str
    blocks: tuple[str, ...]
    heading_clean: str


@dataclass(frozen=True)
class Plan:
    sections: tuple[Section, ...]
    cta: str
    lead: str
    finding: str
    finding_met: str
    finding_next: str
    finding_operations: str
    finding_evidence: str


@dataclass(frozen=True)
class Methodology:
    id: str
    label: str
    tone: str
    structure: str
    source: str
    plans: dict = field(repr=False)   # relation -> Plan


@dataclass(frozen=True)
class Content:
    topics: dict[str, Topic]
    effort_basis: str
    frameworks: dict[str, Framework]
    industries: dict[str, Industry]
    general_facts: tuple[dict, ...]
    personas: tuple[Persona, ...]
    methodologies: tuple[Methodology, ...]
    subjects: tuple[Subject, ...] = ()
    interactions: tuple[Interaction, ...] = ()
    # answers of main_subject and subject_of, which depend on content and their arguments only
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------------ matching partner text
    def framework_for(self, text: str) -> Framework | None:
        """The pack a partner's framework text names ("SOC2", "soc 2 type ii", "PCI-DSS 4"), or None."""
        return _framework_for(self, padded_words(text or ""))

    def industry_for(self, text: str) -> Industry | None:
        """The pack a partner's free-text industry means ("Health care", "Fintech"), or None.

        A stem matches the start of a word ("dental" in "Dental practice"), stems of several words before
        stems of one, or the start of the words run together
        ("nonprofit" in "Non-Profit"); failing that, a word misspelt by a letter or two ("Helthcare",
        "Logisitics") matches a stem of six letters or more. Nothing else is guessed: an industry no pack
        knows gets plain wording about the people the organization serves. A pack's `unless` stems rule it out
        ("Veterinary hospital" is not human healthcare: no patients' protected health information). The pack is
        then read as the kind of organization the text names, where the pack has a variant for it
        (`Industry.variant_for`: "Home health agency" is not a clinic)."""
        words = padded_words(text or "")
        joined = " " + words.replace(" ", "") + " "
        ruled_out = {key for key, industry in self.industries.items()
                     if any(" " + stem in words for stem in industry.unless)}
        # A stem of several words is more specific than any one word, so those are tried first, in every pack:
        # "food bank" is a nonprofit before "bank" makes it a bank.
        for haystack in (words, joined):
            for several in (True, False):
                for key, industry in self.industries.items():
                    if key in ruled_out:
                        continue
                    if any(" " + stem in haystack for stem in industry.match if (" " in stem.strip()) == several):
                        return industry.variant_for(words)
        near = _near_industry(self, words.split(), ruled_out)
        return near.variant_for(words) if near else None

    def topics_of_title(self, title: str) -> tuple[str, ...]:
        """The topics a requirement's title is about, main topic first; () when no term matches
        (the caller then treats the requirement as governance work).

        Each topic's `stems` (weight 1) and weighted `phrases` are word starts (a trailing space demands
        a whole word). The title is read left to right and at each word the longest term found there is
        taken, so "audit record" is read as one term and its words do not vote again. A topic scores the
        highest weight among its terms found; ties go to the topic with more weight in all, then to the
        topic first in `_TITLE_PRIORITY` (narrow topics before broad ones). The other topics follow in the
        same order, but not one found only by weight-1 stems: those are hints that may lead only when
        nothing heavier is found. One regular expression for all topics, compiled once per process."""
        return _title_matcher(self.topics)(title)

    def _bound_memo(self) -> None:
        """Titles come from partners, so the memo is emptied when it grows past MEMO_LIMIT entries."""
        if len(self._memo) >= MEMO_LIMIT:
            self._memo.clear()

    def main_subject(self, text: str, topic: str = "") -> str | None:
        """The one subject an argument is mainly about: among the subjects of the topic it was written for (all
        subjects without a topic), the one with most of its terms in the text, the one named first winning ties
        ("multi-factor sign-in means a stolen password alone ..." is about multi-factor sign-in, not passwords;
        a logging argument that names firewalls as log sources is about logs); None when it names none.
        Cached: the same persona angles are asked about in every report."""
        key = ("main", text or "", topic)
        if key not in self._memo:
            self._bound_memo()
            self._memo[key] = _main_subject(self.subjects, text or "", topic)
        return self._memo[key]

    def subject_of(self, title: str, obliges: str = "", topic: str = "", named: str = "") -> Subject | None:
        """The one subject a requirement is about: most terms found in its title (counting double) and in what
        it obliges, a subject of its main topic winning ties; None when no term is found. A subject of another
        topic needs a term in the title: words of an obligation ("updated periodically") do not make a system
        security plan a patching matter. `named` is the pack's own title for it, read for a subject that
        outranks another ("Daily review of security logs" is "Daily log review"). Cached per argument."""
        key = ("of", title or "", obliges or "", topic, named or "")
        if key not in self._memo:
            self._bound_memo()
            self._memo[key] = _subject_of(self.subjects, title or "", obliges or "", topic, named or "")
        return self._memo[key]



def _main_subject(subjects: tuple[Subject, ...], text: str, topic: str) -> str | None:
    haystack = padded_words(text)
    best, key = None, None
    for sub in subjects:
        if topic and sub.topic != topic:
            continue   # an argument written for a topic argues that topic's subjects only ("change log" is change)
        found = [(2, haystack.find(" " + t)) for t in sub.terms if " " + t in haystack]
        found += [(1, haystack.find(" " + t)) for t in sub.weak_terms if " " + t in haystack]
        rank = (-sum(w for w, _ in found), min(at for _, at in found)) if found else None
        if rank and (key is None or rank < key):
            best, key = sub.id, rank
    return best


def subjects_named(subjects: tuple[Subject, ...], text: str, topic: str) -> frozenset[str]:
    """Every subject of `topic` a text names by one of its (strong) terms: what an argument is about at all."""
    haystack = padded_words(text)
    return frozenset(s.id for s in subjects if s.topic == topic and any(" " + t in haystack for t in s.terms))


def _hits(sub: Subject, words: str) -> int:
    """Terms of a subject found in text: 2 for each term, 1 for each weak term."""
    return 2 * sum(" " + t in words for t in sub.terms) + sum(" " + t in words for t in sub.weak_terms)


def _subject_of(subjects: tuple[Subject, ...], title: str, obliges: str, topic: str,
                named: str = "") -> Subject | None:
    head, rest, heads = padded_words(title), padded_words(obliges), padded_words(f"{title} / {named}")
    best, score, titled_ids = None, (0, False, ""), []
    for sub in subjects:
        titled = _hits(sub, head)
        if titled or sub.outranks and _hits(sub, heads):
            titled_ids.append(sub)
        if not titled and sub.topic != topic:
            continue
        hits = 2 * titled + _hits(sub, rest)
        key = (hits, sub.topic == topic, sub.id)
        if hits and (key[:2] > score[:2] or key[:2] == score[:2] and key[2] < score[2]):
            best, score = sub, key
    # The title's action decides over its object: "Audit logs reviewed daily" is log review, not log keeping,
    # however many words of logs the title and the obligation hold.
    over = next((sub for sub in titled_ids if best is not None and best.id in sub.outranks), None)
    return over or best


# Tie order between equal scores: narrow topics before the broad ones their words also touch.
_TITLE_PRIORITY = ("incident", "vendor", "privacy", "encryption", "backup", "logging", "vuln", "sdlc",
                   "change", "network", "physical", "hr", "access", "asset", "governance")
_TITLE_MATCHERS: dict[int, tuple[dict, Any]] = {}


def _title_matcher(topics: dict[str, Topic]):
    """The compiled title classifier for these topics, built once per topics dict."""
    entry = _TITLE_MATCHERS.get(id(topics))
    if entry is not None and entry[0] is topics:
        return entry[1]
    weights: dict[str, tuple[str, int]] = {}      # term -> (topic, weight); a term belongs to one topic
    for tid in TOPICS:
        topic = topics[tid]
        for term, weight in [(s, 1) for s in topic.stems] + list(topic.phrases):
            term = term.lower()
            if term not in weights or weights[term][1] < weight:
                weights[term] = (tid, weight)
    terms = sorted(weights, key=lambda t: (-len(t), t))   # longest first: the alternation takes the first
    pattern = re.compile("(?<= )(?:" + "|".join(re.escape(t) for t in terms) + ")")
    rank = {tid: n for n, tid in enumerate(_TITLE_PRIORITY)}

    def classify(title: str) -> tuple[str, ...]:
        found: dict[str, list[int]] = {}      # topic -> [heaviest weight, total weight]
        for match in pattern.finditer(padded_words(title or "")):
            tid, weight = weights[match.group()]
            score = found.setdefault(tid, [0, 0])
            score[0] = max(score[0], weight)
            score[1] += weight
        ranked = sorted(found, key=lambda t: (-found[t][0], -found[t][1], rank[t]))
        return tuple(t for n, t in enumerate(ranked) if n == 0 or found[t][0] > 1)

    _TITLE_MATCHERS[id(topics)] = (topics, classify)
    return classify


def _edits(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) that turn a into b."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb)))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def _near_industry(content: Content, words: list[str], ruled_out: set[str]) -> Industry | None:
    """A misspelt word whose start is one edit from a stem of six letters or more (two from one of ten or
    more): the closest such stem's pack not ruled out, if any."""
    best, best_edits = None, 3
    for word in (w for w in words if len(w) >= 6):
        for industry in (i for key, i in content.industries.items() if key not in ruled_out):
            for stem in industry.match:
                if len(stem) < 6 or not stem.isalpha():
                    continue
                allowed = 2 if len(stem) >= 10 else 1
                n = min(_edits(word[:len(stem) + d], stem) for d in (-1, 0, 1))
                if n <= allowed and n < best_edits:
                    best, best_edits = industry, n
    return best


def _framework_for(content: Content, words: str) -> Framework | None:
    # The longest alias found wins: "nist sp 800 53" before "nist", "uk gdpr" before "gdpr".
    best, best_len = None, 0
    for framework in content.frameworks.values():
        if any(phrase in words for phrase in framework.unless):
            continue
        for alias in framework.aliases:
            needle = padded_words(alias)
            if needle in words and len(needle) > best_len:
                best, best_len = framework, len(needle)
    return best


def _longest_first(prefixes: list[str]) -> tuple[str, ...]:
    return tuple(sorted((p.lower() for p in prefixes), key=len, reverse=True))


def _framework(data: dict) -> Framework:
    schemes = tuple(
        Scheme(s["name"], re.compile(s["pattern"], re.IGNORECASE),
               tuple(sorted(((p.lower().replace(" ", ""), tuple(t)) for p, t in s["topics"].items()),
                            key=lambda pair: -len(pair[0]))))
        for s in data["schemes"])
    requirements = {k.lower().replace(" ", ""): v for k, v in data["requirements"].items()}
    return Framework(data["key"], data["name"], data["short"], tuple(a.lower() for a in data["aliases"]),
                     data["data_term"], data["item_term"], data["assessor"], data["deliverable"],
                     _longest_first(data["strip"]), schemes, requirements, tuple(data["facts"]),
                     policy_rule=data["policy_rule"], open_items_mean=data["open_items_mean"],
                     open_items_mean_as_of=data["open_items_mean_as_of"],
                     audit_conclusion=data["audit_conclusion"], audit_stake=data["audit_stake"],
                     audit_period=data["audit_period"], accept_route=data["accept_route"],
                     unexcludable=re.compile(data["unexcludable"]) if data["unexcludable"] else None,
                     unexcludable_route=data["unexcludable_route"],
                     audit_fee=data["audit_fee"], no_partial=data["no_partial"],
                     catalogue=data["catalogue"], accepted_gap=data["accepted_gap"],
                     data_generic=data["data_generic"],
                     covers=frozenset(t for scheme in schemes for _, ts in scheme.prefixes for t in ts),
                     designations=tuple(data["designations"]), tier_term=data["tier_term"],
                     tier_note=data["tier_note"], first_topics=tuple(data["first_topics"]),
                     implied_prefixes=tuple(p.lower() for p in data["implied_prefixes"]),
                     renumbered={k.lower(): tuple(v.lower() for v in vs) for k, vs in data["renumbered"].items()},
                     conditions=tuple(data["conditions"]),
                     unless=tuple(padded_words(u) for u in data["unless"]), readers=data["readers"],
                     foreign_kinds=frozenset(data["foreign_kinds"]), scenarios=dict(data["scenarios"]),
                     reasons={sid: dict(lenses) for sid, lenses in data["reasons"].items()})


def _files(root: Path, folder: str) -> list[Path]:
    paths = sorted((root / folder).glob("*.toml"))
    if not paths:
        raise ContentError(f"{root / folder}: no content files")
    return paths


def _keyed(path: Path, data: dict, name: str = "key") -> dict:
    if data[name] != path.stem:
        raise ContentError(f"{path}: {name}: must be the file name, {path.stem!r}")
    return data


@cache
def load(root: Path = ROOT) -> Content:
    """Every content file under `root`, validated; cached, so the files are read once per process."""
    topics_file = read(root / "topics.toml", schemas.TopicsFileSchema())
    topics = {tid: Topic(tid, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in t.items()})
              for tid, t in topics_file["topics"].items()}
    frameworks = {}
    for path in _files(root, "frameworks"):
        data = _keyed(path, read(path, schemas.FrameworkSchema()))
        frameworks[data["key"]] = _framework(data)
    industries = {}
    for path in _files(root, "industries"):
        data = _keyed(path, read(path, schemas.IndustrySchema()))
        industries[data["key"]] = Industry(data["key"], data["name"], tuple(s.lower() for s in data["match"]),
                                           data["data"], data["customers"], data["served"],
                                           data["one_served"], data["systems"], data["regulators"],
                                           tuple(data["facts"]), dict(data["subject_notes"]),
                                           dict(data["scenarios"]), tuple(s.lower() for s in data["unless"]),
                                           data["sells_to_businesses"],
                                           tuple({**v, "match": [m.lower() for m in v["match"]]}
                                                 for v in data["variants"]))
    subjects = tuple(Subject(sid, sid.split(".")[0], tuple(t.lower() for t in entry.pop("terms")),
                             weak_terms=tuple(t.lower() for t in entry.pop("weak_terms")),
                             outranks=tuple(entry.pop("outranks")), **entry)
                     for sid, entry in read(root / "subjects.toml", schemas.SubjectsFileSchema()).items())
    general = read(root / "general.toml", schemas.GeneralSchema())
    personas = []
    for path in _files(root, "personas"):
        data = _keyed(path, read(path, schemas.PersonaSchema()), "id")
        order = data.pop("position_in_catalogue")
        personas.append((order, Persona(**{k: (tuple(v) if isinstance(v, list) else v)
                                           for k, v in data.items()})))
    methodologies = []
    for path in _files(root, "methodologies"):
        data = _keyed(path, read(path, schemas.MethodologySchema()), "id")
        plans = {relation: Plan(tuple(Section(s["heading"], tuple(s["blocks"]), s["heading_clean"] or s["heading"])
                                      for s in data[relation]["sections"]),
                                data[relation]["cta"], data[relation]["lead"], data[relation]["finding"],
                                data[relation]["finding_met"], data[relation]["finding_next"],
                                data[relation]["finding_operations"], data[relation]["finding_evidence"])
                 for relation in schemas.RELATIONS}
        methodologies.append((data["position_in_catalogue"],
                              Methodology(data["id"], data["label"], data["tone"], data["structure"],
                                          data["source"], plans)))
    known = {sub.id for sub in subjects}
    interactions = tuple(
        Interaction(iid, tuple(e["met"]), tuple(e["open"]), tuple(e["readers"]),
                    {"decision_maker": e["decision"], "operator": e["operator"], "outside_reader": e["outside"],
                     **({"owner": e["owner"]} if e["owner"] else {})})
        for iid, e in read(root / "interactions.toml", schemas.InteractionsFileSchema()).items())
    persona_ids = {p.id for _, p in personas}
    # a framework's rewording of a reader: a known persona, each field as the persona file itself would hold it
    reader_fields = schemas.PersonaSchema(partial=True)
    for fw in frameworks.values():
        for pid, fields_ in fw.readers.items():
            errors = reader_fields.validate({"id": pid, **fields_})
            if pid not in persona_ids or errors:
                raise ContentError(f"frameworks/{fw.key}: readers.{pid}: {errors or 'unknown persona'}")
        if set(fw.reasons) - known:
            raise ContentError(f"frameworks/{fw.key}: reasons: unknown subjects {sorted(set(fw.reasons) - known)}")
    for it in interactions:
        unknown = sorted((set(it.met) | set(it.open)) - known) + sorted(set(it.readers) - persona_ids)
        if unknown:
            raise ContentError(f"{root / 'interactions.toml'}: {it.id}: unknown subjects or personas {unknown}")
    # a variant that writes like another sector (a health software company like a software company) starts from
    # that pack's notes and scenarios instead of its own
    def based(key: str, v: dict) -> dict:
        if not v.get("notes_from"):
            return v
        other = industries.get(v["notes_from"])
        if other is None:
            raise ContentError(f"{root / 'industries' / key}.toml: {v['key']}: unknown notes_from {v['notes_from']}")
        return {**v, "drop": ["*"], "subject_notes": {**other.subject_notes, **v["subject_notes"]},
                "scenarios": {**other.scenarios, **v["scenarios"]}}
    for key, industry in industries.items():
        industries[key] = replace(industry, variants=tuple(based(key, v) for v in industry.variants))
    for industry in industries.values():
        unknown = sorted({*industry.subject_notes, *(k for v in industry.variants for k in v["subject_notes"])}
                         - known)
        if unknown:
            raise ContentError(f"{root / 'industries' / industry.key}.toml: subject_notes: unknown subjects {unknown}")
    for what, ordered in (("personas", personas), ("methodologies", methodologies)):
        positions = [order for order, _ in ordered]
        if len(set(positions)) != len(positions):
            raise ContentError(f"{root / what}: position_in_catalogue: two files share a position")
    return Content(topics, topics_file["effort_basis"], frameworks, industries, tuple(general["facts"]),
                   tuple(p for _, p in sorted(personas, key=lambda x: x[0])),
                   tuple(m for _, m in sorted(methodologies, key=lambda x: x[0])), subjects, interactions=interactions)
