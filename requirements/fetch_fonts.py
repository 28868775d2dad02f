"""Install the PDF fonts no PyPI package carries (requirements/fonts.json) into the venv.

    .venv/bin/python requirements/fetch_fonts.py DEST

For each pinned Fontsource package on the npm registry: download its tarball, check it against the pinned sha512
(a mismatch stops with an error, as a wrong hash does in pip), take the script's WOFF2 subset and write it to DEST as
TrueType (fontTools; fontconfig does not read WOFF2). Files already in DEST are kept. Without network the install
goes on with a warning: those scripts then print as empty boxes, as app/embed/printing.py logs.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

from fontTools.ttLib import TTFont

PINS = Path(__file__).with_name("fonts.json")
REGISTRY = "https://registry.npmjs.org"


def tarball_url(package: str, version: str) -> str:
    return f"{REGISTRY}/{package}/-/{package.split('/')[1]}-{version}.tgz"


def fetch(font: dict) -> bytes:
    with urllib.request.urlopen(tarball_url(font["package"], font["version"]), timeout=60) as answer:  # noqa: S310
        data = answer.read()
    algorithm, digest = font["integrity"].split("-", 1)
    if base64.b64encode(hashlib.new(algorithm, data).digest()).decode() != digest:
        raise SystemExit(f"fetch_fonts: {font['package']} {font['version']} does not match its pinned {algorithm}; "
                         f"refusing it (see requirements/fonts.json)")
    return data


def install(font: dict, dest: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(fetch(font)), mode="r:gz") as archive:
        woff2 = archive.extractfile(font["member"]).read()
    face = TTFont(io.BytesIO(woff2))
    face.flavor = None
    face.save(dest / font["file"])


def main(argv: list[str]) -> int:
    dest = Path(argv[1])
    dest.mkdir(parents=True, exist_ok=True)
    missing = [f for f in json.loads(PINS.read_text(encoding="utf-8"))["fonts"] if not (dest / f["file"]).exists()]
    for font in missing:
        try:
            install(font, dest)
        except OSError as error:   # offline, or the registry unreachable: the rest of the install goes on
            print(f"fetch_fonts: could not fetch {font['package']} ({error}); {font['script']} will print as empty "
                  f"boxes in PDFs until `make install` runs with network", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
