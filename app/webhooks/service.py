"""The partner's view of the outbox: listing deliveries and asking for another round."""

from __future__ import annotations

from sqlalchemy import select

from ..errors import not_found
from ..extensions import db
from ..models import WebhookDelivery, utcnow
from ..pagination import paginate
from .outbox import notify_sender


def list_deliveries(partner_id: int, limit: int, cursor: str | None, assessment_id: int | None,
                    status: str | None) -> tuple[list[WebhookDelivery], str | None]:
    """The partner's deliveries, newest first, optionally for one assessment or in one status."""
    query = select(WebhookDelivery).where(WebhookDelivery.partner_id == partner_id)
    if assessment_id is not None:
        query = query.where(WebhookDelivery.assessment_id == assessment_id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status)
    return paginate(query, WebhookDelivery.pk, limit, cursor)


def redeliver(partner_id: int, delivery_id: str) -> WebhookDelivery:
    """Queue a new round of attempts under the same delivery id."""
    delivery = db.session.scalar(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id,
                                                               WebhookDelivery.partner_id == partner_id))
    if delivery is None:
        raise not_found("No webhook delivery with that id.")
    delivery.status = "pending"
    delivery.round_attempts = 0
    delivery.next_attempt_at = utcnow()
    delivery.claimed_until = None
    db.session.commit()
    notify_sender()
    return delivery
