"""Unauthenticated service endpoints: the home page, liveness and the OpenAPI document."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, current_app, render_template_string, request
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from .csp import style_hashes
from .extensions import db

log = logging.getLogger(__name__)
bp = Blueprint("main", __name__)

# The home page: what this address is, and where to go (the API reference, the portal, health). It reads
# nothing from the database, so it answers while the database is down. The error page's look
# (templates/errors/error.html) on the one page skeleton (templates/base.html).
HOME_TEMPLATE = """{% extends "base.html" %}
{% block title %}{{ service_name }}{% endblock %}
{% block assets %}<style>
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937;
         background: #f8fafc; margin: 0; display: grid; place-items: center; min-height: 100vh; }
  main { max-width: 34rem; padding: 2rem 1.25rem; }
  h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .5rem; }
  p { margin: 0 0 1rem; color: #4b5563; }
  ul { margin: 0; padding: 0; list-style: none; }
  li { margin: 0 0 .75rem; }
  a { color: #1d4ed8; font-weight: 600; }
  a:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
</style>{% endblock %}
{% block main %}
  <h1>{{ service_name }}</h1>
  <p>Compliance reports for your clients: submit an assessment through the API, then show its stakeholder
    reports in an iframe on your own site.</p>
  <ul>
    <li><a href="{{ url_for('docs.index') }}">API reference</a>: every endpoint, error code and webhook, with
      examples.</li>
    <li><a href="{{ url_for('portal.home') }}">Partner portal</a>: sign in to manage your API keys and see your
      assessments, usage and webhook deliveries.</li>
    <li><a href="{{ url_for('main.healthz') }}">Health</a>: whether the service and its database answer.</li>
  </ul>
{% endblock %}
"""
@bp.get("/")
def home():
    return render_template_string(HOME_TEMPLATE,
                                  service_name=current_app.config.get("SERVICE_NAME") or "Compliance Report Service")


@bp.after_app_request
def home_headers(response: Response) -> Response:
    """The pages' security headers on every answer at /, errors (a 405 to a POST) included: nothing from
    another origin, no script at all, never framed."""
    if request.path != "/":
        return response
    styles = "'none'"
    if response.mimetype == "text/html" and not response.direct_passthrough:
        styles = " ".join(style_hashes(response.get_data(as_text=True))) or styles
    response.headers["Content-Security-Policy"] = (f"default-src 'none'; style-src {styles}; img-src data:; "
                                                   "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/healthz")
def healthz():
    """Liveness plus a round trip to the database; 503 "draining" once the process is stopping."""
    serving = current_app.extensions.get("serving")
    if serving is not None and serving.draining:
        return {"status": "draining", "database": "unchecked"}, 503
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        log.warning("health check: database unreachable", exc_info=True)
        db.session.rollback()
        return {"status": "error", "database": "unreachable"}, 503
    return {"status": "ok", "database": "ok"}


@bp.get("/openapi.json")
def openapi_document():
    return current_app.extensions["openapi"]
