"""Views of generation, report content and usage."""

from __future__ import annotations

from flask import request, url_for

from ..generation import billing, service
from ..generation.content import ReportContentSchema
from ..keys.auth import current_key
from . import bp
from .body import json_object, load
from .schemas import GenerateRequestSchema, UsageSchema

generate_request = GenerateRequestSchema()
report_content_schema = ReportContentSchema()
usage_schema = UsageSchema()


def prefers_async() -> bool:
    """`Prefer: respond-async` (RFC 7240), among other preferences and with or without parameters."""
    return any(part.split(";", 1)[0].strip().lower() == "respond-async"
               for value in request.headers.getlist("Prefer") for part in value.split(","))


@bp.post("/assessments/<id:assessment_id>/generate")
def generate(assessment_id: int):
    """200 with the result when the run ends; with `Prefer: respond-async`, 202 at once with the record in
    status `generating`, and the run goes on on the server (progress in `reportsDone`, then the webhook)."""
    options = load(generate_request, json_object(optional=True))
    if not prefers_async():
        return service.generate(current_key(), assessment_id, options["methodology"])
    record = service.generate_async(current_key(), assessment_id, options["methodology"])
    return record, 202, {"Preference-Applied": "respond-async",
                         "Location": url_for("api.get_assessment", assessment_id=assessment_id)}


@bp.get("/assessments/<id:assessment_id>/reports/<persona>")
def get_report(assessment_id: int, persona: str):
    return report_content_schema.dump(service.report_content(current_key(), assessment_id, persona))


@bp.get("/usage")
def usage():
    key = current_key()
    return usage_schema.dump(billing.usage_summary(key.partner_id, key.livemode))
