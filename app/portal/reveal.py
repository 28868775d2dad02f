"""The show-once page of a new key or secret, by post/redirect/get.

The POST that creates a key (or rotates a secret) keeps the plaintext for the one GET that shows it:
encrypted with the server's key (app/keys/crypto.py) in the portal's session, for at most
REVEAL_SECONDS. That GET takes it out of the session, so a reload shows nothing and creates nothing.
"""

from __future__ import annotations

import json
import shlex

from cryptography.fernet import InvalidToken
from flask import session

from ..keys.crypto import decrypt_secret, encrypt_secret
from ..models import ApiKey

SESSION_REVEAL = "portal_reveal"
REVEAL_SECONDS = 10 * 60  # long enough for a slow redirect, short enough that a stale cookie shows nothing
FIELDS = ("api_key", "webhook_secret", "embed_secret")
SAMPLE_FRAMEWORK = "ISO 27001"


def keep(key: ApiKey, **secrets: str | None) -> None:
    """Keep the new key and secrets of `key` for the next show-once page (replacing any not shown yet)."""
    payload = {"key": key.id, **{name: value for name, value in secrets.items() if name in FIELDS and value}}
    session[SESSION_REVEAL] = encrypt_secret(json.dumps(payload))


def take(key: ApiKey) -> dict[str, str] | None:
    """The kept key and secrets of `key`, removed from the session; None once shown (or expired, or another key's)."""
    token = session.pop(SESSION_REVEAL, None)
    if not isinstance(token, str):
        return None
    try:
        payload = json.loads(decrypt_secret(token, ttl=REVEAL_SECONDS))
    except (InvalidToken, ValueError):
        return None
    if not isinstance(payload, dict) or payload.get("key") != key.id:
        return None
    shown = {name: payload[name] for name in FIELDS if isinstance(payload.get(name), str)}
    return shown or None


def sample_curl(base_url: str, api_key: str, key: ApiKey) -> str:
    """A shell command that submits a sample assessment with the key: every argument quoted for a POSIX shell."""
    framework = key.frameworks[0] if key.frameworks else SAMPLE_FRAMEWORK
    body = json.dumps({"companyId": "client_1042", "displayName": "Northwind Clinics", "industry": "Healthcare",
                       "framework": framework, "policy": "YES", "requirements": [
                           {"id": "A.5.1", "title": "Policies for information security", "status": "met"},
                           {"id": "A.5.15", "title": "Access control", "status": "not_met"},
                           {"id": "A.8.13", "title": "Information backup", "status": "partially_met"}]})
    return (f"curl -sS -X POST {shlex.quote(base_url.rstrip('/') + '/api/v1/assessments')} \\\n"
            f"  -H {shlex.quote('Authorization: Bearer ' + api_key)} \\\n"
            f"  -H {shlex.quote('Content-Type: application/json')} \\\n"
            f"  -d {shlex.quote(body)}")
