"""Lookups and view models for the embed pages: tokens to records, records to what a page shows."""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import joinedload, selectinload
from werkzeug.security import safe_join

from ..catalog import CATEGORIES, METHODOLOGY_BY_ID, PERSONA_BY_ID, PERSONAS
from ..extensions import db
from ..models import Assessment, Report

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


def _valid_token(token: str) -> bool:
    return bool(_TOKEN.fullmatch(token))


def assessment_by_embed_token(token: str) -> Assessment | None:
    """The assessment an embed token addresses, with its reports and key; None for unknown tokens."""
    if not _valid_token(token):
        return None
    return db.session.scalar(
        select(Assessment).where(Assessment.embed_token == token)
        # Content is loaded only for the report the page shows, not for all 25.
        .options(selectinload(Assessment.reports).defer(Report.content), joinedload(Assessment.api_key)))


def report_by_view_token(token: str) -> Report | None:
    """The report a view token addresses, if it has content to show."""
    if not _valid_token(token):
        return None
    report = db.session.scalar(
        select(Report).where(Report.view_token == token)
        .options(joinedload(Report.assessment).joinedload(Assessment.api_key)))
    return report if report is not None and report.content else None


def shown_reports(assessment: Assessment) -> list[Report]:
    """Reports with content, in catalogue order (a failed persona keeps its last good content).

    A report has content exactly when some run wrote it, which also set `generated_at`.
    """
    reports = [r for r in assessment.reports if r.generated_at is not None and r.persona in _PERSONA_ORDER]
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


def header_for(assessment: Assessment) -> Header:
    """What the header of an assessment's pages shows."""
    methodology = METHODOLOGY_BY_ID.get(assessment.methodology or "")
    generated_on, generated_iso = format_date(assessment.generated_at)
    return Header(
        framework=assessment.framework, industry=assessment.industry, display_name=assessment.display_name,
        score=assessment.compliance_score, score_text=format_score(assessment.compliance_score),
        band=score_band(assessment.compliance_score), met=assessment.count_met,
        partially_met=assessment.count_partially_met, not_met=assessment.count_not_met,
        total=assessment.total_requirements,
        shares=_shares(assessment.count_met, assessment.count_partially_met, assessment.count_not_met),
        methodology_label=methodology.label if methodology else None,
        generated_on=generated_on, generated_iso=generated_iso, status=assessment.status)


def frame_ancestors(assessment: Assessment | None) -> str:
    """The CSP frame-ancestors sources: the creating key's embed origins, `*` when it has none."""
    if assessment is None or assessment.api_key is None:
        return ANY_ANCESTOR
    origins = [o for o in assessment.api_key.embed_origins or [] if _ORIGIN.fullmatch(o)]
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
