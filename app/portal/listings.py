"""What the assessments and webhooks pages list: the partner's own rows only, a page at a time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select

from ..catalog import METHODOLOGY_BY_ID
from ..embed.urls import embed_url
from ..errors import ApiError
from ..extensions import db
from ..models import ApiKey, Assessment, Report, WebhookDelivery
from ..progress import framework_key
from ..webhooks import service as webhooks

ASSESSMENT_STATUSES = ("submitted", "generating", "completed", "failed")
DELIVERY_STATUSES = ("pending", "succeeded", "failed")
PAGE_SIZE = 20
DELIVERIES_PER_PAGE = 20


@dataclass(frozen=True)
class AssessmentRow:
    id: int
    client: str
    company_id: str
    framework: str
    status: str
    score: float
    methodology: str | None
    created_at: datetime
    generated_at: datetime | None
    views: int
    viewer_url: str
    livemode: bool = True


@dataclass(frozen=True)
class Page:
    items: list
    number: int
    pages: int
    total: int


def _framework_names(partner_id: int) -> list[str]:
    return list(db.session.scalars(select(Assessment.framework).where(Assessment.partner_id == partner_id)
                                   .distinct().order_by(Assessment.framework)))


def assessment_frameworks(partner_id: int) -> list[str]:
    """The frameworks the partner's assessments use, for the filter: one entry per framework as the service reads
    the names ("ISO 27001" and "iso 27001" are one; `progress.framework_key`), under its first spelling."""
    first: dict[str, str] = {}
    for name in _framework_names(partner_id):
        first.setdefault(framework_key(name), name)
    return sorted(first.values(), key=str.casefold)


def assessments_page(partner_id: int, status: str | None, framework: str | None, number: int,
                     livemode: bool | None = None) -> Page:
    """The partner's assessments, newest first, with the views of all their reports."""
    views = (select(Report.assessment_id, func.sum(Report.view_count).label("views"))
             .group_by(Report.assessment_id).subquery())
    conditions = [Assessment.partner_id == partner_id]
    if livemode is not None:
        conditions.append(Assessment.livemode.is_(livemode))
    if status:
        conditions.append(Assessment.status == status)
    if framework:   # every spelling of the chosen framework
        wanted = framework_key(framework)
        conditions.append(Assessment.framework.in_(
            [name for name in _framework_names(partner_id) if framework_key(name) == wanted]))
    total = db.session.scalar(select(func.count(Assessment.id)).where(*conditions)) or 0
    pages = max(1, math.ceil(total / PAGE_SIZE))
    number = min(max(1, number), pages)
    rows = db.session.execute(
        select(Assessment, func.coalesce(views.c.views, 0))
        .outerjoin(views, views.c.assessment_id == Assessment.id).where(*conditions)
        .order_by(Assessment.id.desc()).offset((number - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    items = []
    for assessment, view_count in rows:
        methodology = METHODOLOGY_BY_ID.get(assessment.methodology or "")
        items.append(AssessmentRow(
            id=assessment.id, client=assessment.display_name or assessment.external_company_id,
            company_id=assessment.external_company_id, framework=assessment.framework, status=assessment.status,
            score=assessment.compliance_score, methodology=methodology.label if methodology else None,
            created_at=assessment.created_at, generated_at=assessment.generated_at, views=int(view_count),
            viewer_url=embed_url(assessment.embed_token), livemode=assessment.livemode))
    return Page(items=items, number=number, pages=pages, total=total)


def deliveries_page(partner_id: int, status: str | None, cursor: str | None, livemode: bool | None = None
                    ) -> tuple[list[WebhookDelivery], str | None, dict[int, ApiKey]]:
    """A page of the partner's deliveries (the API's own listing), the next cursor, and the keys they went out for.

    A cursor this service did not hand out raises ApiError, like the API's listing.
    """
    items, next_cursor = webhooks.list_deliveries(partner_id, DELIVERIES_PER_PAGE, cursor, None,
                                                  status, livemode)
    key_ids = {d.api_key_id for d in items}
    keys = {k.id: k for k in db.session.scalars(select(ApiKey).where(ApiKey.id.in_(key_ids)))} if key_ids else {}
    return items, next_cursor, keys


def delivery(partner_id: int, delivery_id: str) -> WebhookDelivery | None:
    """The partner's delivery with this id (with its key); None for another partner's or none at all."""
    if len(delivery_id) > 40:   # the column's size
        return None
    return db.session.scalar(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id,
                                                           WebhookDelivery.partner_id == partner_id))


def failed_deliveries(partner_id: int, livemode: bool | None = None) -> tuple[int, list[WebhookDelivery]]:
    """How many of the partner's deliveries (of one mode's keys, when given) failed for good, and the newest of
    them (a page)."""
    failed = (*webhooks.deliveries_of(partner_id, livemode), WebhookDelivery.status == "failed")
    count = db.session.scalar(select(func.count()).select_from(WebhookDelivery).where(*failed))
    newest = db.session.scalars(select(WebhookDelivery).where(*failed).order_by(WebhookDelivery.pk.desc())
                                .limit(DELIVERIES_PER_PAGE)).all() if count else []
    return count, list(newest)


def redeliver_all_failed(partner_id: int, livemode: bool | None = None) -> int:
    """A new round for every failed delivery of the partner (of one mode's keys, when given); returns how many."""
    return webhooks.redeliver_failed(partner_id, datetime(1970, 1, 1, tzinfo=UTC), livemode=livemode)


class NoWebhookUrl(Exception):
    """The delivery's key has no webhook URL any more: there is nowhere to redeliver it."""


class RedeliveryPending(Exception):
    """The delivery still has a round of attempts queued or running; a second one is refused."""


def redeliver(partner_id: int, delivery_id: str) -> WebhookDelivery | None:
    """Queue another round of attempts; None when the partner has no delivery with that id.

    Raises RedeliveryPending while a round is still pending (the API answers that 409).
    """
    try:
        return webhooks.redeliver(partner_id, delivery_id)
    except ApiError as error:
        if error.status == 404:
            return None
        if error.code == "redelivery_pending":
            raise RedeliveryPending(delivery_id) from None
        if error.code == "webhook_url_missing":
            raise NoWebhookUrl(delivery_id) from None
        raise
