"""Helpers for the embed page tests: submit and generate through the API, as a partner does."""

from __future__ import annotations

from tests.factories import submission


def submit(client, auth, **overrides) -> dict:
    """POST /api/v1/assessments and return the record."""
    response = client.post("/api/v1/assessments", json=submission(**overrides), headers=auth)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def generate(client, auth, assessment_id: int, **body) -> dict:
    """POST /api/v1/assessments/:id/generate and return the result."""
    response = client.post(f"/api/v1/assessments/{assessment_id}/generate", json=body or None, headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def embed_path(record: dict) -> str:
    """The viewer page's path (embedUrl is absolute)."""
    return f"/embed/assessment/{record['embedToken']}"


def view_path(result: dict, persona: str) -> str:
    """The single-report page's path for one persona."""
    return next(r["viewUrl"] for r in result["reports"] if r["persona"] == persona)
