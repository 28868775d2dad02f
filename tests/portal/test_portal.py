"""The partner portal through the test client: sign-in, sessions, CSRF, throttling, the tier cap,
isolation between partners, the shown-once secrets and the headers."""

from __future__ import annotations

import re
import time
import types
from datetime import UTC, datetime

import itsdangerous.timed
import pytest
from sqlalchemy import func, select

from app.models import ApiKey, Partner, UsageRecord, WebhookDelivery
from tests.embed import embed_path, generate, submit
from tests.portal import PASSWORD, csrf_token, follow, make_user, page_token, sign_in

PAGES = ("/portal/keys", "/portal/keys/new", "/portal/assessments", "/portal/usage", "/portal/webhooks",
         "/portal/brand", "/portal/account")
CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")


@pytest.fixture
def user(app) -> int:
    return make_user(app)


@pytest.fixture
def signed_in(client, user):
    assert sign_in(client).status_code == 302
    return client


def post_form(client, path: str, data: dict | None = None, token_from: str | None = None):
    """POST a portal form with the CSRF token of the page it lives on."""
    token = page_token(client, token_from or path)
    return client.post(path, data={**(data or {}), "csrf_token": token})


def text(response) -> str:
    return response.get_data(as_text=True)


# --------------------------------------------------------------------------- signing in and out

def test_login_form_has_the_contract_fields(client):
    response = client.get("/portal/login")
    html = text(response)
    assert response.status_code == 200
    assert re.search(r'<input[^>]*name="email"', html) and re.search(r'<input[^>]*name="password"', html)
    assert re.search(r'<input[^>]*name="csrf_token"[^>]*type="hidden"|<input[^>]*type="hidden"[^>]*name="csrf_token"',
                     html)
    assert 'for="email"' in html and 'for="password"' in html  # labelled fields
    assert 'autocomplete="current-password"' in html


@pytest.mark.parametrize("path", PAGES + ("/portal/", "/portal/keys/1/edit", "/portal/usage?month=2026-01"))
def test_signed_out_pages_redirect_to_sign_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/portal/login")


def test_sign_in_returns_to_the_page_asked_for_but_never_off_site(client, user):
    token = page_token(client)
    form = {"email": "ann@acme.example", "password": PASSWORD, "csrf_token": token}
    assert client.post("/portal/login?next=/portal/usage", data=form).headers["Location"] == "/portal/usage"
    for target in ("https://evil.example/", "//evil.example/portal/keys", "/\\evil.example", "/portal/logout"):
        client.post("/portal/logout", data={"csrf_token": page_token(client, "/portal/keys")})
        form["csrf_token"] = page_token(client)
        response = client.post("/portal/login", query_string={"next": target}, data=form)
        assert response.headers["Location"] == "/portal/keys", target


def test_wrong_password_unknown_email_and_disabled_users_get_one_answer(app, client, user, runner):
    make_user(app, "Globex", "off@globex.example")
    runner.invoke(args=["users", "disable", "off@globex.example"])
    for email, password in (("ann@acme.example", "wrong password here"), ("who@acme.example", PASSWORD),
                            ("off@globex.example", PASSWORD), ("ann@acme.example", "")):
        response = sign_in(client, email, password)
        assert response.status_code == 200, email
        assert "The email or password is not right" in text(response) or "Enter your password" in text(response)
        assert PASSWORD not in text(response)
        assert client.get("/portal/keys").status_code == 302


def test_session_cookie_flags_and_idle_expiry(app, client, user, monkeypatch):
    response = sign_in(client)
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("session="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    assert "Path=/portal;" in cookie  # the API and the embed pages never receive it
    expires = datetime.strptime(re.search(r"Expires=([^;]+)", cookie).group(1), "%a, %d %b %Y %H:%M:%S GMT")
    assert abs((expires.replace(tzinfo=UTC) - datetime.now(UTC)).total_seconds() - 7200) < 60
    # Each request renews the cookie, so the 2 h run from the last request (an idle expiry).
    assert any(c.startswith("session=") for c in client.get("/portal/keys").headers.getlist("Set-Cookie"))
    # Two hours and a bit later the signed timestamp is too old and the session is refused.
    later = time.time() + 2 * 3600 + 5
    monkeypatch.setattr(itsdangerous.timed, "time", types.SimpleNamespace(time=lambda: later))
    assert client.get("/portal/keys").headers["Location"].startswith("/portal/login")


def test_only_portal_pages_renew_the_cookie(signed_in, make_key):
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    static = signed_in.get("/portal/static/portal.css")  # may be cached publicly: never a Set-Cookie
    assert "Set-Cookie" not in static.headers
    static.close()
    assert "Set-Cookie" not in signed_in.get("/api/v1/assessments", headers=auth).headers
    assert "Set-Cookie" in signed_in.get("/portal/usage").headers


def test_session_cookie_is_secure_over_https_or_when_configured(app_factory, app):
    make_user(app)
    secure = app.test_client()
    assert all("Secure" in cookie for cookie in sign_in_over(secure, "https://localhost"))
    forced = app_factory(SESSION_COOKIE_SECURE=True).test_client()
    assert all("Secure" in cookie for cookie in sign_in_over(forced, "http://localhost"))


def sign_in_over(client, base_url: str) -> list[str]:
    """The cookies a sign-in sets: the session's and the embed pages' preview mark."""
    token = csrf_token(text(client.get("/portal/login", base_url=base_url)))
    response = client.post("/portal/login", base_url=base_url, headers={"Referer": base_url + "/portal/login"},
                           data={"email": "ann@acme.example", "password": PASSWORD, "csrf_token": token})
    assert response.status_code == 302
    cookies = response.headers.getlist("Set-Cookie")
    assert {cookie.split("=", 1)[0] for cookie in cookies} == {"session", "crs_preview"}
    return cookies


def test_logout_is_a_post_that_ends_the_session(signed_in):
    assert signed_in.get("/portal/logout").status_code == 405
    response = post_form(signed_in, "/portal/logout", token_from="/portal/keys")
    assert response.status_code == 302 and response.headers["Location"] == "/portal/login"
    assert "You are signed out." in text(signed_in.get("/portal/login"))
    for path in PAGES:
        assert signed_in.get(path).status_code == 302


# --------------------------------------------------------------------------- CSRF and throttling

def test_posts_without_a_valid_csrf_token_are_refused(client, signed_in, make_key):
    key = make_key("Acme Security", name="Production")
    for path, data in (("/portal/keys/new", {"name": "x", "tier": "standard"}),
                       (f"/portal/keys/{key.key.id}/revoke", {}), ("/portal/logout", {})):
        assert signed_in.post(path, data=data).status_code == 400, path
        forged = signed_in.post(path, data={**data, "csrf_token": "IjEyMyI.aaaa.bbbb"})
        assert forged.status_code == 400 and "This form has expired" in text(forged)
    assert signed_in.get("/portal/keys").status_code == 200  # still signed in: the logout was refused
    assert "Revoked" not in text(signed_in.get("/portal/keys"))


def test_a_token_from_another_session_does_not_work(app, client, user):
    stranger = app.test_client()
    token = page_token(stranger)
    response = client.post("/portal/login", data={"email": "ann@acme.example", "password": PASSWORD,
                                                   "csrf_token": token})
    assert response.status_code == 400


def test_the_json_api_needs_no_csrf_token(client, make_key, user):
    sign_in(client)  # even with a portal session cookie present
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    assert submit(client, auth)["id"]


def test_sign_in_is_throttled_per_account(app_factory):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ACCOUNT="3/minute", PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(app)
    make_user(app, "Globex", "bo@globex.example")
    client = app.test_client()
    for _ in range(3):
        assert sign_in(client, password="wrong password!").status_code == 200
    blocked = sign_in(client)  # even the right password waits now
    assert blocked.status_code == 429
    assert 1 <= int(blocked.headers["Retry-After"]) <= 60
    assert "Too many sign-in attempts" in text(blocked) and "X-RateLimit-Limit" not in blocked.headers
    assert client.get("/portal/keys").status_code == 302
    assert sign_in(client, "bo@globex.example").status_code == 302  # other accounts are not locked out


def test_sign_in_is_throttled_per_address(app_factory):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ADDRESS="3/minute", PORTAL_LOGIN_LIMIT_PER_ACCOUNT="100/minute")
    make_user(app)
    client = app.test_client()
    for n in range(3):
        assert sign_in(client, f"guess{n}@acme.example", PASSWORD).status_code == 200
    assert sign_in(client).status_code == 429
    assert client.get("/portal/login").status_code == 200  # only the POST is limited
    other = app.test_client()
    assert sign_in(other, "ann@acme.example").status_code == 429  # the same address (127.0.0.1)
    assert other.post("/portal/login", data={"csrf_token": page_token(other), "email": "ann@acme.example",
                                             "password": PASSWORD},
                      environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 302


# --------------------------------------------------------------------------- keys, the tier cap, the secrets

def test_create_key_shows_key_and_secret_once_with_no_store(signed_in, client):
    # The embed origins are the partner's, set on the Brand page; the keys page lists them for every key.
    saved = signed_in.post("/portal/brand", content_type="multipart/form-data", data={
        "csrf_token": page_token(signed_in, "/portal/brand"), "embed_origins": "https://portal.acme.example/\n"})
    assert saved.status_code == 303
    response = follow(signed_in, post_form(signed_in, "/portal/keys/new", {
        "name": "Production", "tier": "starter", "frameworks": "ISO 27001\nSOC 2, ISO 27001", "webhook_url": ""}))
    html = text(response)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    api_key = re.search(r"crs_[0-9a-f]{64}", html).group(0)
    secret = re.search(r"whsec_[0-9a-f]{64}", html).group(0)
    assert "will not be shown again" in html
    assert html.count(api_key) == 2 and html.count(secret) == 1  # the key, and the sample curl that uses it
    listing = text(signed_in.get("/portal/keys"))
    assert api_key not in listing and api_key[4:] not in listing and secret not in listing
    assert f"crs_…{api_key[-4:]}" in listing and "Starter · 50 requests per hour" in listing
    assert "ISO 27001, SOC 2" in listing and "https://portal.acme.example" in listing
    auth = {"Authorization": f"Bearer {api_key}"}
    assert submit(client, auth)["framework"] == "ISO 27001"
    refused = client.post("/api/v1/assessments", json={"framework": "HIPAA"}, headers=auth)
    assert refused.status_code in (403, 422)


def tier_options(page: str) -> list[str]:
    """The tiers the key form offers (the form has other selects too)."""
    select = re.search(r'<select[^>]*name="tier".*?</select>', page, re.DOTALL).group(0)
    return re.findall(r'<option[^>]*value="(\w+)"', select)


def test_create_key_refuses_tiers_above_the_cap(signed_in, runner, db):
    page = text(signed_in.get("/portal/keys/new"))
    assert tier_options(page) == ["trial", "starter", "standard"]
    refused = post_form(signed_in, "/portal/keys/new", {"name": "Big", "tier": "enterprise"})
    assert refused.status_code == 200 and "Not a valid choice" in text(refused)
    assert db.session.scalar(select(ApiKey.id)) is None
    runner.invoke(args=["partners", "set-max-tier", "Acme Security", "enterprise"])
    allowed = follow(signed_in, post_form(signed_in, "/portal/keys/new", {"name": "Big", "tier": "enterprise"}))
    assert allowed.status_code == 200 and "1000 requests per hour" in text(allowed)


def test_the_portal_says_why_a_key_past_the_partners_limit_is_refused(signed_in, runner, db):
    runner.invoke(args=["partners", "set-max-keys", "Acme Security", "2"])
    for name in ("One", "Two"):
        created = post_form(signed_in, "/portal/keys/new", {"name": name, "tier": "trial"})
        assert "will not be shown again" in text(follow(signed_in, created))
    refused = post_form(signed_in, "/portal/keys/new", {"name": "Three", "tier": "trial"})
    assert refused.status_code in (200, 422) and "crs_" not in text(refused)
    assert "already has 2 active live keys, the most it may hold" in text(refused)
    assert "Revoke a live key that is no longer used, or ask for a higher limit." in text(refused)
    assert db.session.scalar(select(func.count(ApiKey.id))) == 2


def test_the_service_refuses_the_cap_even_without_the_form(app):
    from app.extensions import db
    from app.keys.service import KeyInputError
    from app.portal.accounts import find_partner
    from app.portal.partner_keys import KeyChanges, create_key

    make_user(app)
    with app.app_context():
        with pytest.raises(KeyInputError, match="up to standard"):
            create_key(find_partner("Acme Security"), KeyChanges("x", "professional", [], None, []))
        assert db.session.scalar(select(ApiKey.id)) is None


def test_form_errors_are_shown_on_their_fields(signed_in, db):
    response = post_form(signed_in, "/portal/keys/new", {
        "name": "", "tier": "standard", "webhook_url": "ftp://hooks.example"})
    html = text(response)
    assert "Give the key a name." in html
    assert "Webhook URL must start with http:// or https://." in html
    assert 'aria-invalid="true"' in html and 'aria-describedby="name-hint name-error"' in html
    assert db.session.scalar(select(ApiKey.id)) is None
    # The embed origins, on the Brand page: the same kind of error, tied to its field, and nothing saved.
    brand = post_form(signed_in, "/portal/brand", {"embed_origins": "portal.example.com/x"})
    html = text(brand)
    assert brand.status_code == 200 and "is not an origin" in html
    assert 'aria-invalid="true"' in html and 'aria-describedby="embed_origins-hint embed_origins-error"' in html
    assert db.session.scalar(select(Partner.embed_origins)) == []


def test_edit_keeps_an_operator_tier_above_the_cap_but_refuses_raising_to_one(signed_in, runner, db, make_key):
    key = make_key("Acme Security", name="Ops", tier="enterprise").key  # the operator's choice
    page = text(signed_in.get(f"/portal/keys/{key.id}/edit"))
    assert tier_options(page) == ["trial", "starter", "standard", "enterprise"]
    saved = post_form(signed_in, f"/portal/keys/{key.id}/edit", {
        "name": "Operations", "tier": "enterprise", "frameworks": "", "webhook_url": ""})
    assert saved.status_code == 302
    db.session.expire_all()
    stored = db.session.get(ApiKey, key.id)
    assert (stored.name, stored.tier, stored.rate_limit) == ("Operations", "enterprise", 1000)
    refused = post_form(signed_in, f"/portal/keys/{key.id}/edit", {"name": "Operations", "tier": "professional"})
    assert refused.status_code == 200 and "Not a valid choice" in text(refused)
    lowered = post_form(signed_in, f"/portal/keys/{key.id}/edit", {"name": "Operations", "tier": "trial",
                                                                   "frameworks": "SOC 2"})
    assert lowered.status_code == 302
    db.session.expire_all()
    assert (db.session.get(ApiKey, key.id).rate_limit, db.session.get(ApiKey, key.id).frameworks) == (10, ["SOC 2"])


def test_revoke_asks_first_then_the_api_refuses_the_key(signed_in, client, make_key):
    issued = make_key("Acme Security", name="Production")
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    assert submit(client, auth)
    confirm = signed_in.get(f"/portal/keys/{issued.key.id}/revoke")
    assert confirm.status_code == 200 and "This cannot be undone" in text(confirm)
    assert client.get("/api/v1/assessments", headers=auth).status_code == 200  # a GET changes nothing
    response = post_form(signed_in, f"/portal/keys/{issued.key.id}/revoke")
    assert response.status_code == 302
    assert "Revoked Production" in text(signed_in.get("/portal/keys"))
    assert client.get("/api/v1/assessments", headers=auth).status_code == 401
    edit = signed_in.get(f"/portal/keys/{issued.key.id}/edit")
    assert edit.status_code == 302  # a revoked key cannot be edited


def test_rotating_the_secret_shows_only_the_new_secret_once(signed_in, make_key, db):
    issued = make_key("Acme Security", name="Production")
    response = follow(signed_in, post_form(signed_in, f"/portal/keys/{issued.key.id}/rotate-secret"))
    html = text(response)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    secret = re.search(r"whsec_[0-9a-f]{64}", html).group(0)
    assert secret != issued.webhook_secret and not re.search(r"crs_[0-9a-f]{64}", html)
    assert secret not in text(signed_in.get("/portal/keys"))
    assert db.session.get(ApiKey, issued.key.id).previous_webhook_secret_encrypted is not None


# --------------------------------------------------------------------------- one partner never sees another's

def test_partners_see_only_their_own_rows(app, client, make_key):
    make_user(app, "Globex", "bo@globex.example")
    theirs = make_key("Acme Security", name="Acme production", webhook_url=None)
    auth = {"Authorization": f"Bearer {theirs.api_key}"}
    record = submit(client, auth, displayName="Acme Client")
    generate(client, auth, record["id"])
    with app.app_context():
        from app.extensions import db

        db.session.add(WebhookDelivery(id="dlv_acme", partner_id=theirs.key.partner_id, api_key_id=theirs.key.id,
                                       assessment_id=record["id"], event="assessment.reports.completed",
                                       url="https://hooks.acme.example/", body=b"{}", event_at="x", status="failed"))
        db.session.commit()
    globex = app.test_client()
    assert sign_in(globex, "bo@globex.example").status_code == 302
    for path in (f"/portal/keys/{theirs.key.id}/edit", f"/portal/keys/{theirs.key.id}/revoke",
                 f"/portal/keys/{theirs.key.id}/rotate-secret", "/portal/keys/9223372036854775808/edit"):
        assert globex.get(path).status_code == 404, path
        assert post_form(globex, path, token_from="/portal/keys").status_code == 404, path
    assert post_form(globex, "/portal/webhooks/dlv_acme/redeliver", token_from="/portal/webhooks").status_code == 404
    pages = " ".join(text(globex.get(p)) for p in PAGES)
    for needle in ("Acme production", theirs.key.masked, "Acme Client", "dlv_acme"):
        assert needle not in pages
    assert "0 assessments" in pages and "No deliveries yet" in pages
    assert re.search(r"All time</th>\s*<td[^>]*>0</td>", text(globex.get("/portal/usage")))
    acme = app.test_client()
    make_user(app, "Acme Security", "ann@acme.example")
    sign_in(acme)
    mine = " ".join(text(acme.get(p)) for p in PAGES)
    assert "Acme production" in mine and "Acme Client" in mine and "dlv_acme" in mine
    assert re.search(r"All time</th>\s*<td[^>]*>1</td>", text(acme.get("/portal/usage")))
    with app.app_context():
        from app.extensions import db

        assert db.session.get(ApiKey, theirs.key.id).revoked_at is None


# --------------------------------------------------------------------------- the lists

def test_assessments_filter_paginate_and_count_views(signed_in, client, make_key):
    auth = {"Authorization": f"Bearer {make_key('Acme Security').api_key}"}
    first = submit(client, auth, displayName="Viewed Client")
    generate(client, auth, first["id"])
    reader = client.application.test_client()   # a client's browser: the signed-in partner's own looks do not count
    for _ in range(2):
        reader.get(embed_path(first))
    client.application.extensions["view_counter"].flush()   # what the background flush writes within seconds
    for n in range(21):
        submit(client, auth, companyId=f"client_{n}", framework="SOC 2" if n % 2 else "ISO 27001")
    page1 = text(signed_in.get("/portal/assessments"))
    assert "22 assessments" in page1 and "Page 1 of 2" in page1 and page1.count("<tr>") == 21  # 20 rows + header
    page2 = text(signed_in.get("/portal/assessments?page=2"))
    assert "Viewed Client" in page2 and page2.count("<tr>") == 3
    assert re.search(r'data-label="Views" class="num">2<', page2)
    assert first["embedToken"] in page2
    completed = text(signed_in.get("/portal/assessments?status=completed"))
    assert "1 assessment found" in completed and "Viewed Client" in completed
    soc2 = text(signed_in.get("/portal/assessments?framework=SOC+2"))
    assert "10 assessments found" in soc2
    ignored = signed_in.get("/portal/assessments?status=bogus&framework=nope&page=x")
    assert ignored.status_code == 200 and "22 assessments" in text(ignored)


def test_the_framework_filter_merges_spellings_as_the_service_reads_them(signed_in, client, make_key):
    """Issue 33: the filter listed "ISO 27001" and "iso 27001" apart."""
    auth = {"Authorization": f"Bearer {make_key('Acme Security').api_key}"}
    for n, name in enumerate(["ISO 27001", "iso 27001", "ISO/IEC 27001:2022", "SOC 2"]):
        submit(client, auth, companyId=f"client_{n}", framework=name)
    page = text(signed_in.get("/portal/assessments"))
    options = re.findall(r'<option value="([^"]*)"', page.split('id="filter-framework"')[1].split("</select>")[0])
    assert options == ["", "ISO 27001", "SOC 2"], options
    assert "3 assessments found" in text(signed_in.get("/portal/assessments?framework=ISO+27001"))


def test_usage_by_month_and_key(app, signed_in, make_key):
    from app.extensions import db

    production = make_key("Acme Security", name="Production").key
    staging = make_key("Acme Security", name="Staging").key
    now = datetime.now(UTC)
    last_year = datetime(now.year - 1, 3, 14, 23, 59, tzinfo=UTC)
    with app.app_context():
        for n, (key, reports, at) in enumerate([(production, 25, now), (production, 20, now), (staging, 25, now),
                                                (staging, 7, last_year)]):
            db.session.add(UsageRecord(assessment_id=n + 1, partner_id=key.partner_id, api_key_id=key.id,
                                       reports=reports, created_at=at, updated_at=at))
        db.session.commit()
    page = text(signed_in.get("/portal/usage"))
    assert f"{now:%B %Y}" in page and "this month so far" in page
    assert "700 USD" in page and "450 USD" in page and "250 USD" in page  # this month: total, Production, Staging
    assert f"March {now.year - 1}" in page and "70 USD" in page and "770 USD" in page  # the old month; all time
    march = text(signed_in.get(f"/portal/usage?month={now.year - 1}-03"))
    by_key = march.split("By key")[1].split("</table>")[0]
    assert f", March {now.year - 1}" in by_key and "Staging" in by_key and "Production" not in by_key
    assert signed_in.get("/portal/usage?month=2026-13").status_code == 400  # not a month (see test_portal_input)


def test_webhook_deliveries_and_redeliver(app, signed_in, make_key):
    from app.extensions import db

    key = make_key("Acme Security", name="Production").key
    with app.app_context():
        db.session.get(ApiKey, key.id).webhook_url = "https://hooks.acme.example/"   # as saved when it resolved
        db.session.add(WebhookDelivery(
            id="dlv_one", partner_id=key.partner_id, api_key_id=key.id, assessment_id=7,
            event="assessment.reports.completed", url="https://hooks.acme.example/", body=b"{}", event_at="x",
            status="failed", round_attempts=3,
            attempts=[{"at": "2026-11-21T10:00:00Z", "statusCode": 500, "error": None, "durationMs": 1234},
                      {"at": "2026-11-21T10:00:01Z", "statusCode": None, "error": "connection refused",
                       "durationMs": 3}]))
        db.session.commit()
    page = text(signed_in.get("/portal/webhooks"))
    assert "dlv_one" in page and "HTTP 500" in page and "connection refused" in page and "1,234 ms" in page
    assert "21 Nov 2026, 10:00:01 UTC" in page and "Production" in page
    assert "dlv_one" not in text(signed_in.get("/portal/webhooks?status=succeeded"))
    assert signed_in.get("/portal/webhooks?cursor=garbage").status_code == 400
    response = post_form(signed_in, "/portal/webhooks/dlv_one/redeliver", token_from="/portal/webhooks")
    # Post/redirect/get to the delivery's own page, which shows it queued again (not the page as it was).
    assert response.status_code == 303 and response.headers["Location"] == "/portal/webhooks/dlv_one"
    after = text(follow(signed_in, response))
    assert "queued for another round" in after and "Pending" in after
    with app.app_context():
        delivery = db.session.scalar(select(WebhookDelivery))
        assert delivery.status == "pending" and delivery.round_attempts == 0


def test_failed_deliveries_come_first_and_one_button_sends_them_all_again(app, signed_in, make_key):
    from app.extensions import db

    key = make_key("Acme Security", name="Production").key
    other = make_key("Other Partner").key
    with app.app_context():
        for owner in (key, other):
            db.session.get(ApiKey, owner.id).webhook_url = "https://hooks.acme.example/"
        for delivery_id, owner, status in (("dlv_failed_a", key, "failed"), ("dlv_failed_b", key, "failed"),
                                           ("dlv_fine", key, "succeeded"), ("dlv_theirs", other, "failed")):
            db.session.add(WebhookDelivery(
                id=delivery_id, partner_id=owner.partner_id, api_key_id=owner.id, assessment_id=7,
                event="assessment.reports.completed", url="https://hooks.acme.example/", body=b"{}", event_at="x",
                status=status, round_attempts=3, rescue_rounds=0,
                attempts=[{"at": "2026-11-21T10:00:00Z", "statusCode": 503, "error": "HTTP 503", "durationMs": 12}]))
        db.session.commit()
    page = text(signed_in.get("/portal/webhooks"))
    section = page.split("2 failed deliveries", 1)[1].split("Apply filter", 1)[0]   # above the list and filters
    assert "dlv_failed_a" in section and "dlv_failed_b" in section and "dlv_fine" not in section
    assert "dlv_theirs" not in page and "Send all 2 again" in section
    response = post_form(signed_in, "/portal/webhooks/redeliver-failed", token_from="/portal/webhooks")
    assert response.status_code == 302 and response.headers["Location"].endswith("/portal/webhooks")
    after = text(signed_in.get("/portal/webhooks"))
    assert "2 failed deliveries are queued for another round of attempts." in after
    assert "failed deliveries" not in after.split("Apply filter", 1)[0].replace("2 failed deliveries are", "")
    with app.app_context():
        statuses = dict(db.session.execute(select(WebhookDelivery.id, WebhookDelivery.status)).all())
    assert statuses == {"dlv_failed_a": "pending", "dlv_failed_b": "pending", "dlv_fine": "succeeded",
                        "dlv_theirs": "failed"}


# --------------------------------------------------------------------------- headers

def test_portal_headers_on_every_response(client, signed_in):
    responses = [client.get(p) for p in PAGES]
    responses += [client.get("/portal/no-such-page"), client.get("/portal/keys/424242/edit"),
                  client.post("/portal/keys/new"), client.put("/portal/keys")]
    signed_out = client.application.test_client()
    responses += [signed_out.get("/portal/login"), signed_out.get("/portal/keys")]
    for response in responses:
        name = f"{response.request.method} {response.request.path} -> {response.status_code}"
        csp = response.headers["Content-Security-Policy"]
        assert csp.split("; style-src 'self'")[0] == "default-src 'none'", name
        assert re.sub(r" 'sha256-[^']+'", "", csp) == CSP, name  # the shared error page's <style> is allowed by hash
        assert response.headers["X-Frame-Options"] == "DENY", name
        assert response.headers["Referrer-Policy"] == "same-origin", name
        assert response.headers["X-Content-Type-Options"] == "nosniff", name
        assert response.headers["Cache-Control"] == "no-store", name
        assert not any(h.lower().startswith(("x-ratelimit", "ratelimit")) for h in response.headers.keys()), name
    assert [r.status_code for r in responses[len(PAGES):len(PAGES) + 4]] == [404, 404, 400, 405]


def test_pages_use_the_shared_design_and_only_local_assets(signed_in):
    html = text(signed_in.get("/portal/keys"))
    assets = re.findall(r'(?:href|src)="(/(?:embed|portal)/static/[^"]+)"', html)
    assert sorted(a.split("?")[0] for a in assets) == ["/embed/static/embed.css", "/portal/static/portal.css",
                                                       "/portal/static/portal.js"]
    for url in re.findall(r'(?:src|href|action)="([^"]*)"', html):
        assert url.startswith(("/", "#", "data:")), url
    assert "style=" not in html and "<style" not in html and not re.search(r"<[^>]*\son[a-z]+=", html)
    assert re.findall(r"<script[^>]*>", html) == [f'<script src="{assets[2]}" defer>']
    for url in assets:
        response = signed_in.get(url)
        assert response.status_code == 200 and response.headers["X-Content-Type-Options"] == "nosniff"
        if url.startswith("/portal/"):
            assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        response.close()
    stale = signed_in.get("/portal/static/portal.css?v=000000000000")
    assert stale.headers["Cache-Control"] == "no-cache"
    stale.close()
    signed_out = signed_in.application.test_client()
    asset = signed_out.get("/portal/static/portal.css")  # the sign-in page needs it too
    assert asset.status_code == 200
    asset.close()


def test_embed_pages_keep_their_own_headers(client, make_key):
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = submit(client, auth)
    generate(client, auth, record["id"])
    response = client.get(embed_path(record))
    assert "X-Frame-Options" not in response.headers
    assert "frame-ancestors *" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "no-referrer"
