"""Redelivery: one round of attempts at a time per delivery."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import WebhookDelivery
from tests.webhooks.conftest import deliveries, run, settled, wait_until


def redeliver(client, auth, delivery_id: str):
    return client.post(f"/api/v1/webhook-deliveries/{delivery_id}/redeliver", headers=auth)


def assert_refused_as_pending(response) -> None:
    assert response.status_code == 409
    body = response.get_json()
    assert body["code"] == "redelivery_pending" and set(body) == {"error", "code"}
    assert body["error"].endswith(".")


def test_redelivering_while_an_attempt_is_in_progress_is_refused_and_changes_nothing(client, hooked, receiver):
    auth, _ = hooked
    receiver.release.clear()  # the receiver holds the request: the round's first attempt is running
    run(client, auth)
    receiver.wait_for(1)
    [before] = deliveries(client, auth)
    for _ in range(3):
        assert_refused_as_pending(redeliver(client, auth, before["id"]))
    assert deliveries(client, auth) == [before]
    receiver.release.set()
    [done] = settled(client, auth)
    assert done["status"] == "succeeded" and len(done["attempts"]) == 1
    assert len(receiver.received) == 1
    response = redeliver(client, auth, done["id"])  # over: a new round is welcome
    assert response.status_code == 202 and response.get_json()["status"] == "pending"
    assert receiver.wait_for(2)[1].headers["x-service-delivery"] == done["id"]


def test_redelivering_during_the_backoff_wait_does_not_restart_the_round(app, client, hooked, receiver):
    """Attempt 1 failed and attempt 2 is 30 s away: redeliver neither brings it forward nor resets the
    round's attempt count (which would allow endless attempts against a failing endpoint)."""
    app.config["WEBHOOK_BACKOFF_SECONDS"] = (30.0,)
    auth, _ = hooked
    receiver.responses = [500]
    run(client, auth)
    receiver.wait_for(1)
    [waiting] = wait_until(lambda: [d for d in deliveries(client, auth) if d["attempts"]])
    assert waiting["status"] == "pending" and waiting["nextAttemptAt"] is not None
    assert_refused_as_pending(redeliver(client, auth, waiting["id"]))
    assert deliveries(client, auth) == [waiting]
    with app.app_context():
        stored = db.session.scalar(select(WebhookDelivery))
        assert stored.round_attempts == 1 and stored.claimed_until is None


def test_redelivering_a_queued_delivery_is_refused(app, client, hooked, receiver):
    app.extensions["webhook_sender"].stop()  # nothing is sent: the round stays queued
    auth, _ = hooked
    run(client, auth)
    [queued] = deliveries(client, auth)
    assert queued["status"] == "pending" and queued["attempts"] == []
    assert_refused_as_pending(redeliver(client, auth, queued["id"]))
    assert deliveries(client, auth) == [queued]
    assert receiver.received == []


def test_a_failed_delivery_gets_exactly_one_new_round(client, hooked, receiver):
    auth, _ = hooked
    receiver.default = 500
    run(client, auth)
    [failed] = settled(client, auth)
    assert failed["status"] == "failed" and len(failed["attempts"]) == 3
    assert redeliver(client, auth, failed["id"]).status_code == 202
    assert_refused_as_pending(redeliver(client, auth, failed["id"]))  # the new round is queued or running
    wait_until(lambda: len(deliveries(client, auth)[0]["attempts"]) == 6)
    [again] = settled(client, auth)
    assert again["status"] == "failed" and len(again["attempts"]) == 6
    assert len(receiver.received) == 6


def test_a_delivery_id_that_cannot_exist_is_404_not_a_database_error(client, auth):
    for raw in ("dlv%00x", "dlv_" + "a" * 60, "dlv%0a"):
        response = redeliver(client, auth, raw)
        assert response.status_code == 404 and response.get_json()["code"] == "not_found"


def _move_receiver(app, key_id: int, url: str | None) -> None:
    """The partner points its key at another receiver (or removes the URL), as in the portal or CLI."""
    from app.keys.service import update_api_key
    from app.models import ApiKey

    with app.app_context():
        update_api_key(db.session.get(ApiKey, key_id), webhook_url=url or "")
        db.session.commit()


def test_redelivery_goes_to_the_key_s_current_webhook_url(app, client, hooked, receiver):
    from tests.support.receiver import WebhookReceiver

    auth, issued = hooked
    receiver.responses = [500, 500, 500]
    run(client, auth)
    [failed] = settled(client, auth)
    moved = WebhookReceiver().start()
    try:
        _move_receiver(app, issued.key.id, moved.url)
        assert redeliver(client, auth, failed["id"]).status_code == 202
        [delivered] = [r for r in moved.wait_for(1)]
        assert delivered.headers["x-service-delivery"] == failed["id"]
        [done] = settled(client, auth)
        assert done["status"] == "succeeded" and done["attempts"][-1]["url"] == moved.url
        assert {a["url"] for a in done["attempts"][:3]} == {receiver.url}
        assert len(receiver.received) == 3             # nothing more went to the old address
    finally:
        moved.stop()


def test_bulk_redelivery_goes_to_the_current_url_and_skips_keys_without_one(app, client, hooked, receiver):
    from tests.support.receiver import WebhookReceiver

    auth, issued = hooked
    receiver.responses = [500, 500, 500]
    run(client, auth)
    settled(client, auth)
    _move_receiver(app, issued.key.id, None)
    since = {"since": "2020-01-01T00:00:00Z"}
    single = redeliver(client, auth, deliveries(client, auth)[0]["id"])
    assert single.status_code == 409 and single.get_json()["code"] == "webhook_url_missing"
    assert client.post("/api/v1/webhook-deliveries/redeliver", json=since, headers=auth).get_json()["redelivered"] == 0
    moved = WebhookReceiver().start()
    try:
        _move_receiver(app, issued.key.id, moved.url)
        assert client.post("/api/v1/webhook-deliveries/redeliver", json=since,
                           headers=auth).get_json()["redelivered"] == 1
        moved.wait_for(1)
        assert len(receiver.received) == 3
    finally:
        moved.stop()
