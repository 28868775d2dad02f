"""Bearer-key authentication for the API blueprint."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta

from flask import g, request
from sqlalchemy import bindparam, select, update

from ..errors import ApiError
from ..extensions import db
from ..models import ApiKey, utcnow
from .service import KEY_PATTERN, hash_api_key, normalize_framework

LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class AuthenticatedKey:
    """What a request needs to know about its key; plain data, safe to hand to threads."""

    id: int
    partner_id: int
    rate_limit: int
    frameworks: frozenset[str]
    masked: str
    livemode: bool = True   # False for a test key

    def allows_framework(self, framework: str) -> bool:
        return not self.frameworks or normalize_framework(framework) in self.frameworks


def _bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


# Built once, as plain columns: the ORM object and its identity map cost more than the lookup.
_KEY_QUERY = select(*(ApiKey.__table__.c[name] for name in (
    "id", "partner_id", "key_hash", "last4", "rate_limit", "frameworks", "last_used_at", "revoked_at",
    "livemode"))
).where(ApiKey.__table__.c.key_hash == bindparam("digest"))


def authenticate_request() -> AuthenticatedKey | None:
    """The request's valid, unrevoked key, or None. Memoised per request; raises only when the database fails."""
    if "api_key" in g:
        return g.api_key
    token = _bearer_token()
    if token is None or not KEY_PATTERN.fullmatch(token):
        g.api_key = None
        return None
    digest = hash_api_key(token)
    # One indexed query per request, no cache: a revoked or changed key applies to the very next
    # request in every process. A database error propagates (503), so an outage is never mistaken for a bad key.
    key = db.session.execute(_KEY_QUERY, {"digest": digest}).first()
    if key is None or key.revoked_at is not None or not hmac.compare_digest(key.key_hash, digest):
        g.api_key = None
        return None
    now = utcnow()
    last_used = key.last_used_at
    if last_used is not None and last_used.tzinfo is None:
        last_used = last_used.replace(tzinfo=now.tzinfo)
    if last_used is None or now - last_used > LAST_USED_RESOLUTION:
        db.session.execute(update(ApiKey).where(ApiKey.id == key.id).values(last_used_at=now))
        db.session.commit()
    g.api_key = authenticated(key)
    return g.api_key


def authenticated(key) -> AuthenticatedKey:
    """What a request (or a run resumed for one) knows of a key, from its row (ORM object or Core row)."""
    return AuthenticatedKey(
        id=key.id, partner_id=key.partner_id, rate_limit=key.rate_limit,
        frameworks=frozenset(normalize_framework(f) for f in key.frameworks or []), masked=f"crs_…{key.last4}",
        livemode=bool(key.livemode))


def unauthorized() -> ApiError:
    """401 with the Bearer challenge."""
    given = _bearer_token() is not None
    challenge = 'Bearer realm="api"' + (', error="invalid_token"' if given else "")
    message = ("The API key is invalid or revoked." if given
               else "Send your API key as 'Authorization: Bearer crs_...'.")
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": challenge})


def require_api_key() -> None:
    """before_request hook of the API blueprint."""
    if authenticate_request() is None:
        raise unauthorized()


def current_key() -> AuthenticatedKey:
    """The authenticated key of this request (only valid under the API blueprint)."""
    return g.api_key
