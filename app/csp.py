"""Content-Security-Policy helpers shared by the pages (embed, portal, home)."""

from __future__ import annotations

import base64
import hashlib
import re

_STYLE_BLOCK = re.compile(r"<style>(.*?)</style>", re.DOTALL)


def style_hashes(html: str) -> list[str]:
    """CSP sources allowing exactly a page's own <style> blocks: `'sha256-...'`, one per block."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()}'"
            for block in _STYLE_BLOCK.findall(html)]
