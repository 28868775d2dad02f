"""Runs whose process died: noticed by any serving process and finished, resumed or failed, with their webhook.

A run stamps its heartbeat every few seconds (`service.Heartbeat`). Every serving process has a watchdog
thread that looks, at start-up and then every third of RUN_STALE_SECONDS, for assessments left
`generating` by a run silent for RUN_STALE_SECONDS (a process killed, out of memory, or cut from the
database past its store retries). It takes each over with a conditional UPDATE (so of several processes,
one wins) and resumes it: the run is written again with the methodology and key it was started with,
then stored, billed and announced like any run, exactly once (only the run holding the claim stores).
The reports the dead run had written were never stored (a run stores all its reports at once), so the
assessment keeps its last stored reports until the resumed run replaces them. A run taken over more
than RUN_MAX_RECOVERIES times (one that kills its process, say) is failed instead, with a reason and
the `assessment.reports.failed` webhook.
"""

from __future__ import annotations

import logging
import threading

from flask import Flask, current_app
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError

from ..assessments import stranded_run
from ..catalog import DEFAULT_METHODOLOGY
from ..database import discard_session
from ..extensions import db
from ..keys.auth import AuthenticatedKey, authenticated
from ..models import ApiKey, Assessment, IdempotencyKey, utcnow
from .service import Run, fail_run, generation_result, new_run_token, run_in_background

log = logging.getLogger(__name__)
SWEEP_BATCH = 20


def _key(key_id: int) -> AuthenticatedKey | None:
    """The key a run was started with, as a request would have authenticated it (revoked or not: the
    run was accepted while it was valid)."""
    row = db.session.get(ApiKey, key_id)
    return None if row is None else authenticated(row)


def _settle_request(assessment_id: int, record: dict) -> None:
    """Store the resumed run's answer under the Idempotency-Key of the generate request that died with its
    process, so the partner's retry of that request gets the run's result."""
    body = current_app.json.response(generation_result(record)).get_data()
    db.session.execute(update(IdempotencyKey).where(
        IdempotencyKey.assessment_id == assessment_id, IdempotencyKey.state == "running").values(
        state="done", response_status=200, response_headers={"Content-Type": "application/json"},
        response_body=body))
    db.session.commit()


def take_over(app: Flask, assessment_id: int) -> bool:
    """Take over one stranded run and resume it on this process's runner (or fail it); False when
    another process took it first or it ended meanwhile."""
    config = app.config
    row = db.session.execute(select(Assessment.run_key_id, Assessment.api_key_id, Assessment.run_methodology,
                                    Assessment.methodology, Assessment.run_recoveries, Assessment.run_base_url)
                             .where(Assessment.id == assessment_id, stranded_run(config))).first()
    if row is None:
        db.session.rollback()
        return False
    token, now = new_run_token(), utcnow()
    taken = db.session.execute(update(Assessment).where(Assessment.id == assessment_id, stranded_run(config)).values(
        run_token=token, run_heartbeat_at=now, run_recoveries=Assessment.run_recoveries + 1))
    # The generate request that started the run died too: its Idempotency-Key stays held by the run.
    db.session.execute(update(IdempotencyKey).where(IdempotencyKey.assessment_id == assessment_id,
                                                    IdempotencyKey.state == "running").values(locked_at=now))
    db.session.commit()
    if taken.rowcount != 1:
        return False
    key = _key(row.run_key_id or row.api_key_id)
    if key is None:   # cannot happen while keys are never deleted; end the run rather than loop on it
        db.session.execute(update(Assessment).where(Assessment.id == assessment_id).values(
            status="failed", generation_started_at=None, run_token=None, run_heartbeat_at=None))
        db.session.commit()
        return True
    if row.run_recoveries >= config["RUN_MAX_RECOVERIES"]:
        log.warning("run of assessment %s was interrupted %d times; failing it", assessment_id, row.run_recoveries + 1)
        fail_run(key, Run(assessment_id, token, row.run_methodology or DEFAULT_METHODOLOGY, "submitted",
                          row.run_base_url),
                 f"Generation was interrupted {row.run_recoveries + 1} times (the server running it stopped);"
                 " call generate again to retry.")
        return True
    methodology = row.run_methodology or row.methodology or DEFAULT_METHODOLOGY
    log.warning("resuming the run of assessment %s, whose process stopped", assessment_id)
    run = Run(assessment_id, token, methodology, "submitted", row.run_base_url)
    app.extensions["generation_runner"].submit(_resume, app, key, run)
    return True


def _resume(app: Flask, key: AuthenticatedKey, run: Run) -> None:
    record = run_in_background(app, key, run)
    if record is not None:
        with app.app_context():
            try:
                _settle_request(run.assessment_id, record)
            except SQLAlchemyError:
                log.warning("could not store the resumed run's answer for its Idempotency-Key", exc_info=True)
            finally:
                discard_session()


def sweep(app: Flask) -> int:
    """Take over every stranded run (a batch at a time); returns how many were taken."""
    ids = db.session.scalars(select(Assessment.id).where(stranded_run(app.config))
                             .order_by(Assessment.run_heartbeat_at).limit(SWEEP_BATCH)).all()
    db.session.commit()
    return sum(take_over(app, assessment_id) for assessment_id in ids)


class RunWatchdog:
    """One thread per serving process: sweeps at start-up, then every third of RUN_STALE_SECONDS."""

    def __init__(self, app: Flask):
        self.app = app
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="run-watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _loop(self) -> None:
        interval = min(10.0, self.app.config["RUN_STALE_SECONDS"] / 3)
        while not self._stop.is_set():
            with self.app.app_context():
                try:
                    sweep(self.app)
                except Exception:  # noqa: BLE001 - e.g. the database is down: look again next time
                    log.warning("run watchdog: sweep failed", exc_info=True)
                finally:
                    discard_session()
            self._stop.wait(interval)
