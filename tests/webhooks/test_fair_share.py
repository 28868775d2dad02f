"""Issue 31: a partner's slow endpoints use at most its share of a process's webhook workers
(WEBHOOK_PARTNER_CONCURRENCY), so other partners' deliveries go out meanwhile."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from app.config import ConfigError, settings_from_env, webhook_partner_concurrency
from app.extensions import db
from app.models import WebhookDelivery, utcnow
from app.webhooks.claims import POLL_SECONDS, claim_due, seconds_until_next_due
from tests.support.receiver import DribblingReceiver
from tests.webhooks.conftest import FAST, bearer, deliveries, run, wait_until


@pytest.fixture
def app(app_factory):
    """Four workers, the default 10 s deadline per attempt (the default partner share: 2 workers)."""
    application = app_factory(**{**FAST, "WEBHOOK_TIMEOUT_SECONDS": 10.0}, WEBHOOK_CONCURRENCY=4)
    application.extensions["webhook_sender"].start()
    return application


@pytest.fixture
def dribbling():
    """Four receivers that answer one byte every two seconds (the attempts end at their deadline);
    stopping them closes their connections, which ends the attempts at once."""
    servers = [DribblingReceiver(interval=2.0).start() for _ in range(4)]
    yield servers
    for server in servers:
        server.stop()


def test_a_partners_dribbling_endpoints_leave_workers_to_other_partners(app, client, make_key, receiver, dribbling):
    """Initech has four keys whose endpoints dribble; with four workers it gets two of them, its other
    two deliveries wait unclaimed, and Globex's delivery, queued after all of Initech's, arrives at once
    rather than at the 10 s deadline of Initech's attempts."""
    initech = [bearer(make_key("initech", webhook_url=server.url)) for server in dribbling]
    globex = bearer(make_key("globex", webhook_url=receiver.url))
    for auth in initech:
        run(client, auth)
    wait_until(lambda: sum(len(server.connections) for server in dribbling) >= 2)
    run(client, globex)
    generated = time.monotonic()
    [request] = receiver.wait_for(1, timeout=15)
    took = request.at - generated
    assert took < 5, f"Globex's delivery took {took:.1f} s"
    # Initech's share was two attempts in flight; its other deliveries were not claimed and held meanwhile.
    assert sum(len(server.connections) for server in dribbling) == 2
    assert [(d["status"], d["attempts"]) for d in deliveries(client, initech[0])] == [("pending", [])] * 4


def test_claiming_skips_the_endpoints_of_a_partner_at_its_cap(app, make_key):
    """With Acme at its cap, Acme's due delivery is passed over (not claimed) and Globex's, due later, is
    claimed; within one claim, the partner's cap is counted again after each delivery it takes."""
    app.extensions["webhook_sender"].stop()   # the claims here are the test's own
    acme, globex = make_key("acme").key, make_key("globex").key
    now = utcnow()

    def add(delivery_id: str, key, url: str, waited: float) -> None:
        db.session.add(WebhookDelivery(
            id=delivery_id, partner_id=key.partner_id, api_key_id=key.id, assessment_id=1,
            event="assessment.reports.completed", url=url, body=b"{}", event_at="x", status="pending",
            next_attempt_at=now - timedelta(seconds=waited)))

    with app.app_context():
        add("dlv_acme_1", acme, "https://one.acme.example/", 30)
        add("dlv_acme_2", acme, "https://two.acme.example/", 20)
        add("dlv_globex", globex, "https://hooks.globex.example/", 10)
        db.session.commit()
        pks = dict(db.session.execute(db.select(WebhookDelivery.id, WebhookDelivery.pk)).all())

        at_cap = {"https://busy.acme.example/": acme.partner_id}   # one Acme attempt already in flight here
        assert seconds_until_next_due(at_cap, partner_cap=1) == 0   # Globex's delivery is due
        assert claim_due(at_cap, 3, 60, partner_cap=1) == [
            (pks["dlv_globex"], "https://hooks.globex.example/", globex.partner_id)]
        claimed = dict(db.session.execute(db.select(WebhookDelivery.id, WebhookDelivery.claimed_until)).all())
        assert claimed["dlv_acme_1"] is None and claimed["dlv_acme_2"] is None
        # Only Acme's deliveries are left, and Acme is at its cap: nothing to wake up for.
        assert seconds_until_next_due(at_cap, partner_cap=1) == POLL_SECONDS
        assert claim_due(at_cap, 3, 60, partner_cap=1) == []

        # Nothing in flight and a cap of 1: the longest-waiting Acme endpoint only.
        assert claim_due({}, 3, 60, partner_cap=1) == [(pks["dlv_acme_1"], "https://one.acme.example/",
                                                         acme.partner_id)]


def test_partner_concurrency_setting():
    """WEBHOOK_PARTNER_CONCURRENCY: unset, half of WEBHOOK_CONCURRENCY (at least 1); never above it."""
    def cap(**env) -> int:
        return webhook_partner_concurrency(settings_from_env("/tmp", env))

    assert cap() == 2
    assert cap(WEBHOOK_CONCURRENCY="1") == 1
    assert cap(WEBHOOK_CONCURRENCY="5") == 2
    assert cap(WEBHOOK_CONCURRENCY="8", WEBHOOK_PARTNER_CONCURRENCY="3") == 3
    assert cap(WEBHOOK_CONCURRENCY="2", WEBHOOK_PARTNER_CONCURRENCY="6") == 2
    assert webhook_partner_concurrency({"WEBHOOK_CONCURRENCY": 10, "WEBHOOK_PARTNER_CONCURRENCY": None}) == 5
    with pytest.raises(ConfigError, match="WEBHOOK_PARTNER_CONCURRENCY"):
        settings_from_env("/tmp", {"WEBHOOK_PARTNER_CONCURRENCY": "0"})
