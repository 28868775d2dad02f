"""Encryption at rest of webhook secrets, keyed from SECRET_KEY."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app


def _fernet(secret_key: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"crs-webhook-secrets",
                   info=b"fernet-v1").derive(secret_key.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def encrypt_secret(plaintext: str) -> str:
    """Encrypt a webhook secret for storage."""
    return _fernet(current_app.config["SECRET_KEY"]).encrypt(plaintext.encode()).decode()


def decrypt_secret(token: str) -> str:
    """Decrypt a stored webhook secret."""
    return _fernet(current_app.config["SECRET_KEY"]).decrypt(token.encode()).decode()
