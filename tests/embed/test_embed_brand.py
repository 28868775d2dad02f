"""A partner's brand on the embed pages: name, accent colour, logo, white-label; over the test client."""

from __future__ import annotations

import base64
import hashlib
import io
import re

import pytest
from PIL import Image
from sqlalchemy import update

from app.keys.brand import contrast_ratio, logo_digest
from app.keys.service import set_brand, set_embed_origins
from app.models import Partner
from tests.embed import embed_path, generate, submit, view_path

SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">'
       b'<rect width="120" height="40" fill="#0f766e"/></svg>')


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 40), (15, 118, 110)).save(out, format="PNG")
    return out.getvalue()


def brand(app, **values) -> None:
    """Set the partner's brand columns (every key of the partner shows them)."""
    with app.app_context():
        from app.extensions import db
        db.session.execute(update(Partner).values(**values))
        db.session.commit()


@pytest.fixture
def generated(client, auth) -> tuple[dict, dict]:
    record = submit(client, auth)
    return record, generate(client, auth, record["id"])


def pages(client, record, result):
    for path in (embed_path(record), view_path(result, "cfo")):
        response = client.get(path)
        assert response.status_code == 200
        yield response


def test_without_a_brand_the_pages_name_no_partner_and_set_no_colour(client, generated):
    for response in pages(client, *generated):
        body = response.get_data(as_text=True)
        assert "Prepared by" not in body and "masthead__logo" not in body and "<style>" not in body
        assert "Stakeholder reports by Compliance Report Service" in body
        assert "sha256-" not in response.headers["Content-Security-Policy"]


def test_brand_name_colour_and_logo_show_and_the_colour_passes_the_csp(app, client, generated):
    data = png()
    brand(app, brand_name="Acme <Security>", brand_color="#0f766e", brand_logo=data, brand_logo_type="image/png",
          brand_logo_digest=logo_digest(data))
    for response in pages(client, *generated):
        body = response.get_data(as_text=True)
        assert "Prepared by Acme &lt;Security&gt;" in body
        assert f'<img class="masthead__logo" src="/embed/logo/{logo_digest(data)}" alt="Acme &lt;Security&gt;"' in body
        style = re.search(r"<style>(.*?)</style>", body, re.DOTALL).group(1)
        assert "--accent:#0f766e" in style and "--on-accent:#ffffff" in style
        digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in response.headers["Content-Security-Policy"]
        # A reload's 304 carries the same policy, so the browser's stored copy keeps its colours.
        again = client.get(response.request.path, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304 and again.headers["Content-Security-Policy"] == \
            response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("accent", ["#fde047", "#0f766e", "#ffffff", "#000000", "#1d4ed8", "#ff7f50"])
def test_text_on_and_in_any_accent_keeps_wcag_aa(app, client, generated, accent):
    brand(app, brand_color=accent)
    body = client.get(view_path(generated[1], "cfo")).get_data(as_text=True)
    values = dict(re.findall(r"--([a-z-]+):(#[0-9a-f]{6})", body))
    assert values["accent"] == accent
    assert contrast_ratio(values["on-accent"], accent) >= 4.5          # button and chip text on the accent
    assert contrast_ratio(values["accent-ink"], "#ffffff") >= 4.5      # links and labels in the accent's hue
    assert contrast_ratio(values["accent-ink"], values["accent-soft"]) >= 4.5   # the call to action's label


def test_white_label_hides_every_mention_of_the_service(app, client, generated):
    brand(app, brand_name="Acme Security", white_label=True)
    for response in pages(client, *generated):
        body = response.get_data(as_text=True)
        assert "Compliance Report Service" not in body and "<footer" not in body
        assert "Prepared by Acme Security" in body


@pytest.mark.parametrize("kind", ["png", "svg"])
def test_the_logo_is_served_from_our_origin_cached_for_a_year_and_runs_no_script(app, client, generated, kind):
    data, mimetype = (png(), "image/png") if kind == "png" else (SVG, "image/svg+xml")
    brand(app, brand_logo=data, brand_logo_type=mimetype, brand_logo_digest=logo_digest(data))
    response = client.get(f"/embed/logo/{logo_digest(data)}")
    assert response.status_code == 200 and response.mimetype == mimetype and response.data == data
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    policy = response.headers["Content-Security-Policy"]
    assert "sandbox" in policy and "default-src 'none'" in policy and "script-src" not in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get(f"/embed/logo/{'0' * 64}").status_code == 404
    assert client.get("/embed/logo/not-a-digest").status_code == 404


def test_a_brand_change_shows_on_the_next_view(app, client, generated):
    record, result = generated
    first = client.get(view_path(result, "cfo"))
    brand(app, brand_name="Acme Security")
    again = client.get(view_path(result, "cfo"), headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and "Prepared by Acme Security" in again.get_data(as_text=True)


def frame_ancestors(response) -> str:
    return re.search(r"frame-ancestors ([^;]*)", response.headers["Content-Security-Policy"]).group(1).strip()


def test_a_new_key_shows_its_partners_brand_and_origins_and_another_partners_key_does_not(app, client, make_key):
    """The brand and embed origins are the partner's: a key issued after they were set serves them from its first
    assessment (as does the older key), while a key of another partner serves unbranded pages any site may frame."""
    origins = ["https://portal.acme.example", "https://*.acme.example"]
    older = make_key("acme")
    with app.app_context():
        from app.extensions import db
        partner = db.session.get(Partner, older.key.partner_id)
        set_brand(partner, name="Acme Security", color="#0F766E")
        set_embed_origins(partner, origins)
        db.session.commit()
    new = make_key("acme")
    other = make_key("globex")
    assert new.key.partner_id == older.key.partner_id != other.key.partner_id
    for issued, branded in ((new, True), (older, True), (other, False)):
        auth = {"Authorization": f"Bearer {issued.api_key}"}
        record = submit(client, auth)
        for response in pages(client, record, generate(client, auth, record["id"])):
            body = response.get_data(as_text=True)
            if branded:
                assert "Prepared by Acme Security" in body and "--accent:#0f766e" in body
                assert frame_ancestors(response) == " ".join(origins)
            else:
                assert "Prepared by" not in body and "--accent" not in body and "<style>" not in body
                assert "Stakeholder reports by Compliance Report Service" in body
                assert frame_ancestors(response) == "*"
