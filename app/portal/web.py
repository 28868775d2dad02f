"""The portal's page furniture: security headers, asset URLs, error pages and sign-in throttling."""

from __future__ import annotations

import json
from datetime import datetime

from flask import Flask, Response, current_app, render_template, request, session, url_for
from flask_limiter import RateLimitExceeded
from flask_wtf.csrf import CSRFError

from ..csp import style_hashes
from ..embed import previews
from ..embed.service import asset_version
from ..embed.views import embed_asset
from ..errors import client_error, error_pages
from ..models import iso_utc
from ..ratelimit import RATE_HEADERS, guard_limiter_of, retry_after_seconds
from . import modes
from .accounts import AccountError, normalize_email
from .auth import current_user, signed_in_now
from .forms import CodeForm, ForgotForm, LoginForm, PasswordForm
from .submission import submitted_field
from .views import account_page, bp

ONE_YEAR = 365 * 24 * 3600
CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'self'{styles}; script-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; "
                           "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
NAV = (("keys", "portal.keys", "Keys"), ("assessments", "portal.assessments", "Assessments"),
       ("usage", "portal.usage_page", "Usage"), ("webhooks", "portal.webhooks", "Webhooks"),
       ("brand", "portal.brand", "Brand"))


def portal_asset(filename: str) -> str:
    """URL of a portal static file, versioned by its content so browsers may cache it for a year."""
    return url_for("portal.static", filename=filename, v=asset_version(bp.static_folder, filename))


def format_time(value: datetime | str | None, seconds: bool = False) -> tuple[str, str] | tuple[None, None]:
    """("21 Nov 2026, 14:05 UTC", ISO 8601) for a stored time or an ISO 8601 string."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None, None
    iso = iso_utc(value)
    if iso is None:
        return None, None
    value = datetime.fromisoformat(iso)
    clock = "%H:%M:%S" if seconds else "%H:%M"
    return f"{value.day} {value:%b %Y}, {value:{clock}} UTC", iso


@bp.app_template_filter("pretty_json")
def pretty_json(body: bytes | str) -> str:
    """A stored webhook body as readable JSON (indented, keys as sent); text as it is when it is not JSON."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


@bp.context_processor
def template_helpers() -> dict:
    return {"portal_asset": portal_asset, "embed_asset": embed_asset, "portal_user": current_user(),
            "portal_time": format_time, "portal_nav": NAV, "portal_mode": modes.current(), "portal_modes": modes.MODES}


def _is_portal_request() -> bool:
    prefix = bp.url_prefix or ""
    return request.blueprint == bp.name or request.path == prefix or request.path.startswith(prefix + "/")


def _inline_style_hashes(response: Response) -> str:
    """The shared HTML error page (routing errors, 405) has its own <style> block: allow exactly that."""
    if response.status_code < 400 or response.mimetype != "text/html" or response.direct_passthrough:
        return ""
    return "".join(f" {source}" for source in style_hashes(response.get_data(as_text=True)))


@bp.after_app_request
def portal_headers(response: Response) -> Response:
    """Every response under /portal: never framed, no outside sources, nothing private kept in caches.

    Registered app-wide (and filtered by path) so routing errors under /portal get the headers too,
    and before the rate limiter, so it runs after the limiter has added its headers.
    """
    if not _is_portal_request():
        return response
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.format(
        styles=_inline_style_hashes(response))
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Robots-Tag"] = "noindex"
    for name in RATE_HEADERS:  # the sign-in throttle's counters are not the partner's business
        if not (name == "Retry-After" and response.status_code == 429):
            response.headers.pop(name, None)
    if request.endpoint == "portal.static" and response.status_code in (200, 304):
        filename = (request.view_args or {}).get("filename", "")
        current = asset_version(bp.static_folder, filename)
        fresh = current is not None and request.args.get("v") == current
        response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable" if fresh else "no-cache"
    else:
        response.headers["Cache-Control"] = "no-store"
        user = current_user() if request.endpoint != "portal.logout" else None
        if user is not None:   # the partner's own looks at its reports are not counted as views (embed/previews.py)
            previews.mark(response, user.partner_id)
    return response


def _error_page(status: int, title: str, message: str) -> Response:
    # The helpers are passed explicitly: a URL that matches no route has no blueprint, so the
    # blueprint's context processor does not run for it.
    return Response(render_template("portal/error.html", status=status, title=title, message=message,
                                    **template_helpers()),
                    status=status, mimetype="text/html")


# The portal's own page for the errors the house handlers answer: a 405 (a form's URL opened, a POST to a page),
# a 500 and the database away keep the portal's layout and navigation.
_TITLES = {405: "That action is not available here", 500: "Something went wrong", 503: "Briefly unavailable"}


@bp.record_once
def _own_error_pages(state) -> None:
    error_pages(state.app, _is_portal_request, lambda status, message: _error_page(
        status, _TITLES.get(status, "That request could not be handled"), message))


@bp.errorhandler(404)
def not_found(_error):
    return _error_page(404, "Page not found", "There is nothing here, or it belongs to another account.")


@bp.app_errorhandler(404)
def not_found_anywhere(error):
    """A URL under /portal that matches no page (/portal/nope) gets the portal's 404, with its layout and
    navigation; every other 404 the house answer."""
    if _is_portal_request():
        return not_found(error)
    return client_error(error)


@bp.errorhandler(400)
def bad_request(_error):
    return _error_page(400, "That request could not be handled", "Go back, reload the page and try again.")


@bp.errorhandler(413)
def too_large(_error):
    # A logo over 64 KB (and up to MAX_CONTENT_LENGTH, 1 MiB) gets the form's own error; past that the
    # body is refused before the form can read it.
    return _error_page(413, "That file is too large",
                       "A logo can be at most 64 KB. Go back and choose a smaller file.")


@bp.errorhandler(CSRFError)
def csrf_failed(_error):
    return _error_page(400, "This form has expired",
                       "For your security, forms work only for a while and only from this portal. "
                       "Go back, reload the page and submit the form again.")


@bp.errorhandler(RateLimitExceeded)
def too_many_sign_ins(_error):
    """The sign-in form again, with how long to wait."""
    wait = retry_after_seconds()
    minutes = max(1, -(-wait // 60))
    if request.endpoint == "portal.login_code":
        form = CodeForm(formdata=None)
        form.form_errors.append(f"Too many wrong codes. Wait {minutes} minute{'s' if minutes != 1 else ''} and try "
                                f"again.")
        html = render_template("portal/login_code.html", form=form)
        return Response(html, status=429, mimetype="text/html", headers={"Retry-After": str(wait)})
    if request.endpoint == "portal.forgot":
        html = render_template("portal/forgot.html", form=ForgotForm(formdata=None), mail=True, wait_minutes=minutes)
        return Response(html, status=429, mimetype="text/html", headers={"Retry-After": str(wait)})
    if request.endpoint == "portal.account":
        form = PasswordForm(formdata=None)
        form.form_errors.append(f"Too many wrong current passwords. Try again in {minutes} minute"
                                f"{'s' if minutes != 1 else ''}.")
        html, _ = account_page(current_user(), form=form)
        return Response(html, status=429, mimetype="text/html", headers={"Retry-After": str(wait)})
    # Not LoginForm(): that would read the body again, and a body it refuses would raise in here (a 500).
    form = LoginForm(formdata=None, data={"email": submitted_field("email") or ""})
    html = render_template("portal/login.html", form=form, failed=False, wait_minutes=minutes)
    return Response(html, status=429, mimetype="text/html", headers={"Retry-After": str(wait)})


def _address_key() -> str:
    return f"portal-login-address:{request.remote_addr}"


def _account_key() -> str:
    """The account the sign-in form will check, read from the same fields (form or JSON body) it reads.

    Attempts without an email that could be an account's (none, malformed, not a string) share one
    bucket: they never check a password. A body refused for another field still counts for its email.
    """
    try:
        email = normalize_email(submitted_field("email") or "")
    except AccountError:
        email = "-"
    return f"portal-login-account:{email}"


def _failed_sign_in(response: Response) -> bool:
    """Whether a sign-in POST counts toward the throttle: every one but a successful sign-in does."""
    return not (signed_in_now() and response.status_code < 400)


def _pending_key() -> str:
    pending = session.get("pending_2fa")
    return f"portal-login-code:{pending.get('u') if isinstance(pending, dict) else '-'}"


def _user_key() -> str:
    user = current_user()
    return f"portal-password-change:{user.id if user else '-'}"


def _failed_change(response: Response) -> bool:
    """A password change that did not redirect (the form again, with an error) counts toward the throttle."""
    return response.status_code != 303


def limit_sign_in(app: Flask) -> None:
    """Throttle failed sign-in POSTs per client address and per submitted email, on the guard limiter.

    Every POST is refused once the limit is reached, but only the ones that did not sign anyone in
    count toward it: a partner who signs in often is never locked out by it. That limiter keeps
    counting in memory while Redis is down. Called once it exists; it wraps the registered view, as
    `@limiter.limit` would.
    """
    limiter = guard_limiter_of(app)
    view = app.view_functions["portal.login"]
    view = limiter.limit(lambda: current_app.config["PORTAL_LOGIN_LIMIT_PER_ACCOUNT"], key_func=_account_key,
                         methods=["POST"], scope="portal-login-account", deduct_when=_failed_sign_in)(view)
    view = limiter.limit(lambda: current_app.config["PORTAL_LOGIN_LIMIT_PER_ADDRESS"], key_func=_address_key,
                         methods=["POST"], scope="portal-login-address", deduct_when=_failed_sign_in)(view)
    app.view_functions["portal.login"] = view
    # Asking for reset links: the sign-in's per-address budget (each ask may send an email).
    app.view_functions["portal.forgot"] = limiter.limit(
        lambda: current_app.config["PORTAL_LOGIN_LIMIT_PER_ADDRESS"], key_func=_address_key, methods=["POST"],
        scope="portal-forgot")(app.view_functions["portal.forgot"])
    # The second factor: the same per-account budget, counted per user waiting for it.
    app.view_functions["portal.login_code"] = limiter.limit(
        lambda: current_app.config["PORTAL_LOGIN_LIMIT_PER_ACCOUNT"], key_func=_pending_key, methods=["POST"],
        scope="portal-login-code", deduct_when=_failed_change)(app.view_functions["portal.login_code"])
    # The password change checks the current password: the same per-account budget, counted per user.
    account = app.view_functions["portal.account"]
    app.view_functions["portal.account"] = limiter.limit(
        lambda: current_app.config["PORTAL_LOGIN_LIMIT_PER_ACCOUNT"], key_func=_user_key, methods=["POST"],
        scope="portal-password-change", deduct_when=_failed_change)(account)
