"""A partner's first key (issue 33): the show-once page by post/redirect/get, what it tells a newcomer
(mode, base URL, a curl to try, the API reference), the first key in test mode, a sign-in throttle that
counts only failures, and the portal's own 404 page."""

from __future__ import annotations

import html as html_lib
import json
import re
import shlex

import pytest
from sqlalchemy import func, select

from app.models import ApiKey
from tests.portal import follow, make_user, page_token, sign_in

KEY = re.compile(r"crs_[0-9a-f]{64}")
WEBHOOK_SECRET = re.compile(r"whsec_[0-9a-f]{64}")
EMBED_SECRET = re.compile(r"embsec_[0-9a-f]{64}")


@pytest.fixture
def user(app) -> int:
    return make_user(app)


@pytest.fixture
def signed_in(client, user):
    assert sign_in(client).status_code == 302
    return client


def text(response) -> str:
    return response.get_data(as_text=True)


def create(client, **fields):
    """POST the create form as a browser does; the answer is the redirect, not the page."""
    data = {"name": "First", "tier": "standard", "frameworks": "", "webhook_url": "", **fields}
    return client.post("/portal/keys/new", data={**data, "csrf_token": page_token(client, "/portal/keys/new")})


def key_count(db) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count(ApiKey.id)))


def test_creating_a_key_redirects_and_a_reload_shows_nothing_and_creates_nothing(signed_in, db):
    posted = create(signed_in)
    assert posted.status_code == 303 and not KEY.search(text(posted))
    location = posted.headers["Location"]
    shown = signed_in.get(location)
    assert shown.status_code == 200 and shown.headers["Cache-Control"] == "no-store"
    assert KEY.search(text(shown)) and WEBHOOK_SECRET.search(text(shown))
    assert "will not be shown again" in text(shown)
    reloaded = signed_in.get(location)
    assert reloaded.status_code == 302 and reloaded.headers["Location"].startswith("/portal/keys")
    listing = signed_in.get(reloaded.headers["Location"])
    assert not KEY.search(text(listing)) and not WEBHOOK_SECRET.search(text(listing))
    assert "shown only once" in text(listing)
    assert key_count(db) == 1


def test_the_session_cookie_never_carries_the_plaintext(app, signed_in):
    posted = create(signed_in)
    cookie = signed_in.get_cookie(app.config["SESSION_COOKIE_NAME"], path="/portal")
    stored = json.dumps(app.session_interface.get_signing_serializer(app).loads(cookie.value))
    page = text(signed_in.get(posted.headers["Location"]))
    for secret in (KEY.search(page).group(0), WEBHOOK_SECRET.search(page).group(0)):
        assert secret not in stored and secret[4:] not in stored


def test_a_stale_show_once_page_shows_nothing(signed_in, monkeypatch):
    from app.portal import reveal

    posted = create(signed_in)
    monkeypatch.setattr(reveal, "REVEAL_SECONDS", -1)  # kept longer ago than the page waits for
    assert signed_in.get(posted.headers["Location"]).status_code == 302


def test_another_partners_show_once_page_is_a_404(app, signed_in, make_key):
    theirs = make_key("Globex", name="Theirs")
    create(signed_in)
    assert signed_in.get(f"/portal/keys/{theirs.key.id}/new-secrets").status_code == 404


@pytest.mark.parametrize("action, pattern", [("rotate-secret", WEBHOOK_SECRET), ("rotate-embed-secret", EMBED_SECRET)])
def test_a_rotated_secret_is_shown_once_and_a_reload_rotates_nothing(app, signed_in, make_key, db, action, pattern):
    issued = make_key("Acme Security", name="Production")
    path = f"/portal/keys/{issued.key.id}/{action}"
    posted = signed_in.post(path, data={"csrf_token": page_token(signed_in, path)})
    assert posted.status_code == 303 and not pattern.search(text(posted))
    shown = signed_in.get(posted.headers["Location"])
    secret = pattern.search(text(shown)).group(0)
    db.session.expire_all()
    column = "webhook_secret_encrypted" if action == "rotate-secret" else "embed_secret_encrypted"
    before = getattr(db.session.get(ApiKey, issued.key.id), column)
    reloaded = signed_in.get(posted.headers["Location"])
    assert reloaded.status_code == 302 and secret not in text(signed_in.get("/portal/keys"))
    db.session.expire_all()
    assert getattr(db.session.get(ApiKey, issued.key.id), column) == before


# --------------------------------------------------------------------------- what the show-once page says

def test_the_page_says_test_gives_the_base_url_a_curl_that_works_and_the_docs(signed_in, client, db):
    page = text(follow(signed_in, create(signed_in, test_mode="y", frameworks="O'Brien <Standard>")))
    api_key = KEY.search(page).group(0)
    assert "Test key" in page and "Live key" not in page
    assert '<code class="url" id="api-base-url">http://localhost</code>' in page
    assert 'href="/docs"' in page and "API reference" in page
    command = html_lib.unescape(re.search(r'<pre[^>]*id="try-curl">(.*?)</pre>', page, re.DOTALL).group(1))
    assert "<Standard>" not in re.search(r'<pre[^>]*id="try-curl">(.*?)</pre>', page, re.DOTALL).group(1)
    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[:5] == ["curl", "-sS", "-X", "POST", "http://localhost/api/v1/assessments"]
    headers = dict(argv[i + 1].split(": ", 1) for i, arg in enumerate(argv) if arg == "-H")
    assert headers == {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    body = json.loads(argv[argv.index("-d") + 1])
    assert body["framework"] == "O'Brien <Standard>"  # the key's own framework, quoted for the shell
    answer = client.post("/api/v1/assessments", data=argv[argv.index("-d") + 1], headers=headers)
    assert answer.status_code == 201, text(answer)
    assert answer.get_json()["livemode"] is False


def test_the_page_says_live_for_a_live_key_and_uses_public_base_url(app_factory):
    app = app_factory(PUBLIC_BASE_URL="https://api.example.com")
    make_user(app)
    client = app.test_client()
    assert sign_in(client).status_code == 302
    page = text(follow(client, create(client)))
    assert "Live key" in page and "Test key" not in page
    assert '<code class="url" id="api-base-url">https://api.example.com</code>' in page
    assert "curl -sS -X POST https://api.example.com/api/v1/assessments" in page


def test_rotating_a_secret_shows_no_curl(signed_in, make_key):
    issued = make_key("Acme Security", name="Production")
    path = f"/portal/keys/{issued.key.id}/rotate-secret"
    page = text(follow(signed_in, signed_in.post(path, data={"csrf_token": page_token(signed_in, path)})))
    assert "try-curl" not in page and not KEY.search(page)


def mode_box(page: str) -> str:
    return re.search(r'<input[^>]*\bid="test_mode"[^>]*>', page).group(0)


def test_the_first_key_defaults_to_test_mode_and_later_ones_do_not(signed_in, db):
    assert " checked" in mode_box(text(signed_in.get("/portal/keys/new")))
    follow(signed_in, create(signed_in, test_mode="y"))
    assert " checked" not in mode_box(text(signed_in.get("/portal/keys/new")))
    follow(signed_in, create(signed_in, name="Production"))  # unticked: a live key
    db.session.expire_all()
    assert [key.livemode for key in db.session.scalars(select(ApiKey).order_by(ApiKey.id))] == [False, True]


# --------------------------------------------------------------------------- the sign-in throttle

def test_successful_sign_ins_are_not_throttled_but_failed_ones_are(app, user):
    # Defaults: 5 a minute per account, 10 per address.
    for _ in range(12):
        assert sign_in(app.test_client()).status_code == 302
    client = app.test_client()
    for _ in range(5):
        assert sign_in(client, password="wrong password!").status_code == 200
    assert sign_in(client, password="wrong password!").status_code == 429
    assert sign_in(client).status_code == 429  # once failures reach the limit, the right password waits too


# --------------------------------------------------------------------------- the portal's 404

@pytest.mark.parametrize("path", ["/portal/forgotten", "/portal/nope", "/portal/keys/new/extra"])
def test_a_portal_404_keeps_the_layout_and_navigation(signed_in, path):
    response = signed_in.get(path)
    page = text(response)
    assert response.status_code == 404 and "Page not found" in page
    assert 'aria-label="Portal sections"' in page and "/portal/static/portal.css" in page
    assert 'href="/portal/usage"' in page and "Sign out" in page
    assert response.headers["Cache-Control"] == "no-store" and "frame-ancestors 'none'" in \
        response.headers["Content-Security-Policy"]


def test_a_portal_405_and_500_keep_the_layout_and_navigation(app, signed_in, monkeypatch):
    """A form's URL opened with the wrong method, and a failure on our side: the portal's page with its navigation,
    not the shared one; nothing of the failure is shown."""
    from app.portal import partner_keys

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    wrong = signed_in.post("/portal/keys", data={})
    assert wrong.status_code == 405 and 'aria-label="Portal sections"' in text(wrong)
    assert "That action is not available here" in text(wrong) and wrong.headers["Allow"]
    monkeypatch.setattr(partner_keys, "partner_keys", explode)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    failed = signed_in.get("/portal/keys")
    assert failed.status_code == 500 and 'aria-label="Portal sections"' in text(failed)
    assert "Something went wrong" in text(failed) and "secret internals" not in text(failed)
    api = signed_in.post("/api/v1/assessments/1/generate/x")   # the API keeps its JSON
    assert api.mimetype == "application/json"


def test_a_404_elsewhere_is_unchanged(client):
    page = client.get("/nope")
    assert page.status_code == 404 and "Portal sections" not in text(page)
    api = client.get("/api/v1/nope")
    assert api.status_code == 404 and api.get_json()["code"] == "not_found"
