"""GET /api/v1/assessments/:id/reports: every report of a run in one request (issue 32, "A partner's first hour")."""

from __future__ import annotations

import pytest
from sqlalchemy import null, update

from app.catalog import PERSONAS
from app.extensions import db
from app.models import Report
from tests.embed import generate, submit

PERSONA_IDS = [p.id for p in PERSONAS]


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def reports(client, auth, assessment_id, query: str = ""):
    return client.get(f"/api/v1/assessments/{assessment_id}/reports{query}", headers=auth)


def personas_of(response) -> list[str]:
    assert response.status_code == 200, response.get_json()
    return [item["persona"] for item in response.get_json()["reports"]]


@pytest.mark.parametrize("livemode", [True, False])
def test_every_report_in_one_request_exactly_as_the_single_read(client, make_key, livemode):
    auth = bearer(make_key(livemode=livemode))
    record = submit(client, auth, displayName="Northwind Clinics")
    generate(client, auth, record["id"], methodology="challenger")
    response = reports(client, auth, record["id"])
    assert response.status_code == 200
    body = response.get_json()
    assert list(body) == ["reports"]   # the contract's shape: 25 at most, not paginated
    assert [item["persona"] for item in body["reports"]] == PERSONA_IDS   # persona order, all 25
    for item in body["reports"]:
        single = client.get(f"/api/v1/assessments/{record['id']}/reports/{item['persona']}", headers=auth)
        assert item == single.get_json()
        assert list(item) == list(single.get_json())   # same fields, in the same order
        assert item["livemode"] is livemode


def test_reading_a_run_costs_one_request_of_the_budget(client, make_key):
    """The newcomer's case: with a small budget, a run can be read twice and more."""
    auth = bearer(make_key(rate_limit=5))
    record = submit(client, auth)
    generate(client, auth, record["id"])
    assert len(reports(client, auth, record["id"]).get_json()["reports"]) == 25
    again = reports(client, auth, record["id"])
    assert len(again.get_json()["reports"]) == 25
    assert again.headers["X-RateLimit-Remaining"] == "1"


@pytest.mark.parametrize("query", ["?persona=ciso&persona=cfo", "?persona=ciso,cfo", "?persona=cfo,%20ciso",
                                   "?persona=ciso,cfo&persona=cfo"])
def test_persona_picks_some_repeated_or_comma_separated_in_persona_order(client, auth, query):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    assert personas_of(reports(client, auth, record["id"], query)) == ["cfo", "ciso"]


@pytest.mark.parametrize("query, named", [("?persona=cfoo", "'cfoo'"), ("?persona=cfo,CISO", "'CISO'"),
                                          ("?persona=", "''"), ("?persona=cfo&persona=nobody", "'nobody'")])
def test_an_unknown_persona_is_422_naming_the_parameter(client, auth, query, named):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    response = reports(client, auth, record["id"], query)
    assert response.status_code == 422
    body = response.get_json()
    assert body["code"] == "validation_error" and isinstance(body["error"], str)
    assert list(body["details"]) == ["persona"]
    assert named in body["details"]["persona"][0] and "ceo_president" in body["details"]["persona"][0]


def test_other_query_parameters_are_refused_as_on_the_other_lists(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    response = reports(client, auth, record["id"], "?limit=5")
    assert response.status_code == 422 and response.get_json()["details"] == {"limit": ["Unknown field."]}


def test_before_generation_the_answer_is_the_single_reads(client, auth):
    record = submit(client, auth)
    single = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth)
    for query in ("", "?persona=cfo"):
        response = reports(client, auth, record["id"], query)
        assert response.status_code == single.status_code == 404
        assert response.get_json()["code"] == single.get_json()["code"] == "not_found"
        assert f"POST /api/v1/assessments/{record['id']}/generate" in response.get_json()["error"]


def test_another_partners_or_the_other_modes_assessment_is_404(client, make_key):
    owner = bearer(make_key("acme"))
    record = submit(client, owner)
    generate(client, owner, record["id"])
    for stranger in (bearer(make_key("globex")), bearer(make_key("acme", livemode=False))):
        for query in ("", "?persona=cfo"):
            response = reports(client, stranger, record["id"], query)
            assert response.status_code == 404 and response.get_json()["code"] == "not_found"
    for raw in ("999999", "abc", "0", "9223372036854775808"):
        assert client.get(f"/api/v1/assessments/{raw}/reports", headers=owner).status_code == 404


def test_without_a_key_it_is_401(client):
    assert client.get("/api/v1/assessments/1/reports").status_code == 401


@pytest.mark.parametrize("empty", [null(), None], ids=["sql-null", "json-null"])
def test_a_persona_with_no_content_is_left_out(app, client, auth, empty):
    """A persona whose reports all failed has no content: the single read is 404 and the list leaves it out."""
    record = submit(client, auth)
    generate(client, auth, record["id"])
    with app.app_context():
        db.session.execute(update(Report).where(Report.assessment_id == record["id"], Report.persona == "cfo")
                           .values(content=empty, status="failed"))
        db.session.commit()
    assert client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).status_code == 404
    assert personas_of(reports(client, auth, record["id"])) == [p for p in PERSONA_IDS if p != "cfo"]
    assert personas_of(reports(client, auth, record["id"], "?persona=cfo")) == []
    assert personas_of(reports(client, auth, record["id"], "?persona=cfo,ciso")) == ["ciso"]


def test_the_latest_run_is_read(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"], methodology="spin")
    generate(client, auth, record["id"], methodology="sandler")
    items = reports(client, auth, record["id"]).get_json()["reports"]
    assert {item["methodology"] for item in items} == {"sandler"}
