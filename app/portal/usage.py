"""Monthly usage for the portal: what was billed, month by month and key by key, at the spec's prices.

A usage record is billed in the month (UTC) it was created, i.e. the month of the assessment's first
delivered run; regeneration never bills again (see generation.billing). Each month is also itemised, a line
per billed assessment (and, apart, the month's free test assessments), on the page and as CSV.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from flask import Response, abort, request
from sqlalchemy import and_, func, select

from ..catalog import PRICE_PER_REPORT_USD
from ..extensions import db
from ..generation.billing import usage_summary
from ..models import ApiKey, Assessment, Report, UsageRecord, iso_utc, utcnow
from .auth import current_user

# ASCII digits only: \d would also take "٢٠٢٦", which int() reads as 2026.
_MONTH = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])")
FIRST_YEAR = 2000  # nothing was billed before; earlier months are not pages
LAST_MONTH = date(9999, 11, 1)  # the last month whose end (the next month's first day) a date can hold


@dataclass(frozen=True)
class KeyUsage:
    key_id: int
    key: str
    name: str | None
    revoked: bool
    assessments: int
    reports: int
    amount: int


@dataclass(frozen=True)
class UsageLine:
    """One assessment of the month: billed (live) from its usage record, or free (test) from the assessment.

    `client` and `company_id` are None when the assessment was erased (its usage record outlives it).
    """

    at: datetime
    assessment_id: int
    client: str | None
    company_id: str | None
    key_id: int
    key: str
    name: str | None
    revoked: bool
    reports: int
    amount: int
    livemode: bool = True


@dataclass(frozen=True)
class MonthUsage:
    month: date
    assessments: int
    reports: int
    amount: int
    keys: list[KeyUsage] = field(default_factory=list)
    lines: list[UsageLine] = field(default_factory=list)  # the billed assessments; they add up to `amount`
    test_lines: list[UsageLine] = field(default_factory=list)  # the month's test assessments, never billed

    @property
    def label(self) -> str:
        return f"{self.month:%B %Y}"

    @property
    def param(self) -> str:
        return f"{self.month:%Y-%m}"


def current_month() -> date:
    return utcnow().date().replace(day=1)


def looks_like_month(text: str | None) -> bool:
    """`YYYY-MM` with a month from 01 to 12, whether or not the service has pages for that year."""
    return _MONTH.fullmatch(text or "") is not None


def parse_month(text: str | None) -> date | None:
    """`2026-11` -> date(2026, 11, 1); None for anything else, and for months outside 2000 to 9999-11."""
    match = _MONTH.fullmatch(text or "")
    if not match or int(match.group(1)) < FIRST_YEAR:  # year 0 is not even a date
        return None
    month = date(int(match.group(1)), int(match.group(2)), 1)
    return month if month <= LAST_MONTH else None


def _bounds(month: date) -> tuple[datetime, datetime]:
    start = datetime(month.year, month.month, 1, tzinfo=UTC)
    end = datetime(month.year + month.month // 12, month.month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _month_of(column):
    """`YYYY-MM` of a UTC timestamp column, on SQLite and on Postgres."""
    if db.session.get_bind().dialect.name == "postgresql":
        return func.to_char(func.timezone("UTC", column), "YYYY-MM")
    return func.strftime("%Y-%m", column)


def selected_month(raw: str | None) -> date:
    """The month of `?month=`, this month without one; 404 for a month the service has no page for
    (e.g. 9999-12), 400 for anything else that is not `YYYY-MM`."""
    month = parse_month(raw) if raw else current_month()
    if month is None:
        abort(404 if looks_like_month(raw) else 400)
    return month


def _line(at, assessment_id, display_name, company_id, key_id, last4, name, revoked_at, reports, amount,
          livemode) -> UsageLine:
    return UsageLine(at=at, assessment_id=assessment_id, client=display_name or company_id, company_id=company_id,
                     key_id=key_id, key=f"crs_…{last4}", name=name, revoked=revoked_at is not None,
                     reports=int(reports), amount=amount, livemode=livemode)


def _billed_lines(partner_id: int, start: datetime, end: datetime) -> list[UsageLine]:
    """The month's usage records, oldest first: the same rows (and keys) the month's totals sum."""
    rows = db.session.execute(
        select(UsageRecord.created_at, UsageRecord.assessment_id, Assessment.display_name,
               Assessment.external_company_id, ApiKey.id, ApiKey.last4, ApiKey.name, ApiKey.revoked_at,
               UsageRecord.reports)
        .join(ApiKey, ApiKey.id == UsageRecord.api_key_id)
        .outerjoin(Assessment, and_(Assessment.id == UsageRecord.assessment_id,
                                    Assessment.partner_id == UsageRecord.partner_id))
        .where(UsageRecord.partner_id == partner_id, UsageRecord.created_at >= start, UsageRecord.created_at < end)
        .order_by(UsageRecord.created_at, UsageRecord.id)).all()
    return [_line(*row, amount=int(row[-1]) * PRICE_PER_REPORT_USD, livemode=True) for row in rows]


def _test_lines(partner_id: int, start: datetime, end: datetime) -> list[UsageLine]:
    """The month's test assessments (by when they were last generated, as the API's test usage counts them),
    with the reports they hold, at 0 USD: test keys are never billed."""
    completed = (select(func.count(Report.id)).where(Report.assessment_id == Assessment.id,
                                                      Report.generated_at.is_not(None)).scalar_subquery())
    rows = db.session.execute(
        select(Assessment.generated_at, Assessment.id, Assessment.display_name, Assessment.external_company_id,
               ApiKey.id, ApiKey.last4, ApiKey.name, ApiKey.revoked_at, completed)
        .join(ApiKey, ApiKey.id == Assessment.api_key_id)
        .where(Assessment.partner_id == partner_id, Assessment.livemode.is_(False),
               Assessment.generated_at >= start, Assessment.generated_at < end)
        .order_by(Assessment.generated_at, Assessment.id)).all()
    return [_line(*row, amount=0, livemode=False) for row in rows]


def month_usage(partner_id: int, month: date) -> MonthUsage:
    """One month's totals, the per-key lines behind them, and a line per assessment."""
    start, end = _bounds(month)
    rows = db.session.execute(
        select(ApiKey.id, ApiKey.last4, ApiKey.name, ApiKey.revoked_at, func.count(UsageRecord.id),
               func.coalesce(func.sum(UsageRecord.reports), 0))
        .join(UsageRecord, UsageRecord.api_key_id == ApiKey.id)
        .where(UsageRecord.partner_id == partner_id, UsageRecord.created_at >= start, UsageRecord.created_at < end)
        .group_by(ApiKey.id, ApiKey.last4, ApiKey.name, ApiKey.revoked_at).order_by(ApiKey.id)).all()
    keys = [KeyUsage(key_id=key_id, key=f"crs_…{last4}", name=name, revoked=revoked_at is not None,
                     assessments=count, reports=int(reports), amount=int(reports) * PRICE_PER_REPORT_USD)
            for key_id, last4, name, revoked_at, count, reports in rows]
    reports = sum(k.reports for k in keys)
    return MonthUsage(month=month, assessments=sum(k.assessments for k in keys), reports=reports,
                      amount=reports * PRICE_PER_REPORT_USD, keys=keys, lines=_billed_lines(partner_id, start, end),
                      test_lines=_test_lines(partner_id, start, end))


def monthly_totals(partner_id: int) -> list[MonthUsage]:
    """Every month with usage, newest first; the current month always leads, even when empty."""
    month = _month_of(UsageRecord.created_at)
    rows = db.session.execute(
        select(month, func.count(UsageRecord.id), func.coalesce(func.sum(UsageRecord.reports), 0))
        .where(UsageRecord.partner_id == partner_id).group_by(month)).all()
    totals = {parse_month(label): (count, int(reports)) for label, count, reports in rows}
    totals.setdefault(current_month(), (0, 0))
    return [MonthUsage(month=m, assessments=count, reports=reports, amount=reports * PRICE_PER_REPORT_USD)
            for m, (count, reports) in sorted(totals.items(), reverse=True) if m is not None]


def all_time(partner_id: int) -> dict:
    """The same figures as GET /api/v1/usage, from the same function."""
    return usage_summary(partner_id)


# --------------------------------------------------------------------------- the month as CSV

CSV_HEADER = ("date_utc", "mode", "assessment_id", "client", "company_id", "key_name", "key", "reports",
              "amount_usd")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: partner text starting like a formula gets a leading apostrophe."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def month_csv(usage: MonthUsage) -> str:
    """One header row, then the billed lines and the test lines; the amounts add up to `usage.amount`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for line in usage.lines + usage.test_lines:
        at = line.at.replace(microsecond=0) if line.at else None
        writer.writerow([csv_cell(iso_utc(at)), "live" if line.livemode else "test", line.assessment_id,
                         csv_cell(line.client), csv_cell(line.company_id), csv_cell(line.name), csv_cell(line.key),
                         line.reports, f"{line.amount}.00"])
    return out.getvalue()


def usage_csv() -> Response:
    """GET /portal/usage.csv?month=YYYY-MM: the signed-in partner's month, a line per assessment (the portal's
    before_request has already sent anyone signed out to the sign-in page)."""
    month = selected_month(request.args.get("month"))
    usage = month_usage(current_user().partner.id, month)
    return Response(month_csv(usage), content_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="usage-{month:%Y-%m}.csv"'})
