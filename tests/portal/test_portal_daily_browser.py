"""A partner's daily tasks in a real browser (Debian's Chromium through Playwright): switching the lists to test
data, reading a key's request log, inviting a colleague who joins from the link in another browser, and opening a
delivery's payload from the log."""

from __future__ import annotations

import re

import pytest

from tests.portal import PASSWORD
from tests.portal.test_portal_browser import EMAIL, PARTNER, seed, sign_in
from tests.support.browser import axe_violations, require_browser

pytestmark = pytest.mark.one_database   # browser flows: SQLite only (see tests/conftest.py)

sync_api = require_browser()
expect = sync_api.expect


@pytest.fixture
def app(app_factory):
    """Webhook URLs of made-up partner hosts are accepted (they never resolve here)."""
    return app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)


def test_modes_request_log_invitation_and_a_deliverys_payload(browser, live, app, make_key):
    from tests.portal import make_user

    make_user(app, PARTNER, EMAIL, max_tier="professional")
    seed(app, make_key)
    make_key(PARTNER, name="Sandbox", livemode=False)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")

    # One switch: test data only, kept while moving between lists.
    page.get_by_role("button", name="Test data").click()
    expect(page.get_by_role("button", name="Test data")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("heading", name="Sandbox")).to_be_visible()
    expect(page.get_by_role("heading", name="Production")).to_have_count(0)
    page.get_by_role("link", name="Assessments", exact=True).click()
    expect(page.get_by_role("button", name="Test data")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="All data").click()

    # The request log of the key the seed used.
    page.goto(live.url + "/portal/keys")
    page.get_by_role("link", name="Request log of Production").click()
    expect(page.get_by_role("heading", name=re.compile("Request log"))).to_be_visible()
    expect(page.locator("td").filter(has_text="POST /api/v1/assessments").first).to_be_visible()
    page.get_by_label("Status").select_option("errors")
    page.get_by_role("button", name="Apply filter").click()
    expect(page).to_have_url(re.compile(r"status=errors"))

    # A delivery's own page from the log: the payload as sent.
    page.get_by_role("link", name="Webhooks", exact=True).click()
    page.get_by_role("link", name="Payload and answers").first.click()
    expect(page.get_by_label("Payload as sent")).to_contain_text('"event": "assessment.reports.')

    # Invite a colleague from the account page; they join in their own browser.
    page.get_by_role("link", name="Account").click()
    page.get_by_label("Email").fill("bo@acme.example")
    page.get_by_role("button", name="Invite").click()
    link = page.locator(".invite-link").inner_text()
    page.reload()
    expect(page.locator(".invite-link")).to_have_count(0)            # shown once
    other = browser.new_context().new_page()
    other.goto(link)
    expect(other.get_by_role("heading", name=f"Join {PARTNER}")).to_be_visible()
    other.get_by_label("Choose a password").fill("bo's own long passphrase")
    other.get_by_label("The password again").fill("bo's own long passphrase")
    other.get_by_role("button", name="Set password and sign in").click()
    other.wait_for_url(live.url + "/portal/keys")
    expect(other.get_by_role("heading", name="Production")).to_be_visible()
    context.close()
    other.context.close()


def test_two_factor_sign_in_in_the_browser(browser, live, app, axe_source):
    import pyotp

    from tests.portal import make_user

    make_user(app, PARTNER, EMAIL)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")
    page.get_by_role("link", name="Account").click()
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    secret = page.locator(".totp-secret").inner_text().replace(" ", "")
    page.get_by_role("textbox", name="Code").fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Turn on").click()
    expect(page.locator(".recovery-codes li")).to_have_count(10)
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/login/code")
    assert axe_violations(page, axe_source) == []
    page.get_by_role("textbox", name="Code").fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(live.url + "/portal/keys")
    context.close()


def test_a_redelivery_shows_its_attempts_without_a_reload(browser, live, app, make_key, receiver):
    """Issue 33: after "Redeliver" the delivery's page follows the sender: the new attempt, with the receiver's
    answer, appears on the page the partner is looking at (no reload), and the new status is announced."""
    from tests.embed import generate, submit
    from tests.portal import make_user

    make_user(app, PARTNER, EMAIL)
    issued = make_key(PARTNER, name="Production", webhook_url=receiver.url)
    receiver.responses = [503, ("hang", 3)]   # the first round fails at once; the redelivery's attempt takes 3 s
    app.config["WEBHOOK_MAX_ATTEMPTS"] = 1
    app.extensions["webhook_sender"].start()
    try:
        auth = {"Authorization": f"Bearer {issued.api_key}"}
        client = app.test_client()
        generate(client, auth, submit(client, auth)["id"])
        receiver.wait_for(1)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        sign_in(page, live)
        page.wait_for_url(live.url + "/portal/keys")
        page.goto(live.url + "/portal/webhooks")
        page.get_by_role("link", name="Payload and answers").first.click()
        attempts = page.locator("table.attempts tbody tr:not(.attempt__answer)")
        expect(attempts).to_have_count(1)
        expect(attempts.first).to_contain_text("HTTP 503")
        page.get_by_role("button", name=re.compile("^Redeliver")).click()
        expect(page.locator("[data-part=status]")).to_contain_text("Pending")
        # The receiver now answers 200 (its default): the second attempt arrives on this page by itself.
        expect(attempts).to_have_count(2, timeout=15_000)
        expect(attempts.nth(1)).to_contain_text("HTTP 200")
        expect(page.locator("[data-part=status]")).to_contain_text("Succeeded")
        expect(page.locator("[data-part=announce]")).to_have_text("Delivery status: Succeeded.")
        assert page.locator("[data-part=announce]").get_attribute("aria-live") == "polite"
        context.close()
    finally:
        app.extensions["webhook_sender"].stop(timeout=5)


def test_a_test_event_the_months_csv_and_a_password_change_in_the_browser(browser, live, app, make_key, receiver,
                                                                          tmp_path):
    """Issue 33's remaining bullets in a real browser at 390 px: "Send a test event" reaches the receiver and the page
    says what it answered; the month's CSV downloads and adds up to the page's total; a password change signs in
    with the new password only."""
    import csv

    from tests.embed import generate, submit
    from tests.portal import make_user

    make_user(app, PARTNER, EMAIL)
    issued = make_key(PARTNER, name="Production", webhook_url=receiver.url)
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    client = app.test_client()
    generate(client, auth, submit(client, auth, displayName="Harbour Dental")["id"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, accept_downloads=True)
    page = context.new_page()
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")

    page.get_by_role("button", name=re.compile("^Send a test event")).click()
    expect(page.get_by_role("status")).to_contain_text("HTTP 200")
    assert "webhook.test" in receiver.wait_for(1)[0].body.decode()

    page.get_by_role("link", name="Usage", exact=True).click()
    with page.expect_download() as download:
        page.get_by_role("link", name=re.compile("^Download CSV")).click()
    path = tmp_path / "usage.csv"
    download.value.save_as(path)
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))[1:]
    assert len(rows) == 1 and "Harbour Dental" in rows[0] and rows[0][-1] == "250.00", rows
    expect(page.get_by_text("250 USD").first).to_be_visible()        # the page's total, the CSV's sum

    page.get_by_role("link", name="Account").click()
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill("a fresh long passphrase")
    page.get_by_label("New password again").fill("a fresh long passphrase")
    page.get_by_role("button", name=re.compile("Change password")).click()
    expect(page.get_by_role("status")).to_contain_text("password")
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, live)                                            # the old password
    expect(page.get_by_text(re.compile("not right|did not match|wrong", re.I)).first).to_be_visible()
    sign_in(page, live, password="a fresh long passphrase")
    page.wait_for_url(live.url + "/portal/keys")
    context.close()
