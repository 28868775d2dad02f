"""A partner's own keys, as the portal manages them: the keys service plus the partner's tier cap."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from ..extensions import db
from ..keys.service import (
    TIER_LIMITS,
    IssuedKey,
    KeyInputError,
    issue_api_key,
    revoke_api_key,
    rotate_embed_secret,
    rotate_webhook_secret,
    set_report_settings,
    update_api_key,
)
from ..models import ApiKey, Partner
from ..pagination import MAX_ID
from .accounts import tier_allowed


@dataclass(frozen=True)
class KeyChanges:
    """What the create and edit forms submit; an empty list means 'no restriction'."""

    name: str
    tier: str
    frameworks: list[str]
    webhook_url: str | None
    livemode: bool = True      # only read when creating: a key's mode is fixed
    day_rate: int | None = None          # None: the documented default range
    currency: str | None = None          # None: USD
    show_methodology: bool = False
    require_signed_embeds: bool = False  # signed, expiring embed URLs only (app/embed/signing.py)

    def report_settings(self) -> dict:
        """Keyword arguments for `set_report_settings`: the whole of them, as the form shows them."""
        return {"day_rate": self.day_rate, "currency": self.currency, "show_methodology": self.show_methodology}


def partner_keys(partner_id: int, livemode: bool | None = None) -> list[ApiKey]:
    """Active keys first, newest first; revoked keys after them; of one mode when `livemode` is given."""
    query = select(ApiKey).where(ApiKey.partner_id == partner_id)
    if livemode is not None:
        query = query.where(ApiKey.livemode.is_(livemode))
    return list(db.session.scalars(query.order_by(ApiKey.revoked_at.is_not(None), ApiKey.id.desc())))


def has_keys(partner_id: int) -> bool:
    """Whether the partner has any key at all, revoked ones included."""
    return db.session.scalar(select(ApiKey.id).where(ApiKey.partner_id == partner_id).limit(1)) is not None


def parse_key_id(raw: str) -> int | None:
    """A key id from a URL: ASCII digits within the database's range, else None.

    Werkzeug's `int` converter also takes other scripts' digits ("١" is 1), so one key would have
    many URLs; and an id beyond 2^63 - 1 would overflow the query.
    """
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 19):
        return None
    return int(raw) if 1 <= int(raw) <= MAX_ID else None


def partner_key(partner_id: int, key_id: int) -> ApiKey | None:
    """The partner's key with this id; None for another partner's key or no key at all."""
    if not 1 <= key_id <= MAX_ID:
        return None
    return db.session.scalar(select(ApiKey).where(ApiKey.id == key_id, ApiKey.partner_id == partner_id))


def _check_tier(partner: Partner, tier: str) -> None:
    if not tier_allowed(partner, tier):
        raise KeyInputError(f"your account may choose tiers up to {partner.max_tier}; ask us for more")


def create_key(partner: Partner, changes: KeyChanges) -> IssuedKey:
    """Issue a key for the partner within its tier cap; the plaintext key and secret exist only in the result."""
    _check_tier(partner, changes.tier)
    try:
        issued = issue_api_key(partner.name, tier=changes.tier, frameworks=changes.frameworks,
                               webhook_url=changes.webhook_url, name=changes.name, livemode=changes.livemode,
                               require_signed_embeds=changes.require_signed_embeds)
        set_report_settings(issued.key, **changes.report_settings())
    except KeyInputError:
        db.session.rollback()
        raise
    db.session.commit()
    return issued


def update_key(partner: Partner, key: ApiKey, changes: KeyChanges) -> ApiKey:
    """Change a key's settings; keeping a tier above the cap (set by the operator) is allowed, choosing one is not."""
    if key.revoked_at is not None:
        raise KeyInputError("a revoked key cannot be changed")
    new_tier = changes.tier if changes.tier != key.tier else None
    if new_tier is not None:
        _check_tier(partner, new_tier)
    try:
        update_api_key(key, tier=new_tier, name=changes.name, frameworks=changes.frameworks,
                       webhook_url=changes.webhook_url, require_signed_embeds=changes.require_signed_embeds)
        set_report_settings(key, **changes.report_settings())
    except KeyInputError:
        db.session.rollback()
        raise
    db.session.commit()
    return key


def revoke_key(key: ApiKey) -> None:
    """The API refuses the key from now on."""
    revoke_api_key(key)
    db.session.commit()


def rotate_secret(key: ApiKey) -> str:
    """A new webhook secret, returned in plaintext this once."""
    if key.revoked_at is not None:
        raise KeyInputError("a revoked key has no webhook secret to rotate")
    secret = rotate_webhook_secret(key)
    db.session.commit()
    return secret


def rotate_embed(key: ApiKey) -> str:
    """A new embed secret, returned in plaintext this once; URLs signed with the old one stop working."""
    if key.revoked_at is not None:
        raise KeyInputError("a revoked key has no embed secret to rotate")
    secret = rotate_embed_secret(key)
    db.session.commit()
    return secret


def tier_choices(partner: Partner, current: str | None = None) -> list[tuple[str, str]]:
    """(tier, label) options up to the partner's cap, plus the key's current tier when it is above it."""
    return [(tier, f"{tier.capitalize()} · {limit} per hour") for tier, limit in TIER_LIMITS.items()
            if tier_allowed(partner, tier) or tier == current]
