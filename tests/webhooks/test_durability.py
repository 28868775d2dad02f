"""The outbox survives a crash, and two senders never send one delivery twice."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter

import pytest
import requests

from tests.factories import submission
from tests.support.processes import flask_cli, free_port, start_service
from tests.webhooks.conftest import FAST, wait_until


@pytest.fixture
def service_env(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'svc.db'}", "SECRET_KEY": "crash-test",
           "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", "WEBHOOK_BACKOFF_SECONDS": "2"}
    env.pop("TEST_DATABASE_URL", None)
    flask_cli(env, "db", "upgrade")
    return env


def test_pending_delivery_survives_sigkill(service_env, receiver):
    created = flask_cli(service_env, "keys", "create", "--partner", "acme", "--webhook-url", receiver.url, "--json")
    auth = {"Authorization": f"Bearer {json.loads(created)['apiKey']}"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    receiver.responses = [500]
    service = start_service(service_env, port)
    try:
        record = requests.post(f"{base}/api/v1/assessments", json=submission(), headers=auth, timeout=10).json()
        assert requests.post(f"{base}/api/v1/assessments/{record['id']}/generate", headers=auth,
                             timeout=30).status_code == 200
        [first] = receiver.wait_for(1)

        def recorded():
            items = requests.get(f"{base}/api/v1/webhook-deliveries", headers=auth, timeout=5).json()["items"]
            return items and len(items[0]["attempts"]) == 1 and items[0]["nextAttemptAt"]

        wait_until(recorded)
        service.send_signal(signal.SIGKILL)  # between attempt 1 and attempt 2
        service.wait(10)
        service = start_service(service_env, port)
        second = receiver.wait_for(2, timeout=30)[1]
        assert second.headers["x-service-delivery"] == first.headers["x-service-delivery"]
        assert second.body == first.body

        def done():
            items = requests.get(f"{base}/api/v1/webhook-deliveries", headers=auth, timeout=5).json()["items"]
            return items[0] if items[0]["status"] == "succeeded" else None

        delivery = wait_until(done)
        assert [a["statusCode"] for a in delivery["attempts"]] == [500, 200]
        assert len(receiver.received) == 2
    finally:
        service.kill()
        service.wait(10)


def test_two_senders_never_send_one_delivery_twice(app_factory, make_key, receiver):
    first, second = app_factory(**FAST), app_factory(**FAST)
    issued = make_key(webhook_url=receiver.url)
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    client = first.test_client()
    for _ in range(20):
        record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
        assert client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).status_code == 200
    first.extensions["webhook_sender"].start()
    second.extensions["webhook_sender"].start()
    receiver.wait_for(20)

    def all_succeeded():
        items = client.get("/api/v1/webhook-deliveries?limit=100", headers=auth).get_json()["items"]
        return len(items) == 20 and all(d["status"] == "succeeded" for d in items)

    wait_until(all_succeeded)
    counts = Counter(r.headers["x-service-delivery"] for r in receiver.received)
    assert len(counts) == 20 and set(counts.values()) == {1}
