"""Typed SQLAlchemy models. No commits here: services own their transactions."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db

# BigInteger primary keys are plain INTEGER on SQLite (so they stay rowid aliases).
BigId = BigInteger().with_variant(Integer(), "sqlite")
# Ids are never handed out twice: without AUTOINCREMENT, SQLite gives the next row the id of the
# newest row deleted, so an erased assessment's id (and its billing) would pass to another one.
# Postgres sequences never go back.
NEVER_REUSED = {"sqlite_autoincrement": True}


def utcnow() -> datetime:
    """Aware UTC now; every stored time is UTC."""
    return datetime.now(UTC)


def iso_utc(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a `Z`; SQLite hands back naive values, which are UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


class Partner(db.Model):
    __tablename__ = "partners"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The highest tier the partner's staff may choose in the portal; set by the operator.
    max_tier: Mapped[str] = mapped_column(String(20), default="standard", server_default="standard")
    # Active keys of each mode the partner may hold (each key has its own hourly budget, so keys would multiply
    # it); None: the operator's PARTNER_MAX_KEYS. Set with `flask partners set-max-keys`.
    max_keys: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # What every key of the partner shows its clients (one setting for all keys: a new key never serves unbranded
    # pages). The sites that may frame the embed pages: empty, any site may.
    embed_origins: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    # The brand on the pages and PDFs its clients see (checked by app/keys/brand.py).
    brand_name: Mapped[str | None] = mapped_column(String(100))            # "Prepared by <name>"
    brand_color: Mapped[str | None] = mapped_column(String(7))             # accent, lowercase #rrggbb
    # Deferred: reading a partner (the keys page, an embed page) never loads up to 64 KB of image.
    brand_logo: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    brand_logo_type: Mapped[str | None] = mapped_column(String(40))        # image/png or image/svg+xml
    brand_logo_digest: Mapped[str | None] = mapped_column(String(64), index=True)  # sha256: /embed/logo/<digest>
    white_label: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # no mention of us

    keys: Mapped[list[ApiKey]] = relationship(back_populates="partner")


class ApiKey(db.Model):
    __tablename__ = "api_keys"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"), index=True)
    name: Mapped[str | None] = mapped_column(String(200))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    last4: Mapped[str] = mapped_column(String(4))
    tier: Mapped[str] = mapped_column(String(20), default="standard")
    rate_limit: Mapped[int] = mapped_column(Integer, default=100)
    # Empty list: every framework is allowed.
    frameworks: Mapped[list[str]] = mapped_column(JSON, default=list)
    webhook_url: Mapped[str | None] = mapped_column(String(2048))
    webhook_secret_encrypted: Mapped[str] = mapped_column(Text)
    # The secret before the last rotation, still signing Standard Webhooks headers during the grace period.
    previous_webhook_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    webhook_secret_rotated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # False for a test key: its assessments are never billed and live apart from live data (Stripe's test mode).
    livemode: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # What the reports price effort at (app/keys/service.py checks them; generation's `load_facts` reads
    # them): whole units of `currency` per person-day, or None for the documented default range.
    day_rate: Mapped[int | None] = mapped_column(Integer)
    currency: Mapped[str | None] = mapped_column(String(3))               # ISO 4217, upper-case; None: USD
    # Whether the client-facing pages and PDFs name the sales methodology; off, the client never sees it.
    show_methodology: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Signed embeds (app/embed/signing.py): the secret a partner's server signs embed URLs with, encrypted like
    # the webhook secret (None for keys made before, until it is rotated), and whether the key's embed pages
    # and PDFs answer only signed, unexpired URLs (off: the tokens alone are the credential).
    embed_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    require_signed_embeds: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    partner: Mapped[Partner] = relationship(back_populates="keys")

    @property
    def masked(self) -> str:
        """The form a key may be shown in anywhere after creation."""
        return f"crs_…{self.last4}"


class Assessment(db.Model):
    __tablename__ = "assessments"
    # The client's earlier assessments are looked up by partner, mode and companyId, newest first (app/progress.py).
    __table_args__ = (Index("ix_assessments_client", "partner_id", "livemode", "external_company_id", "id"),
                      NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"), index=True)
    api_key_id: Mapped[int] = mapped_column(ForeignKey("api_keys.id"), index=True)
    external_company_id: Mapped[str] = mapped_column(String(128))
    industry: Mapped[str] = mapped_column(String(200))
    framework: Mapped[str] = mapped_column(String(200))
    has_policy: Mapped[bool] = mapped_column(Boolean)
    display_name: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="submitted")
    methodology: Mapped[str | None] = mapped_column(String(40))
    compliance_score: Mapped[float] = mapped_column(Float)
    count_met: Mapped[int] = mapped_column(Integer)
    count_not_met: Mapped[int] = mapped_column(Integer)
    count_partially_met: Mapped[int] = mapped_column(Integer)
    embed_token: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    generated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    generation_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    llm_usage: Mapped[dict | None] = mapped_column(JSON)   # tokens of the last run, openai engine only
    # The creating key's mode: a test assessment is seen only by test keys, a live one only by live keys.
    livemode: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # Reports written so far by the running run (or by the last one): the progress an async caller polls.
    reports_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The run in progress (status `generating`): its id, which only its owner's writes carry; the owner's
    # heartbeat, a few seconds apart while it runs (a run whose heartbeat stops is taken over, see
    # app/generation/recovery.py); what it was asked (methodology, key) so another process can finish it;
    # and how many times it was taken over.
    run_token: Mapped[str | None] = mapped_column(String(32))
    run_heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    run_methodology: Mapped[str | None] = mapped_column(String(40))
    run_key_id: Mapped[int | None] = mapped_column(BigInteger)
    run_recoveries: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    run_base_url: Mapped[str | None] = mapped_column(String(2048))   # of the request that started it: its links
    # Progress (app/progress.py): the client's earlier assessment this one is compared with (same partner and mode;
    # null when none, when the submission turned linking off, or once that one is erased) and what changed since,
    # computed when the link is made and kept: erasing the earlier one leaves the counts as they were written.
    previous_assessment_id: Mapped[int | None] = mapped_column(
        ForeignKey("assessments.id", ondelete="SET NULL"), index=True)
    change: Mapped[dict | None] = mapped_column(JSON)

    api_key: Mapped[ApiKey] = relationship()
    partner: Mapped[Partner] = relationship()
    requirements: Mapped[list[Requirement]] = relationship(
        back_populates="assessment", order_by="Requirement.position",
        cascade="all, delete-orphan", passive_deletes=True,
    )
    reports: Mapped[list[Report]] = relationship(
        back_populates="assessment", order_by="Report.position",
        cascade="all, delete-orphan", passive_deletes=True,
    )

    @property
    def total_requirements(self) -> int:
        return self.count_met + self.count_not_met + self.count_partially_met

    @property
    def requirement_counts(self) -> dict[str, int]:
        return {"met": self.count_met, "not_met": self.count_not_met,
                "partially_met": self.count_partially_met, "total": self.total_requirements}


class Requirement(db.Model):
    __tablename__ = "requirements"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    assessment_id: Mapped[int] = mapped_column(ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    ref: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20))

    assessment: Mapped[Assessment] = relationship(back_populates="requirements")


class Report(db.Model):
    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("assessment_id", "persona"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    assessment_id: Mapped[int] = mapped_column(ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    persona: Mapped[str] = mapped_column(String(40))
    view_token: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    content: Mapped[dict | None] = mapped_column(JSON)
    methodology: Mapped[str | None] = mapped_column(String(40))
    engine: Mapped[str | None] = mapped_column(String(20))
    error: Mapped[str | None] = mapped_column(Text)
    fallback_reason: Mapped[str | None] = mapped_column(Text)   # why the template engine wrote it instead
    generated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    view_count: Mapped[int] = mapped_column(Integer, default=0)

    assessment: Mapped[Assessment] = relationship(back_populates="reports")


class UsageRecord(db.Model):
    """What one assessment is billed: the most reports any one of its runs delivered.

    No foreign key to the assessment: billing history outlives an erased assessment. Keyed by
    partner and assessment, so no row can ever be found from another partner's assessment.
    """

    __tablename__ = "usage_records"
    __table_args__ = (UniqueConstraint("partner_id", "assessment_id", name="uq_usage_records_partner_assessment"),
                      NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    assessment_id: Mapped[int] = mapped_column(BigInteger)
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"), index=True)
    api_key_id: Mapped[int] = mapped_column(ForeignKey("api_keys.id"), index=True)
    reports: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class WebhookDelivery(db.Model):
    """The outbox: one row per event delivery, written in the transaction that produced the event."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_due", "status", "next_attempt_at"), NEVER_REUSED)

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(String(40), unique=True)  # X-Service-Delivery, the same on every attempt
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"), index=True)
    api_key_id: Mapped[int] = mapped_column(ForeignKey("api_keys.id"))
    assessment_id: Mapped[int] = mapped_column(BigInteger, index=True)
    event: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(String(2048))
    body: Mapped[bytes] = mapped_column(LargeBinary)  # the exact bytes that are signed and sent
    event_at: Mapped[str] = mapped_column(String(40))  # X-Service-Timestamp, ISO 8601
    status: Mapped[str] = mapped_column(String(20), default="pending")
    round_attempts: Mapped[int] = mapped_column(Integer, default=0)  # attempts in the current round
    # Rescue rounds run after the first round failed (WEBHOOK_RESCUE_SECONDS); a redelivery starts at 0 again.
    rescue_rounds: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempts: Mapped[list[dict]] = mapped_column(JSON, default=list)  # every attempt ever made
    next_attempt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class RequestLog(db.Model):
    """One API request of a key, for the partner's request log (app/requests_log.py): never a body, kept 7 days and
    at most REQUEST_LOG_MAX_PER_KEY rows a key, and erased with the assessment it names."""

    __tablename__ = "request_log"
    __table_args__ = (Index("ix_request_log_key", "api_key_id", "id"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    api_key_id: Mapped[int] = mapped_column(ForeignKey("api_keys.id"))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(String(300))
    status: Mapped[int] = mapped_column(Integer)
    error_code: Mapped[str | None] = mapped_column(String(64))
    duration_ms: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    assessment_id: Mapped[int | None] = mapped_column(BigInteger, index=True)


class User(db.Model):
    """A partner's staff member who signs in to the portal."""

    __tablename__ = "users"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"), index=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)  # stored lowercased
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # "owner" (made by the operator; may invite) or "member" (invited by an owner of the same partner).
    role: Mapped[str] = mapped_column(String(10), default="owner", server_default="owner")
    # A pending invitation: the SHA-256 of the link's token and when it lapses; None once accepted.
    invite_token_hash: Mapped[str | None] = mapped_column(String(64), index=True, unique=True)
    invite_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Two-factor sign-in (app/portal/twofactor.py): the TOTP secret, encrypted like webhook secrets, and the
    # SHA-256 of each unused recovery code; None while it is off.
    totp_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    recovery_code_hashes: Mapped[list[str] | None] = mapped_column(JSON)

    partner: Mapped[Partner] = relationship()


class PortalSession(db.Model):
    """A signed-in portal session. The cookie carries a random token; only its SHA-256 is stored, so a
    read of this table gives no usable session. Deleting the row ends the session at once, also for
    any copy of the cookie (sign-out, a disabled account, a new password)."""

    __tablename__ = "portal_sessions"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Renewed at most once a minute by the requests that use the session; expired rows are pruned by it.
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class IdempotencyKey(db.Model):
    """A POST's `Idempotency-Key` and its first answer, kept 24 hours so a retry gets the same answer.

    Scoped to the partner and the mode of the key that sent it. Only a hash of the request is kept,
    never its body; the stored answer goes with the assessment it names (ON DELETE CASCADE).
    """

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("partner_id", "livemode", "key"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    partner_id: Mapped[int] = mapped_column(ForeignKey("partners.id"))
    livemode: Mapped[bool] = mapped_column(Boolean)
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))     # SHA-256 of method, path and canonical body
    state: Mapped[str] = mapped_column(String(10))            # running, done
    locked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_headers: Mapped[dict | None] = mapped_column(JSON)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary)
    assessment_id: Mapped[int | None] = mapped_column(ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class EmbedPdf(db.Model):
    """A rendered PDF of the embed pages: one per report (`scope` = persona) and one of all reports
    (`scope` = "all"). `fingerprint` names what it was printed from (the run, the brand, the layout);
    a request whose fingerprint differs prints it again, so a new run never serves the last one's PDF."""

    __tablename__ = "embed_pdfs"
    __table_args__ = (UniqueConstraint("assessment_id", "scope"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    assessment_id: Mapped[int] = mapped_column(ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    scope: Mapped[str] = mapped_column(String(40))
    fingerprint: Mapped[str] = mapped_column(String(64))
    pdf: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EmbedPage(db.Model):
    """An embed page as last rendered, so a view of an unchanged page costs one query and no rendering.

    One row per page: `kind` is "assessment" (with `persona` the ?persona= asked for, "" for none),
    "fragment" or "report" (with the report's persona). `fingerprint` names everything the bytes were
    rendered from (the token, the assessment's and brand's columns, the release's code and templates);
    a request whose fingerprint differs renders the page again and replaces the row. Not a cache of
    the token check: the token is looked up in the same query, on every request.
    """

    __tablename__ = "embed_pages"
    __table_args__ = (UniqueConstraint("assessment_id", "kind", "persona"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    assessment_id: Mapped[int] = mapped_column(ForeignKey("assessments.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(12))
    persona: Mapped[str] = mapped_column(String(40))
    fingerprint: Mapped[str] = mapped_column(String(64))
    report_id: Mapped[int] = mapped_column(BigInteger)   # the report shown: its view is counted
    html: Mapped[bytes] = mapped_column(LargeBinary)     # UTF-8, sent as it is
    style_hashes: Mapped[str] = mapped_column(Text)      # CSP sources of the page's own <style> blocks
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
