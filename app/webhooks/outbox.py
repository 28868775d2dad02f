"""Writing events into the outbox, in the caller's transaction."""

from __future__ import annotations

import json
import secrets
from datetime import datetime

from flask import current_app

from ..embed.urls import embed_url, view_url
from ..extensions import db
from ..models import ApiKey, Assessment, WebhookDelivery, iso_utc, utcnow

COMPLETED = "assessment.reports.completed"
FAILED = "assessment.reports.failed"


def new_delivery_id() -> str:
    return "dlv_" + secrets.token_hex(16)


def completed_payload(assessment: Assessment, failed: int, at: datetime) -> dict:
    return {
        "event": COMPLETED, "assessmentId": assessment.id, "externalCompanyId": assessment.external_company_id,
        "framework": assessment.framework, "complianceScore": assessment.compliance_score, "status": "completed",
        "totalReports": len(assessment.reports), "failedReports": failed, "embedToken": assessment.embed_token,
        "embedUrl": embed_url(assessment.embed_token),
        "reports": [{"persona": r.persona, "viewToken": r.view_token, "viewUrl": view_url(r.view_token)}
                    for r in assessment.reports],
        "timestamp": iso_utc(at),
    }


def failed_payload(assessment: Assessment, failed: int, error: str, at: datetime) -> dict:
    return {
        "event": FAILED, "assessmentId": assessment.id, "externalCompanyId": assessment.external_company_id,
        "framework": assessment.framework, "status": "failed", "totalReports": len(assessment.reports),
        "failedReports": failed, "error": error, "timestamp": iso_utc(at),
    }


def queue_generation_event(assessment: Assessment, key_id: int, failed: int, error: str | None) -> None:
    """Add the run's webhook to the outbox when the calling key has a webhook URL; the caller commits."""
    key = db.session.get(ApiKey, key_id)
    if key is None or not key.webhook_url:
        return
    now = utcnow()
    if assessment.status == "completed":
        payload = completed_payload(assessment, failed, now)
    else:
        payload = failed_payload(assessment, failed, error or "No report could be generated.", now)
    db.session.add(WebhookDelivery(
        id=new_delivery_id(), partner_id=assessment.partner_id, api_key_id=key.id, assessment_id=assessment.id,
        event=payload["event"], url=key.webhook_url, body=json.dumps(payload, separators=(",", ":")).encode(),
        event_at=payload["timestamp"], status="pending", round_attempts=0, attempts=[], next_attempt_at=now))


def notify_sender() -> None:
    """Wake this process's sender so a new delivery leaves at once."""
    sender = current_app.extensions.get("webhook_sender")
    if sender is not None:
        sender.wake()
