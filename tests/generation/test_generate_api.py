"""POST /assessments/:id/generate with the template engine, as a partner uses it."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import update

from app.catalog import PERSONAS
from app.models import Assessment, utcnow
from tests.factories import submission


def submit(client, auth, **overrides) -> dict:
    response = client.post("/api/v1/assessments", json=submission(**overrides), headers=auth)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def generate(client, auth, assessment_id, **body):
    return client.post(f"/api/v1/assessments/{assessment_id}/generate", json=body or None, headers=auth)


def text_of(content: dict) -> str:
    parts = [content["title"], content["summary"], content["callToAction"]]
    for section in content["sections"]:
        parts += [section["heading"], *section["paragraphs"], *section["bullets"]]
    return "\n".join(parts)


def test_generate_creates_25_reports(client, auth):
    record = submit(client, auth)
    response = generate(client, auth, record["id"])
    assert response.status_code == 200
    result = response.get_json()
    assert list(result) == ["assessmentId", "status", "methodology", "complianceScore", "totalReports",
                            "failedReports", "embedToken", "embedUrl", "reports", "generatedAt", "llmUsage",
                            "livemode"]
    assert result["assessmentId"] == record["id"]
    assert result["status"] == "completed" and result["methodology"] == "spin"
    assert result["totalReports"] == 25 and result["failedReports"] == 0
    assert result["embedToken"] == record["embedToken"] and result["embedUrl"] == record["embedUrl"]
    assert [r["persona"] for r in result["reports"]] == [p.id for p in PERSONAS]
    for report in result["reports"]:
        assert report["viewUrl"] == f"/embed/report/{report['viewToken']}"
        assert report["status"] == "completed"
    assert len({r["viewToken"] for r in result["reports"]}) == 25

    after = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()
    assert after["status"] == "completed" and after["methodology"] == "spin"
    assert after["reports"] == result["reports"]
    assert after["generatedAt"] == result["generatedAt"]


def test_report_content(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    response = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth)
    assert response.status_code == 200
    content = response.get_json()
    assert content["persona"] == "cfo" and content["personaLabel"] == "CFO" and content["category"] == "Executive"
    assert content["methodology"] == "spin" and content["methodologyLabel"] == "SPIN Selling"
    assert content["engine"] == "template" and content["generatedAt"].endswith("Z")
    assert [s["heading"] for s in content["sections"]] == [
        "Where things stand", "What is open, and why it matters to you", "What is at stake",
        "What closing it gives you",
        "Appendix: requirements in scope", "Appendix: sources and planning assumptions"]
    assert content["readerRelation"] == "decision_maker"
    assert content["knowledge"] == {"framework": "iso27001", "industry": "healthcare"}
    text = text_of(content)
    assert "the organization" in text.lower()
    assert "client_1042" not in response.get_data(as_text=True)
    assert "A.5.15" in text or "A.8.13" in text


def test_the_appendix_dates_the_record_it_reports(client, auth):
    """Auditors and underwriters place a record by its date (issue 28 panel): the appendix says when the
    assessment was submitted."""
    record = submit(client, auth)
    generate(client, auth, record["id"])
    submitted = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["createdAt"]
    day = date.fromisoformat(submitted[:10])
    content = client.get(f"/api/v1/assessments/{record['id']}/reports/external_auditor", headers=auth).get_json()
    appendix = next(s for s in content["sections"] if s["heading"] == "Appendix: requirements in scope")
    assert appendix["paragraphs"][0].startswith(
        f"Statuses as recorded by the assessment submitted on {day.day} {day:%B %Y}: "), appendix["paragraphs"]
    # Readers of a later assessment asked what "the score" is: the appendix says how it counts.
    assert (f"The compliance score, {record['complianceScore']:g} %, counts a met requirement as one and a partly "
            f"met one as half.") in appendix["paragraphs"][0]


def test_display_name_is_used_and_company_id_never(client, auth):
    record = submit(client, auth, displayName="Northwind Clinics", companyId="nw-7781")
    generate(client, auth, record["id"])
    for persona in ("ceo_president", "insurance_underwriter"):
        body = client.get(f"/api/v1/assessments/{record['id']}/reports/{persona}", headers=auth)
        assert "Northwind Clinics" in body.get_data(as_text=True)
        assert "nw-7781" not in body.get_data(as_text=True)


def test_regeneration_keeps_tokens_and_changes_structure(client, auth):
    record = submit(client, auth)
    first = generate(client, auth, record["id"]).get_json()
    spin = client.get(f"/api/v1/assessments/{record['id']}/reports/ciso", headers=auth).get_json()
    second = generate(client, auth, record["id"], methodology="challenger").get_json()
    assert second["methodology"] == "challenger"
    assert [r["viewToken"] for r in second["reports"]] == [r["viewToken"] for r in first["reports"]]
    assert second["embedToken"] == first["embedToken"]
    challenger = client.get(f"/api/v1/assessments/{record['id']}/reports/ciso", headers=auth).get_json()
    assert challenger["methodology"] == "challenger"
    assert [s["heading"] for s in challenger["sections"]] != [s["heading"] for s in spin["sections"]]


def test_reports_differ_per_persona(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    texts = {p.id: text_of(client.get(f"/api/v1/assessments/{record['id']}/reports/{p.id}", headers=auth).get_json())
             for p in PERSONAS}
    assert len(set(texts.values())) == 25


@pytest.mark.parametrize("body, status, code", [
    ({"methodology": "hard_sell"}, 422, "validation_error"),
    ({"methodology": 5}, 422, "validation_error"),
    ({"colour": "red"}, 422, "validation_error"),
])
def test_generate_rejects_bad_bodies(client, auth, body, status, code):
    record = submit(client, auth)
    response = generate(client, auth, record["id"], **body)
    assert response.status_code == status and response.get_json()["code"] == code
    assert client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["status"] == "submitted"


def test_generate_invalid_json_and_unknown_ids(client, auth, make_key):
    record = submit(client, auth)
    response = client.post(f"/api/v1/assessments/{record['id']}/generate", data="{oops",
                           headers={**auth, "Content-Type": "application/json"})
    assert response.status_code == 400 and response.get_json()["code"] == "invalid_json"
    for raw in ("999999", "abc", "99999999999999999999999"):
        response = generate(client, auth, raw)
        assert response.status_code == 404 and response.get_json()["code"] == "not_found"
    other = {"Authorization": f"Bearer {make_key('globex').api_key}"}
    assert generate(client, other, record["id"]).status_code == 404
    assert client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=other).status_code == 404


def test_report_404s(client, auth):
    record = submit(client, auth)
    before = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth)
    assert before.status_code == 404 and before.get_json()["code"] == "not_found"
    generate(client, auth, record["id"])
    unknown = client.get(f"/api/v1/assessments/{record['id']}/reports/chief_vibes_officer", headers=auth)
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "not_found"


def test_running_claim_answers_409_and_a_silent_claim_is_taken_over(client, auth, db):
    record = submit(client, auth)
    db.session.execute(update(Assessment).where(Assessment.id == record["id"])
                       .values(status="generating", generation_started_at=utcnow(), run_heartbeat_at=utcnow()))
    db.session.commit()
    response = generate(client, auth, record["id"])
    assert response.status_code == 409 and response.get_json()["code"] == "generation_in_progress"
    db.session.execute(update(Assessment).where(Assessment.id == record["id"])   # no heartbeat for 31 s
                       .values(run_heartbeat_at=utcnow() - timedelta(seconds=31)))
    db.session.commit()
    assert generate(client, auth, record["id"]).get_json()["status"] == "completed"


def test_a_crash_while_storing_does_not_leave_generating(app, client, auth, monkeypatch):
    from app.generation import service

    record = submit(client, auth)

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(service, "store_run", boom)
    response = generate(client, auth, record["id"])
    assert response.status_code == 500 and response.get_json()["code"] == "internal_error"
    assert client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["status"] == "submitted"
    monkeypatch.undo()
    assert generate(client, auth, record["id"]).status_code == 200


def test_delete_after_generation_erases_reports(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    assert client.delete(f"/api/v1/assessments/{record['id']}", headers=auth).status_code == 204
    assert client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).status_code == 404


def test_usage_bills_once_per_assessment(client, auth, make_key):
    empty = client.get("/api/v1/usage", headers=auth).get_json()
    assert empty == {"currency": "USD", "livemode": True, "total": {"assessments": 0, "reports": 0, "amount": 0},
                     "keys": []}
    first, second = submit(client, auth), submit(client, auth)
    generate(client, auth, first["id"])
    generate(client, auth, first["id"], methodology="meddpicc")  # regeneration is not billed again
    generate(client, auth, second["id"])
    usage = client.get("/api/v1/usage", headers=auth).get_json()
    assert usage["total"] == {"assessments": 2, "reports": 50, "amount": 500}
    assert len(usage["keys"]) == 1
    assert usage["keys"][0]["assessments"] == 2 and usage["keys"][0]["amount"] == 500
    assert usage["keys"][0]["key"].startswith("crs_…")
    client.delete(f"/api/v1/assessments/{first['id']}", headers=auth)
    assert client.get("/api/v1/usage", headers=auth).get_json()["total"]["amount"] == 500  # billing survives erasure
    other = {"Authorization": f"Bearer {make_key('globex').api_key}"}
    assert client.get("/api/v1/usage", headers=other).get_json()["total"]["amount"] == 0


def test_usage_key_rows_in_contract_order(client, auth):
    record = submit(client, auth)
    generate(client, auth, record["id"])
    response = client.get("/api/v1/usage", headers=auth)
    [row] = response.get_json()["keys"]
    assert list(row) == ["keyId", "key", "assessments", "reports", "amount"]
    assert "crs_…" in response.get_data(as_text=True)  # UTF-8, not a \u escape


def test_generate_response_equals_the_schema_dump(openai_app, fake_openai, make_key):
    """The generate response is built from the record for speed; it must match GenerationResultSchema."""
    from app.api.schemas import GenerationResultSchema
    from app.assessments import get_assessment
    from app.keys.auth import authenticate_request

    app, client = openai_app, openai_app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    fake_openai.status_for["cfo"] = 400  # one failed report
    for display_name in (None, "Acme"):
        record = submit(client, auth, **({"displayName": display_name} if display_name else {}))
        response = generate(client, auth, record["id"])
        assert response.status_code == 200 and response.get_json()["failedReports"] == 1
        with app.test_request_context(headers=auth):
            slow = GenerationResultSchema().dump(get_assessment(authenticate_request(), record["id"]))
        assert response.get_json() == slow


def test_the_keys_day_rate_prices_the_money_readers_reports(client, auth):
    """A partner sets its day rate on the key; the next generation prices effort with it."""
    record = submit(client, auth)
    generate(client, auth, record["id"])
    default = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).get_json()
    assert any(p.startswith("Cost to close:") and "USD" in p for p in default["keyPoints"])
    assert "a default range" in "\n".join(p for s in default["sections"] for p in s["paragraphs"])

    response = client.patch("/api/v1/key", json={"dayRate": 1100, "currency": "GBP"}, headers=auth)
    assert response.status_code == 200, response.get_json()
    generate(client, auth, record["id"])
    priced = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).get_json()
    point = next(p for p in priced["keyPoints"] if p.startswith("Cost to close:"))
    assert "about GBP " in point and "(by " in point   # the partner's rate, and a finish date
    basis = "\n".join(p for s in priced["sections"] for p in s["paragraphs"])
    assert "Priced at GBP 1,100 a person-day, the day rate your adviser set" in basis
    admin = client.get(f"/api/v1/assessments/{record['id']}/reports/network_admin", headers=auth).get_json()
    assert not any("GBP" in p for p in admin["keyPoints"])   # operators are shown person-days
