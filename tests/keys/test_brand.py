"""A partner's brand, checked without Flask: colours partners type, readable text on their accent, and logos
that are really PNG or SVG and can neither run code nor load anything when their clients open a page."""

from __future__ import annotations

import hashlib
import io
import itertools
import struct
import zlib

import pytest
from PIL import Image

from app.keys.brand import (
    BrandError,
    accent_as_text,
    contrast_ratio,
    logo_digest,
    normalize_color,
    normalize_name,
    text_on,
    validate_logo,
)

SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'
# Every channel value from 0 to 255 in steps of 15, in every combination: 4,913 colours.
GRID = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in itertools.product(range(0, 256, 15), repeat=3)]


def png_bytes(size: tuple[int, int] = (120, 40), color=(26, 115, 232, 255)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def svg(body: str = '<rect width="10" height="10" fill="#1a73e8"/>', root: str = f'<svg {SVG_NS} viewBox="0 0 10 10">',
        close: str = "</svg>") -> bytes:
    return (root + body + close).encode()


def refused(data: bytes) -> str:
    with pytest.raises(BrandError) as caught:
        validate_logo(data)
    return str(caught.value)


# --------------------------------------------------------------------------- colours

@pytest.mark.parametrize(("typed", "stored"), [
    ("#1a73e8", "#1a73e8"), ("#1A73E8", "#1a73e8"), ("  #1a73E8\n", "#1a73e8"), ("#abc", "#aabbcc"),
    ("#FFF", "#ffffff"), ("#000000", "#000000"),
])
def test_accent_colours_are_stored_as_lowercase_six_digit_hex(typed, stored):
    assert normalize_color(typed) == stored


@pytest.mark.parametrize("typed", [
    "", "   ", "1a73e8", "#1a73e", "#1a73e88", "#ggg", "#12", "blue", "rgb(0,0,0)", "#1a 73e8", "# 1a73e8",
    "#１２３", "#1a73e8;", "#1a73e8ff",
])
def test_anything_but_hex_colours_is_refused_with_the_partners_message(typed):
    with pytest.raises(BrandError, match="Accent colour must be a hex colour like #1a73e8"):
        normalize_color(typed)


def test_brand_error_is_a_value_error():
    assert issubclass(BrandError, ValueError)


@pytest.mark.parametrize(("a", "b", "ratio"), [
    ("#ffffff", "#000000", 21.0), ("#000000", "#ffffff", 21.0), ("#777777", "#777777", 1.0),
    ("#ffffff", "#767676", 4.54),  # the lightest grey that passes AA on white
    ("#ffffff", "#777777", 4.48),
    ("#ffffff", "#1a73e8", 4.5),
    ("#ffffff", "#ff0000", 4.0),
])
def test_contrast_ratio_matches_wcag_values(a, b, ratio):
    assert contrast_ratio(a, b) == pytest.approx(ratio, abs=0.01)


def test_text_on_the_accent_is_white_on_dark_and_near_black_on_light():
    assert text_on("#1a73e8") == "#ffffff"
    assert text_on("#0b1f44") == "#ffffff"
    assert text_on("#ffcc00") == "#111111"
    assert text_on("#f5f5f5") == "#111111"


def test_text_on_the_accent_is_readable_on_every_accent():
    for color in GRID + ["#777777", "#787878", "#7a7a7a", "#ff0000", "#00ff00", "#0000ff"]:
        text = text_on(color)
        assert contrast_ratio(color, text) >= 4.5, (color, text)
        assert text in ("#ffffff", "#111111", "#000000")


def test_mid_greys_where_neither_white_nor_near_black_reaches_4_5_get_black():
    assert contrast_ratio("#777777", "#ffffff") < 4.5 and contrast_ratio("#777777", "#111111") < 4.5
    assert text_on("#777777") == "#000000"


@pytest.mark.parametrize("color", ["#1a73e8", "#0b1f44", "#000000", "#767676", "#b91c1c"])
def test_accent_as_text_keeps_colours_that_are_readable_on_white(color):
    assert accent_as_text(color) == color


def test_accent_as_text_darkens_light_accents_until_readable_and_keeps_their_hue():
    for color in GRID:
        text = accent_as_text(color)
        assert contrast_ratio(text, "#ffffff") >= 4.5, (color, text)
    yellow = accent_as_text("#ffcc00")
    assert yellow != "#ffcc00" and yellow != "#000000"
    red, green, blue = (int(yellow[i:i + 2], 16) for i in (1, 3, 5))
    assert red > green > blue == 0  # still a dark yellow, not grey
    assert accent_as_text("#FFF") not in ("#ffffff", "#FFF")


# --------------------------------------------------------------------------- names

def test_brand_names_are_trimmed_and_empty_means_none():
    assert normalize_name("  Acme Security  ") == "Acme Security"
    assert normalize_name("") is None and normalize_name("   ") is None and normalize_name(None) is None
    assert normalize_name("Ä" * 100) == "Ä" * 100
    with pytest.raises(BrandError, match="at most 100 characters"):
        normalize_name("x" * 101)
    for bad in ("Acme\nSecurity", "Acme\x00", "Acme\x1b[31m"):
        with pytest.raises(BrandError, match="control characters"):
            normalize_name(bad)


# --------------------------------------------------------------------------- PNG logos

def test_a_real_png_is_accepted_as_it_is():
    data = png_bytes()
    assert validate_logo(data) == (data, "image/png")
    assert logo_digest(data) == hashlib.sha256(data).hexdigest()
    assert len(logo_digest(data)) == 64


def test_a_png_signature_followed_by_garbage_is_refused():
    assert "not a valid PNG" in refused(b"\x89PNG\r\n\x1a\n" + b"garbage" * 20)
    assert "not a valid PNG" in refused(png_bytes()[:-6])  # cut short


def test_a_png_without_ihdr_first_is_refused():
    data = png_bytes()
    body = b"\x00" * 13
    bogus = struct.pack(">I", 13) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    assert "not a valid PNG" in refused(data[:8] + bogus + data[8:])


def test_a_png_with_a_damaged_chunk_is_refused():
    data = bytearray(png_bytes())
    data[40] ^= 0xFF  # inside the image data: its CRC no longer matches
    assert "not a valid PNG" in refused(bytes(data))


def test_a_png_with_an_enormous_canvas_is_refused():
    assert "4096 × 4096 pixels" in refused(png_bytes((5000, 10)))


def test_logos_over_64_kb_or_empty_are_refused():
    noisy = Image.frombytes("RGB", (160, 160), bytes((i * 7919) % 251 for i in range(160 * 160 * 3)))
    buffer = io.BytesIO()
    noisy.save(buffer, "PNG", compress_level=0)
    assert len(buffer.getvalue()) > 65536
    assert refused(buffer.getvalue()) == "Logo must be at most 64 KB"
    padded = svg(body="<!--" + "x" * 65536 + "-->")
    assert refused(padded) == "Logo must be at most 64 KB"
    assert refused(b"") == "Logo file is empty"
    exactly = svg(body="<!--" + "x" * (65536 - len(svg(body="<!---->"))) + "-->")
    assert len(exactly) == 65536 and validate_logo(exactly)[1] == "image/svg+xml"


@pytest.mark.parametrize("data", [
    b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    b"%PDF-1.7\n", b"just some text", b"\xff\xfe<\x00s\x00v\x00g\x00",  # UTF-16 SVG
])
def test_other_files_are_refused_as_not_png_or_svg(data):
    assert refused(data) == "Logo must be a PNG or SVG file"


# --------------------------------------------------------------------------- SVG logos

def test_a_plain_svg_is_accepted_as_it_is():
    data = svg()
    assert validate_logo(data) == (data, "image/svg+xml")


def test_svg_with_declaration_bom_gradients_and_editor_metadata_is_accepted():
    """What Inkscape and Illustrator write: local url(#id) references, xlink:href="#id", namespaced metadata."""
    data = ("\ufeff" + '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            '<!-- Created with Inkscape -->\n'
            f'<svg {SVG_NS} xmlns:xlink="http://www.w3.org/1999/xlink" '
            'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
            'xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" '
            'inkscape:export-filename="C:\\logos\\acme.png" viewBox="0 0 50 50">'
            '<sodipodi:namedview id="nv" pagecolor="#ffffff"/>'
            '<defs><linearGradient id="a"><stop offset="0" style="stop-color:#1a73e8"/></linearGradient>'
            '<linearGradient id="b" xlink:href="#a"/></defs>'
            '<style>.mark { fill: url(#b); }</style>'
            '<rect class="mark" style="fill:url( \'#b\' );stroke:none" fill="url(#a)" width="40" height="40"/>'
            '<use href="#a"/><image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>'
            '<text x="1" y="45" style="font-family:sans-serif">Acme</text></svg>').encode()
    assert validate_logo(data)[1] == "image/svg+xml"


def test_an_svg_without_a_namespace_is_accepted():
    assert validate_logo(b'<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>')[1] == "image/svg+xml"


UNSAFE = "SVG logos may not contain scripts, event handlers or external references"


@pytest.mark.parametrize("data", [
    svg("<script>alert(document.cookie)</script>"),
    svg('<script xlink:href="https://evil.example/x.js" xmlns:xlink="http://www.w3.org/1999/xlink"/>'),
    svg('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'),
    svg("<foreignObject><div>hi</div></foreignObject>"),
    svg('<h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/"/>'),
    svg(root=f'<svg {SVG_NS} onload="alert(1)">'),
    svg('<rect width="1" height="1" onclick="alert(1)"/>'),
    svg('<rect width="1" height="1" ONMOUSEOVER="alert(1)"/>'),
    svg('<image href="https://tracker.example/pixel.png"/>'),
    svg('<image xlink:href="//tracker.example/p.png" xmlns:xlink="http://www.w3.org/1999/xlink"/>'),
    svg('<use href="sprites.svg#logo"/>'),
    svg('<a href="javascript:alert(1)"><text>x</text></a>'),
    svg('<image href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="/>'),
    svg('<image href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"/>'),
    svg('<a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a>'),
    svg('<a xml:base="https://evil.example/"><use href="#x"/></a>'),
    svg('<style>@import url("https://evil.example/font.css");</style>'),
    svg("<style>@import 'https://evil.example/x.css';</style>"),
    svg("<style>rect { fill: url(https://evil.example/p.svg#g) }</style>"),
    svg(r"<style>rect { background: \75 rl(https://evil.example/) }</style>"),
    svg('<style>rect { background-image: image-set("https://evil.example/x.png" 1x) }</style>'),
    svg('<rect style="fill: url(https://evil.example/p.svg#g)"/>'),
    svg('<rect fill="url(//evil.example/p.svg#g)"/>'),
    svg('<rect style="fill:URL(&quot;https://evil.example/x&quot;)"/>'),
    b'<?xml-stylesheet href="https://evil.example/x.css"?>' + svg(),
])
def test_svg_that_runs_code_or_loads_other_files_is_refused(data):
    assert refused(data) == UNSAFE


@pytest.mark.parametrize("data", [
    b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
    b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg"/>',
    b'<!DOCTYPE svg [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><svg>&b;</svg>',  # billion laughs
    b'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>',  # XXE
    b'<!ENTITY x "y"><svg/>',
    b'<!doctype svg><svg/>',
])
def test_svg_with_doctype_or_entities_is_refused_before_parsing(data):
    assert "DOCTYPE" in refused(data)


def test_xml_that_is_not_svg_is_refused():
    assert refused(b'<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>') == "Logo must be a PNG or SVG file"
    assert refused(b'<svg xmlns="http://example.com/not-svg"/>') == "Logo must be a PNG or SVG file"
    assert refused(b"<note><to>Ann</to></note>") == "Logo must be a PNG or SVG file"


def test_broken_xml_is_refused():
    assert "not a valid SVG" in refused(b"<svg><rect></svg>")
    assert "not a valid SVG" in refused(b'<svg xmlns="http://www.w3.org/2000/svg"')


def use_bomb(levels: int = 8, copies: int = 10) -> bytes:
    """The issue 31 logo: each level a group of `copies` <use> of the level below; 10^8 shapes from 1.6 KB."""
    body = '<defs><g id="l0"><rect width="1" height="1"/></g>'
    for level in range(1, levels + 1):
        body += f'<g id="l{level}">' + f'<use href="#l{level - 1}"/>' * copies + "</g>"
    return svg(body + f'</defs><use href="#l{levels}"/>')


def test_an_svg_whose_use_copies_nest_is_refused_with_what_to_do():
    assert len(use_bomb()) < 2000
    message = refused(use_bomb())
    assert "may not use a <use> element to copy something that itself contains <use>" in message
    assert "upload a PNG" in message
    assert "contains <use>" in refused(svg('<g id="a"><use href="#a"/></g>'))   # a copy of itself


def test_an_svg_that_draws_too_much_or_tiles_a_pattern_is_refused():
    many = svg('<defs><g id="g">' + '<rect width="1" height="1"/>' * 100 + "</g></defs>" + '<use href="#g"/>' * 60)
    assert len(many) < 65536 and "too complex: it draws 6,223 elements, at most 5,000" in refused(many)
    assert "patterns" in refused(svg('<defs><pattern id="p" width="0.01" height="0.01"><rect width="1" height="1"/>'
                                     '</pattern></defs><rect width="10" height="10" fill="url(#p)"/>'))


def test_a_logo_that_copies_a_shape_a_few_times_is_accepted():
    data = svg('<defs><g id="leaf"><path d="M0 0L5 5"/><circle r="2"/></g></defs>' + '<use href="#leaf"/>' * 12)
    assert validate_logo(data) == (data, "image/svg+xml")
