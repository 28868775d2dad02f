"""A key's brand: the partner's name, accent colour and logo on the pages its clients see.

Pure functions (no Flask, no database): they check what an operator or partner submits and turn
it into what is stored, and work out readable colours for the pages from the accent.
"""

from __future__ import annotations

import hashlib
import re
import struct
import xml.etree.ElementTree as ET  # noqa: S405 - DOCTYPE and ENTITY are refused before parsing
import zlib

MAX_LOGO_BYTES = 65536
MAX_LOGO_PIXELS = 4096  # per side: a PNG this small can still declare a bitmap big enough to exhaust a renderer
MAX_NAME_LENGTH = 100
MAX_SVG_SHAPES = 5000  # elements an SVG logo draws, every <use> copy counted: a logo needs a few hundred
PNG = "image/png"
SVG = "image/svg+xml"
WHITE = "#ffffff"
NEAR_BLACK = "#111111"
BLACK = "#000000"
MIN_CONTRAST = 4.5  # WCAG 2.x level AA for body text

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml"

_HEX_COLOR = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Elements that run code or pull in other documents, in whatever namespace they are written.
_FORBIDDEN_ELEMENTS = frozenset({"script", "foreignobject", "handler", "listener", "iframe", "embed", "object"})
_ANIMATIONS = frozenset({"set", "animate", "animatemotion", "animatetransform", "animatecolor"})
_ALLOWED_DATA_URI = re.compile(r"data:image/(png|jpeg)[;,]", re.IGNORECASE)
_URL_FUNCTION = re.compile(r"url\(", re.IGNORECASE)
_LOCAL_URL = re.compile(r"url\(\s*(['\"]?)#[^'\"()\s]*\1\s*\)", re.IGNORECASE)
_SCRIPT_URI = re.compile(r"(java|vb)script:", re.IGNORECASE)

UNSAFE_SVG = "SVG logos may not contain scripts, event handlers or external references"
NOT_A_LOGO = "Logo must be a PNG or SVG file"


class BrandError(ValueError):
    """A brand setting that cannot be stored; the message is written for the partner."""


# --------------------------------------------------------------------------- name and colours

def normalize_name(text: str | None) -> str | None:
    """The "Prepared by" name, trimmed; None when empty (no name shown)."""
    name = (text or "").strip()
    if not name:
        return None
    if _CONTROL.search(name):
        raise BrandError("Brand name may not contain control characters or line breaks")
    if len(name) > MAX_NAME_LENGTH:
        raise BrandError(f"Brand name must be at most {MAX_NAME_LENGTH} characters")
    return name


def normalize_color(text: str) -> str:
    """`#rgb` or `#rrggbb` in any case, spaces around allowed, as lowercase `#rrggbb`."""
    match = _HEX_COLOR.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise BrandError("Accent colour must be a hex colour like #1a73e8")
    digits = match.group(1).lower()
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return "#" + digits


def _channels(color: str) -> tuple[int, int, int]:
    digits = normalize_color(color)[1:]
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def _hex(red: int, green: int, blue: int) -> str:
    return f"#{red:02x}{green:02x}{blue:02x}"


def _luminance(color: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = _channels(color)
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2.x contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    lighter, darker = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_on(color: str) -> str:
    """Text colour for use on the accent: white or near-black, whichever contrasts more.

    For a narrow band of mid-luminance accents (e.g. #777777) neither reaches 4.5:1; pure black
    always does there, so it is used instead.
    """
    best = max((WHITE, NEAR_BLACK), key=lambda text: contrast_ratio(color, text))
    return best if contrast_ratio(color, best) >= MIN_CONTRAST else BLACK


def accent_as_text(color: str, background: str = WHITE) -> str:
    """The accent as a text or link colour on `background` (white unless given): itself if readable
    (4.5:1), else darkened until it is."""
    red, green, blue = _channels(color)
    for step in range(51):
        keep = 1 - step / 50  # mix toward black in 2 % steps; black itself (21:1) ends the loop at worst
        candidate = _hex(round(red * keep), round(green * keep), round(blue * keep))
        if contrast_ratio(candidate, background) >= MIN_CONTRAST:
            return candidate
    return BLACK  # pragma: no cover - the last step is black


# --------------------------------------------------------------------------- logos

def logo_digest(data: bytes) -> str:
    """SHA-256 hex of the stored bytes: the logo's content-addressed name."""
    return hashlib.sha256(data).hexdigest()


def validate_logo(data: bytes) -> tuple[bytes, str]:
    """The logo's bytes and MIME type, if it is a PNG or a safe SVG of at most 64 KB."""
    if not data:
        raise BrandError("Logo file is empty")
    if len(data) > MAX_LOGO_BYTES:
        raise BrandError("Logo must be at most 64 KB")
    if data.startswith(PNG_SIGNATURE):
        _check_png(data)
        return data, PNG
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BrandError(NOT_A_LOGO) from None
    if not text.lstrip().startswith("<"):
        raise BrandError(NOT_A_LOGO)
    _check_svg(text)
    return data, SVG


def _check_png(data: bytes) -> None:
    """The chunks are well formed (length, type, CRC) from IHDR first to IEND, with image data."""
    position, seen = len(PNG_SIGNATURE), []
    while True:
        if position + 12 > len(data):
            raise BrandError("Logo is not a valid PNG image (it is cut short)")
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        crc = data[position + 8 + length:position + 12 + length]
        if len(body) != length or len(crc) != 4 or zlib.crc32(kind + body) != struct.unpack(">I", crc)[0]:
            raise BrandError("Logo is not a valid PNG image")
        if not seen and (kind != b"IHDR" or length != 13):
            raise BrandError("Logo is not a valid PNG image (no IHDR header)")
        seen.append(kind)
        position += 12 + length
        if kind == b"IEND":
            break
    if b"IDAT" not in seen:
        raise BrandError("Logo is not a valid PNG image (no image data)")
    width, height = struct.unpack(">II", data[16:24])
    if not (0 < width <= MAX_LOGO_PIXELS and 0 < height <= MAX_LOGO_PIXELS):
        raise BrandError(f"Logo must be at most {MAX_LOGO_PIXELS} × {MAX_LOGO_PIXELS} pixels")


def _local(name: str) -> str:
    """`{namespace}name` -> `name`, lowercased (SVG is case-sensitive; refusing more is safe)."""
    return name.rsplit("}", 1)[-1].lower()


def _unsafe_css(text: str) -> bool:
    """CSS that could fetch something: @import, escapes (which can spell url), or a url() that is not `#id`."""
    lowered = text.lower()
    if "@import" in lowered or "\\" in text or "image-set(" in lowered or "src(" in lowered:
        return True
    return any(not _LOCAL_URL.match(text, found.start()) for found in _URL_FUNCTION.finditer(text))


def _check_svg(text: str) -> None:
    """Parse the SVG and refuse anything that runs code or reaches outside the file."""
    upper = text.upper()
    if "<!DOCTYPE" in upper or "<!ENTITY" in upper:
        raise BrandError("SVG logos may not contain a DOCTYPE or entity declarations")
    if re.search(r"<\?(?!xml\s)", text):  # e.g. <?xml-stylesheet href="https://..."?>
        raise BrandError(UNSAFE_SVG)
    try:
        root = ET.fromstring(text)  # noqa: S314 - no DOCTYPE, so no entities: nothing to expand or fetch
    except ET.ParseError:
        raise BrandError("Logo is not a valid SVG file (the XML does not parse)") from None
    if root.tag not in ("svg", f"{{{SVG_NAMESPACE}}}svg"):
        raise BrandError(NOT_A_LOGO)
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        name = _local(element.tag)
        if name in _FORBIDDEN_ELEMENTS or element.tag.startswith(f"{{{XHTML_NAMESPACE}}}"):
            raise BrandError(UNSAFE_SVG)
        if name == "style" and _unsafe_css("".join(element.itertext())):
            raise BrandError(UNSAFE_SVG)
        # <set attributeName="href" to="javascript:..."> rewrites a link after all other checks.
        if name in _ANIMATIONS and _local(element.get("attributeName", "")).split(":")[-1] == "href":
            raise BrandError(UNSAFE_SVG)
        for attribute, value in element.attrib.items():
            _check_attribute(attribute, value)
    _check_drawing_size(root)


def _href(element: ET.Element) -> str:
    return next((v.strip() for k, v in element.attrib.items() if _local(k) == "href"), "")


def _check_drawing_size(root: ET.Element) -> None:
    """Refuse an SVG that draws far more than it holds: a `<use>` of something that holds another `<use>`
    (eight levels of ten copies each is 10^8 shapes from 1.6 KB, and a print that never ends), a pattern
    (tiles repeat without bound), or more than MAX_SVG_SHAPES shapes once every `<use>` is counted."""
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    by_id = {e.get("id"): e for e in elements if e.get("id")}
    drawn = len(elements)
    for element in elements:
        name = _local(element.tag)
        if name == "pattern":
            raise BrandError("SVG logos may not contain patterns; export the logo with the pattern flattened, "
                             "or upload a PNG")
        if name != "use":
            continue
        target = by_id.get(_href(element).lstrip("#"))
        if target is None:
            continue
        inner = [e for e in target.iter() if isinstance(e.tag, str)]
        if any(_local(e.tag) == "use" for e in inner) or element in inner:
            raise BrandError("SVG logos may not use a <use> element to copy something that itself contains "
                             "<use>; flatten the copies in your editor, or upload a PNG")
        drawn += len(inner)
    if drawn > MAX_SVG_SHAPES:
        raise BrandError(f"SVG logo is too complex: it draws {drawn:,} elements, at most {MAX_SVG_SHAPES:,}; "
                         f"simplify it or upload a PNG")


def _check_attribute(qualified: str, value: str) -> None:
    name = _local(qualified)
    if name.startswith("on") or _SCRIPT_URI.search("".join(value.split())):
        raise BrandError(UNSAFE_SVG)
    if name == "href":
        target = value.strip()
        if not (target.startswith("#") or _ALLOWED_DATA_URI.match(target)):
            raise BrandError(UNSAFE_SVG)
    elif name == "base":  # xml:base would send even "#id" links to another file
        raise BrandError(UNSAFE_SVG)
    # Attributes without a namespace are CSS to the browser: style="..." as well as presentation
    # attributes (fill="url(#gradient)"). Editors' own namespaced ones (inkscape:...) are ignored by it.
    elif not qualified.startswith("{") and _unsafe_css(value):
        raise BrandError(UNSAFE_SVG)
