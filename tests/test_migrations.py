"""Migrations build the schema from scratch on each database, with no drift from the models."""

from __future__ import annotations

import json

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


BEFORE_PARTNER_BRAND = "e2b4d6f8a1c3"


def _listed(value):
    """A JSON column read with plain SQL: text on SQLite, already decoded on Postgres."""
    return json.loads(value) if isinstance(value, str) else value


def _key_row(conn, key_id, partner_id, *, origins, revoked=False, livemode=True, **brand):
    columns = {"id": key_id, "partner_id": partner_id, "key_hash": f"{key_id:064x}", "last4": "0000",
               "tier": "standard", "rate_limit": 100, "frameworks": "[]", "webhook_secret_encrypted": "x",
               "embed_origins": json.dumps(origins), "created_at": "2026-01-01 00:00:00",
               "revoked_at": "2026-02-01 00:00:00" if revoked else None, "livemode": livemode, **brand}
    from sqlalchemy import column, insert, table

    conn.execute(insert(table("api_keys", *(column(name) for name in columns))).values(**columns))


def test_brand_and_embed_origins_move_from_keys_to_their_partner(app, runner):
    """What partners set on their keys survives the move: the brand of the key that serves clients (active before
    revoked, live before test, newest first), every origin any key allowed, and a log line for each key that
    differed."""
    from sqlalchemy import text

    with app.app_context():
        reset_schema()
    assert runner.invoke(args=["db", "upgrade", BEFORE_PARTNER_BRAND]).exit_code == 0
    with app.app_context(), db.engine.begin() as conn:
        for partner_id, name in ((1, "Acme"), (2, "Plain"), (3, "Only test")):
            conn.execute(text("INSERT INTO partners (id, name, created_at) VALUES (:id, :name, '2026-01-01')"),
                         {"id": partner_id, "name": name})
        # Acme: an old live key with its brand, a newer test key with another, a revoked newer live key.
        _key_row(conn, 1, 1, origins=["https://a.example"], brand_name="Acme Security", brand_color="#1a73e8",
                 white_label=True, brand_logo=b"\x89PNG", brand_logo_type="image/png", brand_logo_digest="d" * 64)
        _key_row(conn, 2, 1, origins=["https://b.example", "https://a.example"], livemode=False,
                 brand_name="Acme Test")
        _key_row(conn, 3, 1, origins=[], revoked=True, brand_name="Old Acme")
        # Plain: no brand anywhere, any site.
        _key_row(conn, 4, 2, origins=[])
        # Only test keys: the test key's brand is the partner's.
        _key_row(conn, 5, 3, origins=["https://t.example"], livemode=False, brand_color="#00ff00")
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context(), db.engine.connect() as conn:
        rows = {row.name: row for row in conn.execute(text(
            "SELECT name, brand_name, brand_color, white_label, brand_logo, brand_logo_type, brand_logo_digest,"
            " embed_origins FROM partners"))}
        key_columns = {column["name"] for column in inspect(db.engine).get_columns("api_keys")}
    acme = rows["Acme"]
    assert (acme.brand_name, acme.brand_color, bool(acme.white_label)) == ("Acme Security", "#1a73e8", True)
    assert (bytes(acme.brand_logo), acme.brand_logo_type, acme.brand_logo_digest) == (b"\x89PNG", "image/png", "d" * 64)
    assert _listed(acme.embed_origins) == ["https://a.example", "https://b.example"]
    assert (rows["Plain"].brand_name, _listed(rows["Plain"].embed_origins)) == (None, [])
    assert (rows["Only test"].brand_color, _listed(rows["Only test"].embed_origins)) == ("#00ff00",
                                                                                           ["https://t.example"])
    assert not key_columns & {"embed_origins", "brand_name", "brand_color", "brand_logo", "white_label"}
    warned = result.output   # the migration's log, for the operator
    assert "key 2 had its own brand ('Acme Test')" in warned and "key 3 had its own brand ('Old Acme')" in warned
    assert "key 1 had its own brand" not in warned and "partner 2" not in warned


def test_partner_brand_downgrade_gives_every_key_its_partners_settings(app, runner):
    from sqlalchemy import text

    with app.app_context():
        reset_schema()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    with app.app_context(), db.engine.begin() as conn:
        conn.execute(text("INSERT INTO partners (id, name, created_at, brand_name, embed_origins, white_label)"
                          " VALUES (1, 'Acme', '2026-01-01', 'Acme Security', :origins, :white)"),
                     {"origins": json.dumps(["https://a.example"]), "white": True})
        for key_id in (1, 2):
            conn.execute(text("INSERT INTO api_keys (id, partner_id, key_hash, last4, tier, rate_limit, frameworks,"
                              " webhook_secret_encrypted, created_at) VALUES (:id, 1, :hash, '0000', 'standard', 100,"
                              " '[]', 'x', '2026-01-01')"), {"id": key_id, "hash": f"{key_id:064x}"})
    result = runner.invoke(args=["db", "downgrade", BEFORE_PARTNER_BRAND])
    assert result.exit_code == 0, result.output
    with app.app_context(), db.engine.connect() as conn:
        keys = conn.execute(text("SELECT brand_name, embed_origins, white_label FROM api_keys ORDER BY id")).all()
    assert [(name, _listed(origins), bool(white)) for name, origins, white in keys] == [
        ("Acme Security", ["https://a.example"], True)] * 2
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
