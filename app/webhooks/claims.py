"""Claiming due deliveries from the outbox: one attempt in flight per endpoint, across processes.

An endpoint is a delivery's URL. A claim is a lease (`claimed_until`) taken with a conditional
UPDATE, so two senders (threads or processes) never take one delivery, and a sender that died
leaves nothing stuck longer than the lease. An endpoint with an unexpired claim on any of its
deliveries is skipped, which keeps its deliveries one at a time and in due order everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import aliased

from ..database import discard_session
from ..extensions import db
from ..models import WebhookDelivery, utcnow

POLL_SECONDS = 1.0


def aware(value: datetime | None) -> datetime | None:
    """The value as an aware UTC datetime (SQLite hands back naive ones)."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=utcnow().tzinfo)
    return value


def _unclaimed(now: datetime):
    return or_(WebhookDelivery.claimed_until.is_(None), WebhookDelivery.claimed_until < now)


def _claimed_endpoints(now: datetime):
    """URLs with an attempt in flight somewhere: a pending delivery under an unexpired lease."""
    other = aliased(WebhookDelivery)
    return select(other.url).where(other.status == "pending", other.claimed_until >= now)


def _due_endpoints(now: datetime, busy: Iterable[str], limit: int) -> list[str]:
    """Endpoints with a due, unclaimed delivery and no attempt in flight, the longest-waiting first."""
    busy = set(busy)
    rows = db.session.execute(
        select(WebhookDelivery.url)
        .where(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now, _unclaimed(now),
               WebhookDelivery.url.not_in(_claimed_endpoints(now)))
        .group_by(WebhookDelivery.url).order_by(func.min(WebhookDelivery.next_attempt_at))
        .limit(limit + len(busy))).scalars().all()
    return [url for url in rows if url not in busy][:limit]


def claim_due(busy: Iterable[str], limit: int, lease_seconds: float) -> list[tuple[int, str]]:
    """Claim the first due delivery of up to `limit` free endpoints; returns (pk, url) pairs."""
    now = utcnow()
    claimed = []
    for url in _due_endpoints(now, busy, limit):
        # The endpoint's earliest due delivery: every sender picks the same one, so a race between
        # two of them is settled by the conditional UPDATE below on one row.
        pk = db.session.scalar(
            select(WebhookDelivery.pk)
            .where(WebhookDelivery.url == url, WebhookDelivery.status == "pending",
                   WebhookDelivery.next_attempt_at <= now, _unclaimed(now))
            .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.pk).limit(1))
        if pk is None:
            continue
        result = db.session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.pk == pk, WebhookDelivery.status == "pending", _unclaimed(now),
                   WebhookDelivery.url.not_in(_claimed_endpoints(now)))
            .values(claimed_until=now + timedelta(seconds=lease_seconds)))
        db.session.commit()
        if result.rowcount == 1:
            claimed.append((pk, url))
    return claimed


def seconds_until_next_due(busy: Iterable[str]) -> float:
    """How long the dispatcher may sleep before a delivery it could claim is due (at most POLL_SECONDS).

    Deliveries of endpoints with an attempt in flight do not count: the attempt's end wakes the
    dispatcher in this process, and the poll notices one that ends in another process.
    """
    now = utcnow()
    busy = list(busy)
    query = (select(func.min(WebhookDelivery.next_attempt_at))
             .where(WebhookDelivery.status == "pending", _unclaimed(now),
                    WebhookDelivery.url.not_in(_claimed_endpoints(now))))
    if busy:
        query = query.where(WebhookDelivery.url.not_in(busy))
    next_due = db.session.scalar(query)
    if next_due is None:
        return POLL_SECONDS
    return max(0.0, min(POLL_SECONDS, (aware(next_due) - now).total_seconds()))


def release_claims(pks: list[int]) -> None:
    """Give up the leases of deliveries this process will not attempt after all (it is stopping)."""
    try:
        db.session.execute(update(WebhookDelivery).values(claimed_until=None).where(
            WebhookDelivery.pk.in_(pks), WebhookDelivery.status == "pending"))
        db.session.commit()
    except SQLAlchemyError:   # the leases then run out on their own
        pass
    finally:
        discard_session()
