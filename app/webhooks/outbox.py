"""Writing events into the outbox, in the caller's transaction."""

from __future__ import annotations

import json
import secrets
from datetime import datetime

from flask import current_app

from ..extensions import db
from ..models import ApiKey, WebhookDelivery, iso_utc, utcnow

COMPLETED = "assessment.reports.completed"
FAILED = "assessment.reports.failed"


def new_delivery_id() -> str:
    return "dlv_" + secrets.token_hex(16)


def completed_payload(record: dict, failed: int, at: datetime) -> dict:
    return {
        "event": COMPLETED, "assessmentId": record["id"], "externalCompanyId": record["externalCompanyId"],
        "framework": record["framework"], "complianceScore": record["complianceScore"], "status": "completed",
        "totalReports": len(record["reports"]), "failedReports": failed, "embedToken": record["embedToken"],
        "embedUrl": record["embedUrl"],
        "reports": [{"persona": r["persona"], "viewToken": r["viewToken"], "viewUrl": r["viewUrl"]}
                    for r in record["reports"]],
        "previousAssessmentId": record["previousAssessmentId"], "change": record["change"],
        "livemode": record["livemode"], "timestamp": iso_utc(at),
    }


def failed_payload(record: dict, failed: int, error: str, at: datetime) -> dict:
    return {
        "event": FAILED, "assessmentId": record["id"], "externalCompanyId": record["externalCompanyId"],
        "framework": record["framework"], "status": "failed", "totalReports": len(record["reports"]),
        "failedReports": failed, "error": error, "livemode": record["livemode"], "timestamp": iso_utc(at),
    }


def queue_generation_event(record: dict, key_id: int, failed: int, error: str | None) -> None:
    """Add the run's webhook to the outbox when the calling key has a webhook URL; the caller commits.

    `record` is the assessment's record (assessment_record) as the run left it.
    """
    key = db.session.get(ApiKey, key_id)
    if key is None or not key.webhook_url:
        return
    now = utcnow()
    if record["status"] == "completed":
        payload = completed_payload(record, failed, now)
    else:
        payload = failed_payload(record, failed, error or "No report could be generated.", now)
    db.session.add(WebhookDelivery(
        id=new_delivery_id(), partner_id=key.partner_id, api_key_id=key.id, assessment_id=record["id"],
        event=payload["event"], url=key.webhook_url, body=json.dumps(payload, separators=(",", ":")).encode(),
        event_at=payload["timestamp"], status="pending", round_attempts=0, attempts=[], next_attempt_at=now))


def notify_sender() -> None:
    """Wake this process's sender so a new delivery leaves at once."""
    sender = current_app.extensions.get("webhook_sender")
    if sender is not None:
        sender.wake()
