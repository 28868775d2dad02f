"""A webhook URL whose host does not resolve yet (a partner sets the receiver up after the key) is saved, with a
warning that says what happens; a URL that could never work (not http(s), a host name no DNS can answer, a private
address) is still refused. `.example` names never resolve (RFC 2606)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import ApiKey
from tests.portal import follow, page_token, words

LATER = "https://hooks.acme.example/crs"
WARNING = "The webhook host hooks.acme.example does not resolve yet. The URL is saved"


def key_form(client, path="/portal/keys/new", **fields):
    data = {"name": "Production", "tier": "standard", "frameworks": "", "webhook_url": ""}
    return client.post(path, data={**data, **fields, "csrf_token": page_token(client, path)})


def stored_urls(app) -> list[str | None]:
    with app.app_context():
        return list(db.session.scalars(select(ApiKey.webhook_url).order_by(ApiKey.id)))


def test_a_new_key_keeps_a_url_that_does_not_resolve_yet_and_says_so(app, signed_in):
    response = key_form(signed_in, webhook_url=LATER)
    shown = words(follow(signed_in, response))
    assert WARNING in shown and "crs_" in shown          # the show-once page, with the warning above it
    assert stored_urls(app) == [LATER]


def test_editing_a_key_to_such_a_url_saves_it_with_the_warning(app, signed_in, make_key):
    key = make_key("Acme Security", name="Production").key
    response = key_form(signed_in, f"/portal/keys/{key.id}/edit", webhook_url=LATER)
    assert response.status_code == 302
    shown = words(signed_in.get(response.headers["Location"]))
    assert "Saved the settings of Production." in shown and WARNING in shown
    assert stored_urls(app) == [LATER]


@pytest.mark.parametrize(("url", "message"), [
    ("ftp://hooks.acme.example/", "must start with http:// or https://"),
    ("https://" + "a" * 64 + ".example/", "is not a valid host name"),
    ("https://127.0.0.1/hooks", "not on the public internet"),
])
def test_urls_that_could_never_work_are_still_refused(app, signed_in, url, message):
    response = key_form(signed_in, webhook_url=url)
    assert response.status_code == 200 and message in words(response)
    assert stored_urls(app) == []


def test_the_cli_saves_it_and_warns_on_stderr(app, runner):
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--webhook-url", LATER, "--json"])
    assert result.exit_code == 0, result.output
    assert f"Warning: {WARNING}" in result.stderr and WARNING not in result.stdout
    assert stored_urls(app) == [LATER]


def test_a_live_keys_webhook_url_must_be_https_and_a_test_keys_may_be_http(app, signed_in, runner):
    refused = key_form(signed_in, webhook_url="http://hooks.acme.example/crs", test_mode="")
    assert refused.status_code == 200 and "must start with https://" in words(refused)
    assert stored_urls(app) == []
    allowed = key_form(signed_in, webhook_url="http://hooks.acme.example/crs", test_mode="y")
    assert allowed.status_code == 303
    assert stored_urls(app) == ["http://hooks.acme.example/crs"]
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--webhook-url",
                                 "http://hooks.acme.example/crs"])
    assert result.exit_code != 0 and "must start with https://" in result.output
