"""URLs of the embed pages, as partners receive them."""

from __future__ import annotations

from flask import current_app, has_request_context, request


def public_base_url() -> str:
    """PUBLIC_BASE_URL when configured, else the base URL of the current request."""
    configured = current_app.config.get("PUBLIC_BASE_URL")
    if configured:
        return configured
    if has_request_context():
        return request.host_url.rstrip("/")
    return "http://127.0.0.1:8000"


def embed_url(embed_token: str) -> str:
    """Absolute URL of the all-reports viewer."""
    return f"{public_base_url()}/embed/assessment/{embed_token}"


def view_url(view_token: str) -> str:
    """Relative path of one report's page, as the spec gives it."""
    return f"/embed/report/{view_token}"
