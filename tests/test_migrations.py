"""Migrations build the schema from scratch on each database, with no drift from the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.extensions import db
from tests.conftest import reset_schema


def test_upgrade_from_scratch_matches_models(app, runner):
    with app.app_context():
        reset_schema()
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        tables = set(inspect(db.engine).get_table_names())
        assert {"partners", "api_keys", "assessments", "requirements", "reports", "alembic_version"} <= tables
        with db.engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, db.metadata)
        assert diff == [], diff


def test_downgrade_to_base_and_up_again(app, runner):
    with app.app_context():
        reset_schema()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    result = runner.invoke(args=["db", "downgrade", "base"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
