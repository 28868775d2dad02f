"""Assessments: submission, lookup, listing and erasure, always within one partner."""

from __future__ import annotations

import secrets
from collections import Counter
from datetime import timedelta

from flask import Response, current_app, request
from sqlalchemy import ColumnElement, and_, bindparam, delete, insert, not_, or_, select
from sqlalchemy.orm import joinedload, selectinload
from werkzeug.routing import BaseConverter

from . import progress
from .embed.urls import embed_url, view_url
from .errors import ApiError, not_found
from .extensions import db
from .generation.scoring import compliance_score
from .keys.auth import AuthenticatedKey
from .models import Assessment, Report, RequestLog, Requirement, WebhookDelivery, iso_utc, utcnow
from .pagination import MAX_ID, paginate

LINK_AUTOMATICALLY = object()   # a submission without previousAssessmentId


def new_token() -> str:
    """An unguessable URL-safe token (192 bits)."""
    return secrets.token_urlsafe(24)


class IdConverter(BaseConverter):
    """`<id:name>` in a route: the path segment parsed once, as the int the views and services take.

    Anything that is not an id within the database's range becomes 0, which no row has (ids start
    at 1), so it answers 404 like any unknown id, after authentication and rate limiting, and never
    reaches the database as an out-of-range integer.
    """

    def to_python(self, value: str) -> int:
        if not value.isascii() or not value.isdigit() or len(value) > 19 or not 1 <= int(value) <= MAX_ID:
            return 0
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


def running_claim(config) -> ColumnElement[bool]:
    """An assessment whose run is alive: its heartbeat is fresh. A run silent for RUN_STALE_SECONDS died
    with its process; it holds no slot and may be taken over (app/generation/recovery.py)."""
    stale = utcnow() - timedelta(seconds=config["RUN_STALE_SECONDS"])
    return and_(Assessment.status == "generating", Assessment.run_heartbeat_at >= stale)


def stranded_run(config) -> ColumnElement[bool]:
    """An assessment left `generating` by a run whose heartbeat stopped."""
    stale = utcnow() - timedelta(seconds=config["RUN_STALE_SECONDS"])
    return and_(Assessment.status == "generating",
                or_(Assessment.run_heartbeat_at.is_(None), Assessment.run_heartbeat_at < stale))


def create_assessment(key: AuthenticatedKey, data: dict) -> Assessment:
    """Store a validated submission for the key's partner, in one transaction."""
    if not key.allows_framework(data["framework"]):
        raise ApiError(403, "framework_not_allowed",
                       f"This API key is not allowed to submit {data['framework']!r} assessments.")
    counts = Counter(r["status"] for r in data["requirements"])
    total = len(data["requirements"])
    # Absent: link to the client's most recent earlier assessment; an id: to that one; null: to none.
    linking = data.get("previous_assessment_id", LINK_AUTOMATICALLY)
    if linking is not None:
        progress.serialise_links(key)
    assessment = Assessment(
        partner_id=key.partner_id, api_key_id=key.id, external_company_id=data["company_id"],
        industry=data["industry"], framework=data["framework"], has_policy=data["has_policy"],
        display_name=data["display_name"], status="submitted",
        count_met=counts["met"], count_not_met=counts["not_met"], count_partially_met=counts["partially_met"],
        compliance_score=compliance_score(counts["met"], counts["partially_met"], total),
        embed_token=new_token(), livemode=key.livemode,
    )
    db.session.add(assessment)
    db.session.flush()
    db.session.execute(insert(Requirement), [
        {"assessment_id": assessment.id, "position": i, **r} for i, r in enumerate(data["requirements"])])
    if linking is not None:
        progress.link(key, assessment, None if linking is LINK_AUTOMATICALLY else linking)
    db.session.commit()
    return assessment


def owned_by(key: AuthenticatedKey) -> ColumnElement[bool]:
    """The assessments a key may see: its partner's, of its own mode (a test key never sees live data,
    nor a live key test data)."""
    return and_(Assessment.partner_id == key.partner_id, Assessment.livemode == key.livemode)


def get_assessment(key: AuthenticatedKey, assessment_id: int, *, full: bool = True) -> Assessment:
    """The key's assessment, with requirements and reports when `full`; 404 otherwise."""
    query = select(Assessment).where(Assessment.id == assessment_id, owned_by(key))
    if full:
        # Report links only: the content (kilobytes of JSON per report) is not part of the record.
        query = query.options(selectinload(Assessment.requirements),
                              joinedload(Assessment.reports).defer(Report.content))
    assessment = db.session.scalars(query).unique().first()
    if assessment is None:
        raise not_found("No assessment with that id.")
    return assessment


def _record_queries():
    a, r, q = Assessment.__table__, Report.__table__, Requirement.__table__
    record = (select(a, r.c.persona, r.c.view_token, r.c.status.label("report_status"), r.c.view_count,
                     r.c.engine.label("report_engine"), r.c.fallback_reason)
              .select_from(a.outerjoin(r, r.c.assessment_id == a.c.id))
              .where(a.c.id == bindparam("id"), a.c.partner_id == bindparam("partner_id"),
                     a.c.livemode == bindparam("livemode"))
              .order_by(r.c.position))
    requirements = (select(q.c.ref, q.c.title, q.c.status).where(q.c.assessment_id == bindparam("id"))
                    .order_by(q.c.position))
    return record, requirements


# Built once: constructing the statements costs more than SQLite takes to run them.
_RECORD_QUERY, _REQUIREMENTS_QUERY = _record_queries()


def assessment_record(key: AuthenticatedKey, assessment_id: int) -> dict:
    """The record of `GET /assessments/:id`, in the shape AssessmentSchema documents.

    The hottest read of the API, so it skips ORM objects and per-field serialisation: one query for
    the assessment with its report links (an outer join), one for its requirements. A test checks
    that it equals AssessmentSchema's dump of the ORM objects.
    """
    connection = db.session.connection()
    rows = connection.execute(_RECORD_QUERY, {"id": assessment_id, "partner_id": key.partner_id,
                                              "livemode": key.livemode}).all()
    if not rows:
        raise not_found("No assessment with that id.")
    row = rows[0]
    requirements = connection.execute(_REQUIREMENTS_QUERY, {"id": assessment_id}).all()
    total = row.count_met + row.count_not_met + row.count_partially_met
    return {
        "id": row.id, "externalCompanyId": row.external_company_id, "industry": row.industry,
        "framework": row.framework, "policy": "YES" if row.has_policy else "NO", "hasPolicy": row.has_policy,
        "displayName": row.display_name,
        "requirements": [{"id": ref, "title": title, "status": status} for ref, title, status in requirements],
        "requirementCounts": {"met": row.count_met, "not_met": row.count_not_met,
                              "partially_met": row.count_partially_met, "total": total},
        "complianceScore": row.compliance_score, "status": row.status, "methodology": row.methodology,
        "embedToken": row.embed_token, "embedUrl": embed_url(row.embed_token),
        "reports": [{"persona": x.persona, "viewToken": x.view_token, "viewUrl": view_url(x.view_token),
                     "status": x.report_status, "viewCount": x.view_count, "engine": x.report_engine,
                     "fallbackReason": x.fallback_reason} for x in rows if x.persona is not None],
        "createdAt": iso_utc(row.created_at), "updatedAt": iso_utc(row.updated_at),
        "generatedAt": iso_utc(row.generated_at), "llmUsage": row.llm_usage, "livemode": row.livemode,
        "reportsDone": row.reports_done, "previousAssessmentId": row.previous_assessment_id, "change": row.change,
    }


def record_response(key: AuthenticatedKey, assessment_id: int) -> Response:
    """`GET /assessments/:id`, built from the database on every read, with an ETag: a poller that
    sends `If-None-Match` gets a bodiless 304 while nothing it shows has changed."""
    response = current_app.json.response(assessment_record(key, assessment_id))
    response.add_etag()
    return response.make_conditional(request)


def list_assessments(key: AuthenticatedKey, limit: int, cursor: str | None) -> tuple[list[Assessment], str | None]:
    """One page of the partner's assessments, newest first, and the cursor of the next page."""
    return paginate(select(Assessment).where(owned_by(key)), Assessment.id, limit, cursor)


def delete_assessment(key: AuthenticatedKey, assessment_id: int) -> None:
    """Erase the assessment, its requirements, reports, tokens, stored PDFs, the stored answers of
    Idempotency-Keys that name it, and its webhook deliveries (which carry them).

    409 while a run holds it: the run would store reports, bill and send a webhook for an erased
    assessment. The check and the erasure are one statement, so no run can start in between.

    The later assessments compared with it are unlinked, keeping their counts (app/progress.py).
    """
    progress.serialise_links(key)
    unlinked = progress.unlink_from(key, assessment_id)
    erased = db.session.execute(
        delete(Assessment).where(Assessment.id == assessment_id, owned_by(key), not_(running_claim(current_app.config)))
        .execution_options(synchronize_session=False))
    if erased.rowcount != 1:
        db.session.rollback()
        get_assessment(key, assessment_id, full=False)  # 404 for an unknown id or another partner's
        raise ApiError(409, "generation_in_progress",
                       "Reports for this assessment are being generated; delete it when that run ends.")
    # Requirements, reports, PDFs and idempotent answers go with it (ON DELETE CASCADE); deliveries have
    # no foreign key.
    db.session.execute(delete(WebhookDelivery).where(WebhookDelivery.assessment_id == assessment_id))
    db.session.execute(delete(RequestLog).where(RequestLog.assessment_id == assessment_id))   # the log's rows naming it
    progress.forget_erased(unlinked, assessment_id)
    db.session.commit()


def rotate_tokens(key: AuthenticatedKey, assessment_id: int) -> Assessment:
    """New embed and view tokens; the old ones stop working at once."""
    assessment = get_assessment(key, assessment_id)
    assessment.embed_token = new_token()
    for report in assessment.reports:
        report.view_token = new_token()
    db.session.commit()
    return assessment
