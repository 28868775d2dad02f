"""Views of the partner's webhook deliveries."""

from __future__ import annotations

from flask import request

from ..keys.auth import current_key
from ..webhooks import service
from . import bp
from .body import json_object, load
from .schemas import DeliveryPageSchema, DeliveryQuerySchema, DeliverySchema, RedeliveredSchema, RedeliverFailedSchema

delivery_query = DeliveryQuerySchema()
delivery_schema = DeliverySchema()
delivery_page = DeliveryPageSchema()
redeliver_failed_request = RedeliverFailedSchema()
redelivered = RedeliveredSchema()


@bp.get("/webhook-deliveries")
def list_deliveries():
    query = load(delivery_query, request.args.to_dict())
    key = current_key()
    items, next_cursor = service.list_deliveries(key.partner_id, query["limit"], query["cursor"],
                                                 query.get("assessmentId"), query.get("status"), key.livemode)
    return delivery_page.dump({"items": items, "nextCursor": next_cursor})


@bp.post("/webhook-deliveries/<delivery_id>/redeliver")
def redeliver(delivery_id: str):
    """202 with a new round queued; 409 `redelivery_pending` while the current round is not over."""
    key = current_key()
    return delivery_schema.dump(service.redeliver(key.partner_id, delivery_id, key.livemode)), 202


@bp.post("/webhook-deliveries/redeliver")
def redeliver_failed():
    """202: every failed delivery since a time gets a new round, in one call (after a receiver outage)."""
    options = load(redeliver_failed_request, json_object())
    key = current_key()
    count = service.redeliver_failed(key.partner_id, options["since"], options.get("assessmentId"), key.livemode)
    return redelivered.dump({"redelivered": count, "since": options["since"]}), 202
