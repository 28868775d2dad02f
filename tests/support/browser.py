"""Browser tests' shared parts: Debian's Chromium driven by Playwright, the app served by waitress, axe-core.

The fixtures (`browser`, `live`, `axe_source`) are registered for every test by tests/conftest.py;
nothing here imports Playwright until a fixture runs. A browser test module starts with

    sync_api = require_browser()

which skips the module when Chromium or Playwright is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.live import LiveServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
AXE_VIOLATIONS = ("async () => (await axe.run(document)).violations.map("
                  "v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))")


def require_browser():
    """Playwright's sync API, or skip the calling module when the browser or the packages are missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)",
                    allow_module_level=True)
    return pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")


class PageWatch:
    """Everything a page requested and every console error or uncaught exception it produced."""

    def __init__(self, page):
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def foreign(self, *origins: str) -> list[str]:
        return [url for url in self.requests
                if not url.startswith("data:") and not any(url.startswith(o + "/") for o in origins)]


def axe_violations(page, axe_script: str) -> list[dict]:
    """Run axe-core on the page as it is now."""
    page.evaluate(axe_script)  # evaluate is not subject to the page's CSP; a script tag would be
    return page.evaluate(AXE_VIOLATIONS)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def live(app) -> Iterator[LiveServer]:
    with LiveServer(app) as server:
        yield server


_axe_cache: dict[str, str] = {}


@pytest.fixture(scope="session")
def axe_source(tmp_path_factory) -> str:
    """axe-core 4 from the npm registry, installed once per run into a temporary directory.

    Every module that imports this fixture gets its own session-scoped copy of it; the cache makes
    them share one download.
    """
    if "script" in _axe_cache:
        return _axe_cache["script"]
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("the accessibility test needs npm to fetch axe-core")
    prefix = tmp_path_factory.mktemp("axe")
    result = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent",
                             "axe-core@4"], capture_output=True, text=True, timeout=180, check=False)
    script = prefix / "node_modules" / "axe-core" / "axe.min.js"
    if result.returncode != 0 or not script.exists():
        pytest.skip(f"could not install axe-core from npm: {result.stderr.strip()[:300]}")
    _axe_cache["script"] = script.read_text()
    return _axe_cache["script"]
