"""Issue 31: SECRET_KEY can be rotated without signing anyone out or losing a stored secret. The new key goes in
SECRET_KEY with the old one in SECRET_KEY_FALLBACKS; `flask keys reencrypt-secrets` then moves every stored secret
to the new key, and the old one can go."""

from __future__ import annotations

import pytest
from cryptography.fernet import InvalidToken
from sqlalchemy import select

from app.extensions import db
from app.keys.crypto import decrypt_secret
from app.keys.service import issue_api_key
from app.models import ApiKey
from tests.portal import make_user, sign_in

OLD, NEW = "test-secret-key", "a-new-secret-key-after-a-suspected-leak"


def stored_secret(app) -> str:
    with app.app_context():
        key = db.session.scalar(select(ApiKey).where(ApiKey.name == "rotating"))
        return decrypt_secret(key.webhook_secret_encrypted)


def signed_in_elsewhere(app, client) -> int:
    """The status of the portal's keys page for `app`, with the session cookie `client` holds."""
    name = app.config["SESSION_COOKIE_NAME"]
    cookie = client.get_cookie(name, path="/portal")
    other = app.test_client()
    other.set_cookie(name, cookie.value, path="/portal")
    return other.get("/portal/keys").status_code


def test_a_sign_in_and_the_stored_secrets_survive_a_secret_key_rotation(app_factory):
    before = app_factory()
    assert before.config["SECRET_KEY"] == OLD
    make_user(before)
    client = before.test_client()
    assert sign_in(client).status_code == 302
    with before.app_context():
        issued = issue_api_key("Acme Security", name="rotating")   # every key has a webhook secret
        db.session.commit()

    rotated = app_factory(SECRET_KEY=NEW, SECRET_KEY_FALLBACKS=[OLD])
    assert signed_in_elsewhere(rotated, client) == 200          # still signed in
    assert stored_secret(rotated) == issued.webhook_secret       # and the webhook secret still reads

    # without the fallback, the old sign-in and the stored secrets are lost: what the setting prevents
    forgotten = app_factory(SECRET_KEY=NEW)
    assert signed_in_elsewhere(forgotten, client) == 302
    with pytest.raises(InvalidToken):
        stored_secret(forgotten)

    result = rotated.test_cli_runner().invoke(args=["keys", "reencrypt-secrets"])
    assert result.exit_code == 0 and "Re-encrypted" in result.output, result.output
    assert stored_secret(forgotten) == issued.webhook_secret     # the old key is no longer needed for secrets
    with rotated.app_context():
        embed = db.session.scalar(select(ApiKey).where(ApiKey.name == "rotating")).embed_secret_encrypted
    with forgotten.app_context():
        assert decrypt_secret(embed) == issued.embed_secret


def test_fallbacks_are_read_from_the_environment_as_a_comma_separated_list():
    from app.config import settings_from_env
    settings = settings_from_env("/tmp", {"SECRET_KEY_FALLBACKS": " old-two , old-one,"})
    assert settings["SECRET_KEY_FALLBACKS"] == ["old-two", "old-one"]
    assert settings_from_env("/tmp", {})["SECRET_KEY_FALLBACKS"] == []
