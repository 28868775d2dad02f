"""Connection settings every engine gets."""

from __future__ import annotations

import sqlite3

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine

from .extensions import db, migrate

SQLITE_BUSY_TIMEOUT_MS = 15000


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record):
    """WAL lets readers work while a writer commits; the busy timeout queues writers instead of failing."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def init_app(app: Flask) -> None:
    """Bind SQLAlchemy and Flask-Migrate."""
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith("sqlite") and ":memory:" not in uri and uri != "sqlite://":
        # Keep a connection per serving thread: connections beyond the pool would be opened and
        # closed per request, paying the PRAGMAs each time. No ping: a local file does not drop them.
        app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {"pool_size": 32, "max_overflow": 32})
    elif not uri.startswith("sqlite"):
        # A server can drop idle connections.
        app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {"pool_pre_ping": True, "pool_size": 16,
                                                           "max_overflow": 4})
    # A database error's message would otherwise carry the statement's parameters into the logs:
    # view and embed tokens, report content, partner data.
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {**app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}),
                                               "hide_parameters": True}
    db.init_app(app)
    migrate_dir = app.config.get("MIGRATIONS_DIR")
    migrate.init_app(app, db, directory=migrate_dir, render_as_batch=True, compare_type=True)


def discard_session() -> None:
    """End a background thread's session, whatever state its connection is in: on a connection the database
    dropped, the rollback and close themselves raise, and must not end the thread."""
    from sqlalchemy.exc import SQLAlchemyError

    from .extensions import db

    try:
        db.session.rollback()
    except SQLAlchemyError:
        pass
    try:
        db.session.remove()
    except SQLAlchemyError:
        pass
