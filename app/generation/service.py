"""Generation: claim the assessment, fan 25 reports out on the pool, store them in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import bindparam, func, insert, not_, select, update
from sqlalchemy.exc import SQLAlchemyError

from ..assessments import assessment_record, get_assessment, new_token, owned_by, running_claim
from ..catalog import PERSONAS
from ..errors import ApiError, not_found
from ..extensions import db
from ..keys.auth import AuthenticatedKey
from ..models import ApiKey, Assessment, Partner, Report, Requirement, iso_utc, utcnow
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
    engine: str | None = None            # the engine that wrote it, when not the configured one
    fallback_reason: str | None = None   # why the template engine wrote it instead
    usage: dict | None = None            # tokens the LLM provider reported for this persona


def _result(persona: str, content: dict) -> PersonaResult:
    """Separate the run's keys ("_engine", "_fallback_reason", "_usage") from the report's."""
    meta = {k: content.pop(k) for k in [k for k in content if k.startswith("_")]}
    return PersonaResult(persona, content, None, meta.get("_engine"), meta.get("_fallback_reason"),
                         meta.get("_usage"))


# What a partner over its generation cap is told to wait; a template run takes well under a second,
# an LLM run tens of seconds.
BUSY_RETRY_AFTER_SECONDS = 10


def claim(key: AuthenticatedKey, assessment_id: int, previous: str) -> str:
    """Move the assessment to `generating` atomically, within the partner's cap of concurrent runs.

    409 while another run holds a fresh claim on this assessment; 429 `generation_busy` while the
    partner already runs GENERATION_MAX_CONCURRENT_PER_PARTNER generations, so one partner cannot
    hold every serving thread. Returns the status to put back if the run crashes before storing:
    `previous`, or `submitted` when taking over a stale claim.
    """
    config = current_app.config
    running = running_claim(config)
    # Claims of one partner queue on its row (Postgres; SQLite serialises every write anyway), so
    # two claims at once cannot both see the partner under its cap.
    db.session.execute(select(Partner.id).where(Partner.id == key.partner_id).with_for_update())
    partner_runs = (select(func.count()).select_from(Assessment)
                    .where(Assessment.partner_id == key.partner_id, running).scalar_subquery())
    now = utcnow()
    result = db.session.execute(
        update(Assessment)
        .where(Assessment.id == assessment_id, not_(running),
               partner_runs < config["GENERATION_MAX_CONCURRENT_PER_PARTNER"])
        .values(status="generating", generation_started_at=now, updated_at=now, reports_done=0)
        .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        busy_here = db.session.scalar(select(func.count()).where(Assessment.id == assessment_id, running))
        db.session.rollback()
        if busy_here:
            raise ApiError(409, "generation_in_progress",
                           "Reports for this assessment are being generated; try again when that run ends.")
        raise ApiError(429, "generation_busy",
                       f"Your account already runs {config['GENERATION_MAX_CONCURRENT_PER_PARTNER']} generations at"
                       " once, the most allowed; try again when one of them ends.",
                       headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)})
    db.session.commit()
    return "submitted" if previous == "generating" else previous


def load_facts(assessment_id: int) -> AssessmentFacts:
    """Everything an engine may know: no company id. Plain rows, no ORM objects. The day rate is the
    submitting key's as it stands when the reports are written; the plan's dates count from submission."""
    a, k = Assessment.__table__, ApiKey.__table__
    row = db.session.execute(select(a.c.framework, a.c.industry, a.c.has_policy, a.c.display_name, a.c.created_at,
                                    k.c.day_rate, k.c.currency)
                             .join(k, k.c.id == a.c.api_key_id).where(a.c.id == assessment_id)).one()
    rows = db.session.execute(select(Requirement.ref, Requirement.title, Requirement.status)
                              .where(Requirement.assessment_id == assessment_id).order_by(Requirement.position))
    return AssessmentFacts(framework=row.framework, industry=row.industry, has_policy=row.has_policy,
                           display_name=row.display_name, requirements=tuple(RequirementFact(*r) for r in rows),
                           day_rate=row.day_rate, currency=row.currency or "USD",
                           as_of=row.created_at.date() if row.created_at else None)


def fan_out(pool: ThreadPoolExecutor, engine: ReportEngine, facts: AssessmentFacts, methodology: str,
            progress: Callable[[int], None] | None = None) -> list[PersonaResult]:
    """Write the 25 reports in parallel; a failure fails its persona only. `progress` is told how many
    are written as they finish."""
    futures = {pool.submit(engine.write, facts, p.id, methodology): p.id for p in PERSONAS}
    by_persona = {}
    for done, future in enumerate(as_completed(futures), start=1):
        persona = futures[future]
        try:
            by_persona[persona] = _result(persona, future.result())
        except Exception as exc:  # noqa: BLE001 - any engine failure is recorded on its report
            log.warning("report for persona %s failed: %s: %s", persona, type(exc).__name__, exc)
            by_persona[persona] = PersonaResult(persona, None, f"{type(exc).__name__}: {exc}"[:500])
        if progress is not None:
            progress(done)
    return [by_persona[p.id] for p in PERSONAS]


def progress_writer(assessment_id: int) -> Callable[[int], None]:
    """Record on the assessment how many reports the run has written: one small committed UPDATE per
    report, which an async caller sees as `reportsDone` when it polls."""

    def write(done: int) -> None:
        try:
            db.session.execute(update(Assessment).where(Assessment.id == assessment_id).values(reports_done=done)
                               .execution_options(synchronize_session=False))
            db.session.commit()
        except SQLAlchemyError:   # progress is a courtesy: a failed write must not cost the run
            log.warning("could not record the progress of assessment %s", assessment_id, exc_info=True)
            db.session.rollback()

    return write


def _report_statements():
    r = Report.__table__
    by_id = r.c.id == bindparam("report_id")
    completed = update(r).where(by_id).values(
        status="completed", content=bindparam("new_content"), methodology=bindparam("new_methodology"),
        engine=bindparam("new_engine"), generated_at=bindparam("new_generated_at"), error=None,
        fallback_reason=bindparam("new_fallback_reason"))
    failed = update(r).where(by_id).values(status="failed", error=bindparam("new_error"))
    return completed, failed


# Built once; each runs as one executemany for all the run's reports of its kind.
_REPORT_COMPLETED, _REPORT_FAILED = _report_statements()


def store_run(key: AuthenticatedKey, assessment_id: int, methodology: str, engine_name: str,
              results: list[PersonaResult]) -> dict:
    """Store all 25 reports and the new state in one transaction; tokens survive regeneration.

    Returns the assessment's record as committed (built inside the transaction, so the webhook
    and the response describe the same state). Core statements, not the ORM's unit of work:
    the flush of 25 objects was the slowest part of the run after the LLM calls.
    """
    now = utcnow()
    generated_at = iso_utc(now)
    existing = dict(db.session.execute(select(Report.persona, Report.id)
                                       .where(Report.assessment_id == assessment_id)).all())
    completed, failed, new, new_failed = [], [], [], []
    for position, result in enumerate(results):
        report_id = existing.get(result.persona)
        engine = result.engine or engine_name
        content = (stored_content(result.content, result.persona, methodology, engine, generated_at)
                   if result.content is not None else None)
        if report_id is None:  # first run: the report and its lasting view token are created
            row = {"assessment_id": assessment_id, "persona": result.persona, "position": position,
                   "view_token": new_token(), "view_count": 0}
            if content is None:  # content stays SQL NULL
                new_failed.append({**row, "status": "failed", "error": result.error})
            else:
                new.append({**row, "status": "completed", "methodology": methodology, "engine": engine,
                            "generated_at": now, "error": None, "fallback_reason": result.fallback_reason,
                            "content": content})
        elif content is not None:
            completed.append({"report_id": report_id, "new_methodology": methodology, "new_engine": engine,
                              "new_generated_at": now, "new_content": content,
                              "new_fallback_reason": result.fallback_reason})
        else:  # a failed persona keeps its last good content, if it has any
            failed.append({"report_id": report_id, "new_error": result.error})
    for rows in (new, new_failed):
        if rows:
            db.session.execute(insert(Report), rows)
    if completed:
        db.session.execute(_REPORT_COMPLETED, completed)
    if failed:
        db.session.execute(_REPORT_FAILED, failed)
    succeeded = sum(r.content is not None for r in results)
    db.session.execute(update(Assessment).where(Assessment.id == assessment_id).values(
        status="completed" if succeeded else "failed", methodology=methodology, generated_at=now,
        generation_started_at=None, llm_usage=run_usage(results) if engine_name == "openai" else None,
        reports_done=succeeded))
    record = assessment_record(key, assessment_id)
    record_usage(record, key, succeeded)
    first_error = next((r.error for r in results if r.error), None)
    queue_generation_event(record, key.id, len(results) - succeeded, first_error)
    db.session.commit()
    notify_sender()
    return record


def run_usage(results: list[PersonaResult]) -> dict:
    """The tokens the provider reported, summed over the run's calls (failed personas report none)."""
    total = {"promptTokens": 0, "completionTokens": 0, "cachedTokens": 0}
    for result in results:
        for name in total:
            total[name] += (result.usage or {}).get(name, 0)
    return total


def _claim_for(key: AuthenticatedKey, assessment_id: int) -> str:
    """404 unless the key may see the assessment; then claim it (409/429 as `claim` says)."""
    previous = db.session.scalar(select(Assessment.status).where(Assessment.id == assessment_id, owned_by(key)))
    if previous is None:
        raise not_found("No assessment with that id.")
    return claim(key, assessment_id, previous)


def _run(key: AuthenticatedKey, assessment_id: int, methodology: str, previous_status: str,
         progress: Callable[[int], None] | None = None) -> dict:
    """Write and store the reports of a claimed assessment; on a crash, give the claim back."""
    try:
        engine = current_app.extensions["report_engine"]
        results = fan_out(current_app.extensions["generation_pool"], engine, load_facts(assessment_id), methodology,
                          progress)
        return store_run(key, assessment_id, methodology, engine.name, results)
    except BaseException:
        db.session.rollback()
        db.session.execute(update(Assessment).where(Assessment.id == assessment_id)
                           .values(status=previous_status, generation_started_at=None))
        db.session.commit()
        raise


def generate(key: AuthenticatedKey, assessment_id: int, methodology: str) -> dict:
    """Run generation for the partner's assessment and return the result GenerationResultSchema documents.

    The caller holds the connection for the run and gets the result, so no progress is written on the way
    (`reportsDone` goes from 0 to the reports written when the run is stored)."""
    previous_status = _claim_for(key, assessment_id)
    return generation_result(_run(key, assessment_id, methodology, previous_status))


def generate_async(key: AuthenticatedKey, assessment_id: int, methodology: str) -> dict:
    """Claim the assessment now (so 404, 409 and 429 answer at once), run it on the server's runner, and
    return the record as claimed: status `generating`, `reportsDone` 0. The webhook fires when it ends."""
    previous_status = _claim_for(key, assessment_id)
    record = assessment_record(key, assessment_id)   # as claimed, before the run can move it on
    app = current_app._get_current_object()
    try:
        app.extensions["generation_runner"].submit(_run_in_background, app, key, assessment_id, methodology,
                                                   previous_status)
    except RuntimeError:   # the runner is shut down: the process is stopping
        db.session.execute(update(Assessment).where(Assessment.id == assessment_id)
                           .values(status=previous_status, generation_started_at=None))
        db.session.commit()
        raise ApiError(503, "service_unavailable", "The service is restarting; try again in a moment.",
                       headers={"Retry-After": "5"}) from None
    return record


def _run_in_background(app, key: AuthenticatedKey, assessment_id: int, methodology: str,
                       previous_status: str) -> None:
    with app.app_context():
        try:
            _run(key, assessment_id, methodology, previous_status, progress_writer(assessment_id))
        except Exception:
            log.exception("background generation of assessment %s failed", assessment_id)
        finally:
            db.session.remove()


def generation_result(record: dict) -> dict:
    """The generate response, from the assessment's record (a test pins it to GenerationResultSchema)."""
    reports = record["reports"]
    return {"assessmentId": record["id"], "status": record["status"], "methodology": record["methodology"],
            "complianceScore": record["complianceScore"], "totalReports": len(reports),
            "failedReports": sum(r["status"] != "completed" for r in reports), "embedToken": record["embedToken"],
            "embedUrl": record["embedUrl"], "reports": reports, "generatedAt": record["generatedAt"],
            "llmUsage": record["llmUsage"], "livemode": record["livemode"]}


def report_content(key: AuthenticatedKey, assessment_id: int, persona: str) -> dict:
    """One report's stored content; 404 when the persona has none."""
    assessment = get_assessment(key, assessment_id, full=False)
    report = db.session.scalar(select(Report).where(Report.assessment_id == assessment.id, Report.persona == persona))
    if report is None or report.content is None:
        raise not_found("No report for that persona.")
    return report.content
