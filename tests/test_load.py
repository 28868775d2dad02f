"""Concurrency on a real waitress server: nothing lost, nothing doubled."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import func, select

from app.models import Assessment, Report
from tests.factories import submission
from tests.support.live import LiveServer


@pytest.mark.slow
def test_200_submissions_from_16_clients_with_12_generations(app, make_key, db):
    auth = {"Authorization": f"Bearer {make_key(rate_limit=100_000).api_key}"}
    # Six partners with two generations each: a partner may run two at once.
    generating = [{"Authorization": f"Bearer {make_key(f'partner_{n}', rate_limit=100).api_key}"} for n in range(6)]
    with LiveServer(app, threads=32) as live:
        session_local = threading.local()

        def session() -> requests.Session:
            if not hasattr(session_local, "s"):
                session_local.s = requests.Session()
            return session_local.s

        to_generate = [(session().post(f"{live.url}/api/v1/assessments", json=submission(companyId=f"gen_{i}"),
                                       headers=generating[i % 6], timeout=30).json()["id"], generating[i % 6])
                       for i in range(12)]

        def submit(i: int):
            response = session().post(f"{live.url}/api/v1/assessments", json=submission(companyId=f"load_{i}"),
                                      headers=auth, timeout=60)
            return response.status_code, response.json().get("id")

        def generate(assessment_id: int, headers: dict):
            response = requests.post(f"{live.url}/api/v1/assessments/{assessment_id}/generate", headers=headers,
                                     timeout=120)
            return response.status_code, response.json()

        with ThreadPoolExecutor(16) as clients, ThreadPoolExecutor(12) as generators:
            generations = [generators.submit(generate, *job) for job in to_generate]
            submissions = list(clients.map(submit, range(200)))
            generated = [f.result() for f in generations]
    assert [status for status, _ in submissions] == [201] * 200
    ids = [assessment_id for _, assessment_id in submissions]
    assert len(set(ids)) == 200
    assert all(status == 200 and body["status"] == "completed" and body["failedReports"] == 0
               for status, body in generated)
    assert db.session.scalar(select(func.count()).select_from(Assessment)) == 212
    assert db.session.scalar(select(func.count()).select_from(Report)) == 12 * 25
