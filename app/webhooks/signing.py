"""Webhook signatures: our X-Service-Signature and the Standard Webhooks header."""

from __future__ import annotations

import base64
import hashlib
import hmac


def sign_payload(body: bytes, secret: str) -> str:
    """Hex HMAC-SHA256 of the exact body bytes, keyed with the secret string (X-Service-Signature)."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def standard_signature(delivery_id: str, timestamp: int, body: bytes, secret: str) -> str:
    """`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed as the Standard Webhooks libraries do:
    with the base64-decoding of the part after `whsec_`."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def delivery_headers(delivery_id: str, event: str, event_at: str, body: bytes, secrets: list[str],
                     timestamp: int) -> dict[str, str]:
    """All headers of one attempt; `secrets[0]` is current, any others are still in their grace period."""
    return {
        "Content-Type": "application/json",
        "User-Agent": "ComplianceReportService-Webhooks/1",
        "X-Service-Signature": sign_payload(body, secrets[0]),
        "X-Service-Event": event,
        "X-Service-Delivery": delivery_id,
        "X-Service-Timestamp": event_at,
        "webhook-id": delivery_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(standard_signature(delivery_id, timestamp, body, s) for s in secrets),
    }
