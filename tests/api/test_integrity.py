"""Ids are never handed out twice, usage is billed per partner, and what the logs may carry."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import insert, select

from app.extensions import db as database
from app.models import Report, Requirement, UsageRecord, utcnow
from tests.factories import submission


def _submit(client, auth) -> dict:
    response = client.post("/api/v1/assessments", json=submission(), headers=auth)
    assert response.status_code == 201
    return response.get_json()


def _bearer(make_key, partner: str, **settings) -> dict:
    return {"Authorization": f"Bearer {make_key(partner, **settings).api_key}"}


def _ids(app, column, assessment_id: int) -> set[int]:
    """Read in an app context of its own: requests made inside one would share its `g`, and so its key."""
    with app.app_context():
        return set(database.session.scalars(select(column.table.c.id).where(column == assessment_id)))


def test_the_id_of_a_deleted_assessment_is_never_handed_out_again(app, client, make_key):
    acme, globex = _bearer(make_key, "acme"), _bearer(make_key, "globex")
    first = _submit(client, acme)
    newest = _submit(client, acme)
    assert client.post(f"/api/v1/assessments/{newest['id']}/generate", headers=acme).status_code == 200
    gone_reports = _ids(app, Report.assessment_id, newest["id"])
    gone_requirements = _ids(app, Requirement.assessment_id, newest["id"])
    assert client.delete(f"/api/v1/assessments/{newest['id']}", headers=acme).status_code == 204

    other = _submit(client, globex)
    assert other["id"] > newest["id"] > first["id"]
    assert client.get(f"/api/v1/assessments/{newest['id']}", headers=globex).status_code == 404
    assert client.post(f"/api/v1/assessments/{other['id']}/generate", headers=globex).status_code == 200
    reports = _ids(app, Report.assessment_id, other["id"])
    requirements = _ids(app, Requirement.assessment_id, other["id"])
    assert len(reports) == 25 and min(reports) > max(gone_reports)
    assert min(requirements) > max(gone_requirements)


def test_every_table_keeps_its_ids_on_sqlite(backend):
    if backend != "sqlite":
        pytest.skip("Postgres sequences never go back; SQLite needs AUTOINCREMENT")
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


def test_a_run_is_billed_to_its_own_partner_even_where_an_old_row_has_its_assessment_id(app, client, make_key):
    """Rows from before ids were kept (an erased assessment whose id SQLite handed out again)."""
    acme_key, globex_key = make_key("acme"), make_key("globex")
    globex = {"Authorization": f"Bearer {globex_key.api_key}"}
    theirs = _submit(client, globex)
    with app.app_context():
        database.session.execute(insert(UsageRecord).values(
            assessment_id=theirs["id"], partner_id=acme_key.key.partner_id, api_key_id=acme_key.key.id, reports=7,
            created_at=utcnow(), updated_at=utcnow()))
        database.session.commit()
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


def test_log_lines_escape_every_control_character_a_request_can_carry(app, caplog):
    """Issue 31: only CR and LF were escaped; a NUL or an ESC sequence from a URL reached the log as is."""
    with caplog.at_level(logging.INFO):
        logging.getLogger("app.embed").warning("page %s: %s", "/embed/x\x00y", "\x1b[31mred\x1b[0m\x07\x7f\x9b\tz")
    assert caplog.messages == ["page /embed/x\\x00y: \\x1b[31mred\\x1b[0m\\x07\\x7f\\x9b\\tz"]


def test_database_error_logs_never_carry_tokens_or_partner_data(client, auth, caplog, monkeypatch):
    """A (192-bit, so never seen) token collision: the database refuses the row and quotes its values."""
    first = _submit(client, auth)
    monkeypatch.setattr("app.assessments.new_token", lambda: first["embedToken"])
    with caplog.at_level(logging.INFO):
        response = client.post("/api/v1/assessments", json=submission(companyId="client_9"), headers=auth)
    assert response.status_code == 500 and response.get_json()["code"] == "internal_error"
    logged = caplog.text + "".join(str(r.exc_info) for r in caplog.records)
    assert "unhandled database error on POST /api/v1/assessments" in logged and "IntegrityError" in logged
    assert first["embedToken"] not in logged and "client_9" not in logged and "Healthcare" not in logged
