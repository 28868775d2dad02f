"""Hostile and broken input: a clear 4xx in the JSON error shape, and nothing stored half-way."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import func, inspect, select

from app.models import Assessment, Requirement
from tests.factories import submission


def stored(db) -> tuple[int, int]:
    return (db.session.scalar(select(func.count()).select_from(Assessment)),
            db.session.scalar(select(func.count()).select_from(Requirement)))


def post_raw(client, auth, data: bytes | str, content_type: str = "application/json"):
    return client.post("/api/v1/assessments", data=data, headers={**auth, "Content-Type": content_type})


@pytest.mark.parametrize("data, status, code", [
    ('{"a":' * 5000 + "1" + "}" * 5000, 400, "invalid_json"),          # deep nesting past the parser's limit
    ("[" * 200000, 400, "invalid_json"),
    (b"\xff\xfe\x00garbage", 400, "invalid_json"),                       # not UTF-8
    ('{"companyId": "c1", "companyId": ', 400, "invalid_json"),
    ("NaN", 400, "invalid_json"),
    ('{"industry": ' + "[" * 50 + "]" * 50 + "}", 422, "validation_error"),
])
def test_broken_bodies(client, auth, db, data, status, code):
    response = post_raw(client, auth, data)
    assert response.status_code == status and response.get_json()["code"] == code
    assert stored(db) == (0, 0)


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "multipart/form-data; boundary=x"])
def test_wrong_content_types(client, auth, db, content_type):
    response = post_raw(client, auth, json.dumps(submission()), content_type)
    assert response.status_code == 415 and response.get_json()["code"] == "unsupported_media_type"
    assert stored(db) == (0, 0)


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_wrong_methods(client, auth, method):
    for path in ("/api/v1/assessments", "/api/v1/assessments/1", "/api/v1/usage"):
        response = client.open(path, method=method, json={}, headers=auth)
        assert response.status_code == 405 and response.get_json()["code"] == "method_not_allowed"


def test_over_large_body_stores_nothing(client, auth, db):
    reqs = [{"id": f"R{i}", "title": "x" * 480, "status": "met"} for i in range(2000)]
    response = client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth)
    assert response.status_code == 413 and response.get_json()["code"] == "payload_too_large"
    assert stored(db) == (0, 0)


@pytest.mark.parametrize("value", ["bad\x00byte", "bell\x07", "\ud800 lone surrogate", "esc\x1b[31m"])
def test_control_characters_and_lone_surrogates_are_refused(client, auth, db, value):
    body = json.dumps(submission(industry=value))
    response = post_raw(client, auth, body)
    assert response.status_code == 422 and "industry" in response.get_json()["details"]
    reqs = [{"id": "A.1", "title": value, "status": "met"}]
    response = client.post("/api/v1/assessments", data=json.dumps(submission(requirements=reqs)),
                           headers={**auth, "Content-Type": "application/json"})
    assert response.status_code == 422 and "requirements.0.title" in response.get_json()["details"]
    assert stored(db) == (0, 0)


@pytest.mark.parametrize("body", ['{"\\ud800x": 1}', '{"companyId": "c", "\\udfff": {"\\ud800": 2}}'])
def test_a_lone_surrogate_in_a_key_is_a_422_that_names_it(client, auth, db, body):
    """Issue 31: the 422 for an unknown field named with a lone surrogate failed while it was being written."""
    response = post_raw(client, auth, body)
    assert response.status_code == 422 and response.get_json()["code"] == "validation_error"
    assert response.data.decode("utf-8")   # valid UTF-8: the surrogate is written as JSON's escape
    assert any(key.startswith(("\ud800", "\udfff")) for key in response.get_json()["details"])
    assert stored(db) == (0, 0)


def test_a_nul_in_a_path_or_query_is_a_4xx_on_every_database(client, auth, db):
    """Issue 31: on Postgres a NUL in a persona or token path reached the database and answered 500."""
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    aid, token = record["id"], record["embedToken"]
    assert client.post(f"/api/v1/assessments/{aid}/generate", headers=auth).status_code == 200
    for path in (f"/api/v1/assessments/{aid}/reports/ceo%00", f"/api/v1/assessments/{aid}/reports/%00.pdf",
                 f"/api/v1/assessments/{aid}%00", f"/embed/assessment/{token}%00", f"/embed/assessment/%00{token}",
                 f"/embed/assessment/{token}/ceo_president%00", f"/embed/assessment/{token}/%00.pdf"):
        response = client.get(path, headers=auth)
        assert response.status_code == 404, path
    for query in ("framework=%00", "companyId=a%00b", "cursor=%00", "industry=x%00", "a%00=1"):
        response = client.get(f"/api/v1/assessments?{query}", headers=auth)
        assert response.status_code == 422 and response.get_json()["code"] == "validation_error", query
        assert query.split("=")[0].replace("%00", "\x00") in response.get_json()["details"], query
        assert response.headers["X-RateLimit-Remaining"], query   # counted like any other request
    page = client.get(f"/embed/assessment/{token}?persona=%00")   # a page reads what it can of its query
    assert page.status_code < 500 and page.mimetype == "text/html"


def test_odd_unicode_round_trips_exactly(client, auth):
    odd = {
        "industry": "Santé & soins — 医療 🏥 ‏עברית‎",
        "framework": "ISO/IEC 27001:2022 – Annex A",
        "displayName": "Zoë's Ärzte GmbH 👩‍⚕️",
        "requirements": [{"id": "A.5.15", "title": "Contrôle d'accès\nsecond line\twith tab", "status": "not_met"},
                         {"id": "§ 164.308(a)(1)", "title": "e\u0301" * 200, "status": "met"}],
    }
    response = client.post("/api/v1/assessments", json=submission(**odd), headers=auth)
    assert response.status_code == 201
    record = client.get(response.headers["Location"], headers=auth).get_json()
    for field in ("industry", "framework", "displayName"):
        assert record[field] == odd[field]
    assert [r["title"] for r in record["requirements"]] == [r["title"] for r in odd["requirements"]]
    generated = client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    assert generated.status_code == 200 and generated.get_json()["failedReports"] == 0


def test_sql_looking_strings_are_just_text(client, auth, db):
    sql = "'; DROP TABLE assessments; --"
    response = client.post("/api/v1/assessments", json=submission(
        industry=sql, framework="x' OR '1'='1", displayName='Robert"); DELETE FROM requirements; --',
        requirements=[{"id": "1 OR 1=1", "title": sql, "status": "met"}]), headers=auth)
    assert response.status_code == 201
    assert {"assessments", "requirements"} <= set(inspect(db.engine).get_table_names())
    record = client.get(response.headers["Location"], headers=auth).get_json()
    assert record["industry"] == sql and record["requirements"][0]["id"] == "1 OR 1=1"
    assert client.get("/api/v1/assessments?cursor=' OR 1=1 --", headers=auth).status_code == 422


def test_lengths_at_and_past_the_limits(client, auth):
    at_limit = submission(companyId="c" * 128, industry="i" * 200, framework="f" * 200, displayName="d" * 200,
                          requirements=[{"id": "r" * 64, "title": "t" * 500, "status": "met"}])
    assert client.post("/api/v1/assessments", json=at_limit, headers=auth).status_code == 201
    for field, value in (("industry", "i" * 201), ("framework", "f" * 201), ("displayName", "d" * 201)):
        response = client.post("/api/v1/assessments", json=submission(**{field: value}), headers=auth)
        assert response.status_code == 422 and field in response.get_json()["details"]
    too_long = [{"id": "r" * 65, "title": "t" * 501, "status": "met"}]
    details = client.post("/api/v1/assessments", json=submission(requirements=too_long),
                          headers=auth).get_json()["details"]
    assert {"requirements.0.id", "requirements.0.title"} <= set(details)


def test_wrong_json_types_everywhere(client, auth, db):
    body = {"companyId": 5, "industry": True, "framework": {}, "policy": [], "requirements": {"id": "x"},
            "displayName": 3.5}
    details = client.post("/api/v1/assessments", json=body, headers=auth).get_json()["details"]
    assert {"companyId", "industry", "framework", "policy", "requirements", "displayName"} <= set(details)
    assert stored(db) == (0, 0)


DEEP = '{"a":' * 5000 + "1" + "}" * 5000


def test_deeply_nested_json_is_a_4xx_on_every_endpoint_that_reads_json(app, client, auth, db):
    """Issue 31: every route that takes a body, API and portal, answers a body past the parser's depth with a
    4xx in its own shape, never a 500."""
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    routes = [rule for rule in app.url_map.iter_rules() if {"POST", "PATCH", "PUT"} & set(rule.methods or ())]
    assert len(routes) > 5
    for rule in routes:
        path = rule.rule
        for name in rule.arguments:
            path = path.replace(f"<{name}>", "1").replace(f"<int:{name}>", str(record["id"]))
            path = re.sub(r"<[^>]*:" + name + ">", str(record["id"]), path)
        for method in sorted({"POST", "PATCH", "PUT"} & set(rule.methods)):
            response = client.open(path, method=method, data=DEEP,
                                   headers={**auth, "Content-Type": "application/json"})
            assert response.status_code < 500, (method, path, response.status_code)
