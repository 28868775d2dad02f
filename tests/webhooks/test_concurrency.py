"""Deliveries to different endpoints go out side by side; one endpoint gets one attempt at a time."""

from __future__ import annotations

import time

import pytest

from app.config import ConfigError, settings_from_env
from tests.support.receiver import DribblingReceiver, WebhookReceiver
from tests.webhooks.conftest import FAST, bearer, deliveries, run, settled, wait_until


def test_a_hanging_receiver_does_not_delay_another_partners_delivery(app, client, make_key, receiver, silent):
    """Initech's receiver accepts the connection and never answers (5 s timeout); Globex's delivery,
    queued while Initech's attempt hangs, still arrives within 2 s of its generate."""
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 5.0
    hanging = bearer(make_key("initech", webhook_url=silent.url))
    normal = bearer(make_key("globex", webhook_url=receiver.url))
    run(client, hanging)
    silent.wait_for_connection()  # Initech's attempt is in flight now
    run(client, normal)
    generated = time.monotonic()
    [request] = receiver.wait_for(1, timeout=15)
    assert request.at - generated < 2.0
    [stuck] = deliveries(client, hanging)
    assert stuck["status"] == "pending" and stuck["attempts"] == []  # still hanging meanwhile
    [delivered] = settled(client, normal)
    assert delivered["status"] == "succeeded"


def test_a_receiver_that_dribbles_its_answer_is_cut_off_at_the_attempts_deadline(app, client, make_key):
    """Issue 31: the timeout was per read, so a receiver sending a byte every quarter second (status line
    and headers included) held a worker for a minute; the whole attempt now has WEBHOOK_TIMEOUT_SECONDS."""
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 1.5
    dribbling = DribblingReceiver(interval=0.25).start()
    try:
        auth = bearer(make_key("initech", webhook_url=dribbling.url, tier="enterprise"))
        run(client, auth)
        dribbling.wait_for_connection()
        started = time.monotonic()
        wait_until(lambda: deliveries(client, auth)[0]["attempts"], timeout=90, interval=0.25)
        took = time.monotonic() - started
        [delivery] = deliveries(client, auth)
        assert delivery["attempts"][0]["error"] == "timed out after 1.5 s"
        assert delivery["attempts"][0]["statusCode"] is None
        # the 230-byte answer would take about a minute; the attempt ended at its deadline
        assert took < 8, took
    finally:
        dribbling.stop()


def test_one_endpoint_gets_one_attempt_at_a_time_in_due_order_across_senders(app, app_factory, make_key, receiver):
    """Five deliveries to one URL, two more senders (as two more processes would run) with four
    workers each: the receiver never has two requests in flight, and they arrive in due order,
    while a second endpoint is served alongside."""
    app.extensions["webhook_sender"].stop()  # queue everything first, then let the senders race
    other = WebhookReceiver().start()
    try:
        auth = bearer(make_key(webhook_url=receiver.url))
        other_auth = bearer(make_key("globex", webhook_url=other.url))
        client = app.test_client()
        receiver.responses = [("hang", 0.3)] * 5  # each answer takes a while: overlaps would show
        other.responses = [("hang", 0.3)] * 5
        made = [run(client, auth)["assessmentId"] for _ in range(5)]
        for _ in range(5):
            run(client, other_auth)
        senders = [app_factory(**FAST, WEBHOOK_CONCURRENCY=4) for _ in range(2)]
        for sender_app in senders:
            sender_app.extensions["webhook_sender"].start()
        requests = receiver.wait_for(5)
        other.wait_for(5)
        assert receiver.max_in_flight == 1 and other.max_in_flight == 1
        assert [r.json["assessmentId"] for r in requests] == made
        # The two endpoints were served side by side, not one after the other.
        assert other.received[0].at < requests[-1].at and requests[0].at < other.received[-1].at
        assert all(d["status"] == "succeeded" for d in settled(client, auth, count=5))
        assert len(receiver.received) == 5
    finally:
        other.stop()


def test_concurrency_setting():
    """WEBHOOK_CONCURRENCY: default 4, at least 1."""
    assert settings_from_env("/tmp", {})["WEBHOOK_CONCURRENCY"] == 4
    assert settings_from_env("/tmp", {"WEBHOOK_CONCURRENCY": "2"})["WEBHOOK_CONCURRENCY"] == 2
    with pytest.raises(ConfigError, match="WEBHOOK_CONCURRENCY"):
        settings_from_env("/tmp", {"WEBHOOK_CONCURRENCY": "0"})
