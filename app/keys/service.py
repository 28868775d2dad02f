"""Issuing, updating and revoking partner keys; the only place keys are hashed."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import func, select

from ..extensions import db
from ..models import ApiKey, Partner, iso_utc, utcnow
from .brand import logo_digest, normalize_color, normalize_name, validate_logo
from .crypto import encrypt_secret

KEY_PREFIX = "crs_"
SECRET_PREFIX = "whsec_"  # noqa: S105 - a prefix, not a secret
EMBED_SECRET_PREFIX = "embsec_"  # noqa: S105 - a prefix, not a secret
KEY_PATTERN = re.compile(r"^crs_[0-9a-f]{64}$")
TIER_LIMITS = {"trial": 10, "starter": 50, "standard": 100, "professional": 500, "enterprise": 1000}
DEFAULT_TIER = "standard"
# What a key's reports price effort at: whole units of the currency per person-day.
MIN_DAY_RATE, MAX_DAY_RATE = 1, 1_000_000
DEFAULT_CURRENCY = "USD"   # of a day rate set without a currency
MAX_EMBED_ORIGINS = 50   # sites that may frame a partner's embed pages (a CSP header carries them all)
CURRENCIES = ("USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "JPY", "SGD", "INR", "ZAR")


class KeyInputError(ValueError):
    """A key setting given by an operator or partner is invalid."""


class KeyLimitError(KeyInputError):
    """The partner holds as many active keys of this mode as it may."""


def key_limit(partner: Partner) -> int:
    """Active keys of each mode the partner may hold: its own limit, else the operator's PARTNER_MAX_KEYS."""
    return partner.max_keys or current_app.config["PARTNER_MAX_KEYS"]


def _check_key_limit(partner: Partner, livemode: bool) -> None:
    """Each key has its own hourly budget, so a partner's keys are capped: keys would otherwise multiply it."""
    if partner.id is None:
        return
    active = db.session.scalar(select(func.count(ApiKey.id)).where(
        ApiKey.partner_id == partner.id, ApiKey.livemode.is_(livemode), ApiKey.revoked_at.is_(None)))
    limit = key_limit(partner)
    if active >= limit:
        mode = "live" if livemode else "test"
        raise KeyLimitError(f"{partner.name} already has {active} active {mode} keys, the most it may hold: each key "
                            f"has its own hourly request budget, so more keys would multiply it. Revoke a {mode} key "
                            f"that is no longer used, or ask for a higher limit.")


@dataclass(frozen=True)
class IssuedKey:
    """A new key with its plaintext credentials, which exist only in this object."""

    key: ApiKey
    api_key: str
    webhook_secret: str
    embed_secret: str


def hash_api_key(api_key: str) -> str:
    """SHA-256 hex digest: the only form in which a key is stored."""
    return hashlib.sha256(api_key.encode()).hexdigest()


def new_webhook_secret() -> str:
    return SECRET_PREFIX + secrets.token_hex(32)


def new_embed_secret() -> str:
    """The secret a partner's server signs embed URLs with (the whole string, prefix included, is the HMAC key)."""
    return EMBED_SECRET_PREFIX + secrets.token_hex(32)


def normalize_framework(name: str) -> str:
    """Framework comparison ignores case and whitespace: 'ISO 27001' == 'iso27001'."""
    return "".join(name.split()).lower()


def normalize_origin(origin: str) -> str:
    """An embed origin is `scheme://host[:port]` (or `*` for any)."""
    origin = origin.strip().rstrip("/")
    if origin == "*" or re.fullmatch(r"https?://[A-Za-z0-9.\-*]+(:\d{1,5})?", origin):
        return origin.lower()
    raise KeyInputError(f"embed origin must look like https://example.com, got {origin!r}")


def _validate_webhook_url(url: str | None, livemode: bool = True) -> str | None:
    """The URL as stored, checked for form and safety. A live key's must be https (as Stripe's live webhooks): its
    events name clients and carry the embed tokens. Test keys may use http, and so may a deployment that allows
    private networks (tests, a private install)."""
    if url is None or url.strip() == "":
        return None
    from ..webhooks.urls import WebhookHostUnresolved, WebhookUrlError, validate_webhook_url

    url = url.strip()
    if (livemode and url.lower().startswith("http://")
            and not current_app.config.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS")):
        raise KeyInputError("a live key's webhook URL must start with https:// (a test key may use http://)")
    try:
        return validate_webhook_url(url)
    except WebhookHostUnresolved:   # saved all the same: a partner sets the receiver up after the key (see
        return url                  # webhooks.urls.unresolved_warning); every attempt resolves and checks it again
    except WebhookUrlError as exc:
        raise KeyInputError(str(exc)) from None


def _limit_for(tier: str, rate_limit: int | None) -> int:
    if tier not in TIER_LIMITS:
        raise KeyInputError(f"tier must be one of {', '.join(TIER_LIMITS)}, got {tier!r}")
    if rate_limit is None:
        return TIER_LIMITS[tier]
    if rate_limit < 1:
        raise KeyInputError("rate limit must be at least 1 request per hour")
    return rate_limit


def issue_api_key(partner_name: str, *, tier: str = DEFAULT_TIER, rate_limit: int | None = None,
                  frameworks: list[str] | None = None, webhook_url: str | None = None, name: str | None = None,
                  livemode: bool = True, require_signed_embeds: bool = False) -> IssuedKey:
    """Create a key (and its partner when new); the caller commits. `livemode=False` makes a test key:
    the same format, but what it creates is never billed and is seen only by the partner's test keys.
    A key's mode is fixed for its life. The brand and embed origins are the partner's (`set_brand`,
    `set_embed_origins`): a new key shows its clients what the partner's other keys do."""
    partner_name = partner_name.strip()
    if not partner_name:
        raise KeyInputError("partner name must not be empty")
    limit = _limit_for(tier, rate_limit)
    clean_frameworks = [f.strip() for f in frameworks or [] if f.strip()]
    url = _validate_webhook_url(webhook_url, livemode)
    partner = db.session.scalar(select(Partner).where(Partner.name == partner_name))
    if partner is None:
        partner = Partner(name=partner_name)
        db.session.add(partner)
    _check_key_limit(partner, livemode)
    api_key = KEY_PREFIX + secrets.token_hex(32)
    webhook_secret = new_webhook_secret()
    embed_secret = new_embed_secret()
    key = ApiKey(partner=partner, name=name, key_hash=hash_api_key(api_key), last4=api_key[-4:], tier=tier,
                 rate_limit=limit, frameworks=clean_frameworks, webhook_url=url,
                 webhook_secret_encrypted=encrypt_secret(webhook_secret),
                 livemode=livemode, embed_secret_encrypted=encrypt_secret(embed_secret),
                 require_signed_embeds=bool(require_signed_embeds))
    db.session.add(key)
    db.session.flush()
    return IssuedKey(key=key, api_key=api_key, webhook_secret=webhook_secret, embed_secret=embed_secret)


_UNSET = object()


def update_api_key(key: ApiKey, *, tier: str | None = None, rate_limit: int | None | object = _UNSET,
                   frameworks: list[str] | None = None, webhook_url: str | None | object = _UNSET,
                   name: str | None = None,
                   require_signed_embeds: bool | None = None) -> ApiKey:
    """Change a key's settings; `None` means unchanged, an empty list clears, a new tier resets the limit."""
    if require_signed_embeds and key.embed_secret_encrypted is None:   # checked first: nothing is changed
        raise KeyInputError("this key has no embed secret yet: rotate its embed secret to get one, then require"
                            " signed embed links")
    if tier is not None or rate_limit is not _UNSET:
        new_tier = tier or key.tier
        key.rate_limit = _limit_for(new_tier, None if rate_limit is _UNSET else rate_limit)
        key.tier = new_tier
    if frameworks is not None:
        key.frameworks = [f.strip() for f in frameworks if f.strip()]
    if webhook_url is not _UNSET:
        key.webhook_url = _validate_webhook_url(webhook_url, key.livemode)
    if name is not None:
        key.name = name.strip() or None
    if require_signed_embeds is not None:
        key.require_signed_embeds = bool(require_signed_embeds)
    return key


def set_brand(partner: Partner, *, name: str | None | object = _UNSET, color: str | None | object = _UNSET,
              logo: bytes | None | object = _UNSET, white_label: bool | None = None) -> Partner:
    """Change the brand every key of the partner shows; an argument left out is unchanged, `None` or "" clears it.

    Everything is checked before anything is set, so a `BrandError` leaves the partner as it was.
    """
    changes: dict = {}
    if name is not _UNSET:
        changes["brand_name"] = normalize_name(name)
    if color is not _UNSET:
        changes["brand_color"] = normalize_color(color) if color and color.strip() else None
    if logo is not _UNSET:
        if logo is None:
            changes.update(brand_logo=None, brand_logo_type=None, brand_logo_digest=None)
        else:
            data, mime = validate_logo(logo)
            changes.update(brand_logo=data, brand_logo_type=mime, brand_logo_digest=logo_digest(data))
    if white_label is not None:
        changes["white_label"] = bool(white_label)
    for attribute, value in changes.items():
        setattr(partner, attribute, value)
    return partner


def set_embed_origins(partner: Partner, origins: list[str]) -> Partner:
    """The sites that may frame the embed pages of every key of the partner; an empty list: any site.
    Each is checked before any is set, so a `KeyInputError` leaves the partner as it was."""
    checked = []
    for origin in origins:
        normalized = normalize_origin(origin)
        if normalized not in checked:
            checked.append(normalized)
    if len(checked) > MAX_EMBED_ORIGINS:
        raise KeyInputError(f"at most {MAX_EMBED_ORIGINS} embed origins")
    partner.embed_origins = checked
    return partner


def normalize_day_rate(value) -> int | None:
    """A day rate as stored: a whole number from 1 to 1,000,000, or None (None, "" or blanks clear it).

    Takes an int or the text an operator or partner typed ("1200", " 950 "); never a bool or a float.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        text = value.strip()
        value = int(text) if text.isascii() and text.isdigit() and len(text) <= 7 else None
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_DAY_RATE <= value <= MAX_DAY_RATE:
        raise KeyInputError(f"day rate must be a whole number from {MIN_DAY_RATE} to {MAX_DAY_RATE:,}"
                            " (units of the currency per person-day), or empty to use the default range")
    return value


def normalize_currency(value: str | None) -> str | None:
    """An ISO 4217 code from CURRENCIES, upper-cased ("eur" -> "EUR"), or None (None or "" clear it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    code = value.strip().upper() if isinstance(value, str) else None
    if code not in CURRENCIES:
        raise KeyInputError(f"currency must be one of {', '.join(CURRENCIES)}")
    return code


def set_report_settings(key: ApiKey, *, day_rate: int | str | None | object = _UNSET,
                        currency: str | None | object = _UNSET, show_methodology: bool | None = None) -> ApiKey:
    """Change what a key's reports price effort at and whether its clients' pages name the methodology.

    An argument left out is unchanged; `None` or "" clears the day rate or the currency. Everything is
    checked before anything is set, so a `KeyInputError` leaves the key as it was. A day rate without a
    currency (given or already stored) is in USD, and stored so.
    """
    changes: dict = {}
    if day_rate is not _UNSET:
        changes["day_rate"] = normalize_day_rate(day_rate)
    if currency is not _UNSET:
        changes["currency"] = normalize_currency(currency)
    if show_methodology is not None:
        changes["show_methodology"] = bool(show_methodology)
    rate = changes.get("day_rate", key.day_rate)
    if rate is not None and changes.get("currency", key.currency) is None:
        changes["currency"] = DEFAULT_CURRENCY
    for attribute, value in changes.items():
        setattr(key, attribute, value)
    return key


def report_settings(key: ApiKey) -> dict:
    """The three report settings as the CLI, the portal and `GET /api/v1/key` show them."""
    return {"dayRate": key.day_rate, "currency": key.currency, "showMethodology": bool(key.show_methodology)}


def brand_settings(partner: Partner) -> dict:
    """The brand as the CLI shows it; `logo` says whether there is one (the bytes are never loaded here)."""
    return {"name": partner.brand_name, "color": partner.brand_color, "logo": partner.brand_logo_digest is not None,
            "whiteLabel": bool(partner.white_label)}


def partner_settings(partner: Partner) -> dict:
    """What every key of the partner shows its clients, as the CLI shows it."""
    return {"id": partner.id, "partner": partner.name, "brand": brand_settings(partner),
            "embedOrigins": list(partner.embed_origins or [])}


def revoke_api_key(key: ApiKey) -> None:
    """Refuse the key from now on; it stays listed with its revocation time."""
    if key.revoked_at is None:
        key.revoked_at = utcnow()


def rotate_webhook_secret(key: ApiKey) -> str:
    """Issue a new webhook secret and return its plaintext (shown once).

    X-Service-Signature uses the new secret at once; for 24 h the Standard Webhooks header also
    carries a signature by the previous one, so receivers can switch over without losing events.
    """
    secret = new_webhook_secret()
    key.previous_webhook_secret_encrypted = key.webhook_secret_encrypted
    key.webhook_secret_rotated_at = utcnow()
    key.webhook_secret_encrypted = encrypt_secret(secret)
    return secret


def rotate_embed_secret(key: ApiKey) -> str:
    """Issue a new embed secret and return its plaintext (shown once). URLs signed with the old one are refused
    at once: rotating is what a partner does when the secret may have leaked."""
    secret = new_embed_secret()
    key.embed_secret_encrypted = encrypt_secret(secret)
    return secret


def key_settings(key: ApiKey) -> dict:
    """A key's settings as shown by the CLI and the portal (never the key or its secret)."""
    return {
        "id": key.id, "partner": key.partner.name, "name": key.name, "key": key.masked, "tier": key.tier,
        "rateLimit": key.rate_limit, "frameworks": list(key.frameworks or []), "webhookUrl": key.webhook_url,
        "createdAt": iso_utc(key.created_at), "lastUsedAt": iso_utc(key.last_used_at),
        "revokedAt": iso_utc(key.revoked_at), "livemode": bool(key.livemode),
        **report_settings(key), "requireSignedEmbeds": bool(key.require_signed_embeds),
    }
