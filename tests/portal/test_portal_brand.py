"""The Brand page (/portal/brand): a partner uploads a logo, picks an accent colour and a "Prepared by" name,
turns white-label on and lists the sites that may frame the report pages, once for every key, and sees errors
for files, colours and origins that cannot be used, with nothing changed."""

from __future__ import annotations

import hashlib
import io
import re

import pytest
from PIL import Image
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from app.extensions import db
from app.keys.service import set_brand, set_embed_origins
from app.models import ApiKey, Partner
from app.portal.accounts import find_partner
from tests.embed import embed_path, generate, submit
from tests.portal import follow, make_user, page_token, sign_in

PARTNER = "Acme Security"
PATH = "/portal/brand"
SAVED = "Saved. Every key’s report pages and PDFs use this brand and these embed origins from now on."
SCRIPTED_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                b'<script>alert(document.cookie)</script><rect width="10" height="10"/></svg>')
PLAIN_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>'
KEY_CARD = re.compile(r'<article class="card keycard.*?</article>', re.DOTALL)


def text(response) -> str:
    return response.get_data(as_text=True)


def logo_png(side: int = 64) -> bytes:
    """An uncompressed PNG of side × side noisy pixels: 64 gives about 12 KB, 160 over 64 KB."""
    pixels = bytes((i * 7919) % 251 for i in range(side * side * 3))
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(buffer, "PNG", compress_level=0)
    return buffer.getvalue()


@pytest.fixture
def key_id(make_key) -> int:
    return make_key(PARTNER, name="Production").key.id


def save(client, logo: tuple[bytes, str] | None = None, **fields):
    """Submit the brand form as a browser does: multipart, with the page's CSRF token and every text field
    (an unticked checkbox is not sent)."""
    data = {"csrf_token": page_token(client, PATH), "embed_origins": "", "brand_name": "", "brand_color": "",
            "brand_logo": (io.BytesIO(logo[0]), logo[1]) if logo else (io.BytesIO(b""), ""), **fields}
    return client.post(PATH, data=data, content_type="multipart/form-data")


def stored(app, name: str = PARTNER) -> Partner:
    with app.app_context():
        partner = find_partner(name)
        partner.brand_logo  # noqa: B018 - load the deferred bytes before the session closes
        db.session.expunge(partner)
        return partner


def every_key_card(listing: str) -> str:
    """The keys page's "Every key" card: the brand and embed origins all the partner's keys use."""
    return re.search(r'<section class="card" aria-labelledby="every-key">.*?</section>', listing, re.DOTALL).group(0)


def test_the_brand_page_has_the_brand_and_embedding_fields(signed_in, key_id):
    html = text(signed_in.get(PATH))
    assert re.search(r'<form[^>]*enctype="multipart/form-data"', html)
    assert ">Brand</legend>" in html and ">Embedding</legend>" in html
    assert re.search(r'<textarea[^>]*name="embed_origins"', html) and "Leave empty to allow any site." in html
    assert re.search(r'<input[^>]*type="file"[^>]*accept="image/png,image/svg\+xml"|'
                     r'<input[^>]*accept="image/png,image/svg\+xml"[^>]*type="file"', html)
    assert ">Prepared by <" in html and "Accent colour" in html and 'type="color"' in html
    assert "White-label" in html and "Hide every mention of Compliance Reports" in html
    assert "No logo uploaded." in html
    assert "Remove the logo" not in html  # nothing to remove yet


def test_the_key_form_has_no_brand_or_embed_origin_fields_and_points_to_the_brand_page(signed_in, key_id):
    for path in (f"/portal/keys/{key_id}/edit", "/portal/keys/new"):
        html = text(signed_in.get(path))
        for name in ("embed_origins", "brand_name", "brand_color", "brand_logo", "remove_logo", "white_label"):
            assert f'name="{name}"' not in html, (path, name)
        assert 'type="file"' not in html and ">Brand</legend>" not in html, path
        assert f'href="{PATH}"' in html, path


def test_the_brand_page_is_reachable_from_the_portal_navigation(signed_in):
    listing = text(signed_in.get("/portal/keys"))
    nav = re.search(r'<nav class="nav" aria-label="Portal sections">.*?</nav>', listing, re.DOTALL).group(0)
    link = re.search(rf'<a class="nav__link" href="{PATH}"[^>]*>Brand</a>', nav)
    assert link and "aria-current" not in link.group(0)
    assert "Change brand and embedding" in every_key_card(listing) and f'href="{PATH}"' in every_key_card(listing)
    page = text(signed_in.get(PATH))
    assert re.search(rf'<a class="nav__link" href="{PATH}" aria-current="page">Brand</a>', page)
    assert "<h1>Brand and embedding</h1>" in page


def test_a_partner_uploads_a_logo_and_sets_the_brand(app, signed_in, key_id):
    png = logo_png()
    response = save(signed_in, (png, "acme.png"), brand_name="  Acme Security ", brand_color="#1A73E8",
                    white_label="y", embed_origins="https://portal.acme.example/\nhttps://portal.acme.example")
    assert response.status_code == 303, text(response)
    assert response.headers["Location"] == PATH
    partner = stored(app)
    assert (partner.brand_name, partner.brand_color, partner.white_label) == ("Acme Security", "#1a73e8", True)
    assert partner.brand_logo == png and partner.brand_logo_type == "image/png"
    assert partner.brand_logo_digest == hashlib.sha256(png).hexdigest()
    assert partner.embed_origins == ["https://portal.acme.example"]

    card = every_key_card(text(signed_in.get("/portal/keys")))
    assert "Prepared by Acme Security · accent #1a73e8 · PNG logo · white-label" in card
    assert "https://portal.acme.example" in card
    page = text(signed_in.get(PATH))
    assert f"Logo uploaded (PNG, {round(len(png) / 1024)} KB)." in page and "12 KB" in page
    assert 'src="data:image/png;base64,' in page and 'alt="Your current logo"' in page
    assert 'value="Acme Security"' in page and 'value="#1a73e8"' in page
    assert re.search(r'<textarea[^>]*name="embed_origins"[^>]*>\s*https://portal.acme.example</textarea>', page)
    assert re.search(r'<input[^>]*checked[^>]*name="white_label"|<input[^>]*name="white_label"[^>]*checked', page)
    assert "Remove the logo" in page


def test_saving_the_brand_applies_to_every_key_including_one_created_afterwards(app, signed_in, client, make_key):
    production = make_key(PARTNER, name="Production")
    staging = make_key(PARTNER, name="Staging", livemode=False)
    origins = ["https://portal.acme.example", "https://intranet.acme.example:8443"]
    assert save(signed_in, (PLAIN_SVG, "acme.svg"), brand_name="Acme Security", brand_color="#0b1f44",
                embed_origins="\n".join(origins)).status_code == 303

    created = follow(signed_in, signed_in.post("/portal/keys/new", data={
        "csrf_token": page_token(signed_in, "/portal/keys/new"), "name": "Later", "tier": "standard"}))
    later = re.search(r"crs_[0-9a-f]{64}", text(created)).group(0)

    partner = stored(app)
    assert (partner.brand_name, partner.brand_color, partner.brand_logo, partner.embed_origins) == (
        "Acme Security", "#0b1f44", PLAIN_SVG, origins)
    with app.app_context():
        keys = db.session.query(ApiKey).order_by(ApiKey.id).all()
        assert [k.name for k in keys] == ["Production", "Staging", "Later"]
        assert {k.partner_id for k in keys} == {partner.id}   # one brand, read from the partner by every key

    listing = text(signed_in.get("/portal/keys"))
    card = every_key_card(listing)
    assert "Prepared by Acme Security · accent #0b1f44 · SVG logo" in card and "white-label" not in card
    assert "https://portal.acme.example, https://intranet.acme.example:8443" in card
    cards = KEY_CARD.findall(listing)
    assert len(cards) == 3
    assert not any("Prepared by" in c or "acme.example" in c or "Embed origins" in c for c in cards)

    # What the clients see: the report pages of the old keys and of the new one carry the brand and may be
    # framed by exactly the listed sites.
    for api_key in (production.api_key, staging.api_key, later):
        auth = {"Authorization": f"Bearer {api_key}"}
        record = submit(client, auth)
        generate(client, auth, record["id"])
        page = client.get(embed_path(record))
        assert page.status_code == 200 and "Prepared by Acme Security" in text(page)
        assert f"frame-ancestors {' '.join(origins)}" in page.headers["Content-Security-Policy"]


def test_a_save_answers_with_a_redirect_so_a_reload_does_not_post_again(app, signed_in, key_id):
    posted = save(signed_in, brand_name="Acme", embed_origins="https://portal.acme.example")
    assert posted.status_code == 303 and posted.headers["Location"] == PATH
    assert SAVED not in text(posted)
    shown = signed_in.get(posted.headers["Location"])
    assert shown.status_code == 200 and text(shown).count(SAVED) == 1
    assert 'value="Acme"' in text(shown)
    reloaded = signed_in.get(PATH)   # what the browser's reload does: the GET again, no form resent
    assert reloaded.status_code == 200 and SAVED not in text(reloaded)
    assert 'value="Acme"' in text(reloaded)
    partner = stored(app)
    assert (partner.brand_name, partner.embed_origins) == ("Acme", ["https://portal.acme.example"])


def test_another_partners_brand_is_untouched(app, signed_in, key_id):
    make_user(app, "Globex", "bo@globex.example")
    with app.app_context():
        globex = find_partner("Globex")
        set_brand(globex, name="Globex Audit", color="#b91c1c", logo=PLAIN_SVG, white_label=True)
        set_embed_origins(globex, ["https://globex.example"])
        db.session.commit()
    before = stored(app, "Globex")

    assert save(signed_in, (logo_png(), "acme.png"), brand_name="Acme", brand_color="#0b1f44",
                embed_origins="https://portal.acme.example").status_code == 303
    assert "Globex" not in text(signed_in.get(PATH)) and "globex" not in text(signed_in.get("/portal/keys"))
    removed = save(signed_in, brand_name="", remove_logo="y")
    assert removed.status_code == 303

    after = stored(app, "Globex")
    assert (after.brand_name, after.brand_color, after.brand_logo, after.brand_logo_digest, after.white_label,
            after.embed_origins) == ("Globex Audit", "#b91c1c", PLAIN_SVG, before.brand_logo_digest, True,
                                     ["https://globex.example"])
    theirs = app.test_client()
    assert sign_in(theirs, "bo@globex.example").status_code == 302
    page = text(theirs.get(PATH))
    assert 'value="Globex Audit"' in page and "https://globex.example" in page
    assert 'value="Acme"' not in page and "#0b1f44" not in page and "portal.acme.example" not in page
    card = every_key_card(text(theirs.get("/portal/keys")))
    assert "Prepared by Globex Audit · accent #b91c1c · SVG logo · white-label" in card


def test_saving_other_settings_keeps_the_logo(app, signed_in, key_id):
    assert save(signed_in, (PLAIN_SVG, "acme.svg"), brand_name="Acme").status_code == 303
    # The brand form again, without a file: the logo stays.
    assert save(signed_in, brand_name="Acme Security", embed_origins="https://portal.acme.example").status_code == 303
    # A key's own settings: the partner's brand is not the key form's to change.
    edited = signed_in.post(f"/portal/keys/{key_id}/edit", data={
        "csrf_token": page_token(signed_in, f"/portal/keys/{key_id}/edit"), "name": "Renamed", "tier": "standard"})
    assert edited.status_code == 302
    partner = stored(app)
    assert partner.brand_logo == PLAIN_SVG and partner.brand_logo_type == "image/svg+xml"
    assert (partner.brand_name, partner.embed_origins) == ("Acme Security", ["https://portal.acme.example"])
    with app.app_context():
        assert db.session.get(ApiKey, key_id).name == "Renamed"
    assert "Logo uploaded (SVG, " in text(signed_in.get(PATH))


@pytest.mark.parametrize(("logo", "fields", "message"), [
    ((SCRIPTED_SVG, "logo.svg"), {}, "SVG logos may not contain scripts, event handlers or external references."),
    ((b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "logo.gif"), {}, "Logo must be a PNG or SVG file."),
    ((b"\x89PNG\r\n\x1a\n" + b"not really" * 10, "logo.png"), {}, "Logo is not a valid PNG image"),
    ((b"", "empty.png"), {}, "Logo file is empty."),
    (None, {"brand_color": "blue"}, "Accent colour must be a hex colour like #1a73e8."),
    (None, {"brand_name": "x" * 101}, "Brand name must be at most 100 characters."),
    (None, {"embed_origins": "https://other.example\nportal.example.com/x"},
     "“portal.example.com/x” is not an origin: write it like https://example.com, without a path."),
])
def test_a_bad_value_is_shown_on_the_form_and_nothing_changes(app, signed_in, key_id, logo, fields, message):
    assert save(signed_in, (logo_png(), "old.png"), brand_name="Acme", brand_color="#0b1f44",
                embed_origins="https://portal.acme.example").status_code == 303
    before = stored(app)

    response = save(signed_in, logo, white_label="y", **{"brand_name": "Acme", "brand_color": "#0b1f44",
                                                         "embed_origins": "https://other.example", **fields})
    html = text(response)
    assert response.status_code == 200
    assert message in html
    assert 'aria-invalid="true"' in html  # the message is tied to its field
    assert SAVED not in html
    after = stored(app)
    assert (after.white_label, after.brand_name, after.brand_color, after.brand_logo, after.embed_origins) == (
        False, "Acme", "#0b1f44", before.brand_logo, ["https://portal.acme.example"])


def test_a_good_logo_sent_with_another_fields_error_is_not_stored_and_the_form_says_so(app, signed_in, key_id):
    response = save(signed_in, (PLAIN_SVG, "acme.svg"), brand_name="Acme", embed_origins="portal.example.com/x")
    assert response.status_code == 200
    assert "is not an origin" in text(response)
    assert "your new logo was not stored either: choose it again" in text(response)
    partner = stored(app)
    assert (partner.brand_logo, partner.brand_name) == (None, None)


def test_a_logo_over_64_kb_is_a_form_error_not_a_413(app, signed_in, key_id):
    big = logo_png(160)
    assert 65536 < len(big) < 1024 * 1024
    response = save(signed_in, (big, "big.png"), brand_name="Acme")
    assert response.status_code == 200
    assert "Logo must be at most 64 KB." in text(response)
    assert stored(app).brand_logo is None and stored(app).brand_name is None


def test_an_upload_over_the_body_limit_gets_a_page_saying_what_to_do(app, signed_in, key_id):
    # Encoded in memory: the test client would spool a body this big to a temporary file it never closes.
    boundary, body = encode_multipart({
        "csrf_token": page_token(signed_in, PATH), "brand_name": "Acme",
        "brand_logo": FileStorage(io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"\x00" * (1024 * 1024 + 10)), "huge.png")})
    response = signed_in.post(PATH, data=body, content_type=f"multipart/form-data; boundary={boundary}")
    assert response.status_code == 413
    assert "A logo can be at most 64 KB" in text(response)
    assert stored(app).brand_logo is None and stored(app).brand_name is None


def test_remove_logo(app, signed_in, key_id):
    assert save(signed_in, (logo_png(), "acme.png"), brand_name="Acme").status_code == 303
    both = save(signed_in, (PLAIN_SVG, "new.svg"), brand_name="Acme", remove_logo="y")
    assert both.status_code == 200 and "Either choose a new logo or remove the current one, not both." in text(both)
    assert stored(app).brand_logo_type == "image/png"

    removed = save(signed_in, brand_name="Acme", remove_logo="y")
    assert removed.status_code == 303
    partner = stored(app)
    assert (partner.brand_logo, partner.brand_logo_type, partner.brand_logo_digest) == (None, None, None)
    assert partner.brand_name == "Acme"
    page = text(signed_in.get(PATH))
    assert "No logo uploaded." in page and "data:image/" not in page
    assert "Prepared by Acme" in every_key_card(text(signed_in.get("/portal/keys")))


def test_clearing_the_name_colour_white_label_and_origins(app, signed_in, key_id):
    assert save(signed_in, brand_name="Acme", brand_color="#abc", white_label="y",
                embed_origins="https://portal.acme.example").status_code == 303
    assert stored(app).brand_color == "#aabbcc"
    assert save(signed_in, brand_name="  ", brand_color="", embed_origins=" \n").status_code == 303
    partner = stored(app)
    assert (partner.brand_name, partner.brand_color, partner.white_label, partner.embed_origins) == (
        None, None, False, [])
    card = every_key_card(text(signed_in.get("/portal/keys")))
    assert "Our standard design" in card and "Any site" in card


def test_an_upload_without_a_valid_csrf_token_changes_nothing(app, signed_in, key_id):
    response = signed_in.post(PATH, content_type="multipart/form-data", data={
        "csrf_token": "forged", "brand_name": "Evil", "embed_origins": "https://evil.example",
        "brand_logo": (io.BytesIO(PLAIN_SVG), "evil.svg")})
    assert response.status_code == 400 and "This form has expired" in text(response)
    partner = stored(app)
    assert (partner.brand_logo, partner.brand_name, partner.embed_origins) == (None, None, [])


def test_signed_out_the_brand_page_redirects_to_sign_in_and_a_post_changes_nothing(app, client, key_id):
    make_user(app)
    response = client.get(PATH)
    assert response.status_code == 302 and response.headers["Location"].startswith("/portal/login")
    posted = client.post(PATH, data={"brand_name": "Evil"})
    assert posted.status_code in (302, 400)
    assert stored(app).brand_name is None
