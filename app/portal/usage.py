"""Monthly usage for the portal: what was billed, month by month and key by key, at the spec's prices.

A usage record is billed in the month (UTC) it was created, i.e. the month of the assessment's first
delivered run; regeneration never bills again (see generation.billing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy import func, select

from ..catalog import PRICE_PER_REPORT_USD
from ..extensions import db
from ..generation.billing import usage_summary
from ..models import ApiKey, UsageRecord, utcnow

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
class MonthUsage:
    month: date
    assessments: int
    reports: int
    amount: int
    keys: list[KeyUsage] = field(default_factory=list)

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


def month_usage(partner_id: int, month: date) -> MonthUsage:
    """One month's totals and the per-key lines behind them."""
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
                      amount=reports * PRICE_PER_REPORT_USD, keys=keys)


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
