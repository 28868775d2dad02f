"""'Send a test event' on a key card: one signed `webhook.test` event to the key's webhook URL, sent at once, with
what the receiver answered shown to the partner; nothing is stored or billed, and a receiver can verify it like
any delivery."""

from __future__ import annotations

import re
from html import unescape

from tests.portal import make_user, page_token, sign_in
from tests.webhooks.conftest import bearer, deliveries
from tests.webhooks.test_delivery import verify_service_signature, verify_standard_signature


def words(response) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))).split())


def send(client, key_id: int):
    token = page_token(client, "/portal/keys")
    return client.post(f"/portal/keys/{key_id}/send-test-event", data={"csrf_token": token})


def test_a_test_event_is_signed_sent_at_once_and_its_answer_shown(app, client, make_key, receiver):
    issued = make_key("Acme Security", name="Production", webhook_url=receiver.url)
    make_user(app)
    assert sign_in(client).status_code == 302
    assert "Send a test event" in words(client.get("/portal/keys"))
    response = send(client, issued.key.id)
    assert response.status_code == 303
    [request] = receiver.received
    assert request.json["event"] == "webhook.test" and request.json["livemode"] is True
    assert verify_service_signature(request, issued.webhook_secret)
    assert verify_standard_signature(request, issued.webhook_secret)
    shown = words(client.get(response.headers["Location"]))
    assert f"Test event sent to {receiver.url}: HTTP 200" in shown and "your receiver received it" in shown
    assert deliveries(client, bearer(issued)) == []          # never stored, never redelivered

    receiver.responses = [503]
    shown = words(client.get(send(client, issued.key.id).headers["Location"]))
    assert "HTTP 503" in shown and "your receiver did not accept it" in shown


def test_without_a_webhook_url_there_is_nothing_to_send_and_another_partners_key_is_404(app, client, make_key,
                                                                                       receiver):
    plain = make_key("Acme Security", name="No hooks")
    theirs = make_key("Globex", webhook_url=receiver.url)
    make_user(app)
    assert sign_in(client).status_code == 302
    assert "Send a test event" not in words(client.get("/portal/keys"))
    shown = words(client.get(send(client, plain.key.id).headers["Location"]))
    assert "has no webhook URL to send a test event to" in shown
    assert send(client, theirs.key.id).status_code == 404
    assert receiver.received == []
