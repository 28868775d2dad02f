"""Status chips beside the requirements a section names, as a reader sees them in Chromium: with JavaScript
turned off and on, on the report page and in a report the viewer swaps in, the chip stands right after the
"Title (ID)" ref and says the status that was submitted.

Debian's Chromium driven by Playwright, the app served by waitress (see tests/support/browser.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.embed import embed_path, generate, submit, view_path
from tests.embed.test_embed_browser import REQUIREMENTS
from tests.support.browser import PageWatch, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()

STATUS = {r["id"]: r["status"] for r in REQUIREMENTS}
LABEL = {"not_met": "Not met", "partially_met": "Partly met"}
CLASS = {"not_met": "chip--not-met", "partially_met": "chip--partial"}
# Every chip in a section's text, with the text right before it and the section it stands in.
REF_CHIPS = """() => Array.from(document.querySelectorAll(
    '.report .section p:not(.chips) > .chip, .report .section li > .chip')).map(c => ({
  before: c.previousSibling ? c.previousSibling.textContent : '', text: c.textContent, cls: c.className,
  visible: c.checkVisibility(), section: c.closest('.section').querySelector('.section__heading').textContent,
  line: c.parentElement.innerText}))"""
REF = re.compile(r"(\S[^()]*?) \(([^(),]+)(?:, [^()]*)?\) $")


@contextmanager
def opened(browser, js: bool) -> Iterator:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=js)
    try:
        yield context.new_page()
    finally:
        context.close()


def seed(app, make_key) -> tuple[dict, dict]:
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = submit(client, auth, displayName="Northwind Clinics", requirements=REQUIREMENTS)
    return record, generate(client, auth, record["id"])


def check_ref_chips(page, persona: str) -> set[str]:
    """Each chip in the text follows a "Title (ID)" ref of an open requirement and names its status; returns
    the ids so marked."""
    assert page.locator(".report").get_attribute("data-persona") == persona
    marked = set()
    for chip in page.evaluate(REF_CHIPS):
        ref = REF.search(chip["before"])
        assert ref, f"{persona}: chip {chip['text']!r} does not follow a ref: {chip['before'][-80:]!r}"
        title, ident = ref.groups()
        assert STATUS.get(ident) in LABEL, f"{persona}: chip after ({ident}), which is {STATUS.get(ident)}"
        assert chip["text"] == LABEL[STATUS[ident]] and CLASS[STATUS[ident]] in chip["cls"].split(), chip
        assert chip["visible"], f"{persona}: the chip after ({ident}) in {chip['section']!r} is not visible"
        # What a reader sees: the requirement, then its status, on the same line of text.
        assert f"({ident}) {chip['text']}" in chip["line"], chip["line"]
        marked.add(ident)
    return marked


@pytest.mark.parametrize("js", [False, True], ids=["without-js", "with-js"])
def test_the_chip_stands_next_to_the_requirement_in_a_section(browser, live, app, make_key, js):
    record, result = seed(app, make_key)
    with opened(browser, js) as page:
        watch = PageWatch(page)
        page.goto(live.url + view_path(result, "ciso"))
        paragraph = page.locator(".report .section p", has_text="Access control (A.5.15)").first
        sync_api.expect(paragraph).to_contain_text("Access control (A.5.15) Not met")
        chip = paragraph.locator(".chip").first
        sync_api.expect(chip).to_be_visible()
        sync_api.expect(chip).to_have_text("Not met")
        sync_api.expect(chip).to_have_class(re.compile(r"\bchip--not-met\b"))
        assert {"A.5.15", "A.8.15", "A.5.24"} <= check_ref_chips(page, "ciso")

        # The viewer, with the report chosen by ?persona= (the no-JavaScript way) or by the selector.
        page.goto(live.url + embed_path(record) + ("" if js else "?persona=network_admin"))
        if js:
            page.get_by_label("Report for").select_option("network_admin")
            sync_api.expect(page.locator(".report")).to_have_attribute("data-persona", "network_admin")
        assert {"A.5.15", "A.8.15"} <= check_ref_chips(page, "network_admin")
        assert watch.errors == []
