"""Issue 31: no logo or reader can stall the PDFs of others. A print has a wall-clock limit after which its worker
is killed; ten readers of one PDF share one print; PDF requests hold at most EMBED_PDF_MAX_REQUESTS server threads;
SIGTERM stops the server within seconds whatever its printers are doing. Real prints, a real served process."""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time

import pytest
import requests
from sqlalchemy import update

from app.embed import printing
from app.extensions import db
from app.keys.service import issue_api_key
from app.models import Partner
from tests.conftest import database_url
from tests.embed import generate, submit, view_path
from tests.keys.test_brand import use_bomb
from tests.support.processes import free_port, start_service, wait_until

pytestmark = pytest.mark.one_database   # printing: SQLite only (see tests/conftest.py)


def key_with_stored_logo(app, logo: bytes | None) -> dict:
    """A key of a partner whose logo is stored as it is, as one uploaded before logos were checked for what they
    draw. The logo is the partner's (every key of it prints it), so a key without a logo belongs to another
    partner than a key with one: "printer" without, "logo-<digest>" with."""
    digest = hashlib.sha256(logo).hexdigest() if logo is not None else None
    with app.app_context():
        issued = issue_api_key(f"logo-{digest[:12]}" if digest else "printer", rate_limit=100_000)
        if logo is not None:
            db.session.execute(update(Partner).where(Partner.id == issued.key.partner_id).values(
                brand_logo=logo, brand_logo_type="image/svg+xml", brand_logo_digest=digest))
        db.session.commit()
    return {"Authorization": f"Bearer {issued.api_key}"}


def assessment_pdf(client, auth) -> str:
    """The path of one report's PDF (the logo is printed on it, as on the whole assessment's)."""
    record = submit(client, auth)
    return view_path(generate(client, auth, record["id"]), "cfo") + ".pdf"


def in_thread(call):
    """Run `call` on a thread; returns (thread, results list)."""
    results: list = []
    thread = threading.Thread(target=lambda: results.append(call()), daemon=True)
    thread.start()
    return thread, results


@pytest.fixture
def counted_prints(monkeypatch):
    """The prints this process starts, counted (they still print)."""
    started: list[float] = []
    real = printing.print_pdf

    def counting(html: str) -> bytes:
        started.append(time.monotonic())
        return real(html)

    monkeypatch.setattr(printing, "print_pdf", counting)
    return started


def test_a_print_past_its_time_limit_is_killed_and_the_reader_gets_503(app_factory, counted_prints):
    app = app_factory(EMBED_PDF_PRINT_TIMEOUT_SECONDS=15.0)
    client = app.test_client()
    plain = key_with_stored_logo(app, None)
    assert client.get(assessment_pdf(client, plain)).status_code == 200     # a worker is up and has its fonts
    bomb = assessment_pdf(client, key_with_stored_logo(app, use_bomb()))
    before = printing.worker_pids()
    thread, answers = in_thread(lambda: client.get(bomb))
    thread.join(60)
    assert not thread.is_alive(), "the print of a nested-<use> logo never came back"
    [answer] = answers
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "30"
    assert "could not be printed" in answer.get_data(as_text=True)
    # the worker that drew it was killed (not left spinning on a CPU); the next print starts new ones
    for pid in before:
        wait_until(lambda pid=pid: not os.path.exists(f"/proc/{pid}") or _zombie(pid), timeout=10)
    # asked again, it answers at once instead of pinning a CPU for another full limit
    again = client.get(bomb)
    assert again.status_code == 503 and len(counted_prints) == 2
    # other PDFs print as before
    fine = client.get(assessment_pdf(client, plain))
    assert fine.status_code == 200 and fine.data.startswith(b"%PDF") and len(counted_prints) == 3
    assert not set(printing.worker_pids()) & set(before)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_ten_readers_of_one_pdf_share_one_print(app_factory, counted_prints):
    app = app_factory(EMBED_PDF_MAX_REQUESTS=12)
    client = app.test_client()
    path = assessment_pdf(client, key_with_stored_logo(app, None))
    gate = threading.Barrier(10)

    def reader():
        own = app.test_client()
        gate.wait()
        return own.get(path)

    threads = [in_thread(reader) for _ in range(10)]
    for thread, _ in threads:
        thread.join(120)
    answers = [results[0] for _, results in threads]
    assert [a.status_code for a in answers] == [200] * 10
    assert len({a.data for a in answers}) == 1 and answers[0].data.startswith(b"%PDF")
    assert len(counted_prints) == 1, "one PDF asked for by ten readers at once is printed once"


def test_pdf_requests_past_the_cap_answer_503_at_once_and_the_rest_stays_fast(app_factory, counted_prints):
    app = app_factory(EMBED_PDF_MAX_REQUESTS=1, EMBED_PDF_PRINT_TIMEOUT_SECONDS=15.0)
    client = app.test_client()
    slow = assessment_pdf(client, key_with_stored_logo(app, use_bomb()))
    other = assessment_pdf(client, key_with_stored_logo(app, None))
    thread, answers = in_thread(lambda: app.test_client().get(slow))
    wait_until(lambda: counted_prints, timeout=30)           # the slow print holds the one PDF request allowed
    refused = client.get(other)
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "30"
    assert "being printed for another reader" in refused.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200 and thread.is_alive()
    thread.join(60)
    assert answers[0].status_code == 503
    assert client.get(other).status_code == 200               # once the slot is free, the PDF prints


def test_sigterm_stops_the_server_within_seconds_while_a_print_never_ends(app_factory, backend, tmp_path):
    app = app_factory()
    auth = key_with_stored_logo(app, use_bomb())
    env = {**os.environ, "DATABASE_URL": database_url(backend, tmp_path), "SECRET_KEY": "test-secret-key",
           "SHUTDOWN_GRACE_SECONDS": "3", "EMBED_PDF_PRINT_TIMEOUT_SECONDS": "300"}
    for name in ("TEST_DATABASE_URL", "PUBLIC_BASE_URL"):
        env.pop(name, None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_service(env, port)
    try:
        record = requests.post(f"{base}/api/v1/assessments", json=_submission(), headers=auth, timeout=10).json()
        assert requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth,
                             timeout=60).status_code == 200
        # as in the issue: more readers than print slots, every print endless; the rest wait for a slot
        readers = [in_thread(lambda: _get(f"{base}/embed/assessment/{record['embedToken']}.pdf"))[0]
                   for _ in range(6)]
        wait_until(lambda: _descendants(server.pid, busy=True), timeout=30)   # a print worker is drawing
        workers = _descendants(server.pid)
        server.send_signal(signal.SIGTERM)
        assert server.wait(20) == 0
        wait_until(lambda: not [p for p in _descendants_of(workers) if not _zombie(p)], timeout=10)
        for reader in readers:
            reader.join(10)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def _submission() -> dict:
    from tests.factories import submission
    return submission()


def _get(url: str):
    try:
        return requests.get(url, timeout=60)
    except requests.RequestException as error:
        return error


def _descendants_of(pids: list[int]) -> list[int]:
    """Those of `pids` still running."""
    return [pid for pid in pids if os.path.exists(f"/proc/{pid}")]


def _descendants(root: int, busy: bool = False) -> list[int]:
    """The processes under `root` (print workers and the fork server); with `busy`, only those using a CPU now."""
    parents: dict[int, int] = {}
    states: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            states[int(entry)], parents[int(entry)] = fields[0], int(fields[1])
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return [pid for pid in found if states.get(pid) == "R"] if busy else found

