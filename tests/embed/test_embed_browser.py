"""The embed pages in a real browser: Debian's Chromium driven by Playwright, the app served by waitress.

Covers what only a browser can show: in-place persona switching, the no-JavaScript form, the
`crs:resize` message to a parent page on another origin, frame-ancestors enforcement, requests
that never leave the origin, axe-core's accessibility rules, and screenshots at 360 and 1200 px
written to test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.embed import embed_path, generate, submit, view_path
from tests.support.browser import ARTIFACTS, PageWatch, axe_violations, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()

REQUIREMENTS = [
    {"id": "A.5.1", "title": "Policies for information security", "status": "met"},
    {"id": "A.5.15", "title": "Access control", "status": "not_met"},
    {"id": "A.5.19", "title": "Information security in supplier relationships", "status": "met"},
    {"id": "A.5.24", "title": "Incident management planning and preparation", "status": "partially_met"},
    {"id": "A.6.3", "title": "Information security awareness, education and training", "status": "met"},
    {"id": "A.8.7", "title": "Protection against malware", "status": "met"},
    {"id": "A.8.13", "title": "Information backup", "status": "partially_met"},
    {"id": "A.8.15", "title": "Logging", "status": "not_met"},
    {"id": "A.8.24", "title": "Use of cryptography", "status": "met"},
    {"id": "A.5.30", "title": "ICT readiness for business continuity", "status": "met"},
]


# --------------------------------------------------------------------------- the partner's site

class PartnerSite:
    """A partner's web page on another origin (another port) that embeds our iframe."""

    def __init__(self):
        self.html = b""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server API
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(site.html)))
                self.end_headers()
                self.wfile.write(site.html)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="partner-site", daemon=True)

    def embed(self, src: str, expected_origin: str) -> None:
        """The README's snippet: an iframe, and a listener that checks the origin and sets the height."""
        self.html = f"""<!doctype html><html lang="en"><head><title>Partner</title></head><body>
<h1>Partner portal</h1>
<iframe id="crs" src="{src}" title="Compliance reports" width="100%" height="200"></iframe>
<script>
window.heights = [];
window.addEventListener("message", function (event) {{
  if (event.origin !== "{expected_origin}") return;
  if (!event.data || event.data.type !== "crs:resize") return;
  window.heights.push(event.data.height);
  document.getElementById("crs").height = event.data.height;
}});
</script></body></html>""".encode()

    def __enter__(self) -> PartnerSite:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


@pytest.fixture
def partner_site() -> Iterator[PartnerSite]:
    with PartnerSite() as site:
        yield site


def seed(app, make_key, **settings) -> tuple[dict, dict]:
    """An assessment with all 25 reports, created through the API with a fresh key (`settings` go to make_key:
    `embed_origins=[...]` sets the partner's, which every key of the partner uses)."""
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key(**settings).api_key}"}
    record = submit(client, auth, displayName="Northwind Clinics", requirements=REQUIREMENTS)
    return record, generate(client, auth, record["id"])


# --------------------------------------------------------------------------- behaviour

def test_persona_switch_is_in_place_and_keeps_the_url_in_step(browser, live, app, make_key):
    record, _ = seed(app, make_key)
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page)
    page.goto(live.url + embed_path(record))
    title = page.locator(".summary__title")
    first = title.inner_text()
    assert page.locator(".report").get_attribute("data-persona") == "ceo_president"
    assert page.get_by_role("button", name="Show report").is_hidden()  # the no-JS button is hidden
    page.evaluate("window.__noReload = 42")

    page.get_by_label("Report for").select_option("ciso")
    sync_api.expect(page.locator(".report")).to_have_attribute("data-persona", "ciso")
    assert title.inner_text() != first
    assert page.evaluate("window.__noReload") == 42  # the same document: no reload happened
    assert page.url.endswith("?persona=ciso")
    assert any(url.endswith("/reports/ciso") for url in watch.requests)
    sync_api.expect(page.locator("#report-status")).to_have_text("Showing the report for CISO.")

    page.get_by_label("Report for").focus()  # keyboard operable: arrow keys switch the report
    page.keyboard.press("ArrowDown")
    sync_api.expect(page.locator(".report")).to_have_attribute("data-persona", "coo")

    page.reload()
    assert page.locator(".report").get_attribute("data-persona") == "coo"
    assert page.get_by_label("Report for").input_value() == "coo"
    assert watch.errors == []
    assert watch.foreign(live.url) == []
    context.close()


def test_without_javascript_the_selector_is_a_get_form(browser, live, app, make_key):
    record, _ = seed(app, make_key)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(live.url + embed_path(record))
    button = page.get_by_role("button", name="Show report")
    assert button.is_visible()
    page.get_by_label("Report for").select_option("insurance_underwriter")
    with page.expect_navigation():
        button.click()
    assert page.url.endswith("?persona=insurance_underwriter")
    assert page.locator(".report").get_attribute("data-persona") == "insurance_underwriter"
    assert page.locator(".pill").inner_text() == "Insurance Underwriter"
    context.close()


def test_parent_page_receives_the_height(browser, live, partner_site, app, make_key):
    record, result = seed(app, make_key, embed_origins=[partner_site.origin])
    partner_site.embed(live.url + embed_path(record), expected_origin=live.url)
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page)
    page.goto(partner_site.origin + "/")
    page.wait_for_function("window.heights.length > 0")
    height = page.evaluate("window.heights[window.heights.length - 1]")
    assert height > 400
    frame = page.frame_locator("#crs")
    sync_api.expect(frame.locator(".summary__title")).to_be_visible()
    # The iframe took the reported height: the whole page shows without an inner scrollbar.
    page.wait_for_function(f"document.getElementById('crs').height == {height}")
    # A persona switch changes the content's height, and the parent hears of it.
    sent = page.evaluate("window.heights.length")
    frame.get_by_label("Report for").select_option("small_business_owner")
    sync_api.expect(frame.locator(".report")).to_have_attribute("data-persona", "small_business_owner")
    page.wait_for_function(f"window.heights.length > {sent}", timeout=5000)
    assert watch.errors == []
    assert watch.foreign(live.url, partner_site.origin) == []

    partner_site.embed(live.url + view_path(result, "cfo"), expected_origin=live.url)
    page.goto(partner_site.origin + "/")
    page.wait_for_function("window.heights.length > 0 && window.heights[0] > 300")
    context.close()


def test_frame_ancestors_keeps_other_sites_out(browser, live, partner_site, app, make_key):
    record, _ = seed(app, make_key, embed_origins=["https://partner.example"])
    partner_site.embed(live.url + embed_path(record), expected_origin=live.url)
    context = browser.new_context()
    page = context.new_page()
    with page.expect_console_message(lambda m: "frame-ancestors" in m.text):
        page.goto(partner_site.origin + "/")
    assert page.evaluate("window.heights.length") == 0
    context.close()


def test_axe_finds_no_violations(browser, live, app, make_key, axe_source):
    record, result = seed(app, make_key)
    context = browser.new_context()
    page = context.new_page()
    for path in (embed_path(record), view_path(result, "cfo")):
        for width in (360, 1200):
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(live.url + path)
            violations = axe_violations(page, axe_source)
            assert violations == [], f"{path} at {width}px: {violations}"
    context.close()


def test_screenshots_at_360_and_1200(browser, live, app, make_key):
    record, result = seed(app, make_key)
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context()
    page = context.new_page()
    shots = [("assessment", embed_path(record) + "?persona=cfo"), ("report", view_path(result, "ciso"))]
    for name, path in shots:
        for width in (360, 1200):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(live.url + path)
            # Nothing is wider than the viewport, so the iframe never scrolls sideways.
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(ARTIFACTS / f"embed-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 800, "height": 1100})
    page.goto(live.url + embed_path(record) + "?persona=cfo")
    page.emulate_media(media="print")
    assert page.locator(".picker").is_hidden()
    page.screenshot(path=str(ARTIFACTS / "embed-assessment-print.png"), full_page=True)
    page.pdf(path=str(ARTIFACTS / "embed-assessment.pdf"), format="A4")
    context.close()
