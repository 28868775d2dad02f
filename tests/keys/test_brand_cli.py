"""`keys create` / `keys update` brand options: what the operator sets is what the pages will read, and a
bad value stops the command with a clear message, changing nothing."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from sqlalchemy import event

from app.extensions import db as _db
from app.models import ApiKey
from tests.keys.test_brand import png_bytes

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'
NO_BRAND = {"name": None, "color": None, "logo": False, "whiteLabel": False}


@pytest.fixture
def key_id(runner) -> int:
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["id"]


def update(runner, key_id: int, *args):
    return runner.invoke(args=["keys", "update", str(key_id), *args, "--json"])


def stored(db, key_id: int) -> ApiKey:
    db.session.expire_all()
    return db.session.get(ApiKey, key_id)


def test_update_sets_the_brand_and_json_shows_it(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    result = update(runner, key_id, "--brand-name", "  Acme Security  ", "--brand-color", "#1A73E8",
                    "--logo", str(logo), "--white-label")
    assert result.exit_code == 0, result.output
    settings = json.loads(result.output)
    assert settings["brand"] == {"name": "Acme Security", "color": "#1a73e8", "logo": True, "whiteLabel": True}
    assert settings["tier"] == "standard" and settings["key"].startswith("crs_…")  # the existing fields stay
    key = stored(db, key_id)
    assert key.brand_logo == logo.read_bytes() and key.brand_logo_type == "image/png"
    assert key.brand_logo_digest == hashlib.sha256(logo.read_bytes()).hexdigest()
    listed = json.loads(runner.invoke(args=["keys", "list", "--json"]).output)
    assert listed[0]["brand"] == settings["brand"]


def test_short_colours_and_svg_logos(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.svg"
    logo.write_bytes(SVG)
    result = update(runner, key_id, "--brand-color", "#FC0", "--logo", str(logo))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["brand"]["color"] == "#ffcc00"
    assert stored(db, key_id).brand_logo_type == "image/svg+xml"


def test_options_left_out_keep_their_values_and_empty_strings_clear(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    update(runner, key_id, "--brand-name", "Acme", "--brand-color", "#1a73e8", "--logo", str(logo), "--white-label")
    kept = json.loads(update(runner, key_id, "--tier", "trial").output)
    assert kept["brand"] == {"name": "Acme", "color": "#1a73e8", "logo": True, "whiteLabel": True}
    cleared = update(runner, key_id, "--brand-name", "", "--brand-color", "", "--clear-logo", "--no-white-label")
    assert cleared.exit_code == 0, cleared.output
    assert json.loads(cleared.output)["brand"] == NO_BRAND
    key = stored(db, key_id)
    assert (key.brand_logo, key.brand_logo_type, key.brand_logo_digest) == (None, None, None)


@pytest.mark.parametrize(("args", "message"), [
    (["--brand-color", "blue"], "Accent colour must be a hex colour like #1a73e8"),
    (["--brand-color", "#12345"], "Accent colour must be a hex colour like #1a73e8"),
    (["--brand-name", "x" * 101], "Brand name must be at most 100 characters"),
    (["--logo", "script.svg"], "SVG logos may not contain scripts, event handlers or external references"),
    (["--logo", "big.png"], "Logo must be at most 64 KB"),
    (["--logo", "photo.gif"], "Logo must be a PNG or SVG file"),
    (["--logo", "missing.png"], "'missing.png' does not exist"),
])
def test_bad_brand_values_exit_non_zero_and_change_nothing(runner, db, key_id, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "script.svg").write_bytes(SVG.replace(b"<rect", b"<script>alert(1)</script><rect"))
    (tmp_path / "big.png").write_bytes(png_bytes()[:-12] + b"\x00" * 70_000)
    (tmp_path / "photo.gif").write_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")
    (tmp_path / "ok.png").write_bytes(png_bytes())
    assert update(runner, key_id, "--brand-name", "Acme", "--logo", "ok.png").exit_code == 0
    before = stored(db, key_id)
    snapshot = (before.tier, before.brand_name, before.brand_color, before.brand_logo_digest, before.white_label)

    result = update(runner, key_id, "--tier", "trial", "--white-label", "--brand-name", "Other", *args)
    assert result.exit_code != 0
    assert message in result.output
    assert not result.output.lstrip().startswith("{")  # no JSON: nothing was updated
    after = stored(db, key_id)
    assert (after.tier, after.brand_name, after.brand_color, after.brand_logo_digest, after.white_label) == snapshot


def test_logo_and_clear_logo_together_are_refused(runner, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    result = update(runner, key_id, "--logo", str(logo), "--clear-logo")
    assert result.exit_code != 0 and "--logo and --clear-logo cannot be used together" in result.output


def test_create_takes_the_brand_options_and_refuses_bad_ones_without_creating(runner, db, tmp_path):
    logo = tmp_path / "acme.svg"
    logo.write_bytes(SVG)
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--brand-name", "Acme",
                                 "--brand-color", "#0B1F44", "--logo", str(logo), "--white-label", "--json"])
    assert result.exit_code == 0, result.output
    created = json.loads(result.output)
    assert re.fullmatch(r"crs_[0-9a-f]{64}", created["apiKey"])
    assert created["brand"] == {"name": "Acme", "color": "#0b1f44", "logo": True, "whiteLabel": True}
    refused = runner.invoke(args=["keys", "create", "--partner", "Globex", "--brand-color", "navy", "--json"])
    assert refused.exit_code != 0 and "Accent colour must be a hex colour" in refused.output
    assert [k["partner"] for k in json.loads(runner.invoke(args=["keys", "list", "--json"]).output)] == [
        "Acme Security"]


def test_listing_keys_never_loads_the_logo_bytes(app, runner, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    assert update(runner, key_id, "--logo", str(logo)).exit_code == 0
    statements: list[str] = []
    with app.app_context():
        engine = _db.engine

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        result = runner.invoke(args=["keys", "list", "--json"])
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert result.exit_code == 0 and json.loads(result.output)[0]["brand"]["logo"] is True
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "api_keys" in s]
    assert selects and "brand_logo_digest" in selects[0]
    assert not any(re.search(r"brand_logo\b(?!_)", s) for s in selects), selects
