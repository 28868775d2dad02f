"""One assessment as its partner sees it in the portal: what was submitted, by which key, its 25 reports with their
page and PDF links, its webhook deliveries and what it was billed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from cryptography.fernet import InvalidToken
from sqlalchemy import select

from ..catalog import METHODOLOGY_BY_ID, PERSONA_BY_ID, PRICE_PER_REPORT_USD
from ..embed import signing
from ..embed.urls import embed_url, public_base_url, view_url
from ..extensions import db
from ..keys.crypto import decrypt_secret
from ..models import ApiKey, Assessment, Report, UsageRecord, WebhookDelivery
from ..pagination import MAX_ID

SIGNED_LINK_SECONDS = 3600   # links to a signed-embeds key's pages, signed for the partner who opens them here


@dataclass(frozen=True)
class ReportLine:
    persona: str          # the reader, as the catalogue names them ("Chief Financial Officer")
    status: str
    generated_at: datetime | None
    views: int
    page_url: str | None  # None until the report has content
    pdf_url: str | None


@dataclass(frozen=True)
class Charge:
    reports: int          # the most reports any single run delivered: what is billed
    amount: int           # USD
    billed_at: datetime


@dataclass(frozen=True)
class AssessmentDetail:
    assessment: Assessment
    key: ApiKey
    methodology: str | None
    viewer_url: str | None
    viewer_pdf_url: str | None
    reports: list[ReportLine]
    deliveries: list[WebhookDelivery]
    charge: Charge | None       # None: not billed (a test assessment, or no run delivered a report yet)

    @property
    def views(self) -> int:
        return sum(line.views for line in self.reports)


def parse_assessment_id(raw: str) -> int | None:
    """An assessment id from a URL: ASCII digits within the database's range, else None."""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 19):
        return None
    return int(raw) if 1 <= int(raw) <= MAX_ID else None


class _Links:
    """The URLs of an assessment's pages; signed for an hour when its key answers only signed URLs (the partner
    opening them here is who the key's embed secret stands for)."""

    def __init__(self, key: ApiKey):
        self.secret = None
        if key.require_signed_embeds and key.embed_secret_encrypted:
            try:
                self.secret = decrypt_secret(key.embed_secret_encrypted)
            except InvalidToken:   # a SECRET_KEY rotated without `keys reencrypt-secrets`: the links say why
                self.secret = None
        self.expires = int(time.time()) + SIGNED_LINK_SECONDS

    def __call__(self, url: str, token: str) -> str:
        if self.secret is None:
            return url
        return f"{url}?expires={self.expires}&signature={signing.sign(self.secret, token, self.expires)}"


def assessment_detail(partner_id: int, assessment_id: int) -> AssessmentDetail | None:
    """The partner's assessment with this id; None for another partner's or none at all."""
    assessment = db.session.scalar(select(Assessment).where(Assessment.id == assessment_id,
                                                            Assessment.partner_id == partner_id))
    if assessment is None:
        return None
    key = assessment.api_key
    link = _Links(key)
    base = public_base_url()
    reports = []
    for report in db.session.scalars(select(Report).where(Report.assessment_id == assessment.id)
                                     .order_by(Report.position)):
        persona = PERSONA_BY_ID.get(report.persona)
        shown = report.generated_at is not None
        reports.append(ReportLine(
            persona=persona.label if persona else report.persona, status=report.status,
            generated_at=report.generated_at, views=report.view_count,
            page_url=link(base + view_url(report.view_token), report.view_token) if shown else None,
            pdf_url=link(f"{base}/embed/report/{report.view_token}.pdf", report.view_token) if shown else None))
    generated = any(line.page_url for line in reports)
    record = db.session.scalar(select(UsageRecord).where(UsageRecord.partner_id == partner_id,
                                                         UsageRecord.assessment_id == assessment.id))
    charge = (Charge(reports=record.reports, amount=record.reports * PRICE_PER_REPORT_USD, billed_at=record.created_at)
              if record is not None and assessment.livemode else None)
    deliveries = list(db.session.scalars(
        select(WebhookDelivery).where(WebhookDelivery.partner_id == partner_id,
                                      WebhookDelivery.assessment_id == assessment.id)
        .order_by(WebhookDelivery.pk.desc())))
    methodology = METHODOLOGY_BY_ID.get(assessment.methodology or "")
    token = assessment.embed_token
    return AssessmentDetail(
        assessment=assessment, key=key, methodology=methodology.label if methodology else None,
        viewer_url=link(embed_url(token), token) if generated else None,
        viewer_pdf_url=link(f"{base}/embed/assessment/{token}.pdf", token) if generated else None,
        reports=reports, deliveries=deliveries, charge=charge)
