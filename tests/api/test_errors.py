"""Every row of CONTRACT.md's error table that applies, in the one JSON error shape."""

from __future__ import annotations

import pytest

from tests.factories import submission


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    assert "Traceback" not in response.get_data(as_text=True)
    return body


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]", b'"text"', b"", b"null", b"[" * 100000])
def test_invalid_json_is_400(client, auth, data):
    response = client.post("/api/v1/assessments", data=data, headers={**auth, "Content-Type": "application/json"})
    assert_error(response, 400, "invalid_json")


def test_wrong_content_type_is_415(client, auth):
    response = client.post("/api/v1/assessments", data="companyId=x", headers={
        **auth, "Content-Type": "application/x-www-form-urlencoded"})
    assert_error(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("header", [None, "Bearer", "Basic abc", "Bearer crs_123",
                                    "Bearer crs_" + "0" * 64, "Bearer crs_" + "A" * 64])
def test_missing_malformed_or_unknown_key_is_401(client, header):
    headers = {"Authorization": header} if header else {}
    response = client.get("/api/v1/assessments", headers=headers)
    assert_error(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_revoked_key_is_401(client, runner, make_key):
    issued = make_key()
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    assert client.get("/api/v1/assessments", headers=headers).status_code == 200
    assert runner.invoke(args=["keys", "revoke", str(issued.key.id)]).exit_code == 0
    assert_error(client.get("/api/v1/assessments", headers=headers), 401, "unauthorized")


@pytest.mark.parametrize("framework, allowed", [("ISO 27001", True), ("iso27001", True), (" Iso  27001 ", True),
                                                ("SOC 2", False)])
def test_framework_restriction(client, make_key, framework, allowed):
    key = make_key(frameworks=["ISO 27001", "HIPAA"])
    response = client.post("/api/v1/assessments", json=submission(framework=framework),
                           headers={"Authorization": f"Bearer {key.api_key}"})
    if allowed:
        assert response.status_code == 201
    else:
        assert_error(response, 403, "framework_not_allowed")


@pytest.mark.parametrize("raw_id", ["999999", "abc", "-1", "0", "1.5", "99999999999999999999999",
                                    "9223372036854775808", "١٢"])
def test_unknown_or_malformed_id_is_404(client, auth, raw_id):
    assert_error(client.get(f"/api/v1/assessments/{raw_id}", headers=auth), 404, "not_found")
    assert_error(client.delete(f"/api/v1/assessments/{raw_id}", headers=auth), 404, "not_found")


def test_unknown_api_path_is_json_404(client, auth):
    assert_error(client.get("/api/v1/nothing-here", headers=auth), 404, "not_found")


def test_wrong_method_is_json_405(client, auth):
    response = client.put("/api/v1/assessments", json={}, headers=auth)
    assert_error(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"]


def test_body_over_one_mib_is_413(client, auth):
    body = submission(industry="x" * (1024 * 1024 + 10))
    assert_error(client.post("/api/v1/assessments", json=body, headers=auth), 413, "payload_too_large")


@pytest.mark.parametrize("change, field", [
    ({"companyId": None}, "companyId"),
    ({"companyId": "has space"}, "companyId"),
    ({"companyId": "_leading"}, "companyId"),
    ({"companyId": "c" * 129}, "companyId"),
    ({"industry": ""}, "industry"),
    ({"industry": "   "}, "industry"),
    ({"industry": "x" * 201}, "industry"),
    ({"industry": "bad\x00byte"}, "industry"),
    ({"framework": None}, "framework"),
    ({"policy": "MAYBE"}, "policy"),
    ({"requirements": []}, "requirements"),
    ({"requirements": "all met"}, "requirements"),
    ({"displayName": "Client 1042", "companyId": "client-1042"}, "displayName"),
    ({"unexpected": 1}, "unexpected"),
    ({"hasPolicy": "true"}, "hasPolicy"),
    ({"hasPolicy": False}, "policy"),
    ({"frameworkName": "SOC 2"}, "framework"),
])
def test_validation_errors_are_422_with_field_paths(client, auth, change, field):
    body = submission()
    for key, value in change.items():
        if value is None:
            body.pop(key)
        else:
            body[key] = value
    body_json = assert_error(client.post("/api/v1/assessments", json=body, headers=auth), 422, "validation_error")
    assert field in body_json["details"], body_json
    assert all(isinstance(m, str) for messages in body_json["details"].values() for m in messages)


def test_requirement_errors_name_the_item(client, auth):
    reqs = [{"id": "A.1", "title": "Ok", "status": "met"},
            {"id": "A.2", "title": "Bad status", "status": "done"},
            {"id": "A.1", "title": "Duplicate", "status": "met"},
            {"id": "A.4", "title": "", "status": "met"}]
    details = assert_error(client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth),
                           422, "validation_error")["details"]
    assert "requirements.1.status" in details
    assert "requirements.3.title" in details


def test_duplicate_requirement_ids_are_422(client, auth):
    reqs = [{"id": "A.1", "title": "One", "status": "met"}, {"id": "A.1", "title": "Two", "status": "met"}]
    details = assert_error(client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth),
                           422, "validation_error")["details"]
    assert "requirements.1.id" in details


def test_too_many_requirements_is_422(client, auth):
    reqs = [{"id": f"R{i}", "title": "t", "status": "met"} for i in range(2001)]
    assert_error(client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth),
                 422, "validation_error")


def test_failed_submission_stores_nothing(client, make_key):
    auth = {"Authorization": f"Bearer {make_key(frameworks=['ISO 27001']).api_key}"}
    assert client.post("/api/v1/assessments", json=submission(policy="MAYBE"), headers=auth).status_code == 422
    assert client.post("/api/v1/assessments", json=submission(framework="SOC 2"), headers=auth).status_code == 403
    assert client.get("/api/v1/assessments", headers=auth).get_json()["items"] == []


def test_unexpected_error_is_generic_json_500(app, client, auth, monkeypatch, caplog):
    from app import assessments

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(assessments, "list_assessments", explode)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    response = client.get("/api/v1/assessments", headers=auth)
    body = assert_error(response, 500, "internal_error")
    assert "secret internals" not in response.get_data(as_text=True)
    assert body == {"error": body["error"], "code": "internal_error"}
    assert "secret internals" in caplog.text


def test_pages_outside_api_get_html_404(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
