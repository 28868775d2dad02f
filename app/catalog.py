"""The catalogues: 25 personas, 10 sales methodologies and the requirement themes.

This module is data. The template engine (app.generation.template_engine) reads it; the API
serves `id`, `label` and `category`; an LLM engine can use `role`, `concerns` and the stage
purposes in its prompt.

Text fields are `str.format` templates. Every field may use `{org}` / `{Org}` (the client as
named in reports, mid-sentence / at the start of a sentence) and `{framework}`; never write the
literal words "the organization" here, since a partner's `displayName` replaces them. Other
placeholders, where a field uses them: `{score}`, `{open_phrase}`; `{top}` (persona summary: the
first two named requirements, id and title); `{top_short}` (the same, ids only);
`{ref}`, `{state}`, `{risk}` (persona consequences); `{ask}`, `{Ask}`, `{maintain}`,
`{Maintain}`, `{target}`, `{top_short}` (methodology calls to action).

Matching rules used for ranking requirements (see template_engine):
- `Persona.keywords` are lowercase stems matched at the start of a word of the requirement's id
  and title, after everything but letters and digits has become a space ("crypt" matches
  "Cryptography", not "Encryption"; a trailing space, as in "log ", demands a whole word).
  Earlier keywords weigh more.
- `Persona.clause_hints` are lowercase clause references matched against the requirement id:
  equal, or a prefix ending at a clause boundary ("a.6." is every ISO 27001 people control,
  "cc6" matches "CC6.1" but not "CC60").
"""

from __future__ import annotations

from dataclasses import dataclass

PRICE_PER_REPORT_USD = 10
PRICE_PER_ASSESSMENT_USD = 250
REPORTS_PER_ASSESSMENT = 25
DEFAULT_METHODOLOGY = "spin"
CATEGORIES = ("Executive", "Management", "Operational", "Business", "External")


@dataclass(frozen=True)
class Persona:
    id: str
    label: str
    category: str
    role: str                        # "As {role}, ..." -- who the reader is
    concerns: tuple[str, ...]        # what they worry about, in their words
    decides: str                     # "the decision in front of you is {decides}"
    keywords: tuple[str, ...]        # ranking stems, most important first
    stakes: str                      # the terms in which consequences are expressed
    clause_hints: tuple[str, ...]    # clause references that concern this reader
    title: str                       # report title when requirements are open
    title_clean: str                 # report title when every requirement is met
    lens: str                        # how this reader reads the results
    summary: str                     # second sentence of the summary; uses {top}
    consequences: tuple[str, ...]    # per named gap; uses {ref}, {state}, {risk}
    outcome: str                     # "give you {outcome}"
    metrics: tuple[str, ...]         # measures this reader already reports on
    ask: str                         # verb phrase: the concrete next step for this reader
    allies: str                      # who to bring in
    proof: str                       # evidence this reader accepts as closure
    maintain: str                    # verb phrase: keeping a clean result clean
    policy_gap: str                  # why a missing policy matters to this reader
    insight: str                     # a reframing worth teaching this reader
    phasing: str                     # why the phasing suits this reader
    budget_view: str                 # how this reader should think about the spend
    buyer: str                       # "the economic buyer for this work is {buyer}"
    criteria: tuple[str, ...]        # how this reader should judge a proposal
    champion: str                    # who carries the work inside
    inaction: str                    # what doing nothing looks like to this reader


@dataclass(frozen=True)
class Stage:
    heading: str                     # section heading, as printed
    purpose: str                     # how to write this section (also usable in an LLM prompt)
    blocks: tuple[str, ...]          # content blocks, in order (see template_engine.BLOCKS)
    lead: str = ""                   # methodology voice, opening the section when gaps exist


@dataclass(frozen=True)
class Methodology:
    id: str
    label: str
    tone: str
    stages: tuple[Stage, ...]
    cta_style: str                   # call to action when requirements are open
    cta_clean: str                   # call to action when every requirement is met


@dataclass(frozen=True)
class Theme:
    """What a kind of requirement protects against, and what closing it looks like."""
    id: str
    label: str
    stems: tuple[str, ...]           # same matching rule as Persona.keywords; first theme wins
    risk_again: str                  # short noun phrase, once the theme's risk has been spelled out
    risk: str                        # noun phrase: "exposed to {risk}"
    capability: str                  # noun phrase: what must exist and operate
    evidence: str                    # noun phrase: what shows it is closed


# --------------------------------------------------------------------------- themes
# Ordered from specific to general: a requirement takes the first theme whose stem matches.
THEMES: tuple[Theme, ...] = (
    Theme("privacy", "personal data protection",
          ("privacy", "pii", "personal", "data protection", "retention", "deletion", "masking",
           "health information", "phi ", "consent", "data subject", "minimum necessary", "leakage"),
          "unlawful handling of personal data",
          "unlawful use, retention or disclosure of personal data",
          "a record of what personal data is held, why, for how long and who can see it, with "
          "deletion and masking applied by rule",
          "a current record of processing, retention schedules that are actually applied, and a "
          "tested process for data-subject requests"),
    Theme("crypto", "cryptographic protection",
          ("crypt", "encrypt", "decrypt", "key manag", "cipher", "tls "),
          "exposed sensitive data",
          "readable copies of sensitive data falling into the wrong hands",
          "encryption of sensitive data in transit and at rest, with keys generated, stored, rotated "
          "and revoked under control",
          "an encryption standard, a key inventory with owners and rotation dates, and configuration "
          "evidence from the systems in scope"),
    Theme("backup", "backup and restore",
          ("backup", "back up", "restor"),
          "unrecoverable data loss",
          "permanent data loss after ransomware or a failed change",
          "automated backups, kept offline or immutable, and restored in regular tests",
          "backup job reports and the results of dated restore tests against agreed recovery "
          "objectives"),
    Theme("incident", "incident response",
          ("incident", "breach", "forensic", "evidence", "event report", "events", "response",
           "respond", "escalat", "learning from"),
          "a badly handled incident",
          "an incident noticed late, handled by improvisation and reported after the deadline",
          "a rehearsed incident response plan with named roles, severity levels, escalation paths "
          "and notification deadlines",
          "the approved plan, an incident log with timelines, and the write-up of at least one "
          "exercise in the last twelve months"),
    Theme("continuity", "business continuity",
          ("continuity", "disrupt", "disaster", "contingen", "resilien", "redundan", "availab",
           "emergency", "ict readiness", "recover", "capacity"),
          "a prolonged outage",
          "an outage that outlasts what the business can absorb",
          "continuity and recovery plans with agreed recovery time objectives for critical services, "
          "tested at least once a year",
          "an approved business impact analysis, recovery plans per critical service, and dated test "
          "results against the recovery objectives"),
    Theme("supplier", "supplier and third-party risk",
          ("supplier", "vendor", "third", "outsourc", "supply chain", "cloud", "business associate",
           "service provider", "external part", "subcontract"),
          "supplier-borne incidents",
          "incidents that start at a supplier and spread inward",
          "due diligence before contracting, security clauses in every relevant contract, and periodic "
          "review of critical suppliers",
          "a supplier register with risk ratings, signed security clauses or business associate "
          "agreements, and records of supplier reviews"),
    Theme("vulnerability", "vulnerability and malware defence",
          ("vulnerab", "patch", "malware", "technical weak", "configuration", "harden", "antivirus",
           "anti malware", "scan", "end point", "endpoint"),
          "exploitation of known weaknesses",
          "known weaknesses staying open long enough to be exploited",
          "vulnerability scanning, patching within set deadlines by severity, endpoint protection and "
          "hardened standard configurations",
          "scan reports, patch-compliance figures against the deadlines, and configuration baselines "
          "with exceptions recorded"),
    Theme("logging", "logging and monitoring",
          ("logging", "logs", "log ", "monitor", "audit control", "audit trail", "clock", "alert",
           "detect", "threat"),
          "attacks going unnoticed",
          "attacks and misuse that leave no usable trace",
          "central logging of security-relevant events, with alerts that someone reviews and acts on",
          "log-source coverage, retention settings, and records of alerts raised, reviewed and closed"),
    Theme("network", "network security",
          ("network", "firewall", "segregation of net", "segment", "web filter", "filtering", "remote",
           "wireless", "vpn", "transmission"),
          "lateral movement by an intruder",
          "an intruder moving freely from one compromised machine to the rest of the estate",
          "segmented networks, filtered traffic between zones and controlled remote access",
          "current network diagrams, firewall rule reviews and the remote-access configuration"),
    Theme("access", "access control",
          ("access", "identit", "authenticat", "privilege", "password", "account", "user", "logical"),
          "unauthorised access",
          "former staff and over-privileged accounts reaching data they should never see",
          "role-based access with multi-factor authentication, prompt removal of leavers and periodic "
          "access reviews",
          "access reviews signed off by system owners, leaver removals within an agreed time, and "
          "multi-factor coverage reports"),
    Theme("people", "people security",
          ("personnel", "screen", "training", "awareness", "education", "employ", "disciplin",
           "termination", "confidentiality", "non disclosure", "workforce", "sanction", "staff",
           "human"),
          "people-driven incidents",
          "mistakes and misconduct by staff who were never vetted or trained",
          "screening proportionate to role, security terms in employment contracts, and awareness "
          "training that is completed and refreshed",
          "screening records, signed confidentiality terms and training completion rates by "
          "department"),
    Theme("physical", "physical security",
          ("physical", "premises", "secure area", "office", "facilit", "equipment", "clear desk",
           "cabling", "utilit", "storage media", "media", "disposal", "off premises", "environmental",
           "entry", "workstation", "device"),
          "physical intrusion or loss",
          "theft, damage or unauthorised entry that bypasses every technical control",
          "controlled entry to sensitive areas, protected equipment and secure disposal of media",
          "entry logs, visitor records and certificates of secure disposal"),
    Theme("development", "secure development and change",
          ("develop", "coding", "testing", "change", "software", "application", "source code",
           "test ", "acceptance", "architect", "engineering", "installation", "integrity"),
          "flaws shipped into production",
          "changes and new code reaching production with security flaws built in",
          "a secure development life cycle with security requirements, code review, testing and "
          "controlled change approval",
          "change records with approvals, security test results and separation of development, test "
          "and production"),
    Theme("asset", "asset management",
          ("asset", "inventor", "classification", "labelling", "labeling", "information transfer",
           "acceptable use", "return of"),
          "unowned and unprotected assets",
          "information and equipment that nobody owns and nobody protects properly",
          "an inventory of information assets with owners and classification, and handling rules that "
          "follow the classification",
          "the asset inventory with owners, the classification scheme, and samples showing labels and "
          "handling in use"),
    Theme("legal", "legal and regulatory obligations",
          ("legal", "statutory", "regulat", "contractual", "intellectual", "licen", "record",
           "authorit", "compliance with"),
          "an unnoticed breach of obligations",
          "unknowingly breaching a legal, regulatory or contractual obligation",
          "a maintained register of legal, regulatory and contractual obligations, each mapped to an "
          "owner and a control",
          "the obligations register, its last review date, and the mapping from obligations to "
          "controls"),
    Theme("governance", "governance and risk management",
          ("polic", "roles", "responsibilit", "management", "leadership", "objective", "risk",
           "review", "governance", "segregation of duties", "duties", "planning", "documented",
           "procedur", "project", "oversight", "commitment"),
          "unowned security decisions",
          "security decisions that nobody owns and nobody makes consistently",
          "management-approved policy, named owners for each control and a risk assessment that "
          "drives the priorities",
          "approved policies with review dates, a table of control owners, and minutes showing "
          "management review"),
)
GENERAL_THEME = Theme(
    "general", "control operation", (), "an inoperative control",
    "a required control that is not operating and that an auditor, a customer or an attacker "
    "can find",
    "the control designed, owned and operating as the framework requires",
    "documentation of the control and records showing that it operates")
THEME_BY_ID = {t.id: t for t in THEMES + (GENERAL_THEME,)}

# --------------------------------------------------------------------------- personas
PERSONAS: tuple[Persona, ...] = (
    # ----------------------------------------------------------------- Executive
    Persona(
        id="ceo_president", label="CEO / President", category="Executive",
        role="the executive accountable for the strategy, the reputation and the overall risk appetite",
        concerns=("reputation and customer trust", "growth that is not held up by compliance questions",
                  "surprises that reach the board or the press"),
        decides="which gaps are closed now, who owns them, and how much executive attention the "
                "programme gets",
        keywords=("continuity", "incident", "breach", "privacy", "customer", "reputation", "supplier",
                  "polic", "leadership", "legal", "regulat", "personal", "disrupt", "objective"),
        stakes="reputation, customer trust and strategic risk",
        clause_hints=("a.5.1", "a.5.4", "a.5.29", "a.5.30", "a.5.34", "cc1.1", "cc3", "164.308(a)(1)"),
        title="{framework} at {score}%: the strategic risks in {open_phrase}",
        title_clean="{framework} fully met: keeping the trust it earns with customers and the board",
        lens="For a chief executive the headline is not the score but which results could turn into a "
             "customer, regulator or press problem.",
        summary="The items with the most strategic weight are {top}; each is fixable, and each is the "
                "kind of gap that surfaces at the worst moment: in a large deal, an incident or a "
                "regulator's letter.",
        consequences=(
            "{ref} {state}. The exposure is {risk}, and when that happens it is the chief executive, "
            "not the IT team, who explains it to customers, the board and possibly the press.",
            "With {ref} not fully in place, {org} carries a real risk of {risk}. Beyond the direct "
            "cost, events like this stall sales cycles and pull leadership attention into damage "
            "control for months.",
            "{ref} {state}. Gaps like this are often the first thing a large customer's security "
            "review or a regulator finds, and they colour the view of how {org} is run.",
        ),
        outcome="a straight answer whenever customers, partners or the board ask whether {org} has "
                "its risks under control",
        metrics=("open high-impact requirements, trending to zero", "deals delayed or lost on security "
                 "questions", "incidents that reach customers or regulators",
                 "{framework} compliance score, quarter on quarter"),
        ask="name one executive owner for the programme and approve the first 90-day plan",
        allies="the CISO and the CFO",
        proof="a short plan with owners and dates, and a before-and-after score the board can follow",
        maintain="keep security on the leadership agenda with a quarterly look at the score and at any "
                 "new gaps",
        policy_gap="A policy is how leadership states its intent; without one, every control in place "
                   "depends on individual goodwill, and no customer or regulator can see what {org} "
                   "has committed to.",
        insight="Customers and regulators rarely judge a company on its overall compliance score; they "
                "judge it on the one gap that surfaces in their questionnaire or after an incident. "
                "The question for leadership is not how high the score is but which open items would "
                "be hardest to explain.",
        phasing="Phasing keeps the work visible at leadership level without turning it into an "
                "all-hands emergency.",
        budget_view="The investment is modest next to the cost of a single incident or a lost "
                    "enterprise deal, and it is best approved once, as a programme, rather than as a "
                    "series of IT requests.",
        buyer="you, or the executive you delegate to; the budget usually sits with the CFO and "
              "delivery with the CISO",
        criteria=("visible reduction of the highest-impact gaps within one quarter",
                  "a single accountable owner and a one-page progress report",
                  "little disruption to the business while the work is done"),
        champion="The natural champion is the CISO, who can carry the plan day to day; your visible "
                 "sponsorship is what makes the other functions give it time.",
        inaction="Doing nothing costs nothing this quarter, which is why it usually wins, until a "
                 "customer questionnaire, an incident or an auditor forces the work at a worse time "
                 "and a higher price.",
    ),
    Persona(
        id="cfo", label="CFO", category="Executive",
        role="the executive who owns the budget, the financial statements and {org}'s exposure to loss",
        concerns=("unbudgeted remediation spend", "regulatory fines and contractual penalties",
                  "the cost of an incident against the cost of prevention",
                  "insurance cover and premiums"),
        decides="whether the remediation is funded, from which budget line, and in what order",
        keywords=("budget", "supplier", "contract", "continuity", "insur", "financ", "vendor",
                  "business associate", "backup", "redundan", "fraud", "legal", "penalt", "disrupt",
                  "capacity", "cost"),
        stakes="cost, fines and budget",
        clause_hints=("a.5.19", "a.5.20", "a.5.21", "a.5.22", "a.5.29", "a.5.30", "a.5.31", "cc9",
                      "164.308(b)", "164.308(a)(7)"),
        title="{framework} at {score}%: the financial exposure in {open_phrase}",
        title_clean="{framework} fully met: protecting the investment in compliance",
        lens="Read from the finance side, the question is what these results could cost, and what it "
             "costs to change them.",
        summary="The requirements with the largest financial exposure are {top}. Closing them is a "
                "bounded, budgetable piece of work; leaving them open keeps incident costs, "
                "contractual penalties and fines on the table.",
        consequences=(
            "{ref} {state}, which leaves {org} exposed to {risk}. Financially, that is an unbudgeted "
            "liability: response, recovery and any fines would be paid from reserves rather than "
            "from a plan.",
            "Until {ref} is fully in place, the cost of {risk} remains an unpriced risk on the "
            "balance sheet, and remediation forced by an incident or an audit deadline typically "
            "costs several times what planned work does.",
            "{ref} {state}. Gaps like this are what insurers and large customers price in: expect "
            "harder questions at the next cyber-insurance renewal and in contract negotiations, with "
            "premiums, liability caps or penalty clauses to match.",
        ),
        outcome="a compliance spend that is planned, bounded and defensible, in place of reactive "
                "costs after an incident",
        metrics=("remediation cost per requirement closed", "annual loss expectancy avoided",
                 "exposure to fines and contractual penalties",
                 "cyber-insurance premium and deductible at renewal"),
        ask="approve a ring-fenced remediation budget for the requirements named in this report",
        allies="the CISO for delivery and the COO for the operational change",
        proof="a costed plan that sets the cost of each item against the loss it avoids",
        maintain="keep a stable compliance budget line so that controls do not erode between audits, "
                 "and provide for the annual surveillance or renewal fees",
        policy_gap="Without it, spending on controls has no agreed mandate, is hard to defend in a "
                   "budget review, and weakens {org}'s position with insurers and regulators.",
        insight="Compliance gaps are usually booked as an IT cost. In practice they are priced by "
                "others first: by insurers at renewal, by large customers in contract terms, and by "
                "regulators after an incident. Closing them is as much a financial decision as a "
                "technical one.",
        phasing="Phasing spreads the spend over successive budget periods and lets you release funds "
                "against verified progress rather than promises.",
        budget_view="Fund the work as one ring-fenced line with a contingency, released phase by "
                    "phase against evidence of closure, so that the spend stays visible and "
                    "controlled.",
        buyer="you: the spend falls within your authority, with the CISO accountable for delivery",
        criteria=("a fixed or capped cost per phase", "a measurable reduction in financial exposure",
                  "funds released against verified progress",
                  "no hidden running costs once the project ends"),
        champion="Inside finance you are the champion; the CISO is the natural operational champion, "
                 "and a joint recommendation from the two of you is usually decisive.",
        inaction="The alternative, carrying the risk, has no line in the budget, which makes it look "
                 "free. It is not: it is paid later, all at once, and at a price {org} does not "
                 "control.",
    ),
    Persona(
        id="cio", label="CIO", category="Executive",
        role="the executive who owns the technology estate, its roadmap and the IT budget",
        concerns=("platform stability and technical debt", "a roadmap not derailed by audit findings",
                  "cloud and supplier dependencies", "IT capacity to deliver remediation"),
        decides="how the remediation fits the technology roadmap and which teams and platforms carry it",
        keywords=("cloud", "change", "configuration", "capacity", "development", "software",
                  "architect", "technolog", "system", "redundan", "backup", "ict", "asset",
                  "inventor", "network", "supply chain", "application", "continuity"),
        stakes="technology risk, platform resilience and roadmap delivery",
        clause_hints=("a.8.", "a.5.9", "a.5.23", "a.5.30", "cc8", "cc7.1", "164.308(a)(7)"),
        title="{framework} at {score}%: {open_phrase} to fold into the technology roadmap",
        title_clean="{framework} fully met: keeping the technology estate compliant as it changes",
        lens="From the technology side, the useful reading is which gaps are architecture and platform "
             "problems, which are process problems, and how each fits the roadmap.",
        summary="The open items that land on the technology estate are {top}. Folded into the roadmap "
                "they are manageable engineering work; left as audit findings they will keep "
                "interrupting it.",
        consequences=(
            "{ref} {state}, which exposes the estate to {risk}. For IT this is technical debt with an "
            "interest rate: the longer it stays, the more systems and integrations come to depend on "
            "the gap.",
            "With {ref} not fully in place, {org} is exposed to {risk}, and the recovery would fall on "
            "the same teams that are meant to be delivering the roadmap.",
            "{ref} {state}. Expect it to come back in every customer questionnaire and audit cycle "
            "until it is engineered out, each time costing the IT organisation unplanned effort.",
        ),
        outcome="a technology estate whose controls are built into platforms and pipelines, so that "
                "compliance follows the roadmap instead of interrupting it",
        metrics=("open technology findings by platform", "change success rate and unplanned work",
                 "mean time to restore critical services",
                 "share of systems on standard, hardened configurations"),
        ask="add the named requirements to the next roadmap increment with owners and capacity set "
            "aside",
        allies="the CISO for control design and the IT director for delivery",
        proof="reference architectures and platform changes that close each gap once for every system "
              "built on them",
        maintain="build compliance checks into platform standards and change management, so that new "
                 "systems arrive compliant",
        policy_gap="Without a documented policy, architecture and platform teams have no agreed "
                   "standard to design against, and every exception is argued from scratch.",
        insight="Most compliance gaps in a technology estate are not missing products but missing "
                "defaults. Fixing them once, at platform level, is cheaper than fixing them system by "
                "system, and it stops the same finding from coming back.",
        phasing="Aligning the phases with roadmap increments lets the work ride on planned changes "
                "instead of competing with them.",
        budget_view="Most of the effort is internal engineering time; budget it as roadmap capacity "
                    "and keep external spend for specialist design and assurance.",
        buyer="you for the technology budget, with the CFO for anything outside the approved IT plan",
        criteria=("fixes delivered at platform level rather than system by system",
                  "fit with the current architecture and roadmap",
                  "no new tool without a clear owner and running cost",
                  "evidence produced automatically wherever possible"),
        champion="The IT director is the natural champion for delivery and the CISO for control "
                 "design; your sponsorship decides whether the work gets roadmap capacity.",
        inaction="Deferring the work until after the roadmap usually means until after the next audit, "
                 "when the same gaps come back as findings with deadlines attached.",
    ),
    Persona(
        id="ciso", label="CISO", category="Executive",
        role="the executive accountable for security risk and for the control environment behind "
             "{framework}",
        concerns=("exploitable weaknesses in access, detection and response",
                  "control gaps an attacker or an auditor will find first",
                  "evidence that controls actually operate", "the security team's capacity"),
        decides="which controls are closed first, how they are designed, and what security capacity is "
                "committed to them",
        keywords=("access", "authenticat", "privilege", "crypt", "encrypt", "incident", "vulnerab",
                  "malware", "monitor", "logging", "logs", "identit", "threat", "patch", "password",
                  "event", "network", "secure coding"),
        stakes="attack surface, detection and control effectiveness",
        clause_hints=("a.5.15", "a.5.16", "a.5.17", "a.5.18", "a.5.24", "a.5.26", "a.8.2", "a.8.5",
                      "a.8.7", "a.8.8", "a.8.15", "a.8.16", "a.8.24", "cc6", "cc7", "164.312"),
        title="{framework} at {score}%: the security controls to close first",
        title_clean="{framework} fully met: keeping controls effective, not just compliant",
        lens="From the security chair, the score matters less than which open controls an attacker "
             "could use today and which ones an auditor will test first.",
        summary="The open controls that most weaken the security posture are {top}. They are where an "
                "attacker would look first, and closing them does more for real risk than lifting "
                "the score anywhere else.",
        consequences=(
            "{ref} {state}, leaving {org} exposed to {risk}. In attack terms it shortens the path from "
            "a first foothold to real damage.",
            "With {ref} not fully in place, the risk of {risk} is not theoretical: it is among the "
            "first things attackers and penetration testers check.",
            "{ref} {state}. An auditor will record it as a control deficiency, and until it is fixed "
            "you cannot give the board a clean assurance statement on {framework}.",
        ),
        outcome="a control set you can defend on evidence, to the board and to an auditor, with the "
                "most exploitable paths closed",
        metrics=("open high-risk controls, by age", "mean time to detect and to contain",
                 "multi-factor and privileged-access coverage",
                 "vulnerabilities closed within their deadline"),
        ask="confirm the priority order of the named controls and give each a control owner and a "
            "target date",
        allies="the IT director for implementation and the CFO for funding",
        proof="control evidence an auditor would accept, backed by technical validation such as a "
              "targeted retest",
        maintain="test the key controls continuously and retest after every significant change, so "
                 "that a clean assessment stays true",
        policy_gap="Without an approved policy your controls have no management mandate: exceptions "
                   "cannot be refused on principle, and an auditor will raise it before looking at any "
                   "technical control.",
        insight="Attackers do not care about the score; they follow the weakest path. A programme "
                "that closes the most exploitable controls first removes more real risk than one that "
                "works through the framework in clause order.",
        phasing="The phasing puts the most exploitable controls first, so that risk falls fastest at "
                "the start of the programme.",
        budget_view="Most gaps need configuration and process work rather than new tooling; ask for "
                    "budget only where a gap needs a capability the team does not have.",
        buyer="the CFO or the CEO, depending on the amount; you own the recommendation and the "
              "delivery",
        criteria=("a measurable reduction of exploitable risk, not just documentation",
                  "evidence an external auditor will accept", "a realistic load on the security team",
                  "no new tool without an owner to run it"),
        champion="You are the champion; the IT director is the ally who makes delivery possible and "
                 "should co-own the plan.",
        inaction="Every month an exploitable control stays open is a month of exposure that no "
                 "insurer, customer or auditor will accept as reasonable after an incident.",
    ),
    Persona(
        id="coo", label="COO", category="Executive",
        role="the executive who runs day-to-day operations and answers for service continuity",
        concerns=("downtime of critical services", "supplier dependencies in delivery",
                  "processes that depend on individuals", "disruption caused by the remediation itself"),
        decides="how the remediation is scheduled around operations and which business processes change",
        keywords=("continuity", "disrupt", "disaster", "availab", "recover", "backup", "redundan",
                  "capacity", "operat", "contingen", "supplier", "incident", "maintenance", "utilit",
                  "facilit", "change", "procedur", "physical"),
        stakes="operational continuity, service levels and process discipline",
        clause_hints=("a.5.29", "a.5.30", "a.5.37", "a.7.11", "a.8.6", "a.8.13", "a.8.14", "a1",
                      "cc7.5", "164.308(a)(7)"),
        title="{framework} at {score}%: the operational weight of {open_phrase}",
        title_clean="{framework} fully met: keeping operations resilient as the business changes",
        lens="For operations, the question is which results could stop or slow the delivery of "
             "service, and what fixing them asks of the teams who run it.",
        summary="The open items with the most operational weight are {top}. Each is a point where a "
                "single failure could interrupt service; closing them makes day-to-day delivery more "
                "predictable.",
        consequences=(
            "{ref} {state}, which exposes operations to {risk}. In practice that means missed service "
            "levels, work piling up behind the outage, and customers noticing before you can explain.",
            "As long as {ref} stays open, the risk of {risk} sits inside daily operations, and "
            "recovery would depend on improvisation and on a few people being available.",
            "{ref} {state}. Operationally it is a single point of failure in the process, and it makes "
            "any disruption longer and dearer to recover from.",
        ),
        outcome="operations that keep running through an incident or an outage, with processes that "
                "do not depend on particular individuals",
        metrics=("hours of unplanned downtime on critical services",
                 "recovery time against agreed objectives", "service-level breaches",
                 "critical processes with a documented and tested fallback"),
        ask="agree a remediation schedule that fits operational windows, with a named operations owner",
        allies="the CIO for the systems involved and the CISO for control design",
        proof="exercises and tests that show services recovering within the agreed time",
        maintain="rehearse recovery and incident procedures on a fixed calendar and review them "
                 "whenever a process or a supplier changes",
        policy_gap="Without a documented policy, operating procedures have no common standard, so "
                   "teams handle the same risk in different ways.",
        insight="Most of the operational damage from a security event comes not from the attack but "
                "from the recovery: unclear roles, untested procedures and missing backups. The gaps "
                "that matter most to operations are the ones that lengthen recovery.",
        phasing="The phases follow operational windows, so that changes land when they disrupt service "
                "least.",
        budget_view="The main cost is operational time for tests, rehearsals and process changes; plan "
                    "it like any other operational change, with named people and dates.",
        buyer="the CFO, with your sign-off on the operational impact",
        criteria=("no unplanned disruption to service during the work",
                  "procedures that work without specific individuals", "recovery tested, not assumed",
                  "clear ownership between operations and IT"),
        champion="You can champion this as an operational-resilience programme; the CIO is the "
                 "technical ally who makes the systems side happen.",
        inaction="Leaving these items open keeps operations running on luck: the first real "
                 "disruption will set the timetable for the work instead of you.",
    ),
    Persona(
        id="board_member", label="Board Member", category="Executive",
        role="a director with a duty of oversight over how {org} manages risk and compliance",
        concerns=("directors' duties and oversight", "whether management has the risk under control",
                  "regulatory and reputational exposure", "assurance that can be relied on"),
        decides="what assurance the board requires of management, and how often it reviews progress",
        keywords=("governance", "oversight", "risk", "independent review", "polic", "leadership",
                  "management review", "management responsib", "compliance", "legal", "regulat",
                  "objective", "responsibilit", "audit", "review"),
        stakes="governance, oversight and directors' accountability",
        clause_hints=("a.5.1", "a.5.2", "a.5.4", "a.5.35", "a.5.36", "cc1", "cc2", "cc3", "cc4",
                      "164.308(a)(1)", "164.308(a)(2)"),
        title="{framework} at {score}%: a governance view of {open_phrase} for the board",
        title_clean="{framework} fully met: the questions the board should keep asking",
        lens="For the board, the question is whether management has the risk under control, and what "
             "assurance it can show for that.",
        summary="The open items that most affect governance and oversight are {top}. The board's role "
                "is not to close them but to insist on a plan, an owner and regular evidence of "
                "progress.",
        consequences=(
            "{ref} {state}, leaving {org} exposed to {risk}. If that materialises, regulators and "
            "shareholders will ask what the board knew and what it asked of management.",
            "With {ref} not fully in place, the board is relying on an incomplete control "
            "environment; a reasonable director would expect the risk of {risk} to be on the risk "
            "register with an owner and a date.",
            "{ref} {state}. Governance gaps of this kind are the ones that turn an operational "
            "incident into a question about the board's own oversight.",
        ),
        outcome="assurance that management has the risk in hand, evidenced by a plan and by reporting "
                "the board can rely on",
        metrics=("open high-impact gaps reported to the board each quarter",
                 "progress against the approved remediation plan",
                 "independent assurance findings and their closure",
                 "{framework} compliance score over time"),
        ask="ask management for a dated remediation plan and put compliance progress on the board "
            "agenda each quarter",
        allies="the chair of the audit or risk committee and the CEO",
        proof="management reporting against the plan, confirmed by independent assurance",
        maintain="keep compliance a standing item for the audit or risk committee, with independent "
                 "assurance at least once a year",
        policy_gap="A policy is the board's instrument for setting expectations; without an approved "
                   "one, the board has no documented basis on which to hold management to account.",
        insight="Boards are rarely criticised for the existence of gaps; they are criticised for not "
                "knowing about them or not asking. This assessment gives the board the basis to ask "
                "the right questions now.",
        phasing="Quarterly milestones fit the board cycle, so that each meeting sees measurable "
                "progress.",
        budget_view="The board does not set the line items, but it should satisfy itself that the "
                    "plan is funded and that the funding matches the risk.",
        buyer="management, normally the CEO with the CFO; the board's role is to require the plan and "
              "oversee it",
        criteria=("a named executive owner", "a plan with dates the board can track",
                  "independent verification of closure", "candid reporting of any slippage"),
        champion="The chair of the audit or risk committee is the natural champion at board level; "
                 "within management, the CEO and the CISO.",
        inaction="A board that has seen this assessment and asks for nothing has in effect accepted "
                 "the risk; that is a position worth taking deliberately rather than by default.",
    ),
    # ----------------------------------------------------------------- Management
    Persona(
        id="general_counsel", label="General Counsel", category="Management",
        role="the lawyer accountable for {org}'s legal exposure, contracts and regulatory position",
        concerns=("regulatory breaches and their penalties",
                  "contractual commitments on security and data", "liability after an incident",
                  "privilege and evidence when something goes wrong"),
        decides="which legal and contractual risks are accepted, and what must be fixed before the "
                "next contract or regulatory review",
        keywords=("legal", "statutory", "regulat", "contract", "agreement", "intellectual", "licen",
                  "record", "privacy", "pii", "personal data", "confidential", "non disclosure",
                  "evidence", "authorit", "business associate", "notif", "terms and conditions"),
        stakes="legal exposure, contractual liability and regulatory standing",
        clause_hints=("a.5.31", "a.5.32", "a.5.33", "a.5.34", "a.5.20", "a.5.28", "a.5.5", "a.6.6",
                      "164.308(b)", "164.314", "164.316"),
        title="{framework} at {score}%: legal and contractual exposure in {open_phrase}",
        title_clean="{framework} fully met: preserving the legal position it supports",
        lens="From a legal standpoint, each result either supports or undermines the representations "
             "{org} makes to regulators, customers and counterparties.",
        summary="The open items with the most legal weight are {top}. Each weakens a defence of "
                "reasonable care, and each may already conflict with security commitments in "
                "customer contracts.",
        consequences=(
            "{ref} {state}. That leaves {org} exposed to {risk}, and after an incident it undermines "
            "any argument that {org} took reasonable and appropriate measures.",
            "With {ref} not fully in place, {org} may already be in breach of security warranties or "
            "data-protection clauses it has signed; the risk of {risk} then becomes a claim, not just "
            "a cost.",
            "{ref} {state}. Regulators treat a known, unremediated gap more severely than an unknown "
            "one: once recorded in an assessment, it must be remedied or formally accepted.",
        ),
        outcome="a defensible legal position, with contractual commitments that match reality and "
                "evidence of reasonable care if anything goes wrong",
        metrics=("contracts whose security commitments are fully supported by controls",
                 "open gaps covered by a documented risk acceptance",
                 "regulatory notifications made on time",
                 "claims and disputes arising from security or data incidents"),
        ask="review the named gaps against current contractual and regulatory commitments and decide "
            "which must be remedied before the next renewal or filing",
        allies="the data privacy officer and the compliance officer",
        proof="documented remediation, or a formal signed risk acceptance, for each gap, kept on the "
              "legal file",
        maintain="check the security commitments in new contracts against the control set before "
                 "signature, so that promises never outrun reality",
        policy_gap="Without a documented policy, {org} cannot show a regulator or a counterparty the "
                   "standard it holds itself to, which weakens any defence of reasonable care.",
        insight="This assessment is itself a document. Once gaps are recorded, {org} is on notice: the "
                "legal risk is no longer only the gap but knowingly leaving it open. Deciding now, "
                "item by item, whether to fix or formally accept is what preserves the legal position.",
        phasing="Ordering by legal exposure means the items most likely to conflict with contracts or "
                "regulation are closed before the next renewal cycle.",
        budget_view="The spend is small next to the cost of one dispute or regulatory action, and a "
                    "legal review of the plan adds little cost while protecting its value.",
        buyer="the CFO or the CEO; your sign-off is needed on anything accepted rather than fixed",
        criteria=("closure of the gaps that conflict with existing contracts or regulation",
                  "documentation that stands up as evidence", "clear records of every risk acceptance",
                  "suppliers bound by matching obligations"),
        champion="You can champion the item-by-item decision to fix or accept; the compliance officer "
                 "is the day-to-day champion for delivery.",
        inaction="Leaving documented gaps open without a formal decision is the weakest legal position "
                 "available: it shows knowledge without action.",
    ),
    Persona(
        id="compliance_officer", label="Compliance Officer", category="Management",
        role="the officer who runs {org}'s compliance programme against {framework} and related "
             "obligations",
        concerns=("audit readiness", "complete and current documentation",
                  "controls that operate as documented", "regulatory change"),
        decides="the remediation order, the control owners and the evidence standard for closure",
        keywords=("compliance", "polic", "documented", "documentation", "risk analysis", "risk assess",
                  "audit", "review", "record", "legal", "regulat", "standard", "responsibilit",
                  "awareness", "training", "procedur", "monitor"),
        stakes="audit readiness, documentation and control operation",
        clause_hints=("a.5.1", "a.5.31", "a.5.35", "a.5.36", "a.5.37", "cc1", "cc2", "cc4",
                      "164.316", "164.308(a)(1)", "164.308(a)(8)"),
        title="{framework} at {score}%: remediation priorities for the compliance programme",
        title_clean="{framework} fully met: sustaining compliance through the audit cycle",
        lens="For the compliance programme these results are the baseline: what is evidenced, what is "
             "partly there, and what is missing before the next audit.",
        summary="The open items that most affect audit readiness are {top}. Each needs an owner, a "
                "deadline and a defined standard of evidence before it can be closed.",
        consequences=(
            "{ref} {state}. Beyond the exposure to {risk}, it is a probable audit finding, and "
            "findings of this kind tend to widen the auditor's sampling in related areas.",
            "With {ref} not fully in place, {org} cannot evidence the control, and the risk of {risk} "
            "stays unmanaged on the compliance register.",
            "{ref} {state}, which puts certification or attestation at risk if it is raised as a major "
            "nonconformity, and exposes {org} to {risk} in the meantime.",
        ),
        outcome="an audit-ready programme in which every control has an owner, evidence and a review "
                "date",
        metrics=("open requirements by owner and age", "controls with current evidence",
                 "audit findings raised and closed on time", "{framework} compliance score"),
        ask="assign an owner and an evidence standard to each named requirement and set internal "
            "deadlines well ahead of the audit",
        allies="the CISO and the internal auditor",
        proof="an evidence pack per control that an external auditor could sample without follow-up "
              "questions",
        maintain="refresh evidence on a calendar and review controls after every significant change, "
                 "so that the next audit is a formality",
        policy_gap="The missing policy is usually the first document an auditor asks for; without it, "
                   "even well-run controls have nothing to trace back to.",
        insight="Auditors sample; they do not read everything. A few poorly evidenced controls in one "
                "area lead them to test that area harder, so closing the evidence gaps matters as "
                "much as closing the control gaps.",
        phasing="The phases finish before audit fieldwork, leaving room to collect and review "
                "evidence.",
        budget_view="Most of the cost is owner time and evidence collection; a compliance tool pays "
                    "off only if it replaces manual evidence gathering.",
        buyer="the CFO, with the CISO as co-sponsor; you own the plan",
        criteria=("evidence an external auditor accepts", "clear ownership for each control",
                  "closure before the audit window", "little ongoing effort to keep evidence current"),
        champion="You are the champion; the CISO is the senior sponsor who can secure time from the "
                 "technical teams.",
        inaction="Carrying these items into the audit turns them into formal findings with deadlines: "
                 "the same work, done under more pressure.",
    ),
    Persona(
        id="it_director", label="IT Director", category="Management",
        role="the manager who runs IT operations and the teams who will carry out most of the fixes",
        concerns=("team capacity and competing priorities", "change risk on production systems",
                  "patching, backups and configuration hygiene", "tools the team can actually run"),
        decides="who on the team does the work, in what sequence, and through which changes",
        keywords=("backup", "patch", "vulnerab", "configuration", "change", "capacity", "end point",
                  "endpoint", "device", "installation", "software", "malware", "asset", "inventor",
                  "network", "cloud", "maintenance", "privilege", "clock"),
        stakes="team capacity, system stability and operational hygiene",
        clause_hints=("a.8.1", "a.8.6", "a.8.8", "a.8.9", "a.8.13", "a.8.19", "a.8.32", "a.5.9",
                      "cc8", "164.308(a)(7)(ii)(a)"),
        title="{framework} at {score}%: the IT work behind {open_phrase}",
        title_clean="{framework} fully met: keeping IT operations audit-ready",
        lens="For IT operations, the useful reading is how much work each result represents, who "
             "does it, and how it goes through change control.",
        summary="The open items that land on IT operations are {top}. Most are configuration, process "
                "and hygiene work the team can plan and deliver in normal change windows.",
        consequences=(
            "{ref} {state}, which leaves systems exposed to {risk}. When that happens it is your team "
            "that handles the recovery, at night and at the expense of planned work.",
            "With {ref} not fully in place, the risk of {risk} stays in production, and every audit or "
            "customer questionnaire will pull the team back to explain it.",
            "{ref} {state}. It is the kind of hygiene gap that is cheap to fix as planned work and "
            "expensive to fix in the middle of an incident.",
        ),
        outcome="stable, well-run systems where evidence of good practice is a by-product of normal "
                "operations",
        metrics=("open remediation tasks by team and age", "patch compliance within deadline",
                 "successful restore tests", "changes implemented without incident"),
        ask="turn the named requirements into scheduled change tickets with owners and dates",
        allies="the CISO for control design and the network administrator for infrastructure changes",
        proof="system-generated evidence such as patch reports, backup logs and configuration baselines",
        maintain="keep patching, backups and access reviews on a fixed operational calendar with "
                 "evidence generated automatically",
        policy_gap="Without a documented policy, the team has no agreed standard to configure against "
                   "and no basis for refusing risky requests.",
        insight="Most compliance gaps in IT operations are not missing tools but missing routine: the "
                "work is done sometimes, by someone, without a record. Turning it into scheduled, "
                "evidenced routine closes the gap for good.",
        phasing="The sequence respects change windows and team capacity, with the quick configuration "
                "fixes first.",
        budget_view="The main cost is team time; where capacity is short, a fixed-scope engagement for "
                    "the heaviest items frees the team for business as usual.",
        buyer="the CIO, with the CFO for anything outside the IT budget",
        criteria=("a realistic load on the team", "no risky big-bang changes",
                  "evidence produced automatically", "tools the team already knows or can run"),
        champion="You are the delivery champion; the CIO is the sponsor who protects the team's "
                 "capacity for this work.",
        inaction="Leaving the hygiene gaps open means the team keeps paying for them in incidents, "
                 "exceptions and audit questions.",
    ),
    Persona(
        id="risk_manager", label="Risk Manager", category="Management",
        role="the manager who keeps {org}'s risk register and advises on risk appetite",
        concerns=("the likelihood and impact of the open gaps", "risk appetite and tolerance",
                  "supplier and concentration risk", "residual risk after treatment"),
        decides="how each gap is rated on the risk register and whether it is treated, transferred or "
                "accepted",
        keywords=("risk", "threat", "continuity", "supplier", "supply chain", "assessment",
                  "treatment", "resilien", "disrupt", "impact", "vulnerab", "incident", "insur",
                  "analysis", "review"),
        stakes="likelihood, impact and residual risk",
        clause_hints=("a.5.7", "a.5.19", "a.5.21", "a.5.29", "a.5.30", "cc3", "cc9",
                      "164.308(a)(1)"),
        title="{framework} at {score}%: {open_phrase} for the risk register",
        title_clean="{framework} fully met: watching residual risk and early warning signs",
        lens="For the risk register, each result is a control whose absence changes the likelihood or "
             "the impact of a known risk.",
        summary="The open items that move the risk profile most are {top}; each belongs on the register "
                "with a rating, an owner and a treatment decision.",
        consequences=(
            "{ref} {state}, which raises the likelihood of {risk}. On the register that risk should "
            "sit above appetite until the control is in place.",
            "Without {ref} fully in place, the impact of {risk} is larger and less predictable, "
            "because nothing limits the damage once it starts.",
            "{ref} {state}. It is a treatment decision waiting to be made: fix it, transfer the risk "
            "through insurance or contract, or accept it formally with a review date.",
        ),
        outcome="a risk profile back within appetite, with every significant risk rated, owned and "
                "treated",
        metrics=("risks above appetite", "open treatments by age", "residual rating after treatment",
                 "key risk indicators for the named areas"),
        ask="enter the named requirements on the risk register with ratings and owners, and take "
            "treatment decisions at the next risk committee",
        allies="the CISO and the CFO",
        proof="residual-risk ratings that fall as each control is evidenced",
        maintain="watch key risk indicators for the critical controls, so that drift shows up before "
                 "an incident does",
        policy_gap="Without a documented policy, risk appetite has no written expression, so there is "
                   "no agreed threshold against which to rate these gaps.",
        insight="A compliance score averages everything; a risk register does not. Two open "
                "requirements can move the overall risk more than twenty minor ones, and treating "
                "them first is the efficient use of effort.",
        phasing="The phases follow residual risk: the largest reductions come first.",
        budget_view="Compare the treatment cost of each gap with the expected loss it removes and with "
                    "the price of transferring it; some will be cheaper to fix than to insure.",
        buyer="the CFO, on the recommendation of the risk committee",
        criteria=("the largest reduction in residual risk per unit of effort",
                  "a clear treatment decision per gap", "measurable key risk indicators",
                  "consistency with the stated risk appetite"),
        champion="You champion the risk view; the CISO champions the technical treatment.",
        inaction="Not deciding is itself a decision to accept the risk, only without the "
                 "documentation, the owner or the review date that acceptance requires.",
    ),
    Persona(
        id="hr_director", label="HR Director", category="Management",
        role="the director responsible for people, employment terms and the workforce side of "
             "compliance",
        concerns=("screening and onboarding", "training and awareness completion",
                  "joiners, movers and leavers", "employment terms and the disciplinary process"),
        decides="how people-related controls are built into hiring, training and offboarding",
        keywords=("personnel", "screen", "training", "awareness", "employ", "education", "disciplin",
                  "termination", "workforce", "staff", "human", "confidential", "non disclosure",
                  "remote", "roles", "responsibilit", "sanction", "terms and conditions"),
        stakes="people, conduct and the employee life cycle",
        clause_hints=("a.6.", "a.5.2", "a.5.3", "a.5.4", "cc1.4", "cc1.5", "164.308(a)(3)",
                      "164.308(a)(5)", "164.308(a)(1)(ii)(c)"),
        title="{framework} at {score}%: the people side of {open_phrase}",
        title_clean="{framework} fully met: keeping people controls working as the workforce changes",
        lens="For HR, these results show where the employee life cycle, from hiring to leaving, "
             "supports the controls or undermines them.",
        summary="The open items that fall to the people function are {top}. Most can be built into "
                "existing hiring, training and offboarding processes without adding bureaucracy.",
        consequences=(
            "{ref} {state}. That exposes {org} to {risk}, and people are the first link in that chain: "
            "most incidents start with someone who was not checked, not trained or not offboarded.",
            "With {ref} not fully in place, the risk of {risk} rests on individual behaviour, and HR "
            "has no record of what staff were told or agreed to.",
            "{ref} {state}. In a dispute or a disciplinary case, the absence of this control leaves HR "
            "without the documents it needs to act fairly and lawfully.",
        ),
        outcome="a workforce that knows its obligations, with records showing who was screened, "
                "trained and offboarded, and when",
        metrics=("training completion by department", "screening completed before the start date",
                 "leaver access removed on the last working day",
                 "signed confidentiality terms on file"),
        ask="give each named people control an HR owner and build it into the onboarding, training "
            "and offboarding workflows",
        allies="the IT director for account removal and the compliance officer for evidence",
        proof="HR records showing screening, training and offboarding completed for every employee in "
              "scope",
        maintain="keep screening, annual training and offboarding checklists running, and report "
                 "completion rates to management",
        policy_gap="A policy is what HR points to in employment terms and disciplinary cases; without "
                   "it, expectations of staff are hard to enforce.",
        insight="Security controls fail at the seams of the employee life cycle: the joiner given "
                "access before screening, the mover who keeps old rights, the leaver whose account "
                "stays open. Those seams are HR processes, which is why HR can close gaps that "
                "technology cannot.",
        phasing="The work follows the HR calendar: contract templates and onboarding first, then "
                "training, then the leaver process.",
        budget_view="The cost is mostly process change and training time, and awareness training is "
                    "among the best-value controls there are.",
        buyer="the CFO, with your sponsorship of the people-related items",
        criteria=("fits existing HR processes and systems", "proportionate to role and risk",
                  "records available for audit", "fair and lawful under employment terms"),
        champion="You champion the people controls; the IT director is the partner who makes leaver "
                 "access removal dependable.",
        inaction="Without these controls, the next incident caused by a person will find HR without "
                 "the records to show what was expected of them.",
    ),
    Persona(
        id="procurement_manager", label="Procurement Manager", category="Management",
        role="the manager who runs supplier selection, contracting and supplier performance",
        concerns=("supplier due diligence", "security clauses in contracts",
                  "cloud and outsourced services", "supplier performance and exit"),
        decides="which suppliers are reviewed, which security terms are required, and how contracts are "
                "renewed",
        keywords=("supplier", "vendor", "third", "outsourc", "contract", "agreement", "supply chain",
                  "cloud service", "acquisition", "purchas", "procure", "business associate",
                  "service provider", "licen", "external"),
        stakes="supplier risk, contract terms and third-party assurance",
        clause_hints=("a.5.19", "a.5.20", "a.5.21", "a.5.22", "a.5.23", "a.8.30", "cc9.2",
                      "164.308(b)", "164.314"),
        title="{framework} at {score}%: supplier and contract gaps for procurement",
        title_clean="{framework} fully met: keeping supplier assurance current at every renewal",
        lens="For procurement, each result shows whether supplier risk is managed before the contract, "
             "written into it, and reviewed during it.",
        summary="The open items that fall to procurement are {top}. They can be closed through the "
                "supplier life cycle you already run: selection, contract, review and renewal.",
        consequences=(
            "{ref} {state}, which exposes {org} to {risk}. Supplier risk is then accepted at "
            "signature by default, with little contractual recourse afterwards.",
            "With {ref} not fully in place, a supplier's weakness can become {org}'s incident, and "
            "the risk of {risk} is not priced into the contract or the supplier's obligations.",
            "{ref} {state}. The next renewal is the point of leverage: security terms are easiest to "
            "add when the supplier wants the contract extended.",
        ),
        outcome="a supplier base whose security obligations are written into contracts and checked "
                "before every renewal",
        metrics=("critical suppliers with a current security review",
                 "contracts with security and data-protection clauses",
                 "supplier issues raised and resolved", "renewals completed with updated terms"),
        ask="add security due diligence and standard security clauses to the supplier process, "
            "starting with the renewals due in the next two quarters",
        allies="the general counsel for contract terms and the CISO for supplier assessments",
        proof="a supplier register with risk tiers, signed security clauses and dated review records",
        maintain="review critical suppliers on a fixed cycle and re-check security terms at every "
                 "renewal",
        policy_gap="Without a documented policy, procurement has no standard to require of suppliers, "
                   "and every negotiation starts from nothing.",
        insight="Most businesses carry more security risk in their suppliers than in their own "
                "systems, and procurement holds the strongest lever over it: the contract. Adding "
                "terms at renewal costs almost nothing; adding them mid-contract is a negotiation.",
        phasing="The sequence follows the renewal calendar, so that terms are added when the leverage "
                "is greatest.",
        budget_view="The cost is mostly process time; a tiered approach keeps reviews proportionate, "
                    "with full assessments only for critical suppliers.",
        buyer="the CFO, with your ownership of the supplier process",
        criteria=("reviews proportionate to supplier tier",
                  "standard clauses suppliers accept without long negotiation",
                  "fits the existing procurement workflow", "evidence available for audit"),
        champion="You champion the supplier process; the general counsel is the ally for contract "
                 "wording.",
        inaction="Every contract renewed without security terms locks the current risk in for another "
                 "term.",
    ),
    Persona(
        id="data_privacy_officer", label="Data Privacy Officer", category="Management",
        role="the officer responsible for how {org} handles personal data and meets its "
             "data-protection obligations",
        concerns=("lawful processing and data minimisation", "retention and deletion",
                  "breach-notification deadlines", "personal data shared with processors"),
        decides="which privacy risks need remediation, and whether an impact assessment or a "
                "notification is required",
        keywords=("privacy", "pii", "personal", "data protection", "retention", "deletion", "masking",
                  "leakage", "consent", "data subject", "health information", "phi ", "business associate",
                  "classification", "labelling", "transfer", "breach", "encrypt", "crypt", "disposal",
                  "minimum necessary"),
        stakes="personal data, data-subject rights and regulatory notification",
        clause_hints=("a.5.34", "a.5.12", "a.5.13", "a.5.14", "a.5.33", "a.8.10", "a.8.11", "a.8.12",
                      "164.312(a)(2)(iv)", "164.312(e)", "164.530"),
        title="{framework} at {score}%: the personal-data stakes in {open_phrase}",
        title_clean="{framework} fully met: keeping personal-data handling lawful as processing changes",
        lens="For data protection, each result either protects the personal data {org} holds or leaves "
             "it open to misuse, loss or unlawful processing.",
        summary="The open items with the most privacy impact are {top}. They bear directly on how "
                "personal data is protected and on {org}'s ability to meet its data-protection "
                "obligations.",
        consequences=(
            "{ref} {state}, which leaves {org} exposed to {risk}. Where personal data is involved, a "
            "breach could trigger mandatory notification to the regulator and to the people "
            "affected, on tight deadlines.",
            "With {ref} not fully in place, {org} would struggle to show accountability for its "
            "processing, and the risk of {risk} translates into regulatory fines and complaints.",
            "{ref} {state}. Data subjects and regulators judge {org} on outcomes; a gap here is the "
            "kind that turns an incident into an enforcement case.",
        ),
        outcome="personal data handled lawfully and demonstrably, with breaches detected and notified "
                "on time",
        metrics=("personal-data breaches notified within the deadline",
                 "data-subject requests answered on time", "records held past their retention date",
                 "processors with a signed data-processing agreement"),
        ask="assess the named requirements for privacy impact and confirm which need an impact "
            "assessment or immediate remediation",
        allies="the general counsel and the CISO",
        proof="records of processing, impact assessments and a tested breach-notification procedure",
        maintain="review processing records and retention every year, and assess every new system that "
                 "handles personal data before it goes live",
        policy_gap="Without a documented policy, {org} cannot demonstrate accountability for personal "
                   "data, which data-protection regulators expect as a matter of course.",
        insight="Privacy regulators ask less whether a breach happened than whether the business can "
                "show it had taken appropriate measures. Accountability is documentary: the controls "
                "have to exist and be evidenced.",
        phasing="The order puts breach detection and notification first, because a missed deadline is "
                "the easiest failing for a regulator to prove.",
        budget_view="Most privacy controls need process and documentation work; technical spend is "
                    "best focused on the controls that make a breach less likely.",
        buyer="the CFO, on your recommendation with the general counsel",
        criteria=("demonstrable accountability", "lawful basis and minimisation respected",
                  "breach notification achievable within the deadlines", "processors bound by contract"),
        champion="You champion the privacy items; the CISO is the ally for the technical protection of "
                 "personal data.",
        inaction="An open privacy gap that is already documented is hard to defend: after an incident "
                 "it shows the risk was known.",
    ),
    # ----------------------------------------------------------------- Operational
    Persona(
        id="project_manager", label="Project Manager", category="Operational",
        role="the person who will turn the remediation into a project with scope, milestones and owners",
        concerns=("clear scope and dependencies", "owners who have the time", "milestones and reporting",
                  "changes that affect other projects"),
        decides="how the work is scoped, sequenced and tracked, and which dependencies need escalation",
        keywords=("project", "planning", "change", "development", "testing", "acceptance", "outsourc",
                  "requirement", "documented", "procedur", "responsibilit", "roles", "implement"),
        stakes="scope, schedule, dependencies and delivery risk",
        clause_hints=("a.5.8", "a.5.37", "a.8.25", "a.8.26", "a.8.29", "a.8.30", "a.8.32", "cc8"),
        title="{framework} at {score}%: {open_phrase} as a remediation project",
        title_clean="{framework} fully met: building compliance checks into every project",
        lens="For delivery, the results are a work breakdown: what is in scope, how large each item "
             "is, and what depends on what.",
        summary="The items that shape the project most are {top}; they set the critical path, and "
                "scoping them first makes the rest of the plan predictable.",
        consequences=(
            "{ref} {state}. Beyond the exposure to {risk}, it is likely a dependency for other work, so "
            "leaving it late delays the milestones that rely on it.",
            "With {ref} not fully in place, the risk of {risk} remains, and the item is prone to scope "
            "creep unless its owner and acceptance criteria are fixed at the start.",
            "{ref} {state}. Items like this stall in projects when nobody owns them between teams; one "
            "owner with clear acceptance criteria is the fix.",
        ),
        outcome="a remediation project with a clear critical path, owners who deliver on time, and "
                "closure anyone can verify",
        metrics=("milestones met on schedule", "items closed against their acceptance criteria",
                 "open dependencies and blockers", "effort against estimate"),
        ask="set the remediation up as a project with a charter, an owner per item and a milestone "
            "plan",
        allies="the compliance officer as business owner and the IT director for resourcing",
        proof="a milestone plan with acceptance criteria per item, tracked in a weekly status report",
        maintain="add a compliance checkpoint to the project life cycle, so that new projects do not "
                 "reopen closed gaps",
        policy_gap="Without a documented policy, the project has no agreed definition of done for its "
                   "control work, and acceptance becomes a matter of opinion.",
        insight="Compliance remediation projects rarely fail on technical difficulty; they fail on "
                "ownership between teams and on acceptance criteria nobody wrote down. Defining both "
                "at the start is most of the work.",
        phasing="The milestones are sized to be tracked weekly, with the critical-path items first.",
        budget_view="Estimate effort per item in days rather than in tools; the budget then follows "
                    "from the staffing plan.",
        buyer="the sponsor, usually the CISO or the CIO, with the CFO approving the budget",
        criteria=("a clear scope with acceptance criteria", "realistic owners and capacity",
                  "visible weekly progress", "dependencies managed early"),
        champion="The compliance officer is the business champion; your part is to make progress "
                 "visible so that the sponsor keeps the support coming.",
        inaction="Without a project structure, remediation becomes a side task every team postpones, "
                 "and the deadline arrives with the work half done.",
    ),
    Persona(
        id="internal_auditor", label="Internal Auditor", category="Operational",
        role="the independent assurance function that tests whether {org}'s controls are designed and "
             "operating effectively",
        concerns=("control design and operating effectiveness", "segregation of duties and independence",
                  "quality of evidence", "follow-up of findings"),
        decides="what the internal audit plan covers and how findings are rated and followed up",
        keywords=("review", "independent", "audit", "segregation of duties", "duties", "compliance",
                  "monitor", "record", "evidence", "documented", "logging", "logs", "measurement",
                  "evaluation", "polic"),
        stakes="control effectiveness, evidence and assurance",
        clause_hints=("a.5.3", "a.5.35", "a.5.36", "a.5.37", "a.8.15", "a.8.34", "cc4", "cc5",
                      "164.308(a)(8)", "164.312(b)"),
        title="{framework} at {score}%: {open_phrase} for the internal audit plan",
        title_clean="{framework} fully met: what internal audit should keep testing",
        lens="For internal audit, each result is a control whose design and operation can be tested, "
             "and whose absence should shape the audit plan.",
        summary="The open items that most affect assurance are {top}. They belong in the internal "
                "audit plan, with findings rated and followed up to verified closure.",
        consequences=(
            "{ref} {state}. That is a design deficiency exposing {org} to {risk}, and internal audit "
            "cannot give assurance over the area until it is fixed.",
            "With {ref} missing or only partly in place, management's assertion that the control "
            "environment is effective cannot be supported, and the risk of {risk} goes unmitigated.",
            "{ref} {state}. Left for the external auditor to find, it becomes a finding in their "
            "report rather than an issue management resolved on its own.",
        ),
        outcome="controls that are designed, operating and evidenced, with findings closed and "
                "verified by internal audit",
        metrics=("open audit findings by rating and age", "findings closed and verified on time",
                 "controls tested without exception", "repeat findings"),
        ask="include the named requirements in the next internal audit cycle and agree dated "
            "management actions",
        allies="the compliance officer and the chair of the audit committee",
        proof="test results on a sample showing that the control operated throughout the period",
        maintain="test the key controls on a rotating plan and follow every finding to verified closure",
        policy_gap="Without a documented policy there is no criterion to audit against, so findings "
                   "can be disputed and assurance cannot be given.",
        insight="An assessment shows design; an audit shows operation. A control that exists on paper "
                "but has no operating evidence will fail testing, so the partly met items deserve as "
                "much attention as the missing ones.",
        phasing="The sequence leaves internal audit time to test the closed items before the external "
                "audit.",
        budget_view="Internal audit time is the main cost; co-sourcing specialist testing covers areas "
                    "where the team lacks the expertise.",
        buyer="the audit committee, which sets the plan, while management funds remediation through "
              "the CFO",
        criteria=("independence of the testing", "evidence over the whole period, not a point in time",
                  "dated management actions", "verified closure"),
        champion="The chair of the audit committee is the champion at board level; you keep the "
                 "management actions on track.",
        inaction="Findings not raised internally are raised externally, with less control over their "
                 "timing and wording.",
    ),
    Persona(
        id="security_analyst", label="Security Analyst", category="Operational",
        role="the analyst who watches for threats, triages alerts and investigates suspicious activity",
        concerns=("visibility into logs and endpoints", "alert quality and triage time",
                  "known vulnerabilities and malware", "threat intelligence"),
        decides="which detections, log sources and vulnerability fixes to push for first",
        keywords=("monitor", "logging", "logs", "log ", "threat", "malware", "vulnerab", "event",
                  "detect", "alert", "intelligence", "clock", "leakage", "filter", "scan", "patch",
                  "audit control"),
        stakes="visibility, detection and response time",
        clause_hints=("a.5.7", "a.5.25", "a.6.8", "a.8.7", "a.8.8", "a.8.12", "a.8.15", "a.8.16",
                      "a.8.17", "a.8.23", "cc7.2", "cc7.3", "164.308(a)(1)(ii)(d)", "164.312(b)"),
        title="{framework} at {score}%: detection and visibility gaps for the security team",
        title_clean="{framework} fully met: keeping detection sharp as threats change",
        lens="For the analyst, each result decides whether you can see an attack in progress and "
             "whether you have the data to investigate it.",
        summary="The open items that most limit detection and investigation are {top}. Each is a blind "
                "spot or a known weakness an attacker can use.",
        consequences=(
            "{ref} {state}, which exposes {org} to {risk}. For the analyst that is a blind spot: "
            "activity there goes unseen or cannot be reconstructed afterwards.",
            "With {ref} not fully in place, triage slows down and the risk of {risk} rises, because "
            "alerts lack context and the evidence is incomplete.",
            "{ref} {state}. In an investigation this is where the timeline goes dark, which makes it "
            "hard to scope an incident or to show that no data was taken.",
        ),
        outcome="full visibility of the environment, with alerts that lead to action and evidence that "
                "supports a confident investigation",
        metrics=("log sources onboarded against the asset inventory", "mean time to detect and to "
                 "triage", "critical vulnerabilities past their deadline",
                 "alerts closed with a documented outcome"),
        ask="move the named items to the top of the security backlog and agree which log sources and "
            "detections come first",
        allies="the incident responder and the IT director",
        proof="detection tests that show alerts firing, and scan results that show vulnerabilities "
              "closed",
        maintain="review detections and log coverage every quarter and test them against current "
                 "attack techniques",
        policy_gap="Without a documented policy, monitoring has no mandate: which logs are kept, for "
                   "how long, and who may review them is left undecided.",
        insight="Most breaches are visible in the logs long before they are discovered, if the logs "
                "exist and someone looks. Closing visibility gaps first multiplies the value of every "
                "other control.",
        phasing="Visibility comes first, so that every later fix can be verified in the logs.",
        budget_view="Log storage and tuning time are the main costs; ingest the sources that matter for "
                    "detection rather than collecting everything.",
        buyer="the CISO",
        criteria=("coverage of the critical systems", "alert quality over quantity",
                  "retention long enough to investigate", "a workload the team can sustain"),
        champion="The CISO is your champion; the incident responder is the ally who gains most from "
                 "better data.",
        inaction="Without these items the team keeps working blind in exactly the areas an attacker is "
                 "most likely to use.",
    ),
    Persona(
        id="security_architect", label="Security Architect", category="Operational",
        role="the architect who designs security into systems, networks and platforms",
        concerns=("segmentation and trust boundaries", "identity and cryptography design",
                  "secure development and cloud architecture", "consistent patterns across systems"),
        decides="which architectural patterns close the gaps and which systems adopt them first",
        keywords=("architect", "engineering", "design", "segregation", "segment", "separation", "crypt",
                  "encrypt", "network", "authenticat", "identit", "cloud", "development",
                  "application", "redundan", "principle", "configuration", "access"),
        stakes="architecture, design patterns and trust boundaries",
        clause_hints=("a.8.20", "a.8.21", "a.8.22", "a.8.24", "a.8.25", "a.8.26", "a.8.27", "a.8.31",
                      "a.5.23", "cc6.6", "cc6.7", "164.312(a)(2)(iv)", "164.312(e)"),
        title="{framework} at {score}%: design-level fixes for {open_phrase}",
        title_clean="{framework} fully met: keeping the architecture secure by design",
        lens="For architecture, each result shows whether security is designed in or bolted on system "
             "by system as an afterthought.",
        summary="The open items with the deepest design implications are {top}. Solved as reusable "
                "patterns, they close for every system that adopts the pattern.",
        consequences=(
            "{ref} {state}, which exposes the architecture to {risk}. The root cause is usually a "
            "missing pattern, so the same gap recurs in every new system.",
            "With {ref} not fully in place, trust boundaries are weaker than the design assumes, and "
            "the risk of {risk} spreads across every system that shares the weakness.",
            "{ref} {state}. Retrofitting it later will cost more than designing it in now, because "
            "more systems will have been built on the current pattern.",
        ),
        outcome="reference architectures that make the compliant design the default, so that new "
                "systems are secure from their first release",
        metrics=("systems built on approved patterns", "design reviews completed before go-live",
                 "open architecture exceptions", "findings traced to design rather than operation"),
        ask="define reference patterns for the named requirements and make them mandatory in design "
            "review",
        allies="the CIO for roadmap alignment and the CISO for control requirements",
        proof="reference designs reviewed against each requirement, and systems that pass design "
              "review",
        maintain="review new designs against the reference patterns and update the patterns when "
                 "threats or platforms change",
        policy_gap="Without a documented policy, architecture has no security principles to enforce "
                   "in design review.",
        insight="A control missing in one system is an operational problem; the same control missing "
                "across systems is an architecture problem. Fixing the pattern is what stops the gap "
                "from coming back with every new project.",
        phasing="Patterns are designed first, adopted next by the highest-risk systems, then by the "
                "rest as they change.",
        budget_view="Design effort is front-loaded, and it is recovered many times over as each system "
                    "reuses the pattern.",
        buyer="the CIO or the CISO, depending on where the platform budget sits",
        criteria=("reusable patterns rather than one-off fixes", "fit with the target architecture",
                  "enforceable in design review", "measurable adoption"),
        champion="The CISO is the natural sponsor; the CIO's backing makes the patterns part of the "
                 "roadmap rather than optional.",
        inaction="Without a design-level fix, every new system repeats the gap and the remediation "
                 "backlog grows with the estate.",
    ),
    Persona(
        id="incident_responder", label="Incident Responder", category="Operational",
        role="the responder who leads containment, investigation and recovery when an incident happens",
        concerns=("a plan that works under pressure", "evidence and forensic readiness",
                  "escalation and notification deadlines", "recovery and backups"),
        decides="how response procedures, playbooks and exercises are built around the gaps",
        keywords=("incident", "response", "respond", "event", "evidence", "forensic", "breach",
                  "notif", "contingen", "recover", "disrupt", "backup", "restor", "learning",
                  "authorit", "escalat", "emergency"),
        stakes="containment, recovery time and notification deadlines",
        clause_hints=("a.5.24", "a.5.25", "a.5.26", "a.5.27", "a.5.28", "a.5.29", "a.5.5", "a.6.8",
                      "cc7.3", "cc7.4", "cc7.5", "164.308(a)(6)", "164.308(a)(7)"),
        title="{framework} at {score}%: {open_phrase} seen from the day of an incident",
        title_clean="{framework} fully met: keeping response ready through regular exercises",
        lens="For incident response, each result is tested on a bad day: it either speeds containment "
             "and recovery or slows them down.",
        summary="The open items that would hurt most during an incident are {top}. Each adds hours to "
                "containment or recovery, or puts a notification deadline at risk.",
        consequences=(
            "{ref} {state}, which exposes {org} to {risk}; on the day, it costs time in the first "
            "hours, when time matters most.",
            "With {ref} not fully in place, responders improvise where they should follow a playbook, "
            "and the risk of {risk} grows with every hour of delay.",
            "{ref} {state}. After the incident it is also what regulators and insurers ask about first "
            "when they review how the response was handled.",
        ),
        outcome="incidents contained quickly and recovered predictably, with notifications on time and "
                "evidence preserved",
        metrics=("mean time to contain", "recovery time against objectives",
                 "notifications made within the deadline", "exercise findings closed"),
        ask="build the named items into the incident playbooks and test them in a tabletop exercise "
            "this quarter",
        allies="the security analyst and the general counsel",
        proof="exercise results that show the plan working, with the lessons learned closed",
        maintain="exercise the response plan at least twice a year and update the playbooks after "
                 "every real incident",
        policy_gap="Without a documented policy, responders lack the authority to take disruptive "
                   "containment decisions quickly.",
        insight="Incident outcomes are mostly decided before the incident: by whether the plan, the "
                "backups and the contacts exist and have been tested. Every gap named here is one that "
                "would otherwise be discovered at the worst possible moment.",
        phasing="The order favours what shortens containment and recovery, then what improves "
                "evidence and learning.",
        budget_view="Exercises are cheap; a forensic-support retainer is worth pricing now rather than "
                    "in the middle of an incident.",
        buyer="the CISO, with the CFO for any retainer or insurance link",
        criteria=("a plan that works without specific individuals", "recovery tested, not theoretical",
                  "clear escalation and notification paths", "evidence preserved"),
        champion="The CISO sponsors the plan; the general counsel is the ally for notification and "
                 "evidence.",
        inaction="The plan will be tested either way; the only choice is whether that happens in an "
                 "exercise or in a real incident.",
    ),
    Persona(
        id="network_admin", label="Network Administrator", category="Operational",
        role="the administrator who runs the network, its firewalls, remote access and connectivity",
        concerns=("segmentation and firewall rules", "remote access",
                  "network monitoring and time synchronisation", "change control on network devices"),
        decides="which network changes are made, in which maintenance windows, and how they are "
                "verified",
        keywords=("network", "firewall", "segregation of net", "segment", "filter", "remote", "vpn",
                  "wireless", "web", "transmission", "cabling", "clock", "perimeter", "encrypt",
                  "redundan", "capacity", "transfer"),
        stakes="segmentation, remote access and network hygiene",
        clause_hints=("a.8.20", "a.8.21", "a.8.22", "a.8.23", "a.7.12", "a.8.17", "a.6.7", "cc6.6",
                      "164.312(e)"),
        title="{framework} at {score}%: the network changes behind {open_phrase}",
        title_clean="{framework} fully met: keeping the network segmented and documented",
        lens="For the network, each result shows whether traffic is controlled, visible and "
             "documented, or simply allowed.",
        summary="The open items that land on the network are {top}. Most are configuration and "
                "documentation work that fits normal maintenance windows.",
        consequences=(
            "{ref} {state}, which exposes the network to {risk}. A flat or loosely filtered network "
            "lets one compromised device reach everything else.",
            "With {ref} not fully in place, the risk of {risk} stays live on the network, and tracing "
            "traffic during troubleshooting or an investigation is harder than it should be.",
            "{ref} {state}. Auditors will ask for diagrams, rule reviews and configuration evidence "
            "here; without them the control cannot be shown to work.",
        ),
        outcome="a segmented, documented network where every allowed path has a reason and an owner",
        metrics=("firewall rules reviewed in the period", "segments with enforced filtering",
                 "remote-access sessions protected by multi-factor authentication",
                 "configuration drift on network devices"),
        ask="schedule the named changes into maintenance windows and update the network documentation "
            "as each one is done",
        allies="the security architect for design and the IT director for change approval",
        proof="current diagrams, rule-review records and configuration backups of the network devices",
        maintain="review firewall rules on a schedule, keep the diagrams current and back up device "
                 "configurations after every change",
        policy_gap="Without a documented policy there is no standard to justify refusing or removing a "
                   "network access rule.",
        insight="Most intrusions become serious through lateral movement, not through the first "
                "foothold. Segmentation and filtering decide how far an attacker gets.",
        phasing="Documentation and rule reviews come first, then segmentation changes in planned "
                "windows.",
        budget_view="Most of the work uses existing equipment; new spend is usually needed only where "
                    "segmentation requires hardware or licences.",
        buyer="the IT director or the CIO",
        criteria=("no unplanned outages from the changes", "every rule with a documented reason",
                  "configuration that can be verified", "manageable with current tools"),
        champion="The security architect champions the design; the IT director protects the "
                 "maintenance windows.",
        inaction="Every unreviewed rule and every flat segment widens the path an attacker would take.",
    ),
    # ----------------------------------------------------------------- Business
    Persona(
        id="sales_director", label="Sales Director", category="Business",
        role="the leader responsible for revenue, pipeline and customer relationships",
        concerns=("security questionnaires that slow deals", "customer trust and certifications",
                  "contract terms on security and data", "competitive position"),
        decides="how compliance status is presented to customers and which gaps to escalate as deal "
                "blockers",
        keywords=("customer", "client", "contract", "agreement", "confidential", "privacy",
                  "personal data", "pii", "encrypt", "crypt", "incident", "breach", "continuity",
                  "availab", "certific", "transfer", "cloud", "supplier"),
        stakes="deal velocity, customer trust and win rates",
        clause_hints=("a.5.14", "a.5.20", "a.5.31", "a.5.34", "a.6.6", "a.8.24", "cc2.3", "c1",
                      "164.314"),
        title="{framework} at {score}%: what customers will ask about, and how to answer",
        title_clean="{framework} fully met: turning compliance into a sales asset",
        lens="For sales, these results are what customers' security teams will probe in "
             "questionnaires, audits and contract negotiations.",
        summary="The open items most likely to come up in customer security reviews are {top}. Closing "
                "them shortens security reviews and removes a reason for buyers to hesitate.",
        consequences=(
            "{ref} {state}. Customers ask about exactly this, and an honest answer today reveals the "
            "gap; the underlying risk, {risk}, is what their security team is screening for.",
            "With {ref} not fully in place, enterprise deals may stall in security review or close "
            "only with tougher liability terms, while the risk of {risk} remains.",
            "{ref} {state}. Competitors with a clean answer here will use it, and in a close "
            "evaluation that can decide the deal.",
        ),
        outcome="security reviews that pass quickly, with a credible answer to every question "
                "customers ask",
        metrics=("days deals spend in security review", "deals lost or delayed on security grounds",
                 "questionnaires answered without exceptions", "win rate in regulated accounts"),
        ask="flag the open deals where these items are likely to come up, and agree with the CISO a "
            "target date you can share with customers",
        allies="the CISO for accurate answers and the general counsel for contract terms",
        proof="a current certificate or attestation, plus a short security summary sales can share "
              "under NDA",
        maintain="keep a current security summary and certificate ready for customers, refreshed "
                 "after every audit",
        policy_gap="Customer questionnaires almost always ask for the policy first; without one, the "
                   "first answer undermines everything that follows.",
        insight="Buyers do not expect perfection; they expect a credible answer and a plan. A known gap "
                "with a dated remediation plan loses fewer deals than a vague answer does.",
        phasing="The order puts first the items customers ask about most often.",
        budget_view="Set the cost of remediation against the revenue currently held up in security "
                    "reviews; the comparison usually makes the case on its own.",
        buyer="the CFO or the CEO, with sales providing the revenue case",
        criteria=("fewer security objections in active deals", "a credible story for customers",
                  "dates that can be shared", "certificates or reports available under NDA"),
        champion="You champion the revenue case; the CISO provides the credibility.",
        inaction="Each quarter the gaps stay open they cost time in every enterprise deal, and now and "
                 "then they cost the deal itself.",
    ),
    Persona(
        id="marketing_director", label="Marketing Director", category="Business",
        role="the leader responsible for the brand, public communications and the customer data used "
             "in marketing",
        concerns=("brand reputation and public trust", "lawful use of customer data",
                  "crisis communications", "claims made in marketing"),
        decides="what {org} can credibly say about security and privacy, and how a public incident "
                "would be communicated",
        keywords=("privacy", "personal", "pii", "consent", "marketing", "communicat", "public",
                  "website", "web", "brand", "reputation", "social", "leakage", "disclos", "breach",
                  "notif", "acceptable use", "intellectual", "data protection"),
        stakes="brand, reputation and the lawful use of customer data",
        clause_hints=("a.5.34", "a.5.32", "a.5.10", "a.5.6", "a.8.12", "a.8.23"),
        title="{framework} at {score}%: brand and customer-data risks for marketing",
        title_clean="{framework} fully met: telling the trust story with confidence",
        lens="For marketing, these results decide what {org} can credibly claim about security and "
             "privacy, and how exposed the brand would be if something went wrong.",
        summary="The open items with the most weight for the brand and for customer data are {top}. "
                "Until they are closed, public claims about security should stay modest and the "
                "crisis plan should be ready.",
        consequences=(
            "{ref} {state}, exposing {org} to {risk}. If that became public it would be a brand event, "
            "not just a technical one, with coverage you do not control.",
            "With {ref} not fully in place, {org} remains exposed to {risk}; where customer data is "
            "involved, consent and data-protection complaints land on marketing first.",
            "{ref} {state}. Any claim about security or privacy made now could be tested against this "
            "gap by a customer, a journalist or a regulator.",
        ),
        outcome="a trust story that holds up under scrutiny, and customer data used lawfully and "
                "confidently in campaigns",
        metrics=("privacy complaints relating to marketing", "consent records complete for marketing "
                 "lists", "time to approve a holding statement in an incident",
                 "brand sentiment after security news"),
        ask="check current public security and privacy claims against these gaps and prepare an "
            "incident holding statement with legal",
        allies="the data privacy officer and the general counsel",
        proof="claims backed by certificates and documented controls",
        maintain="review security and privacy claims after each audit and rehearse the crisis "
                 "communication plan once a year",
        policy_gap="Without a documented policy, any public statement about security or privacy has no "
                   "internal document to stand on.",
        insight="Reputational damage from a breach comes less from the breach itself than from the gap "
                "between what a company claimed and what it did. Keeping claims in line with the real "
                "state of the controls is a marketing discipline.",
        phasing="Privacy and customer-data items go first, because they affect marketing operations "
                "directly.",
        budget_view="The cost to marketing is mainly time; the return is a trust message that can be "
                    "used safely once the gaps are closed.",
        buyer="the CFO or the CEO",
        criteria=("claims that can be defended", "lawful use of marketing data",
                  "a tested crisis communication plan", "a trust message usable in campaigns"),
        champion="The data privacy officer champions the data side; you champion the reputational case.",
        inaction="The reputational risk grows with every claim made while the gaps remain open.",
    ),
    Persona(
        id="small_business_owner", label="Small Business Owner", category="Business",
        role="the owner who runs the business and makes every significant decision, this one included",
        concerns=("cost and time", "practical steps that actually protect the business",
                  "customers and suppliers who ask for proof", "staying in business after an incident"),
        decides="what to fix yourself, what to hand to a provider, and what to do first with limited "
                "time and money",
        keywords=("backup", "password", "authenticat", "malware", "patch", "vulnerab", "access",
                  "training", "awareness", "device", "end point", "endpoint", "remote", "cloud",
                  "supplier", "insur", "continuity", "restor"),
        stakes="cash, time and keeping the business running",
        clause_hints=("a.8.13", "a.8.7", "a.8.8", "a.5.17", "a.6.3", "a.8.1", "a.8.5"),
        title="{framework} at {score}%: the practical fixes that protect your business",
        title_clean="{framework} fully met: simple habits that keep it that way",
        lens="For an owner the question is simple: which of these could hurt the business, and what "
             "is the cheapest sensible way to fix them.",
        summary="The items to fix first are {top}. Most need a few hours of set-up, or a feature of a "
                "service you may already pay for, rather than a big project.",
        consequences=(
            "{ref} {state}, leaving the business open to {risk}. For a small business, one incident "
            "like this can mean days without trading and customers who do not come back.",
            "With {ref} not fully in place, the risk of {risk} falls on you directly: there is no "
            "separate IT or legal department to absorb it.",
            "{ref} {state}. Customers and insurers increasingly ask about exactly this, and a 'no' can "
            "cost a contract or raise the premium.",
        ),
        outcome="a business that keeps trading through an incident, with the basic protections in place "
                "and proof ready when customers ask",
        metrics=("days of trading lost to IT problems", "successful backup restores",
                 "staff signing in with multi-factor authentication",
                 "customer security questions answered 'yes'"),
        ask="pick the first three named items and book time this month, yourself or with your IT "
            "provider, to put them in place",
        allies="your IT provider or managed service partner",
        proof="a short checklist, ticked off, with a screenshot or report for each item",
        maintain="check backups, updates and accounts once a month, which takes under an hour once it "
                 "is set up",
        policy_gap="Even a one-page policy helps: it tells staff what is expected and shows customers "
                   "and insurers that you take the subject seriously.",
        insight="Most incidents at small businesses exploit the basics: a reused password, an "
                "unpatched laptop, a backup that does not restore. Fixing the basics removes most of "
                "the risk for little money.",
        phasing="Start with what protects the business fastest; the rest can follow over the next "
                "quarter.",
        budget_view="Many fixes are features already included in your software subscriptions; switch "
                    "those on before buying anything new.",
        buyer="you",
        criteria=("low cost", "little time to run", "real protection rather than paperwork",
                  "help available when needed"),
        champion="You are the champion; your IT provider is the person who helps make it happen.",
        inaction="Waiting means relying on luck, and for a small business one bad incident can be the "
                 "last one.",
    ),
    # ----------------------------------------------------------------- External
    Persona(
        id="external_auditor", label="External Auditor", category="External",
        role="the independent auditor who will test {org}'s controls against {framework} and issue an "
             "opinion or certificate",
        concerns=("sufficient and appropriate evidence", "control design and operating effectiveness",
                  "nonconformities and exceptions", "the scope and period of the audit"),
        decides="whether the evidence supports the opinion or certificate, and which findings are raised",
        keywords=("documented", "documentation", "audit", "evidence", "record", "logging", "logs",
                  "change", "polic", "review", "segregation of duties", "responsibilit", "roles",
                  "risk assess", "risk analysis", "procedur", "monitor", "independent", "treatment",
                  "measurement"),
        stakes="evidence, findings and the audit opinion",
        clause_hints=("a.5.1", "a.5.2", "a.5.3", "a.5.35", "a.5.36", "a.5.37", "a.8.15", "a.8.32",
                      "cc2", "cc3", "cc5", "164.316", "164.308(a)(8)"),
        title="{framework} at {score}%: expected findings and the evidence needed to clear them",
        title_clean="{framework} fully met: the evidence behind the audit opinion",
        lens="For your audit, each result translates into evidence that will or will not support the "
             "control at fieldwork.",
        summary="The open items most likely to become findings are {top}. For each, the question is "
                "what evidence of design and operation will exist by fieldwork.",
        consequences=(
            "{ref} {state}. On current evidence it would be raised as a finding, and the underlying "
            "exposure is {risk}.",
            "With {ref} not fully in place, the control cannot be tested for operating effectiveness, "
            "which widens sampling in related areas and may qualify the opinion.",
            "{ref} {state}. A partial implementation without records is treated like a missing control "
            "at fieldwork, so the exposure to {risk} stays on the findings list.",
        ),
        outcome="fieldwork that finds controls designed, operating and evidenced, with no major "
                "nonconformity",
        metrics=("expected findings by severity", "controls with evidence for the full period",
                 "exceptions found in sample testing", "prior findings closed and verified"),
        ask="agree the evidence requests for the named requirements with management ahead of "
            "fieldwork, so that gaps are known before testing starts",
        allies="{org}'s compliance officer and internal auditor",
        proof="records covering the whole audit period, not just the weeks before fieldwork",
        maintain="confirm at each audit that evidence is produced continuously rather than assembled "
                 "for fieldwork",
        policy_gap="The absence of a documented policy is a nonconformity in its own right under most "
                   "frameworks, and it is the first document requested at the opening meeting.",
        insight="Audits test operation over a period, not intent at a point in time. A control "
                "implemented a week before fieldwork has no operating history and may still be "
                "raised as an exception.",
        phasing="The timeline leaves enough operating period before fieldwork for evidence to "
                "accumulate.",
        budget_view="For the auditee, remediation before the audit is cheaper than follow-up audits or "
                    "a qualified opinion.",
        buyer="{org}'s CFO, who usually holds the audit budget; remediation itself is management's "
              "decision",
        criteria=("complete and consistent evidence", "controls operating throughout the period",
                  "a clear scope", "no surprises at fieldwork"),
        champion="On the auditee's side the compliance officer is the champion for audit readiness.",
        inaction="Going into fieldwork with these items open makes findings close to certain.",
    ),
    Persona(
        id="insurance_underwriter", label="Insurance Underwriter", category="External",
        role="the underwriter assessing {org}'s cyber risk for cover, terms and premium",
        concerns=("the controls insurers require, such as multi-factor authentication, backups and "
                  "patching", "incident response readiness", "the likelihood and size of a claim",
                  "the accuracy of the proposal form"),
        decides="whether to offer cover, at what premium and deductible, and with which exclusions or "
                "conditions",
        keywords=("backup", "authenticat", "privilege", "malware", "vulnerab", "patch", "incident",
                  "response", "continuity", "recover", "restor", "encrypt", "crypt", "access",
                  "training", "awareness", "end point", "endpoint", "remote", "supplier", "logging"),
        stakes="insurability, premium and claims exposure",
        clause_hints=("a.8.13", "a.8.5", "a.8.2", "a.8.7", "a.8.8", "a.5.24", "a.5.26", "a.5.30",
                      "a.8.24", "cc7.4", "cc7.5", "164.308(a)(7)"),
        title="{framework} at {score}%: the insurability picture for cyber cover",
        title_clean="{framework} fully met: a favourable risk for cyber cover",
        lens="For underwriting, these results show how likely a claim is, how large it could be, and "
             "how many of the controls insurers now require are in place.",
        summary="The open items that bear most on insurability are {top}. They correspond to controls "
                "insurers commonly require, and they affect premium, deductible and conditions.",
        consequences=(
            "{ref} {state}, which raises the likelihood of {risk}, a pattern behind many cyber claims. "
            "Expect it to count against the risk at underwriting.",
            "With {ref} not fully in place, a claim involving {risk} would be harder to contain, which "
            "bears on limits and deductibles.",
            "{ref} {state}. Where a proposal form asks about this control, an inaccurate answer could "
            "put cover at risk when a claim is made.",
        ),
        outcome="a risk that meets insurers' minimum control requirements and supports cover on "
                "standard terms",
        metrics=("required controls in place: multi-factor authentication, backups, endpoint "
                 "protection, patching", "incident response plan tested within the last year",
                 "expected claim frequency and severity", "premium and deductible at renewal"),
        ask="request a dated remediation plan for the named controls as a condition of cover",
        allies="the broker and {org}'s risk manager",
        proof="confirmation of the named controls with evidence, such as multi-factor coverage reports "
              "or restore-test results",
        maintain="confirm at each renewal that the required controls are still in place, with evidence "
                 "rather than self-declaration",
        policy_gap="Underwriters read the absence of a documented policy as a sign of immature "
                   "governance, and it usually shows in the terms offered.",
        insight="Cyber claims cluster around a handful of failures: missing multi-factor "
                "authentication, untested backups, unpatched systems and slow response. Underwriting "
                "on those controls predicts claims better than an overall compliance score.",
        phasing="Controls insurers treat as minimum requirements come first, so that they can be "
                "confirmed before binding or renewal.",
        budget_view="For the insured, remediating the required controls often costs less than the "
                    "premium difference it makes.",
        buyer="{org}'s CFO, who buys the cover on the broker's advice",
        criteria=("the minimum required controls in place", "evidence rather than self-declaration",
                  "tested incident response and recovery", "accurate proposal answers"),
        champion="The broker and {org}'s risk manager are the natural champions for remediation "
                 "before renewal.",
        inaction="If the gaps stay open, the options narrow to a higher premium, a higher deductible, "
                 "exclusions, or declining the risk.",
    ),
    Persona(
        id="investor", label="Investor", category="External",
        role="an investor assessing how compliance and security risk affect {org}'s value",
        concerns=("valuation and deal risk", "findings in due diligence",
                  "regulatory and litigation exposure", "the quality of management"),
        decides="how compliance risk is priced into the valuation, and which conditions or covenants "
                "to require",
        keywords=("governance", "risk", "continuity", "privacy", "personal", "intellectual", "legal",
                  "regulat", "breach", "incident", "supplier", "contract", "business associate", "polic",
                  "management review", "management responsib", "compliance", "leadership",
                  "independent"),
        stakes="valuation, due diligence and downside risk",
        clause_hints=("a.5.1", "a.5.4", "a.5.29", "a.5.30", "a.5.31", "a.5.32", "a.5.34", "cc1",
                      "cc3"),
        title="{framework} at {score}%: the weight of {open_phrase} in valuation and due diligence",
        title_clean="{framework} fully met: a de-risked asset in due diligence",
        lens="For an investor these results are an input to valuation: they show how mature the control "
             "environment is and where due diligence will probe.",
        summary="The open items with the most weight in due diligence are {top}. They would be raised "
                "in a technical diligence review and could affect price, warranties or conditions.",
        consequences=(
            "{ref} {state}. In due diligence that is a finding, and the underlying exposure to {risk} "
            "is the kind of risk that moves price or warranties.",
            "With {ref} not fully in place, an incident involving {risk} could destroy value quickly, "
            "through remediation costs, lost customers and regulatory penalties.",
            "{ref} {state}. Later buyers and investors will find it too; fixing it before an exit is "
            "cheaper than negotiating around it.",
        ),
        outcome="a control environment that survives due diligence without price adjustments or "
                "special indemnities",
        metrics=("diligence findings by severity", "remediation progress against the plan",
                 "incidents and regulatory actions", "{framework} compliance score over time"),
        ask="require a dated remediation plan and quarterly progress reporting as part of the "
            "investment terms",
        allies="management and your technical diligence adviser",
        proof="independent confirmation of progress, such as a certification or an audit report",
        maintain="ask for compliance status in regular investor reporting, with independent assurance "
                 "every year",
        policy_gap="The absence of a documented policy signals immature governance and is routinely "
                   "raised in diligence.",
        insight="In technical due diligence, the existence of gaps matters less than whether management "
                "knows them and has a credible plan. A documented plan with progress turns a diligence "
                "finding into evidence of good management.",
        phasing="The milestones suit quarterly investor reporting.",
        budget_view="Remediation costs are small next to a potential valuation adjustment or a special "
                    "indemnity.",
        buyer="management, normally the CEO and the CFO, though investors can make it a condition",
        criteria=("a credible plan with dates", "independent verification",
                  "reporting at the investor cadence", "closure before any exit process"),
        champion="The CEO is the champion on management's side; the board representative keeps it on "
                 "the agenda.",
        inaction="Unaddressed gaps become a negotiation point at exit, usually at a worse price than "
                 "fixing them now.",
    ),
)
PERSONA_BY_ID = {p.id: p for p in PERSONAS}

# --------------------------------------------------------------------------- methodologies
METHODOLOGIES: tuple[Methodology, ...] = (
    Methodology(
        id="spin", label="SPIN Selling",
        tone="Questions lead; the reader draws the conclusion from situation, problem and implication.",
        stages=(
            Stage("Situation", "Set out the facts of the assessment neutrally, as the reader sees them.",
                  ("facts",)),
            Stage("Problem", "Name the open requirements the reader owns, the most relevant first.",
                  ("gaps",)),
            Stage("Implication", "Develop what each problem leads to, in the reader's own terms.",
                  ("impact",), lead="Each of these reaches well beyond the assessment."),
            Stage("Need-payoff", "Let the reader see the value of solving the problems.",
                  ("outcome", "metrics")),
        ),
        cta_style="Would closing {top_short} before the next audit or renewal be worth a short working "
                  "session? If it would, the next step is to {ask}; 45 minutes in the next two weeks "
                  "is enough to agree the scope.",
        cta_clean="Would a light routine that keeps this result intact through the next audit be "
                  "worth having? If so, the next step is to {maintain}.",
    ),
    Methodology(
        id="challenger", label="Challenger Sale",
        tone="Teach something the reader did not expect, tailor it, then take control of the next step.",
        stages=(
            Stage("Teach", "Offer a reframing the reader has not considered, backed by the data.",
                  ("insight",)),
            Stage("Tailor", "Apply the insight to the reader's own gaps and consequences.",
                  ("gaps", "impact"), lead="Applied to {org}, that insight points to specific "
                                           "requirements."),
            Stage("Take control", "Recommend a clear course of action and the decisions it needs.",
                  ("decision", "timeline"), lead="This should be decided, not drifted into."),
        ),
        cta_style="Our recommendation is direct: {ask}, starting with {top_short}, and review progress in 30 "
                  "days. Waiting for an auditor, a customer or an incident to force the issue is the "
                  "slower and more expensive route.",
        cta_clean="Our recommendation: {maintain}. A clean result is the best moment to make that "
                  "routine, before anything starts to drift.",
    ),
    Methodology(
        id="sandler", label="Sandler",
        tone="Plain and mutual: establish the pain, talk money openly, agree who decides and when.",
        stages=(
            Stage("Pain", "Make the reader's pain specific and personal.", ("gaps", "impact"),
                  lead="Set the score aside for a moment; this is where it hurts."),
            Stage("Budget", "Discuss the money openly: effort, cost and how to fund it.", ("cost",),
                  lead="Money is best discussed early and openly."),
            Stage("Decision", "Agree who decides, how, and on what timetable.", ("decision", "timeline")),
        ),
        cta_style="Let's agree the next step plainly: a 30-minute call in which you, as {label}, "
                  "tell us whether closing {top_short} is a priority this quarter, what budget it can "
                  "have, and who else has to say yes. If it is not a priority, say so and we will stop "
                  "there.",
        cta_clean="Let's be plain: nothing here needs fixing. If you want support to {maintain}, say so "
                  "in a short call; if not, keep this report as the record of a clean result.",
    ),
    Methodology(
        id="solution_selling", label="Solution Selling",
        tone="Diagnose the pain, build a vision of the solution, prove its value, then plan it.",
        stages=(
            Stage("Pain points", "Diagnose the reader's pain from the open requirements.",
                  ("gaps", "impact")),
            Stage("Vision of the solution", "Describe the capabilities that would remove the pain.",
                  ("outcome", "capabilities"), lead="Picture the same assessment a quarter from now."),
            Stage("Proof and value", "Show how closure will be measured and proven.",
                  ("metrics", "evidence")),
            Stage("Plan", "Lay out a realistic, phased plan.", ("timeline",)),
        ),
        cta_style="To move from diagnosis to delivery, {ask}. We will return a remediation plan for "
                  "{top_short} and the other named requirements, with owners, effort and milestones, within "
                  "two weeks.",
        cta_clean="To keep the solution working, {maintain}; we can set up the review calendar and the "
                  "evidence routine with you.",
    ),
    Methodology(
        id="bant", label="BANT",
        tone="Qualify the opportunity: budget, authority, need and timeline, stated plainly.",
        stages=(
            Stage("Budget", "Size the effort and say how it should be funded.", ("cost",)),
            Stage("Authority", "Say who decides and who signs.", ("buyer", "decision")),
            Stage("Need", "State the need: the open requirements and what they lead to.",
                  ("gaps", "impact")),
            Stage("Timeline", "Give a dated sequence.", ("timeline",)),
        ),
        cta_style="To confirm budget, authority, need and timing in one step: {ask}, name the person "
                  "who signs off, and set a start date within the next 30 days so that work on {top_short} "
                  "is not left waiting.",
        cta_clean="No remediation budget is needed; what remains is to {maintain}, with a named owner "
                  "and a review date.",
    ),
    Methodology(
        id="gap_selling", label="Gap Selling",
        tone="Describe the current state, the future state, and the gap between them.",
        stages=(
            Stage("Current state", "Describe where the reader is today, with the facts and the gaps.",
                  ("facts", "gaps")),
            Stage("Future state", "Describe where the reader wants to be.", ("future", "capabilities"),
                  lead="Now the target."),
            Stage("The gap", "Make the distance between the two states, and its cost, concrete.",
                  ("impact", "cost"),
                  lead="The distance between the two states is what it costs {org} to stay where it "
                       "is."),
        ),
        cta_style="The gap between {score}% today and {target}% is defined and finite. {Ask}, and we "
                  "will turn it into a plan that closes {top_short} first.",
        cta_clean="There is no gap to close today. To keep it that way, {maintain}.",
    ),
    Methodology(
        id="value_selling", label="Value Selling",
        tone="Anchor everything in the business issue and the measurable value of solving it.",
        stages=(
            Stage("Business issue", "State the business issue behind the open requirements.",
                  ("gaps", "impact")),
            Stage("Value and ROI", "Quantify the value in the reader's measures.", ("outcome", "metrics")),
            Stage("Proof", "Show what evidence will demonstrate the value.", ("evidence",)),
            Stage("Plan", "Lay out who decides and how the value is delivered.",
                  ("decision", "timeline")),
        ),
        cta_style="{Ask}. We will bring a value case that sets the cost of closing {top_short} against the "
                  "exposure it removes, so that the decision rests on numbers rather than fear.",
        cta_clean="The value is already delivered; protect it. {Maintain}.",
    ),
    Methodology(
        id="command_of_message", label="Command of the Message",
        tone="Required capabilities, positive business outcomes and the metrics that prove them.",
        stages=(
            Stage("Required capabilities", "Name the capabilities the open requirements call for.",
                  ("gaps", "capabilities")),
            Stage("Positive business outcomes", "Turn each capability into a business outcome.",
                  ("impact", "outcome"),
                  lead="Each capability turns a current exposure into a business outcome."),
            Stage("Metrics", "Define how success is measured and evidenced.", ("metrics", "evidence")),
        ),
        cta_style="Agree the required capabilities and the metrics above as the success criteria, then "
                  "{ask}. Progress will be reported against those metrics at every checkpoint, "
                  "starting with {top_short}.",
        cta_clean="Keep the metrics above as standing success criteria and {maintain}.",
    ),
    Methodology(
        id="consultative_selling", label="Consultative",
        tone="Advisor first: discover, diagnose, advise, and work alongside the reader.",
        stages=(
            Stage("Discover", "Summarise what the assessment shows.", ("facts",)),
            Stage("Diagnose", "Diagnose what matters most for this reader and why.", ("gaps", "impact")),
            Stage("Advise", "Give specific, prioritised advice.", ("outcome", "timeline"),
                  lead="Our advice follows from that diagnosis."),
            Stage("Partner", "Say how the work is carried forward together, and by whom.",
                  ("decision", "champion")),
        ),
        cta_style="We suggest a joint working session to test this diagnosis with your team, starting "
                  "with {top_short}; then {ask}. The plan should change if the session shows it needs to.",
        cta_clean="We suggest a short annual review together to confirm the position still holds; in "
                  "between, {maintain}.",
    ),
    Methodology(
        id="meddpicc", label="MEDDPICC",
        tone="A qualification map: metrics, buyer, criteria, process, paper, pain, champion, competition.",
        stages=(
            Stage("Metrics", "State the measures that define success.", ("metrics",)),
            Stage("Economic buyer", "Name who holds the budget.", ("buyer",)),
            Stage("Decision criteria", "List how a proposal will be judged.", ("criteria",)),
            Stage("Decision process", "Lay out the steps from this report to the start of work.",
                  ("process",)),
            Stage("Paper process", "Name the paperwork and keep it proportionate.", ("paper",)),
            Stage("Identify pain", "Name the pain and its consequences.", ("gaps", "impact")),
            Stage("Champion", "Identify who carries the work internally.", ("champion",)),
            Stage("Competition", "Name the real alternative, usually the status quo.", ("inaction",)),
        ),
        cta_style="Mutual action plan: confirm the economic buyer and the criteria above this week, "
                  "{ask}, and start the paper process in parallel so that work on {top_short} can begin "
                  "without a gap.",
        cta_clean="Mutual action plan for a clean result: name the owner of the controls, {maintain}, "
                  "and set the date of the next review now.",
    ),
)
METHODOLOGY_BY_ID = {m.id: m for m in METHODOLOGIES}
