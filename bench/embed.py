"""Embed viewer: bytes a browser downloads, and server time per page view."""

from __future__ import annotations

import io
import re
import tempfile
from contextlib import contextmanager

import pypdf
import requests

from .generation import requirements
from .servers import bare_page, create_key, load, service


def main() -> None:
    with tempfile.TemporaryDirectory() as directory, service(directory, EMBED_RATE_LIMIT="1000000/minute") as (
            base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        rows, pdfs = [], []
        for n in (10, 200, 2000):
            body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
                    "displayName": "Northwind Clinics", "requirements": requirements(n)}
            record = requests.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=30).json()
            result = requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth,
                                   timeout=120).json()
            page = requests.get(record["embedUrl"], timeout=10)
            if n <= 200:
                pdfs.append((n, *_pdf_times(base + result["reports"][1]["viewUrl"] + ".pdf"),
                             *_pdf_times(record["embedUrl"] + ".pdf")))
            assets = re.findall(r'(?:href|src)="(/embed/static/[^"]+)"', page.text)
            asset_bytes = sum(len(requests.get(base + a.replace("&amp;", "&"), timeout=10).content) for a in assets)
            rows.append((n, len(page.content), asset_bytes, record["embedUrl"], base + result["reports"][0]["viewUrl"]))
        page_url, report_url = rows[1][3], rows[1][4]
        etag = requests.get(page_url, timeout=10).headers["ETag"]
        runs = {"page": [], "304": [], "bare": [], "report": [], "bare-report": []}
        with _bare_copy(page_url) as bare_url, _bare_copy(report_url) as bare_report_url:
            urls = {"page": (page_url, {}), "304": (page_url, {"If-None-Match": etag}), "bare": (bare_url, {}),
                    "report": (report_url, {}), "bare-report": (bare_report_url, {})}
            for url, headers in urls.values():   # each server's first requests open its connections
                load(url, seconds=1, headers=headers)
            # Side by side, in turns, so the machine's drift hits both alike.
            for _ in range(3):
                for name, (url, headers) in urls.items():
                    runs[name].append(load(url, seconds=4, headers=headers))
    print("## Embed viewer\n")
    print("PDFs (WeasyPrint), first request prints and stores, the second is served from the store:\n")
    print("| requirements | one report: print (goal < 1 s) | stored | all 25 reports: print | stored | pages |")
    print("|---|---|---|---|---|---|")
    for n, one, one_again, _, every, every_again, pages in pdfs:
        print(f"| {n} | {one * 1000:.0f} ms | {one_again * 1000:.0f} ms | {every:.1f} s | "
              f"{every_again * 1000:.0f} ms | {pages} |")
    print()
    print("| requirements | page | CSS + JS | total (goal ≤ 60 KB) |")
    print("|---|---|---|---|")
    for n, page_bytes, asset_bytes, *_ in rows:
        print(f"| {n} | {page_bytes / 1024:.1f} KB | {asset_bytes / 1024:.1f} KB | "
              f"{(page_bytes + asset_bytes) / 1024:.1f} KB |")
    print("\nThe viewer page and one report's page (200 requirements), 16 connections, after a 1 s warm-up three"
          " 4 s rounds in turns with a bare Flask handler sending the same bytes on the same waitress settings:\n")
    print("| what | pages/s | ratio to bare (goal ≥ 0.2) | p50 | p99 (goal ≤ 100 ms) | errors |")
    print("|---|---|---|---|---|---|")
    for name, label, bare in (("page", "viewer page", "bare"),
                              ("304", "viewer page, reload with If-None-Match (304)", "bare"),
                              ("bare", "bare Flask, the viewer page's bytes", "bare"),
                              ("report", "report page", "bare-report"),
                              ("bare-report", "bare Flask, the report page's bytes", "bare-report")):
        rs = runs[name]
        rps = sum(r["rps"] for r in rs) / len(rs)
        bare_rps = sum(r["rps"] for r in runs[bare]) / len(runs[bare])
        p99 = max(r["p99_ms"] for r in rs)
        p50 = sorted(r["p50_ms"] for r in rs)[1]
        print(f"| {label} | {rps:.0f} | {rps / bare_rps:.2f} | {p50:.1f} ms | {p99:.1f} ms |"
              f" {sum(r['errors'] for r in rs)} |")
    print()


@contextmanager
def _bare_copy(url: str):
    """A bare Flask handler sending the bytes `url` answers with; yields its URL."""
    with tempfile.NamedTemporaryFile(suffix=".html") as copy:
        copy.write(requests.get(url, timeout=10).content)
        copy.flush()
        with bare_page(copy.name) as bare_url:
            yield bare_url


def _pdf_times(url: str) -> tuple[float, float, int]:
    """Seconds for the first request (prints) and the second (stored), and the PDF's page count."""
    first = requests.get(url, timeout=300)
    first.raise_for_status()
    second = requests.get(url, timeout=60)
    pages = len(pypdf.PdfReader(io.BytesIO(second.content)).pages)
    return first.elapsed.total_seconds(), second.elapsed.total_seconds(), pages
