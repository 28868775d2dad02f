"""The request log a partner reads in the portal: one row per API request of its keys (when, method, path,
status, error code, duration, Idempotency-Key), never a request or response body.

Written after each answer on a connection of its own, so it records what the partner got whatever the request's
own transaction did, and a failure to write it never changes the answer. Kept REQUEST_LOG_DAYS days and at most
REQUEST_LOG_MAX_PER_KEY rows a key (pruned now and then as rows are written); erasing an assessment deletes the
rows that name it (app/assessments.py), and the erasing request's own row does not name it.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta

from flask import Response, g, request
from sqlalchemy import delete, insert, select

from .extensions import db
from .models import RequestLog, utcnow

log = logging.getLogger(__name__)

REQUEST_LOG_DAYS = 7
REQUEST_LOG_MAX_PER_KEY = 20_000   # a week of a standard key's budget, and then some
PRUNE_EVERY = 200                  # on average, one write in this many prunes
_T = RequestLog.__table__


def start() -> None:
    g.request_started = time.perf_counter()


def _error_code(response: Response) -> str | None:
    if response.status_code < 400 or not response.is_json:
        return None
    body = response.get_json(silent=True)
    code = body.get("code") if isinstance(body, dict) else None
    return code[:64] if isinstance(code, str) else None


def record(response: Response) -> Response:
    """After an authenticated API request: its row (a request refused before its key was known has no partner)."""
    key = g.get("api_key")
    if key is None:
        return response
    started = g.get("request_started", time.perf_counter())
    assessment_id = (request.view_args or {}).get("assessment_id")
    path = request.path
    if request.method == "DELETE" and response.status_code == 204 and assessment_id is not None:
        # The erasing request's own row: what was done, not which assessment it was.
        path, assessment_id = path.replace(f"/{assessment_id}", "/<erased>", 1), None
    row = {"api_key_id": key.id, "at": utcnow(), "method": request.method[:10], "path": path[:300],
           "status": response.status_code, "error_code": _error_code(response),
           "duration_ms": round((time.perf_counter() - started) * 1000),
           "idempotency_key": request.headers.get("Idempotency-Key", "")[:255] or None,
           "assessment_id": assessment_id if isinstance(assessment_id, int) else None}
    try:
        with db.engine.begin() as connection:
            connection.execute(insert(_T).values(**row))
            if random.random() < 1 / PRUNE_EVERY:  # noqa: S311 - spreading work, not security
                _prune(connection, key.id)
    except Exception:   # the log is for the partner's convenience; the answer stands without it
        log.warning("request log: could not record %s %s", request.method, path, exc_info=True)
    return response


def _prune(connection, key_id: int) -> None:
    connection.execute(delete(_T).where(_T.c.at < utcnow() - timedelta(days=REQUEST_LOG_DAYS)))
    oldest_kept = connection.execute(select(_T.c.id).where(_T.c.api_key_id == key_id).order_by(_T.c.id.desc())
                                     .offset(REQUEST_LOG_MAX_PER_KEY - 1).limit(1)).scalar()
    if oldest_kept is not None:
        connection.execute(delete(_T).where(_T.c.api_key_id == key_id, _T.c.id < oldest_kept))


PAGE_SIZE = 50
STATUS_FILTERS = {"errors": "Errors (4xx and 5xx)", "2xx": "Succeeded (2xx)", "4xx": "Refused (4xx)",
                  "5xx": "Failed (5xx)"}


def page(key_id: int, status: str | None, before: int | None) -> tuple[list[RequestLog], int | None]:
    """The key's rows of the last REQUEST_LOG_DAYS days, newest first, a page at a time (keyset: `before` an id),
    with the id to pass for the next page. `status` is a STATUS_FILTERS key or a three-digit status."""
    conditions = [RequestLog.api_key_id == key_id, RequestLog.at >= utcnow() - timedelta(days=REQUEST_LOG_DAYS)]
    if status == "errors":
        conditions.append(RequestLog.status >= 400)
    elif status in ("2xx", "4xx", "5xx"):
        low = int(status[0]) * 100
        conditions += [RequestLog.status >= low, RequestLog.status < low + 100]
    elif status and status.isascii() and status.isdigit() and len(status) == 3:
        conditions.append(RequestLog.status == int(status))
    if before is not None:
        conditions.append(RequestLog.id < before)
    rows = list(db.session.scalars(select(RequestLog).where(*conditions).order_by(RequestLog.id.desc())
                                   .limit(PAGE_SIZE + 1)))
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    return rows, (rows[-1].id if more else None)
