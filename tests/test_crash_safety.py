"""Crash safety, with real server processes: a killed process strands no run, locks out no partner and
blocks no retry; SIGTERM refuses new connections at once and finishes the requests in flight."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import pytest
import requests
from sqlalchemy import func, select

from app.extensions import db
from app.keys.service import issue_api_key
from app.models import Assessment, UsageRecord, WebhookDelivery
from tests.conftest import database_url
from tests.factories import submission
from tests.support.processes import free_port, start_service, wait_until

ASYNC = {"Prefer": "respond-async"}
# A run beats every half second and is another process's to finish after 3 s of silence; the watchdog looks
# every second. Production waits 30 s (RUN_STALE_SECONDS) so a busy database never looks like a death.
FAST_RECOVERY = {"RUN_HEARTBEAT_SECONDS": "0.5", "RUN_STALE_SECONDS": "3"}


@pytest.fixture
def served(app_factory, backend, tmp_path, fake_openai, receiver):
    """(env, app, auth): what a real service process needs to run on this test's database with the openai
    engine against the loopback LLM server; an app on the same database to look at the rows; a key whose
    webhook is the receiver."""
    app = app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)    # builds the schema
    env = {**os.environ, "DATABASE_URL": database_url(backend, tmp_path), "SECRET_KEY": "test-secret-key",
           "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "WEBHOOK_BACKOFF_SECONDS": "0.2,0.4",
           "REPORT_ENGINE": "openai", "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "test",
           "OPENAI_MAX_RETRIES": "0", "OPENAI_MAX_CONCURRENCY": "25", "GENERATION_MAX_CONCURRENT_PER_PARTNER": "3",
           "SHUTDOWN_GRACE_SECONDS": "15", **FAST_RECOVERY}
    for name in ("TEST_DATABASE_URL", "PUBLIC_BASE_URL"):
        env.pop(name, None)
    with app.app_context():
        issued = issue_api_key("acme", webhook_url=receiver.url, rate_limit=100_000)
        db.session.commit()
    return env, app, {"Authorization": f"Bearer {issued.api_key}"}


def stall(fake_openai) -> None:
    """Every run's CFO report takes a minute: a run is writing its reports for that long."""
    fake_openai.hang_seconds = 60.0
    fake_openai.hang_for.add("cfo")


def warm(base: str, auth: dict) -> None:
    """One run written to the end, so the process has negotiated the server's response format: until then
    its calls wait for the first one (app/generation/negotiation.py), and a first call that is a stalled
    CFO report would hold every run back for the stall's minute."""
    response = requests.post(f"{base}/api/v1/assessments/{submit(base, auth)}/generate", headers=auth, timeout=60)
    assert response.status_code == 200


def submit(base: str, auth: dict) -> int:
    response = requests.post(f"{base}/api/v1/assessments", json=submission(), headers=auth, timeout=10)
    assert response.status_code == 201
    return response.json()["id"]


def status_of(base: str, auth: dict, assessment_id: int) -> str:
    return requests.get(f"{base}/api/v1/assessments/{assessment_id}", headers=auth, timeout=10).json()["status"]


def test_runs_of_a_killed_server_end_with_their_webhook_and_free_the_partner(served, fake_openai, receiver):
    env, app, auth = served
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_service(env, port)
    warm(base, auth)
    stall(fake_openai)    # the runs are mid-way when the server dies
    cut: list = []
    try:
        first, second, third = (submit(base, auth) for _ in range(3))
        for assessment_id in (first, second):
            response = requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate", headers={**auth, **ASYNC},
                                     timeout=10)
            assert response.status_code == 202
        sync_headers = {**auth, "Idempotency-Key": "sync-run-1"}

        def sync_generate():
            try:
                requests.post(f"{base}/api/v1/assessments/{third}/generate", headers=sync_headers, timeout=120)
            except requests.ConnectionError as exc:
                cut.append(exc)

        caller = threading.Thread(target=sync_generate)
        caller.start()
        wait_until(lambda: all(status_of(base, auth, a) == "generating" for a in (first, second, third)))
        wait_until(lambda: len(fake_openai.calls_for("cfo")) >= 3)     # the runs are writing their reports
        busy = requests.post(f"{base}/api/v1/assessments/{submit(base, auth)}/generate", headers=auth, timeout=10)
        assert busy.status_code == 429 and busy.json()["code"] == "generation_busy"

        server.send_signal(signal.SIGKILL)
        server.wait(10)
        caller.join(10)
        assert cut, "the synchronous generate was cut by the kill"
        fake_openai.hang_for.clear()

        server = start_service(env, port)
        started = time.monotonic()

        def completed_webhooks() -> set[int]:
            return {r.json["assessmentId"] for r in receiver.received
                    if r.json["event"] == "assessment.reports.completed"}

        wait_until(lambda: {first, second, third} <= completed_webhooks(), timeout=60)
        assert time.monotonic() - started < 60
        for assessment_id in (first, second, third):
            assert status_of(base, auth, assessment_id) == "completed"

        # The partner is not locked out: a new generate runs at once.
        fresh = submit(base, auth)
        assert requests.post(f"{base}/api/v1/assessments/{fresh}/generate", headers=auth,
                             timeout=60).status_code == 200

        # The retried synchronous request gets the run's result, never 409 for good.
        def retried():
            response = requests.post(f"{base}/api/v1/assessments/{third}/generate", headers=sync_headers,
                                     timeout=60)
            return response if response.status_code != 409 else None

        answer = wait_until(retried, timeout=30, interval=0.5)
        assert answer.status_code == 200 and answer.json()["status"] == "completed"
        assert answer.json()["totalReports"] == 25 and answer.json()["failedReports"] == 0

        # Each run was stored, billed and announced once.
        time.sleep(1)
        with app.app_context():
            for assessment_id in (first, second, third):
                assert db.session.scalar(select(UsageRecord.reports).where(
                    UsageRecord.assessment_id == assessment_id)) == 25
                assert db.session.scalar(select(func.count()).select_from(WebhookDelivery).where(
                    WebhookDelivery.assessment_id == assessment_id)) == 1
            assert db.session.scalar(select(func.count()).select_from(Assessment).where(
                Assessment.status == "generating")) == 0
    finally:
        server.kill()
        server.wait(10)


def test_a_run_killed_too_often_fails_with_its_webhook(served, fake_openai, receiver):
    env, app, auth = served
    env = {**env, "RUN_MAX_RECOVERIES": "0"}     # the first take-over fails the run instead of resuming it
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_service(env, port)
    stall(fake_openai)
    try:
        assessment_id = submit(base, auth)
        assert requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate", headers={**auth, **ASYNC},
                             timeout=10).status_code == 202
        wait_until(lambda: fake_openai.calls_for("cfo"))
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        fake_openai.hang_for.clear()
        server = start_service(env, port)
        [event] = [r.json for r in receiver.wait_for(1, timeout=30)]
        assert event["event"] == "assessment.reports.failed" and event["assessmentId"] == assessment_id
        assert "interrupted" in event["error"]
        assert status_of(base, auth, assessment_id) == "failed"
        again = requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate", headers=auth, timeout=60)
        assert again.status_code == 200 and again.json()["status"] == "completed"
    finally:
        server.kill()
        server.wait(10)


def _connect_outcome(port: int) -> str:
    """What a client sending a request now meets: 'refused' at connect, 'reset' after, or 'answered'."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = sock.recv(100)
            return "answered" if data.startswith(b"HTTP/1.1") else "reset"
    except ConnectionRefusedError:
        return "refused"
    except (ConnectionResetError, BrokenPipeError, TimeoutError):
        return "reset"


def test_sigterm_refuses_new_connections_and_finishes_the_request_in_flight(served, fake_openai):
    env, app, auth = served
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_service(env, port)
    fake_openai.hang_seconds = 2.0
    fake_openai.hang_for.add("cfo")
    assessment_id = submit(base, auth)
    answers: list = []
    caller = threading.Thread(target=lambda: answers.append(requests.post(
        f"{base}/api/v1/assessments/{assessment_id}/generate", headers=auth, timeout=60)))
    caller.start()
    try:
        wait_until(lambda: fake_openai.calls_for("cfo"))
        server.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        outcomes = []
        for _ in range(10):                     # requests sent after the signal, while the run finishes
            outcomes.append(_connect_outcome(port))
            time.sleep(0.1)
        # None is accepted and then reset: answered until the signal is handled, refused from then on.
        assert "reset" not in outcomes and outcomes[-5:] == ["refused"] * 5, outcomes
        assert outcomes == sorted(outcomes, key=lambda outcome: outcome == "refused"), outcomes
        caller.join(30)
        [answer] = answers
        assert answer.status_code == 200 and answer.json()["status"] == "completed"
        assert server.wait(20) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def test_sigterm_hands_an_unfinished_run_to_the_next_process(served, fake_openai, receiver):
    env, app, auth = served
    env = {**env, "SHUTDOWN_GRACE_SECONDS": "1", "RUN_STALE_SECONDS": "60"}   # only a hand-back is fast enough
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_service(env, port)
    stall(fake_openai)
    try:
        assessment_id = submit(base, auth)
        assert requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate", headers={**auth, **ASYNC},
                             timeout=10).status_code == 202
        wait_until(lambda: fake_openai.calls_for("cfo"))
        server.send_signal(signal.SIGTERM)
        assert server.wait(15) == 0
        fake_openai.hang_for.clear()
        server = start_service(env, port)
        [event] = [r.json for r in receiver.wait_for(1, timeout=30)]
        assert event["event"] == "assessment.reports.completed" and event["assessmentId"] == assessment_id
    finally:
        server.kill()
        server.wait(10)


@pytest.fixture
def behind_proxy(app_factory, backend, fake_openai, receiver):
    """make(**settings) -> (app, auth, proxy): an app whose database connection goes through a proxy the test
    can cut (a database restart), with the openai engine against the loopback LLM server."""
    if backend != "postgres":
        pytest.skip("a database that goes away and comes back: Postgres through a cuttable proxy")
    from sqlalchemy.engine import make_url

    from tests.conftest import POSTGRES_URL
    from tests.support.tcp_proxy import TcpProxy

    app_factory()   # builds the schema, directly
    target = make_url(POSTGRES_URL)
    proxy = TcpProxy(target.host or "127.0.0.1", target.port or 5432).start()
    proxied = target.set(drivername="postgresql+psycopg", host="127.0.0.1", port=proxy.port)

    def make(**settings):
        app = app_factory(SQLALCHEMY_DATABASE_URI=proxied.render_as_string(hide_password=False),
                          WEBHOOK_ALLOW_PRIVATE_NETWORKS=True, REPORT_ENGINE="openai",
                          OPENAI_BASE_URL=fake_openai.base_url, OPENAI_API_KEY="test", OPENAI_MAX_RETRIES=0,
                          RUN_HEARTBEAT_SECONDS=0.5, **settings)
        with app.app_context():
            issued = issue_api_key("acme", webhook_url=receiver.url)
            db.session.commit()
        return app, {"Authorization": f"Bearer {issued.api_key}"}, proxy

    yield make
    proxy.stop()


def _generate_in_thread(client, auth, assessment_id: int) -> tuple[threading.Thread, list]:
    answers: list = []
    thread = threading.Thread(target=lambda: answers.append(
        client.post(f"/api/v1/assessments/{assessment_id}/generate", headers=auth)))
    thread.start()
    return thread, answers


def _billed_and_announced(app, assessment_id: int) -> tuple[list[int], int]:
    with app.app_context():
        billed = db.session.scalars(select(UsageRecord.reports).where(UsageRecord.assessment_id == assessment_id)).all()
        announced = db.session.scalar(select(func.count()).select_from(WebhookDelivery).where(
            WebhookDelivery.assessment_id == assessment_id))
        db.session.remove()
    return list(billed), announced


def test_a_database_restart_while_a_run_is_stored_is_retried(behind_proxy, fake_openai):
    app, auth, proxy = behind_proxy(RUN_STORE_RETRY_SECONDS=30.0)
    client = app.test_client()
    assessment_id = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()["id"]
    fake_openai.hang_seconds = 1.5
    fake_openai.hang_for.add("cfo")
    thread, answers = _generate_in_thread(client, auth, assessment_id)
    wait_until(lambda: fake_openai.calls_for("cfo"))
    proxy.stop()              # the database goes away while the last report is written, and stays away 4 s
    time.sleep(4)
    proxy.start()
    thread.join(60)
    [answer] = answers
    assert answer.status_code == 200 and answer.get_json()["status"] == "completed"
    assert _billed_and_announced(app, assessment_id) == ([25], 1)


def test_a_database_down_past_the_retries_leaves_the_run_to_be_resumed(behind_proxy, fake_openai, receiver):
    app, auth, proxy = behind_proxy(RUN_STORE_RETRY_SECONDS=0.5, RUN_STALE_SECONDS=1.0)
    app.extensions["run_watchdog"].start()
    app.extensions["webhook_sender"].start()
    client = app.test_client()
    assessment_id = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()["id"]
    fake_openai.hang_seconds = 1.0
    fake_openai.hang_for.add("cfo")
    thread, answers = _generate_in_thread(client, auth, assessment_id)
    wait_until(lambda: fake_openai.calls_for("cfo"))
    proxy.stop()
    thread.join(30)
    [answer] = answers
    assert answer.status_code == 503 and answer.get_json()["code"] == "service_unavailable"
    fake_openai.hang_for.clear()
    proxy.start()             # back: the watchdog resumes the run, which is stored and announced once
    [event] = [r.json for r in receiver.wait_for(1, timeout=30)]
    assert event["event"] == "assessment.reports.completed" and event["assessmentId"] == assessment_id
    assert client.get(f"/api/v1/assessments/{assessment_id}", headers=auth).get_json()["status"] == "completed"
    assert _billed_and_announced(app, assessment_id) == ([25], 1)


def test_healthz_says_draining_once_the_process_stops(app):
    from app.serving import Requests

    serving = Requests(app.wsgi_app)
    app.extensions["serving"] = serving
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    serving.draining = True      # what SIGTERM sets, for a proxy's health check on a connection still open
    response = client.get("/healthz")
    assert response.status_code == 503 and response.get_json()["status"] == "draining"


def _helpers_of(pid: int) -> set[int]:
    """The processes descended from `pid` (its fork server, print workers and resource tracker)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_print_helpers_end_within_seconds_of_a_killed_server(served):
    env, _, _ = served
    server = start_service(env, free_port())
    helpers = wait_until(lambda: _helpers_of(server.pid) if len(_helpers_of(server.pid)) >= 3 else None, timeout=30)
    server.send_signal(signal.SIGKILL)
    server.wait(10)
    wait_until(lambda: not any(_alive(pid) for pid in helpers), timeout=10, interval=0.2)
