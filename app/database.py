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
    db.init_app(app)
    migrate_dir = app.config.get("MIGRATIONS_DIR")
    migrate.init_app(app, db, directory=migrate_dir, render_as_batch=True, compare_type=True)
