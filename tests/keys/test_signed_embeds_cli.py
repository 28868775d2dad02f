"""Signed embeds from the `keys` CLI: every new key gets an embed secret, shown once and stored encrypted;
`--require-signed-embeds/--no-require-signed-embeds` on create and update; `rotate-embed-secret`."""

from __future__ import annotations

import json
import re
import time

from app.extensions import db
from app.keys.crypto import decrypt_secret
from app.models import ApiKey
from tests.embed import embed_path, generate, submit
from tests.embed.test_signed_embeds import signed


def create(runner, *args) -> dict:
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def update(runner, key_id: int, *args):
    return runner.invoke(args=["keys", "update", str(key_id), *args, "--json"])


def stored(app, key_id: int) -> tuple[bool, str | None]:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        return key.require_signed_embeds, key.embed_secret_encrypted


def test_a_new_key_has_an_embed_secret_shown_once_and_stored_encrypted(app, runner):
    out = create(runner)
    assert re.fullmatch(r"embsec_[0-9a-f]{64}", out["embedSecret"]) and out["requireSignedEmbeds"] is False
    required, encrypted = stored(app, out["id"])
    assert required is False and out["embedSecret"][7:] not in encrypted
    with app.app_context():
        assert decrypt_secret(encrypted) == out["embedSecret"]
    listed = runner.invoke(args=["keys", "list", "--json"]).output
    assert out["embedSecret"] not in listed and json.loads(listed)[0]["requireSignedEmbeds"] is False
    text = runner.invoke(args=["keys", "create", "--partner", "Acme Security"]).output
    assert re.search(r"Embed secret: +embsec_[0-9a-f]{64}", text)


def test_create_and_update_set_the_requirement(app, runner):
    assert create(runner, "--require-signed-embeds")["requireSignedEmbeds"] is True
    key_id = create(runner)["id"]
    result = update(runner, key_id, "--require-signed-embeds")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["requireSignedEmbeds"] is True and stored(app, key_id)[0] is True
    assert update(runner, key_id, "--tier", "starter").exit_code == 0          # other changes keep it
    assert stored(app, key_id)[0] is True
    lines = runner.invoke(args=["keys", "list"]).output
    assert f"{key_id:>4}  " in lines and "embeds=signed" in lines
    assert update(runner, key_id, "--no-require-signed-embeds").exit_code == 0
    assert stored(app, key_id)[0] is False
    assert "embeds=permanent" in runner.invoke(args=["keys", "list"]).output


def test_requiring_signatures_needs_an_embed_secret(app, runner):
    """A key made before this release has none: the operator rotates one first, and nothing is changed meanwhile."""
    key_id = create(runner)["id"]
    with app.app_context():
        db.session.get(ApiKey, key_id).embed_secret_encrypted = None
        db.session.commit()
    result = update(runner, key_id, "--require-signed-embeds", "--tier", "starter")
    assert result.exit_code == 1 and "no embed secret yet: rotate its embed secret" in result.output
    assert stored(app, key_id) == (False, None)
    rotated = runner.invoke(args=["keys", "rotate-embed-secret", str(key_id), "--json"])
    assert rotated.exit_code == 0, rotated.output
    assert re.fullmatch(r"embsec_[0-9a-f]{64}", json.loads(rotated.output)["embedSecret"])
    assert update(runner, key_id, "--require-signed-embeds").exit_code == 0
    assert stored(app, key_id)[0] is True


def test_rotating_the_embed_secret_switches_the_signatures_at_once(app, runner, client):
    out = create(runner, "--require-signed-embeds")
    auth = {"Authorization": f"Bearer {out['apiKey']}"}
    record = submit(client, auth)
    generate(client, auth, record["id"])
    old = signed(embed_path(record), out["embedSecret"])
    assert client.get(old).status_code == 200
    result = runner.invoke(args=["keys", "rotate-embed-secret", str(out["id"])])
    assert result.exit_code == 0, result.output
    new_secret = re.search(r"embsec_[0-9a-f]{64}", result.output).group(0)
    assert new_secret != out["embedSecret"] and "not shown again" in result.output
    assert client.get(old).status_code == 403
    assert client.get(signed(embed_path(record), new_secret, int(time.time()) + 60)).status_code == 200
    assert runner.invoke(args=["keys", "rotate-embed-secret", "999"]).exit_code == 1
