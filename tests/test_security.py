"""Security review items: secrets at rest, token entropy, and what never reaches a log line."""

from __future__ import annotations

import json
import logging
import math
import re

from sqlalchemy import select, text

from app.assessments import new_token
from app.models import ApiKey
from app.webhooks.outbox import new_delivery_id
from tests.factories import submission


def test_tokens_carry_at_least_128_bits():
    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    sample = next(iter(tokens))
    assert re.fullmatch(r"[A-Za-z0-9_-]+", sample)
    assert len(sample) * math.log2(64) >= 128
    delivery = new_delivery_id()
    assert len(delivery.removeprefix("dlv_")) * 4 >= 128


def test_database_holds_no_plaintext_key_or_secret(runner, db):
    out = json.loads(runner.invoke(args=["keys", "create", "--partner", "acme", "--json"]).output)
    rotated = json.loads(runner.invoke(args=["keys", "rotate-webhook-secret", str(out["id"]), "--json"]).output)
    embed = json.loads(runner.invoke(args=["keys", "rotate-embed-secret", str(out["id"]), "--json"]).output)
    dump = " ".join(str(value) for row in db.session.execute(text("SELECT * FROM api_keys")) for value in row)
    for secret in (out["apiKey"], out["webhookSecret"], rotated["webhookSecret"], out["embedSecret"],
                   embed["embedSecret"]):
        assert secret not in dump and secret.split("_", 1)[1] not in dump
    key = db.session.scalar(select(ApiKey))
    assert key.key_hash != out["apiKey"] and len(key.key_hash) == 64


def test_no_key_secret_or_company_id_in_logs(app, client, runner, caplog):
    caplog.set_level(logging.DEBUG)
    out = json.loads(runner.invoke(args=["keys", "create", "--partner", "acme", "--json"]).output)
    auth = {"Authorization": f"Bearer {out['apiKey']}"}
    record = client.post("/api/v1/assessments", json=submission(companyId="client_4711"), headers=auth).get_json()
    client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    client.get(f"/api/v1/assessments/{record['id']}", headers=auth)
    client.get("/api/v1/assessments", headers={"Authorization": "Bearer " + out["apiKey"][:-1] + "0"})
    client.post("/api/v1/assessments", data="{broken", headers={**auth, "Content-Type": "application/json"})
    runner.invoke(args=["keys", "list"])
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    for needle in (out["apiKey"], out["apiKey"][4:], out["webhookSecret"], out["embedSecret"], "client_4711"):
        assert needle not in logged
