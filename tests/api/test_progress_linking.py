"""Issue 34, progress: an assessment is compared with the client's earlier one (`previousAssessmentId` and `change`
on the record and in the completion webhook), never across partners or modes, and erasing the earlier one
unlinks it leaving the counts and nothing else of it."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import select

from app import progress
from app.api import openapi
from app.content import load
from app.extensions import db
from app.generation.scoring import compliance_score
from app.models import WebhookDelivery
from tests.factories import submission

HOOK = "http://127.0.0.1:9/reports"   # deliveries stay queued: this app's sender is not started


@pytest.fixture
def app(app_factory):
    return app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def reqs(*pairs: tuple[str, str]) -> list[dict]:
    return [{"id": ref, "title": f"Control {ref}", "status": status} for ref, status in pairs]


def post(client, auth, **fields):
    return client.post("/api/v1/assessments", json=submission(**fields), headers=auth)


def submit(client, auth, **fields) -> dict:
    response = post(client, auth, **fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def record(client, auth, assessment_id: int) -> dict:
    response = client.get(f"/api/v1/assessments/{assessment_id}", headers=auth)
    assert response.status_code == 200
    return response.get_json()


Q1 = reqs(("A.5.1", "not_met"), ("A.5.15", "not_met"), ("A.8.13", "partially_met"), ("A.5.19", "met"),
          ("A.8.15", "met"), ("A.5.23", "not_met"))
# The next quarter writes some ids another way: "A 5.1", "Annex A 8.13", "A5.15".
Q2 = reqs(("A 5.1", "met"), ("A5.15", "not_met"), ("Annex A 8.13", "met"), ("A.5.19", "partially_met"),
          ("A.8.15", "met"), ("A.8.24", "not_met"))
Q3 = reqs(("A.5.1", "met"), ("A.5.15", "partially_met"), ("A.8.13", "met"), ("A.5.19", "met"), ("A.8.15", "not_met"),
          ("A.8.24", "not_met"), ("A.8.16", "met"))


def test_three_quarterly_assessments_each_compare_with_the_one_before(client, auth):
    first = submit(client, auth, requirements=Q1)
    # Other spellings of the framework name the same pack; the second spelling of the submission too.
    second = submit(client, auth, requirements=Q2, framework="ISO/IEC 27001:2022")
    body = submission(requirements=Q3, frameworkName="iso27001", hasPolicy=True)
    del body["framework"], body["policy"]
    third = client.post("/api/v1/assessments", json=body, headers=auth).get_json()

    assert first["previousAssessmentId"] is None and first["change"] is None
    assert (first["complianceScore"], second["complianceScore"], third["complianceScore"]) == (41.7, 58.3, 64.3)
    assert second["previousAssessmentId"] == first["id"]
    assert second["change"] == {
        "closed": 2, "improved": 0, "regressed": 1, "new": 1, "dropped": 1, "stillOpen": 1,
        "scoreBefore": 41.7, "scoreAfter": 58.3,
        "closedIds": ["A 5.1", "Annex A 8.13"], "improvedIds": [], "regressedIds": ["A.5.19"], "newIds": ["A.8.24"],
        "droppedIds": ["A.5.23"], "stillOpenIds": ["A5.15"], "openSince": first["createdAt"],
    }
    assert third["previousAssessmentId"] == second["id"]
    assert third["change"] == {
        "closed": 1, "improved": 1, "regressed": 1, "new": 1, "dropped": 0, "stillOpen": 2,
        "scoreBefore": 58.3, "scoreAfter": 64.3,
        "closedIds": ["A.5.19"], "improvedIds": ["A.5.15"], "regressedIds": ["A.8.15"], "newIds": ["A.8.16"],
        "droppedIds": [], "stillOpenIds": ["A.5.15", "A.8.24"], "openSince": second["createdAt"],
    }
    # The record says the same as the answer to the submission, and the list items carry it too.
    for created in (first, second, third):
        stored = record(client, auth, created["id"])
        assert (stored["previousAssessmentId"], stored["change"]) == (created["previousAssessmentId"],
                                                                      created["change"])
    listed = client.get("/api/v1/assessments", headers=auth).get_json()["items"]
    assert [(item["id"], item["previousAssessmentId"]) for item in listed] == [
        (third["id"], second["id"]), (second["id"], first["id"]), (first["id"], None)]
    assert listed[0]["change"] == third["change"]


def test_hipaa_ids_match_in_any_case_and_with_their_prefixes(client, auth):
    before = submit(client, auth, framework="HIPAA Security Rule", requirements=reqs(
        ("164.308(a)(1)(ii)(A)", "not_met"), ("164.312(a)(1)", "partially_met"), ("164.308(a)(5)(i)", "met")))
    after = submit(client, auth, framework="hipaa", requirements=reqs(
        ("§ 164.308(A)(1)(II)(a)", "met"), ("45 CFR 164.312(a)(1)", "partially_met"), ("164.308(a)(5)(I)", "not_met")))
    assert after["previousAssessmentId"] == before["id"]
    change = after["change"]
    assert (change["closed"], change["improved"], change["regressed"], change["new"], change["dropped"],
            change["stillOpen"]) == (1, 0, 1, 0, 0, 1)
    assert change["closedIds"] == ["§ 164.308(A)(1)(II)(a)"] and change["regressedIds"] == ["164.308(a)(5)(I)"]


@pytest.mark.parametrize("framework, first, second", [
    ("ISO 27001", "A.8.13", "A 8.13"), ("ISO 27001", "A.8.13", "Annex A 8.13"), ("ISO 27001", "A.8.13", "a8.13"),
    ("HIPAA", "164.308(a)(1)(ii)(A)", "§164.308(A)(1)(ii)(a)"), ("NIST SP 800-53", "AC-2", "ac-02"),
    ("NIST CSF 2.0", "GV.OC-01", "gv.oc-1"), ("SOC 2", "CC6.1", "cc 6.1"), ("My own framework", "Ctl-7", "ctl 7"),
])
def test_a_frameworks_own_id_forms_are_one_requirement(framework, first, second):
    pack = load().framework_for(framework)
    assert progress.requirement_key(pack, first) == progress.requirement_key(pack, second)


def test_different_controls_stay_apart():
    iso = load().framework_for("ISO 27001")
    keys = {progress.requirement_key(iso, ref) for ref in ("A.8.13", "A.8.1", "A.8.3", "A.5.1", "A.5.1.1", "5.1")}
    assert len(keys) == 6
    assert progress.framework_key("ISO 27001") == progress.framework_key("iso/iec 27001:2022") == "iso27001"
    assert progress.framework_key("My Own-Framework") == progress.framework_key("my own framework") != \
        progress.framework_key("My other framework")


def test_another_companys_or_frameworks_assessment_is_not_linked(client, auth):
    iso = submit(client, auth)
    soc2 = submit(client, auth, framework="SOC 2", requirements=reqs(("CC6.1", "met")))
    other = submit(client, auth, companyId="client_2210")
    assert soc2["previousAssessmentId"] is None and other["previousAssessmentId"] is None
    assert submit(client, auth)["previousAssessmentId"] == iso["id"]


def test_a_named_earlier_assessment_is_the_one_compared_with(client, auth):
    first = submit(client, auth, requirements=Q1)
    second = submit(client, auth, requirements=Q2)
    third = submit(client, auth, requirements=Q3, previousAssessmentId=first["id"])
    assert second["previousAssessmentId"] == first["id"]
    assert third["previousAssessmentId"] == first["id"]
    assert third["change"]["scoreBefore"] == first["complianceScore"]
    assert third["change"]["droppedIds"] == ["A.5.23"] and third["change"]["openSince"] == first["createdAt"]
    # Any of the partner's earlier assessments of the mode may be named, another client's too (a renamed id).
    renamed = submit(client, auth, companyId="client_9", previousAssessmentId=third["id"])
    assert renamed["previousAssessmentId"] == third["id"]


def test_null_turns_linking_off(client, auth):
    first = submit(client, auth)
    unlinked = submit(client, auth, previousAssessmentId=None)
    assert unlinked["previousAssessmentId"] is None and unlinked["change"] is None
    assert record(client, auth, unlinked["id"])["change"] is None
    # The next one without the field is compared with the most recent, linked or not.
    assert submit(client, auth)["previousAssessmentId"] == unlinked["id"]
    assert first["id"] < unlinked["id"]


@pytest.mark.parametrize("whose", ["unknown", "other_partner", "other_mode", "not_yet_made", "zero", "text", "true"])
def test_a_wrong_previous_assessment_id_is_a_422_naming_the_field(client, auth, make_key, whose):
    mine = submit(client, auth)
    other_partner = submit(client, bearer(make_key("globex")))
    other_mode = submit(client, bearer(make_key("acme", livemode=False)))
    value = {"unknown": 999_999, "other_partner": other_partner["id"], "other_mode": other_mode["id"],
             "not_yet_made": other_mode["id"] + 1, "zero": 0, "text": str(mine["id"]), "true": True}[whose]
    response = post(client, auth, previousAssessmentId=value)
    assert response.status_code == 422
    body = response.get_json()
    assert body["code"] == "validation_error" and list(body["details"]) == ["previousAssessmentId"]
    # Nothing was made, and the answer does not tell another partner's id from an unknown one.
    assert [item["id"] for item in client.get("/api/v1/assessments", headers=auth).get_json()["items"]] == [mine["id"]]
    if whose in ("unknown", "other_partner", "other_mode"):
        assert body == openapi.PREVIOUS_INVALID


def test_links_never_cross_partners_or_modes(client, auth, make_key):
    mine = submit(client, auth)
    theirs = submit(client, bearer(make_key("globex")))      # same companyId and framework, another partner
    test_key = bearer(make_key("acme", livemode=False))
    in_test_mode = submit(client, test_key)                     # same partner, test mode
    assert theirs["previousAssessmentId"] is None and in_test_mode["previousAssessmentId"] is None
    later = submit(client, auth)
    assert later["previousAssessmentId"] == mine["id"] < theirs["id"] < in_test_mode["id"]
    assert submit(client, test_key)["previousAssessmentId"] == in_test_mode["id"]


def _rows_mentioning(marker: str) -> list[str]:
    """Every row of every table whose text contains `marker`."""
    found = []
    for table in db.metadata.sorted_tables:
        for row in db.session.execute(select(table)):
            text = " ".join(value.decode(errors="replace") if isinstance(value, bytes) else str(value)
                            for value in row)
            if marker in text:
                found.append(f"{table.name}: {text[:200]}")
    return found


def test_erasing_the_earlier_assessment_unlinks_and_keeps_only_the_counts(app, client, make_key):
    auth = bearer(make_key(webhook_url=HOOK))
    marker = "ZZ.77"   # a requirement only the erased assessment has: it must survive nowhere
    first = submit(client, auth, requirements=[*Q1, {"id": marker, "title": "Erased only", "status": "met"}])
    created = client.post("/api/v1/assessments", json=submission(requirements=Q2),
                          headers={**auth, "Idempotency-Key": "q2-once"})
    second = created.get_json()
    assert second["change"]["droppedIds"] == ["A.5.23", marker]
    assert client.post(f"/api/v1/assessments/{second['id']}/generate", headers=auth).status_code == 200
    third = submit(client, auth, requirements=Q3)
    with app.app_context():
        assert _rows_mentioning(marker)   # in the second's change, its webhook body and its stored answer

    assert client.delete(f"/api/v1/assessments/{first['id']}", headers=auth).status_code == 204

    kept = record(client, auth, second["id"])
    assert kept["previousAssessmentId"] is None
    assert kept["change"] == {**second["change"], "droppedIds": None, "openSince": None}
    assert kept["requirements"] == [{"id": r["id"], "title": r["title"], "status": r["status"]} for r in Q2]
    assert record(client, auth, third["id"])["previousAssessmentId"] == second["id"]   # its own link stays
    with app.app_context():
        assert _rows_mentioning(marker) == []
        [body] = db.session.scalars(select(WebhookDelivery.body).where(WebhookDelivery.assessment_id == second["id"]))
        payload = json.loads(body)
        assert payload["previousAssessmentId"] is None and payload["change"] == kept["change"]
    replayed = client.post("/api/v1/assessments", json=submission(requirements=Q2),
                           headers={**auth, "Idempotency-Key": "q2-once"})
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.get_json()["previousAssessmentId"] is None
    assert replayed.get_json()["change"] == kept["change"]
    # The next submission is compared with the most recent one left.
    assert submit(client, auth)["previousAssessmentId"] == third["id"]


def test_the_completion_webhook_carries_the_link_and_the_change(app, client, make_key, receiver):
    app.extensions["webhook_sender"].start()
    auth = bearer(make_key(webhook_url=receiver.url))
    first = submit(client, auth, requirements=Q1, companyId="client_5150")
    second = submit(client, auth, requirements=Q2, companyId="client_5150")
    for assessment in (first, second):
        assert client.post(f"/api/v1/assessments/{assessment['id']}/generate", headers=auth).status_code == 200
    payloads = {r.json["assessmentId"]: r.json for r in receiver.wait_for(2)}
    assert payloads[first["id"]]["previousAssessmentId"] is None and payloads[first["id"]]["change"] is None
    assert payloads[second["id"]]["previousAssessmentId"] == first["id"]
    assert payloads[second["id"]]["change"] == second["change"] == record(client, auth, second["id"])["change"]
    assert payloads[second["id"]]["change"]["closed"] == 2
    # The reports of a linked assessment still never name the partner's companyId.
    reports = client.get(f"/api/v1/assessments/{second['id']}/reports", headers=auth)
    assert reports.status_code == 200 and "client_5150" not in reports.get_data(as_text=True)


def test_the_documented_change_is_what_the_service_works_out():
    pack = load().framework_for(openapi.SUBMISSION_EXAMPLE["framework"])
    after = [(r["id"], r["status"]) for r in openapi.SUBMISSION_EXAMPLE["requirements"]]
    statuses = [status for _, status in openapi.PREVIOUS_REQUIREMENTS]
    before_score = compliance_score(statuses.count("met"), statuses.count("partially_met"), len(statuses))
    change = progress.compute_change(pack, openapi.PREVIOUS_REQUIREMENTS, after, before_score,
                                     openapi.ASSESSMENT_LINKED["complianceScore"], None)
    assert change == {**openapi.CHANGE, "openSince": None}


def test_concurrent_submissions_for_one_client_link_by_id_order(app, client, auth, monkeypatch):
    """Submissions racing for one client: the later id is compared with the earlier one, every time. The lookup
    is slowed down so that, without the partner's submissions queueing, each would miss the other's."""
    slow_lookup = progress._most_recent
    barrier = threading.Barrier(3)

    def delayed(key, assessment):
        threading.Event().wait(0.3)
        return slow_lookup(key, assessment)

    def one(company_id: str, answers: list[dict]) -> None:
        barrier.wait()
        response = app.test_client().post("/api/v1/assessments", json=submission(companyId=company_id), headers=auth)
        answers.append(response.get_json())

    monkeypatch.setattr(progress, "_most_recent", delayed)
    for round_ in range(2):
        answers: list[dict] = []
        threads = [threading.Thread(target=one, args=(f"race_{round_}", answers)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        made = sorted((a["id"], a["previousAssessmentId"]) for a in answers)
        assert len(made) == 3, answers
        assert made[0][1] is None and made[1][1] == made[0][0] and made[2][1] == made[1][0], made


# ------------------------------------------------------------------ ISO/IEC 27001:2013 ids -> 2022 ids

ISO_2013 = reqs(("A.12.4.1", "not_met"), ("A.12.4.3", "met"), ("A.9.2.4", "partially_met"), ("A.18.2.3", "met"),
                ("A.11.1.4", "not_met"), ("A.7.2.2", "not_met"))
ISO_2022 = reqs(("A.8.15", "met"), ("A.5.17", "partially_met"), ("A.8.8", "not_met"), ("A.5.36", "met"),
                ("A.5.7", "not_met"), ("A.6.3", "not_met"))


def test_a_client_moved_from_the_2013_to_the_2022_edition_is_compared_control_by_control(client, auth):
    """Event logging and the protection of logs (12.4.1, 12.4.3) became one control, 8.15, open while either was;
    compliance reviews (18.2.3) became 5.36 and 8.8; 11.1.4 (external threats) became 7.5, not assessed now."""
    first = submit(client, auth, requirements=ISO_2013, framework="ISO/IEC 27001:2013")
    second = submit(client, auth, requirements=ISO_2022, framework="ISO/IEC 27001:2022")
    assert second["previousAssessmentId"] == first["id"]
    change = second["change"]
    assert (change["closedIds"], change["regressedIds"], change["newIds"], change["droppedIds"],
            change["stillOpenIds"]) == (["A.8.15"], ["A.8.8"], ["A.5.7"], ["A.11.1.4"], ["A.5.17", "A.6.3"])


def test_two_assessments_in_2013_ids_compare_id_by_id():
    pack = load().framework_for("ISO 27001")
    before = [("A.12.4.1", "not_met"), ("A.12.4.3", "met")]
    after = [("A.12.4.1", "met"), ("A 12.4.3", "not_met")]
    change = progress.compute_change(pack, before, after, 50, 50, None)
    assert (change["closedIds"], change["regressedIds"], change["droppedIds"]) == (["A.12.4.1"], ["A 12.4.3"], [])


def test_the_renumbering_covers_every_2013_control_and_reaches_only_2022_controls():
    pack = load().framework_for("ISO 27001")
    assert len(pack.renumbered) == 114
    targets = {new for news in pack.renumbered.values() for new in news}
    controls = {ref for ref in pack.requirements if ref.startswith("a.")}
    assert len(controls) == 93 and targets <= controls
    # The controls new in the 2022 edition are the ones no 2013 control became (ISO/IEC 27002:2022, Annex B).
    assert sorted(controls - targets) == sorted(["a.5.7", "a.5.23", "a.5.30", "a.7.4", "a.8.9", "a.8.10", "a.8.11",
                                                 "a.8.12", "a.8.16", "a.8.23", "a.8.28"])
