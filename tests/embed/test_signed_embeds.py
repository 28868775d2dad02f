"""Signed, expiring embed URLs (issue 31): a key may require that its embed pages and PDFs open only at
`?expires=<unix seconds>&signature=<hex HMAC-SHA256(embed secret, "<token>:<expires>")>`, signed by the
partner's server; permanent tokens stay the default. Signatures are made here as the README's example makes
them, independently of the app's code."""

from __future__ import annotations

import hashlib
import hmac
import html as html_module
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import template_rendered
from sqlalchemy import event, select

from app.extensions import db
from app.keys.service import rotate_embed_secret
from app.models import ApiKey, EmbedPage
from tests.embed import embed_path, generate, submit, view_path

HOUR = 3600
EXPIRED = "This link has expired: ask the page that showed it to load it again."
NOT_SIGNED = "This link is not signed"
INVALID = "This link&#39;s signature is not valid"
TOO_LONG = "This link is valid for too long: a signed link may expire at most 24 hours ahead."


def sign(secret: str, token: str, expires: int | str) -> str:
    return hmac.new(secret.encode(), f"{token}:{expires}".encode(), hashlib.sha256).hexdigest()


def token_of(path: str) -> str:
    return re.match(r"/embed/(?:assessment|report)/([A-Za-z0-9_-]+?)(?:\.pdf|/|\?|$)", path).group(1)


def signed(path: str, secret: str, expires: int | None = None) -> str:
    """The path with `expires` and `signature` appended, as a partner's server signs it."""
    expires = int(time.time()) + 10 * 60 if expires is None else expires
    return f"{path}{'&' if '?' in path else '?'}expires={expires}&signature={sign(secret, token_of(path), expires)}"


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def seed(client, issued) -> tuple[dict, dict]:
    record = submit(client, bearer(issued))
    return record, generate(client, bearer(issued), record["id"])


@pytest.fixture
def strict(make_key):
    """A key that requires signed embeds, framed only by its partner's site."""
    return make_key("acme", require_signed_embeds=True, embed_origins=["https://portal.acme.example"])


@pytest.fixture
def strict_generated(client, strict):
    return seed(client, strict)


def pages(record: dict, result: dict) -> list[str]:
    """The viewer (plain and with ?persona=), a fragment, a report page."""
    return [embed_path(record), embed_path(record) + "?persona=cfo", embed_path(record) + "/reports/cfo",
            view_path(result, "cfo")]


def pdfs(record: dict, result: dict) -> list[str]:
    return [embed_path(record) + ".pdf", view_path(result, "cfo") + ".pdf"]


def refused(response, sentence: str) -> None:
    """A 403 in the house style of the embed errors, framed like the page, never stored by a browser."""
    assert response.status_code == 403, (response.status_code, response.get_data(as_text=True)[:300])
    assert response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert sentence in body and "Error 403" in body
    assert "frame-ancestors https://portal.acme.example" in response.headers["Content-Security-Policy"]
    assert response.headers["Cache-Control"] == "no-store"


def token_links(body: str) -> list[str]:
    """Every link in a page to one of the token pages (fragments, pages, PDFs), unescaped."""
    return [html_module.unescape(href) for href in re.findall(r'\shref="([^"]*/embed/(?:assessment|report)/[^"]*)"',
                                                              body)]


# --------------------------------------------------------------------------- a key that requires signing

def test_a_valid_signature_opens_every_page_and_fragment(client, strict, strict_generated):
    for path in pages(*strict_generated):
        response = client.get(signed(path, strict.embed_secret))
        assert response.status_code == 200, path
        assert "frame-ancestors https://portal.acme.example" in response.headers["Content-Security-Policy"]
    again = client.get(signed(embed_path(strict_generated[0]) + "?persona=cfo", strict.embed_secret))
    assert 'data-persona="cfo"' in again.get_data(as_text=True)


def test_an_expired_signed_url_is_refused(client, strict, strict_generated):
    expired = int(time.time()) - 1
    for path in pages(*strict_generated) + pdfs(*strict_generated):
        refused(client.get(signed(path, strict.embed_secret, expired)), EXPIRED)
    # A moment ago it was fine: only the expiry differs.
    assert client.get(signed(embed_path(strict_generated[0]), strict.embed_secret)).status_code == 200


def test_an_unsigned_url_is_refused_when_the_key_requires_signing(client, strict_generated):
    for path in pages(*strict_generated) + pdfs(*strict_generated):
        refused(client.get(path), NOT_SIGNED)
    # Half a signature is no signature.
    expires = int(time.time()) + 600
    refused(client.get(embed_path(strict_generated[0]) + f"?expires={expires}"), NOT_SIGNED)


def test_a_tampered_signature_is_refused(client, strict, strict_generated):
    record, result = strict_generated
    path = signed(embed_path(record), strict.embed_secret)
    expires = parse_qs(urlsplit(path).query)["expires"][0]
    signature = parse_qs(urlsplit(path).query)["signature"][0]
    flipped = signature[:-1] + ("0" if signature[-1] != "0" else "1")
    refused(client.get(f"{embed_path(record)}?expires={expires}&signature={flipped}"), INVALID)
    # A later expiry under the same signature: the signature covers the expiry.
    refused(client.get(f"{embed_path(record)}?expires={int(expires) + 60}&signature={signature}"), INVALID)
    # The viewer's signature on a report page: it covers the token too.
    refused(client.get(f"{view_path(result, 'cfo')}?expires={expires}&signature={signature}"), INVALID)
    refused(client.get(f"{view_path(result, 'cfo')}.pdf?expires={expires}&signature={signature}"), INVALID)
    # Signed with another secret (another key's, or this key's before a rotation).
    refused(client.get(signed(embed_path(record), "embsec_" + "0" * 64)), INVALID)


def test_an_expiry_more_than_24_hours_ahead_is_refused(client, strict, strict_generated):
    path = embed_path(strict_generated[0])
    refused(client.get(signed(path, strict.embed_secret, int(time.time()) + 25 * HOUR)), TOO_LONG)
    assert client.get(signed(path, strict.embed_secret, int(time.time()) + 23 * HOUR)).status_code == 200


@pytest.mark.parametrize("query", [
    "expires=abc&signature=" + "0" * 64, "expires=-5&signature=" + "0" * 64, "expires=1e9&signature=" + "0" * 64,
    "expires=" + "9" * 40 + "&signature=" + "0" * 64, "expires=1700000000&signature=xyz",
    "expires=1700000000&signature=" + "é" * 64, "expires=1700000000&signature=" + "0" * 65,
    "expires=1&expires=2&signature=" + "0" * 64, "signature=" + "0" * 64, "expires=%00&signature=%00",
])
def test_malformed_signatures_are_a_403_never_a_500(client, strict_generated, query):
    record, result = strict_generated
    for path in (embed_path(record), embed_path(record) + "/reports/cfo", view_path(result, "cfo") + ".pdf"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 403, (path, query, response.status_code)


def test_a_rotated_embed_secret_refuses_urls_signed_with_the_old_one(app, client, strict, strict_generated):
    path = embed_path(strict_generated[0])
    old = signed(path, strict.embed_secret)
    assert client.get(old).status_code == 200
    with app.app_context():
        new = rotate_embed_secret(db.session.get(ApiKey, strict.key.id))
        db.session.commit()
    refused(client.get(old), INVALID)
    assert client.get(signed(path, new)).status_code == 200


# --------------------------------------------------------------------------- the page's own links

def test_a_signed_pages_links_carry_the_signature_each_for_its_own_token(client, strict, strict_generated):
    record, result = strict_generated
    expires = int(time.time()) + 600
    for path in pages(record, result):
        body = client.get(signed(path, strict.embed_secret, expires)).get_data(as_text=True)
        links = token_links(body)
        assert links, path   # at least the PDF download
        for link in links:
            parts = urlsplit(link)
            query = parse_qs(parts.query)
            assert query["expires"] == [str(expires)], (path, link)
            assert query["signature"] == [sign(strict.embed_secret, token_of(parts.path), expires)], (path, link)
    viewer = client.get(signed(embed_path(record), strict.embed_secret, expires)).get_data(as_text=True)
    links = token_links(viewer)
    assert any(link.startswith(embed_path(record) + ".pdf?") for link in links)          # all reports
    assert any(link.startswith(view_path(result, "ceo_president") + ".pdf?") for link in links)  # the shown one
    # The persona form carries the signature: the browser drops the action's query from a GET form.
    form = re.search(r"<form[^>]*data-fragment-base[^>]*>(.*?)</form>", viewer, re.DOTALL).group(1)
    assert f'<input type="hidden" name="expires" value="{expires}">' in form
    signature = sign(strict.embed_secret, record["embedToken"], expires)
    assert f'<input type="hidden" name="signature" value="{signature}">' in form
    # ... and submitting it, as a browser without JavaScript does, shows the chosen report.
    submitted = client.get(f"{embed_path(record)}?expires={expires}&signature={signature}&persona=cfo")
    assert submitted.status_code == 200 and 'data-persona="cfo"' in submitted.get_data(as_text=True)
    # The fragment the script asks for with the same query string.
    fragment = client.get(f"{embed_path(record)}/reports/ciso?expires={expires}&signature={signature}")
    assert fragment.status_code == 200


@pytest.mark.one_database   # prints a PDF: SQLite only (see tests/conftest.py)
def test_following_a_signed_pages_links_works(client, strict, strict_generated):
    """The fragment's and the page's links lead somewhere, the signed PDF link included (it is refused or
    served before any printing, so a 403 would show at once)."""
    record, result = strict_generated
    page = client.get(signed(view_path(result, "cfo"), strict.embed_secret)).get_data(as_text=True)
    (pdf_link,) = token_links(page)
    assert pdf_link.startswith(view_path(result, "cfo") + ".pdf?")
    response = client.get(pdf_link)
    assert response.status_code == 200 and response.mimetype == "application/pdf"


def test_an_unsigned_page_has_no_signature_and_the_stored_page_never_holds_one(app, client, strict, make_key):
    normal = make_key("acme")
    record, result = seed(client, normal)
    for path in pages(record, result):
        body = client.get(path).get_data(as_text=True)
        assert "signature=" not in body and 'name="expires"' not in body, path
    record, result = seed(client, strict)
    for path in pages(record, result):
        assert client.get(signed(path, strict.embed_secret)).status_code == 200
    with app.app_context():
        stored = db.session.scalars(select(EmbedPage.html)).all()
    assert len(stored) == 8 and not any(b"signature=" in html for html in stored)


def test_a_signed_view_of_a_stored_page_renders_nothing_and_revalidates(app, client, strict, strict_generated):
    path = embed_path(strict_generated[0])
    now = int(time.time())
    first = client.get(signed(path, strict.embed_secret, now + 600))
    rendered, statements = [], []

    def on_render(sender, template, context, **extra):
        rendered.append(template.name)

    def on_execute(conn, cursor, statement, *args):
        statements.append(statement.lstrip().split(None, 1)[0].upper())

    with app.app_context():
        engine = db.engine
    template_rendered.connect(on_render, app)
    event.listen(engine, "before_cursor_execute", on_execute)
    try:
        url = signed(path, strict.embed_secret, now + 700)
        second = client.get(url)
        assert second.status_code == 200 and rendered == []      # served from the stored page ...
        assert statements == ["SELECT"]                           # ... read with the token in one query
        assert second.headers["ETag"] != first.headers["ETag"]   # another expiry: other links
        again = client.get(url, headers={"If-None-Match": second.headers["ETag"]})
        assert again.status_code == 304
    finally:
        template_rendered.disconnect(on_render, app)
        event.remove(engine, "before_cursor_execute", on_execute)


# --------------------------------------------------------------------------- a key that does not require it

def test_a_normal_key_works_unsigned_and_signed(client, make_key):
    normal = make_key("acme", embed_origins=["https://portal.acme.example"])
    record, result = seed(client, normal)
    for path in pages(record, result):
        assert client.get(path).status_code == 200, path
        assert client.get(signed(path, normal.embed_secret)).status_code == 200, path
    # A signed URL is checked even so: a link that says it expires does expire.
    refused(client.get(signed(embed_path(record), normal.embed_secret, int(time.time()) - 1)), EXPIRED)
    refused(client.get(signed(embed_path(record), "embsec_" + "1" * 64)), INVALID)


def test_turning_signing_on_applies_to_the_next_request(app, client, make_key):
    normal = make_key("acme", embed_origins=["https://portal.acme.example"])
    record, _ = seed(client, normal)
    assert client.get(embed_path(record)).status_code == 200    # stored now
    with app.app_context():
        db.session.get(ApiKey, normal.key.id).require_signed_embeds = True
        db.session.commit()
    refused(client.get(embed_path(record)), NOT_SIGNED)
    assert client.get(signed(embed_path(record), normal.embed_secret)).status_code == 200


def test_a_key_without_an_embed_secret_cannot_sign(app, client, make_key):
    """Keys made before this release have no secret until it is rotated: a signed URL cannot be valid."""
    old = make_key("acme", embed_origins=["https://portal.acme.example"])
    with app.app_context():
        db.session.get(ApiKey, old.key.id).embed_secret_encrypted = None
        db.session.commit()
    record, _ = seed(client, old)
    assert client.get(embed_path(record)).status_code == 200
    refused(client.get(signed(embed_path(record), old.embed_secret)), INVALID)
