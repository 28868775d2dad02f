"""A partner's first hour (issue 32): what they meet between `make run` and a page with the reports on a phone.

- the Quick start's host page has a viewport meta, so on a phone the framed report is read at its own size;
- the curl walk-through works on an assessment of its own, by the id the API returned, and erases only that one;
- `GET /` is a small page pointing to the API reference, the portal and health, with the pages' security headers;
- `flask run`, which would serve without the webhook sender, refuses with a sentence pointing to `make run`;
- the sign-in page says how accounts are made on this install, not "your account manager";
- `keys ensure-demo` shows the demo key's webhook and embed secrets once, with the key.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import http.server
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests

from app.extensions import db
from app.keys.crypto import decrypt_secret
from app.models import ApiKey, Assessment
from tests.support.browser import CHROMIUM, PageWatch
from tests.support.processes import free_port
from tests.test_quickstart import README, quickstart_block

ROOT = Path(__file__).resolve().parents[1]
FLASK = Path(sys.executable).parent / "flask"
VIEWPORT_META = '<meta name="viewport" content="width=device-width, initial-scale=1">'
needs_bash_and_curl = pytest.mark.skipif(not (shutil.which("bash") and shutil.which("curl")),
                                         reason="the README's blocks run in bash with curl")


def host_page_template() -> str:
    """The HTML the Quick start writes to reports.html (its heredoc, before the shell fills it in)."""
    match = re.search(r"^cat > reports\.html <<EOF\n(.*?)^EOF$", quickstart_block(), re.S | re.M)
    assert match, "the Quick start no longer writes reports.html with a heredoc"
    return match.group(1)


def walkthrough_block() -> str:
    """The ```sh block of the README's "Walk-through with curl" section."""
    section = re.search(r"^## Walk-through with curl\n(.*?)^## ", README.read_text(), re.S | re.M)
    assert section, "README.md has no 'Walk-through with curl' section"
    block = re.search(r"^```sh\n(.*?)^```$", section.group(1), re.S | re.M)
    assert block, "the walk-through has no ```sh block"
    return block.group(1)


# 1. The Quick start's host page on a phone

def test_the_quick_start_host_page_has_a_viewport_meta():
    page = host_page_template()
    head = re.search(r"<head>(.*?)</head>", page, re.S)
    assert head, page
    assert VIEWPORT_META in head.group(1)


@pytest.mark.one_database
@needs_bash_and_curl
def test_on_a_phone_the_framed_report_reads_at_its_own_size(request, live, make_key, tmp_path):
    """The Quick start run against this server; its reports.html opened at 375 px as a phone opens it: the
    report's body text is at least 14 px on the screen (without the viewport meta the phone lays the page out
    980 px wide and shrinks it, text and all, to under 6 px)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Debian's chromium at {CHROMIUM}")
    pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    key = make_key(livemode=False).api_key
    steps = subprocess.run(["bash", "-euo", "pipefail", "-c", quickstart_block()], cwd=tmp_path, capture_output=True,
                           text=True, env={**os.environ, "BASE": live.url, "KEY": key}, timeout=60)
    assert steps.returncode == 0, f"{steps.stdout}\n{steps.stderr}"

    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as host:
        threading.Thread(target=host.serve_forever, daemon=True).start()
        try:
            browser = request.getfixturevalue("browser")
            context = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2,
                                          is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{host.server_address[1]}/reports.html")
            frame = page.wait_for_selector("#crs-reports").content_frame()
            # a section that is open on a phone (a long one starts folded there, behind its heading)
            paragraph = frame.wait_for_selector("article.report section.section p:not(.chips)")
            css_px = paragraph.evaluate("p => parseFloat(getComputedStyle(p).fontSize)")
            scale = page.evaluate("window.visualViewport.scale")
            layout_width = page.evaluate("document.documentElement.clientWidth")
            context.close()
        finally:
            host.shutdown()
    assert css_px * scale >= 14, f"{css_px} CSS px at scale {scale} (the host page laid out {layout_width} px wide)"
    assert layout_width == 375


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


# 2. The walk-through leaves the Quick start's assessment alone

def test_the_walkthrough_uses_the_id_the_api_returned():
    block = walkthrough_block()
    assert not re.search(r"^\s*ID=\d", block, re.M), "the walk-through assumes an id"
    assert re.search(r"^ID=\$\(curl .*/api/v1/assessments\"", block, re.M)
    assert "jq" not in block   # the Quick start promises curl and python3 only


@needs_bash_and_curl
def test_the_walkthrough_erases_only_its_own_assessment(live, make_key, app):
    """Run after the Quick start (here: an assessment made by the same key first), the walk-through submits,
    generates, reads and erases an assessment of its own; the Quick start's is still there, with its reports."""
    key = make_key(livemode=False).api_key
    auth = {"Authorization": f"Bearer {key}"}
    body = {"companyId": "client_1042", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
            "requirements": [{"id": "A.5.15", "title": "Access control", "status": "not_met"}]}
    quick_start = requests.post(f"{live.url}/api/v1/assessments", json=body, headers=auth, timeout=10).json()["id"]
    assert requests.post(f"{live.url}/api/v1/assessments/{quick_start}/generate", json={}, headers=auth,
                         timeout=60).status_code == 200

    steps = subprocess.run(["bash", "-euo", "pipefail", "-c", walkthrough_block()], capture_output=True, text=True,
                           env={**os.environ, "BASE": live.url, "KEY": key}, timeout=60)
    assert steps.returncode == 0, f"{steps.stdout}\n{steps.stderr}"
    kept = requests.get(f"{live.url}/api/v1/assessments/{quick_start}", headers=auth, timeout=10)
    assert kept.status_code == 200 and kept.json()["status"] == "completed", "the Quick start's assessment is gone"
    own = re.search(r"^Assessment: (\d+)$", steps.stdout, re.M)
    assert own, steps.stdout
    assert int(own.group(1)) != quick_start
    assert '"persona":"cfo"' in steps.stdout.replace(" ", "")         # step 3 read its CFO report
    assert requests.get(f"{live.url}/api/v1/assessments/{own.group(1)}", headers=auth, timeout=10).status_code == 404
    with app.app_context():
        assert [a.id for a in db.session.scalars(db.select(Assessment))] == [quick_start]


# 3. GET /

def _style_hash(page: str) -> str:
    [style] = re.findall(r"<style>(.*?)</style>", page, re.S)
    return f"'sha256-{base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()}'"


def assert_page_headers(response) -> None:
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src" not in policy
    assert _style_hash(response.get_data(as_text=True)) in policy   # its own <style>, and nothing else inline
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_home_page_links_the_api_reference_the_portal_and_health(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert VIEWPORT_META in page and "<title>Compliance Report Service</title>" in page
    links = dict((text, href) for href, text in re.findall(r'<a href="([^"]+)">([^<]+)</a>', page))
    assert links == {"API reference": "/docs", "Partner portal": "/portal/", "Health": "/healthz"}
    assert client.get("/docs").status_code == 200
    assert client.get("/portal/").status_code == 302          # to the sign-in page
    assert client.get("/healthz").status_code == 200
    assert_page_headers(response)
    assert client.head("/").status_code == 200


def test_home_page_answers_while_the_database_is_down_and_errors_there_keep_the_headers(app_factory, tmp_path):
    app_factory()   # the test's database, made first; the app below points at a file that cannot exist
    broken = app_factory(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path}/missing/dir/app.db",
                         SERVICE_NAME="Acme <Reports>").test_client()
    assert broken.get("/healthz").status_code == 503
    response = broken.get("/")
    assert response.status_code == 200
    assert "<h1>Acme &lt;Reports&gt;</h1>" in response.get_data(as_text=True)
    assert_page_headers(response)
    refused = broken.post("/")
    assert refused.status_code == 405 and refused.headers["Allow"]
    assert_page_headers(refused)   # the error page's own <style>, allowed by its hash


@pytest.mark.one_database
def test_home_page_in_a_browser_has_no_console_error(request, live):
    """Under its CSP the page loads nothing from anywhere, and its style applies (a blocked <style> is a console
    error); at 375 px it needs no sideways scrolling."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Debian's chromium at {CHROMIUM}")
    pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    page = request.getfixturevalue("browser").new_page(viewport={"width": 375, "height": 700})
    watch = PageWatch(page)
    assert page.goto(live.url + "/").status == 200
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(248, 250, 252)"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert watch.errors == [] and watch.foreign(live.url) == []
    page.close()


# 4. `flask run`

def _run_flask(tmp_path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`flask --app wsgi ARGS` from the repository, in a session of its own: on a timeout the whole group (a
    reloader's child too) is killed, and the test fails."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/flask-run.db", "SECRET_KEY": "test-secret-key"}
    for name in ("FLASK_APP", "FLASK_DEBUG", "FLASK_RUN_PORT", "WERKZEUG_RUN_MAIN", "WERKZEUG_SERVER_FD"):
        env.pop(name, None)
    process = subprocess.Popen([str(FLASK), "--app", "wsgi", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"`flask {' '.join(args)}` did not exit: it serves\n{out}\n{err}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.parametrize("extra", [[], ["--debug"]], ids=["plain", "reloader"])
def test_flask_run_refuses_with_a_sentence_pointing_to_make_run(tmp_path, extra):
    port = free_port()
    result = _run_flask(tmp_path, "run", "--port", str(port), *extra, timeout=30)
    assert result.returncode != 0
    assert "Error: `flask run` does not serve this app: it would not start the webhook sender" in result.stderr
    assert "Serve it with `make run`" in result.stderr
    assert "Traceback" not in result.stderr
    assert not _listening(port)


def test_other_flask_commands_still_load_the_app(tmp_path):
    routes = _run_flask(tmp_path, "routes")
    assert routes.returncode == 0, routes.stderr
    assert re.search(r"^main\.home\s+GET\s+/\s*$", routes.stdout, re.M)


# 5. The sign-in page

def test_sign_in_page_says_how_accounts_are_made_here(client, app_factory):
    page = client.get("/portal/login").get_data(as_text=True)
    assert "account manager" not in page
    words = html.unescape(re.sub(r"\s+", " ", page))
    assert ("No account yet? There is no sign-up here: ask whoever runs Compliance Report Service, or an owner of"
            " your company's account, to invite you.") in words
    assert "Forgot your password? Whoever runs Compliance Report Service sets a new one for you." in \
        html.unescape(re.sub(r"<[^>]+>", "", words))
    named = app_factory(SERVICE_NAME="Acme <Reports>").test_client().get("/portal/login").get_data(as_text=True)
    assert "ask whoever runs Acme &lt;Reports&gt;, or an owner" in named


# 6. The demo key's secrets

def test_ensure_demo_shows_the_webhook_and_embed_secrets_once(runner, app):
    first = runner.invoke(args=["keys", "ensure-demo", "--base-url", "http://127.0.0.1:8000"])
    assert first.exit_code == 0, first.output
    api_key = re.search(r"^  (crs_[0-9a-f]{64})$", first.output, re.M).group(1)
    webhook = re.search(r"^  Webhook secret: (whsec_[0-9a-f]{64})$", first.output, re.M).group(1)
    embed = re.search(r"^  Embed secret: +(embsec_[0-9a-f]{64})$", first.output, re.M).group(1)
    assert first.output.index(api_key) < first.output.index(webhook) < first.output.index(embed)
    assert first.output.index(embed) < first.output.index("Try it:")
    with app.app_context():
        [key] = db.session.scalars(db.select(ApiKey)).all()
        assert decrypt_secret(key.webhook_secret_encrypted) == webhook
        assert decrypt_secret(key.embed_secret_encrypted) == embed
        assert f"keys update {key.id} --webhook-url URL" in first.output

    second = runner.invoke(args=["keys", "ensure-demo"])
    assert second.exit_code == 0
    assert not re.search(r"crs_[0-9a-f]{64}|whsec_|embsec_", second.output)
