"""Usage: what each assessment is billed, at the spec's prices."""

from __future__ import annotations

from sqlalchemy import func, select

from ..catalog import PRICE_PER_REPORT_USD, REPORTS_PER_ASSESSMENT
from ..extensions import db
from ..keys.auth import AuthenticatedKey
from ..models import ApiKey, Assessment, Report, UsageRecord


def record_usage(assessment: dict, key: AuthenticatedKey, delivered: int) -> None:
    """Bill the most reports any one run delivered; a regeneration never bills again.

    `assessment` is the assessment's record (assessment_record), which is the calling partner's. A test
    assessment is never billed: it gets no usage record at all.
    """
    if not assessment["livemode"]:
        return
    delivered = min(delivered, REPORTS_PER_ASSESSMENT)
    record = db.session.scalar(select(UsageRecord).where(UsageRecord.partner_id == key.partner_id,
                                                         UsageRecord.assessment_id == assessment["id"]))
    if record is None:
        if delivered:
            db.session.add(UsageRecord(assessment_id=assessment["id"], partner_id=key.partner_id,
                                       api_key_id=key.id, reports=delivered))
    elif delivered > record.reports:
        record.reports = delivered
        record.api_key_id = key.id


def usage_summary(partner_id: int, livemode: bool = True) -> dict:
    """Assessments, reports and USD billed to the partner, per key and in total. In test mode: the test
    keys' assessments and the reports they hold, at 0 USD."""
    if not livemode:
        return _test_usage(partner_id)
    rows = db.session.execute(
        select(ApiKey.id, ApiKey.last4, func.count(UsageRecord.id), func.coalesce(func.sum(UsageRecord.reports), 0))
        .join(UsageRecord, UsageRecord.api_key_id == ApiKey.id)
        .where(UsageRecord.partner_id == partner_id)
        .group_by(ApiKey.id, ApiKey.last4).order_by(ApiKey.id)).all()
    keys = [{"keyId": key_id, "key": f"crs_…{last4}", "assessments": count, "reports": int(reports),
             "amount": int(reports) * PRICE_PER_REPORT_USD} for key_id, last4, count, reports in rows]
    total_reports = sum(k["reports"] for k in keys)
    return {"currency": "USD", "livemode": True,
            "total": {"assessments": sum(k["assessments"] for k in keys), "reports": total_reports,
                      "amount": total_reports * PRICE_PER_REPORT_USD},
            "keys": keys}


def _test_usage(partner_id: int) -> dict:
    """What test keys generated: counted from the assessments themselves (no usage record exists), free."""
    completed = (select(func.count(Report.id)).where(Report.assessment_id == Assessment.id,
                                                      Report.generated_at.is_not(None)).scalar_subquery())
    rows = db.session.execute(
        select(ApiKey.id, ApiKey.last4, func.count(Assessment.id), func.coalesce(func.sum(completed), 0))
        .join(Assessment, Assessment.api_key_id == ApiKey.id)
        .where(Assessment.partner_id == partner_id, Assessment.livemode.is_(False),
               Assessment.generated_at.is_not(None))
        .group_by(ApiKey.id, ApiKey.last4).order_by(ApiKey.id)).all()
    keys = [{"keyId": key_id, "key": f"crs_…{last4}", "assessments": count, "reports": int(reports), "amount": 0}
            for key_id, last4, count, reports in rows]
    return {"currency": "USD", "livemode": False,
            "total": {"assessments": sum(k["assessments"] for k in keys),
                      "reports": sum(k["reports"] for k in keys), "amount": 0},
            "keys": keys}
