"""Portal accounts: partner staff who sign in, their passwords, and each partner's tier cap."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, timedelta
from functools import cache

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerifyMismatchError
from sqlalchemy import select
from werkzeug.security import check_password_hash

from ..extensions import db
from ..keys.service import DEFAULT_TIER, TIER_LIMITS
from ..models import Partner, User, utcnow
from . import sessions

TIERS = tuple(TIER_LIMITS)  # cheapest first: the order the cap is measured in
MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024
# No control characters (NUL would even fail the query on Postgres).
_EMAIL = re.compile(r"[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f]+")


class AccountError(ValueError):
    """An account setting given by the operator is invalid."""


def normalize_email(email: str) -> str:
    """Emails are stored and compared lowercased, without surrounding blanks."""
    email = (email or "").strip().lower()
    if len(email) > 254 or not _EMAIL.fullmatch(email):
        raise AccountError(f"not an email address: {email!r}")
    return email


def check_password_rules(password: str) -> None:
    """Long enough to resist guessing; bounded so hashing stays cheap."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"the password needs at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise AccountError(f"the password may have at most {MAX_PASSWORD_LENGTH} characters")


# Argon2id with OWASP's parameters (Password Storage Cheat Sheet: 19 MiB of memory, 2 iterations, one lane).
_HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, type=Type.ID)


def hash_password(password: str) -> str:
    """Argon2id, with a random salt."""
    return _HASHER.hash(password)


def _verify(stored: str, password: str) -> bool:
    """Argon2id, or an older werkzeug hash (scrypt) from before Argon2id, upgraded at the next sign-in."""
    if stored.startswith("$argon2"):
        try:
            return _HASHER.verify(stored, password)
        except (VerifyMismatchError, InvalidHashError):
            return False
    return check_password_hash(stored, password)


def _needs_rehash(stored: str) -> bool:
    return not stored.startswith("$argon2") or _HASHER.check_needs_rehash(stored)


@cache
def _decoy_hash() -> str:
    return hash_password(secrets.token_hex(16))


def find_partner(name: str) -> Partner | None:
    return db.session.scalar(select(Partner).where(Partner.name == name.strip()))


def find_user(email: str) -> User | None:
    try:
        email = normalize_email(email)
    except AccountError:
        return None
    return db.session.scalar(select(User).where(User.email == email))


def create_user(partner_name: str, email: str, password: str) -> tuple[User, bool]:
    """A portal user of the partner (created if new, as `keys create` does); the caller commits.

    Returns the user and whether the partner was created.
    """
    partner_name = partner_name.strip()
    if not partner_name:
        raise AccountError("partner name must not be empty")
    email = normalize_email(email)
    check_password_rules(password)
    if db.session.scalar(select(User.id).where(User.email == email)) is not None:
        raise AccountError(f"a user with email {email} exists already")
    partner = find_partner(partner_name)
    created_partner = partner is None
    if partner is None:
        partner = Partner(name=partner_name, max_tier=DEFAULT_TIER)
        db.session.add(partner)
    user = User(partner=partner, email=email, password_hash=hash_password(password))
    db.session.add(user)
    db.session.flush()
    return user, created_partner


def set_password(user: User, password: str) -> None:
    """Replace the password; the user's open sessions end (their rows go; the fingerprint guards too)."""
    check_password_rules(password)
    user.password_hash = hash_password(password)
    sessions.end_all(user.id)


INVITE_DAYS = 7
OWNER, MEMBER = "owner", "member"
NO_PASSWORD = "!invited"  # noqa: S105 - an invited user's hash until they choose a password: nothing verifies against it


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def team(partner_id: int) -> list[User]:
    """The partner's users: owners first, then by email."""
    return list(db.session.scalars(select(User).where(User.partner_id == partner_id)
                                   .order_by(User.role != OWNER, User.email)))


def invite_user(inviter: User, email: str) -> tuple[User, str]:
    """A member of the inviter's partner, who signs in once they choose a password at the invitation link; returns
    the user and the link's token (shown once; only its hash is kept). Owners only; the caller commits."""
    if inviter.role != OWNER:
        raise AccountError("only an owner of the account can invite someone")
    email = normalize_email(email)
    if db.session.scalar(select(User.id).where(User.email == email)) is not None:
        raise AccountError(f"{email} has an account already")
    token = secrets.token_urlsafe(32)
    user = User(partner_id=inviter.partner_id, email=email, role=MEMBER,
                password_hash=NO_PASSWORD,
                invite_token_hash=_token_hash(token), invite_expires_at=utcnow() + timedelta(days=INVITE_DAYS))
    db.session.add(user)
    db.session.flush()
    return user, token


def invited_user(token: str) -> User | None:
    """The user a pending, unexpired invitation link names; None otherwise."""
    if not token or len(token) > 100:
        return None
    user = db.session.scalar(select(User).where(User.invite_token_hash == _token_hash(token)))
    if user is None or user.disabled_at is not None or user.invite_expires_at is None:
        return None
    expires = user.invite_expires_at
    if expires.tzinfo is None:   # SQLite hands back naive UTC
        expires = expires.replace(tzinfo=UTC)
    return user if expires > utcnow() else None


def accept_invite(user: User, password: str) -> None:
    """The invited user's own password; the link stops working. The caller signs them in and commits."""
    check_password_rules(password)
    user.password_hash = hash_password(password)
    user.invite_token_hash = None
    user.invite_expires_at = None


def password_matches(user: User, password: str) -> bool:
    """Whether this is the user's password (no side effects: no sign-in is recorded)."""
    return bool(password) and len(password) <= MAX_PASSWORD_LENGTH and _verify(user.password_hash, password)


def change_password(user: User, current: str, new: str) -> None:
    """The signed-in user's own change: the current password first; then every session of the user ends (the
    caller signs this browser in again) and the caller commits."""
    if not password_matches(user, current):
        raise AccountError("your current password is not the one you typed")
    if new == current:
        raise AccountError("the new password must differ from the current one")
    set_password(user, new)


def disable_user(user: User) -> None:
    """Refuse sign-in from now on; open sessions end at once, and stay ended if the user is enabled again."""
    if user.disabled_at is None:
        user.disabled_at = utcnow()
    sessions.end_all(user.id)


def enable_user(user: User) -> None:
    user.disabled_at = None


def authenticate(email: str, password: str) -> User | None:
    """The active user with this email and password, or None; the caller commits `last_login_at`.

    An unknown email still costs one hash check, so timing does not tell which emails exist. A password hashed
    the old way (scrypt) or with weaker parameters is hashed again now, with the password just checked.
    """
    user = find_user(email)
    if not password or len(password) > MAX_PASSWORD_LENGTH:
        return None
    valid = _verify(user.password_hash if user else _decoy_hash(), password)
    if not valid or user is None or user.disabled_at is not None:
        return None
    if _needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    user.last_login_at = utcnow()
    return user


def session_fingerprint(user: User) -> str:
    """Changes with the password hash, so a password reset ends the user's other sessions."""
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:24]


def tier_rank(tier: str) -> int:
    return TIERS.index(tier) if tier in TIERS else -1


def tiers_up_to(max_tier: str) -> list[str]:
    """The tiers a partner capped at `max_tier` may choose, cheapest first."""
    return [t for t in TIERS if tier_rank(t) <= tier_rank(max_tier)]


def tier_allowed(partner: Partner, tier: str) -> bool:
    return tier in TIERS and tier_rank(tier) <= tier_rank(partner.max_tier or DEFAULT_TIER)


def set_max_keys(partner_name: str, count: int) -> Partner:
    """How many active keys of each mode (live, test) the partner may hold; the caller commits."""
    if count < 1:
        raise AccountError(f"the key limit must be 1 or more, got {count}")
    partner = _existing_partner(partner_name)
    partner.max_keys = count
    return partner


def set_max_tier(partner_name: str, tier: str) -> Partner:
    """The highest tier the partner may choose in the portal; the caller commits."""
    if tier not in TIERS:
        raise AccountError(f"tier must be one of {', '.join(TIERS)}, got {tier!r}")
    partner = _existing_partner(partner_name)
    partner.max_tier = tier
    return partner


def _existing_partner(name: str) -> Partner:
    partner = find_partner(name)
    if partner is None:
        raise AccountError(f"no partner named {name!r}")
    return partner
