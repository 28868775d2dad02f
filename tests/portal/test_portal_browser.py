"""The partner portal in a real browser: Debian's Chromium driven by Playwright, the app served by waitress.

A partner's staff member signs in, creates a key and sees it once, calls the live API with it,
revokes it and sees the API refuse it. Also: a wrong password, a POST without a CSRF token,
signed-out redirects, signing out, copy buttons, axe-core on every page at 320, 390 and 1280 px (nothing
scrolls sideways at any of them), and screenshots of every page in test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import requests
from sqlalchemy import select, update

from app.extensions import db
from app.keys.service import set_brand
from app.models import ApiKey, Partner, UsageRecord, WebhookDelivery, utcnow
from tests.embed import embed_path, generate, submit
from tests.factories import submission
from tests.keys.test_brand import png_bytes
from tests.portal import PASSWORD, make_user
from tests.support.browser import ARTIFACTS, PageWatch, axe_violations, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()
expect = sync_api.expect

EMAIL = "ann@acme.example"
PARTNER = "Acme Security"
PAGES = ("keys", "assessments", "usage", "webhooks", "brand")


@pytest.fixture
def app(app_factory):
    """Webhook URLs of made-up partner hosts are accepted (they never resolve here)."""
    return app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)


@pytest.fixture
def user(app) -> str:
    make_user(app, PARTNER, EMAIL, max_tier="professional")
    return EMAIL


def sign_in(page, live, email: str = EMAIL, password: str = PASSWORD) -> None:
    page.goto(live.url + "/portal/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def create_key(page, live, name: str, tier: str = "professional", frameworks: str = "ISO 27001"):
    """Fill and send the Create key form; returns the response of the page it redirects to (post/redirect/get)."""
    page.goto(live.url + "/portal/keys/new")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Tier").select_option(tier)
    page.get_by_label("Allowed frameworks").fill(frameworks)
    with page.expect_response(lambda r: r.url.endswith("/new-secrets") and r.request.method == "GET") as info:
        page.get_by_role("button", name="Create key").click()
    page.wait_for_load_state()
    return info.value


def requirements(met: int, partial: int, not_met: int) -> list[dict]:
    statuses = ["met"] * met + ["partially_met"] * partial + ["not_met"] * not_met
    return [{"id": f"A.{n + 1}", "title": f"Control {n + 1}", "status": s} for n, s in enumerate(statuses)]


def seed(app, make_key) -> None:
    """A partner with history: keys in each state, a brand with a logo and embed origins, assessments in each
    status, viewed reports, usage this month and last month, and deliveries with failed and successful attempts."""
    production = make_key(PARTNER, name="Production", tier="professional", frameworks=["ISO 27001", "SOC 2"],
                          webhook_url="https://hooks.acme.example/compliance", embed_origins=["https://portal.acme.example"])
    staging = make_key(PARTNER, name="Staging", tier="starter")
    old = make_key(PARTNER, name="Old integration", tier="trial")
    client = app.test_client()
    auth = {"Authorization": f"Bearer {production.api_key}"}
    clients = [("Northwind Clinics", "client_2041", "ISO 27001", "completed", requirements(30, 6, 4)),
               ("Contoso Health", "client_2042", "SOC 2", "completed", requirements(12, 8, 10)),
               (None, "client_2043", "ISO 27001", "submitted", requirements(5, 2, 13)),
               ("Litware Pharmacy", "client_2044", "ISO 27001", "completed", requirements(18, 4, 3))]
    for display, company, framework, state, reqs in clients:
        names = {"displayName": display} if display else {}
        record = submit(client, auth, companyId=company, framework=framework, requirements=reqs, **names)
        if state == "completed":
            generate(client, auth, record["id"], methodology="challenger" if framework == "SOC 2" else "spin")
            for _ in range(3 if display == "Northwind Clinics" else 1):
                client.get(embed_path(record))
    app.extensions["view_counter"].flush()   # what the background flush writes within seconds
    staging_auth = {"Authorization": f"Bearer {staging.api_key}"}
    record = submit(client, staging_auth, companyId="client_2045", displayName="Tailspin Toys")
    generate(client, staging_auth, record["id"])
    with app.app_context():
        set_brand(db.session.get(Partner, production.key.partner_id), name=PARTNER, color="#0b1f44",
                  logo=png_bytes())
        db.session.execute(update(ApiKey).where(ApiKey.id == old.key.id).values(revoked_at=utcnow()))
        last_month = (utcnow().replace(day=1) - timedelta(days=3))
        for n, reports in enumerate((25, 25, 18)):
            db.session.add(UsageRecord(assessment_id=10_000 + n, partner_id=production.key.partner_id,
                                       api_key_id=old.key.id, reports=reports, created_at=last_month,
                                       updated_at=last_month))
        deliveries = list(db.session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.pk)))
        now = utcnow()
        for n, delivery in enumerate(deliveries):
            if n == 0:
                delivery.status = "succeeded"
                delivery.attempts = [{"at": (now - timedelta(seconds=ago)).isoformat(), "statusCode": status,
                                      "error": None, "durationMs": ms}
                                     for ago, status, ms in ((6, 503, 212), (5, 200, 87))]
                delivery.next_attempt_at = None
            elif n == 1:
                delivery.status = "failed"
                delivery.attempts = [{"at": (now - timedelta(seconds=s)).isoformat(), "statusCode": None,
                                      "error": "timed out after 10 s", "durationMs": 10_000} for s in (30, 19, 4)]
                delivery.next_attempt_at = None
        db.session.commit()


def shoot(page, name: str) -> None:
    """A full-page screenshot at the current width; nothing may be wider than the viewport."""
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} scrolls sideways at {width}px"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"portal-{name}-{width}.png"), full_page=True)


def test_every_page_links_the_api_reference(browser, live, app, user):
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(live.url + "/portal/login")
    expect(page.get_by_role("link", name="API reference")).to_have_attribute("href", "/docs")
    sign_in(page, live)
    for name in PAGES:
        page.goto(live.url + f"/portal/{name}")
        expect(page.get_by_role("link", name="API reference")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, name
    page.get_by_role("link", name="API reference").click()
    expect(page).to_have_url(live.url + "/docs")
    context.close()


# --------------------------------------------------------------------------- the main journey

def test_sign_in_create_a_key_use_it_revoke_it(browser, live, app, user):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = PageWatch(page)

    page.goto(live.url + "/portal/keys")
    assert page.url == live.url + "/portal/login?next=/portal/keys"
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(live.url + "/portal/keys")
    expect(page.get_by_role("heading", level=1)).to_have_text("API keys")
    expect(page.get_by_role("link", name="Keys")).to_have_attribute("aria-current", "page")

    # The tier select offers up to the partner's cap (professional), not enterprise.
    page.get_by_role("link", name="Create key").click()
    assert page.get_by_label("Tier").locator("option").evaluate_all("o => o.map(x => x.value)") == [
        "trial", "starter", "standard", "professional"]
    response = create_key(page, live, "Production")
    assert response.status == 200
    assert response.headers["cache-control"] == "no-store"
    api_key = page.locator("#new-api-key").inner_text()
    secret = page.locator("#new-webhook-secret").inner_text()
    assert re.fullmatch(r"crs_[0-9a-f]{64}", api_key)
    assert re.fullmatch(r"whsec_[0-9a-f]{64}", secret)
    expect(page.get_by_role("heading", name=re.compile("will not be shown again"))).to_be_visible()
    expect(page.locator("#try-curl")).to_contain_text(f"Bearer {api_key}")

    # The copy buttons put exactly the value on the clipboard and say so.
    page.get_by_role("button", name="Copy api key").click()
    expect(page.locator("#copy-status")).to_have_text("Copied the api key to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == api_key
    page.get_by_role("button", name="Copy webhook secret").click()
    assert page.evaluate("navigator.clipboard.readText()") == secret

    # A real request to the live server with the new key.
    created = requests.post(live.url + "/api/v1/assessments", json=submission(),
                            headers={"Authorization": f"Bearer {api_key}"}, timeout=10)
    assert created.status_code == 201, created.text

    # A reload shows neither the key nor the secret again, and creates no second key.
    shown_at = page.url
    expect(page.get_by_role("link", name=re.compile("back to keys"))).to_be_visible()
    page.reload()
    assert page.url.startswith(live.url + "/portal/keys") and page.url != shown_at
    assert api_key not in page.content() and secret not in page.content()
    page.goto(shown_at)
    assert api_key not in page.content()
    expect(page.locator("article.keycard")).to_have_count(1)

    # The key is listed masked; the full key and secret are nowhere else.
    card = page.locator("article.keycard", has_text="Production")
    expect(card).to_contain_text(f"crs_…{api_key[-4:]}")
    expect(card).to_contain_text("Professional · 500 requests per hour")
    expect(card).to_contain_text("ISO 27001")
    expect(card.locator(".badge--test")).to_have_text("Test")  # a first key is a test key unless unticked
    expect(card.locator(".badge:not(.badge--test)")).to_have_text("Active")
    for path in ("/portal/keys", "/portal/assessments", "/portal/usage", "/portal/webhooks", "/portal/brand"):
        page.goto(live.url + path)
        html = page.content()
        assert api_key not in html and api_key[4:] not in html and secret not in html, path
    page.goto(live.url + "/portal/assessments")
    expect(page.locator("tbody tr")).to_have_count(1)

    # Revoke, with a confirmation step; the API refuses the key at once.
    page.goto(live.url + "/portal/keys")
    page.get_by_role("link", name="Revoke Production").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Revoke Production")
    page.get_by_role("button", name="Revoke key").click()
    page.wait_for_url(re.compile(r"/portal/keys"))
    expect(page.get_by_role("status")).to_contain_text("Revoked Production")
    expect(card.locator(".badge:not(.badge--test)")).to_have_text("Revoked")
    refused = requests.post(live.url + "/api/v1/assessments", json=submission(),
                            headers={"Authorization": f"Bearer {api_key}"}, timeout=10)
    assert refused.status_code == 401
    assert refused.json()["code"] == "unauthorized"

    # Sign out: back to the sign-in page, and the portal is closed again.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(live.url + "/portal/login")
    expect(page.get_by_role("status")).to_have_text("You are signed out.")
    page.goto(live.url + "/portal/usage")
    assert page.url.startswith(live.url + "/portal/login?next=")
    assert watch.errors == []
    assert watch.foreign(live.url) == []
    context.close()


def test_rotating_the_webhook_secret_shows_the_new_one_once(browser, live, app, user, make_key):
    key = make_key(PARTNER, name="Production")
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live)
    page.get_by_role("link", name="Rotate webhook secret of Production").click()
    with page.expect_response(lambda r: r.request.method == "POST") as info:
        page.get_by_role("button", name="Rotate secret").click()
    assert info.value.headers["cache-control"] == "no-store"
    secret = page.locator("#new-webhook-secret").inner_text()
    assert re.fullmatch(r"whsec_[0-9a-f]{64}", secret) and secret != key.webhook_secret
    assert page.locator("#new-api-key").count() == 0  # the key itself is never shown again
    page.goto(live.url + "/portal/keys")
    assert secret not in page.content()
    context.close()


def test_wrong_password_is_refused(browser, live, app, user):
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live, password="not the password at all")
    expect(page.get_by_role("alert")).to_contain_text("The email or password is not right")
    assert page.url.startswith(live.url + "/portal/login")
    expect(page.get_by_label("Email")).to_have_value(EMAIL)
    assert page.get_by_label("Password").input_value() == ""  # a password is never sent back
    page.goto(live.url + "/portal/keys")
    assert page.url.startswith(live.url + "/portal/login")
    context.close()


def test_a_post_without_csrf_token_is_refused(browser, live, app, user):
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")
    # The browser's own cookies, but no token: what a forged cross-site form would send.
    forged = context.request.post(live.url + "/portal/keys/new", form={"name": "forged", "tier": "standard"},
                                  max_redirects=0)
    assert forged.status == 400
    assert "This form has expired" in forged.text()
    page.goto(live.url + "/portal/keys")
    expect(page.locator("article.keycard")).to_have_count(0)
    context.close()


def test_signed_out_pages_redirect_to_sign_in(browser, live, app):
    context = browser.new_context()
    page = context.new_page()
    for name in PAGES + ("keys/new",):
        page.goto(f"{live.url}/portal/{name}")
        assert page.url.startswith(live.url + "/portal/login?next="), name
        expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
    context.close()


def test_keyboard_only(browser, live, app, user):
    context = browser.new_context()
    page = context.new_page()
    page.goto(live.url + "/portal/login")
    expect(page.get_by_label("Email")).to_be_focused()  # the sign-in page starts in its first field
    page.keyboard.type(EMAIL)
    page.keyboard.press("Tab")
    expect(page.get_by_label("Password")).to_be_focused()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(live.url + "/portal/keys")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to main content")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Create key")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(live.url + "/portal/keys/new")
    context.close()


# --------------------------------------------------------------------------- every page: axe and screenshots

def visit_every_page(page, live):
    """Yield (name, ...) after reaching each page, the secret and confirmation pages included."""
    page.goto(live.url + "/portal/login")
    yield "login"
    page.get_by_role("link", name="Forgot your password?").click()
    page.wait_for_url(live.url + "/portal/forgot")
    yield "forgot"
    page.goto(live.url + "/portal/login")
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")
    yield "keys"
    page.goto(live.url + "/portal/keys/new")
    yield "key-new"
    page.get_by_role("button", name="Create key").click()  # empty name: the form answers with its errors
    expect(page.locator(".field__error").first).to_be_visible()
    yield "key-new-errors"
    create_key(page, live, "Reporting dashboard", tier="standard", frameworks="ISO 27001\nSOC 2")
    yield "key-created"
    page.goto(live.url + "/portal/keys")
    page.get_by_role("link", name="Edit settings of Production").click()
    yield "key-edit"
    page.goto(live.url + "/portal/keys")
    page.get_by_role("link", name="Request log of Production").click()
    yield "key-requests"
    page.goto(live.url + "/portal/keys")
    page.get_by_role("link", name="Revoke Staging").click()
    yield "key-revoke"
    page.goto(live.url + "/portal/assessments")
    yield "assessments"
    page.locator("a.table__main").first.click()   # an assessment's own page, from the list
    expect(page.get_by_role("heading", name="Webhook deliveries")).to_be_visible()
    yield "assessment"
    page.goto(live.url + "/portal/usage")
    yield "usage"
    page.goto(live.url + "/portal/webhooks")
    yield "webhooks"
    page.get_by_role("link", name="Payload and answers").first.click()   # a delivery's own page
    expect(page.get_by_role("heading", name="Payload as sent")).to_be_visible()
    yield "delivery"
    page.get_by_role("link", name="Brand", exact=True).click()   # from the navigation, as a partner finds it
    page.wait_for_url(live.url + "/portal/brand")
    expect(page.get_by_alt_text("Your current logo")).to_be_visible()
    yield "brand"
    page.get_by_label("Accent colour").fill("blue")
    page.get_by_role("button", name="Save").click()   # a colour that is not one: the form answers with its error
    expect(page.locator(".field__error").first).to_be_visible()
    yield "brand-errors"
    page.locator("a.account__who").click()   # the account, from the bar (on a phone: "Account")
    page.wait_for_url(live.url + "/portal/account")
    yield "account"
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    page.wait_for_url(live.url + "/portal/account/2fa")
    yield "two-factor-setup"
    page.goto(live.url + "/portal/keys/999999/edit")
    yield "not-found"
    page.goto(live.url + "/portal/nope")  # a URL that matches no route: the portal's layout all the same
    expect(page.get_by_role("navigation", name="Portal sections")).to_be_visible()
    yield "not-found-unrouted"


@pytest.mark.parametrize("width", [320, 390, 1280])   # the smallest phones, a common phone, a laptop
def test_axe_finds_no_violations_and_screenshots(browser, live, app, user, make_key, axe_source, width):
    seed(app, make_key)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    watch = PageWatch(page)
    seen = []
    for name in visit_every_page(page, live):
        seen.append(name)
        violations = axe_violations(page, axe_source)
        assert violations == [], f"{name} at {width}px: {violations}"
        shoot(page, name)
    assert len(seen) == 20 and {"brand", "brand-errors", "assessment", "delivery", "account"} <= set(seen)
    assert watch.foreign(live.url) == []
    # The only console error is the 404 page's own status line.
    assert all("404" in error for error in watch.errors), watch.errors
    context.close()


def test_seeded_pages_show_the_partners_figures(browser, live, app, user, make_key):
    seed(app, make_key)
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, live)
    page.goto(live.url + "/portal/assessments?status=completed&framework=ISO+27001")
    rows = page.locator("tbody tr")
    expect(rows).to_have_count(3)
    northwind = rows.filter(has_text="Northwind Clinics")
    expect(northwind.locator('td[data-label="Views"]')).to_have_text("3")
    expect(northwind.get_by_role("link", name=re.compile("View reports"))).to_have_attribute(
        "href", re.compile(r"/embed/assessment/[A-Za-z0-9_-]+$"))
    page.goto(live.url + "/portal/usage")
    this_month = page.locator(".stats")
    expect(this_month).to_contain_text("4")  # assessments this month: 3 by Production, 1 by Staging
    expect(this_month).to_contain_text("1,000 USD")
    expect(page.locator("tfoot")).to_contain_text("1,680 USD")  # plus 25 + 25 + 18 reports last month
    page.goto(live.url + "/portal/webhooks")
    expect(page.locator("article.delivery")).to_have_count(3)
    failed = page.locator("article.delivery", has=page.locator(".badge--failed"))
    expect(failed.locator("tbody tr")).to_have_count(3)
    with page.expect_navigation():
        failed.get_by_role("button", name=re.compile("Redeliver")).click()
    expect(page.get_by_role("status")).to_contain_text("queued for another round")
    context.close()
