"""`partners update` / `partners show`: the brand and embed origins every key of a partner uses. What the operator
sets is what the pages will read; a bad value stops the command with a clear message, changing nothing; and the
per-key options of earlier releases (`keys create/update --brand-name ...`) say where the setting went."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from sqlalchemy import event, func, select

from app.extensions import db as _db
from app.models import ApiKey, Partner
from tests.keys.test_brand import png_bytes

PARTNER = "Acme Security"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'
NO_BRAND = {"name": None, "color": None, "logo": False, "whiteLabel": False}
MOVED = "is set for the partner now, not per key"


@pytest.fixture
def key_id(runner) -> int:
    result = runner.invoke(args=["keys", "create", "--partner", PARTNER, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["id"]


def update(runner, *args, partner: str = PARTNER):
    return runner.invoke(args=["partners", "update", partner, *args, "--json"])


def show(runner, partner: str = PARTNER) -> dict:
    result = runner.invoke(args=["partners", "show", partner, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def stored(db, name: str = PARTNER) -> Partner:
    db.session.expire_all()
    return db.session.scalar(select(Partner).where(Partner.name == name))


def snapshot(db, name: str = PARTNER) -> tuple:
    partner = stored(db, name)
    return (partner.brand_name, partner.brand_color, partner.brand_logo, partner.brand_logo_type,
            partner.brand_logo_digest, partner.white_label, list(partner.embed_origins))


def test_update_sets_the_brand_and_json_shows_it(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    result = update(runner, "--brand-name", "  Acme Security  ", "--brand-color", "#1A73E8", "--logo", str(logo),
                    "--white-label", "--embed-origin", "https://portal.acme.example/")
    assert result.exit_code == 0, result.output
    settings = json.loads(result.output)
    partner = stored(db)
    assert settings == {"id": partner.id, "partner": PARTNER, "embedOrigins": ["https://portal.acme.example"],
                        "brand": {"name": "Acme Security", "color": "#1a73e8", "logo": True, "whiteLabel": True}}
    assert partner.brand_logo == logo.read_bytes() and partner.brand_logo_type == "image/png"
    assert partner.brand_logo_digest == hashlib.sha256(logo.read_bytes()).hexdigest()
    assert show(runner) == settings
    # Every key of the partner uses it; a key's own settings no longer carry a brand.
    assert db.session.get(ApiKey, key_id).partner_id == partner.id
    listed = json.loads(runner.invoke(args=["keys", "list", "--json"]).output)
    assert [k["id"] for k in listed] == [key_id] and "brand" not in listed[0] and "embedOrigins" not in listed[0]


def test_update_and_show_say_it_in_words_without_json(runner, key_id, tmp_path):
    logo = tmp_path / "acme.svg"
    logo.write_bytes(SVG)
    result = runner.invoke(args=["partners", "update", PARTNER, "--brand-name", "Acme", "--logo", str(logo),
                                 "--embed-origin", "https://a.example", "--embed-origin", "https://b.example"])
    assert result.exit_code == 0, result.output
    said = ("Partner 'Acme Security': brand name Acme, accent (default), a logo, not white-label; embed pages may "
            "be framed by https://a.example, https://b.example.")
    assert result.output.strip() == "Updated. " + said
    assert runner.invoke(args=["partners", "show", PARTNER]).output.strip() == said


def test_short_colours_and_svg_logos(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.svg"
    logo.write_bytes(SVG)
    result = update(runner, "--brand-color", "#FC0", "--logo", str(logo))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["brand"]["color"] == "#ffcc00"
    assert stored(db).brand_logo_type == "image/svg+xml"


def test_options_left_out_keep_their_values_and_empty_strings_clear(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    update(runner, "--brand-name", "Acme", "--brand-color", "#1a73e8", "--logo", str(logo), "--white-label",
           "--embed-origin", "https://portal.acme.example")
    kept = json.loads(update(runner).output)
    assert kept["brand"] == {"name": "Acme", "color": "#1a73e8", "logo": True, "whiteLabel": True}
    assert kept["embedOrigins"] == ["https://portal.acme.example"]
    # A key's own settings leave the partner's alone.
    assert runner.invoke(args=["keys", "update", str(key_id), "--tier", "trial"]).exit_code == 0
    assert show(runner) == kept
    origins_only = json.loads(update(runner, "--embed-origin", "https://intranet.acme.example:8443").output)
    assert origins_only["brand"] == kept["brand"]
    assert origins_only["embedOrigins"] == ["https://intranet.acme.example:8443"]   # replaced, not added
    cleared = update(runner, "--brand-name", "", "--brand-color", "", "--clear-logo", "--no-white-label",
                     "--any-embed-origin")
    assert cleared.exit_code == 0, cleared.output
    assert json.loads(cleared.output)["brand"] == NO_BRAND and json.loads(cleared.output)["embedOrigins"] == []
    partner = stored(db)
    assert (partner.brand_logo, partner.brand_logo_type, partner.brand_logo_digest) == (None, None, None)


@pytest.mark.parametrize(("args", "message"), [
    (["--brand-color", "blue"], "Accent colour must be a hex colour like #1a73e8"),
    (["--brand-color", "#12345"], "Accent colour must be a hex colour like #1a73e8"),
    (["--brand-name", "x" * 101], "Brand name must be at most 100 characters"),
    (["--logo", "script.svg"], "SVG logos may not contain scripts, event handlers or external references"),
    (["--logo", "big.png"], "Logo must be at most 64 KB"),
    (["--logo", "photo.gif"], "Logo must be a PNG or SVG file"),
    (["--logo", "missing.png"], "'missing.png' does not exist"),
    (["--embed-origin", "not an origin"], "embed origin must look like https://example.com"),
    (["--embed-origin", "https://ok.example", "--embed-origin", "https://portal.example/path"],
     "embed origin must look like https://example.com"),
])
def test_a_bad_value_exits_non_zero_and_stores_nothing(runner, db, key_id, tmp_path, monkeypatch, args, message):
    """All or nothing: the good values sent with a bad one are not stored either."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "script.svg").write_bytes(SVG.replace(b"<rect", b"<script>alert(1)</script><rect"))
    (tmp_path / "big.png").write_bytes(png_bytes()[:-12] + b"\x00" * 70_000)
    (tmp_path / "photo.gif").write_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")
    (tmp_path / "ok.png").write_bytes(png_bytes())
    (tmp_path / "other.svg").write_bytes(SVG)
    assert update(runner, "--brand-name", "Acme", "--logo", "ok.png",
                  "--embed-origin", "https://portal.acme.example").exit_code == 0
    before = snapshot(db)

    # Good values of every other setting with the bad one (a value given twice: the last one counts).
    good = ["--white-label", "--brand-name", "Other", "--brand-color", "#0b1f44", "--embed-origin", "https://other.example"]
    if args[0] != "--logo":
        good += ["--logo", "other.svg"]
    result = update(runner, *good, *args)
    assert result.exit_code != 0
    assert message in result.output
    assert not result.output.lstrip().startswith("{")  # no JSON: nothing was updated
    assert snapshot(db) == before
    assert update(runner, *good).exit_code == 0   # without the bad one, the same command saves
    assert snapshot(db) != before


def test_logo_and_clear_logo_together_are_refused(runner, db, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    result = update(runner, "--logo", str(logo), "--clear-logo")
    assert result.exit_code != 0 and "--logo and --clear-logo cannot be used together" in result.output
    assert stored(db).brand_logo is None


def test_an_origin_and_any_origin_together_are_a_usage_error(runner, db, key_id):
    assert update(runner, "--embed-origin", "https://portal.acme.example").exit_code == 0
    result = update(runner, "--embed-origin", "https://other.example", "--any-embed-origin", "--brand-name", "Acme")
    assert result.exit_code == 2   # click's usage error
    assert "--embed-origin and --any-embed-origin cannot be used together" in result.output
    partner = stored(db)
    assert (partner.embed_origins, partner.brand_name) == (["https://portal.acme.example"], None)


def test_an_unknown_partner_is_an_error_naming_partners_list(runner, db, key_id):
    for args in (["show", "Acme"], ["update", "Acme", "--brand-name", "Acme"], ["show", "Nobody", "--json"]):
        result = runner.invoke(args=["partners", *args])
        assert result.exit_code == 1, args
        assert "no partner named" in result.output and "`flask partners list`" in result.output, args
        assert not result.output.lstrip().startswith("{")
    assert db.session.scalar(select(func.count(Partner.id))) == 1   # `update` never creates one
    assert stored(db).brand_name is None


MOVED_OPTIONS = [["--embed-origin", "https://portal.acme.example"], ["--any-embed-origin"], ["--brand-name", "Acme"],
                 ["--brand-color", "#0b1f44"], ["--logo", "acme.png"], ["--clear-logo"], ["--white-label"],
                 ["--no-white-label"]]


@pytest.mark.parametrize("moved", MOVED_OPTIONS, ids=lambda args: args[0])
def test_keys_create_with_a_brand_or_origin_option_says_where_it_went_and_creates_nothing(runner, db, tmp_path,
                                                                                         monkeypatch, moved):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acme.png").write_bytes(png_bytes())
    result = runner.invoke(args=["keys", "create", "--partner", "Globex", "--tier", "trial", *moved, "--json"])
    assert result.exit_code == 2, result.output
    assert f"{moved[0]} {MOVED}" in result.output
    assert f"`flask partners update PARTNER {moved[0]} ...`" in result.output
    assert "crs_" not in result.output
    assert db.session.scalar(select(func.count(ApiKey.id))) == 0
    assert db.session.scalar(select(func.count(Partner.id))) == 0   # not even the partner


@pytest.mark.parametrize("moved", MOVED_OPTIONS, ids=lambda args: args[0])
def test_keys_update_with_a_brand_or_origin_option_says_where_it_went_and_changes_nothing(runner, db, key_id,
                                                                                         tmp_path, monkeypatch, moved):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acme.png").write_bytes(png_bytes())
    assert update(runner, "--brand-name", "Acme", "--embed-origin", "https://intranet.acme.example").exit_code == 0
    before = snapshot(db)
    result = runner.invoke(args=["keys", "update", str(key_id), "--tier", "trial", *moved, "--json"])
    assert result.exit_code == 2, result.output
    assert f"{moved[0]} {MOVED}" in result.output and "flask partners update" in result.output
    assert snapshot(db) == before
    assert db.session.get(ApiKey, key_id).tier == "standard"


def test_reading_keys_and_partners_never_loads_the_logo_bytes(app, runner, key_id, tmp_path):
    logo = tmp_path / "acme.png"
    logo.write_bytes(png_bytes())
    assert update(runner, "--logo", str(logo)).exit_code == 0
    statements: list[str] = []
    with app.app_context():
        engine = _db.engine

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        listed = runner.invoke(args=["keys", "list", "--json"])
        shown = runner.invoke(args=["partners", "show", PARTNER, "--json"])
        partners = runner.invoke(args=["partners", "list", "--json"])
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert listed.exit_code == 0 and json.loads(listed.output)[0]["id"] == key_id
    assert shown.exit_code == 0 and json.loads(shown.output)["brand"]["logo"] is True
    assert partners.exit_code == 0
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "partners" in s]
    assert selects and any("brand_logo_digest" in s for s in selects)
    assert not any(re.search(r"brand_logo\b(?!_)", s) for s in selects), selects
