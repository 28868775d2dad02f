"""Signed completion webhooks delivered to a real receiver on loopback."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

from standardwebhooks.webhooks import Webhook

from tests.webhooks.conftest import deliveries, run, settled, wait_until


def verify_service_signature(request, secret: str) -> bool:
    expected = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, request.headers["x-service-signature"])


def verify_standard_signature(request, secret: str) -> bool:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{request.headers['webhook-id']}.{request.headers['webhook-timestamp']}.".encode() + request.body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, sig) for sig in request.headers["webhook-signature"].split())


def test_completed_event_is_signed_and_complete(client, hooked, receiver):
    auth, issued = hooked
    result = run(client, auth, companyId="client_77")
    [request] = receiver.wait_for(1)
    assert verify_service_signature(request, issued.webhook_secret)
    assert verify_standard_signature(request, issued.webhook_secret)
    assert not verify_service_signature(request, "whsec_" + "0" * 64)
    # And with the Standard Webhooks reference library, as a partner would.
    assert Webhook(issued.webhook_secret).verify(request.body, request.headers)["event"] == \
        "assessment.reports.completed"
    assert request.headers["x-service-event"] == "assessment.reports.completed"
    assert request.headers["x-service-delivery"] == request.headers["webhook-id"]
    assert request.headers["content-type"] == "application/json"
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 60
    payload = request.json
    assert list(payload) == ["event", "assessmentId", "externalCompanyId", "framework", "complianceScore", "status",
                             "totalReports", "failedReports", "embedToken", "embedUrl", "reports",
                             "previousAssessmentId", "change", "livemode", "timestamp"]
    assert payload["event"] == "assessment.reports.completed" and payload["status"] == "completed"
    assert payload["assessmentId"] == result["assessmentId"] and payload["externalCompanyId"] == "client_77"
    assert payload["framework"] == "ISO 27001" and payload["complianceScore"] == result["complianceScore"]
    assert payload["totalReports"] == 25 and payload["failedReports"] == 0
    assert payload["embedToken"] == result["embedToken"] and payload["embedUrl"] == result["embedUrl"]
    assert payload["reports"][0] == {"persona": "ceo_president", "viewToken": result["reports"][0]["viewToken"],
                                     "viewUrl": result["reports"][0]["viewUrl"]}
    assert request.headers["x-service-timestamp"] == payload["timestamp"]
    [delivery] = settled(client, auth)
    assert delivery["id"] == request.headers["x-service-delivery"]
    assert delivery["status"] == "succeeded" and delivery["nextAttemptAt"] is None
    assert delivery["event"] == "assessment.reports.completed" and delivery["assessmentId"] == result["assessmentId"]
    assert [a["statusCode"] for a in delivery["attempts"]] == [200]
    assert delivery["attempts"][0]["error"] is None and delivery["attempts"][0]["durationMs"] >= 0


def test_generate_does_not_wait_for_the_delivery(client, hooked, receiver):
    auth, _ = hooked
    receiver.release.clear()  # the receiver holds every request until released
    run(client, auth)
    receiver.wait_for(1)
    assert deliveries(client, auth)[0]["status"] == "pending"
    receiver.release.set()
    assert settled(client, auth)[0]["status"] == "succeeded"


def test_retries_with_configured_gaps_then_success(client, hooked, receiver):
    auth, issued = hooked
    receiver.responses = [500, 503]
    run(client, auth)
    requests = receiver.wait_for(3)
    ids = {r.headers["x-service-delivery"] for r in requests}
    assert len(ids) == 1
    assert requests[1].at - requests[0].at >= 0.2 - 0.02
    assert requests[2].at - requests[1].at >= 0.4 - 0.02
    assert all(verify_service_signature(r, issued.webhook_secret) for r in requests)
    assert all(r.body == requests[0].body for r in requests)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded"
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, 503, 200]
    assert [a["error"] for a in delivery["attempts"]] == ["HTTP 500", "HTTP 503", None]


def test_gives_up_after_the_last_attempt(client, hooked, receiver):
    auth, _ = hooked
    receiver.default = 500
    run(client, auth)
    receiver.wait_for(3)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "failed" and delivery["nextAttemptAt"] is None
    assert len(delivery["attempts"]) == 3
    assert len(receiver.received) == 3


def test_a_receiver_that_does_not_answer_times_out_and_is_retried(app, client, hooked, receiver):
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 0.5
    auth, _ = hooked
    receiver.responses = [("hang", 2)]
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded"
    assert delivery["attempts"][0]["statusCode"] is None
    assert delivery["attempts"][0]["error"] == "timed out after 0.5 s"
    assert delivery["attempts"][1]["statusCode"] == 200


def test_redelivery_reuses_the_delivery_id(client, hooked, receiver, make_key):
    auth, _ = hooked
    run(client, auth)
    [first] = settled(client, auth)
    response = client.post(f"/api/v1/webhook-deliveries/{first['id']}/redeliver", headers=auth)
    assert response.status_code == 202
    assert response.get_json()["status"] == "pending"
    requests = receiver.wait_for(2)
    assert requests[1].headers["x-service-delivery"] == first["id"]
    assert requests[1].body == requests[0].body
    wait_until(lambda: len(deliveries(client, auth)[0]["attempts"]) == 2)
    [again] = settled(client, auth)
    assert again["status"] == "succeeded" and len(again["attempts"]) == 2
    other = {"Authorization": f"Bearer {make_key('globex').api_key}"}
    assert client.post(f"/api/v1/webhook-deliveries/{first['id']}/redeliver", headers=other).status_code == 404
    missing = client.post("/api/v1/webhook-deliveries/dlv_nothing/redeliver", headers=auth)
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
    assert deliveries(client, other) == []


def test_no_webhook_url_no_delivery(client, make_key, receiver):
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    run(client, auth)
    assert deliveries(client, auth) == []
    assert receiver.received == []


def test_rotation_signs_with_new_secret_and_both_during_grace(client, runner, hooked, receiver):
    auth, issued = hooked
    result = runner.invoke(args=["keys", "rotate-webhook-secret", str(issued.key.id), "--json"])
    new_secret = json.loads(result.output)["webhookSecret"]
    run(client, auth)
    [request] = receiver.wait_for(1)
    assert verify_service_signature(request, new_secret)
    assert not verify_service_signature(request, issued.webhook_secret)
    signatures = request.headers["webhook-signature"].split()
    assert len(signatures) == 2
    assert verify_standard_signature(request, new_secret) and verify_standard_signature(request, issued.webhook_secret)
    for secret in (new_secret, issued.webhook_secret):
        Webhook(secret).verify(request.body, request.headers)


def test_listing_filters_and_pages(client, hooked, receiver):
    auth, _ = hooked
    receiver.responses = [500, 500, 500]
    first = run(client, auth)
    receiver.wait_for(3)
    settled(client, auth)
    second = run(client, auth)
    third = run(client, auth)
    settled(client, auth, count=3)
    assert [d["status"] for d in deliveries(client, auth, "?status=failed")] == ["failed"]
    assert {d["assessmentId"] for d in deliveries(client, auth, "?status=succeeded")} == {
        second["assessmentId"], third["assessmentId"]}
    assert [d["assessmentId"] for d in deliveries(client, auth, f"?assessmentId={first['assessmentId']}")] == [
        first["assessmentId"]]
    page = client.get("/api/v1/webhook-deliveries?limit=2", headers=auth).get_json()
    assert [d["assessmentId"] for d in page["items"]] == [third["assessmentId"], second["assessmentId"]]
    rest = client.get(f"/api/v1/webhook-deliveries?limit=2&cursor={page['nextCursor']}", headers=auth).get_json()
    assert [d["assessmentId"] for d in rest["items"]] == [first["assessmentId"]] and rest["nextCursor"] is None
    for query in ("?status=lost", "?assessmentId=abc", "?limit=0"):
        assert client.get(f"/api/v1/webhook-deliveries{query}", headers=auth).status_code == 422


def test_private_address_refused_at_send_time(app, client, hooked, receiver):
    auth, _ = hooked
    app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = False  # as if DNS now pointed at a private address
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "failed" and len(delivery["attempts"]) == 1
    assert delivery["attempts"][0]["error"].startswith("refused:")
    assert receiver.received == []


def test_erasing_the_assessment_erases_its_deliveries(client, hooked, receiver):
    auth, _ = hooked
    result = run(client, auth)
    settled(client, auth)
    client.delete(f"/api/v1/assessments/{result['assessmentId']}", headers=auth)
    assert deliveries(client, auth) == []


def test_real_backoff_of_one_then_four_seconds(app, app_factory, make_key, receiver):
    app.extensions["webhook_sender"].stop()  # only the sender with the default settings may run
    app = app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)  # default waits: 1 s, then 4 s
    app.extensions["webhook_sender"].start()
    issued = make_key(webhook_url=receiver.url)
    receiver.responses = [500, 500]
    run(app.test_client(), {"Authorization": f"Bearer {issued.api_key}"})
    requests = receiver.wait_for(3, timeout=30)
    assert requests[1].at - requests[0].at >= 1.0 - 0.02
    assert requests[2].at - requests[1].at >= 4.0 - 0.02
