"""A key's request log: every authenticated API request of the last 7 days (a refused one included) with its status,
error code, duration and Idempotency-Key, never a body; searchable by status; erased with the assessment it names;
pruned to 7 days and a per-key cap."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from app import requests_log
from app.extensions import db
from app.models import RequestLog, utcnow
from tests.embed import submit
from tests.portal import words


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def test_the_log_shows_each_request_with_its_status_error_code_and_idempotency_key(app, signed_in, make_key):
    issued = make_key("Acme Security", name="Production", frameworks=["ISO 27001"])
    api = app.test_client()
    record = submit(api, {**bearer(issued), "Idempotency-Key": "order-1042"}, displayName="Harbour Dental")
    refused = api.post("/api/v1/assessments", json={"framework": "HIPAA"}, headers=bearer(issued))
    assert refused.status_code in (403, 422)
    assert api.get(f"/api/v1/assessments/{record['id']}", headers=bearer(issued)).status_code == 200
    assert api.get("/api/v1/assessments", headers={"Authorization": "Bearer crs_" + "0" * 64}).status_code == 401
    page = signed_in.get(f"/portal/keys/{issued.key.id}/requests")
    shown = words(page)
    assert page.status_code == 200
    assert "POST /api/v1/assessments 201" in shown and "order-1042" in shown
    assert f"POST /api/v1/assessments {refused.status_code} {refused.get_json()['code']}" in shown
    assert f"GET /api/v1/assessments/{record['id']} #{record['id']} 200" in shown
    assert "Harbour Dental" not in shown and "HIPAA" not in shown          # never a body
    errors = words(signed_in.get(f"/portal/keys/{issued.key.id}/requests?status=errors"))
    assert refused.get_json()["code"] in errors and " 201 " not in errors and " 200 " not in errors
    failed = signed_in.get(f"/portal/keys/{issued.key.id}/requests?status=5xx")
    assert "No request matches this filter." in words(failed)
    assert f'href="/portal/keys/{issued.key.id}/requests"' in signed_in.get("/portal/keys").get_data(as_text=True)


def test_another_partners_key_log_is_404_and_an_unknown_key_too(signed_in, make_key):
    theirs = make_key("Globex")
    assert signed_in.get(f"/portal/keys/{theirs.key.id}/requests").status_code == 404
    assert signed_in.get("/portal/keys/999999/requests").status_code == 404


def test_erasing_an_assessment_erases_the_rows_that_name_it(app, signed_in, make_key):
    issued = make_key("Acme Security")
    api = app.test_client()
    record = submit(api, bearer(issued))
    api.get(f"/api/v1/assessments/{record['id']}", headers=bearer(issued))
    assert api.delete(f"/api/v1/assessments/{record['id']}", headers=bearer(issued)).status_code == 204
    with app.app_context():
        paths = list(db.session.scalars(select(RequestLog.path).order_by(RequestLog.id)))
        named = db.session.scalar(select(func.count()).where(RequestLog.assessment_id == record["id"]))
    assert named == 0 and not any(f"/{record['id']}" in path for path in paths)
    assert paths == ["/api/v1/assessments", "/api/v1/assessments/<erased>"]


def test_rows_older_than_seven_days_and_beyond_the_cap_are_pruned(app, make_key, monkeypatch):
    issued = make_key("Acme Security")
    with app.app_context():
        db.session.add(RequestLog(api_key_id=issued.key.id, at=utcnow() - timedelta(days=8), method="GET",
                                  path="/api/v1/old", status=200, duration_ms=1))
        db.session.commit()
    monkeypatch.setattr(requests_log, "PRUNE_EVERY", 1)
    monkeypatch.setattr(requests_log, "REQUEST_LOG_MAX_PER_KEY", 3)
    api = app.test_client()
    for _ in range(5):
        api.get("/api/v1/usage", headers=bearer(issued))
    with app.app_context():
        paths = list(db.session.scalars(select(RequestLog.path)))
    assert paths == ["/api/v1/usage"] * 3
