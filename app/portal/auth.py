"""Who is signed in to the portal: the session's contents, the per-request user, the session cookie."""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from flask import Flask, g, has_request_context, request, session
from flask.sessions import SecureCookieSessionInterface

from ..extensions import db
from ..models import User
from .accounts import session_fingerprint

SESSION_USER = "portal_user"
SESSION_FINGERPRINT = "portal_auth"


class PortalSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, kept to the portal and marked `Secure` whenever the request came over https.

    - The cookie's path is `/portal` (unless SESSION_COOKIE_PATH says otherwise): the API and the
      embed pages never receive it.
    - `SESSION_COOKIE_SECURE=true` forces the Secure flag for every response (behind a proxy that
      terminates TLS without `TRUSTED_PROXIES`, the request itself looks like plain http).
    - The per-request renewal (the idle expiry) happens on portal pages only, never on static files,
      which browsers and proxies may cache publicly.
    """

    def get_cookie_path(self, app: Flask) -> str:
        return app.config["SESSION_COOKIE_PATH"] or (app.config["APPLICATION_ROOT"].rstrip("/") + "/portal")

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(super().get_cookie_secure(app) or (has_request_context() and request.is_secure))

    def should_set_cookie(self, app: Flask, session) -> bool:
        if has_request_context() and (request.blueprint != "portal" or request.endpoint == "portal.static"):
            return session.modified
        return super().should_set_cookie(app, session)


def sign_in(user: User) -> None:
    """Start a fresh session for the user; anything from before (a CSRF token included) is dropped."""
    session.clear()
    session.permanent = True  # PERMANENT_SESSION_LIFETIME is the idle expiry, renewed per request
    session[SESSION_USER] = user.id
    session[SESSION_FINGERPRINT] = session_fingerprint(user)
    g.portal_user = user


def sign_out() -> None:
    session.clear()
    g.portal_user = None


def current_user() -> User | None:
    """The signed-in, enabled user of this request, or None; a stale session is cleared."""
    if "portal_user" in g:
        return g.portal_user
    g.portal_user = None
    user_id = session.get(SESSION_USER)
    if not isinstance(user_id, int):
        return None
    user = db.session.get(User, user_id)
    fingerprint = session.get(SESSION_FINGERPRINT)
    if (user is None or user.disabled_at is not None or not isinstance(fingerprint, str)
            or not hmac.compare_digest(fingerprint, session_fingerprint(user))):
        session.clear()
        return None
    g.portal_user = user
    return user


def safe_next(target: str | None, default: str) -> str:
    """Only a path inside the portal may be a post-sign-in destination (no open redirect)."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/portal/") or "\\" in target:
        return default
    if parts.path.startswith(("/portal/login", "/portal/logout", "/portal/static/")):
        return default
    return target
