"""The embed pages' layout in a real browser: what a reader sees first on a phone, folded sections with and
without JavaScript, status chips, the requirements table's filter and sort, a partner's brand (logo, name,
accent colours that stay readable, white-label), the PDF links, axe-core, and screenshots at 375 and 1280 px.

Debian's Chromium driven by Playwright, the app served by waitress (see tests/support/browser.py).
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pypdf
import pytest
from PIL import Image, ImageDraw

from app.extensions import db
from app.keys.brand import logo_digest
from app.models import Partner
from tests.embed import embed_path, generate, submit, view_path
from tests.embed.test_embed_browser import REQUIREMENTS
from tests.support.browser import ARTIFACTS, PageWatch, axe_violations, require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()

DISPLAY_NAME = "Northwind Clinics"
STATUS = {r["id"]: r["status"] for r in REQUIREMENTS}
ORDER = [r["id"] for r in REQUIREMENTS]
CHIP_LABEL = {"not_met": "Not met", "partially_met": "Partly met"}
CHIP_CLASS = {"not_met": "chip--not-met", "partially_met": "chip--partial", "met": "chip--met"}
TEAL, YELLOW = "#0f766e", "#fde047"
DARK = {"brand_name": "Acme Security", "brand_color": TEAL, "logo": True}
LIGHT = {"brand_name": "Acme Security", "brand_color": YELLOW, "logo": True}
WHITE_LABEL = {"brand_name": "Acme Security", "brand_color": TEAL, "logo": True, "white_label": True}
WIDE, NARROW = 1280, 375
PARTNERS = itertools.count(1)   # a partner of its own for each seed()


# --------------------------------------------------------------------------- set-up

def logo_png() -> bytes:
    """A small real PNG: a teal mark and a bar of "text" on white, 120 x 40."""
    image = Image.new("RGB", (120, 40), "white")
    draw = ImageDraw.Draw(image)
    draw.ellipse((4, 4, 36, 36), fill=(15, 118, 110))
    draw.rectangle((44, 14, 114, 26), fill=(17, 24, 39))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def seed(app, make_key, brand: dict | None = None) -> tuple[dict, dict]:
    """An assessment with all 25 reports and a display name, under a fresh key of a partner of its own with
    `brand` set on the partner (every key of a partner shows its brand, so two seeds never share one)."""
    issued = make_key(partner=f"partner-{next(PARTNERS)}")
    if brand:
        with app.app_context():
            partner = db.session.get(Partner, issued.key.partner_id)
            partner.brand_name = brand.get("brand_name")
            partner.brand_color = brand.get("brand_color")
            partner.white_label = bool(brand.get("white_label"))
            if brand.get("logo"):
                data = logo_png()
                partner.brand_logo, partner.brand_logo_type, partner.brand_logo_digest = (
                    data, "image/png", logo_digest(data))
            db.session.commit()
    client = app.test_client()
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth, displayName=DISPLAY_NAME, requirements=REQUIREMENTS)
    return record, generate(client, auth, record["id"])


@contextmanager
def opened(browser, width: int, height: int = 900, js: bool = True) -> Iterator:
    """A page in a context of its own, closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=js)
    try:
        yield context.new_page()
    finally:
        context.close()


def rgb(css: str) -> tuple[int, int, int]:
    """'rgb(15, 118, 110)' or 'rgba(15, 118, 110, 1)' -> (15, 118, 110)."""
    match = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)", css)
    assert match, f"not an rgb() colour: {css}"
    assert match.group(4) in (None, "1"), f"a translucent colour cannot be rated on its own: {css}"
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def luminance(color: tuple[int, int, int]) -> float:
    """WCAG 2.x relative luminance."""
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(c) for c in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two computed CSS colours."""
    high, low = sorted((luminance(rgb(a)), luminance(rgb(b))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def colours(locator) -> tuple[str, str]:
    """(text colour, background colour) as computed."""
    return tuple(locator.evaluate("e => { const s = getComputedStyle(e); return [s.color, s.backgroundColor]; }"))


def names(text: str, ident: str) -> bool:
    """Does the text name the requirement `ident` (A.5.1 is not named by A.5.15)?"""
    return re.search(rf"(?<![\w.]){re.escape(ident)}(?!\.?\d)", text) is not None


def pdf_text(data: bytes, *wanted: str) -> str:
    """A PDF's text with every run of whitespace as one space; given `wanted`, only the pages up to the one
    where the last of them has appeared (reading 50 pages takes seconds)."""
    text = ""
    for page in pypdf.PdfReader(io.BytesIO(data)).pages:
        text += " " + " ".join(page.extract_text().split())
        if wanted and all(w in text for w in wanted):
            break
    return text


def fetch_pdf(page, base: str, href: str, *wanted: str) -> str:
    """The text of the PDF at `href`, which must answer 200 with a PDF."""
    response = page.request.get(base + href)
    assert response.status == 200, f"{href}: {response.status}"
    assert response.headers["content-type"].split(";")[0] == "application/pdf"
    body = response.body()
    assert body.startswith(b"%PDF-")
    return pdf_text(body, *wanted)


# --------------------------------------------------------------------------- 1. the first screen on a phone

FIRST_SCREEN = """() => {
  const bottom = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().bottom : null; };
  const logo = document.querySelector('img.masthead__logo');
  return {persona: document.querySelector('.report').dataset.persona,
          height: window.innerHeight, scrollY: window.scrollY,
          logo: !!logo && logo.complete && logo.naturalWidth > 0 && logo.checkVisibility(),
          by: document.querySelector('.masthead__by').textContent.trim(),
          score: bottom('.gauge__number'), counts: bottom('ul.counts'), lastPoint: bottom('ul.points li:last-child')};
}"""


def test_score_counts_and_key_points_fit_the_first_screen_at_375(browser, live, app, make_key):
    """With the masthead at its tallest (logo, accent, "Prepared for" and "Prepared by"), every report's score,
    counts and last key point are on the first screen of a 375 px phone: 667 px tall for one report, 812 for
    the viewer (which also carries the Download PDF button and the persona selector)."""
    record, result = seed(app, make_key, DARK)
    personas = [r["persona"] for r in result["reports"]]
    assert len(personas) == 25
    cases = [("report", 667, [(p, view_path(result, p)) for p in personas]),
             ("viewer", 812, [(p, f"{embed_path(record)}?persona={p}") for p in personas])]
    too_low, measured = [], {}
    for kind, height, paths in cases:
        with opened(browser, NARROW, height) as page:
            for persona, path in paths:
                page.goto(live.url + path)
                at = page.evaluate(FIRST_SCREEN)
                assert at["persona"] == persona and at["logo"], at
                assert at["by"] == f"Prepared for {DISPLAY_NAME} · Prepared by Acme Security", at
                assert at["scrollY"] == 0 and at["height"] == height
                measured[kind, persona] = at
                for part in ("score", "counts", "lastPoint"):
                    assert at[part] is not None, f"{kind} {persona}: no {part}"
                    if at[part] > height:
                        too_low.append(f"{kind} {persona}: {part} ends at {at[part]:.0f} px of {height}")
    for kind, height, _ in cases:   # shown with -rP: how much room the tightest first screen leaves
        lowest = {part: max((at[part], persona) for (k, persona), at in measured.items() if k == kind)
                  for part in ("score", "counts", "lastPoint")}
        print(f"{kind} at {NARROW}x{height}, lowest bottom edges: "
              + ", ".join(f"{part} {y:.0f} px ({persona})" for part, (y, persona) in lowest.items()))
    assert too_low == []


# --------------------------------------------------------------------------- 2. folded sections without JavaScript

FOLDS = """() => Array.from(document.querySelectorAll('details.fold')).map(d => ({id: d.id, open: d.open}))"""


def test_without_javascript_long_sections_fold_on_phones_and_open_on_wide_screens(browser, live, app, make_key):
    _, result = seed(app, make_key)
    path = view_path(result, "ciso")
    with opened(browser, NARROW, 667, js=False) as page:
        page.goto(live.url + path)
        folds = page.evaluate(FOLDS)
        assert len(folds) >= 3, folds
        assert not any(f["open"] for f in folds)
        for fold in folds:
            details = page.locator(f"details#{fold['id']}")
            assert details.locator("summary.fold__summary").is_visible()
            assert details.locator(".section__heading").is_visible()
            texts = details.locator(":scope > p, :scope > ul, :scope > table")
            assert texts.count() > 0
            for n in range(texts.count()):
                assert texts.nth(n).is_hidden(), f"{fold['id']}: its text shows before it is opened"
        # A tap on a heading shows that section's text, and only that section's.
        first, second = (page.locator(f"details#{f['id']}") for f in folds[:2])
        first.locator("summary").click()
        sync_api.expect(first.locator(":scope > p").first).to_be_visible()
        assert first.evaluate("d => d.open")
        assert all(first.locator(":scope > p").nth(n).is_visible() for n in range(first.locator(":scope > p").count()))
        assert second.locator(":scope > p, :scope > ul").first.is_hidden()

    with opened(browser, WIDE, 900, js=False) as page:
        page.goto(live.url + path)
        folds = page.evaluate(FOLDS)
        assert not any(f["open"] for f in folds)   # still closed in the HTML: CSS alone shows their text
        for fold in folds:
            paragraphs = page.locator(f"details#{fold['id']} > p")
            for n in range(paragraphs.count()):
                assert paragraphs.nth(n).is_visible(), f"{fold['id']} at {WIDE} px: paragraph {n} is hidden"
        assert page.locator("table.reqs tbody tr").first.is_visible()


# --------------------------------------------------------------------------- 3. status chips in and above paragraphs

PARAGRAPHS = """() => Array.from(document.querySelectorAll('.report .section > p:not(.chips)')).map(p => {
  const before = p.previousElementSibling;
  const row = before && before.matches('p.chips') ? before : null;
  const chip = c => ({text: c.textContent, cls: c.className, visible: c.checkVisibility()});
  return {text: p.textContent,
          chips: row ? Array.from(row.querySelectorAll('.chip')).map(chip) : [],
          inline: Array.from(p.querySelectorAll(':scope > .chip')).map(c => {
            let text = '';
            for (let node = c.previousSibling; node && !(node.nodeType === 1 && node.matches('.chip'));
                 node = node.previousSibling) text = node.textContent + text;
            return {...chip(c), before: text};
          })};
})"""
INLINE_REF = re.compile(r"\(([^(),]+)(?:,[^()]*)?\)\s*$")


def check_chip(persona: str, ident: str, label: str, chip: dict) -> None:
    assert ident in STATUS, f"{persona}: chip for an unknown requirement {ident}"
    assert STATUS[ident] != "met", f"{persona}: a chip for met requirement {ident}"
    assert label == CHIP_LABEL[STATUS[ident]], f"{persona}: {ident} is {STATUS[ident]}, the chip says {label}"
    assert CHIP_CLASS[STATUS[ident]] in chip["cls"].split(), f"{persona}: {ident} chip class {chip['cls']}"
    assert chip["visible"], f"{persona}: chip {chip['text']} is not visible at {WIDE} px"


def check_chips(page, persona: str) -> set[str]:
    """Every open requirement a paragraph names has one chip saying the status that was submitted: right
    after its "Title (ID)" ref in the text, or, named otherwise, in a row of chips right above the paragraph.
    No chip elsewhere, none for a met one."""
    assert page.locator(".report").get_attribute("data-persona") == persona
    paragraphs = page.evaluate(PARAGRAPHS)
    shown: set[str] = set()
    for paragraph in paragraphs:
        expected = {i for i in STATUS if names(paragraph["text"], i) and STATUS[i] != "met"}
        above, inline = set(), set()
        for chip in paragraph["chips"]:
            match = re.fullmatch(r"(\S+) · (Not met|Partly met)", chip["text"].strip())
            assert match, f"{persona}: chip {chip['text']!r} is not '<id> · Not met|Partly met'"
            check_chip(persona, *match.groups(), chip)
            above.add(match.group(1))
        for chip in paragraph["inline"]:
            ref = INLINE_REF.search(chip["before"])
            assert ref, f"{persona}: chip {chip['text']!r} does not follow a ref: {chip['before'][-60:]!r}"
            check_chip(persona, ref.group(1), chip["text"].strip(), chip)
            inline.add(ref.group(1))
        assert not above & inline, f"{persona}: {above & inline} have a chip above and in the text"
        found = above | inline
        assert found == expected, f"{persona}: paragraph {paragraph['text'][:80]!r} names {expected}, chips {found}"
        shown |= found
    # No chip stands anywhere in the text but above a paragraph or after a ref in it.
    assert page.locator("p.chips .chip").count() == sum(len(p["chips"]) for p in paragraphs)
    assert page.locator(".report .section p:not(.chips) .chip").count() == sum(len(p["inline"]) for p in paragraphs)
    return shown


def test_chips_name_the_open_requirements_with_their_submitted_status(browser, live, app, make_key):
    record, result = seed(app, make_key)
    with opened(browser, WIDE) as page:
        page.goto(live.url + view_path(result, "ciso"))
        shown = check_chips(page, "ciso")
        # the requirements the CISO's findings argue (which ones follow the plan and the reasons allotted)
        assert len(shown) >= 3 and "A.8.15" in shown, shown

        page.goto(live.url + view_path(result, "it_director"))
        assert check_chips(page, "it_director")

        # A report swapped in by the viewer's script carries its chips too.
        page.goto(live.url + embed_path(record))
        page.get_by_label("Report for").select_option("network_admin")
        sync_api.expect(page.locator(".report")).to_have_attribute("data-persona", "network_admin")
        shown = check_chips(page, "network_admin")
        assert {"A.5.15", "A.8.15"} <= shown, shown


# --------------------------------------------------------------------------- 4. the requirements table

ROWS = """() => Array.from(document.querySelectorAll('table.reqs tbody tr')).map(tr => ({
  id: tr.querySelector('.reqs__id').textContent, status: tr.dataset.status, visible: tr.checkVisibility()}))"""


def test_requirements_table_filters_and_sorts_with_javascript(browser, live, app, make_key):
    _, result = seed(app, make_key)
    with opened(browser, WIDE) as page:
        watch = PageWatch(page)
        page.goto(live.url + view_path(result, "ciso"))
        group = page.locator(".filter")
        sync_api.expect(group).to_be_visible()
        buttons = {b: group.locator(f'button[data-filter="{b}"]') for b in ("", "not_met", "partially_met", "met")}
        rows = page.evaluate(ROWS)
        assert [r["id"] for r in rows] == ORDER and all(r["visible"] for r in rows)

        buttons["not_met"].click()
        rows = page.evaluate(ROWS)
        visible = [r for r in rows if r["visible"]]
        assert len(visible) == sum(s == "not_met" for s in STATUS.values()) == 2
        assert {r["status"] for r in visible} == {"not_met"}
        assert {b: x.get_attribute("aria-pressed") for b, x in buttons.items()} == {
            "": "false", "not_met": "true", "partially_met": "false", "met": "false"}

        buttons["partially_met"].click()
        assert [r["id"] for r in page.evaluate(ROWS) if r["visible"]] == ["A.5.24", "A.8.13"]

        buttons[""].click()
        assert all(r["visible"] for r in page.evaluate(ROWS))
        assert buttons[""].get_attribute("aria-pressed") == "true"
        assert buttons["not_met"].get_attribute("aria-pressed") == "false"

        status_sort = page.locator('th[data-sort="status"] button')
        requirement_sort = page.locator('th[data-sort="position"] button')
        sync_api.expect(status_sort).to_have_text("Status")
        sync_api.expect(requirement_sort).to_have_text("Requirement")
        status_sort.click()
        order = [r["status"] for r in page.evaluate(ROWS)]
        assert order == sorted(order, key=["not_met", "partially_met", "met"].index), order
        assert [r["id"] for r in page.evaluate(ROWS)][:2] == ["A.5.15", "A.8.15"]   # ties keep submitted order
        assert page.locator('th[data-sort="status"]').get_attribute("aria-sort") == "ascending"
        assert page.locator('th[data-sort="position"]').get_attribute("aria-sort") == "none"

        requirement_sort.click()
        assert [r["id"] for r in page.evaluate(ROWS)] == ORDER
        assert page.locator('th[data-sort="position"]').get_attribute("aria-sort") == "ascending"
        assert watch.errors == []


def test_requirements_table_without_javascript_shows_every_row_stacked_on_phones(browser, live, app, make_key):
    _, result = seed(app, make_key)
    with opened(browser, NARROW, 667, js=False) as page:
        page.goto(live.url + view_path(result, "ciso"))
        appendix = page.locator("details.fold", has=page.locator("table.reqs"))
        appendix.locator("summary").click()
        table = page.locator("table.reqs")
        sync_api.expect(table).to_be_visible()
        assert page.locator(".filter").is_hidden()
        assert page.locator("th[data-sort] button").count() == 0
        rows = page.evaluate(ROWS)
        assert [r["id"] for r in rows] == ORDER and all(r["visible"] for r in rows)
        for n, requirement in enumerate(REQUIREMENTS):
            row = table.locator("tbody tr").nth(n)
            text = " ".join(row.inner_text().split())
            assert requirement["id"] in text and requirement["title"] in text, text
            box = row.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= NARROW, (requirement["id"], box)
        # Stacked: a row's cells sit one under another, not side by side.
        req, status = (table.locator("tbody tr").first.locator(f"td.{c}").bounding_box()
                       for c in ("reqs__req", "reqs__status"))
        assert status["y"] >= req["y"] + req["height"] - 1
        assert page.evaluate("document.documentElement.scrollWidth") <= NARROW


# --------------------------------------------------------------------------- 5. a partner's brand

def check_accent(page, selector: str, accent: tuple[int, int, int]) -> tuple[str, str]:
    link = page.locator(selector)
    sync_api.expect(link).to_be_visible()
    text, background = colours(link)
    assert rgb(background) == accent, f"{selector}: background {background}, accent {accent}"
    ratio = contrast(text, background)
    assert ratio >= 4.5, f"{selector}: {text} on {background} is {ratio:.2f}:1"
    return text, background


def test_brand_logo_name_and_a_readable_accent(browser, live, app, make_key):
    service = app.config["SERVICE_NAME"]
    assert service == "Compliance Report Service"
    dark = seed(app, make_key, DARK)
    light = seed(app, make_key, LIGHT)
    for (record, result), accent in ((dark, (15, 118, 110)), (light, (253, 224, 71))):
        with opened(browser, WIDE) as page:
            watch = PageWatch(page)
            for path, selector in ((embed_path(record), ".masthead__pdf"), (view_path(result, "cfo"), ".link-button")):
                response = page.goto(live.url + path)
                assert "'sha256-" in response.headers["content-security-policy"]   # the brand's <style>, by hash
                logo = page.locator("img.masthead__logo")
                sync_api.expect(logo).to_be_visible()
                assert logo.get_attribute("src") == f"/embed/logo/{logo_digest(logo_png())}"
                assert logo.evaluate("img => img.complete && img.naturalWidth") == 120
                sync_api.expect(page.get_by_text("Prepared by Acme Security")).to_be_visible()
                text, _ = check_accent(page, selector, accent)
                if accent == (253, 224, 71):
                    assert luminance(rgb(text)) < 0.05, f"text on yellow must be dark, is {text}"
                else:
                    assert luminance(rgb(text)) > 0.9, f"text on teal should be light, is {text}"
                # Text in the accent's colour on white, and on the accent's tint, stays readable too.
                pill_text, pill_background = colours(page.locator(".pill"))
                assert contrast(pill_text, pill_background) >= 4.5, (pill_text, pill_background)
                sync_api.expect(page.locator("footer.footer")).to_have_text(f"Stakeholder reports by {service}")
            assert watch.errors == []   # a CSP violation (the brand's <style> refused) is a console error
            assert watch.foreign(live.url) == []
            assert any("/embed/logo/" in url for url in watch.requests)


def test_white_label_pages_never_name_the_service(browser, live, app, make_key):
    record, result = seed(app, make_key, WHITE_LABEL)
    with opened(browser, WIDE) as page:
        watch = PageWatch(page)
        for path in (embed_path(record), view_path(result, "cfo")):
            page.goto(live.url + path)
            sync_api.expect(page.get_by_text("Prepared by Acme Security")).to_be_visible()
            assert page.locator("footer.footer").count() == 0
            html = page.content()
            assert "compliance report service" not in html.lower()
            assert "compliance report service" not in page.title().lower()
            assert page.get_by_text(re.compile("Compliance Report Service", re.IGNORECASE)).count() == 0
        text = fetch_pdf(page, live.url, page.locator("a.link-button").get_attribute("href"))
        assert "Prepared by Acme Security" in text
        assert "compliance report service" not in text.lower()
        assert watch.errors == []


def test_without_a_brand_there_is_no_logo_and_no_prepared_by(browser, live, app, make_key):
    record, result = seed(app, make_key)
    with opened(browser, WIDE) as page:
        watch = PageWatch(page)
        for path, selector in ((embed_path(record), ".masthead__pdf"), (view_path(result, "cfo"), ".link-button")):
            response = page.goto(live.url + path)
            assert "sha256-" not in response.headers["content-security-policy"]
            assert page.locator("img.masthead__logo").count() == 0
            assert page.locator(".masthead--accent").count() == 0
            assert page.get_by_text("Prepared by").count() == 0
            sync_api.expect(page.locator(".masthead__by")).to_have_text(f"Prepared for {DISPLAY_NAME}")
            sync_api.expect(page.locator("footer.footer")).to_have_text(
                "Stakeholder reports by Compliance Report Service")
            check_accent(page, selector, (29, 78, 216))   # the pages' own blue
        assert watch.errors == []
        assert watch.foreign(live.url) == []


# --------------------------------------------------------------------------- 6. the PDF links

def test_pdf_links_answer_with_the_reports(browser, live, app, make_key):
    record, result = seed(app, make_key)
    with opened(browser, WIDE) as page:
        page.goto(live.url + view_path(result, "ciso"))
        link = page.get_by_role("link", name="Download this report (PDF)")
        sync_api.expect(link).to_be_visible()
        title = " ".join(page.locator(".summary__title").inner_text().split())
        label = page.locator(".pill").inner_text()
        assert label == "CISO"
        text = fetch_pdf(page, live.url, link.get_attribute("href"))
        assert " ".join(title.split()[:5]) in text, (title, text[:300])
        assert "Page 1 of" in text
        assert label in text
        assert DISPLAY_NAME in text

        page.goto(live.url + embed_path(record))
        link = page.locator("header.masthead a.masthead__pdf")
        sync_api.expect(link).to_have_text("Download PDF")
        labels = [" ".join(t.split()) for t in page.locator("#persona option").all_text_contents()]
        assert len(labels) == 25
        text = fetch_pdf(page, live.url, link.get_attribute("href"), "Contents", "Page 1 of", *labels)
        assert "Contents" in text
        assert "Page 1 of" in text
        missing = [label for label in labels if label not in text]
        assert missing == [], missing


# --------------------------------------------------------------------------- 7. accessibility

def test_axe_finds_no_violations_on_branded_narrow_and_filtered_pages(browser, live, app, make_key, axe_source):
    dark_record, _ = seed(app, make_key, DARK)
    _, light_result = seed(app, make_key, LIGHT)
    checks = []
    with opened(browser, WIDE) as page:
        page.goto(live.url + embed_path(dark_record))
        checks.append(("viewer 1280 teal brand", axe_violations(page, axe_source)))
        page.locator('.filter button[data-filter="not_met"]').click()
        sync_api.expect(page.locator('.filter button[data-filter="not_met"]')).to_have_attribute("aria-pressed", "true")
        checks.append(("viewer 1280 teal brand, Not met filter", axe_violations(page, axe_source)))

        page.goto(live.url + view_path(light_result, "ciso"))
        page.locator('.filter button[data-filter="not_met"]').click()
        checks.append(("report 1280 yellow brand, Not met filter", axe_violations(page, axe_source)))
    with opened(browser, NARROW, 812) as page:
        page.goto(live.url + embed_path(dark_record))
        assert not any(f["open"] for f in page.evaluate(FOLDS))
        checks.append(("viewer 375 folds closed", axe_violations(page, axe_source)))
    with opened(browser, NARROW, 667) as page:
        page.goto(live.url + view_path(light_result, "ciso"))
        checks.append(("report 375 yellow brand", axe_violations(page, axe_source)))
    assert [c for c in checks if c[1]] == []


# --------------------------------------------------------------------------- 8. screenshots for a person to look at

def test_screenshots_at_375_and_1280_with_and_without_a_brand(browser, live, app, make_key):
    ARTIFACTS.mkdir(exist_ok=True)
    variants = {"": seed(app, make_key), "-brand": seed(app, make_key, DARK)}
    written = []
    for suffix, (record, result) in variants.items():
        for width in (NARROW, WIDE):
            with opened(browser, width, 812 if width == NARROW else 900) as page:
                for name, path in (("report", view_path(result, "ciso")), ("viewer", embed_path(record))):
                    page.goto(live.url + path)
                    assert page.evaluate("document.documentElement.scrollWidth") <= width
                    target = ARTIFACTS / f"embed-{name}-{width}{suffix}.png"
                    target.unlink(missing_ok=True)
                    page.screenshot(path=str(target), full_page=True)
                    written.append((target, width))
    assert len(written) == 8
    for target, width in written:
        assert target.exists() and target.stat().st_size > 20_000, target
        with Image.open(target) as image:
            assert image.width == width and image.height > 800, (target, image.size)


# --------------------------------------------------------------------------- a long requirements appendix

def test_a_long_appendix_starts_folded_on_every_screen_and_opens_with_or_without_javascript(browser, live, app,
                                                                                            make_key):
    """Issue 32: with 2,000 requirements the viewer was 181,945 px tall at 1,280 px (the appendix open, and the
    iframe growing to it). Past LONG_TABLE_ROWS rows the appendix starts folded, also on wide screens."""
    from app.embed.service import LONG_TABLE_ROWS
    issued = make_key()
    client, auth = app.test_client(), {"Authorization": f"Bearer {issued.api_key}"}
    rows = [{"id": f"A.{n}", "title": f"Control number {n}", "status": ("met", "not_met", "partially_met")[n % 3]}
            for n in range(1, 201)]
    record = submit(client, auth, requirements=rows)
    result = generate(client, auth, record["id"])
    html = client.get(view_path(result, "ciso")).get_data(as_text=True)
    assert re.search(r'<details class="section fold fold--long" id="[^"]+">', html)   # closed without JavaScript
    short = seed(app, make_key)[1]   # a few requirements: the appendix shows open on wide screens, as before
    assert len(REQUIREMENTS) <= LONG_TABLE_ROWS
    for js in (True, False):
        with opened(browser, WIDE, 900, js=js) as page:
            page.goto(live.url + view_path(result, "ciso"))
            appendix = page.locator("details.fold--long")
            assert appendix.count() == 1 and not appendix.evaluate("d => d.open")
            assert page.locator("table.reqs tbody tr").first.is_hidden()
            assert page.evaluate("document.documentElement.scrollHeight") < 8000
            appendix.locator("summary").click()
            sync_api.expect(page.locator("table.reqs tbody tr").first).to_be_visible()
            assert page.locator("table.reqs tbody tr").count() == 200
            page.goto(live.url + view_path(short, "ciso"))
            assert page.locator("table.reqs tbody tr").first.is_visible()
