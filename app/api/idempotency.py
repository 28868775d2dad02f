"""`Idempotency-Key` on every POST under /api/v1, in Stripe's model.

The first request with a key claims it (a row in `idempotency_keys`, so every process sees it) and runs;
its answer is stored for 24 hours. A retry with the same key and the same request gets that answer again
with `Idempotent-Replayed: true` and changes nothing; the same key on a different request is a 422; a retry
while the first still runs waits a moment for it and then answers 409; once the process running the first
has died (no heartbeat for RUN_STALE_SECONDS), the retry takes the key over and runs. Answers that say "try again"
(409, 429, 5xx) are not stored: the key is released, so the retry runs. Keys are scoped to the partner
and to the key's mode (live or test).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from datetime import datetime, timedelta

from flask import Response, current_app, g, request
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..errors import ApiError
from ..extensions import db
from ..keys.auth import current_key
from ..models import IdempotencyKey, utcnow

log = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
KEEP_FOR = timedelta(hours=24)
_VALID = re.compile(r"[\x20-\x7e]{1,255}")
# Headers of the first answer that a replay repeats (the rate-limit headers are the replay's own).
_KEPT_HEADERS = ("Content-Type", "Location", "Preference-Applied", "Retry-After")
_POLL_SECONDS = 0.05
_PURGE_EVERY_SECONDS = 60.0
_last_purge = 0.0


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive UTC datetimes; Postgres aware ones."""
    return value if value.tzinfo is not None else value.replace(tzinfo=utcnow().tzinfo)


def _request_hash() -> str:
    """What makes two requests the same: method, path, the Prefer header and the body (JSON compared
    by value, so a client that re-serialises its retry with other spacing or key order still matches)."""
    raw = request.get_data(cache=True)
    try:
        body = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode() if raw.strip() else b""
    except (ValueError, RecursionError):
        body = raw
    digest = hashlib.sha256()
    for part in (request.method.encode(), request.path.encode(), request.headers.get("Prefer", "").encode(), body):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _purge_expired(now: datetime) -> None:
    """Delete answers older than 24 hours; at most once a minute per process."""
    global _last_purge
    if time.monotonic() - _last_purge < _PURGE_EVERY_SECONDS:
        return
    _last_purge = time.monotonic()
    db.session.execute(delete(IdempotencyKey).where(IdempotencyKey.expires_at < now))
    db.session.commit()


def _replay(row: IdempotencyKey) -> Response:
    response = Response(row.response_body or b"", status=row.response_status)
    for name, value in (row.response_headers or {}).items():
        response.headers[name] = value
    response.headers["Idempotent-Replayed"] = "true"
    return response


def _matching(scope: dict) -> list:
    """The row of one partner, mode and key value."""
    return [getattr(IdempotencyKey, name) == value for name, value in scope.items()]


def _find(scope: dict) -> IdempotencyKey | None:
    db.session.rollback()   # a fresh read: the other request may have finished since
    return db.session.scalar(select(IdempotencyKey).where(*_matching(scope)))


def begin() -> Response | None:
    """before_request of the API blueprint, after authentication: claim the key, or answer for it."""
    if request.method != "POST" or HEADER not in request.headers:
        return None
    value = request.headers[HEADER]
    if not _VALID.fullmatch(value):
        raise ApiError(400, "invalid_idempotency_key",
                       f"{HEADER} must be 1 to 255 printable ASCII characters, such as a UUID.")
    key = current_key()
    scope = {"partner_id": key.partner_id, "livemode": key.livemode, "key": value}
    digest = _request_hash()
    now = utcnow()
    _purge_expired(now)
    config = current_app.config
    # A request holding a key proves it is alive: a generate's run stamps the key with its heartbeat.
    # A key silent for RUN_STALE_SECONDS belongs to a request whose process died: a retry takes it over.
    stale_after = timedelta(seconds=config["RUN_STALE_SECONDS"])
    wait_until = time.monotonic() + config["IDEMPOTENCY_WAIT_SECONDS"]
    while True:
        now = utcnow()
        try:
            db.session.execute(insert(IdempotencyKey).values(
                **scope, request_hash=digest, state="running", locked_at=now, created_at=now,
                expires_at=now + KEEP_FOR))
            db.session.commit()
            g.idempotency = scope
            return None
        except IntegrityError:
            db.session.rollback()
        row = _find(scope)
        if row is None:
            continue   # released or purged in between: claim it again
        if _aware(row.expires_at) < now:
            db.session.execute(delete(IdempotencyKey).where(IdempotencyKey.id == row.id))
            db.session.commit()
            continue
        if row.request_hash != digest:
            raise ApiError(422, "idempotency_key_reused",
                           f"This {HEADER} was already used for a different request (another endpoint or body)."
                           " Use a new key for a new request.")
        if row.state == "done":
            return _replay(row)
        if _aware(row.locked_at) < now - stale_after:
            # The request that claimed it died without answering (its process stopped): take it over.
            taken = db.session.execute(update(IdempotencyKey).where(
                IdempotencyKey.id == row.id, IdempotencyKey.state == "running",
                IdempotencyKey.locked_at == row.locked_at).values(locked_at=now))
            db.session.commit()
            if taken.rowcount == 1:
                g.idempotency = scope
                return None
            continue
        if time.monotonic() >= wait_until:
            raise ApiError(409, "idempotency_in_progress",
                           f"A request with this {HEADER} is still being processed. Retry it when that one ends"
                           " to get its answer.", headers={"Retry-After": "1"})
        time.sleep(_POLL_SECONDS)


def _assessment_named(response: Response) -> int | None:
    """The assessment a successful answer is about, so that erasing the assessment erases the answer."""
    if response.status_code >= 300:
        return None
    from_path = (request.view_args or {}).get("assessment_id")
    if from_path:
        return from_path
    body = response.get_json(silent=True)
    if not isinstance(body, dict):
        return None
    named = body.get("assessmentId", body.get("id") if request.endpoint == "api.create_assessment" else None)
    return named if isinstance(named, int) else None


def finish(response: Response) -> Response:
    """after_request of the API blueprint: store the answer of a claimed key, or release the key."""
    scope = g.pop("idempotency", None)
    if scope is None:
        return response
    where = _matching(scope)
    try:
        db.session.rollback()   # nothing of the request's own work is pending; start clean
        if response.status_code >= 500 or response.status_code in (409, 429):
            db.session.execute(delete(IdempotencyKey).where(*where))
        else:
            headers = {name: response.headers[name] for name in _KEPT_HEADERS if name in response.headers}
            db.session.execute(update(IdempotencyKey).where(*where).values(
                state="done", response_status=response.status_code, response_headers=headers,
                response_body=response.get_data(), assessment_id=_assessment_named(response)))
        db.session.commit()
    except SQLAlchemyError:
        log.warning("could not store the answer for an Idempotency-Key; releasing the key", exc_info=True)
        db.session.rollback()
        try:   # e.g. the assessment it names was erased meanwhile: a retry runs again
            db.session.execute(delete(IdempotencyKey).where(*where))
            db.session.commit()
        except SQLAlchemyError:
            # The answer still goes out; the key stays claimed until it is stale (a retry gets 409 till then).
            db.session.rollback()
    return response
