"""An assessment's own portal page: what was submitted and by which key, its 25 reports with page and PDF links
that open, its webhook deliveries and its charge; linked from the assessments list and from each delivery."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlsplit

import pytest

from tests.embed import generate, submit
from tests.portal import make_user, sign_in


@pytest.fixture
def signed_in(app, client):
    make_user(app, partner="acme")
    assert sign_in(client).status_code == 302
    return client


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def text(response) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)).replace("\xa0", " "))


def links(response, label: str) -> list[str]:
    """The hrefs of the page's links whose text starts with `label`."""
    html = response.get_data(as_text=True)
    return [unescape(href) for href, inner in re.findall(r'<a[^>]*href="([^"]+)"[^>]*>(.*?)</a>', html, re.S)
            if re.sub(r"<[^>]+>", "", inner).strip().startswith(label)]


def local(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def test_the_page_shows_the_run_its_key_its_reports_deliveries_and_charge(app, signed_in, make_key):
    app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = True   # a receiver on loopback: the delivery waits in the outbox
    issued = make_key("acme", name="Production", webhook_url="http://127.0.0.1:9/hooks")
    record = submit(signed_in, bearer(issued), displayName="Harbour Dental")
    generate(signed_in, bearer(issued), record["id"])
    page = signed_in.get(f"/portal/assessments/{record['id']}")
    assert page.status_code == 200
    words = " ".join(text(page).split())
    assert f"Assessment #{record['id']}" in words and "Harbour Dental" in words and record["framework"] in words
    assert f"Production crs_…{issued.api_key[-4:]}" in words and "Live" in words
    assert "250 USD for 25 reports" in words and "25 reports" in words
    assert "CEO / President" in words and "Insurance Underwriter" in words and "External Auditor" in words
    pages, pdfs = links(page, "Page"), links(page, "PDF")
    assert len(pages) == len(pdfs) == 25
    for url in (pages[0], pdfs[3], links(page, "Open the viewer")[0], links(page, "All reports as one PDF")[0]):
        opened = signed_in.get(local(url))
        assert opened.status_code == 200, url
    # Each delivery opens its own page (payload and answers), whatever page of the log or mode it sits on.
    delivery = links(page, "assessment.reports.completed")
    assert len(delivery) == 1 and delivery[0].startswith("/portal/webhooks/dlv_")
    assert signed_in.get(delivery[0]).status_code == 200
    # Linked from the list and from the delivery.
    target = f'href="/portal/assessments/{record["id"]}"'
    assert target in signed_in.get("/portal/assessments").get_data(as_text=True)
    assert target in signed_in.get("/portal/webhooks").get_data(as_text=True)


def test_a_test_assessment_says_test_and_is_never_billed(signed_in, make_key):
    issued = make_key("acme", livemode=False)
    record = submit(signed_in, bearer(issued))
    generate(signed_in, bearer(issued), record["id"])
    words = " ".join(text(signed_in.get(f"/portal/assessments/{record['id']}")).split())
    assert "Test" in words and "test assessments are never billed" in words and "USD for" not in words


def test_before_generation_there_is_nothing_to_open_and_nothing_billed(signed_in, make_key):
    issued = make_key("acme")
    record = submit(signed_in, bearer(issued))
    page = signed_in.get(f"/portal/assessments/{record['id']}")
    words = " ".join(text(page).split())
    assert "Not yet" in words and "billed once a run delivers reports" in words
    assert not links(page, "Open the viewer") and not links(page, "Page") and not links(page, "PDF")
    assert "the key that submitted it has no webhook URL" in words


@pytest.mark.parametrize("raw", ["999999", "abc", "١", "0", str(2**63), "-1"])
def test_unknown_ids_are_404(signed_in, raw):
    assert signed_in.get(f"/portal/assessments/{raw}").status_code == 404


def test_another_partners_assessment_is_404(signed_in, client, make_key):
    stranger = make_key("globex")
    record = submit(client, bearer(stranger))
    assert signed_in.get(f"/portal/assessments/{record['id']}").status_code == 404


def test_a_signed_embeds_keys_links_are_signed_and_open(app, runner, signed_in, make_key):
    issued = make_key("acme", require_signed_embeds=True)
    record = submit(signed_in, bearer(issued))
    result = generate(signed_in, bearer(issued), record["id"])
    assert signed_in.get(urlsplit(result["embedUrl"]).path).status_code == 403     # unsigned: refused
    page = signed_in.get(f"/portal/assessments/{record['id']}")
    for url in (links(page, "Open the viewer")[0], links(page, "Page")[5], links(page, "PDF")[0]):
        assert "expires=" in url and "signature=" in url
        assert signed_in.get(local(url)).status_code == 200, url


# --------------------------------------------------------------------------- the partner's own looks

def cfo_views(client, auth, record) -> int:
    client.application.extensions["view_counter"].flush()
    reports = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"]
    return next(r["viewCount"] for r in reports if r["persona"] == "cfo")


def test_a_signed_in_partner_users_looks_are_not_client_views(app, make_key):
    """The portal's own links and the viewer opened from them leave the view counts alone; a client's browser, a
    user of another partner and the partner's user once signed out are counted."""
    issued = make_key("acme")
    reader = app.test_client()
    record = submit(reader, bearer(issued))
    result = generate(reader, bearer(issued), record["id"])
    cfo_page = next(r["viewUrl"] for r in result["reports"] if r["persona"] == "cfo")
    fragment = f"{urlsplit(result['embedUrl']).path}/reports/cfo"

    partner = app.test_client()
    make_user(app, partner="acme")
    assert sign_in(partner).status_code == 302
    assert partner.get("/portal/keys").status_code == 200          # any portal page renews the mark
    for path in (cfo_page, cfo_page, fragment):
        assert partner.get(path).status_code == 200
    assert cfo_views(reader, bearer(issued), record) == 0

    assert reader.get(cfo_page).status_code == 200                  # a client
    assert cfo_views(reader, bearer(issued), record) == 1

    stranger = app.test_client()
    make_user(app, partner="globex", email="bob@globex.example")
    assert sign_in(stranger, email="bob@globex.example").status_code == 302
    stranger.get("/portal/keys")
    assert stranger.get(cfo_page).status_code == 200                # another partner's user is a reader like any
    assert cfo_views(reader, bearer(issued), record) == 2

    page = partner.get("/portal/keys")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    assert partner.post("/portal/logout", data={"csrf_token": token}).status_code == 302
    assert partner.get(cfo_page).status_code == 200                 # signed out: counted again
    assert cfo_views(reader, bearer(issued), record) == 3


def test_the_mark_is_a_strict_http_only_cookie_for_the_embed_pages_only(app, signed_in, make_key):
    response = signed_in.get("/portal/keys")
    cookie = next(value for name, value in response.headers.items()
                  if name == "Set-Cookie" and value.startswith("crs_preview="))
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "path", "max-age"} <= attributes and "Path=/embed" in cookie and "SameSite=Strict" in cookie
    # A forged value is ignored (the view counts), never an error.
    issued = make_key("acme")
    reader = app.test_client()
    record = submit(reader, bearer(issued))
    result = generate(reader, bearer(issued), record["id"])
    reader.set_cookie("crs_preview", cookie.split(";")[0].split("=", 1)[1][:-2] + "xx", path="/embed")
    assert reader.get(next(r["viewUrl"] for r in result["reports"] if r["persona"] == "cfo")).status_code == 200
    assert cfo_views(reader, bearer(issued), record) == 1


def test_a_failed_attempt_says_its_status_once(app, signed_in, make_key):
    """The issue's "HTTP 503 HTTP 503": the status is said once on the assessment page, as on the delivery's."""
    from app.extensions import db
    from app.models import WebhookDelivery

    app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = True
    issued = make_key("acme", webhook_url="http://127.0.0.1:9/hooks")
    record = submit(signed_in, bearer(issued))
    generate(signed_in, bearer(issued), record["id"])
    with app.app_context():
        delivery = db.session.execute(db.select(WebhookDelivery)).scalar_one()
        delivery.attempts = [{"at": "2026-11-28T01:00:00Z", "url": delivery.url, "statusCode": 503,
                              "error": "HTTP 503", "durationMs": 12}]
        db.session.commit()
        delivery_id = delivery.id
    for path in (f"/portal/assessments/{record['id']}", f"/portal/webhooks/{delivery_id}"):
        words = " ".join(text(signed_in.get(path)).split())
        assert words.count("HTTP 503") == 1, path
