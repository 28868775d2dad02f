"""Issue 34: each reader sees what changed since the client's previous assessment, selected for them: the trend
for the board, CEO and CFO; regressions and what stayed open for operators; what got better (to be evidenced) for
auditors; what stayed open across both for counsel. Driven through the API: two assessments of one client."""

from __future__ import annotations

import pytest

from tests.factories import submission


def first_section(client, auth, assessment_id: int, persona: str) -> str:
    report = client.get(f"/api/v1/assessments/{assessment_id}/reports/{persona}", headers=auth).get_json()
    return "\n".join(report["sections"][0]["paragraphs"])


@pytest.fixture
def quarters(client, auth):
    """Q1 and Q2 of one client: A.5.15 closed, A.8.13 worse, A.5.1 open in both, A.8.8 new."""
    q1 = submission(companyId="client_q", requirements=[
        {"id": "A.5.15", "title": "Access control", "status": "not_met"},
        {"id": "A.8.13", "title": "Information backup", "status": "met"},
        {"id": "A.5.1", "title": "Policies for information security", "status": "partially_met"}])
    q2 = submission(companyId="client_q", requirements=[
        {"id": "A.5.15", "title": "Access control", "status": "met"},
        {"id": "A 8.13", "title": "Information backup", "status": "not_met"},
        {"id": "A.5.1", "title": "Policies for information security", "status": "partially_met"},
        {"id": "A.8.8", "title": "Management of technical vulnerabilities", "status": "not_met"}])
    ids = []
    for body in (q1, q2):
        record = client.post("/api/v1/assessments", json=body, headers=auth).get_json()
        assert client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).status_code == 200
        ids.append(record["id"])
    return ids


def test_each_reader_sees_the_change_as_they_weigh_it(client, auth, quarters):
    first, second = quarters
    assert "last assessment" not in first_section(client, auth, first, "board_member")   # nothing to compare
    board = first_section(client, auth, second, "board_member")
    assert "Since the last assessment (" in board
    assert ": 1 closed, 1 regressed and 1 new; 1 was open then and is open still" in board
    assert "the trend the board's reporting should show" in board
    cfo = first_section(client, auth, second, "cfo")
    assert "what stayed open carries into this budget" in cfo
    admin = first_section(client, auth, second, "network_admin")
    assert "Worse than at the last assessment" in admin and "Information backup (A 8.13" in admin
    assert "open then and no better now: Policies for information security (A.5.1" in admin
    assert "Management of technical vulnerabilities (A.8.8) is assessed for the first time" in admin
    auditor = first_section(client, auth, second, "external_auditor")
    assert "recorded as better: Access control (A.5.15" in auditor and "each to be evidenced as operating" in auditor
    counsel = first_section(client, auth, second, "general_counsel")
    assert "Open at the last assessment" in counsel and "Policies for information security (A.5.1" in counsel


def test_after_the_earlier_assessment_is_erased_the_next_generation_leaves_the_change_out(client, auth, quarters):
    first, second = quarters
    assert client.delete(f"/api/v1/assessments/{first}", headers=auth).status_code == 204
    assert client.post(f"/api/v1/assessments/{second}/generate", headers=auth).status_code == 200
    for persona in ("board_member", "network_admin", "general_counsel"):
        assert "last assessment" not in first_section(client, auth, second, persona), persona
