"""Generation: claim the assessment, fan 25 reports out on the pool, store them in one transaction."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor
from concurrent.futures import wait as wait_for_futures
from dataclasses import dataclass

import tenacity
from flask import current_app, g
from sqlalchemy import bindparam, func, insert, not_, select, update
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError

from .. import progress
from ..assessments import assessment_record, get_assessment, new_token, owned_by, running_claim
from ..catalog import PERSONAS
from ..database import discard_session
from ..embed.urls import links_for, public_base_url
from ..errors import ApiError, not_found
from ..extensions import db
from ..keys.auth import AuthenticatedKey
from ..models import ApiKey, Assessment, IdempotencyKey, Partner, Report, Requirement, iso_utc, utcnow
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


@dataclass(frozen=True)
class Run:
    """One claimed run: its assessment, its id (only writes carrying it count), what it was asked, and
    the status to put back if it fails before storing anything."""

    assessment_id: int
    token: str
    methodology: str
    previous_status: str
    base_url: str | None = None   # of the request that started it, for the links its webhook carries


class RunTakenOver(Exception):
    """The run went silent long enough for another process to take it over; its result is not stored."""


# Errors that mean "the database is unreachable right now" (a restart, a failover, a cut connection).
DATABASE_DOWN = (OperationalError, InterfaceError)

# The runs this process is executing, by token: on a graceful stop, those not finished by the deadline
# are handed back (their heartbeat cleared) so another process takes them over at once.
_runs_here: dict[str, int] = {}
_runs_lock = threading.Lock()


def runs_in_process() -> dict[str, int]:
    with _runs_lock:
        return dict(_runs_here)


def hand_back(runs: dict[str, int]) -> None:
    """Clear the heartbeat of runs this process will not finish (it is stopping), so another process takes
    them over at its next look instead of after RUN_STALE_SECONDS."""
    if not runs:
        return
    try:
        db.session.execute(update(Assessment).where(Assessment.run_token.in_(list(runs)),
                                                    Assessment.status == "generating").values(run_heartbeat_at=None))
        db.session.commit()
        log.warning("handed back %d unfinished run(s) to the other processes", len(runs))
    except SQLAlchemyError:
        log.warning("could not hand back unfinished runs; they are taken over once their heartbeat is stale",
                    exc_info=True)
    finally:
        discard_session()


def new_run_token() -> str:
    return secrets.token_hex(16)


def claim(key: AuthenticatedKey, assessment_id: int, previous: str, methodology: str) -> Run:
    """Move the assessment to `generating` atomically, within the partner's cap of concurrent runs.

    409 while another live run holds it; 429 `generation_busy` while the partner already runs
    GENERATION_MAX_CONCURRENT_PER_PARTNER live generations, so one partner cannot hold every serving
    thread. A run whose heartbeat stopped (its process died) holds nothing: this claim takes it over.
    """
    config = current_app.config
    running = running_claim(config)
    # Claims of one partner queue on its row (Postgres; SQLite serialises every write anyway), so
    # two claims at once cannot both see the partner under its cap.
    db.session.execute(select(Partner.id).where(Partner.id == key.partner_id).with_for_update())
    partner_runs = (select(func.count()).select_from(Assessment)
                    .where(Assessment.partner_id == key.partner_id, running).scalar_subquery())
    now = utcnow()
    token = new_run_token()
    base_url = public_base_url()
    result = db.session.execute(
        update(Assessment)
        .where(Assessment.id == assessment_id, not_(running),
               partner_runs < config["GENERATION_MAX_CONCURRENT_PER_PARTNER"])
        .values(status="generating", generation_started_at=now, updated_at=now, reports_done=0, run_token=token,
                run_heartbeat_at=now, run_methodology=methodology, run_key_id=key.id, run_recoveries=0,
                run_base_url=base_url)
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
    scope = g.get("idempotency")
    if scope is not None:
        # The request's Idempotency-Key now belongs to this run: the run's heartbeat keeps it held, and a
        # process that finishes the run after this one died stores the run's answer under it.
        db.session.execute(update(IdempotencyKey).where(
            *(getattr(IdempotencyKey, name) == value for name, value in scope.items())).values(
            assessment_id=assessment_id))
    db.session.commit()
    return Run(assessment_id, token, methodology, "submitted" if previous == "generating" else previous, base_url)


class Heartbeat:
    """The run's proof of life: its owner's thread stamps `run_heartbeat_at` at least every
    RUN_HEARTBEAT_SECONDS while the reports are written (and, for a run polled by an async caller,
    `reportsDone` as each report is written), and keeps the Idempotency-Key of the request that
    started it held. A failed write is logged and skipped: the run goes on."""

    def __init__(self, run: Run, interval: float, progress: bool):
        self.run, self.interval, self.progress = run, interval, progress
        self._last = time.monotonic()
        self._done = 0

    def __call__(self, done: int | None = None, *, force: bool = False) -> None:
        new_progress = self.progress and done is not None and done != self._done
        if not (force or new_progress or time.monotonic() - self._last >= self.interval):
            return
        values = {"run_heartbeat_at": utcnow()}
        if new_progress:
            values["reports_done"] = done
        try:
            db.session.execute(update(Assessment).where(Assessment.id == self.run.assessment_id,
                                                        Assessment.run_token == self.run.token).values(**values)
                               .execution_options(synchronize_session=False))
            db.session.execute(update(IdempotencyKey).where(IdempotencyKey.assessment_id == self.run.assessment_id,
                                                            IdempotencyKey.state == "running")
                               .values(locked_at=values["run_heartbeat_at"]))
            db.session.commit()
            self._last = time.monotonic()
            if new_progress:
                self._done = done
        except SQLAlchemyError:   # e.g. the database restarting: the next beat tries again
            log.warning("could not record the heartbeat of assessment %s", self.run.assessment_id, exc_info=True)
            discard_session()


def load_facts(assessment_id: int) -> AssessmentFacts:
    """Everything an engine may know: no company id. Plain rows, no ORM objects. The day rate is the
    submitting key's as it stands when the reports are written; the plan's dates count from submission."""
    a, k = Assessment.__table__, ApiKey.__table__
    row = db.session.execute(select(a.c.framework, a.c.industry, a.c.has_policy, a.c.display_name, a.c.created_at,
                                    a.c.change, a.c.previous_assessment_id, k.c.day_rate, k.c.currency)
                             .join(k, k.c.id == a.c.api_key_id).where(a.c.id == assessment_id)).one()
    rows = db.session.execute(select(Requirement.ref, Requirement.title, Requirement.status)
                              .where(Requirement.assessment_id == assessment_id).order_by(Requirement.position))
    return AssessmentFacts(framework=row.framework, industry=row.industry, has_policy=row.has_policy,
                           display_name=row.display_name, requirements=tuple(RequirementFact(*r) for r in rows),
                           day_rate=row.day_rate, currency=row.currency or "USD",
                           as_of=row.created_at.date() if row.created_at else None,
                           # once the earlier assessment is erased, the next generation leaves the change out
                           change={**row.change, "openSinceById": progress.open_since_by_id(
                               row.framework, row.previous_assessment_id, row.change)}
                           if row.change and row.previous_assessment_id is not None else None)


def fan_out(pool: ThreadPoolExecutor, engine: ReportEngine, facts: AssessmentFacts, methodology: str,
            beat: Heartbeat | None = None) -> list[PersonaResult]:
    """Write the 25 reports in parallel; a failure fails its persona only. `beat` is called as reports
    finish and at least every heartbeat interval while they are being written."""
    futures = {pool.submit(engine.write, facts, p.id, methodology): p.id for p in PERSONAS}
    by_persona = {}
    pending = set(futures)
    while pending:
        finished, pending = wait_for_futures(pending, timeout=beat.interval if beat else None,
                                             return_when=FIRST_COMPLETED)
        for future in finished:
            persona = futures[future]
            try:
                by_persona[persona] = _result(persona, future.result())
            except Exception as exc:  # noqa: BLE001 - any engine failure is recorded on its report
                log.warning("report for persona %s failed: %s: %s", persona, type(exc).__name__, exc)
                by_persona[persona] = PersonaResult(persona, None, f"{type(exc).__name__}: {exc}"[:500])
        if beat is not None:
            beat(len(by_persona))
    return [by_persona[p.id] for p in PERSONAS]


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


def store_run(key: AuthenticatedKey, run: Run, engine_name: str, results: list[PersonaResult]) -> dict:
    """Store all 25 reports, the new state, the charge and the webhook in one transaction; tokens survive
    regeneration. Only the run that still holds the claim stores (RunTakenOver otherwise), so a run taken
    over after its process went silent is stored, billed and announced once.

    Returns the assessment's record as committed (built inside the transaction, so the webhook
    and the response describe the same state). Core statements, not the ORM's unit of work:
    the flush of 25 objects was the slowest part of the run after the LLM calls.
    """
    assessment_id, methodology = run.assessment_id, run.methodology
    now = utcnow()
    generated_at = iso_utc(now)
    succeeded = sum(r.content is not None for r in results)
    stored = db.session.execute(update(Assessment).where(
        Assessment.id == assessment_id, Assessment.status == "generating", Assessment.run_token == run.token).values(
        status="completed" if succeeded else "failed", methodology=methodology, generated_at=now,
        generation_started_at=None, run_token=None, run_heartbeat_at=None,
        llm_usage=run_usage(results) if engine_name == "openai" else None, reports_done=succeeded)
        .execution_options(synchronize_session=False))
    if stored.rowcount != 1:
        db.session.rollback()
        raise RunTakenOver(f"the run of assessment {assessment_id} was taken over by another process")
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


def _claim_for(key: AuthenticatedKey, assessment_id: int, methodology: str) -> Run:
    """404 unless the key may see the assessment; then claim it (409/429 as `claim` says)."""
    previous = db.session.scalar(select(Assessment.status).where(Assessment.id == assessment_id, owned_by(key)))
    if previous is None:
        raise not_found("No assessment with that id.")
    return claim(key, assessment_id, previous, methodology)


def _store_retrying(key: AuthenticatedKey, run: Run, engine_name: str, results: list[PersonaResult],
                    beat: Heartbeat) -> dict:
    """store_run, retried with backoff for RUN_STORE_RETRY_SECONDS while the database is unreachable."""

    def before_sleep(state: tenacity.RetryCallState) -> None:
        log.warning("could not store the run of assessment %s (%s); retrying", run.assessment_id,
                    state.outcome.exception())
        db.session.rollback()
        beat(force=True)

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(DATABASE_DOWN), reraise=True, before_sleep=before_sleep,
        stop=tenacity.stop_after_delay(current_app.config["RUN_STORE_RETRY_SECONDS"]),
        wait=tenacity.wait_exponential(multiplier=0.25, max=5))
    return retrying(store_run, key, run, engine_name, results)


def _give_back(run: Run, values: dict) -> None:
    discard_session()
    try:
        db.session.execute(update(Assessment).where(Assessment.id == run.assessment_id,
                                                    Assessment.run_token == run.token).values(**values))
        db.session.commit()
    except SQLAlchemyError:   # still unreachable: the heartbeat has stopped, so the run is taken over later
        discard_session()


def fail_run(key: AuthenticatedKey, run: Run, reason: str) -> None:
    """End the run as failed: the assessment keeps the reports it had, and the partner gets the
    `assessment.reports.failed` webhook (a run nobody waits on must never end silently)."""
    discard_session()
    try:
        done = db.session.execute(update(Assessment).where(Assessment.id == run.assessment_id,
                                                           Assessment.run_token == run.token).values(
            status="failed", generation_started_at=None, run_token=None, run_heartbeat_at=None, reports_done=0))
        if done.rowcount != 1:
            db.session.rollback()
            return
        record = assessment_record(key, run.assessment_id)
        queue_generation_event(record, key.id, len(record["reports"]), reason)
        db.session.commit()
    except SQLAlchemyError:   # unreachable: the run, no longer beating, is taken over when it is back
        discard_session()
        return
    notify_sender()


def execute(key: AuthenticatedKey, run: Run, *, background: bool = False) -> dict:
    """Write and store the reports of a claimed run, beating while it goes (and, in the background,
    writing `reportsDone` as reports are written).

    If the database stays unreachable past the store's retries, the run is handed to whichever process
    sees it first once the database is back (it is resumed then). Any other failure puts the claim back
    for a caller that is waiting for the answer, and fails the run with its webhook in the background.
    """
    config = current_app.config
    beat = Heartbeat(run, config["RUN_HEARTBEAT_SECONDS"], background)
    with _runs_lock:
        _runs_here[run.token] = run.assessment_id
    try:
        # A test key's run is free, so it spends no LLM tokens unless the operator allows it (OPENAI_IN_TEST_MODE).
        engine = current_app.extensions["report_engine" if key.livemode else "test_mode_engine"]
        results = fan_out(current_app.extensions["generation_pool"], engine, load_facts(run.assessment_id),
                          run.methodology, beat)
        return _store_retrying(key, run, engine.name, results, beat)
    except RunTakenOver:
        raise
    except DATABASE_DOWN:
        _give_back(run, {"run_heartbeat_at": None})
        raise
    except BaseException as exc:
        if background and isinstance(exc, Exception):
            fail_run(key, run, "The reports could not be generated because of an internal error; call generate"
                               " again to retry.")
        else:
            _give_back(run, {"status": run.previous_status, "generation_started_at": None, "run_token": None,
                             "run_heartbeat_at": None})
        raise
    finally:
        with _runs_lock:
            _runs_here.pop(run.token, None)


def generate(key: AuthenticatedKey, assessment_id: int, methodology: str) -> dict:
    """Run generation for the partner's assessment and return the result GenerationResultSchema documents.

    The caller holds the connection for the run and gets the result, so no progress is written on the way
    (`reportsDone` goes from 0 to the reports written when the run is stored)."""
    run = _claim_for(key, assessment_id, methodology)
    try:
        return generation_result(execute(key, run))
    except RunTakenOver:
        raise ApiError(409, "generation_in_progress",
                       "This run stopped answering and another server took it over; its result comes with the"
                       " webhook, or from this assessment's record when its status is no longer generating.") from None


def generate_async(key: AuthenticatedKey, assessment_id: int, methodology: str) -> dict:
    """Claim the assessment now (so 404, 409 and 429 answer at once), run it on the server's runner, and
    return the record as claimed: status `generating`, `reportsDone` 0. The webhook fires when it ends."""
    run = _claim_for(key, assessment_id, methodology)
    record = assessment_record(key, assessment_id)   # as claimed, before the run can move it on
    app = current_app._get_current_object()
    try:
        app.extensions["generation_runner"].submit(run_in_background, app, key, run)
    except RuntimeError:   # the runner is shut down: the process is stopping
        _give_back(run, {"status": run.previous_status, "generation_started_at": None, "run_token": None,
                         "run_heartbeat_at": None})
        raise ApiError(503, "service_unavailable", "The service is restarting; try again in a moment.",
                       headers={"Retry-After": "5"}) from None
    return record


def run_in_background(app, key: AuthenticatedKey, run: Run) -> dict | None:
    """A run on the server's runner (an async generate, or a run taken over): the webhook tells its end."""
    with app.app_context(), links_for(run.base_url):
        try:
            return execute(key, run, background=True)
        except RunTakenOver:
            log.warning("run of assessment %s was taken over by another process", run.assessment_id)
        except Exception:
            log.exception("background generation of assessment %s failed", run.assessment_id)
        finally:
            discard_session()
    return None


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
    return {**report.content, "livemode": assessment.livemode}
