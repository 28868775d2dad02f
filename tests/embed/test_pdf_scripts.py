"""Issue 32: names and titles in any script print legibly in the PDFs, not as empty boxes. Printed as a partner's
reader gets them, then read back: the text with pypdfium2 (Chromium's PDF engine; pypdf reorders Devanagari's vowel
signs), and every glyph drawn checked against the font embedded for it with fontTools."""

from __future__ import annotations

import io
import logging
import unicodedata

import pypdf
import pypdfium2
import pytest
from fontTools.pens.boundsPen import BoundsPen
from fontTools.ttLib import TTFont
from weasyprint import HTML

from app.embed import printing
from tests.embed import generate, submit, view_path
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

# The scripts of issue 32: the display name, and a requirement's title in each.
SAMPLES = {"Chinese": "漢字", "Japanese": "かな", "Arabic": "العربية", "Hebrew": "עברית", "Devanagari": "हिन्दी",
           "Greek": "Ελληνικά", "Cyrillic": "Кириллица", "emoji": "😀"}
TITLES = {"Chinese": "访问控制", "Japanese": "アクセス制御", "Arabic": "الوصول", "Hebrew": "גישה",
          "Devanagari": "सुरक्षा", "Greek": "Πρόσβαση", "Cyrillic": "Доступ", "emoji": "🔐"}
# The other scripts that printing.py brings a font for, in case the machine's own fonts lack them.
MORE = {"Korean": "한국어", "Traditional Chinese": "繁體中文", "Thai": "ภาษาไทย", "Lao": "ພາສາລາວ",
        "Khmer": "ភាសាខ្មែរ", "Myanmar": "မြန်မာ", "Bengali": "বাংলা", "Gurmukhi": "ਪੰਜਾਬੀ", "Gujarati": "ગુજરાતી",
        "Oriya": "ଓଡ଼ିଆ", "Tamil": "தமிழ்", "Telugu": "తెలుగు", "Kannada": "ಕನ್ನಡ", "Malayalam": "മലയാളം",
        "Sinhala": "සිංහල", "Armenian": "Հայերեն", "Georgian": "ქართული", "Ethiopic": "አማርኛ",
        "symbols and emoji": "⚖ ♻ 🚀 🔒 ✅"}
# The scripts no PyPI package has a font for, whose Noto subsets `make install` fetches (requirements/fonts.json):
# Tibetan and Thaana are in modern national use (Bhutan, the Maldives), the rest are in living community use.
FETCHED = {"Tibetan": "བོད་ཡིག", "Thaana": "ދިވެހި", "Syriac": "ܠܫܢܐ ܣܘܪܝܝܐ", "Mongolian": "ᠮᠣᠩᠭᠣᠯ",
           "Yi": "ꆈꌠꁱꂷ", "Cherokee": "ᏣᎳᎩ", "Adlam": "𞤀𞤣𞤤𞤢𞤥", "Javanese": "ꦧꦱꦗꦮ", "Ol Chiki": "ᱚᱞ ᱪᱤᱠᱤ"}


def to_unicode(cmap) -> dict[int, str]:
    """A font's ToUnicode CMap: glyph id -> the text it draws."""
    glyphs: dict[int, str] = {}
    tokens = cmap.get_object().get_data().decode("latin-1").split()
    for n, token in enumerate(tokens):
        if token == "beginbfchar":
            end = tokens.index("endbfchar", n)
            for glyph, text in zip(tokens[n + 1:end:2], tokens[n + 2:end:2], strict=True):
                glyphs[int(glyph.strip("<>"), 16)] = bytes.fromhex(text.strip("<>")).decode("utf-16-be")
        elif token == "beginbfrange":
            end = tokens.index("endbfrange", n)
            for first, last, text in zip(*(tokens[n + 1 + i:end:3] for i in range(3)), strict=True):
                start = ord(bytes.fromhex(text.strip("<>")).decode("utf-16-be"))
                for offset, glyph in enumerate(range(int(first.strip("<>"), 16), int(last.strip("<>"), 16) + 1)):
                    glyphs[glyph] = chr(start + offset)
    return glyphs


def fonts_of(resources, seen: set) -> list:
    """The fonts of a page's resources and of the forms it draws, each once."""
    found = []
    resources = resources.get_object() if resources is not None else {}
    for ref in resources.get("/Font", {}).values():
        if ref.idnum not in seen:
            seen.add(ref.idnum)
            found.append(ref.get_object())
    for ref in resources.get("/XObject", {}).values():
        form = ref.get_object()
        if form.get("/Subtype") == "/Form" and ref.idnum not in seen:
            seen.add(ref.idnum)
            found += fonts_of(form.get("/Resources"), seen)
    return found


def missing_glyphs(data: bytes) -> dict[str, str]:
    """Per font, the text its glyphs draw as nothing or as .notdef, the empty box: a character that no font had
    (WeasyPrint draws a glyph id past the font's last, which readers show as .notdef) or a glyph with no outline.
    Every font must be embedded."""
    missing: dict[str, str] = {}
    seen: set = set()
    for page in pypdf.PdfReader(io.BytesIO(data)).pages:
        for font in fonts_of(page.get("/Resources"), seen):
            name = str(font["/BaseFont"] if "/BaseFont" in font else font.get("/Name"))
            if font["/Subtype"] == "/Type3":    # a bitmap font: its glyphs are drawings in the PDF itself
                continue
            assert font["/Subtype"] == "/Type0", f"{name}: {font['/Subtype']}, not a font WeasyPrint embeds"
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            embedded = descriptor.get("/FontFile2") or descriptor.get("/FontFile3")
            assert embedded is not None, f"{name} is not embedded"
            face = TTFont(io.BytesIO(embedded.get_object().get_data()))
            order, glyph_set = face.getGlyphOrder(), face.getGlyphSet()
            for glyph, text in sorted(to_unicode(font["/ToUnicode"]).items()):
                if text and all(c.isspace() or unicodedata.category(c) == "Cf" for c in text):   # spaces, joiners
                    continue
                if glyph == 0 or glyph >= len(order):
                    missing[name] = missing.get(name, "") + text
                    continue
                pen = BoundsPen(glyph_set)
                glyph_set[order[glyph]].draw(pen)
                if pen.bounds is None:
                    missing[name] = missing.get(name, "") + text
    return missing


def pdf_text(data: bytes) -> str:
    """The PDF's text as a reader copies it, on one line."""
    document = pypdfium2.PdfDocument(data)
    try:
        pages = []
        for page in document:
            text_page = page.get_textpage()
            pages.append(text_page.get_text_range())
            text_page.close()
            page.close()
        return " ".join(" ".join(pages).split())
    finally:
        document.close()


def save_first_page(data: bytes, name: str) -> None:
    document = pypdfium2.PdfDocument(data)
    try:
        page = document[0]
        ARTIFACTS.mkdir(exist_ok=True)
        page.render(scale=2).to_pil().save(ARTIFACTS / name)
        page.close()
    finally:
        document.close()


def test_a_report_with_a_name_and_titles_in_every_script_prints_every_glyph(client, auth):
    requirements = [{"id": f"A.{n}", "title": title, "status": "not_met"}
                    for n, title in enumerate(TITLES.values(), start=1)]
    record = submit(client, auth, displayName=" ".join(SAMPLES.values()), requirements=requirements)
    result = generate(client, auth, record["id"])
    response = client.get(view_path(result, "cfo") + ".pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    save_first_page(response.data, "pdf-scripts-page-1.png")

    text = pdf_text(response.data)
    for script in SAMPLES:
        assert SAMPLES[script] in text, f"the {script} display name ({SAMPLES[script]}) is not in the PDF's text"
        assert TITLES[script] in text, f"the {script} requirement title ({TITLES[script]}) is not in the PDF's text"
    assert missing_glyphs(response.data) == {}


def test_every_script_with_a_packaged_font_prints_every_glyph():
    every = {**SAMPLES, **MORE, **FETCHED}
    lines = "".join(f"<p>{script}: {sample}</p>" for script, sample in every.items())
    pdf = printing.print_pdf(f'<!doctype html><html lang="en"><title>t</title><body class="pdf">{lines}</body></html>')
    assert missing_glyphs(pdf) == {}
    text = pdf_text(pdf)
    assert all(script in text for script in every)   # the label (":Thaana" where the reader orders a line RTL)
    # Read back as typed where the reader keeps the order (Khmer, Myanmar, Oriya and Sinhala come back reordered).
    for script in ("Korean", "Traditional Chinese", "Thai", "Armenian", "Georgian", "Ethiopic", "Tamil", "Bengali"):
        assert MORE[script] in text, f"{script} ({MORE[script]}) is not in the PDF's text"


def test_the_fetched_fonts_are_pinned_and_installed_where_the_printer_reads_them():
    """`make install` put every pinned font into the venv (a font missing there is logged and prints as boxes)."""
    import json
    from pathlib import Path

    pins = json.loads((Path(__file__).resolve().parents[2] / "requirements" / "fonts.json").read_text())["fonts"]
    assert {font["script"] for font in pins} == set(FETCHED)
    assert all(font["integrity"].startswith("sha512-") and font["version"] for font in pins)
    assert sorted(p.name for p in printing.FONT_DIR.glob("*.ttf")) == sorted(font["file"] for font in pins)


def test_a_missing_font_is_logged_and_the_rest_still_load(monkeypatch, caplog, tmp_path):
    monkeypatch.setattr(printing, "_FONTS", {"manimgx_fonts": ("NotoSansThai[wght].ttf", "NoSuchFont.ttf"),
                                             "no_such_font_package": ("Any.ttf",)})
    monkeypatch.setattr(printing, "FONT_DIR", tmp_path)            # an install that could not fetch them
    monkeypatch.setattr(printing, "_pinned_fonts", lambda: ["NotoSansThaana-Regular.ttf"])
    with caplog.at_level(logging.ERROR, logger=printing.__name__):
        fonts = printing._Fonts()
    assert [record.getMessage() for record in caplog.records] == [
        "PDF font manimgx_fonts/NoSuchFont.ttf is missing: its script prints as empty boxes",
        "PDF font no_such_font_package/Any.ttf is missing: its script prints as empty boxes",
        f"PDF font NotoSansThaana-Regular.ttf is missing from {tmp_path} (make install puts it there): its script "
        f"prints as empty boxes"]
    pdf = HTML(string=f"<p>{MORE['Thai']}</p>").write_pdf(font_config=fonts)
    assert missing_glyphs(pdf) == {}


def test_latin_text_prints_as_it_did_without_the_fonts():
    """The fonts only fill in: a page in English draws the same glyphs of the same fonts with them as without."""
    page = ('<!doctype html><html lang="en"><title>t</title><body class="pdf"><h1>Risk register</h1>'
            "<p><b>Backups</b> are tested monthly; “quotes”, dashes – and — ellipses…, café, naïve, Zürich, "
            "12 × 3 = 36 €.</p></body></html>")
    stylesheets = printing._stylesheets(printing._stamp())
    without = HTML(string=page).write_pdf(stylesheets=stylesheets)
    with_fonts = HTML(string=page).write_pdf(stylesheets=stylesheets, font_config=printing._fonts())

    def fonts(pdf: bytes) -> list[str]:
        resources = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].get("/Resources")
        return sorted(str(font["/BaseFont"]).split("+", 1)[1] for font in fonts_of(resources, set()))

    def picture(pdf: bytes) -> bytes:
        document = pypdfium2.PdfDocument(pdf)
        try:
            page = document[0]
            image = page.render(scale=2).to_pil().tobytes()
            page.close()
            return image
        finally:
            document.close()

    assert fonts(with_fonts) == fonts(without)
    assert picture(with_fonts) == picture(without)
