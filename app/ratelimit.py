"""Per-key hourly limits on Flask-Limiter's moving window, and per-address limits for the rest.

Two limiters share the storage (memory, or Redis to share budgets between processes) and differ
only in what happens while Redis does not answer:

- `rate_limiter` (per-key API budget, embed pages) fails open: requests are served unlimited, since
  an outage of minutes costs little against a one-hour window and a paid API stays available.
- `guard_limiter` (failed API authentication per address, portal sign-in per address and per
  account) falls back to per-process memory (Flask-Limiter's `in_memory_fallback_enabled`), so a
  Redis outage never opens the door to guessing keys or passwords at full speed. It checks Redis
  again with a growing interval and moves back to it once Redis answers.
"""

from __future__ import annotations

import logging
import math
import time

from flask import Flask, current_app, g, request
from flask_limiter import Limiter, RateLimitExceeded
from werkzeug.middleware.proxy_fix import ProxyFix

from .errors import html_error, json_error, wants_json
from .keys.auth import AuthenticatedKey, authenticate_request
from .keys.service import TIER_LIMITS

log = logging.getLogger(__name__)
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit",
                "Retry-After")


class _Unknown:
    """The database could not say whether the key is valid; the API answers 503 for such a request."""


UNKNOWN = _Unknown()


def request_key() -> AuthenticatedKey | _Unknown | None:
    """The request's valid key, None without one, UNKNOWN when the database failed.

    Never raises: an exception inside a limiter's callbacks counts as a storage failure, which
    would switch the guard limiter to its in-memory fallback for a database outage.
    """
    try:
        return authenticate_request()
    except Exception:  # noqa: BLE001 - reported by the API's own authentication (503), not here
        return UNKNOWN


def api_limit_key() -> str:
    """One window per API key (only requests with a valid key reach this limit)."""
    key = request_key()
    return f"key:{key.id}" if isinstance(key, AuthenticatedKey) else "key:-"


def api_limit() -> str:
    """The key's own hourly limit. Evaluated before the exemption, so it answers for any request."""
    key = request_key()
    return f"{key.rate_limit}/hour" if isinstance(key, AuthenticatedKey) else "1/hour"


def address_key() -> str:
    """Requests without a valid key share one window per client address."""
    return f"addr:{request.remote_addr}"


def auth_failure_limit() -> str:
    """AUTH_FAILURE_RATE_LIMIT, read per request so tests and config files can set it."""
    return current_app.config["AUTH_FAILURE_RATE_LIMIT"]


def _guard_skips_request() -> bool:
    """The guard limiter has no limit on the embed pages, and API requests with a valid key (or while the
    database is down) never touch it: skipped before it resolves anything, which is half a page view's
    limiter time."""
    if request.blueprint == "embed":
        return True
    return request.blueprint == "api" and request_key() is not None


def embed_limit_key() -> str:
    return f"embed:{request.remote_addr}"


def embed_limit() -> str:
    return current_app.config["EMBED_RATE_LIMIT"]


def limiter_of(app: Flask) -> Limiter:
    """The fail-open limiter (per-key API budget, embed pages)."""
    return app.extensions["rate_limiter"]


def guard_limiter_of(app: Flask) -> Limiter:
    """The limiter that falls back to memory while Redis is down (authentication throttles)."""
    return app.extensions["guard_limiter"]


def retry_after_seconds() -> int:
    """Whole seconds until the breached window frees a slot; at least 1."""
    for limiter in (guard_limiter_of(current_app), limiter_of(current_app)):
        limit = limiter.current_limit
        if limit is not None and limit.breached:
            return max(1, seconds_until_reset(limit))
    return 1


def seconds_until_reset(limit) -> int:
    """Whole seconds until the oldest counted request leaves the moving window."""
    return max(0, math.ceil(limit.window.reset_time - time.time()))


def _policy_name(window_seconds: int) -> str:
    return "hourly" if window_seconds == 3600 else f"per-{window_seconds}s"


def _finish_headers(response):
    """Rate-limit headers from one read of the window: API only, none on 401, Retry-After only on 429."""
    if response.status_code == 429 and "retry_after" in g:
        response.headers["Retry-After"] = str(g.retry_after)
    if request.blueprint != "api" or response.status_code == 401:
        return response
    try:
        limit = limiter_of(current_app).current_limit
        if limit is not None:
            window = limit.limit.get_expiry()
            reset_time, remaining = limit.window
            name = _policy_name(window)
            amount = limit.limit.amount
            response.headers["X-RateLimit-Limit"] = str(amount)
            response.headers["X-RateLimit-Remaining"] = str(remaining)
            response.headers["X-RateLimit-Reset"] = str(math.ceil(reset_time))
            response.headers["RateLimit-Policy"] = f'"{name}";q={amount};w={window}'
            response.headers["RateLimit"] = f'"{name}";r={remaining};t={max(0, math.ceil(reset_time - time.time()))}'
    except Exception:  # noqa: BLE001 - storage down: the request is served, the headers are best effort
        log.warning("rate-limit storage unavailable; response sent without rate-limit fields", exc_info=True)
    return response


RATE_LIMITED = "Rate limit exceeded. Try again later."
WINDOW_WORDS = {3600: "1 hour", 60: "1 minute", 86400: "1 day"}


def window_words(seconds: int) -> str:
    """A limit's window as the 429 body's `window` says it: "1 hour"."""
    return WINDOW_WORDS.get(seconds, f"{seconds} seconds")


def key_limit_message(limit: int, window_seconds: int, key_id: int | str,
                      service: str = "Compliance Report Service") -> str:
    """The 429 sentence for a key whose budget is spent: its limit, and the true way to a higher tier: the
    portal, up to the partner's tier cap; above it, whoever runs the service (on a self-hosted install, the
    partner itself), with the operator's CLI."""
    per = "an hour" if window_seconds == 3600 else f"per {window_words(window_seconds)}"
    allows = f"This key allows {limit:,} request{'' if limit == 1 else 's'} {per} (a sliding window)"
    higher = [(tier, amount) for tier, amount in TIER_LIMITS.items() if amount > limit]
    if not higher:
        return (f"{RATE_LIMITED} {allows}, the most of any tier. For a custom limit, ask whoever runs {service}"
                f" (`flask --app wsgi keys update {key_id} --rate-limit N`).")
    tiers = ", ".join(f"{tier} {amount:,}" for tier, amount in higher)
    plural = "s" if len(higher) > 1 else ""
    return (f"{RATE_LIMITED} {allows}. Higher tier{plural}: {tiers} {per}. Choose one for the key in the partner"
            f" portal (Keys, Edit settings) up to your account's tier cap; above it, ask whoever runs {service} to"
            f" raise the key's tier (`flask --app wsgi keys update {key_id} --tier {higher[0][0]}`) or the cap"
            f" (`flask --app wsgi partners set-max-tier`).")


def _key_budget(error: RateLimitExceeded) -> dict:
    """`limit` and `window` (and the sentence) when the key's own hourly budget is spent; {} for the
    per-address limits, which belong to no key."""
    key = request_key()
    if getattr(error.limit, "scope", None) != "api" or not isinstance(key, AuthenticatedKey):
        return {}
    amount, window = error.limit.limit.amount, error.limit.limit.get_expiry()
    service = current_app.config.get("SERVICE_NAME") or "this service"
    return {"message": key_limit_message(amount, window, key.id, service), "limit": amount,
            "window": window_words(window)}


def _rate_limited(error: RateLimitExceeded):
    g.retry_after = retry_after_seconds()
    headers = {"Retry-After": str(g.retry_after)}
    if wants_json():
        budget = _key_budget(error)
        message = budget.pop("message", RATE_LIMITED)
        return json_error(429, "rate_limited", message, headers=headers, retryAfter=g.retry_after, **budget)
    response = html_error(429, "Too many requests. Try again later.")
    response.headers.update(headers)
    return response


PDF_ENDPOINTS = ("embed.report_pdf", "embed.assessment_pdf")


def init_app(app: Flask) -> None:
    """Trust proxies as configured, then limit the API per key and the embed pages per address."""
    if app.config["TRUSTED_PROXIES"]:
        n = app.config["TRUSTED_PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n)
    app.after_request(_finish_headers)
    storage_uri = app.config["RATELIMIT_STORAGE_URI"]
    options = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5} if storage_uri.startswith("redis") else {}
    # Headers are written by _finish_headers from a single read of the window, not by the limiter.
    settings = {"strategy": "moving-window", "headers_enabled": False, "storage_uri": storage_uri,
                "storage_options": options, "swallow_errors": True, "key_prefix": "crs"}
    limiter = Limiter(api_limit_key, **settings)
    limiter.init_app(app)
    app.extensions["rate_limiter"] = limiter
    guard = Limiter(address_key, in_memory_fallback_enabled=True, **settings)
    guard.request_filter(_guard_skips_request)  # cheap: decided before any limit is resolved
    guard.init_app(app)
    app.extensions["guard_limiter"] = guard
    from .api import bp as api_bp
    from .embed.views import bp as embed_bp

    limiter.shared_limit(api_limit, scope="api",
                         exempt_when=lambda: not isinstance(request_key(), AuthenticatedKey))(api_bp)
    guard.shared_limit(auth_failure_limit, scope="api-auth-failure", key_func=address_key)(api_bp)
    # Versioned assets are cached for a year by browsers; counting them would only spend the budget.
    limiter.shared_limit(embed_limit, scope="embed", key_func=embed_limit_key,
                         exempt_when=lambda: request.endpoint in ("embed.static", "embed.brand_logo"))(embed_bp)
    # A PDF costs a print the first time: a stricter limit of its own, on top of the pages' one.
    limiter.shared_limit(lambda: current_app.config["EMBED_PDF_RATE_LIMIT"], scope="embed-pdf",
                         key_func=embed_limit_key,
                         exempt_when=lambda: request.endpoint not in PDF_ENDPOINTS)(embed_bp)
    app.register_error_handler(RateLimitExceeded, _rate_limited)
