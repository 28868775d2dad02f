"""Views of /api/v1/assessments."""

from __future__ import annotations

from flask import request, url_for

from .. import assessments as service
from ..keys.auth import current_key
from . import bp
from .body import json_object, load
from .schemas import AssessmentPageSchema, AssessmentSchema, ListQuerySchema, SubmissionLoader

submission_loader = SubmissionLoader()
assessment_schema = AssessmentSchema()
page_schema = AssessmentPageSchema()
list_query = ListQuerySchema()


@bp.post("/assessments")
def create_assessment():
    data = load(submission_loader, json_object())
    assessment = service.create_assessment(current_key(), data)
    location = url_for("api.get_assessment", assessment_id=assessment.id)
    return assessment_schema.dump(assessment), 201, {"Location": location}


@bp.get("/assessments")
def list_assessments():
    query = load(list_query, request.args.to_dict())
    items, next_cursor = service.list_assessments(current_key(), query["limit"], query["cursor"])
    return page_schema.dump({"items": items, "nextCursor": next_cursor})


@bp.get("/assessments/<id:assessment_id>")
def get_assessment(assessment_id: int):
    return service.record_response(current_key(), assessment_id)


@bp.delete("/assessments/<id:assessment_id>")
def delete_assessment(assessment_id: int):
    service.delete_assessment(current_key(), assessment_id)
    return "", 204


@bp.post("/assessments/<id:assessment_id>/embed-token/rotate")
def rotate_embed_token(assessment_id: int):
    return assessment_schema.dump(service.rotate_tokens(current_key(), assessment_id))
