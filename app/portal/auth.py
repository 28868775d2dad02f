"""Who is signed in to the portal: the session's contents, the per-request user, the session cookie."""

from __future__ import annotations

import hmac
from urllib.parse import unquote, urlsplit

from flask import Flask, has_request_context, request, session
from flask.sessions import SecureCookieSessionInterface

from ..models import User
from . import sessions
from .accounts import session_fingerprint

SESSION_TOKEN = "portal_session"  # noqa: S105 - the session key holding the token (see sessions.py), not a secret
SESSION_FINGERPRINT = "portal_auth"
# The request's user is kept in the WSGI environ, not on `g`, which lives as long as the app context
# and so may outlast the request (when the caller pushed the context, as tests do).
_USER_KEY = "crs.portal_user"
_SIGNED_IN_KEY = "crs.portal_signed_in"  # set by `sign_in`: this request signed someone in


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
    """Start a fresh session for the user; anything from before (a CSRF token included) is dropped.

    The session's row is added to the database session; the caller commits.
    """
    session.clear()
    session.permanent = True  # PERMANENT_SESSION_LIFETIME is the idle expiry, renewed per request
    session[SESSION_TOKEN] = sessions.start(user)
    session[SESSION_FINGERPRINT] = session_fingerprint(user)
    request.environ[_USER_KEY] = user
    request.environ[_SIGNED_IN_KEY] = True


def password_accepted() -> None:
    """The password was right and a second factor follows: the sign-in throttle does not count this attempt (the
    code step has a throttle of its own)."""
    request.environ[_SIGNED_IN_KEY] = True


def signed_in_now() -> bool:
    """Whether this request signed a user in (the sign-in throttle counts only the ones that did not)."""
    return has_request_context() and request.environ.get(_SIGNED_IN_KEY) is True


def sign_out() -> None:
    """End the session on the server too, so a copy of the cookie no longer signs anyone in; the caller commits."""
    token = session.get(SESSION_TOKEN)
    if isinstance(token, str):
        sessions.end(token)
    session.clear()
    request.environ[_USER_KEY] = None
    request.environ.pop(_SIGNED_IN_KEY, None)


def current_user() -> User | None:
    """The signed-in, enabled user of this request, or None; a stale or ended session is cleared."""
    if _USER_KEY in request.environ:
        return request.environ[_USER_KEY]
    request.environ[_USER_KEY] = None
    token = session.get(SESSION_TOKEN)
    if not isinstance(token, str) or not token:
        return None
    user = sessions.user_of(token)
    fingerprint = session.get(SESSION_FINGERPRINT)
    if (user is None or user.disabled_at is not None or not isinstance(fingerprint, str)
            or not hmac.compare_digest(fingerprint, session_fingerprint(user))):
        session.clear()
        return None
    request.environ[_USER_KEY] = user
    return user


def _hides_control_characters(target: str, depth: int = 4) -> bool:
    """A control character (CR, LF, NUL, ...) raw or percent-encoded up to `depth` times over."""
    for _ in range(depth + 1):
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in target):
            return True
        target, before = unquote(target), target
        if target == before:
            return False
    return True  # encoded deeper than any real link is: not worth the risk


def safe_next(target: str | None, default: str) -> str:
    """Only a path inside the portal may be a post-sign-in destination (no open redirect)."""
    if not target:
        return default
    # CR/LF must never reach the Location header (a raw one breaks it, an encoded one is a header
    # injection waiting for the next decoder); urlsplit silently drops them, so check before it.
    if _hides_control_characters(target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/portal/") or "\\" in target:
        return default
    if parts.path.startswith(("/portal/login", "/portal/logout", "/portal/static/")):
        return default
    return target
