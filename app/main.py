"""Unauthenticated service endpoints: liveness and the OpenAPI document."""

from __future__ import annotations

import logging

from flask import Blueprint, current_app
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from .extensions import db

log = logging.getLogger(__name__)
bp = Blueprint("main", __name__)


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
