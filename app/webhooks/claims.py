"""Claiming due deliveries from the outbox: one attempt in flight per endpoint, across processes,
and at most a partner's share of this process's attempts.

An endpoint is a delivery's URL. A claim is a lease (`claimed_until`) taken with a conditional
UPDATE, so two senders (threads or processes) never take one delivery, and a sender that died
leaves nothing stuck longer than the lease. An endpoint with an unexpired claim on any of its
deliveries is skipped, which keeps its deliveries one at a time and in due order everywhere.
A partner with `partner_cap` attempts in flight in this process has its endpoints skipped too, so
its slow endpoints leave the other workers to other partners' deliveries (`_next_deliveries`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
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


def _next_deliveries(now: datetime, in_flight: Mapping[str, int], partner_cap: int):
    """The one place that decides what this process may claim: each free endpoint's next delivery (pk, url,
    partner_id, next_attempt_at), unless that delivery's partner already has `partner_cap` attempts in flight.

    `in_flight` maps the URLs this process is attempting to their partner. A free endpoint has no attempt in
    flight here or under a claim anywhere; its next delivery is its earliest pending, unclaimed one. An endpoint
    whose next delivery belongs to a partner at its cap waits, so its due order holds even if two partners
    share the URL.
    """
    full = [partner for partner, count in Counter(in_flight.values()).items() if count >= partner_cap]
    conditions = [WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at.is_not(None),
                  _unclaimed(now), WebhookDelivery.url.not_in(_claimed_endpoints(now))]
    if in_flight:
        conditions.append(WebhookDelivery.url.not_in(list(in_flight)))
    place = func.row_number().over(partition_by=WebhookDelivery.url,
                                   order_by=(WebhookDelivery.next_attempt_at, WebhookDelivery.pk))
    ranked = select(WebhookDelivery.pk, WebhookDelivery.url, WebhookDelivery.partner_id,
                    WebhookDelivery.next_attempt_at, place.label("place")).where(*conditions).subquery("ranked")
    query = select(ranked.c.pk, ranked.c.url, ranked.c.partner_id, ranked.c.next_attempt_at).where(ranked.c.place == 1)
    if full:
        query = query.where(ranked.c.partner_id.not_in(full))
    return query.subquery("next_deliveries")


def claim_due(in_flight: Mapping[str, int], limit: int, lease_seconds: float,
              partner_cap: int) -> list[tuple[int, str, int]]:
    """Claim the next due delivery of up to `limit` free endpoints, the longest-waiting first, taking no
    partner past `partner_cap` attempts in flight here (`in_flight`: URL -> partner of the attempts running
    here). Returns (pk, url, partner_id) triples."""
    now = utcnow()
    in_flight = dict(in_flight)
    claimed = []
    for _ in range(limit):
        # Asked again after each claim: the partner just claimed for may have reached its cap.
        # Every sender picks the same delivery, so a race between two of them is settled by the
        # conditional UPDATE below on one row; the loser's next look skips that endpoint (now claimed).
        nxt = _next_deliveries(now, in_flight, partner_cap)
        row = db.session.execute(
            select(nxt.c.pk, nxt.c.url, nxt.c.partner_id).where(nxt.c.next_attempt_at <= now)
            .order_by(nxt.c.next_attempt_at, nxt.c.pk).limit(1)).first()
        if row is None:
            break
        pk, url, partner_id = row
        result = db.session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.pk == pk, WebhookDelivery.status == "pending", _unclaimed(now),
                   WebhookDelivery.url.not_in(_claimed_endpoints(now)))
            .values(claimed_until=now + timedelta(seconds=lease_seconds)))
        db.session.commit()
        if result.rowcount == 1:
            claimed.append((pk, url, partner_id))
            in_flight[url] = partner_id
    return claimed


def seconds_until_next_due(in_flight: Mapping[str, int], partner_cap: int) -> float:
    """How long the dispatcher may sleep before a delivery it could claim is due (at most POLL_SECONDS).

    Deliveries of endpoints with an attempt in flight, and of partners at their cap, do not count: the
    attempt's end wakes the dispatcher in this process, and the poll notices one that ends in another process.
    """
    now = utcnow()
    nxt = _next_deliveries(now, in_flight, partner_cap)
    next_due = db.session.scalar(select(func.min(nxt.c.next_attempt_at)))
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
