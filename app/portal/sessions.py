"""Server-side portal sessions: a row per sign-in, found by the hash of the token the cookie carries.

The signed cookie alone cannot be taken back: a copy made before sign-out would keep working until
it expires. With a row per session, signing out deletes the row and every copy stops at once.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, select, update

from ..extensions import db
from ..models import PortalSession, User, utcnow

TOKEN_BYTES = 32  # 256 bits from the OS's CSPRNG
# How stale `last_seen_at` may get before a request renews it: one write a minute per session at
# most, and the server-side idle expiry is exact to within that.
TOUCH_RESOLUTION = timedelta(minutes=1)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _idle_limit() -> timedelta:
    return current_app.permanent_session_lifetime


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive UTC datetimes; Postgres aware ones."""
    return value if value.tzinfo is not None else value.replace(tzinfo=utcnow().tzinfo)


def start(user: User) -> str:
    """Record a new session for the user and return its token (for the cookie); the caller commits.

    Rows idle for longer than the session lifetime are pruned here, so the table holds live sessions only.
    """
    now = utcnow()
    db.session.execute(delete(PortalSession).where(PortalSession.last_seen_at < now - _idle_limit()))
    token = secrets.token_urlsafe(TOKEN_BYTES)
    db.session.add(PortalSession(token_hash=_digest(token), user_id=user.id, created_at=now, last_seen_at=now))
    return token


def user_of(token: str) -> User | None:
    """The user of a live session (one indexed query), renewing its last use; None for an ended or idle one."""
    row = db.session.execute(
        select(User, PortalSession.id, PortalSession.last_seen_at)
        .join(PortalSession, PortalSession.user_id == User.id)
        .where(PortalSession.token_hash == _digest(token))).first()
    if row is None:
        return None
    user, session_id, last_seen = row
    now = utcnow()
    idle = now - _aware(last_seen)
    if idle > _idle_limit():
        end(token)
        db.session.commit()
        return None
    if idle > TOUCH_RESOLUTION:
        db.session.execute(update(PortalSession).where(PortalSession.id == session_id).values(last_seen_at=now))
        db.session.commit()
    return user


def end(token: str) -> None:
    """End one session, wherever its cookie was copied to; the caller commits."""
    db.session.execute(delete(PortalSession).where(PortalSession.token_hash == _digest(token)))


def end_all(user_id: int) -> None:
    """End every session of a user (disabled, or given a new password); the caller commits."""
    db.session.execute(delete(PortalSession).where(PortalSession.user_id == user_id))
