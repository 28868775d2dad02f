"""The partner's view of the outbox: listing deliveries and asking for another round."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import select, update

from ..errors import ApiError, not_found
from ..extensions import db
from ..models import ApiKey, WebhookDelivery, utcnow
from ..pagination import paginate
from .outbox import notify_sender

# What a delivery id can be (`dlv_` + hex, at most the column's 40 characters).
DELIVERY_ID = re.compile(r"[A-Za-z0-9_\-]{1,40}")


def deliveries_of(partner_id: int, livemode: bool | None):
    """The partner's deliveries; of one mode's keys when `livemode` is given (the API: a test key sees
    test deliveries only, a live key live ones; the portal shows both)."""
    conditions = [WebhookDelivery.partner_id == partner_id]
    if livemode is not None:
        conditions.append(WebhookDelivery.api_key_id.in_(
            select(ApiKey.id).where(ApiKey.partner_id == partner_id, ApiKey.livemode == livemode)))
    return conditions


def list_deliveries(partner_id: int, limit: int, cursor: str | None, assessment_id: int | None,
                    status: str | None, livemode: bool | None = None) -> tuple[list[WebhookDelivery], str | None]:
    """The partner's deliveries, newest first, optionally for one assessment or in one status."""
    query = select(WebhookDelivery).where(*deliveries_of(partner_id, livemode))
    if assessment_id is not None:
        query = query.where(WebhookDelivery.assessment_id == assessment_id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status)
    return paginate(query, WebhookDelivery.pk, limit, cursor)


def redeliver(partner_id: int, delivery_id: str, livemode: bool | None = None) -> WebhookDelivery:
    """Queue a new round of attempts under the same delivery id, unless a round is still queued or running."""
    if not DELIVERY_ID.fullmatch(delivery_id):  # Postgres refuses a NUL in a query outright: a 500 otherwise
        raise not_found("No webhook delivery with that id.")
    delivery = db.session.scalar(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id,
                                                               *deliveries_of(partner_id, livemode)))
    if delivery is None:
        raise not_found("No webhook delivery with that id.")
    url = db.session.scalar(select(ApiKey.webhook_url).where(ApiKey.id == delivery.api_key_id))
    if not url and delivery.status != "pending":   # a round still pending says so first (below)
        raise ApiError(409, "webhook_url_missing",
                       "The key this delivery was sent for has no webhook URL any more; set one on the key, then"
                       " redeliver.")
    # One round at a time, decided by a conditional UPDATE: two redeliveries racing, or one racing the
    # sender, cannot both start a round, and a pending round is never reset (which would let a
    # partner keep attempts against a hanging endpoint going without end).
    started = db.session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.pk == delivery.pk, WebhookDelivery.status.in_(("succeeded", "failed")))
        .values(status="pending", round_attempts=0, rescue_rounds=0, next_attempt_at=utcnow(), claimed_until=None,
                url=url or delivery.url))   # the key's URL now: a partner who moved its receiver gets the event there
    db.session.commit()
    if started.rowcount != 1:
        raise ApiError(409, "redelivery_pending",
                       "This delivery still has a round of attempts queued or in progress; "
                       "redeliver it once its status is succeeded or failed.")
    notify_sender()
    db.session.refresh(delivery)
    return delivery


def redeliver_failed(partner_id: int, since: datetime, assessment_id: int | None = None,
                     livemode: bool | None = None) -> int:
    """Queue a new round for every failed delivery of the partner created at or after `since` (of one
    assessment when given), in one statement, to its key's current webhook URL (deliveries of a key without
    one are left failed); returns how many. Each keeps its delivery id."""
    current_url = (select(ApiKey.webhook_url).where(ApiKey.id == WebhookDelivery.api_key_id)
                   .correlate(WebhookDelivery).scalar_subquery())
    conditions = [*deliveries_of(partner_id, livemode), WebhookDelivery.status == "failed",
                  WebhookDelivery.created_at >= since, current_url.is_not(None), current_url != ""]
    if assessment_id is not None:
        conditions.append(WebhookDelivery.assessment_id == assessment_id)
    started = db.session.execute(update(WebhookDelivery).where(*conditions).values(
        status="pending", round_attempts=0, rescue_rounds=0, next_attempt_at=utcnow(), claimed_until=None,
        url=current_url))
    db.session.commit()
    if started.rowcount:
        notify_sender()
    return started.rowcount
