"""A signed embed page in a real browser (Chromium through Playwright): switching persona in place asks for the
fragment with the page's signature and keeps it in the iframe's URL; without JavaScript the form keeps it too."""

from __future__ import annotations

import pytest

from tests.embed import embed_path
from tests.embed.test_signed_embeds import seed, signed
from tests.support.browser import PageWatch, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()


def test_switching_persona_on_a_signed_page_keeps_the_signature(browser, live, app, make_key):
    issued = make_key("acme", require_signed_embeds=True)
    record, _ = seed(app.test_client(), issued)
    url = live.url + signed(embed_path(record), issued.embed_secret)
    query = url.split("?", 1)[1]
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page)
    page.goto(url)
    page.evaluate("window.__noReload = 42")
    page.get_by_label("Report for").select_option("ciso")
    sync_api.expect(page.locator(".report")).to_have_attribute("data-persona", "ciso")
    assert page.evaluate("window.__noReload") == 42          # in place: the fragment was served, not refused
    assert any(u.endswith("/reports/ciso?" + query) for u in watch.requests), watch.requests
    assert page.url == url + "&persona=ciso"
    page.reload()
    assert page.locator(".report").get_attribute("data-persona") == "ciso"
    assert watch.errors == []
    context.close()


def test_without_javascript_the_form_keeps_the_signature(browser, live, app, make_key):
    issued = make_key("acme", require_signed_embeds=True)
    record, _ = seed(app.test_client(), issued)
    url = live.url + signed(embed_path(record), issued.embed_secret)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url)
    page.get_by_label("Report for").select_option("insurance_underwriter")
    with page.expect_navigation():
        page.get_by_role("button", name="Show report").click()
    assert page.url == url + "&persona=insurance_underwriter"
    assert page.locator(".report").get_attribute("data-persona") == "insurance_underwriter"
    context.close()
