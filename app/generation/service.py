"""Generation: claim the assessment, fan 25 reports out on the pool, store them in one transaction."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from sqlalchemy import or_, select, update
from sqlalchemy.orm import selectinload

from ..assessments import assessment_record, get_assessment, new_token, parse_id
from ..catalog import PERSONAS
from ..errors import ApiError, not_found
from ..extensions import db
from ..keys.auth import AuthenticatedKey
from ..models import Assessment, Report, Requirement, iso_utc, utcnow
from ..record_cache import record_changed
from ..webhooks.outbox import notify_sender, queue_generation_event
from .billing import record_usage
from .content import stored_content
from .engines import ReportEngine
from .facts import AssessmentFacts, RequirementFact

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PersonaResult:
    """What the fan-out produced for one persona: content, or why it failed."""

    persona: str
    content: dict | None
    error: str | None


def claim(assessment_id: int) -> str:
    """Move the assessment to `generating` atomically; 409 while another run holds a fresh claim.

    Returns the previous status, so a run that crashes before storing can put it back.
    """
    now = utcnow()
    stale = now - timedelta(seconds=current_app.config["GENERATION_CLAIM_TIMEOUT_SECONDS"])
    previous = db.session.scalar(select(Assessment.status).where(Assessment.id == assessment_id))
    result = db.session.execute(
        update(Assessment)
        .where(Assessment.id == assessment_id,
               or_(Assessment.status != "generating", Assessment.generation_started_at < stale))
        .values(status="generating", generation_started_at=now, updated_at=now))
    if result.rowcount == 1:
        record_changed(assessment_id)
    db.session.commit()
    if result.rowcount != 1:
        raise ApiError(409, "generation_in_progress",
                       "Reports for this assessment are being generated; try again when that run ends.")
    return "submitted" if previous == "generating" else previous


def load_facts(assessment: Assessment) -> AssessmentFacts:
    """Everything an engine may know: no company id. Requirements as plain rows (no ORM objects)."""
    rows = db.session.execute(select(Requirement.ref, Requirement.title, Requirement.status)
                              .where(Requirement.assessment_id == assessment.id).order_by(Requirement.position))
    return AssessmentFacts(
        framework=assessment.framework, industry=assessment.industry, has_policy=assessment.has_policy,
        display_name=assessment.display_name, requirements=tuple(RequirementFact(*row) for row in rows))


def fan_out(pool: ThreadPoolExecutor, engine: ReportEngine, facts: AssessmentFacts,
            methodology: str) -> list[PersonaResult]:
    """Write the 25 reports in parallel; a failure fails its persona only."""
    futures = [(p.id, pool.submit(engine.write, facts, p.id, methodology)) for p in PERSONAS]
    results = []
    for persona, future in futures:
        try:
            results.append(PersonaResult(persona, future.result(), None))
        except Exception as exc:  # noqa: BLE001 - any engine failure is recorded on its report
            log.warning("report for persona %s failed: %s: %s", persona, type(exc).__name__, exc)
            results.append(PersonaResult(persona, None, f"{type(exc).__name__}: {exc}"[:500]))
    return results


def store_run(assessment: Assessment, key: AuthenticatedKey, methodology: str, engine_name: str,
              results: list[PersonaResult]) -> None:
    """Store all 25 reports and the new state in one transaction; tokens survive regeneration."""
    now = utcnow()
    generated_at = iso_utc(now)
    existing = {r.persona: r for r in assessment.reports}
    succeeded = 0
    for position, result in enumerate(results):
        report = existing.get(result.persona)
        if report is None:
            report = Report(assessment=assessment, persona=result.persona, position=position,
                            view_token=new_token(), view_count=0)
            db.session.add(report)
        if result.content is not None:
            succeeded += 1
            report.status = "completed"
            report.content = stored_content(result.content, result.persona, methodology, engine_name, generated_at)
            report.methodology = methodology
            report.engine = engine_name
            report.generated_at = now
            report.error = None
        else:  # a failed persona keeps its last good content, if it has any
            report.status = "failed"
            report.error = result.error
    assessment.status = "completed" if succeeded else "failed"
    assessment.methodology = methodology
    assessment.generated_at = now
    assessment.generation_started_at = None
    record_usage(assessment, key, succeeded)
    first_error = next((r.error for r in results if r.error), None)
    queue_generation_event(assessment, key.id, len(results) - succeeded, first_error)
    record_changed(assessment.id)
    db.session.commit()
    notify_sender()


def generate(key: AuthenticatedKey, raw_id: str, methodology: str) -> dict:
    """Run generation for the partner's assessment and return the result GenerationResultSchema documents."""
    assessment_id = parse_id(raw_id)
    owned = db.session.scalar(select(Assessment.id).where(Assessment.id == assessment_id,
                                                          Assessment.partner_id == key.partner_id))
    if owned is None:
        raise not_found("No assessment with that id.")
    previous_status = claim(assessment_id)
    try:
        assessment = db.session.scalar(
            select(Assessment).where(Assessment.id == assessment_id).options(selectinload(Assessment.reports)))
        engine = current_app.extensions["report_engine"]
        results = fan_out(current_app.extensions["generation_pool"], engine, load_facts(assessment), methodology)
        store_run(assessment, key, methodology, engine.name, results)
    except BaseException:
        db.session.rollback()
        db.session.execute(update(Assessment).where(Assessment.id == assessment_id)
                           .values(status=previous_status, generation_started_at=None))
        record_changed(assessment_id)
        db.session.commit()
        raise
    return generation_result(assessment_record(key, raw_id))


def generation_result(record: dict) -> dict:
    """The generate response, from the assessment's record (a test pins it to GenerationResultSchema)."""
    reports = record["reports"]
    return {"assessmentId": record["id"], "status": record["status"], "methodology": record["methodology"],
            "complianceScore": record["complianceScore"], "totalReports": len(reports),
            "failedReports": sum(r["status"] != "completed" for r in reports), "embedToken": record["embedToken"],
            "embedUrl": record["embedUrl"], "reports": reports, "generatedAt": record["generatedAt"]}


def report_content(key: AuthenticatedKey, raw_id: str, persona: str) -> dict:
    """One report's stored content; 404 when the persona has none."""
    assessment = get_assessment(key, raw_id, full=False)
    report = db.session.scalar(select(Report).where(Report.assessment_id == assessment.id, Report.persona == persona))
    if report is None or report.content is None:
        raise not_found("No report for that persona.")
    return report.content
