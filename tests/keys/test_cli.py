"""The `keys` CLI, whose --json output partners' automation parses."""

from __future__ import annotations

import json
import re

from sqlalchemy import select

from app.models import ApiKey
from tests.factories import submission


def create(runner, *args):
    result = runner.invoke(args=["keys", "create", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_create_json_shape(runner):
    out = create(runner, "--partner", "Acme Security", "--tier", "professional", "--framework", "ISO 27001",
                 "--framework", "SOC 2")
    assert list(out) == ["id", "partner", "apiKey", "webhookSecret", "embedSecret", "tier", "rateLimit", "frameworks",
                         "webhookUrl", "livemode", "dayRate", "currency", "showMethodology", "requireSignedEmbeds"]
    assert re.fullmatch(r"crs_[0-9a-f]{64}", out["apiKey"])
    assert re.fullmatch(r"whsec_[0-9a-f]{64}", out["webhookSecret"])
    assert out["partner"] == "Acme Security" and out["tier"] == "professional" and out["rateLimit"] == 500
    assert out["frameworks"] == ["ISO 27001", "SOC 2"]
    assert out["webhookUrl"] is None
    assert (out["dayRate"], out["currency"], out["showMethodology"]) == (None, None, False)
    # The brand and embed origins every key of the partner uses: `partners show` / `partners update`.
    partner = json.loads(runner.invoke(args=["partners", "show", "Acme Security", "--json"]).output)
    assert partner == {"id": partner["id"], "partner": "Acme Security", "embedOrigins": [],
                       "brand": {"name": None, "color": None, "logo": False, "whiteLabel": False}}
    result = runner.invoke(args=["partners", "update", "Acme Security", "--embed-origin", "https://portal.acme.example",
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["embedOrigins"] == ["https://portal.acme.example"]


def test_tier_defaults_and_override(runner):
    assert create(runner, "--partner", "a")["rateLimit"] == 100
    assert create(runner, "--partner", "a", "--tier", "trial")["rateLimit"] == 10
    assert create(runner, "--partner", "a", "--tier", "enterprise")["rateLimit"] == 1000
    assert create(runner, "--partner", "a", "--tier", "starter", "--rate-limit", "77")["rateLimit"] == 77


def test_created_key_works_on_the_api(runner, client):
    out = create(runner, "--partner", "acme")
    response = client.post("/api/v1/assessments", json=submission(),
                           headers={"Authorization": f"Bearer {out['apiKey']}"})
    assert response.status_code == 201


def test_key_stored_only_as_hash_and_secret_encrypted(runner, db):
    out = create(runner, "--partner", "acme")
    key = db.session.scalar(select(ApiKey).where(ApiKey.id == out["id"]))
    stored = " ".join(str(getattr(key, c.key)) for c in ApiKey.__table__.columns)
    assert out["apiKey"] not in stored and out["apiKey"][4:] not in stored
    assert out["webhookSecret"] not in stored and out["webhookSecret"][6:] not in stored
    from app.keys.crypto import decrypt_secret

    assert decrypt_secret(key.webhook_secret_encrypted) == out["webhookSecret"]


def test_list_masks_keys(runner):
    out = create(runner, "--partner", "acme")
    result = runner.invoke(args=["keys", "list"])
    assert result.exit_code == 0
    assert f"crs_…{out['apiKey'][-4:]}" in result.output
    assert out["apiKey"] not in result.output
    listed = json.loads(runner.invoke(args=["keys", "list", "--json"]).output)
    assert listed[0]["key"] == f"crs_…{out['apiKey'][-4:]}"


def test_update_changes_settings(runner, client):
    out = create(runner, "--partner", "acme")
    result = runner.invoke(args=["keys", "update", str(out["id"]), "--tier", "trial", "--framework", "HIPAA", "--json"])
    assert result.exit_code == 0, result.output
    settings = json.loads(result.output)
    assert settings["rateLimit"] == 10 and settings["frameworks"] == ["HIPAA"]
    response = client.post("/api/v1/assessments", json=submission(),
                           headers={"Authorization": f"Bearer {out['apiKey']}"})
    assert response.status_code == 403
    result = runner.invoke(args=["keys", "update", str(out["id"]), "--all-frameworks", "--rate-limit", "42", "--json"])
    settings = json.loads(result.output)
    assert settings["frameworks"] == [] and settings["rateLimit"] == 42 and settings["tier"] == "trial"


def test_rotate_webhook_secret(runner, db):
    out = create(runner, "--partner", "acme")
    result = runner.invoke(args=["keys", "rotate-webhook-secret", str(out["id"]), "--json"])
    rotated = json.loads(result.output)
    assert list(rotated) == ["id", "webhookSecret"] and rotated["id"] == out["id"]
    assert re.fullmatch(r"whsec_[0-9a-f]{64}", rotated["webhookSecret"])
    assert rotated["webhookSecret"] != out["webhookSecret"]
    from app.keys.crypto import decrypt_secret

    key = db.session.get(ApiKey, out["id"])
    assert decrypt_secret(key.webhook_secret_encrypted) == rotated["webhookSecret"]


def test_unknown_key_id_fails_cleanly(runner):
    for command in (["revoke", "999"], ["rotate-webhook-secret", "999"], ["update", "999", "--tier", "trial"]):
        result = runner.invoke(args=["keys", *command])
        assert result.exit_code != 0 and "no key with id 999" in result.output


def test_invalid_settings_are_refused(runner):
    for args in (["--webhook-url", "ftp://example.com/hook"], ["--webhook-url", "http://127.0.0.1:9/hook"]):
        result = runner.invoke(args=["keys", "create", "--partner", "acme", *args])
        assert result.exit_code != 0
        assert "Error" in result.output
    create(runner, "--partner", "acme")
    result = runner.invoke(args=["partners", "update", "acme", "--embed-origin", "not an origin"])
    assert result.exit_code != 0
    assert "Error" in result.output and "embed origin must look like https://example.com" in result.output


def test_ensure_demo_prints_once_with_working_curl(runner, client):
    first = runner.invoke(args=["keys", "ensure-demo", "--base-url", "http://127.0.0.1:8000"])
    assert first.exit_code == 0
    key = re.search(r"crs_[0-9a-f]{64}", first.output).group(0)
    assert "curl -s -X POST http://127.0.0.1:8000/api/v1/assessments" in first.output
    body = re.search(r"-d '(.*)'", first.output).group(1)
    response = client.post("/api/v1/assessments", data=body,
                           headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    assert response.status_code == 201
    second = runner.invoke(args=["keys", "ensure-demo"])
    assert second.exit_code == 0 and not re.search(r"crs_[0-9a-f]{64}", second.output)
    assert "keys create --partner" in second.output


def test_key_changes_apply_to_the_next_request_of_another_app(app_factory, make_key, runner):
    """Another app on the same database (as another serving process) keeps no copy of the key."""
    issued = make_key(rate_limit=500)
    other_process = app_factory().test_client()
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    assert other_process.get("/api/v1/personas", headers=headers).status_code == 200

    assert runner.invoke(args=["keys", "update", str(issued.key.id), "--framework", "SOC 2", "--tier", "trial"]
                         ).exit_code == 0
    refused = other_process.post("/api/v1/assessments", json=submission(), headers=headers)
    assert refused.status_code == 403 and refused.get_json()["code"] == "framework_not_allowed"
    assert refused.headers["X-RateLimit-Limit"] == "10"  # the trial tier's limit, from this request on

    assert runner.invoke(args=["keys", "revoke", str(issued.key.id)]).exit_code == 0
    assert other_process.get("/api/v1/personas", headers=headers).status_code == 401
