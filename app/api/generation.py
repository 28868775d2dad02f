"""Views of generation, report content and usage."""

from __future__ import annotations

from ..generation import billing, service
from ..generation.content import ReportContentSchema
from ..keys.auth import current_key
from . import bp
from .body import json_object, load
from .schemas import GenerateRequestSchema, UsageSchema

generate_request = GenerateRequestSchema()
report_content_schema = ReportContentSchema()
usage_schema = UsageSchema()


@bp.post("/assessments/<id:assessment_id>/generate")
def generate(assessment_id: int):
    options = load(generate_request, json_object(optional=True))
    return service.generate(current_key(), assessment_id, options["methodology"])


@bp.get("/assessments/<id:assessment_id>/reports/<persona>")
def get_report(assessment_id: int, persona: str):
    return report_content_schema.dump(service.report_content(current_key(), assessment_id, persona))


@bp.get("/usage")
def usage():
    return usage_schema.dump(billing.usage_summary(current_key().partner_id))
