"""Lookups and view models for the embed pages: tokens to records, records to what a page shows."""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from flask import current_app, request
from markupsafe import Markup, escape
from sqlalchemy import and_, bindparam, delete, insert, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import joinedload, selectinload
from werkzeug.security import safe_join

from ..catalog import CATEGORIES, METHODOLOGY_BY_ID, PERSONA_BY_ID, PERSONAS
from ..extensions import db
from ..keys.brand import accent_as_text, text_on
from ..models import ApiKey, Assessment, EmbedPage, Partner, Report
from . import charts

log = logging.getLogger(__name__)

# Tokens are `secrets.token_urlsafe(24)` (32 characters); anything else cannot match, so skip the query.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
# What `normalize_origin` stores; re-checked here because the value goes into a header.
_ORIGIN = re.compile(r"\*|https?://[a-z0-9.\-*]+(:\d{1,5})?")
ANY_ANCESTOR = "*"
_PERSONA_ORDER = {p.id: i for i, p in enumerate(PERSONAS)}


@dataclass(frozen=True)
class Header:
    """The facts an assessment header shows; never the partner's companyId."""

    framework: str
    industry: str
    display_name: str | None
    score: float
    score_text: str
    band: str
    met: int
    partially_met: int
    not_met: int
    total: int
    shares: tuple[float, float, float]   # met, partially met, not met, in percent of the bar
    methodology_label: str | None
    generated_on: str | None
    generated_iso: str | None
    status: str
    test_mode: bool = False               # made with a test key: every page and PDF says "Test report"
    show_methodology: bool = False        # the key lets its clients see the methodology's name
    score_before_text: str | None = None  # the client's earlier assessment's score, when this one is compared with it
    since: str | None = None              # what moved since then, in words: "2 met now, 1 worse, 1 new"
    area_chart: Markup | None = None      # the status of each area, as inline SVG (app/embed/charts.py)
    score_chart: Markup | None = None     # the score at this and the linked earlier assessments, when linked


def _valid_token(token: str) -> bool:
    return bool(_TOKEN.fullmatch(token))


def assessment_by_embed_token(token: str) -> Assessment | None:
    """The assessment an embed token addresses, with its reports, key and partner; None for unknown tokens."""
    if not _valid_token(token):
        return None
    return db.session.scalar(
        select(Assessment).where(Assessment.embed_token == token)
        # Content is loaded only for the report the page shows, not for all 25.
        .options(selectinload(Assessment.reports).defer(Report.content), joinedload(Assessment.api_key),
                 joinedload(Assessment.partner)))


def report_by_view_token(token: str) -> Report | None:
    """The report a view token addresses, if it has content to show."""
    if not _valid_token(token):
        return None
    report = db.session.scalar(
        select(Report).where(Report.view_token == token)
        .options(joinedload(Report.assessment).options(joinedload(Assessment.api_key),
                                                      joinedload(Assessment.partner))))
    return report if report is not None and report.content else None


def shown_reports(assessment: Assessment) -> list[Report]:
    """Reports with content, in catalogue order (a failed persona keeps its last good content).

    A report has content exactly when some run wrote it, which also set `generated_at`.
    """
    reports = [r for r in assessment.reports if r.generated_at is not None and r.persona in _PERSONA_ORDER]
    return sorted(reports, key=lambda r: _PERSONA_ORDER[r.persona])


def reports_with_content(assessment: Assessment) -> list[Report]:
    """Every shown report with its content loaded, in one query (for the all-reports PDF)."""
    shown = {r.id for r in shown_reports(assessment)}
    reports = db.session.scalars(select(Report).where(Report.id.in_(shown))).all() if shown else []
    return sorted(reports, key=lambda r: _PERSONA_ORDER[r.persona])


def choose_report(reports: list[Report], persona: str | None) -> Report | None:
    """The requested persona's report, else the first with content; None before generation."""
    for report in reports:
        if report.persona == persona:
            return report
    return reports[0] if reports else None


def report_for_persona(assessment: Assessment, persona: str) -> Report | None:
    """One persona's report, when it has content."""
    return next((r for r in shown_reports(assessment) if r.persona == persona), None)


def persona_groups(reports: list[Report]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(category, [(persona id, label)]) for the selector, in catalogue order, empty categories left out."""
    available = {r.persona for r in reports}
    groups = []
    for category in CATEGORIES:
        options = [(p.id, p.label) for p in PERSONAS if p.category == category and p.id in available]
        if options:
            groups.append((category, options))
    return groups


def persona_label(persona: str) -> str:
    return PERSONA_BY_ID[persona].label if persona in PERSONA_BY_ID else persona


def format_score(score: float) -> str:
    """62.5 -> "62.5", 100.0 -> "100"."""
    return f"{score:g}"


def score_band(score: float) -> str:
    """The gauge colour: low below 50, mid below 80, high from 80."""
    if score < 50:
        return "low"
    return "mid" if score < 80 else "high"


def format_date(value: datetime | str | None) -> tuple[str | None, str | None]:
    """("21 November 2026", "2026-11-21") from a datetime or an ISO 8601 string."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None, None
    if value is None:
        return None, None
    return f"{value.day} {value:%B %Y}", value.date().isoformat()


def _shares(met: int, partially_met: int, not_met: int) -> tuple[float, float, float]:
    total = met + partially_met + not_met
    if total == 0:
        return 0.0, 0.0, 0.0
    return tuple(round(100 * n / total, 2) for n in (met, partially_met, not_met))


def shows_methodology(assessment: Assessment) -> bool:
    """Whether the client-facing pages and PDFs may name the sales methodology: only when the key that owns
    the assessment says so. The partner's API keeps `methodology` and `methodologyLabel` either way."""
    return bool(assessment.api_key is not None and assessment.api_key.show_methodology)


def header_for(assessment: Assessment) -> Header:
    """What the header of an assessment's pages shows; no methodology unless the key shows it."""
    show_methodology = shows_methodology(assessment)
    methodology = METHODOLOGY_BY_ID.get(assessment.methodology or "") if show_methodology else None
    generated_on, generated_iso = format_date(assessment.generated_at)
    return Header(
        framework=assessment.framework, industry=assessment.industry, display_name=assessment.display_name,
        score=assessment.compliance_score, score_text=format_score(assessment.compliance_score),
        band=score_band(assessment.compliance_score), met=assessment.count_met,
        partially_met=assessment.count_partially_met, not_met=assessment.count_not_met,
        total=assessment.total_requirements,
        shares=_shares(assessment.count_met, assessment.count_partially_met, assessment.count_not_met),
        methodology_label=methodology.label if methodology else None,
        generated_on=generated_on, generated_iso=generated_iso, status=assessment.status,
        test_mode=not assessment.livemode, show_methodology=show_methodology,
        score_before_text=_score_before(assessment.change), since=since_last(assessment.change),
        area_chart=charts.area_chart(charts.areas_of(assessment)),
        score_chart=charts.score_chart(charts.score_history(assessment)) if assessment.previous_assessment_id
        else None)


# The change counts (app/progress.py) as the summary card says them, in this order; a zero is left out.
SINCE_WORDS = (("closed", "met now that {was} open"), ("improved", "better"), ("regressed", "worse"),
               ("new", "new"), ("dropped", "no longer assessed"), ("stillOpen", "still open"))


def _score_before(change: dict | None) -> str | None:
    before = (change or {}).get("scoreBefore")
    return format_score(before) if isinstance(before, int | float) else None


def since_last(change: dict | None) -> str | None:
    """The moves since the client's earlier assessment, e.g. "2 met now that were open, 1 worse, 1 new"."""
    if not change:
        return None
    parts = []
    for name, words in SINCE_WORDS:
        count = change.get(name) or 0
        if count:
            parts.append(f"{count} {words.format(was='was' if count == 1 else 'were')}")
    return ", ".join(parts) or "no requirement changed status"


@dataclass(frozen=True)
class Brand:
    """How a partner's brand shows on the pages: empty (`NO_BRAND`) looks as the pages always have."""

    name: str | None = None
    color: str | None = None
    logo_digest: str | None = None
    logo_type: str | None = None
    white_label: bool = False

    @property
    def logo_url(self) -> str | None:
        return f"/embed/logo/{self.logo_digest}" if self.logo_digest else None

    @property
    def css(self) -> str | None:
        """Custom properties for the accent; text on it and text in it both keep WCAG AA (4.5:1)."""
        if not self.color:
            return None
        soft = tint(self.color)   # darker than white: ink readable on it is readable on white too
        return (f":root{{--accent:{self.color};--on-accent:{text_on(self.color)};"
                f"--accent-ink:{accent_as_text(self.color, soft)};--accent-soft:{soft}}}")


NO_BRAND = Brand()


def tint(color: str, keep: float = 0.1) -> str:
    """The colour mixed with white, `keep` of it left: a background that dark text stays readable on."""
    channels = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * keep):02x}" for c in channels)


def brand_for(partner: Partner | None) -> Brand:
    if partner is None:
        return NO_BRAND
    return Brand(name=partner.brand_name, color=partner.brand_color, logo_digest=partner.brand_logo_digest,
                 logo_type=partner.brand_logo_type, white_label=bool(partner.white_label))


def logo(digest: str) -> tuple[bytes, str] | None:
    """A brand logo by its content hash: (bytes, media type)."""
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        return None
    row = db.session.execute(
        select(Partner.brand_logo, Partner.brand_logo_type)
        .where(Partner.brand_logo_digest == digest, Partner.brand_logo.is_not(None)).limit(1)).first()
    return (row[0], row[1]) if row else None


def frame_ancestors(assessment: Assessment | None) -> str:
    """The CSP frame-ancestors sources: the partner's embed origins, `*` when it has none."""
    if assessment is None or assessment.partner is None:
        return ANY_ANCESTOR
    return _ancestors(assessment.partner.embed_origins)


def _ancestors(embed_origins: list[str] | None) -> str:
    origins = [o for o in embed_origins or [] if _ORIGIN.fullmatch(o)]
    return " ".join(origins) if origins else ANY_ANCESTOR


@lru_cache(maxsize=32)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:12]


def asset_version(static_folder: str, filename: str) -> str | None:
    """A short content hash of a static file, for cache-busting URLs; None if it does not exist."""
    path = safe_join(static_folder, filename)
    if path is None:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _file_digest(path, stat.st_mtime_ns, stat.st_size)


# ---------------------------------------------------------------------- stored pages
ASSESSMENT_PAGE, FRAGMENT, REPORT_PAGE = "assessment", "fragment", "report"
_A, _K, _R, _P, _B = (Assessment.__table__, ApiKey.__table__, Report.__table__, EmbedPage.__table__,
                      Partner.__table__)
# What a page's bytes depend on besides the token, the persona and the release: the assessment's columns
# (`updated_at` moves with any change to them), the partner's brand, whether the key shows the methodology, and
# for a report page its report. Read in the same query as the stored page, after the columns the request itself
# needs (the partner's embed origins, the key's signing rules: app/embed/signing.py).
_STORED = (_B.c.embed_origins, _K.c.require_signed_embeds, _K.c.embed_secret_encrypted, _A.c.partner_id,
           _P.c.fingerprint, _P.c.html, _P.c.report_id, _P.c.style_hashes)
_RENDERED_FROM = (_A.c.id, _A.c.status, _A.c.updated_at, _A.c.generated_at, _A.c.framework, _A.c.industry,
                  _A.c.display_name, _A.c.methodology, _A.c.compliance_score, _A.c.count_met,
                  _A.c.count_partially_met, _A.c.count_not_met, _A.c.livemode, _B.c.brand_name, _B.c.brand_color,
                  _B.c.brand_logo_digest, _B.c.brand_logo_type, _B.c.white_label, _K.c.show_methodology)


def _page_query(source, kind: str, persona, where, *report_columns) -> select:
    stored = and_(_P.c.assessment_id == _A.c.id, _P.c.kind == kind, _P.c.persona == persona)
    return select(*_STORED, *_RENDERED_FROM, *report_columns).select_from(
        source.outerjoin(_K, _K.c.id == _A.c.api_key_id).outerjoin(_B, _B.c.id == _A.c.partner_id)
        .outerjoin(_P, stored)).where(where)


# Built once: each view runs one of these, which checks the token and reads the stored page together.
_PAGE_QUERIES = {
    ASSESSMENT_PAGE: _page_query(_A, ASSESSMENT_PAGE, bindparam("persona"), _A.c.embed_token == bindparam("token")),
    FRAGMENT: _page_query(_A, FRAGMENT, bindparam("persona"), _A.c.embed_token == bindparam("token")),
    REPORT_PAGE: _page_query(_R.join(_A, _A.c.id == _R.c.assessment_id), REPORT_PAGE, _R.c.persona,
                             and_(_R.c.view_token == bindparam("token"), _R.c.generated_at.is_not(None)),
                             _R.c.generated_at, _R.c.persona),   # the persona last
}


@dataclass(frozen=True)
class StoredPage:
    """A page as stored at its last rendering: UTF-8 bytes, the report it shows, its CSP style sources."""

    html: bytes
    report_id: int
    style_hashes: tuple[str, ...]


@dataclass(frozen=True)
class PageLookup:
    """A valid token's page: the frame ancestors, the current fingerprint and, if it is current, the stored page."""

    assessment_id: int
    persona: str                 # the page's persona key: as asked, or the report page's own
    status: str
    frame_ancestors: str
    fingerprint: str
    stored: StoredPage | None
    require_signed_embeds: bool = False   # the creating key's signing rules, checked before anything is served
    embed_secret_encrypted: str | None = None
    partner_id: int | None = None         # whose assessment: its own users' looks are not counted as views


def page_lookup(kind: str, token: str, persona: str = "") -> PageLookup | None:
    """One query: None when the token addresses nothing (or, for a report page, a report without
    content); otherwise what the request needs to answer, with the stored page when it is current."""
    if not _valid_token(token):
        return None
    row = db.session.execute(_PAGE_QUERIES[kind], {"token": token, "persona": persona}).first()
    if row is None:
        return None
    (origins, require_signed, secret_encrypted, partner_id, stored_fingerprint, html, report_id,
     style_hashes) = row[:len(_STORED)]
    rendered_from = row[len(_STORED):]
    assessment_id, status = rendered_from[:2]
    if kind == REPORT_PAGE:
        persona = rendered_from[-1]
    parts = (kind, token, persona, page_version(), request.script_root, current_app.config["SERVICE_NAME"],
             *map(str, rendered_from))
    fingerprint = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    stored = StoredPage(html, report_id, tuple(style_hashes.split())) if stored_fingerprint == fingerprint else None
    return PageLookup(assessment_id, persona, status, _ancestors(origins), fingerprint, stored,
                      bool(require_signed), secret_encrypted, partner_id)


def store_page(lookup: PageLookup, kind: str, report_id: int, html: str, style_hashes: list[str]) -> None:
    """Keep a rendered page for the next view, replacing the page's last rendering. Best effort: a failure
    (another request storing the same page, a busy database) costs the next view a rendering, nothing more."""
    try:
        db.session.execute(delete(_P).where(_P.c.assessment_id == lookup.assessment_id, _P.c.kind == kind,
                                            _P.c.persona == lookup.persona))
        db.session.execute(insert(_P).values(
            assessment_id=lookup.assessment_id, kind=kind, persona=lookup.persona, fingerprint=lookup.fingerprint,
            report_id=report_id, html=html.encode(), style_hashes=" ".join(style_hashes)))
        db.session.commit()
    except SQLAlchemyError as error:   # the class only: a database's message can quote the row
        db.session.rollback()
        log.info("embed page of assessment %s (%s %s) not stored: %s", lookup.assessment_id, kind,
                 lookup.persona or "-", type(getattr(error, "orig", None) or error).__name__)


@lru_cache(maxsize=1)
def page_version() -> str:
    """A hash of the code and templates the pages are rendered from: a release that changes any of them
    renders every page again."""
    digest = hashlib.sha256()
    for folder in (current_app.root_path, os.path.join(current_app.root_path, current_app.template_folder)):
        for directory, subdirectories, files in sorted(os.walk(folder)):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, folder).encode())
                with open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------------- a report as the pages show it
STATUS_LABEL = {"met": "Met", "partially_met": "Partly met", "not_met": "Not met"}
STATUS_CLASS = {"met": "met", "partially_met": "partial", "not_met": "not-met"}
STATUS_ORDER = {"not_met": 0, "partially_met": 1, "met": 2}
FOLD_CHARS = 420         # a section longer than this starts folded on narrow screens
# An appendix table longer than this starts folded on every screen (2,000 rows made the viewer 180,000 px tall, and
# the iframe grew to it); the reader opens it with one click, with or without JavaScript.
LONG_TABLE_ROWS = 40
SPLIT_CHARS = 360        # a paragraph longer than this is cut into shorter ones at sentence ends
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\u201c])")
_NO_BREAK_AFTER = re.compile(r"(?:\b(?:e\.g|i\.e|U\.S|U\.K|Art|Arts|No|vs|Sec|cf)\.)$")


class _Status:
    """A status's words and CSS class, for anything with a `status`."""

    status: str

    @property
    def label(self) -> str:
        return STATUS_LABEL[self.status]

    @property
    def css(self) -> str:
        return STATUS_CLASS[self.status]


@dataclass(frozen=True)
class Chip(_Status):
    ref: str
    status: str


@dataclass(frozen=True)
class Paragraph:
    text: str                 # as written (its length decides folding)
    chips: tuple[Chip, ...]   # open requirements it names other than as a "Title (ID)" ref: a row above it
    html: Markup = Markup()   # the text, escaped, with a status chip after each open "Title (ID)" ref


@dataclass(frozen=True)
class Row(_Status):
    id: str
    title: str
    status: str
    asks: str | None
    position: int
    change: str | None = None   # a CHANGE_MARKS key: how it moved since the client's earlier assessment


# How a requirement moved since the earlier assessment (app/progress.py's `change` lists), as the appendix marks it.
CHANGE_MARKS = {"closedIds": "Met now, open last time", "improvedIds": "Better than last time",
                "regressedIds": "Worse than last time", "newIds": "New since last time",
                "stillOpenIds": "Open last time too"}


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: tuple[Paragraph, ...]
    bullets: tuple[Markup, ...]       # escaped, with chips after open refs, as Paragraph.html
    fold: bool                        # long: folded on narrow screens
    rows: tuple[Row, ...] | None      # the requirements appendix, as a table
    anchor: str
    folded_wide: bool = False         # a table of more than LONG_TABLE_ROWS rows: folded on wide screens too

    @property
    def is_appendix(self) -> bool:
        return self.heading.lower().startswith("appendix")


@dataclass(frozen=True)
class ReportView:
    content: dict
    key_points: tuple[str, ...]
    sections: tuple[Section, ...]
    rows: tuple[Row, ...]

    def __getattr__(self, name):      # title, summary, callToAction, ... straight from the content
        try:
            return self.content[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def body_sections(self) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if not s.is_appendix)

    @property
    def appendix_sections(self) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if s.is_appendix)


def split_paragraph(text: str) -> list[str]:
    """A long paragraph as a few shorter ones, cut only where a sentence ends."""
    if len(text) <= SPLIT_CHARS:
        return [text]
    sentences: list[str] = []
    for part in _SENTENCE_END.split(text):
        if sentences and _NO_BREAK_AFTER.search(sentences[-1]):
            sentences[-1] += " " + part
        else:
            sentences.append(part)
    chunks: list[str] = []
    for sentence in sentences:
        if chunks and len(chunks[-1]) + len(sentence) < SPLIT_CHARS * 0.75:
            chunks[-1] += " " + sentence
        else:
            chunks.append(sentence)
    return chunks


@lru_cache(maxsize=64)
def _ref_pattern(ids: tuple[str, ...]) -> re.Pattern | None:
    """Finds requirement ids in text: "A.5.1" but not inside "A.5.15", "164.312(b)" but not "164.312(b)(1)"."""
    if not ids:
        return None
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})(?![\w(]|\.\w)")


@lru_cache(maxsize=64)
def _inline_ref_pattern(ids: tuple[str, ...]) -> re.Pattern | None:
    """Finds a requirement named as report text names them, "Title (ID)" or "Title (ID, designation)":
    "Change management (CC8.1)", "Risk analysis (164.308(a)(1)(ii)(A), required)". The id is one of `ids`
    taken literally (ids may hold parentheses), longest first, and must fill the parenthesis up to its
    closing one or a comma, so "(CC6.10)" is not CC6.1 and "(164.312(a)(1))" is not 164.312(a)."""
    if not ids:
        return None
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"\((?P<id>{alternatives})(?:,[^()]*)?\)")


def _chip_html(status: str) -> str:
    """The status chip of the appendix table (see `requirement_rows`)."""
    return f'<span class="chip chip--{STATUS_CLASS[status]}">{STATUS_LABEL[status]}</span>'


def with_ref_chips(text: str, pattern: re.Pattern | None, status: dict[str, str]) -> tuple[Markup, frozenset[str]]:
    """The text escaped, with the status chip right after each ref to an open requirement, and the ids so
    marked. Only our chip markup is unescaped: every character of the report's text goes through `escape`."""
    if pattern is None:
        return escape(text), frozenset()
    pieces: list[str] = []
    marked: set[str] = set()
    end = 0
    for found in pattern.finditer(text):
        ref = found.group("id")
        pieces += [str(escape(text[end:found.end()])), " ", _chip_html(status[ref])]
        marked.add(ref)
        end = found.end()
    pieces.append(str(escape(text[end:])))
    return Markup("".join(pieces)), frozenset(marked)  # noqa: S704 - text escaped above; the chips are ours


def _changes(change: dict | None) -> dict[str, str]:
    """Requirement id -> its CHANGE_MARKS key; the first that applies (an improved item is also still open)."""
    marks: dict[str, str] = {}
    for kind in CHANGE_MARKS:
        for ref in (change or {}).get(kind) or ():
            marks.setdefault(ref, kind)
    return marks


def _rows(content: dict, change: dict | None = None) -> tuple[Row, ...]:
    marks = _changes(change)
    for section in content.get("sections") or []:
        if "requirements" in section:
            return tuple(Row(r["id"], r["title"], r["status"], r.get("asks"), n, marks.get(r["id"]))
                         for n, r in enumerate(section["requirements"]) if r.get("status") in STATUS_LABEL)
    return ()


def status_counts(rows: tuple[Row, ...]) -> dict[str, int]:
    """How many rows have each status: the appendix filter's button labels."""
    counts = dict.fromkeys(STATUS_LABEL, 0)
    for row in rows:
        counts[row.status] += 1
    return counts


def requirement_rows(rows: tuple[Row, ...]) -> Markup:
    """The appendix table's body rows. Built here rather than by a template loop: at 200 requirements the
    loop's per-row attribute lookups were most of a page's rendering time."""
    return Markup("\n".join(  # noqa: S704 - every value from the report is escaped; status and position are ours
        f'<tr data-status="{row.status}" data-position="{row.position}">'
        f'<td class="reqs__req"><span class="reqs__id">{escape(row.id)}</span> {escape(row.title)}</td>'
        f'<td class="reqs__status"><span class="chip chip--{row.css}">{row.label}</span>'
        + (f'<span class="reqs__change reqs__change--{row.change[:-3]}">{CHANGE_MARKS[row.change]}</span>'
           if row.change else "") + '</td>'
        f'<td class="reqs__asks">{escape(row.asks or "")}</td></tr>' for row in rows))


def _anchor(persona: str, n: int) -> str:
    return f"{persona}-s{n + 1}"


def report_view(content: dict, change: dict | None = None) -> ReportView:
    """The report content shaped for the pages: short paragraphs; a status chip for every open requirement a
    paragraph or bullet names, right after its "Title (ID)" ref (or, named otherwise in a paragraph, in a
    row of chips above it); long sections marked to fold; and the requirements appendix as table rows.
    Met requirements get no chip in the text: the chips point at what is open. With the assessment's `change`,
    each appendix row says how it moved since the client's earlier assessment."""
    rows = _rows(content, change)
    status = {row.id: row.status for row in rows if row.status != "met"}
    ids = tuple(status)
    pattern, inline = _ref_pattern(ids), _inline_ref_pattern(ids)
    sections = []
    for n, section in enumerate(content.get("sections") or []):
        paragraphs = []
        for text in section.get("paragraphs") or []:
            for piece in split_paragraph(text):
                html, marked = with_ref_chips(piece, inline, status)
                found = [ref for ref in dict.fromkeys(pattern.findall(piece)) if ref not in marked] if pattern else []
                paragraphs.append(Paragraph(piece, tuple(Chip(ref, status[ref]) for ref in found), html))
        bullets = tuple(section.get("bullets") or ())
        table = tuple(rows) if "requirements" in section and rows else None
        size = sum(len(p.text) for p in paragraphs) + sum(len(b) for b in bullets)
        shown = () if table else tuple(with_ref_chips(b, inline, status)[0] for b in bullets)
        sections.append(Section(section.get("heading") or "", tuple(paragraphs), shown,
                                fold=bool(table) or size > FOLD_CHARS, rows=table,
                                anchor=_anchor(content.get("persona", "r"), n),
                                folded_wide=bool(table) and len(table) > LONG_TABLE_ROWS))
    return ReportView(content, tuple(content.get("keyPoints") or ()), tuple(sections), rows)
