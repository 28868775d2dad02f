"""The Brand fieldset in a real browser (Debian's Chromium through Playwright, the app served by waitress):
the colour picker fills the hex field, a logo is uploaded with the form's CSRF token, its preview shows
under the portal's CSP, a refused SVG comes back as the field's error, and the logo can be removed."""

from __future__ import annotations

import pytest

from tests.keys.test_brand import png_bytes
from tests.portal.test_portal_browser import PARTNER, app, shoot, sign_in, user  # noqa: F401 - fixtures
from tests.support.browser import PageWatch, axe_violations, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()
expect = sync_api.expect

EVIL_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>'


def save(page):
    with page.expect_response(lambda r: "/edit" in r.url and r.request.method == "POST") as info:
        page.get_by_role("button", name="Save settings").click()
    page.wait_for_load_state()
    return info.value


def test_a_partner_brands_a_key_in_the_browser(browser, live, app, user, make_key, axe_source):  # noqa: F811
    key = make_key(PARTNER, name="Production").key
    context = browser.new_context(viewport={"width": 360, "height": 900})
    page = context.new_page()
    watch = PageWatch(page)
    sign_in(page, live)
    page.wait_for_url(live.url + "/portal/keys")
    page.goto(f"{live.url}/portal/keys/{key.id}/edit")

    hex_field = page.get_by_label("Accent colour")
    picker = page.get_by_label("Colour picker")
    expect(picker).to_be_visible()               # revealed by portal.js
    expect(picker).to_have_value("#1d4ed8")      # an empty field shows the standard accent, not black
    picker.fill("#0b1f44")
    expect(hex_field).to_have_value("#0b1f44")
    page.get_by_label("Prepared by").fill("Acme Security")
    page.locator("#brand_logo").set_input_files(
        files=[{"name": "acme.png", "mimeType": "image/png", "buffer": png_bytes()}])
    page.get_by_label("White-label").check()
    assert save(page).status == 302 or page.url.endswith("/portal/keys")
    page.wait_for_url(f"{live.url}/portal/keys#key-{key.id}")
    expect(page.get_by_text("Prepared by Acme Security · accent #0b1f44 · PNG logo · white-label")).to_be_visible()

    page.goto(f"{live.url}/portal/keys/{key.id}/edit")
    expect(page.get_by_text("Logo uploaded (PNG, ")).to_be_visible()
    preview = page.get_by_alt_text("Your current logo")
    expect(preview).to_be_visible()
    assert preview.evaluate("img => img.naturalWidth") == 120  # the data: preview is allowed by the CSP
    expect(page.get_by_label("White-label")).to_be_checked()
    assert axe_violations(page, axe_source) == []
    shoot(page, "key-edit-brand")

    page.locator("#brand_logo").set_input_files(
        files=[{"name": "evil.svg", "mimeType": "image/svg+xml", "buffer": EVIL_SVG}])
    assert save(page).status == 200
    error = page.locator(".field__error")
    expect(error).to_have_text("SVG logos may not contain scripts, event handlers or external references.")
    expect(page.locator("#brand_logo")).to_be_focused()  # portal.js starts at the first error
    assert axe_violations(page, axe_source) == []
    shoot(page, "key-edit-brand-error")

    page.goto(f"{live.url}/portal/keys/{key.id}/edit")
    page.get_by_label("Remove the logo").check()
    save(page)
    page.wait_for_url(f"{live.url}/portal/keys#key-{key.id}")
    expect(page.get_by_text("Prepared by Acme Security · accent #0b1f44 · white-label")).to_be_visible()
    assert watch.foreign(live.url) == [] and watch.errors == []
    context.close()
