"""Beyond the spec's three attempts, when the operator asks: rescue rounds, and one call that sends every
failed delivery again after a receiver outage."""

from __future__ import annotations

from datetime import timedelta

from app.extensions import db
from app.keys.service import issue_api_key
from app.models import iso_utc, utcnow
from tests.webhooks.conftest import FAST, bearer, run, settled


def rescuing_app(app_factory, receiver, rescue: tuple[float, ...]):
    """An app whose sender runs rescue rounds, the only sender on the database, and a key hooked to `receiver`."""
    app = app_factory(**FAST, WEBHOOK_RESCUE_SECONDS=rescue)
    with app.app_context():
        issued = issue_api_key("acme", webhook_url=receiver.url)
        db.session.commit()
        auth = bearer(issued)
    app.extensions["webhook_sender"].start()
    return app, auth


def test_without_rescue_a_receiver_down_for_the_three_attempts_loses_the_event(app, hooked, receiver):
    auth, _ = hooked
    receiver.responses = [500, 500, 500]
    run(app.test_client(), auth)
    [delivery] = settled(app.test_client(), auth)
    assert delivery["status"] == "failed" and len(delivery["attempts"]) == 3


def test_a_rescue_round_delivers_once_the_receiver_is_back(app_factory, receiver):
    app, auth = rescuing_app(app_factory, receiver, (0.5, 0.5))
    client = app.test_client()
    receiver.responses = [500] * 5    # down for the first round and two attempts of the rescue round
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded"
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, 500, 500, 500, 500, 200]
    assert len({r.headers["x-service-delivery"] for r in receiver.received}) == 1   # one delivery id throughout


def test_rescue_rounds_end_and_the_delivery_fails_when_the_receiver_never_comes_back(app_factory, receiver):
    app, auth = rescuing_app(app_factory, receiver, (0.3,))
    receiver.responses = [503] * 6
    run(app.test_client(), auth)
    [delivery] = settled(app.test_client(), auth)
    assert delivery["status"] == "failed" and len(delivery["attempts"]) == 6   # two rounds of three


def test_one_call_redelivers_every_failed_delivery_since_a_time(app, hooked, receiver):
    auth, _ = hooked
    client = app.test_client()
    before = iso_utc(utcnow() - timedelta(seconds=1))
    receiver.responses = [500] * 6          # the receiver is down for two runs' rounds
    run(client, auth)
    run(client, auth)
    assert [d["status"] for d in settled(client, auth, 2)] == ["failed", "failed"]

    response = client.post("/api/v1/webhook-deliveries/redeliver", json={"since": before}, headers=auth)
    assert response.status_code == 202 and response.get_json()["redelivered"] == 2
    done = settled(client, auth, 2)
    assert [d["status"] for d in done] == ["succeeded", "succeeded"]
    assert len(receiver.received) == 8

    again = client.post("/api/v1/webhook-deliveries/redeliver", json={"since": before}, headers=auth)
    assert again.status_code == 202 and again.get_json()["redelivered"] == 0    # succeeded ones are left alone
    later = client.post("/api/v1/webhook-deliveries/redeliver", json={"since": iso_utc(utcnow())}, headers=auth)
    assert later.get_json()["redelivered"] == 0


def test_bulk_redelivery_stays_within_the_partner_and_mode(app, make_key, receiver):
    client = app.test_client()
    ours = bearer(make_key(webhook_url=receiver.url))
    theirs = bearer(make_key("Other Partner", webhook_url=receiver.url))
    test_mode = bearer(make_key(webhook_url=receiver.url, livemode=False))
    receiver.responses = [500] * 3
    run(client, theirs)
    settled(client, theirs)
    since = {"since": "2020-01-01T00:00:00Z"}
    for auth in (ours, test_mode):
        response = client.post("/api/v1/webhook-deliveries/redeliver", json=since, headers=auth)
        assert response.get_json()["redelivered"] == 0
    response = client.post("/api/v1/webhook-deliveries/redeliver", json=since, headers=theirs)
    assert response.get_json()["redelivered"] == 1


def test_bulk_redelivery_needs_a_time_with_an_offset(app, hooked):
    auth, _ = hooked
    client = app.test_client()
    for body in ({}, {"since": "yesterday"}, {"since": "2026-11-26T08:00:00"}):
        response = client.post("/api/v1/webhook-deliveries/redeliver", json=body, headers=auth)
        assert response.status_code == 422 and "since" in response.get_json()["details"], body
