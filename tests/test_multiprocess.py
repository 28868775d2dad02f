"""Two waitress processes on one Postgres and one Redis, as in production."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter

import pytest
import requests

from app.extensions import db
from app.keys.service import issue_api_key
from tests.conftest import POSTGRES_URL
from tests.factories import submission
from tests.support.processes import flask_cli, free_port, start_service, stop, wait_until
from tests.support.receiver import WebhookReceiver

REDIS_URL = os.environ.get("TEST_REDIS_URL")
pytestmark = pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="needs TEST_DATABASE_URL and TEST_REDIS_URL")


@pytest.fixture
def two_processes(app_factory, backend, fake_openai):
    if backend != "postgres":
        pytest.skip("runs against Postgres only")
    import redis

    app = app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)  # builds the schema on the test database
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {**os.environ, "DATABASE_URL": POSTGRES_URL, "RATELIMIT_STORAGE_URI": REDIS_URL,
           "SECRET_KEY": "test-secret-key", "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "REPORT_ENGINE": "openai",
           "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "test", "OPENAI_MAX_RETRIES": "0",
           "WEBHOOK_BACKOFF_SECONDS": "0.2,0.4"}
    ports = [free_port(), free_port()]
    processes = [start_service(env, port) for port in ports]
    yield app, [f"http://127.0.0.1:{port}" for port in ports]
    for process in processes:
        stop(process)
    redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.mark.slow
def test_limits_generations_and_webhooks_are_shared(two_processes, fake_openai):
    app, (first, second) = two_processes
    receiver = WebhookReceiver().start()

    def make_key(**settings) -> dict:
        with app.app_context():
            issued = issue_api_key("acme", **settings)
            db.session.commit()
            return {"Authorization": f"Bearer {issued.api_key}"}

    try:
        limited = make_key(rate_limit=6)
        for base in (first, second, first, second, first, second):
            assert requests.get(f"{base}/api/v1/personas", headers=limited, timeout=10).status_code == 200
        for base in (first, second):
            response = requests.get(f"{base}/api/v1/personas", headers=limited, timeout=10)
            assert response.status_code == 429 and response.json()["code"] == "rate_limited"

        auth = make_key(rate_limit=10_000, webhook_url=receiver.url)
        record = requests.post(f"{first}/api/v1/assessments", json=submission(), headers=auth, timeout=10).json()
        fake_openai.latency = 0.5
        statuses, barrier = [], threading.Barrier(2)

        def call(base):
            barrier.wait()
            statuses.append(requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth,
                                          timeout=60).status_code)

        threads = [threading.Thread(target=call, args=(base,)) for base in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200, 409]
        assert len(fake_openai.requests) == 25

        fake_openai.latency = 0.0
        for i in range(6):
            base = (first, second)[i % 2]
            other = requests.post(f"{base}/api/v1/assessments", json=submission(), headers=auth, timeout=10).json()
            assert requests.post(f"{base}/api/v1/assessments/{other['id']}/generate", headers=auth,
                                 timeout=60).status_code == 200
        receiver.wait_for(7, timeout=30)

        def all_delivered():
            items = requests.get(f"{first}/api/v1/webhook-deliveries", headers=auth, timeout=10).json()["items"]
            return len(items) == 7 and all(d["status"] == "succeeded" for d in items)

        wait_until(all_delivered, timeout=30)
        counts = Counter(r.headers["x-service-delivery"] for r in receiver.received)
        assert len(counts) == 7 and set(counts.values()) == {1}
    finally:
        receiver.stop()


def test_each_process_reads_what_the_other_wrote_on_the_next_request(two_processes):
    """No process keeps a copy: a write in one shows in the other's very next read, with no wait."""
    app, (first, second) = two_processes
    with app.app_context():
        issued = issue_api_key("acme", rate_limit=10_000)
        db.session.commit()
    auth = {"Authorization": f"Bearer {issued.api_key}"}

    def record(base: str) -> dict:
        response = requests.get(f"{base}/api/v1/assessments/{created['id']}", headers=auth, timeout=10)
        assert response.status_code == 200
        return response.json()

    created = requests.post(f"{first}/api/v1/assessments", json=submission(), headers=auth, timeout=10).json()
    for base in (first, second, first, second):
        assert record(base)["status"] == "submitted"

    requests.post(f"{first}/api/v1/assessments/{created['id']}/generate", headers=auth, timeout=60)
    assert record(second)["status"] == "completed"

    rotated = requests.post(f"{second}/api/v1/assessments/{created['id']}/embed-token/rotate", headers=auth,
                            timeout=10).json()
    assert record(first)["embedToken"] == rotated["embedToken"]

    assert requests.get(f"{first}{rotated['reports'][0]['viewUrl']}", timeout=10).status_code == 200
    # Views are counted in memory and written every EMBED_VIEW_FLUSH_SECONDS (2 s): the other process
    # sees the view within a few seconds.
    deadline = time.monotonic() + 10
    while record(second)["reports"][0]["viewCount"] != 1:
        assert time.monotonic() < deadline, "the view was not written within 10 s"
        time.sleep(0.2)

    assert requests.delete(f"{second}/api/v1/assessments/{created['id']}", headers=auth, timeout=10).status_code == 204
    assert requests.get(f"{first}/api/v1/assessments/{created['id']}", headers=auth, timeout=10).status_code == 404


def test_a_key_change_applies_to_the_next_request_in_every_process(two_processes):
    """`keys update` and `keys revoke` from the CLI: both serving processes apply them at once."""
    app, (first, second) = two_processes
    with app.app_context():
        issued = issue_api_key("acme", rate_limit=10_000)
        db.session.commit()
        key_id = str(issued.key.id)
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    env = {**os.environ, "DATABASE_URL": POSTGRES_URL, "SECRET_KEY": "test-secret-key"}
    for base in (first, second):  # each process has seen the key
        assert requests.get(f"{base}/api/v1/personas", headers=auth, timeout=10).headers["X-RateLimit-Limit"] == "10000"

    flask_cli(env, "keys", "update", key_id, "--framework", "SOC 2", "--rate-limit", "5000")
    for base in (first, second):
        limited = requests.post(f"{base}/api/v1/assessments", json=submission(), headers=auth, timeout=10)
        assert limited.status_code == 403 and limited.json()["code"] == "framework_not_allowed"
        assert limited.headers["X-RateLimit-Limit"] == "5000"

    flask_cli(env, "keys", "revoke", key_id)
    for base in (first, second):
        assert requests.get(f"{base}/api/v1/personas", headers=auth, timeout=10).status_code == 401
