"""Embed viewer: bytes a browser downloads, and server time per page view."""

from __future__ import annotations

import re
import tempfile

import requests

from .generation import requirements
from .servers import create_key, load, service


def main() -> None:
    with tempfile.TemporaryDirectory() as directory, service(directory, EMBED_RATE_LIMIT="1000000/minute") as (
            base, env):
        auth = {"Authorization": f"Bearer {create_key(env)}"}
        rows = []
        for n in (10, 200, 2000):
            body = {"companyId": "client_1", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
                    "displayName": "Northwind Clinics", "requirements": requirements(n)}
            record = requests.post(f"{base}/api/v1/assessments", json=body, headers=auth, timeout=30).json()
            requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth, timeout=120)
            page = requests.get(record["embedUrl"], timeout=10)
            assets = re.findall(r'(?:href|src)="(/embed/static/[^"]+)"', page.text)
            asset_bytes = sum(len(requests.get(base + a.replace("&amp;", "&"), timeout=10).content) for a in assets)
            rows.append((n, len(page.content), asset_bytes, record["embedUrl"]))
        timing = load(rows[1][3], seconds=5)
    print("## Embed viewer\n")
    print("| requirements | page | CSS + JS | total (goal ≤ 60 KB) |")
    print("|---|---|---|---|")
    for n, page_bytes, asset_bytes, _ in rows:
        print(f"| {n} | {page_bytes / 1024:.1f} KB | {asset_bytes / 1024:.1f} KB | "
              f"{(page_bytes + asset_bytes) / 1024:.1f} KB |")
    print(f"\nserver time of the viewer page (200 requirements; each view also counts one view), 16 connections:"
          f" {timing['rps']:.0f} pages/s, p50 {timing['p50_ms']:.1f} ms, p99 {timing['p99_ms']:.1f} ms, "
          f"errors {timing['errors']}\n")
