"""Hostile or malformed portal input (issue 16): every URL, query parameter and form field answers a
clear 4xx, or the form again with its error, and never a 500."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import ApiKey, Partner, UsageRecord, WebhookDelivery
from tests.portal import make_user, page_token, sign_in


def text(response) -> str:
    return response.get_data(as_text=True)


# --------------------------------------------------------------------------- /portal/usage?month=

@pytest.mark.parametrize("month", [
    "2026-13", "2026-00", "2026-1", "26-01", "99999-01", "2026-011", "2026-01-01", "2026/01", " 2026-01", "-2026-01",
    "9" * 400, "2026-" + "1" * 400, "x", "٢٠٢٦-٠١", "２０２６-０１", "2026-٠١", "¹⁹⁹⁹-01",
])
def test_a_month_that_is_not_a_month_is_a_400(signed_in, month):
    response = signed_in.get("/portal/usage", query_string={"month": month})
    assert response.status_code == 400, month
    assert "That request could not be handled" in text(response)


@pytest.mark.parametrize("month", ["9999-12", "0000-01", "1999-12", "0001-01"])
def test_a_month_the_service_has_no_page_for_is_a_404(signed_in, month):
    response = signed_in.get("/portal/usage", query_string={"month": month})
    assert response.status_code == 404, month
    assert "Page not found" in text(response)


def test_the_edges_of_the_months_that_have_pages(app, signed_in, make_key):
    key = make_key("Acme Security", name="Production").key
    with app.app_context():
        db.session.add(UsageRecord(assessment_id=1, partner_id=key.partner_id, api_key_id=key.id, reports=3,
                                   created_at=datetime(2000, 1, 31, 23, 59, tzinfo=UTC)))
        db.session.commit()
    first = signed_in.get("/portal/usage?month=2000-01")
    assert first.status_code == 200 and "January 2000" in text(first) and "30 USD" in text(first)
    last = signed_in.get("/portal/usage?month=9999-11")
    assert last.status_code == 200 and "November 9999" in text(last)
    assert signed_in.get("/portal/usage?month=").status_code == 200  # no month: this month


# --------------------------------------------------------------------------- ids and other query parameters

@pytest.mark.parametrize("page", ["²", "١", "99999999999999999999999", "-1", "0", "1e3", "", "x"])
def test_an_odd_page_number_shows_a_page(signed_in, page):
    response = signed_in.get("/portal/assessments", query_string={"page": page})
    assert response.status_code == 200 and "No assessments yet" in text(response)


@pytest.mark.parametrize("key_id", ["١", "１", "9223372036854775808", "99999999999999999999999", "0", "-1", "abc",
                                    "1.0", "%00"])
def test_a_key_id_that_is_not_an_id_is_a_404(app, signed_in, make_key, key_id):
    make_key("Acme Security", name="Production")  # id 1: "١" and "１" are not other spellings of it
    for action in ("edit", "revoke", "rotate-secret"):
        path = f"/portal/keys/{key_id}/{action}"
        assert signed_in.get(path).status_code == 404, path
        assert signed_in.post(path, data={"csrf_token": page_token(signed_in, "/portal/keys")}).status_code == 404
    with app.app_context():
        assert db.session.scalar(select(ApiKey.revoked_at)) is None


@pytest.mark.parametrize("delivery_id", ["%00", "dlv_%00", "x" * 41, "dlv_one%0a", "%E2%80%8B"])
def test_a_delivery_id_that_cannot_be_one_is_a_404(app, signed_in, make_key, delivery_id):
    key = make_key("Acme Security", name="Production").key
    with app.app_context():
        db.session.add(WebhookDelivery(id="dlv_one", partner_id=key.partner_id, api_key_id=key.id, assessment_id=7,
                                       event="assessment.reports.completed", url="https://hooks.acme.example/",
                                       body=b"{}", event_at="x", status="failed"))
        db.session.commit()
    token = page_token(signed_in, "/portal/webhooks")
    response = signed_in.post(f"/portal/webhooks/{delivery_id}/redeliver", data={"csrf_token": token})
    assert response.status_code == 404
    with app.app_context():
        assert db.session.scalar(select(WebhookDelivery.status)) == "failed"


def test_redelivering_a_pending_delivery_says_so_in_the_page(app, signed_in, make_key):
    key = make_key("Acme Security", name="Production").key
    with app.app_context():
        db.session.add(WebhookDelivery(id="dlv_busy", partner_id=key.partner_id, api_key_id=key.id, assessment_id=7,
                                       event="assessment.reports.completed", url="https://hooks.acme.example/",
                                       body=b"{}", event_at="x", status="pending", round_attempts=1))
        db.session.commit()
    response = signed_in.post("/portal/webhooks/dlv_busy/redeliver",
                              data={"csrf_token": page_token(signed_in, "/portal/webhooks")})
    assert response.status_code == 302 and response.mimetype == "text/html"  # not the API's JSON error
    assert "still has a round of attempts queued or in progress" in text(signed_in.get("/portal/webhooks"))
    with app.app_context():
        assert db.session.scalar(select(WebhookDelivery.round_attempts)) == 1


# --------------------------------------------------------------------------- form fields

def key_form(client, path="/portal/keys/new", **fields):
    data = {"name": "Production", "tier": "standard", "frameworks": "", "webhook_url": ""}
    return client.post(path, data={**data, **fields, "csrf_token": page_token(client, path)})


def brand_form(client, **fields):
    data = {"embed_origins": "", "brand_name": "", "brand_color": "", "brand_logo": (io.BytesIO(b""), "")}
    return client.post("/portal/brand", content_type="multipart/form-data",
                       data={**data, **fields, "csrf_token": page_token(client, "/portal/brand")})


@pytest.mark.parametrize("field, value, message", [
    ("name", "Prod\x00uction", "Remove the control characters"),
    ("name", "Prod\x1buction", "Remove the control characters"),
    ("frameworks", "ISO\x0027001", "Remove the control characters"),
    ("webhook_url", "https://hooks\x00.acme.example/", "Remove the control characters"),
    ("webhook_url", "http://[::1", "not a valid URL"),
    ("webhook_url", "https://" + "a" * 300 + ".example/", "is not a valid host name"),
])
def test_key_form_fields_with_control_characters_or_broken_urls_are_field_errors(app, signed_in, field, value,
                                                                                message):
    response = key_form(signed_in, **{field: value})
    assert response.status_code == 200 and message in text(response), text(response)[:2000]
    assert 'aria-invalid="true"' in text(response)
    with app.app_context():
        assert db.session.scalar(select(ApiKey.id)) is None


@pytest.mark.parametrize("field, value, message", [
    ("embed_origins", "https://portal\x00.example", "Remove the control characters"),
    ("embed_origins", "https://portal.example\x1b", "Remove the control characters"),
    ("brand_name", "Acme\x00", "control characters"),
    ("brand_color", "#1a73e8\x00", "Accent colour must be a hex colour"),
])
def test_brand_form_fields_with_control_characters_are_field_errors(app, signed_in, field, value, message):
    response = brand_form(signed_in, **{"brand_name": "Acme", **{field: value}})
    assert response.status_code == 200 and message in text(response), text(response)[:2000]
    assert 'aria-invalid="true"' in text(response)
    with app.app_context():
        partner = db.session.scalar(select(Partner))
        assert (partner.brand_name, partner.brand_color, partner.embed_origins) == (None, None, [])


def test_the_edit_form_refuses_the_same(app, signed_in, make_key):
    key = make_key("Acme Security", name="Production").key
    response = key_form(signed_in, f"/portal/keys/{key.id}/edit", name="Ops\x00", webhook_url="http://[::1")
    assert response.status_code == 200 and "Remove the control characters" in text(response)
    with app.app_context():
        assert db.session.get(ApiKey, key.id).name == "Production"


def test_missing_fields_are_field_errors_or_keep_their_values(app, signed_in, make_key):
    token = page_token(signed_in, "/portal/keys/new")
    response = signed_in.post("/portal/keys/new", data={"csrf_token": token})
    assert response.status_code == 200 and "Give the key a name." in text(response)
    key = make_key("Acme Security", name="Production", frameworks=["SOC 2"]).key
    edit = signed_in.post(f"/portal/keys/{key.id}/edit", data={"csrf_token": token, "name": "Ops"})
    assert edit.status_code == 302  # the fields not sent keep the key's current settings
    with app.app_context():
        stored = db.session.get(ApiKey, key.id)
        assert (stored.name, stored.tier, stored.frameworks) == ("Ops", "standard", ["SOC 2"])


def test_an_uploaded_file_is_never_a_form_field(app, signed_in):
    token = page_token(signed_in, "/portal/keys/new")
    response = signed_in.post("/portal/keys/new", data={
        "csrf_token": token, "tier": "standard", "name": (io.BytesIO(b"Production"), "name.txt")})
    assert response.status_code == 200 and "Give the key a name." in text(response)
    with app.app_context():
        assert db.session.scalar(select(ApiKey.id)) is None


def test_an_uploaded_file_is_never_a_brand_form_field(app, signed_in):
    response = brand_form(signed_in, brand_name=(io.BytesIO(b"Evil Corp"), "name.txt"),
                          embed_origins=(io.BytesIO(b"https://evil.example"), "origins.txt"))
    assert response.status_code == 303   # saved as sent: the files are not its text fields
    with app.app_context():
        partner = db.session.scalar(select(Partner))
        assert (partner.brand_name, partner.embed_origins) == (None, [])


@pytest.mark.parametrize("body", [{"brand_name": 5}, {"embed_origins": ["https://portal.example"]},
                                  {"brand_color": None}, {"white_label": True}])
def test_a_json_brand_form_with_non_text_fields_is_a_400(app, signed_in, body):
    token = page_token(signed_in, "/portal/brand")
    response = signed_in.post("/portal/brand", json=body, headers={"X-CSRFToken": token})
    assert response.status_code == 400
    with app.app_context():
        partner = db.session.scalar(select(Partner))
        assert (partner.brand_name, partner.brand_color, partner.white_label, partner.embed_origins) == (
            None, None, False, [])


@pytest.mark.parametrize("body", [{"name": 5, "tier": "standard"}, {"name": "Production", "tier": ["standard"]},
                                  {"name": None, "tier": "standard"}])
def test_a_json_key_form_with_non_text_fields_is_a_400(app, signed_in, body):
    token = page_token(signed_in, "/portal/keys/new")
    response = signed_in.post("/portal/keys/new", json=body, headers={"X-CSRFToken": token})
    assert response.status_code == 400
    with app.app_context():
        assert db.session.scalar(select(ApiKey.id)) is None


def test_an_email_with_a_control_character_is_a_failed_sign_in(app, client):
    make_user(app)
    for email in ("ann@acme.example\x00", "ann\x00@acme.example", "ann@acme.example\x1b"):
        response = sign_in(client, email)
        assert response.status_code == 200, email
        assert client.get("/portal/keys").status_code == 302
