"""Submitting, reading, listing and erasing assessments, as a partner does."""

from __future__ import annotations

import pytest

from tests.factories import submission


def test_submit_in_spec_spelling_answers_201_with_record_and_location(client, auth):
    response = client.post("/api/v1/assessments", json=submission(displayName="Acme Health"), headers=auth)
    assert response.status_code == 201
    record = response.get_json()
    assert response.headers["Location"] == f"/api/v1/assessments/{record['id']}"
    assert record["externalCompanyId"] == "client_1042"
    assert record["framework"] == "ISO 27001"
    assert record["policy"] == "YES" and record["hasPolicy"] is True
    assert record["displayName"] == "Acme Health"
    assert record["requirementCounts"] == {"met": 2, "not_met": 1, "partially_met": 1, "total": 4}
    assert record["complianceScore"] == 62.5  # (2 + 0.5) / 4
    assert record["status"] == "submitted"
    assert record["methodology"] is None and record["reports"] == [] and record["generatedAt"] is None
    assert record["requirements"][0] == {"id": "A.5.15", "title": "Access control", "status": "not_met"}
    assert len(record["embedToken"]) >= 32
    assert record["embedUrl"] == f"http://localhost/embed/assessment/{record['embedToken']}"
    assert record["createdAt"].endswith("Z")


def test_submit_in_second_spelling(client, auth):
    body = submission()
    body["frameworkName"] = body.pop("framework")
    del body["policy"]
    body["hasPolicy"] = False
    response = client.post("/api/v1/assessments", json=body, headers=auth)
    assert response.status_code == 201
    record = response.get_json()
    assert record["framework"] == "ISO 27001"
    assert record["policy"] == "NO" and record["hasPolicy"] is False
    assert record["displayName"] is None


@pytest.mark.parametrize("value, expected", [("yes", True), ("No", False), ("NO", False)])
def test_policy_is_case_insensitive(client, auth, value, expected):
    response = client.post("/api/v1/assessments", json=submission(policy=value), headers=auth)
    assert response.status_code == 201
    assert response.get_json()["hasPolicy"] is expected


def test_both_spellings_agreeing_is_accepted(client, auth):
    body = submission(frameworkName="ISO 27001", hasPolicy=True)
    assert client.post("/api/v1/assessments", json=body, headers=auth).status_code == 201


def test_score_counts_partially_met_as_half(client, auth):
    reqs = [{"id": f"R{i}", "title": f"Control {i}", "status": s}
            for i, s in enumerate(["met", "partially_met", "partially_met"])]
    record = client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth).get_json()
    assert record["complianceScore"] == 66.7


def test_get_returns_the_record(client, auth):
    created = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    response = client.get(f"/api/v1/assessments/{created['id']}", headers=auth)
    assert response.status_code == 200
    assert response.get_json() == created


def test_list_is_newest_first_with_cursor_pagination(client, auth):
    ids = [client.post("/api/v1/assessments", json=submission(companyId=f"client_{i}"), headers=auth)
           .get_json()["id"] for i in range(5)]
    first = client.get("/api/v1/assessments?limit=2", headers=auth).get_json()
    assert [item["id"] for item in first["items"]] == ids[::-1][:2]
    assert "requirements" not in first["items"][0] and "reports" not in first["items"][0]
    assert first["items"][0]["requirementCounts"]["total"] == 4
    second = client.get(f"/api/v1/assessments?limit=2&cursor={first['nextCursor']}", headers=auth).get_json()
    assert [item["id"] for item in second["items"]] == ids[::-1][2:4]
    third = client.get(f"/api/v1/assessments?limit=2&cursor={second['nextCursor']}", headers=auth).get_json()
    assert [item["id"] for item in third["items"]] == ids[:1]
    assert third["nextCursor"] is None


def test_list_default_page_and_empty(client, auth):
    assert client.get("/api/v1/assessments", headers=auth).get_json() == {"items": [], "nextCursor": None}


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=abc", "limit=2.5", "cursor=garbage!", "color=red"])
def test_list_rejects_bad_query(client, auth, query):
    response = client.get(f"/api/v1/assessments?{query}", headers=auth)
    assert response.status_code == 422
    assert response.get_json()["code"] == "validation_error"


def test_delete_erases_assessment(client, auth, db):
    from app.models import Requirement

    created = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    response = client.delete(f"/api/v1/assessments/{created['id']}", headers=auth)
    assert response.status_code == 204 and response.data == b""
    assert client.get(f"/api/v1/assessments/{created['id']}", headers=auth).status_code == 404
    assert client.delete(f"/api/v1/assessments/{created['id']}", headers=auth).status_code == 404
    assert db.session.query(Requirement).filter_by(assessment_id=created["id"]).count() == 0


def test_partners_see_only_their_own(client, make_key):
    acme = {"Authorization": f"Bearer {make_key('acme').api_key}"}
    acme_second_key = {"Authorization": f"Bearer {make_key('acme').api_key}"}
    other = {"Authorization": f"Bearer {make_key('globex').api_key}"}
    created = client.post("/api/v1/assessments", json=submission(), headers=acme).get_json()
    path = f"/api/v1/assessments/{created['id']}"
    assert client.get(path, headers=acme_second_key).status_code == 200
    response = client.get(path, headers=other)
    assert response.status_code == 404 and response.get_json()["code"] == "not_found"
    assert client.delete(path, headers=other).status_code == 404
    assert client.get("/api/v1/assessments", headers=other).get_json()["items"] == []
    assert client.get(path, headers=acme).status_code == 200


def test_public_base_url_sets_embed_url(app_factory, make_key):
    app = app_factory(PUBLIC_BASE_URL="https://reports.example.com")
    key = make_key()
    record = app.test_client().post("/api/v1/assessments", json=submission(),
                                    headers={"Authorization": f"Bearer {key.api_key}"}).get_json()
    assert record["embedUrl"] == f"https://reports.example.com/embed/assessment/{record['embedToken']}"


def test_two_thousand_requirements_are_stored(client, auth):
    reqs = [{"id": f"C-{i}", "title": f"Control number {i}", "status": "met" if i % 2 else "not_met"}
            for i in range(2000)]
    response = client.post("/api/v1/assessments", json=submission(requirements=reqs), headers=auth)
    assert response.status_code == 201
    record = client.get(response.headers["Location"], headers=auth).get_json()
    assert len(record["requirements"]) == 2000
    assert record["requirements"][1999]["id"] == "C-1999"
    assert record["complianceScore"] == 50.0


def test_catalogues(client, auth):
    personas = client.get("/api/v1/personas", headers=auth).get_json()["items"]
    assert len(personas) == 25
    assert personas[0] == {"id": "ceo_president", "label": personas[0]["label"], "category": "Executive"}
    assert {p["category"] for p in personas} == {"Executive", "Management", "Operational", "Business", "External"}
    methodologies = client.get("/api/v1/methodologies", headers=auth).get_json()["items"]
    assert [m["id"] for m in methodologies] == [
        "spin", "challenger", "sandler", "solution_selling", "bant", "gap_selling", "value_selling",
        "command_of_message", "consultative_selling", "meddpicc"]


def test_rotate_embed_token_replaces_every_token(client, auth):
    created = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    generated = client.post(f"/api/v1/assessments/{created['id']}/generate", headers=auth).get_json()
    response = client.post(f"/api/v1/assessments/{created['id']}/embed-token/rotate", headers=auth)
    assert response.status_code == 200
    rotated = response.get_json()
    assert rotated["embedToken"] != created["embedToken"]
    assert rotated["embedUrl"].endswith(rotated["embedToken"])
    old_views = {r["viewToken"] for r in generated["reports"]}
    new_views = {r["viewToken"] for r in rotated["reports"]}
    assert len(new_views) == 25 and not old_views & new_views
    assert all(r["viewCount"] == 0 for r in rotated["reports"])
    again = client.get(f"/api/v1/assessments/{created['id']}", headers=auth).get_json()
    assert again["embedToken"] == rotated["embedToken"]
    assert client.post("/api/v1/assessments/999999/embed-token/rotate", headers=auth).status_code == 404


def test_fast_record_equals_the_schema_dump(app, client, auth, make_key):
    """GET /assessments/:id is built without the schema for speed; it must match it exactly."""
    from app.api.schemas import AssessmentSchema
    from app.assessments import get_assessment
    from app.keys.auth import authenticate_request

    before = client.post("/api/v1/assessments", json=submission(displayName="Acme"), headers=auth).get_json()
    generated = client.post("/api/v1/assessments", json=submission(hasPolicy=False, policy="NO"),
                            headers=auth).get_json()
    client.post(f"/api/v1/assessments/{generated['id']}/generate", headers=auth)
    for record in (before, generated):
        fast = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()
        with app.test_request_context(headers=auth):
            key = authenticate_request()
            slow = AssessmentSchema().dump(get_assessment(key, record["id"]))
        assert fast == slow
