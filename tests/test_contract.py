"""schemathesis against the live service: every check, on every documented operation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.factories import submission
from tests.support.live import LiveServer

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def app(app_factory):
    # The key's webhook URL is on loopback; nothing listens there and the sender is not started, so the
    # run leaves one pending delivery for schemathesis to try redelivering.
    return app_factory(WEBHOOK_ALLOW_PRIVATE_NETWORKS=True)


@pytest.mark.slow
def test_schemathesis_finds_nothing(app, make_key, backend):
    key = make_key(rate_limit=1_000_000, webhook_url="http://127.0.0.1:9/hooks")
    auth = {"Authorization": f"Bearer {key.api_key}"}
    client = app.test_client()
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    delivery = client.get("/api/v1/webhook-deliveries", headers=auth).get_json()["items"][0]["id"]
    ARTIFACTS.mkdir(exist_ok=True)
    with LiveServer(app, threads=8) as live:
        result = subprocess.run(
            [Path(sys.executable).parent / "schemathesis", "--config-file", str(ROOT / "tests" / "schemathesis.toml"),
             "run", f"{live.url}/openapi.json", "--checks", "all", "--max-examples", "25",
             "-H", f"Authorization: Bearer {key.api_key}", "--seed", "1", "--no-color",
             # the default 10 s per request timed out once on a POST in CI's Postgres pass with the machine loaded
             "--request-timeout", "30"],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.support.schemathesis_hooks", "CRS_DELIVERY_ID": delivery})
    report = ARTIFACTS / f"schemathesis-{backend}.txt"
    report.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, f"schemathesis found problems; see {report}\n{result.stdout[-3000:]}"
