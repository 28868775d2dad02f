"""Optional two-factor sign-in for portal users: a TOTP code from an authenticator app (RFC 6238, pyotp) after the
password, or one of ten single-use recovery codes.

Turning it on takes a code from the app (so a secret the app never received is never required); the recovery codes
are shown once and kept as SHA-256 hashes; the secret is encrypted like the webhook secrets.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import pyotp

from ..keys.crypto import decrypt_secret, encrypt_secret
from ..models import User

ISSUER = "Compliance Reports"
RECOVERY_CODES = 10


def new_secret() -> str:
    return pyotp.random_base32()


def provisioning_uri(secret: str, email: str) -> str:
    """The otpauth:// URI an authenticator app takes (typed or pasted: the portal draws no QR code)."""
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=ISSUER)


def code_matches(secret: str, code: str) -> bool:
    """A six-digit code of this 30-second step or the one on either side (clocks drift)."""
    digits = "".join(code.split())
    return len(digits) == 6 and digits.isascii() and digits.isdigit() and pyotp.TOTP(secret).verify(
        digits, valid_window=1)


def _hash(code: str) -> str:
    return hashlib.sha256("".join(code.lower().split()).replace("-", "").encode()).hexdigest()


def turn_on(user: User, secret: str) -> list[str]:
    """Keep the secret; returns the recovery codes, in plain text only this once. The caller commits."""
    codes = [f"{secrets.token_hex(3)}-{secrets.token_hex(3)}" for _ in range(RECOVERY_CODES)]
    user.totp_secret_encrypted = encrypt_secret(secret)
    user.recovery_code_hashes = [_hash(code) for code in codes]
    return codes


def turn_off(user: User) -> None:
    user.totp_secret_encrypted = None
    user.recovery_code_hashes = None


def is_on(user: User) -> bool:
    return bool(user.totp_secret_encrypted)


def check(user: User, code: str) -> bool:
    """The user's current code, or an unused recovery code (used up now); the caller commits."""
    if not is_on(user) or not code or len(code) > 40:
        return False
    if code_matches(decrypt_secret(user.totp_secret_encrypted), code):
        return True
    wanted = _hash(code)
    remaining = list(user.recovery_code_hashes or [])
    for stored in remaining:
        if hmac.compare_digest(stored, wanted):
            remaining.remove(stored)
            user.recovery_code_hashes = remaining
            return True
    return False
