"""The sender thread: claims due deliveries from the outbox and attempts them."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta

import requests
import tenacity
from flask import Flask
from sqlalchemy import func, or_, select, update

from ..extensions import db
from ..keys.crypto import decrypt_secret
from ..models import ApiKey, WebhookDelivery, iso_utc, utcnow
from .signing import delivery_headers
from .urls import WebhookUrlError, validate_webhook_url

log = logging.getLogger(__name__)
ROTATION_GRACE = timedelta(hours=24)
POLL_SECONDS = 1.0


def retry_policy(config) -> tenacity.Retrying:
    """Attempts and waits from the settings, as tenacity strategies."""
    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(config["WEBHOOK_MAX_ATTEMPTS"]),
        wait=tenacity.wait_chain(*(tenacity.wait_fixed(s) for s in config["WEBHOOK_BACKOFF_SECONDS"])))


def seconds_before_next_attempt(policy: tenacity.Retrying, attempts_made: int) -> float | None:
    """Tenacity's wait after `attempts_made` attempts, or None when it would stop.

    The wait is stored as the delivery's next due time instead of slept through, so a restart
    loses no progress and any process's sender can make the next attempt.
    """
    state = tenacity.RetryCallState(policy, fn=None, args=(), kwargs={})
    state.attempt_number = attempts_made
    if policy.stop(state):
        return None
    return policy.wait(state)


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=utcnow().tzinfo)
    return value


def signing_secrets(key: ApiKey, now: datetime) -> list[str]:
    """The current secret first, then the previous one while its 24 h grace lasts."""
    found = [decrypt_secret(key.webhook_secret_encrypted)]
    rotated = _aware(key.webhook_secret_rotated_at)
    if key.previous_webhook_secret_encrypted and rotated and now - rotated < ROTATION_GRACE:
        found.append(decrypt_secret(key.previous_webhook_secret_encrypted))
    return found


def claim_next_due(lease_seconds: float) -> WebhookDelivery | None:
    """Take one due delivery with a conditional update, so two senders never both take it."""
    now = utcnow()
    unclaimed = or_(WebhookDelivery.claimed_until.is_(None), WebhookDelivery.claimed_until < now)
    candidates = db.session.scalars(
        select(WebhookDelivery.pk)
        .where(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now, unclaimed)
        .order_by(WebhookDelivery.next_attempt_at).limit(5)).all()
    for pk in candidates:
        result = db.session.execute(
            update(WebhookDelivery).where(WebhookDelivery.pk == pk, WebhookDelivery.status == "pending", unclaimed)
            .values(claimed_until=now + timedelta(seconds=lease_seconds)))
        db.session.commit()
        if result.rowcount == 1:
            return db.session.get(WebhookDelivery, pk)
    return None


def send_once(delivery: WebhookDelivery, timeout: float) -> tuple[dict, bool]:
    """One HTTP attempt; returns its log entry and whether it is worth retrying."""
    started = time.perf_counter()
    entry = {"at": iso_utc(utcnow()), "statusCode": None, "error": None, "durationMs": 0}
    retryable = True
    try:
        validate_webhook_url(delivery.url)  # again at send time: DNS may have changed
        key = db.session.get(ApiKey, delivery.api_key_id)
        headers = delivery_headers(delivery.id, delivery.event, delivery.event_at, delivery.body,
                                   signing_secrets(key, utcnow()), int(time.time()))
        with requests.post(delivery.url, data=delivery.body, headers=headers, timeout=timeout,
                           allow_redirects=False) as response:
            entry["statusCode"] = response.status_code
            if not 200 <= response.status_code < 300:
                entry["error"] = f"HTTP {response.status_code}"
    except WebhookUrlError as exc:
        entry["error"], retryable = f"refused: {exc}", False
    except requests.Timeout:
        entry["error"] = f"timed out after {timeout:g} s"
    except requests.RequestException as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"[:500]
    entry["durationMs"] = round((time.perf_counter() - started) * 1000)
    return entry, retryable


def deliver_next(config) -> bool:
    """Attempt one due delivery, record the attempt and schedule what follows; False when none is due."""
    timeout = config["WEBHOOK_TIMEOUT_SECONDS"]
    delivery = claim_next_due(lease_seconds=timeout + 30)
    if delivery is None:
        return False
    entry, retryable = send_once(delivery, timeout)
    delivery.attempts = [*delivery.attempts, entry]
    delivery.round_attempts += 1
    delivery.claimed_until = None
    if entry["error"] is None:
        delivery.status, delivery.next_attempt_at = "succeeded", None
    else:
        wait = seconds_before_next_attempt(retry_policy(config), delivery.round_attempts) if retryable else None
        if wait is None:
            delivery.status, delivery.next_attempt_at = "failed", None
            log.warning("webhook %s to key %s failed for good: %s", delivery.id, delivery.api_key_id, entry["error"])
        else:
            delivery.next_attempt_at = utcnow() + timedelta(seconds=wait)
    db.session.commit()
    return True


def seconds_until_next_due() -> float:
    """How long the sender may sleep before something is due (it is also woken on new work)."""
    next_due = db.session.scalar(select(func.min(WebhookDelivery.next_attempt_at))
                                 .where(WebhookDelivery.status == "pending"))
    if next_due is None:
        return POLL_SECONDS
    return max(0.0, min(POLL_SECONDS, (_aware(next_due) - utcnow()).total_seconds()))


class WebhookSender:
    """One background thread per serving process; woken when a delivery is queued."""

    def __init__(self, app: Flask):
        self.app = app
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="webhook-sender", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 15) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        log.info("webhook sender started")
        while not self._stop.is_set():
            delay = POLL_SECONDS
            with self.app.app_context():
                try:
                    while not self._stop.is_set() and deliver_next(self.app.config):
                        pass
                    delay = seconds_until_next_due()
                except Exception:  # noqa: BLE001 - e.g. the database is briefly down: keep the thread alive
                    log.exception("webhook sender cycle failed; retrying in %.0f s", POLL_SECONDS)
                    db.session.rollback()
                finally:
                    db.session.remove()
            self._wake.wait(timeout=delay)
            self._wake.clear()
