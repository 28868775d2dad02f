"""Issue 32: the viewer stays under 60 KB on the wire at 200 requirements: text answers (pages, JSON, CSS, JS) are
compressed where the client accepts it, each encoding with its own ETag, and a reload still gets its 304."""

from __future__ import annotations

import gzip
import re

import brotli
import pytest

from tests.embed import embed_path, generate, submit, view_path

pytestmark = pytest.mark.one_database   # what is sent, not what is stored: SQLite only (see tests/conftest.py)

ROWS = [{"id": f"A.{n}", "title": f"Control number {n} with a title of realistic length",
         "status": ("met", "not_met", "partially_met")[n % 3]} for n in range(1, 201)]


def test_the_viewer_of_200_requirements_is_under_60_kb_on_the_wire_and_reloads_with_304(client, auth):
    record = submit(client, auth, requirements=ROWS)
    result = generate(client, auth, record["id"])
    plain = client.get(embed_path(record))
    page = client.get(embed_path(record), headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in page.headers["Vary"]
    assert gzip.decompress(page.data) == plain.data
    assets = re.findall(r'(?:href|src)="(/embed/static/[^"]+)"', plain.get_data(as_text=True))
    assets_size = 0
    for asset in assets:   # files, sent as they are (and cached for a year)
        with client.get(asset.replace("&amp;", "&")) as response:
            assets_size += len(response.data)
    wire, unpacked = len(page.data) + assets_size, len(plain.data) + assets_size
    assert wire <= 60 * 1024 < unpacked, (wire, unpacked)
    # each encoding has its own validator, and a browser's reload with it gets a bodiless 304
    assert page.headers["ETag"] != plain.headers["ETag"]
    again = client.get(embed_path(record), headers={"Accept-Encoding": "gzip", "If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    # brotli where the client prefers it; the PDF as it is (already compressed)
    br = client.get(view_path(result, "cfo"), headers={"Accept-Encoding": "br"})
    assert br.headers["Content-Encoding"] == "br" and brotli.decompress(br.data).startswith(b"<!doctype html>")
    pdf = client.get(view_path(result, "cfo") + ".pdf", headers={"Accept-Encoding": "gzip, br"})
    assert pdf.status_code == 200 and "Content-Encoding" not in pdf.headers and pdf.data.startswith(b"%PDF")


def test_api_json_is_compressed_only_for_a_client_that_asks(client, auth):
    record = submit(client, auth, requirements=ROWS)
    path = f"/api/v1/assessments/{record['id']}"
    assert "Content-Encoding" not in client.get(path, headers=auth).headers
    packed = client.get(path, headers={**auth, "Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == client.get(path, headers=auth).data
