"""The Brand page in a real browser (Debian's Chromium through Playwright, the app served by waitress):
the colour picker fills the hex field, a logo is uploaded with the form's CSRF token, the save redirects so
a reload sends nothing again, the preview shows under the portal's CSP, the keys page's "Every key" card
shows the brand, a refused SVG comes back as the field's error, and the logo can be removed."""

from __future__ import annotations

import pytest

from tests.keys.test_brand import png_bytes
from tests.portal.test_portal_browser import PARTNER, app, shoot, sign_in, user  # noqa: F401 - fixtures
from tests.support.browser import PageWatch, axe_violations, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()
expect = sync_api.expect

EVIL_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>'
SAVED = "Saved. Every key’s report pages and PDFs use this brand and these embed origins from now on."


def save(page):
    with page.expect_response(lambda r: r.url.endswith("/portal/brand") and r.request.method == "POST") as info:
        page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    return info.value


def test_a_partner_sets_the_brand_of_every_key_in_the_browser(browser, live, app, user, make_key,  # noqa: F811
                                                              axe_source):
    make_key(PARTNER, name="Production")
    context = browser.new_context(viewport={"width": 360, "height": 900})
    page = context.new_page()
    watch = PageWatch(page)
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")
    page.get_by_role("link", name="Brand", exact=True).click()
    page.wait_for_url(live.url + "/portal/brand")
    expect(page.get_by_role("heading", level=1)).to_have_text("Brand and embedding")

    hex_field = page.get_by_label("Accent colour")
    picker = page.get_by_label("Colour picker")
    expect(picker).to_be_visible()               # revealed by portal.js
    expect(picker).to_have_value("#1d4ed8")      # an empty field shows the standard accent, not black
    picker.fill("#0b1f44")
    expect(hex_field).to_have_value("#0b1f44")
    page.get_by_label("Prepared by").fill("Acme Security")
    page.get_by_label("Embed origins").fill("https://portal.acme.example")
    page.locator("#brand_logo").set_input_files(
        files=[{"name": "acme.png", "mimeType": "image/png", "buffer": png_bytes()}])
    page.get_by_label("White-label").check()
    assert save(page).status == 303
    page.wait_for_url(live.url + "/portal/brand")
    expect(page.get_by_role("status")).to_have_text(SAVED)

    # A reload is a GET of the page the save redirected to: nothing is sent again, the message is gone.
    with page.expect_response(lambda r: r.url.endswith("/portal/brand")) as reload:
        page.reload()
    assert reload.value.request.method == "GET"
    expect(page.get_by_text(SAVED)).to_have_count(0)
    expect(page.get_by_text("Logo uploaded (PNG, ")).to_be_visible()
    preview = page.get_by_alt_text("Your current logo")
    expect(preview).to_be_visible()
    assert preview.evaluate("img => img.naturalWidth") == 120  # the data: preview is allowed by the CSP
    expect(page.get_by_label("White-label")).to_be_checked()
    expect(page.get_by_label("Embed origins")).to_have_value("https://portal.acme.example")
    assert axe_violations(page, axe_source) == []
    shoot(page, "brand-saved")

    page.goto(live.url + "/portal/keys")
    card = page.locator("section", has=page.get_by_role("heading", name="Every key"))
    expect(card).to_contain_text("Prepared by Acme Security · accent #0b1f44 · PNG logo · white-label")
    expect(card).to_contain_text("https://portal.acme.example")
    expect(page.locator("article.keycard")).not_to_contain_text("Prepared by")
    card.get_by_role("link", name="Change brand and embedding").click()
    page.wait_for_url(live.url + "/portal/brand")

    page.locator("#brand_logo").set_input_files(
        files=[{"name": "evil.svg", "mimeType": "image/svg+xml", "buffer": EVIL_SVG}])
    assert save(page).status == 200
    error = page.locator(".field__error")
    expect(error).to_have_text("SVG logos may not contain scripts, event handlers or external references.")
    expect(page.locator("#brand_logo")).to_be_focused()  # portal.js starts at the first error
    assert axe_violations(page, axe_source) == []
    shoot(page, "brand-logo-error")

    page.goto(live.url + "/portal/brand")
    page.get_by_label("Remove the logo").check()
    assert save(page).status == 303
    page.wait_for_url(live.url + "/portal/brand")
    expect(page.get_by_text("No logo uploaded.")).to_be_visible()
    page.goto(live.url + "/portal/keys")
    expect(page.get_by_text("Prepared by Acme Security · accent #0b1f44 · white-label")).to_be_visible()
    assert watch.foreign(live.url) == [] and watch.errors == []
    context.close()
