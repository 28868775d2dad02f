"""One switch filters the portal's lists to live or test data (as Stripe's test-mode switch), kept for the session;
every row stays marked."""

from __future__ import annotations

import re
from html import unescape

from app.extensions import db
from app.models import WebhookDelivery
from tests.embed import submit
from tests.portal import page_token


def choose(client, mode: str, on: str = "/portal/assessments"):
    token = page_token(client, on if on.startswith("/portal/") else "/portal/keys")
    return client.post("/portal/mode", data={"mode": mode, "next": on, "csrf_token": token})


def test_the_switch_filters_keys_assessments_and_deliveries_and_is_kept(app, signed_in, make_key):
    live = make_key("Acme Security", name="Production")
    test = make_key("Acme Security", name="Sandbox", livemode=False)
    api = app.test_client()
    submit(api, {"Authorization": f"Bearer {live.api_key}"}, displayName="Live Client")
    submit(api, {"Authorization": f"Bearer {test.api_key}"}, displayName="Test Client")
    with app.app_context():
        for issued, delivery_id in ((live, "dlv_live"), (test, "dlv_test")):
            db.session.add(WebhookDelivery(id=delivery_id, partner_id=issued.key.partner_id, api_key_id=issued.key.id,
                                           assessment_id=1, event="assessment.reports.completed",
                                           url="https://hooks.acme.example/", body=b"{}", event_at="x",
                                           status="succeeded", attempts=[]))
        db.session.commit()

    def shown(path):
        return signed_in.get(path).get_data(as_text=True)

    everything = shown("/portal/assessments")
    assert "Live Client" in everything and "Test Client" in everything and 'aria-pressed="true">All data' in everything
    # Every row says its mode, live as well as test: keys, assessments and deliveries.
    for page in (everything, shown("/portal/keys"), shown("/portal/webhooks")):
        assert page.count('class="badge badge--live"') >= 1 and page.count('class="badge badge--test"') >= 1

    response = choose(signed_in, "test")
    assert response.status_code == 303 and response.headers["Location"] == "/portal/assessments"
    assessments, keys, webhooks = shown("/portal/assessments"), shown("/portal/keys"), shown("/portal/webhooks")
    assert "Test Client" in assessments and "Live Client" not in assessments
    assert "Sandbox" in keys and "Production" not in keys and 'aria-pressed="true">Test data' in keys
    assert "dlv_test" in webhooks and "dlv_live" not in webhooks

    choose(signed_in, "live", on="/portal/keys")
    assessments, keys, webhooks = shown("/portal/assessments"), shown("/portal/keys"), shown("/portal/webhooks")
    assert "Live Client" in assessments and "Test Client" not in assessments
    assert "Production" in keys and "Sandbox" not in keys
    assert "dlv_live" in webhooks and "dlv_test" not in webhooks

    choose(signed_in, "all")
    assert "Test Client" in shown("/portal/assessments") and "Live Client" in shown("/portal/assessments")


def test_a_mode_that_is_not_one_is_400_and_next_stays_in_the_portal(signed_in):
    assert choose(signed_in, "staging").status_code == 400
    response = choose(signed_in, "test", on="https://evil.example/")
    assert response.status_code == 303 and response.headers["Location"] == "/portal/keys"


def test_the_usage_page_follows_the_switch(app, signed_in, make_key):
    from tests.embed import generate

    test = make_key("Acme Security", name="Sandbox", livemode=False)
    api = app.test_client()
    record = submit(api, {"Authorization": f"Bearer {test.api_key}"}, displayName="Test Client")
    generate(api, {"Authorization": f"Bearer {test.api_key}"}, record["id"])
    usage = signed_in.get("/portal/usage").get_data(as_text=True)
    assert "Test mode," in usage and "Download CSV" in usage
    choose(signed_in, "test", on="/portal/usage")
    usage = signed_in.get("/portal/usage").get_data(as_text=True)
    assert "Test mode," in usage and "Download CSV" not in usage
    choose(signed_in, "live", on="/portal/usage")
    usage = signed_in.get("/portal/usage").get_data(as_text=True)
    assert "Test mode," not in usage and "Download CSV" in usage


def test_the_failed_deliveries_and_their_send_again_follow_the_switch(app, signed_in, make_key):
    live = make_key("Acme Security", name="Production")
    test = make_key("Acme Security", name="Sandbox", livemode=False)
    with app.app_context():
        for issued in (live, test):
            db.session.get(type(issued.key), issued.key.id).webhook_url = "https://hooks.acme.example/"
            db.session.add(WebhookDelivery(id=f"dlv_failed_{issued.key.id}", partner_id=issued.key.partner_id,
                                           api_key_id=issued.key.id, assessment_id=1, event="x",
                                           url="https://hooks.acme.example/", body=b"{}", event_at="x",
                                           status="failed", attempts=[]))
        db.session.commit()
    assert "2 failed deliveries" in signed_in.get("/portal/webhooks").get_data(as_text=True)
    choose(signed_in, "test", on="/portal/webhooks")
    page = signed_in.get("/portal/webhooks").get_data(as_text=True)
    assert "1 failed delivery" in page and f"dlv_failed_{test.key.id}" in page
    signed_in.post("/portal/webhooks/redeliver-failed",
                   data={"csrf_token": page_token(signed_in, "/portal/webhooks")})
    with app.app_context():
        statuses = {d.api_key_id: d.status for d in db.session.query(WebhookDelivery)}
    assert statuses == {test.key.id: "pending", live.key.id: "failed"}


def test_the_switch_keeps_the_pages_filters_and_month_but_not_its_place_in_a_list(signed_in):
    """Switching on last month's usage stays on last month (it went back to the current one)."""
    page = signed_in.get("/portal/usage?month=2026-10&cursor=abc").get_data(as_text=True)
    kept = re.search(r'name="next" value="([^"]+)"', page).group(1)
    assert unescape(kept) == "/portal/usage?month=2026-10"
    page = signed_in.get("/portal/keys").get_data(as_text=True)
    assert re.search(r'name="next" value="([^"]+)"', page).group(1) == "/portal/keys"
