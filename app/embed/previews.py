"""A partner's own look at its reports is not a client's view.

While a partner's user is signed in to the portal, the portal's responses carry a second, signed cookie scoped to
`/embed`: it names the partner and lapses with the session. The embed pages do not count a view by a browser that
sends it for the assessment's own partner. It is `SameSite=Strict`, so a browser sends it only on our own site's
requests (the portal's links, the viewer opened from it) and never inside a partner's iframe on another site,
where the partner's clients read; the partner's own staff reading there count as readers, as anyone would.
"""

from __future__ import annotations

from flask import Response, current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "crs_preview"
_SALT = "portal-preview"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt=_SALT)


def _lifetime() -> int:
    return int(current_app.permanent_session_lifetime.total_seconds())


def _path() -> str:
    return current_app.config["APPLICATION_ROOT"].rstrip("/") + "/embed"


def mark(response: Response, partner_id: int) -> None:
    """Renew the cookie on a signed-in portal response (it lapses with the session's idle expiry)."""
    secure = bool(current_app.config["SESSION_COOKIE_SECURE"] or request.is_secure)
    response.set_cookie(COOKIE, _serializer().dumps(partner_id), max_age=_lifetime(), path=_path(), httponly=True,
                        samesite="Strict", secure=secure)


def unmark(response: Response) -> None:
    """Signing out ends the partner's previews at once."""
    response.delete_cookie(COOKIE, path=_path(), httponly=True, samesite="Strict")


def previewing(partner_id: int | None) -> bool:
    """Whether this request comes from a signed-in user of the partner (its views are not counted)."""
    value = request.cookies.get(COOKIE)
    if not value or partner_id is None:
        return False
    secret_keys = [*current_app.config.get("SECRET_KEY_FALLBACKS", []), current_app.secret_key]   # newest last
    try:
        found = URLSafeTimedSerializer(secret_keys, salt=_SALT).loads(value, max_age=_lifetime())
    except BadSignature:   # also an expired one
        return False
    return found == partner_id
