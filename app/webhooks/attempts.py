"""One attempt of a claimed delivery: sign, send to the checked address, record, schedule what follows."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

import requests
import tenacity

from ..extensions import db
from ..keys.crypto import decrypt_secret
from ..models import ApiKey, WebhookDelivery, iso_utc, utcnow
from .claims import aware
from .signing import delivery_headers
from .transport import post
from .urls import WebhookHostUnresolved, WebhookUrlError, resolve_webhook_url

log = logging.getLogger(__name__)
ROTATION_GRACE = timedelta(hours=24)


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


def signing_secrets(key: ApiKey, now: datetime) -> list[str]:
    """The current secret first, then the previous one while its 24 h grace lasts."""
    found = [decrypt_secret(key.webhook_secret_encrypted)]
    rotated = aware(key.webhook_secret_rotated_at)
    if key.previous_webhook_secret_encrypted and rotated and now - rotated < ROTATION_GRACE:
        found.append(decrypt_secret(key.previous_webhook_secret_encrypted))
    return found


@dataclass(frozen=True)
class Outgoing:
    """What one attempt sends, read from the outbox before the HTTP request starts."""

    id: str
    event: str
    event_at: str
    url: str
    body: bytes
    secrets: list[str]


def _error_text(exc: requests.RequestException) -> str:
    # requests' message for a failed connection is urllib3's pool retry summary; the innermost
    # cause (refused, TLS certificate check, reset) is what a partner needs to see.
    reason = getattr(exc.args[0] if exc.args else None, "reason", None)
    detail = reason if reason is not None else exc
    return f"{type(exc).__name__}: {detail}"[:500]


def send_once(outgoing: Outgoing, timeout: float) -> tuple[dict, bool]:
    """One HTTP attempt; returns its log entry and whether it is worth retrying."""
    started = time.perf_counter()
    entry = {"at": iso_utc(utcnow()), "url": outgoing.url, "statusCode": None, "error": None, "durationMs": 0,
             "responseBody": None}
    retryable = True
    try:
        target = resolve_webhook_url(outgoing.url)  # again at every attempt: DNS may have changed
        headers = delivery_headers(outgoing.id, outgoing.event, outgoing.event_at, outgoing.body,
                                   outgoing.secrets, int(time.time()))
        status, answer = post(target, outgoing.body, headers, timeout)
        entry["statusCode"], entry["responseBody"] = status, answer.decode("utf-8", "replace")
        if not 200 <= status < 300:
            entry["error"] = f"HTTP {status}"
    except WebhookHostUnresolved as exc:
        entry["error"] = str(exc)  # DNS failures are often brief: retried like a refused connection
    except WebhookUrlError as exc:
        entry["error"], retryable = f"refused: {exc}", False
    except requests.Timeout:
        entry["error"] = f"timed out after {timeout:g} s"
    except requests.RequestException as exc:
        entry["error"] = _error_text(exc)
    entry["durationMs"] = round((time.perf_counter() - started) * 1000)
    return entry, retryable


def _outgoing(pk: int) -> Outgoing | None:
    delivery = db.session.get(WebhookDelivery, pk)
    if delivery is None or delivery.status != "pending":
        return None  # erased with its assessment since the claim
    key = db.session.get(ApiKey, delivery.api_key_id)
    return Outgoing(delivery.id, delivery.event, delivery.event_at, delivery.url, delivery.body,
                    signing_secrets(key, utcnow()))


def attempt_delivery(pk: int, config) -> None:
    """Make one attempt of the claimed delivery `pk`, record it and schedule what follows."""
    outgoing = _outgoing(pk)
    db.session.commit()  # no transaction stays open while the receiver takes its time
    if outgoing is None:
        return
    timeout = config["WEBHOOK_TIMEOUT_SECONDS"]
    entry, retryable = send_once(outgoing, timeout)
    delivery = db.session.get(WebhookDelivery, pk)
    if delivery is None:
        return  # erased during the attempt
    delivery.attempts = [*delivery.attempts, entry]
    delivery.round_attempts += 1
    delivery.claimed_until = None
    if entry["error"] is None:
        delivery.status, delivery.next_attempt_at = "succeeded", None
    else:
        wait = seconds_before_next_attempt(retry_policy(config), delivery.round_attempts) if retryable else None
        rescue = config["WEBHOOK_RESCUE_SECONDS"]
        if wait is None and retryable and delivery.rescue_rounds < len(rescue):
            # The round failed; a rescue round of the same attempts starts later (the receiver may be back).
            wait = rescue[delivery.rescue_rounds]
            delivery.rescue_rounds += 1
            delivery.round_attempts = 0
            log.warning("webhook %s to key %s: round failed (%s); rescue round %d in %g s", delivery.id,
                        delivery.api_key_id, entry["error"], delivery.rescue_rounds, wait)
        if wait is None:
            delivery.status, delivery.next_attempt_at = "failed", None
            log.warning("webhook %s to key %s failed for good: %s", delivery.id, delivery.api_key_id, entry["error"])
        else:
            delivery.next_attempt_at = utcnow() + timedelta(seconds=wait)
    db.session.commit()
