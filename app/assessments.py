"""Assessments: submission, lookup, listing and erasure, always within one partner."""

from __future__ import annotations

import secrets
from collections import Counter

from flask import Response, current_app
from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.orm import joinedload, selectinload

from .embed.urls import embed_url, public_base_url, view_url
from .errors import ApiError, not_found
from .extensions import db
from .generation.scoring import compliance_score
from .keys.auth import AuthenticatedKey
from .models import Assessment, Report, Requirement, WebhookDelivery, iso_utc
from .pagination import MAX_ID, paginate
from .record_cache import Entry, record_cache, record_changed


def new_token() -> str:
    """An unguessable URL-safe token (192 bits)."""
    return secrets.token_urlsafe(24)


def parse_id(raw: str) -> int:
    """An id from a path: digits within the database's range, else 404 (never a 500)."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or not 1 <= int(raw) <= MAX_ID:
        raise not_found("No assessment with that id.")
    return int(raw)


def create_assessment(key: AuthenticatedKey, data: dict) -> Assessment:
    """Store a validated submission for the key's partner, in one transaction."""
    if not key.allows_framework(data["framework"]):
        raise ApiError(403, "framework_not_allowed",
                       f"This API key is not allowed to submit {data['framework']!r} assessments.")
    counts = Counter(r["status"] for r in data["requirements"])
    total = len(data["requirements"])
    assessment = Assessment(
        partner_id=key.partner_id, api_key_id=key.id, external_company_id=data["company_id"],
        industry=data["industry"], framework=data["framework"], has_policy=data["has_policy"],
        display_name=data["display_name"], status="submitted",
        count_met=counts["met"], count_not_met=counts["not_met"], count_partially_met=counts["partially_met"],
        compliance_score=compliance_score(counts["met"], counts["partially_met"], total),
        embed_token=new_token(),
    )
    db.session.add(assessment)
    db.session.flush()
    db.session.execute(insert(Requirement), [
        {"assessment_id": assessment.id, "position": i, **r} for i, r in enumerate(data["requirements"])])
    db.session.commit()
    return assessment


def get_assessment(key: AuthenticatedKey, raw_id: str, *, full: bool = True) -> Assessment:
    """The partner's assessment, with requirements and reports when `full`; 404 otherwise."""
    query = select(Assessment).where(Assessment.id == parse_id(raw_id),
                                     Assessment.partner_id == key.partner_id)
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
    record = (select(a, r.c.persona, r.c.view_token, r.c.status.label("report_status"), r.c.view_count)
              .select_from(a.outerjoin(r, r.c.assessment_id == a.c.id))
              .where(a.c.id == bindparam("id"), a.c.partner_id == bindparam("partner_id"))
              .order_by(r.c.position))
    requirements = (select(q.c.ref, q.c.title, q.c.status).where(q.c.assessment_id == bindparam("id"))
                    .order_by(q.c.position))
    return record, requirements


# Built once: constructing the statements costs more than SQLite takes to run them.
_RECORD_QUERY, _REQUIREMENTS_QUERY = _record_queries()


def assessment_record(key: AuthenticatedKey, raw_id: str) -> dict:
    """The record of `GET /assessments/:id`, in the shape AssessmentSchema documents.

    The hottest read of the API, so it skips ORM objects and per-field serialisation: one query for
    the assessment with its report links (an outer join), one for its requirements. A test checks
    that it equals AssessmentSchema's dump of the ORM objects.
    """
    assessment_id = parse_id(raw_id)
    connection = db.session.connection()
    rows = connection.execute(_RECORD_QUERY, {"id": assessment_id, "partner_id": key.partner_id}).all()
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
                     "status": x.report_status, "viewCount": x.view_count} for x in rows if x.persona is not None],
        "createdAt": iso_utc(row.created_at), "updatedAt": iso_utc(row.updated_at),
        "generatedAt": iso_utc(row.generated_at),
    }


def record_response(key: AuthenticatedKey, raw_id: str) -> Response:
    """`GET /assessments/:id`: the record from this process's cache, else built and cached (see record_cache)."""
    assessment_id = parse_id(raw_id)
    cache = record_cache()
    base_url = public_base_url()  # part of embedUrl
    entry = cache.get(assessment_id, base_url)
    if entry is None:
        ticket = cache.ticket()
        response = current_app.json.response(assessment_record(key, raw_id))
        cache.put(assessment_id, Entry(key.partner_id, base_url, response.get_data()), ticket)
        return response
    if entry.partner_id != key.partner_id:  # an assessment never changes hands
        raise not_found("No assessment with that id.")
    return current_app.response_class(entry.body, mimetype=current_app.json.mimetype)


def list_assessments(key: AuthenticatedKey, limit: int, cursor: str | None) -> tuple[list[Assessment], str | None]:
    """One page of the partner's assessments, newest first, and the cursor of the next page."""
    return paginate(select(Assessment).where(Assessment.partner_id == key.partner_id), Assessment.id, limit, cursor)


def delete_assessment(key: AuthenticatedKey, raw_id: str) -> None:
    """Erase the assessment, its requirements, reports, tokens and webhook deliveries (which carry them)."""
    assessment = get_assessment(key, raw_id, full=False)
    db.session.execute(delete(WebhookDelivery).where(WebhookDelivery.assessment_id == assessment.id))
    db.session.execute(delete(Report).where(Report.assessment_id == assessment.id))
    db.session.execute(delete(Requirement).where(Requirement.assessment_id == assessment.id))
    db.session.execute(delete(Assessment).where(Assessment.id == assessment.id))
    record_changed(assessment.id)
    db.session.commit()


def rotate_tokens(key: AuthenticatedKey, raw_id: str) -> Assessment:
    """New embed and view tokens; the old ones stop working at once."""
    assessment = get_assessment(key, raw_id)
    assessment.embed_token = new_token()
    for report in assessment.reports:
        report.view_token = new_token()
    record_changed(assessment.id)
    db.session.commit()
    return assessment
