"""`GET /assessments/:id/reports`: every report of an assessment in one answer, so that reading a run costs one
request of the key's hourly budget, not 25."""

from __future__ import annotations

from flask import request
from sqlalchemy import exists, select

from ..assessments import get_assessment
from ..catalog import PERSONAS
from ..errors import not_found
from ..extensions import db
from ..keys.auth import current_key
from ..models import Report
from . import bp
from .body import load
from .schemas import ReportListSchema, ReportsQuerySchema

report_list_schema = ReportListSchema()
reports_query = ReportsQuerySchema()
PERSONA_ORDER = {p.id: index for index, p in enumerate(PERSONAS)}
NOT_GENERATED = "No reports for this assessment yet; generate them with POST /api/v1/assessments/{id}/generate."


@bp.get("/assessments/<id:assessment_id>/reports")
def list_reports(assessment_id: int):
    """The stored content of each report (of the picked personas, with `?persona=`), each as
    `GET .../reports/:persona` answers it, in persona order. 404, as that endpoint, while the assessment has
    no report yet; a persona with no content (its reports all failed) is left out."""
    picked = load(reports_query, request.args.to_dict(flat=False))["persona"]
    assessment = get_assessment(current_key(), assessment_id, full=False)
    query = select(Report.persona, Report.content).where(Report.assessment_id == assessment.id,
                                                         Report.content.is_not(None))
    if picked is not None:
        query = query.where(Report.persona.in_(sorted(picked)))
    rows = sorted((row for row in db.session.execute(query) if row.content is not None),
                  key=lambda row: PERSONA_ORDER.get(row.persona, len(PERSONA_ORDER)))
    if not rows and (picked is None or not _has_any_report(assessment.id)):
        raise not_found(NOT_GENERATED.format(id=assessment.id))
    items = [{**row.content, "livemode": assessment.livemode} for row in rows]
    return report_list_schema.dump({"reports": items})


def _has_any_report(assessment_id: int) -> bool:
    return bool(db.session.scalar(select(exists().where(Report.assessment_id == assessment_id,
                                                        Report.content.is_not(None)))))
