"""`Prefer: respond-async` on generate: 202 at once, the run goes on on the server, progress in
`reportsDone`, and the webhook when it ends. Against a real loopback LLM server and webhook receiver."""

from __future__ import annotations

import time

import pytest

from app.catalog import PERSONAS
from tests.factories import submission
from tests.support.processes import wait_until as _wait_until

ASYNC = {"Prefer": "respond-async"}
FAST_HOOKS = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": True, "WEBHOOK_BACKOFF_SECONDS": (0.2, 0.4),
              "WEBHOOK_TIMEOUT_SECONDS": 2.0}


@pytest.fixture
def app(app_factory, fake_openai):
    """The openai engine against the loopback server, and the webhook sender running."""
    application = app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=fake_openai.base_url, OPENAI_API_KEY="test",
                              OPENAI_MODEL="fake-model", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=10.0,
                              OPENAI_MAX_CONCURRENCY=25, **FAST_HOOKS)
    application.extensions["webhook_sender"].start()
    yield application
    # Runs still going (a test that failed midway) end here, before the LLM server's fixture resets it.
    application.extensions["generation_runner"].shutdown(wait=True)


@pytest.fixture
def hooked(make_key, receiver) -> dict:
    # Polling the record counts against the key's hourly limit like any request.
    return {"Authorization": f"Bearer {make_key(webhook_url=receiver.url, rate_limit=100_000).api_key}"}


def wait_until(predicate, timeout: float = 15):
    """Poll as a partner would, a few times a second (each poll counts against the key's limit)."""
    return _wait_until(predicate, timeout=timeout, interval=0.1)


def submit(client, auth) -> dict:
    response = client.post("/api/v1/assessments", json=submission(), headers=auth)
    assert response.status_code == 201
    return response.get_json()


def record(client, auth, assessment_id: int) -> dict:
    response = client.get(f"/api/v1/assessments/{assessment_id}", headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_3_second_llm_run_answers_202_at_once_and_ends_with_its_webhook(app, fake_openai, hooked, receiver):
    fake_openai.latency = 3.0
    client = app.test_client()
    assessment = submit(client, hooked)
    started = time.monotonic()
    response = client.post(f"/api/v1/assessments/{assessment['id']}/generate", json={"methodology": "challenger"},
                           headers={**hooked, **ASYNC})
    answered_in = time.monotonic() - started
    assert response.status_code == 202
    assert answered_in < fake_openai.latency   # before any report could have been written
    assert response.headers["Preference-Applied"] == "respond-async"
    assert response.headers["Location"] == f"/api/v1/assessments/{assessment['id']}"
    body = response.get_json()
    assert body["id"] == assessment["id"] and body["status"] == "generating" and body["reportsDone"] == 0
    assert receiver.received == []

    done = wait_until(lambda: (r := record(client, hooked, assessment["id"]))["status"] == "completed" and r,
                      timeout=30)
    assert done["reportsDone"] == len(PERSONAS) and done["methodology"] == "challenger"
    assert len(fake_openai.requests) == len(PERSONAS)   # one run, one call per persona
    hook = receiver.wait_for(1)[0].json
    assert hook["event"] == "assessment.reports.completed" and hook["assessmentId"] == assessment["id"]
    assert hook["failedReports"] == 0
    content = client.get(f"/api/v1/assessments/{assessment['id']}/reports/cfo", headers=hooked).get_json()
    assert content["methodology"] == "challenger"


def test_progress_shows_how_many_reports_are_written(app, fake_openai, hooked):
    fake_openai.latency = 0.05
    fake_openai.hang_for.add("coo")      # one slow report: the other 24 are written long before it
    fake_openai.hang_seconds = 6.0      # long enough that a loaded CI machine still writes the 24 before it
    client = app.test_client()
    assessment = submit(client, hooked)
    assert client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers={**hooked, **ASYNC}
                       ).status_code == 202
    midway = wait_until(lambda: (r := record(client, hooked, assessment["id"]))["reportsDone"] == 24 and r)
    assert midway["status"] == "generating"
    done = wait_until(lambda: (r := record(client, hooked, assessment["id"]))["status"] == "completed" and r,
                      timeout=30)
    assert done["reportsDone"] == 25


def test_refusals_still_come_at_once(app, fake_openai, hooked, make_key):
    fake_openai.latency = 1.0
    client = app.test_client()
    assert client.post("/api/v1/assessments/999999/generate", headers={**hooked, **ASYNC}).status_code == 404
    first, second, third = (submit(client, hooked) for _ in range(3))
    assert client.post(f"/api/v1/assessments/{first['id']}/generate", headers={**hooked, **ASYNC}).status_code == 202
    again = client.post(f"/api/v1/assessments/{first['id']}/generate", headers={**hooked, **ASYNC})
    assert again.status_code == 409 and again.get_json()["code"] == "generation_in_progress"
    assert client.post(f"/api/v1/assessments/{second['id']}/generate", headers={**hooked, **ASYNC}).status_code == 202
    busy = client.post(f"/api/v1/assessments/{third['id']}/generate", headers={**hooked, **ASYNC})
    assert busy.status_code == 429 and busy.get_json()["code"] == "generation_busy"   # the partner's cap of 2
    wait_until(lambda: all(record(client, hooked, a["id"])["status"] == "completed" for a in (first, second)),
               timeout=30)


def test_a_retried_async_generate_replays_the_202_and_runs_once(app, fake_openai, hooked):
    fake_openai.latency = 0.5
    client = app.test_client()
    assessment = submit(client, hooked)
    headers = {**hooked, **ASYNC, "Idempotency-Key": "gen-async-1"}
    first = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers=headers)
    again = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.headers["Idempotent-Replayed"] == "true" and again.headers["Preference-Applied"] == "respond-async"
    wait_until(lambda: record(client, hooked, assessment["id"])["status"] == "completed", timeout=30)
    assert len(fake_openai.requests) == len(PERSONAS)


@pytest.mark.parametrize("prefer", ["respond-async", "RESPOND-ASYNC", "wait=5, respond-async", "respond-async; x=1"])
def test_the_prefer_header_is_read_as_rfc_7240_writes_it(app, client, auth, prefer):
    assessment = submit(client, auth)
    response = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers={**auth, "Prefer": prefer})
    assert response.status_code == 202
    wait_until(lambda: record(client, auth, assessment["id"])["status"] == "completed")


def test_without_the_preference_generate_answers_when_done(app, client, auth):
    assessment = submit(client, auth)
    response = client.post(f"/api/v1/assessments/{assessment['id']}/generate",
                           headers={**auth, "Prefer": "return=minimal"})
    assert response.status_code == 200 and "Preference-Applied" not in response.headers
    assert response.get_json()["status"] == "completed"
    assert record(client, auth, assessment["id"])["reportsDone"] == 25


def test_an_async_run_that_breaks_ends_failed_with_its_webhook(app, fake_openai, hooked, receiver, monkeypatch):
    from app.generation import service

    def broken_store(*args, **kwargs):
        raise RuntimeError("a bug while storing")

    monkeypatch.setattr(service, "store_run", broken_store)
    client = app.test_client()
    assessment = submit(client, hooked)
    response = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers={**hooked, **ASYNC})
    assert response.status_code == 202
    [delivery] = receiver.wait_for(1, timeout=30)
    assert delivery.json["event"] == "assessment.reports.failed" and delivery.json["assessmentId"] == assessment["id"]
    assert "call generate again" in delivery.json["error"] and "a bug" not in delivery.json["error"]
    assert record(client, hooked, assessment["id"])["status"] == "failed"
    monkeypatch.undo()
    again = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers=hooked)
    assert again.status_code == 200 and again.get_json()["status"] == "completed"


def test_an_async_run_links_to_the_host_the_partner_called(app, fake_openai, hooked, receiver):
    assert not app.config["PUBLIC_BASE_URL"]
    client = app.test_client()
    base = "https://reports.acme.example"
    assessment = client.post("/api/v1/assessments", json=submission(), headers=hooked, base_url=base).get_json()
    response = client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers={**hooked, **ASYNC},
                           base_url=base)
    assert response.status_code == 202
    [delivery] = receiver.wait_for(1, timeout=30)
    assert delivery.json["event"] == "assessment.reports.completed"
    assert delivery.json["embedUrl"].startswith(f"{base}/embed/assessment/")
    assert "127.0.0.1" not in delivery.body.decode()
