"""Ids are never handed out twice, usage is billed per partner, and what the logs may carry."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from app.models import Assessment, Report, Requirement, UsageRecord, utcnow
from tests.factories import submission


def _submit(client, auth) -> dict:
    response = client.post("/api/v1/assessments", json=submission(), headers=auth)
    assert response.status_code == 201
    return response.get_json()


def _bearer(make_key, partner: str, **settings) -> dict:
    return {"Authorization": f"Bearer {make_key(partner, **settings).api_key}"}


def test_the_id_of_a_deleted_assessment_is_never_handed_out_again(app, client, db, make_key):
    acme, globex = _bearer(make_key, "acme"), _bearer(make_key, "globex")
    first = _submit(client, acme)
    newest = _submit(client, acme)
    assert client.post(f"/api/v1/assessments/{newest['id']}/generate", headers=acme).status_code == 200
    gone_reports = set(db.session.scalars(select(Report.id).where(Report.assessment_id == newest["id"])))
    gone_requirements = set(db.session.scalars(select(Requirement.id).where(Requirement.assessment_id == newest["id"])))
    db.session.remove()
    assert client.delete(f"/api/v1/assessments/{newest['id']}", headers=acme).status_code == 204

    other = _submit(client, globex)
    assert other["id"] > newest["id"] > first["id"]
    assert client.get(f"/api/v1/assessments/{newest['id']}", headers=globex).status_code == 404
    assert client.post(f"/api/v1/assessments/{other['id']}/generate", headers=globex).status_code == 200
    reports = set(db.session.scalars(select(Report.id).where(Report.assessment_id == other["id"])))
    requirements = set(db.session.scalars(select(Requirement.id).where(Requirement.assessment_id == other["id"])))
    assert len(reports) == 25 and min(reports) > max(gone_reports)
    assert min(requirements) > max(gone_requirements)


def test_every_table_keeps_its_ids_on_sqlite(app, db, backend):
    if backend != "sqlite":
        pytest.skip("Postgres sequences never go back; SQLite needs AUTOINCREMENT")
    from app.extensions import db as database

    for table in database.metadata.sorted_tables:
        assert table.dialect_options["sqlite"]["autoincrement"], table.name


def test_usage_survives_erasure_and_never_shows_another_partner(client, make_key):
    acme_key, globex_key = make_key("acme"), make_key("globex")
    acme = {"Authorization": f"Bearer {acme_key.api_key}"}
    globex = {"Authorization": f"Bearer {globex_key.api_key}"}
    erased = _submit(client, acme)
    assert client.post(f"/api/v1/assessments/{erased['id']}/generate", headers=acme).status_code == 200
    assert client.delete(f"/api/v1/assessments/{erased['id']}", headers=acme).status_code == 204
    theirs = _submit(client, globex)
    assert client.post(f"/api/v1/assessments/{theirs['id']}/generate", headers=globex).status_code == 200
    assert client.post(f"/api/v1/assessments/{theirs['id']}/generate", headers=globex).status_code == 200  # not again

    acme_usage = client.get("/api/v1/usage", headers=acme).get_json()
    globex_usage = client.get("/api/v1/usage", headers=globex).get_json()
    assert acme_usage["total"] == {"assessments": 1, "reports": 25, "amount": 250}
    assert [k["keyId"] for k in acme_usage["keys"]] == [acme_key.key.id]
    assert globex_usage["total"] == {"assessments": 1, "reports": 25, "amount": 250}
    assert [k["keyId"] for k in globex_usage["keys"]] == [globex_key.key.id]


def test_a_run_is_billed_to_its_own_partner_even_where_an_old_row_has_its_assessment_id(client, db, make_key):
    """Rows from before ids were kept (an erased assessment whose id SQLite handed out again)."""
    acme_key, globex_key = make_key("acme"), make_key("globex")
    globex = {"Authorization": f"Bearer {globex_key.api_key}"}
    theirs = _submit(client, globex)
    db.session.execute(insert(UsageRecord).values(assessment_id=theirs["id"], partner_id=acme_key.key.partner_id,
                                                  api_key_id=acme_key.key.id, reports=7, created_at=utcnow(),
                                                  updated_at=utcnow()))
    db.session.commit()
    assert client.post(f"/api/v1/assessments/{theirs['id']}/generate", headers=globex).status_code == 200

    acme_usage = client.get("/api/v1/usage", headers={"Authorization": f"Bearer {acme_key.api_key}"}).get_json()
    assert acme_usage["total"] == {"assessments": 1, "reports": 7, "amount": 70}
    assert [k["keyId"] for k in acme_usage["keys"]] == [acme_key.key.id]
    assert client.get("/api/v1/usage", headers=globex).get_json()["keys"] == [
        {"keyId": globex_key.key.id, "key": globex_key.key.masked, "assessments": 1, "reports": 25, "amount": 250}]


def test_a_record_answers_304_while_it_is_unchanged(client, auth):
    record = _submit(client, auth)
    url = f"/api/v1/assessments/{record['id']}"
    first = client.get(url, headers=auth)
    etag = first.headers["ETag"]
    unchanged = client.get(url, headers={**auth, "If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.data == b""
    assert unchanged.headers["X-RateLimit-Limit"]  # still a counted, authenticated request
    client.post(f"{url}/generate", headers=auth)
    changed = client.get(url, headers={**auth, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.get_json()["status"] == "completed"
    assert changed.headers["ETag"] != etag


@pytest.mark.parametrize("raw", ["0", "abc", "99999999999999999999999", "9223372036854775808", "1.0", "-1", "١"])
def test_a_bad_id_is_404_after_authentication(client, auth, raw):
    assert client.get(f"/api/v1/assessments/{raw}").status_code == 401  # no key: 401 first, as for any id
    response = client.get(f"/api/v1/assessments/{raw}", headers=auth)
    assert response.status_code == 404 and response.get_json()["code"] == "not_found"
    assert response.headers["X-RateLimit-Remaining"]
    assert client.delete(f"/api/v1/assessments/{raw}", headers=auth).status_code == 404


@pytest.mark.parametrize("company_id", ["client_1\n", "client_1\r\n", "\nclient_1", "client\n1"])
def test_a_company_id_with_a_line_break_is_refused(client, auth, company_id):
    response = client.post("/api/v1/assessments", json=submission(companyId=company_id), headers=auth)
    assert response.status_code == 422 and "companyId" in response.get_json()["details"]


def test_log_lines_escape_line_breaks_in_values(app, caplog):
    with caplog.at_level(logging.INFO):
        logging.getLogger("app.generation.service").warning("report for persona %s failed: %s", "cfo",
                                                           "bad\r\n2026-01-01 ERROR forged line")
    assert caplog.messages == ["report for persona cfo failed: bad\\r\\n2026-01-01 ERROR forged line"]


def test_database_errors_never_carry_tokens_or_content(client, auth, db):
    record = _submit(client, auth)
    client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    view_token = db.session.scalar(select(Report.view_token).where(Report.assessment_id == record["id"]))
    with pytest.raises(IntegrityError) as raised:
        db.session.execute(insert(Report).values(assessment_id=record["id"], position=99, persona="cfo-copy",
                                                 view_token=view_token, status="completed",
                                                 content={"summary": "secret report text"}, view_count=0))
    db.session.rollback()
    assert view_token not in str(raised.value) and "secret report text" not in str(raised.value)
    with pytest.raises(IntegrityError) as raised:  # a second assessment with the same embed token
        db.session.execute(insert(Assessment).values(
            partner_id=1, api_key_id=1, external_company_id="client_9", industry="Retail", framework="SOC 2",
            has_policy=True, status="submitted", compliance_score=0, count_met=0, count_not_met=1,
            count_partially_met=0, embed_token=record["embedToken"], created_at=utcnow(), updated_at=utcnow()))
    db.session.rollback()
    assert record["embedToken"] not in str(raised.value) and "client_9" not in str(raised.value)
