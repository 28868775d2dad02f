"""Idempotency-Key on POSTs under /api/v1: a retry gets the first answer and changes nothing."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
import requests
from sqlalchemy import func, select, update

from app.api import idempotency
from app.extensions import db
from app.models import Assessment, IdempotencyKey, Report, utcnow
from tests.factories import submission
from tests.support.live import LiveServer


def post(client, auth, path, key, json=None, **headers):
    return client.post(path, json=json, headers={**auth, "Idempotency-Key": key, **headers})


def count_assessments(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Assessment))


def test_a_retried_submission_gets_the_first_answer_and_creates_nothing(app, client, auth):
    first = post(client, auth, "/api/v1/assessments", "order-1042-try", submission())
    again = post(client, auth, "/api/v1/assessments", "order-1042-try", submission())
    assert first.status_code == again.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert "X-RateLimit-Remaining" in again.headers   # a replay is still a counted request
    assert count_assessments(app) == 1
    listed = client.get("/api/v1/assessments", headers=auth).get_json()["items"]
    assert [a["id"] for a in listed] == [first.get_json()["id"]]


def test_without_the_header_every_post_creates(app, client, auth):
    client.post("/api/v1/assessments", json=submission(), headers=auth)
    client.post("/api/v1/assessments", json=submission(), headers=auth)
    assert count_assessments(app) == 2


def test_the_same_body_in_other_spacing_or_key_order_is_the_same_request(client, auth):
    body = submission()
    first = post(client, auth, "/api/v1/assessments", "k-spacing", body)
    reordered = json.dumps({"companyId": "client_1042", **dict(reversed(list(body.items())))}, indent=2)
    again = client.post("/api/v1/assessments", data=reordered,
                        headers={**auth, "Idempotency-Key": "k-spacing", "Content-Type": "application/json"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]


def test_a_key_reused_for_another_body_or_endpoint_is_a_422(app, client, auth):
    first = post(client, auth, "/api/v1/assessments", "k-reused", submission())
    other_body = post(client, auth, "/api/v1/assessments", "k-reused", submission(companyId="client_2001"))
    assert other_body.status_code == 422
    assert other_body.get_json()["code"] == "idempotency_key_reused"
    other_path = post(client, auth, f"/api/v1/assessments/{first.get_json()['id']}/generate", "k-reused")
    assert other_path.status_code == 422 and other_path.get_json()["code"] == "idempotency_key_reused"
    assert count_assessments(app) == 1
    with app.app_context():   # nothing ran: the assessment was never generated
        assert db.session.scalar(select(func.count()).select_from(Report)) == 0


@pytest.mark.parametrize("value", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_malformed_key_is_a_400_and_nothing_runs(app, client, auth, value):
    response = post(client, auth, "/api/v1/assessments", value, submission())
    assert response.status_code == 400
    assert response.get_json()["code"] == "invalid_idempotency_key"
    assert count_assessments(app) == 0


def test_the_longest_allowed_key_works(client, auth):
    key = "k" * 255
    assert post(client, auth, "/api/v1/assessments", key, submission()).status_code == 201
    assert post(client, auth, "/api/v1/assessments", key, submission()).headers["Idempotent-Replayed"] == "true"


def test_keys_are_scoped_per_partner_and_per_mode(app, client, make_key):
    keys = [make_key("acme"), make_key("globex"), make_key("acme", livemode=False)]
    answers = [post(client, {"Authorization": f"Bearer {k.api_key}"}, "/api/v1/assessments", "shared-key",
                    submission()) for k in keys]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert not any("Idempotent-Replayed" in a.headers for a in answers)
    assert len({a.get_json()["id"] for a in answers}) == 3


def test_a_second_key_of_the_same_partner_and_mode_replays(client, make_key):
    first, second = make_key("acme"), make_key("acme")
    one = post(client, {"Authorization": f"Bearer {first.api_key}"}, "/api/v1/assessments", "k-team", submission())
    two = post(client, {"Authorization": f"Bearer {second.api_key}"}, "/api/v1/assessments", "k-team", submission())
    assert two.headers["Idempotent-Replayed"] == "true" and two.get_json()["id"] == one.get_json()["id"]


def test_a_retried_generate_does_not_run_again(app, client, auth):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    path = f"/api/v1/assessments/{record['id']}/generate"
    first = post(client, auth, path, "gen-1", {"methodology": "challenger"})
    with app.app_context():
        generated_at = db.session.scalar(select(Assessment.generated_at))
    again = post(client, auth, path, "gen-1", {"methodology": "challenger"})
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()
    with app.app_context():
        assert db.session.scalar(select(Assessment.generated_at)) == generated_at   # no second run


def test_an_answer_that_says_try_again_is_not_kept(app, client, auth):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    path = f"/api/v1/assessments/{record['id']}/generate"
    with app.app_context():   # another run holds the assessment
        db.session.execute(update(Assessment).values(status="generating", generation_started_at=utcnow(),
                                                     run_heartbeat_at=utcnow()))
        db.session.commit()
    busy = post(client, auth, path, "gen-retry")
    assert busy.status_code == 409 and busy.get_json()["code"] == "generation_in_progress"
    with app.app_context():
        db.session.execute(update(Assessment).values(status="submitted", generation_started_at=None,
                                                     run_heartbeat_at=None))
        db.session.commit()
    retried = post(client, auth, path, "gen-retry")
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried.headers
    assert retried.get_json()["status"] == "completed"


def test_a_client_error_is_kept_like_stripe_does(client, auth):
    bad = post(client, auth, "/api/v1/assessments", "k-bad", submission(framework=""))
    again = post(client, auth, "/api/v1/assessments", "k-bad", submission(framework=""))
    assert bad.status_code == again.status_code == 422
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == bad.get_json()


def test_deleting_the_assessment_erases_its_stored_answers(app, client, auth):
    record = post(client, auth, "/api/v1/assessments", "k-erase", submission()).get_json()
    post(client, auth, f"/api/v1/assessments/{record['id']}/generate", "k-erase-gen")
    with app.app_context():
        stored = db.session.scalars(select(IdempotencyKey)).all()
        assert {row.assessment_id for row in stored} == {record["id"]}
        assert all(len(row.request_hash) == 64 and row.state == "done" for row in stored)
    assert client.delete(f"/api/v1/assessments/{record['id']}", headers=auth).status_code == 204
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(IdempotencyKey)) == 0
    retried = post(client, auth, "/api/v1/assessments", "k-erase", submission())
    assert retried.status_code == 201 and "Idempotent-Replayed" not in retried.headers
    assert retried.get_json()["id"] != record["id"]


def test_answers_expire_after_24_hours_and_are_purged(app, client, auth, monkeypatch):
    first = post(client, auth, "/api/v1/assessments", "k-old", submission()).get_json()
    post(client, auth, "/api/v1/assessments", "k-other", submission())
    with app.app_context():
        db.session.execute(update(IdempotencyKey).where(IdempotencyKey.key == "k-other")
                           .values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.execute(update(IdempotencyKey).where(IdempotencyKey.key == "k-old")
                           .values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    monkeypatch.setattr(idempotency, "_last_purge", 0.0)
    again = post(client, auth, "/api/v1/assessments", "k-old", submission())
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
    assert again.get_json()["id"] != first["id"]
    with app.app_context():
        assert db.session.scalars(select(IdempotencyKey.key)).all() == ["k-old"]   # k-other purged


def test_another_process_replays_the_stored_answer(app_factory, make_key):
    first_app, second_app = app_factory(), app_factory()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    one = post(first_app.test_client(), auth, "/api/v1/assessments", "k-cross", submission())
    two = post(second_app.test_client(), auth, "/api/v1/assessments", "k-cross", submission())
    assert two.headers["Idempotent-Replayed"] == "true" and two.get_json()["id"] == one.get_json()["id"]


def test_two_identical_requests_at_once_run_once_and_the_other_replays(app, make_key):
    auth = {"Authorization": f"Bearer {make_key().api_key}", "Idempotency-Key": "k-race"}
    answers: list[requests.Response] = []
    start = threading.Barrier(2)

    def send(url):
        start.wait()
        answers.append(requests.post(f"{url}/api/v1/assessments", json=submission(), headers=auth, timeout=30))

    with LiveServer(app, threads=4) as live:
        threads = [threading.Thread(target=send, args=(live.url,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(a.status_code for a in answers) == [201, 201]
    assert sorted(a.headers.get("Idempotent-Replayed", "") for a in answers) == ["", "true"]
    assert answers[0].json()["id"] == answers[1].json()["id"]
    assert count_assessments(app) == 1


def test_a_retry_while_the_first_still_runs_is_a_409(app_factory, make_key):
    app = app_factory(IDEMPOTENCY_WAIT_SECONDS=0.2)
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    client = app.test_client()
    first = post(client, auth, "/api/v1/assessments", "k-running", submission())
    assert first.status_code == 201
    with app.app_context():   # as if the first request had claimed the key and were still running
        db.session.execute(update(IdempotencyKey).values(state="running", response_status=None,
                                                         response_body=None, assessment_id=None))
        db.session.commit()
    retried = post(client, auth, "/api/v1/assessments", "k-running", submission())
    assert retried.status_code == 409
    assert retried.get_json()["code"] == "idempotency_in_progress"
    assert retried.headers["Retry-After"] == "1"
    assert count_assessments(app) == 1


def test_a_claim_left_by_a_dead_process_is_taken_over_once_stale(app_factory, make_key):
    app = app_factory(IDEMPOTENCY_WAIT_SECONDS=0.1, RUN_STALE_SECONDS=60)
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    client = app.test_client()
    post(client, auth, "/api/v1/assessments", "k-dead", submission())
    with app.app_context():   # as if the request died before answering, two minutes ago
        db.session.execute(update(IdempotencyKey).values(state="running", locked_at=utcnow() - timedelta(minutes=2),
                                                         response_status=None, response_body=None))
        db.session.commit()
    retried = post(client, auth, "/api/v1/assessments", "k-dead", submission())
    assert retried.status_code == 201 and "Idempotent-Replayed" not in retried.headers
