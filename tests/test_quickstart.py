"""The README's quick start, followed as a partner follows it, against the server `make run` starts.

`make run` starts on a fresh SQLite database in tmp_path (never instance/), prints its one-time demo
key, and serves; the README's shell block after `<!-- quickstart -->` then runs under
`bash -euo pipefail` with that key and this server's address, in an empty folder, using only curl
and python3. What it leaves is what the partner would open: a page whose iframe shows the reports.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.support.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("make") is None,
                                                     reason="the quick start starts the server with make run")]

# Settings of the developer's shell that would change what a partner's fresh `make run` does.
UNSET = ("PUBLIC_BASE_URL", "REPORT_ENGINE", "RATELIMIT_STORAGE_URI", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")


@dataclass
class MakeRun:
    process: subprocess.Popen
    base: str
    port: int
    stdout: Path
    stderr: Path

    def output(self) -> str:
        return (f"make run's stdout:\n{self.stdout.read_text(errors='replace')}\n"
                f"make run's stderr (last 3,000 characters):\n{self.stderr.read_text(errors='replace')[-3000:]}")


def quickstart_block() -> str:
    """The ```sh block right after the `<!-- quickstart -->` line of the README."""
    match = re.search(r"^<!-- quickstart -->\n```sh\n(.*?)^```$", README.read_text(), re.S | re.M)
    assert match, "README.md has no ```sh block right after a <!-- quickstart --> line"
    return match.group(1)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stop(run: MakeRun) -> None:
    """Terminate make run's process group and wait for make. The group is make and the waitress its recipe
    execs; make passes a SIGTERM on to its running recipe too and exits only once that has ended."""
    try:
        os.killpg(run.process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        run.process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(run.process.pid, signal.SIGKILL)
        run.process.wait(10)


@contextmanager
def make_run(tmp_path: Path) -> Iterator[MakeRun]:
    port = free_port()
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path}/quickstart.db", SECRET_KEY="test-secret-key")
    stdout, stderr = tmp_path / "make-run.out", tmp_path / "make-run.err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(["make", "--no-print-directory", "run", "HOST=127.0.0.1", f"PORT={port}"],
                                   cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   start_new_session=True)
    run = MakeRun(process, f"http://127.0.0.1:{port}", port, stdout, stderr)
    try:
        def healthy() -> bool:
            assert process.poll() is None, f"make run exited with {process.returncode}\n{run.output()}"
            try:
                return requests.get(f"{run.base}/healthz", timeout=1).status_code == 200
            except requests.ConnectionError:
                return False

        # Seconds, or a minute or two when setup.cfg changed since the last install and make installs first.
        wait_until(healthy, timeout=180, interval=0.1)
        yield run
    finally:
        stop(run)


def demo_key(run: MakeRun) -> str:
    """The key `keys ensure-demo` prints once, on a line of its own, on an empty database."""
    match = re.search(r"^\s+(crs_[A-Za-z0-9_-]+)\s*$", run.stdout.read_text(), re.M)
    assert match, f"no demo key in make run's output\n{run.output()}"
    return match.group(1)


def test_the_readme_quick_start_ends_with_an_iframe_showing_the_reports(tmp_path):
    block = quickstart_block()
    assert "KEY=${KEY:-crs_paste_your_key_here}" in block.splitlines()
    work = tmp_path / "partner"
    work.mkdir()
    with make_run(tmp_path) as run:
        key = demo_key(run)
        steps = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=work, capture_output=True, text=True,
                               env={**os.environ, "BASE": run.base, "KEY": key}, timeout=60)
        assert steps.returncode == 0, f"the quick start failed:\n{steps.stdout}\n{steps.stderr}\n{run.output()}"

        # The page the partner opens: an iframe on this server's embed page, sized by the resize script.
        page = (work / "reports.html").read_text()
        # A phone lays out a page without a viewport meta 980 px wide and shrinks it, the framed report's text
        # to under 6 px at 375 px (tests/test_first_hour.py measures it in Chromium).
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
        iframe = re.search(r"<iframe\b[^>]*>", page)
        assert iframe, page
        src = re.search(r'\ssrc="([^"]+)"', iframe.group(0)).group(1)
        assert re.fullmatch(re.escape(run.base) + r"/embed/assessment/[A-Za-z0-9_-]+", src), src
        assert re.search(r'\stitle="[^"]+"', iframe.group(0))
        assert f'var REPORTS_ORIGIN = "{run.base}";' in page
        assert "crs:resize" in page
        assert key not in page

        # What the iframe shows: the client's reports, not an error or "not ready" page.
        embed = requests.get(src, timeout=10)
        assert embed.status_code == 200
        assert embed.headers["Content-Type"].startswith("text/html")
        framework = re.search(r'"framework": "([^"]+)"', block).group(1)
        display_name = re.search(r'"displayName": "([^"]+)"', block).group(1)
        assert html.escape(framework) in embed.text
        assert f"Prepared for {html.escape(display_name)}" in embed.text
        auth = {"Authorization": f"Bearer {key}"}
        personas = requests.get(f"{run.base}/api/v1/personas", headers=auth, timeout=10).json()["items"]
        assert len(personas) == 25
        assert all(html.escape(p["label"]) in embed.text for p in personas)  # the selector
        assert "Compliance score" in embed.text                                # the chosen report's card

        # The record behind it, as the partner's key reads it.
        [item] = requests.get(f"{run.base}/api/v1/assessments", headers=auth, timeout=10).json()["items"]
        record = requests.get(f"{run.base}/api/v1/assessments/{item['id']}", headers=auth, timeout=10)
        assert record.status_code == 200
        record = record.json()
        assert record["status"] == "completed"
        assert record["embedUrl"] == src
        assert record["displayName"] == display_name
        assert len(record["reports"]) == 25
        assert {r["persona"] for r in record["reports"]} == {p["id"] for p in personas}
        assert all(r["status"] == "completed" for r in record["reports"])

    # Stopped: nothing of make run's process group is left, and nothing listens on its port.
    # The PDF fork server, its worker and multiprocessing's resource tracker end on their own once the
    # server has gone (they see its pipes close) and init reaps them: a second or two, not at once.
    assert run.process.returncode is not None
    wait_until(lambda: not group_alive(run.process.pid), timeout=15, interval=0.1)
    assert not listening(run.port), f"something still listens on port {run.port}"
