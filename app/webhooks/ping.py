"""A test event a partner sends from the portal to a key's webhook URL, to check its receiver before a real run
(Stripe's "Send test webhook"): signed and sent exactly as deliveries are, once, at once, and never stored."""

from __future__ import annotations

import json

from flask import current_app

from ..models import ApiKey, iso_utc, utcnow
from .attempts import Outgoing, send_once, signing_secrets
from .outbox import new_delivery_id

TEST_EVENT = "webhook.test"


def send_test_event(key: ApiKey) -> dict:
    """One signed attempt of a `webhook.test` event to the key's webhook URL; the attempt as the log records one
    (`statusCode`, `error`, `durationMs`, `responseBody`)."""
    now = utcnow()
    payload = {"event": TEST_EVENT, "livemode": bool(key.livemode), "timestamp": iso_utc(now),
               "message": "A test event from the partner portal. It carries no assessment; a receiver can"
                          " answer it with 2xx and otherwise ignore it."}
    outgoing = Outgoing(new_delivery_id(), TEST_EVENT, payload["timestamp"], key.webhook_url,
                        json.dumps(payload, separators=(",", ":")).encode(), signing_secrets(key, now))
    entry, _retryable = send_once(outgoing, current_app.config["WEBHOOK_TIMEOUT_SECONDS"])
    return entry
