"""/docs in a real browser: Debian's Chromium driven by Playwright, the app served by waitress.

Swagger UI renders the operations from /openapi.json under the page's CSP, with no console error (a CSP
violation is one) and no request to another origin, also while a reader opens operations, examples and
schemas, authorizes with a key and runs "Try it out". Screenshots go to test-artifacts/ for a person to
look at.
"""

from __future__ import annotations

import pytest

from tests.support.browser import ARTIFACTS, PageWatch, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()


def open_operation(page, operation_id: str):
    """Expand an operation by its deep-link id (#operations-<tag>-<operationId>) and return its block."""
    block = page.locator(f"[id^='operations-'][id$='-{operation_id}']")
    block.locator(".opblock-summary").first.click()
    sync_api.expect(block.locator(".opblock-body")).to_be_visible()
    return block


def test_docs_render_the_operations_from_our_origin_alone(browser, live, make_key):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    watch = PageWatch(page)
    response = page.goto(live.url + "/docs")
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    sync_api.expect(page).to_have_title("Compliance Report Service API")
    sync_api.expect(page.get_by_text("Submit an assessment", exact=True)).to_be_visible()
    document = page.request.get(live.url + "/openapi.json").json()
    operations = sum(len(item) for item in document["paths"].values())
    assert operations >= 19   # every endpoint of the API, GET and PATCH /api/v1/partner included
    sync_api.expect(page.locator(".opblock")).to_have_count(operations)
    # The Markdown of info.description: the guide is folded; unfolded, the error table and the webhooks.
    guide = page.locator(".info details")
    sync_api.expect(page.get_by_role("heading", name="Verifying a signature")).to_be_hidden()
    guide.locator("summary").click()
    sync_api.expect(page.locator(".info table code", has_text="idempotency_key_reused")).to_be_visible()
    sync_api.expect(page.get_by_role("heading", name="Verifying a signature")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "docs.png"), full_page=True)   # the introduction, then every operation

    # An operation with its request example and the Idempotency-Key header.
    create = open_operation(page, "createAssessment")
    sync_api.expect(create.locator(".parameter__name", has_text="Idempotency-Key")).to_be_visible()
    sync_api.expect(create.locator(".body-param__example, .highlight-code").first).to_contain_text("A.5.15")
    create.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "docs-operation.png"))
    generate = open_operation(page, "generateReports")
    sync_api.expect(generate.locator(".parameter__name", has_text="Prefer")).to_be_visible()
    sync_api.expect(generate.locator(".response[data-code='202']")).to_be_visible()
    for tab in generate.get_by_role("tab", name="Schema").all():
        tab.click()
    open_operation(page, "getReport")
    page.locator(".models-control").click()
    page.locator("#model-Assessment .model-box-control").first.click()
    sync_api.expect(page.locator("#model-Assessment")).to_contain_text("reportsDone")

    # Authorize with a key and run a request from the page: it goes to our own origin (connect-src 'self').
    page.locator(".auth-wrapper .authorize").click()
    dialog = page.locator(".dialog-ux")
    dialog.locator("input").first.fill(make_key().api_key)
    dialog.get_by_role("button", name="Apply credentials").click()
    dialog.get_by_role("button", name="Close", exact=True).click()
    personas = open_operation(page, "listPersonas")
    personas.get_by_role("button", name="Try it out").click()
    personas.get_by_role("button", name="Execute").click()
    sync_api.expect(personas.locator(".live-responses-table tbody .response-col_status").first).to_have_text("200")
    sync_api.expect(personas.locator(".live-responses-table")).to_contain_text("ceo_president")

    assert watch.errors == []
    assert watch.foreign(live.url) == []
    assert any(url.endswith("/openapi.json") for url in watch.requests)
    assert any(url.endswith("/api/v1/personas") for url in watch.requests)
    page.close()


def test_authorize_and_the_operations_are_on_the_first_screen(browser, live):
    """The long introduction (test mode, rate limits, errors, webhooks) is folded: at 1280 x 800 the Authorize
    button and the first operations show without scrolling, and the guide opens with a click, without script
    of ours (a <details>)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = PageWatch(page)
    page.goto(live.url + "/docs")
    authorize = page.locator(".auth-wrapper .authorize")
    sync_api.expect(authorize).to_be_visible()
    box = authorize.bounding_box()
    assert box["y"] + box["height"] <= 800, box
    first = page.locator(".opblock").first
    sync_api.expect(first).to_be_in_viewport()
    sync_api.expect(page.get_by_role("heading", name="Rate limits")).to_be_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "docs-first-screen.png"))
    page.locator(".info details summary").click()
    sync_api.expect(page.get_by_role("heading", name="Rate limits")).to_be_visible()
    sync_api.expect(page.locator(".info")).to_contain_text("enterprise 1,000")
    assert watch.errors == []
    page.close()


def test_docs_page_refuses_to_be_framed(browser, live):
    """frame-ancestors 'none': a page on another origin cannot put the reference in an iframe."""
    page = browser.new_page()
    watch = PageWatch(page)
    page.set_content(f'<iframe id="docs" src="{live.url}/docs"></iframe>')
    page.wait_for_timeout(1000)
    frame = page.frame_locator("#docs")
    assert frame.locator(".swagger-ui").count() == 0
    assert any("frame-ancestors" in error for error in watch.errors), watch.errors
    page.close()
