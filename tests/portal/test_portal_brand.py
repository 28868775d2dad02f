"""The Brand fieldset of the key form: a partner uploads a logo, picks an accent colour and a "Prepared by"
name, turns white-label on, and sees errors for files and colours that cannot be used, with nothing changed."""

from __future__ import annotations

import hashlib
import io
import re

import pytest
from PIL import Image
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from app.extensions import db
from app.models import ApiKey
from tests.portal import follow, make_user, page_token, sign_in

SCRIPTED_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                b'<script>alert(document.cookie)</script><rect width="10" height="10"/></svg>')
PLAIN_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'


def text(response) -> str:
    return response.get_data(as_text=True)


def logo_png(side: int = 64) -> bytes:
    """An uncompressed PNG of side × side noisy pixels: 64 gives about 12 KB, 160 over 64 KB."""
    pixels = bytes((i * 7919) % 251 for i in range(side * side * 3))
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(buffer, "PNG", compress_level=0)
    return buffer.getvalue()


@pytest.fixture
def signed_in(app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    return client


@pytest.fixture
def key_id(make_key) -> int:
    return make_key("Acme Security", name="Production").key.id


def edit(client, key_id: int, logo: tuple[bytes, str] | None = None, **fields):
    """Submit the edit form as a browser does: multipart, with the page's CSRF token and every text field."""
    path = f"/portal/keys/{key_id}/edit"
    data = {"csrf_token": page_token(client, path), "name": "Production", "tier": "standard", "frameworks": "",
            "webhook_url": "", "embed_origins": "", "brand_name": "", "brand_color": "",
            "brand_logo": (io.BytesIO(logo[0]), logo[1]) if logo else (io.BytesIO(b""), ""), **fields}
    return client.post(path, data=data, content_type="multipart/form-data")


def stored(app, key_id: int) -> ApiKey:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        key.brand_logo  # noqa: B018 - load the deferred bytes before the session closes
        db.session.expunge(key)
        return key


def test_the_edit_form_has_the_brand_fieldset(signed_in, key_id):
    html = text(signed_in.get(f"/portal/keys/{key_id}/edit"))
    assert re.search(r'<form[^>]*enctype="multipart/form-data"', html)
    assert "<legend" in html and ">Brand</legend>" in html
    assert re.search(r'<input[^>]*type="file"[^>]*accept="image/png,image/svg\+xml"|'
                     r'<input[^>]*accept="image/png,image/svg\+xml"[^>]*type="file"', html)
    assert ">Prepared by <" in html and "Accent colour" in html and 'type="color"' in html
    assert "White-label" in html and "Hide every mention of Compliance Reports" in html
    assert "No logo uploaded." in html
    assert "Remove the logo" not in html  # nothing to remove yet


def test_a_partner_uploads_a_logo_and_sets_the_brand(app, signed_in, key_id):
    png = logo_png()
    response = edit(signed_in, key_id, (png, "acme.png"), brand_name="  Acme Security ", brand_color="#1A73E8",
                    white_label="y")
    assert response.status_code == 302, text(response)
    key = stored(app, key_id)
    assert (key.brand_name, key.brand_color, key.white_label) == ("Acme Security", "#1a73e8", True)
    assert key.brand_logo == png and key.brand_logo_type == "image/png"
    assert key.brand_logo_digest == hashlib.sha256(png).hexdigest()

    listing = text(signed_in.get("/portal/keys"))
    assert "Prepared by Acme Security · accent #1a73e8 · PNG logo · white-label" in listing
    page = text(signed_in.get(f"/portal/keys/{key_id}/edit"))
    assert f"Logo uploaded (PNG, {round(len(png) / 1024)} KB)." in page and "12 KB" in page
    assert 'src="data:image/png;base64,' in page and 'alt="Your current logo"' in page
    assert 'value="Acme Security"' in page and 'value="#1a73e8"' in page
    assert re.search(r'<input[^>]*checked[^>]*name="white_label"|<input[^>]*name="white_label"[^>]*checked', page)
    assert "Remove the logo" in page


def test_saving_other_settings_keeps_the_logo(app, signed_in, key_id):
    assert edit(signed_in, key_id, (PLAIN_SVG, "acme.svg"), brand_name="Acme").status_code == 302
    assert edit(signed_in, key_id, brand_name="Acme", name="Renamed").status_code == 302
    key = stored(app, key_id)
    assert key.name == "Renamed" and key.brand_logo == PLAIN_SVG and key.brand_logo_type == "image/svg+xml"
    assert "Logo uploaded (SVG, " in text(signed_in.get(f"/portal/keys/{key_id}/edit"))


@pytest.mark.parametrize(("logo", "fields", "message"), [
    ((SCRIPTED_SVG, "logo.svg"), {}, "SVG logos may not contain scripts, event handlers or external references."),
    ((b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "logo.gif"), {}, "Logo must be a PNG or SVG file."),
    ((b"\x89PNG\r\n\x1a\n" + b"not really" * 10, "logo.png"), {}, "Logo is not a valid PNG image"),
    ((b"", "empty.png"), {}, "Logo file is empty."),
    (None, {"brand_color": "blue"}, "Accent colour must be a hex colour like #1a73e8."),
    (None, {"brand_name": "x" * 101}, "Brand name must be at most 100 characters."),
])
def test_a_bad_logo_or_colour_is_shown_on_the_form_and_nothing_changes(app, signed_in, key_id, logo, fields, message):
    assert edit(signed_in, key_id, (logo_png(), "old.png"), brand_name="Acme", brand_color="#0b1f44").status_code == 302
    before = stored(app, key_id)

    response = edit(signed_in, key_id, logo, name="Renamed", white_label="y",
                    **{"brand_name": "Acme", "brand_color": "#0b1f44", **fields})
    html = text(response)
    assert response.status_code == 200
    assert message in html
    assert 'aria-invalid="true"' in html  # the message is tied to its field
    after = stored(app, key_id)
    assert (after.name, after.white_label, after.brand_name, after.brand_color, after.brand_logo) == (
        "Production", False, "Acme", "#0b1f44", before.brand_logo)


def test_a_good_logo_sent_with_another_fields_error_is_not_stored_and_the_form_says_so(app, signed_in, key_id):
    response = edit(signed_in, key_id, (PLAIN_SVG, "acme.svg"), brand_name="Acme", webhook_url="ftp://hooks.example")
    assert response.status_code == 200
    assert "Webhook URL must start with http:// or https://." in text(response)
    assert "your new logo was not stored either: choose it again" in text(response)
    assert stored(app, key_id).brand_logo is None


def test_a_logo_over_64_kb_is_a_form_error_not_a_413(app, signed_in, key_id):
    big = logo_png(160)
    assert 65536 < len(big) < 1024 * 1024
    response = edit(signed_in, key_id, (big, "big.png"), brand_name="Acme")
    assert response.status_code == 200
    assert "Logo must be at most 64 KB." in text(response)
    assert stored(app, key_id).brand_logo is None and stored(app, key_id).brand_name is None


def test_an_upload_over_the_body_limit_gets_a_page_saying_what_to_do(app, signed_in, key_id):
    path = f"/portal/keys/{key_id}/edit"
    # Encoded in memory: the test client would spool a body this big to a temporary file it never closes.
    boundary, body = encode_multipart({
        "csrf_token": page_token(signed_in, path), "name": "Production", "tier": "standard",
        "brand_logo": FileStorage(io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"\x00" * (1024 * 1024 + 10)), "huge.png")})
    response = signed_in.post(path, data=body, content_type=f"multipart/form-data; boundary={boundary}")
    assert response.status_code == 413
    assert "A logo can be at most 64 KB" in text(response)
    assert stored(app, key_id).brand_logo is None


def test_remove_logo(app, signed_in, key_id):
    assert edit(signed_in, key_id, (logo_png(), "acme.png"), brand_name="Acme").status_code == 302
    both = edit(signed_in, key_id, (PLAIN_SVG, "new.svg"), brand_name="Acme", remove_logo="y")
    assert both.status_code == 200 and "Either choose a new logo or remove the current one, not both." in text(both)
    assert stored(app, key_id).brand_logo_type == "image/png"

    removed = edit(signed_in, key_id, brand_name="Acme", remove_logo="y")
    assert removed.status_code == 302
    key = stored(app, key_id)
    assert (key.brand_logo, key.brand_logo_type, key.brand_logo_digest) == (None, None, None)
    assert key.brand_name == "Acme"
    page = text(signed_in.get(f"/portal/keys/{key_id}/edit"))
    assert "No logo uploaded." in page and "data:image/" not in page
    assert "Prepared by Acme" in text(signed_in.get("/portal/keys"))


def test_clearing_the_name_and_colour_and_white_label(app, signed_in, key_id):
    assert edit(signed_in, key_id, brand_name="Acme", brand_color="#abc", white_label="y").status_code == 302
    assert stored(app, key_id).brand_color == "#aabbcc"
    assert edit(signed_in, key_id, brand_name="  ", brand_color="").status_code == 302
    key = stored(app, key_id)
    assert (key.brand_name, key.brand_color, key.white_label) == (None, None, False)
    assert "Our standard design" in text(signed_in.get("/portal/keys"))


def test_an_upload_without_a_valid_csrf_token_changes_nothing(app, signed_in, key_id):
    path = f"/portal/keys/{key_id}/edit"
    response = signed_in.post(path, content_type="multipart/form-data", data={
        "csrf_token": "forged", "name": "Production", "tier": "standard", "brand_name": "Evil",
        "brand_logo": (io.BytesIO(PLAIN_SVG), "evil.svg")})
    assert response.status_code == 400 and "This form has expired" in text(response)
    key = stored(app, key_id)
    assert key.brand_logo is None and key.brand_name is None


def test_a_new_key_can_be_created_with_its_brand(app, signed_in):
    response = signed_in.post("/portal/keys/new", content_type="multipart/form-data", data={
        "csrf_token": page_token(signed_in, "/portal/keys/new"), "name": "Branded", "tier": "standard",
        "brand_name": "Acme", "brand_color": "#0B1F44", "white_label": "y",
        "brand_logo": (io.BytesIO(PLAIN_SVG), "acme.svg")})
    response = follow(signed_in, response)
    assert response.status_code == 200 and re.search(r"crs_[0-9a-f]{64}", text(response))
    with app.app_context():
        key = db.session.query(ApiKey).filter_by(name="Branded").one()
        assert (key.brand_name, key.brand_color, key.white_label, key.brand_logo) == (
            "Acme", "#0b1f44", True, PLAIN_SVG)
