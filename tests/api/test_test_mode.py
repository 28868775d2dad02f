"""Test mode: a test key's assessments are real, never billed, and live apart from live data."""

from __future__ import annotations

import io
import json
import re

import pypdf
import pytest
from sqlalchemy import func, select

from app.catalog import PERSONAS
from app.extensions import db
from app.models import ApiKey, Partner, UsageRecord, WebhookDelivery
from tests.embed import embed_path, generate, submit, view_path
from tests.portal import follow, make_user, page_token, sign_in


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


# Deliveries are queued in the outbox (this app's sender is not started, so nothing is sent).
HOOK = "http://127.0.0.1:9/reports"


@pytest.fixture
def app(app_factory):
    return app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)


@pytest.fixture
def live(make_key):
    return bearer(make_key("acme", webhook_url=HOOK))


@pytest.fixture
def test(make_key):
    return bearer(make_key("acme", livemode=False, webhook_url=HOOK))


def test_keys_create_test_makes_a_test_key_of_the_usual_format(runner, client):
    out = runner.invoke(args=["keys", "create", "--partner", "Acme", "--test", "--json"])
    assert out.exit_code == 0, out.output
    created = json.loads(out.output)
    assert created["livemode"] is False
    assert re.fullmatch(r"crs_[0-9a-f]{64}", created["apiKey"])
    record = submit(client, {"Authorization": f"Bearer {created['apiKey']}"})
    assert record["livemode"] is False
    human = runner.invoke(args=["keys", "create", "--partner", "Acme", "--test"])
    assert "test key, never billed" in human.output
    listing = runner.invoke(args=["keys", "list"]).output.splitlines()
    assert [" test " in line for line in listing] == [True, True]


def test_a_live_key_makes_live_assessments(client, live):
    assert submit(client, live)["livemode"] is True


def test_the_reports_are_real_and_never_billed(app, client, test, live):
    record = submit(client, test)
    result = generate(client, test, record["id"])
    assert result["livemode"] is False and result["failedReports"] == 0
    assert len(result["reports"]) == len(PERSONAS)
    content = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=test).get_json()
    assert content["sections"] and "A.5.15" in json.dumps(content)
    usage = client.get("/api/v1/usage", headers=test).get_json()
    assert usage["livemode"] is False
    assert usage["total"] == {"assessments": 1, "reports": 25, "amount": 0}
    assert [k["amount"] for k in usage["keys"]] == [0]
    live_usage = client.get("/api/v1/usage", headers=live).get_json()
    assert live_usage["livemode"] is True and live_usage["total"] == {"assessments": 0, "reports": 0, "amount": 0}
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(UsageRecord)) == 0


def test_live_and_test_keys_never_see_each_others_assessments(client, live, test):
    mine = {"live": submit(client, live), "test": submit(client, test)}
    for auth, own, other in ((live, mine["live"], mine["test"]), (test, mine["test"], mine["live"])):
        listed = client.get("/api/v1/assessments", headers=auth).get_json()["items"]
        assert [a["id"] for a in listed] == [own["id"]]
        base = f"/api/v1/assessments/{other['id']}"
        assert client.get(base, headers=auth).status_code == 404
        assert client.post(f"{base}/generate", headers=auth).status_code == 404
        assert client.post(f"{base}/embed-token/rotate", headers=auth).status_code == 404
        assert client.get(f"{base}/reports/cfo", headers=auth).status_code == 404
        assert client.delete(base, headers=auth).status_code == 404
    assert client.get(f"/api/v1/assessments/{mine['test']['id']}", headers=test).status_code == 200


def test_webhooks_say_livemode_and_deliveries_stay_apart(app, client, live, test):
    generate(client, live, submit(client, live)["id"])
    generate(client, test, submit(client, test)["id"])
    with app.app_context():
        bodies = [json.loads(d.body) for d in db.session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.pk))]
    assert [b["livemode"] for b in bodies] == [True, False]
    for auth, mode in ((live, True), (test, False)):
        items = client.get("/api/v1/webhook-deliveries", headers=auth).get_json()["items"]
        assert len(items) == 1
        assert next(b for b in bodies if b["assessmentId"] == items[0]["assessmentId"])["livemode"] is mode
    other = client.get("/api/v1/webhook-deliveries", headers=live).get_json()["items"][0]["id"]
    assert client.post(f"/api/v1/webhook-deliveries/{other}/redeliver", headers=test).status_code == 404


def test_every_page_and_pdf_of_a_test_assessment_says_test_data(client, test, live):
    record = submit(client, test)
    result = generate(client, test, record["id"])
    for path in (embed_path(record), embed_path(record) + "?persona=cfo", view_path(result, "ciso")):
        page = client.get(path).get_data(as_text=True)
        assert re.search(r'<p class="test-banner" role="note">Test report', page), path
    pdf = pypdf.PdfReader(io.BytesIO(client.get(view_path(result, "ciso") + ".pdf").data))
    assert all("TEST REPORT" in page.extract_text() for page in pdf.pages)
    live_record = submit(client, live)
    live_result = generate(client, live, live_record["id"])
    assert "test-banner" not in client.get(embed_path(live_record)).get_data(as_text=True)
    live_pdf = pypdf.PdfReader(io.BytesIO(client.get(view_path(live_result, "ciso") + ".pdf").data))
    assert not any("TEST REPORT" in page.extract_text() for page in live_pdf.pages)


def test_the_portal_creates_test_keys_and_marks_test_data(app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    data = {"csrf_token": page_token(client, "/portal/keys/new"), "name": "Sandbox", "tier": "standard",
            "frameworks": "", "webhook_url": "", "embed_origins": "", "brand_name": "", "brand_color": "",
            "test_mode": "y", "brand_logo": (io.BytesIO(b""), "")}
    created = follow(client, client.post("/portal/keys/new", data=data, content_type="multipart/form-data"))
    assert created.status_code == 200, created.status_code
    api_key = re.search(r"crs_[0-9a-f]{64}", created.get_data(as_text=True)).group(0)
    with app.app_context():
        assert db.session.scalar(select(ApiKey.livemode).where(ApiKey.name == "Sandbox")) is False
    keys_page = client.get("/portal/keys").get_data(as_text=True)
    assert re.search(r'badge--test[^>]*>Test<', keys_page)
    submit(client, {"Authorization": f"Bearer {api_key}"})
    listing = client.get("/portal/assessments").get_data(as_text=True)
    assert re.search(r'badge--test[^>]*>Test<', listing)


def test_a_test_keys_report_json_says_it_is_test_data(client, live, test):
    """Issue 31: the single-report JSON had no `livemode`, so a test report could pass for a live one."""
    for auth, livemode in ((live, True), (test, False)):
        record = submit(client, auth)
        generate(client, auth, record["id"])
        report = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).get_json()
        assert report["livemode"] is livemode and report["title"]


@pytest.mark.parametrize("allowed", [False, True])
def test_a_test_keys_run_spends_llm_tokens_only_when_the_operator_allows_it(app_factory, fake_openai, allowed):
    """Issue 31: a test key's runs are never billed, so by default they use the template engine; with
    OPENAI_IN_TEST_MODE the operator lets them call the LLM like live keys."""
    from app.keys.service import issue_api_key
    application = app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=fake_openai.base_url, OPENAI_API_KEY="test",
                              OPENAI_MODEL="fake-model", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=5.0,
                              OPENAI_MAX_CONCURRENCY=25, OPENAI_IN_TEST_MODE=allowed)
    with application.app_context():
        keys = {mode: issue_api_key("acme", livemode=mode == "live").api_key for mode in ("live", "test")}
        db.session.commit()
    client = application.test_client()
    engines = {}
    for mode, secret in keys.items():
        auth = {"Authorization": f"Bearer {secret}"}
        before = len(fake_openai.requests)
        record = submit(client, auth)
        generate(client, auth, record["id"])
        report = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).get_json()
        engines[mode] = (report["engine"], len(fake_openai.requests) > before)
    assert engines["live"] == ("openai", True)
    assert engines["test"] == (("openai", True) if allowed else ("template", False))


def test_white_labelling_does_not_remove_the_test_report_mark(app, client, make_key):
    """Issue 31: a test key's pages and PDFs carry a "Test report" mark that white-labelling does not remove."""
    issued = make_key("acme", livemode=False)
    with app.app_context():
        partner = db.session.get(Partner, issued.key.partner_id)
        partner.white_label, partner.brand_name = True, "Acme Security"
        db.session.commit()
    auth = bearer(issued)
    record = submit(client, auth)
    result = generate(client, auth, record["id"])
    page = client.get(view_path(result, "cfo")).get_data(as_text=True)
    assert "Stakeholder reports by" not in page   # white-labelled
    assert re.search(r'<p class="test-banner" role="note">Test report', page)
    pdf = pypdf.PdfReader(io.BytesIO(client.get(view_path(result, "cfo") + ".pdf").data))
    assert all("TEST REPORT" in p.extract_text() for p in pdf.pages)
