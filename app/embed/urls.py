"""URLs of the embed pages, as partners receive them."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from flask import current_app, has_request_context, request

# The base URL of the request that started a run, for the links a run writes off the request (an async
# run's webhook, a run resumed by another process).
_run_base: ContextVar[str | None] = ContextVar("run_base_url", default=None)


def public_base_url() -> str:
    """PUBLIC_BASE_URL when configured, else the base URL of the current request (or of the request that
    started the run being written)."""
    configured = current_app.config.get("PUBLIC_BASE_URL")
    if configured:
        return configured
    if has_request_context():
        return request.host_url.rstrip("/")
    return _run_base.get() or "http://127.0.0.1:8000"


@contextmanager
def links_for(base_url: str | None):
    """Links written inside this block (no request) start with `base_url`."""
    token = _run_base.set(base_url)
    try:
        yield
    finally:
        _run_base.reset(token)


def embed_url(embed_token: str) -> str:
    """Absolute URL of the all-reports viewer."""
    return f"{public_base_url()}/embed/assessment/{embed_token}"


def view_url(view_token: str) -> str:
    """Relative path of one report's page, as the spec gives it."""
    return f"/embed/report/{view_token}"
