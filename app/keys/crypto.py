"""Encryption at rest of webhook and embed secrets, keyed from SECRET_KEY.

Secrets are encrypted with the current SECRET_KEY and decrypted with it or any key in SECRET_KEY_FALLBACKS
(Flask's own setting, which also keeps portal sign-ins valid across a rotation), through `MultiFernet`;
`flask keys reencrypt-secrets` re-encrypts every stored secret with the current key, after which the old key
can leave the fallbacks. The routine is in the README ("Rotating SECRET_KEY").
"""

from __future__ import annotations

import base64
from functools import lru_cache

from cryptography.fernet import Fernet, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app


@lru_cache(maxsize=16)
def _fernet(secret_key: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"crs-webhook-secrets",
                   info=b"fernet-v1").derive(secret_key.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def _keys() -> MultiFernet:
    """The current key first (it encrypts), then the fallbacks, newest first (they only decrypt)."""
    config = current_app.config
    return MultiFernet([_fernet(config["SECRET_KEY"]),
                        *(_fernet(old) for old in config.get("SECRET_KEY_FALLBACKS") or ())])


def encrypt_secret(plaintext: str) -> str:
    """Encrypt a secret for storage, with the current SECRET_KEY."""
    return _keys().encrypt(plaintext.encode()).decode()


def decrypt_secret(token: str, ttl: int | None = None) -> str:
    """Decrypt a stored secret, encrypted with the current SECRET_KEY or one of SECRET_KEY_FALLBACKS.

    With `ttl`, a token encrypted more than `ttl` seconds ago is refused (`InvalidToken`)."""
    return _keys().decrypt(token.encode(), ttl=ttl).decode()


def reencrypt_secret(token: str) -> str:
    """The stored secret encrypted with the current SECRET_KEY (unchanged in content)."""
    return _keys().rotate(token.encode()).decode()
