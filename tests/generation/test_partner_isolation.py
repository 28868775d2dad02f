"""One partner cannot occupy the service: a cap on its concurrent generations, on a real waitress server."""

from __future__ import annotations

import threading

import pytest
import requests

from tests.factories import submission
from tests.support.live import LiveServer
from tests.support.processes import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture
def slow_llm_app(app_factory, fake_openai):
    """An app whose runs wait on the loopback LLM; no call may time out (this is about threads, not timeouts)."""
    return app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=fake_openai.base_url, OPENAI_API_KEY="test",
                       OPENAI_MODEL="fake-model", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=30.0)


def _auth(make_key, partner: str) -> dict:
    return {"Authorization": f"Bearer {make_key(partner, rate_limit=1000).api_key}"}


def _submit(base: str, auth: dict) -> int:
    response = requests.post(f"{base}/api/v1/assessments", json=submission(), headers=auth, timeout=10)
    assert response.status_code == 201
    return response.json()["id"]


def _status(base: str, auth: dict, assessment_id: int) -> str:
    return requests.get(f"{base}/api/v1/assessments/{assessment_id}", headers=auth, timeout=10).json()["status"]


def test_a_partner_runs_at_most_two_generations_and_others_are_served(slow_llm_app, fake_openai, make_key):
    fake_openai.latency = 2.0
    acme, globex = _auth(make_key, "acme"), _auth(make_key, "globex")
    with LiveServer(slow_llm_app, threads=4) as server:
        base = server.url
        ids = [_submit(base, acme) for _ in range(4)]
        answers: dict[int, requests.Response] = {}
        barrier = threading.Barrier(len(ids))

        def generate(assessment_id: int) -> None:
            barrier.wait()
            answers[assessment_id] = requests.post(f"{base}/api/v1/assessments/{assessment_id}/generate",
                                                   headers=acme, timeout=60)

        callers = [threading.Thread(target=generate, args=(i,)) for i in ids]
        for caller in callers:
            caller.start()
        # Four at once against a cap of two: two are refused at once, while the other two still run.
        wait_until(lambda: len(answers) == 2, timeout=10)
        refused = list(answers.values())
        for response in refused:
            assert response.status_code == 429
            assert response.json()["code"] == "generation_busy"
            assert int(response.headers["Retry-After"]) > 0
        running = [i for i in ids if i not in answers]
        assert [_status(base, acme, i) for i in running] == ["generating", "generating"]
        refused_ids = [i for i in ids if i in answers]
        assert [_status(base, acme, i) for i in refused_ids] == ["submitted", "submitted"]  # nothing claimed

        # Another partner is served meanwhile: acme holds two of the four threads, not all of them.
        listing = requests.get(f"{base}/api/v1/assessments", headers=globex, timeout=10)
        assert listing.status_code == 200 and listing.json()["items"] == []
        own = _submit(base, globex)
        assert [_status(base, acme, i) for i in running] == ["generating", "generating"]
        other = requests.post(f"{base}/api/v1/assessments/{own}/generate", headers=globex, timeout=60)
        assert other.status_code == 200 and other.json()["status"] == "completed"

        for caller in callers:
            caller.join(60)
        assert sorted(r.status_code for r in answers.values()) == [200, 200, 429, 429]
        # Once a run ends the partner may start the next one.
        again = requests.post(f"{base}/api/v1/assessments/{refused_ids[0]}/generate", headers=acme, timeout=60)
        assert again.status_code == 200


def test_an_assessment_cannot_be_deleted_while_it_generates(slow_llm_app, fake_openai, make_key):
    fake_openai.latency = 1.5
    acme = _auth(make_key, "acme")
    with LiveServer(slow_llm_app, threads=4) as server:
        base = server.url
        assessment_id = _submit(base, acme)
        url = f"{base}/api/v1/assessments/{assessment_id}"
        run: dict[str, requests.Response] = {}
        caller = threading.Thread(target=lambda: run.setdefault(
            "answer", requests.post(f"{url}/generate", headers=acme, timeout=60)))
        caller.start()
        wait_until(lambda: _status(base, acme, assessment_id) == "generating", timeout=10)

        refused = requests.delete(url, headers=acme, timeout=10)
        assert refused.status_code == 409 and refused.json()["code"] == "generation_in_progress"
        caller.join(60)
        assert run["answer"].status_code == 200
        record = requests.get(url, headers=acme, timeout=10).json()  # nothing half-deleted
        assert record["status"] == "completed" and len(record["requirements"]) == 4 and len(record["reports"]) == 25
        assert requests.get(f"{base}{record['reports'][0]['viewUrl']}", timeout=10).status_code == 200

        assert requests.delete(url, headers=acme, timeout=10).status_code == 204
        assert requests.get(url, headers=acme, timeout=10).status_code == 404
        assert requests.get(f"{base}{record['reports'][0]['viewUrl']}", timeout=10).status_code == 404
