"""Password reset by email, when the operator gives the portal an SMTP server (MAIL_* settings); without one the
sign-in page says the operator resets passwords with `flask users reset-password`.

A reset link carries the user's id and the fingerprint of their current password hash, signed and valid for an
hour: once the password changes (by this link or any other way) the link stops working, so it works once. Asking
for a link answers the same whether or not the email has an account, and is throttled like sign-in.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import threading
from email.message import EmailMessage

from flask import current_app, url_for
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ..embed.urls import public_base_url
from ..extensions import db
from ..models import User
from .accounts import find_user, session_fingerprint

log = logging.getLogger(__name__)

LINK_SECONDS = 3600
_SALT = "portal-password-reset"


def mail_configured() -> bool:
    return bool(current_app.config.get("MAIL_SERVER"))


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt=_SALT)


def link_for(user: User) -> str:
    token = _serializer().dumps({"u": user.id, "f": session_fingerprint(user)})
    return public_base_url() + url_for("portal.reset_password", token=token)


def user_for(token: str) -> User | None:
    """The active user a reset link names, while it is under an hour old and their password unchanged."""
    try:
        data = _serializer().loads(token, max_age=LINK_SECONDS)
    except BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    user = db.session.get(User, data["u"])
    if user is None or user.disabled_at is not None or data.get("f") != session_fingerprint(user):
        return None
    return user


def send_link(email: str) -> None:
    """Email a reset link to the account with this address, if there is one (and say nothing either way). The
    email leaves from a thread of its own, so the answer takes as long whether or not the address has an account."""
    user = find_user(email)
    if user is None or user.disabled_at is not None or user.invite_token_hash is not None:
        return
    config = current_app.config
    message = EmailMessage()
    message["Subject"] = f"Reset your {config['SERVICE_NAME']} portal password"
    message["From"] = config.get("MAIL_FROM") or f"no-reply@{config['MAIL_SERVER']}"
    message["To"] = user.email
    message.set_content(
        f"Someone asked to reset the password of {user.email} for the {user.partner.name} partner portal.\n\n"
        f"To choose a new password, open this link within an hour:\n\n{link_for(user)}\n\n"
        "It works once. If you did not ask for it, ignore this email: your password stays as it is.\n")
    settings = {name: config.get(name) for name in ("MAIL_SERVER", "MAIL_PORT", "MAIL_USE_TLS", "MAIL_USERNAME",
                                                    "MAIL_PASSWORD")}
    threading.Thread(target=_deliver, args=(settings, message), name="password-reset-mail", daemon=True).start()


def _deliver(settings: dict, message: EmailMessage) -> None:
    try:
        with smtplib.SMTP(settings["MAIL_SERVER"], settings["MAIL_PORT"], timeout=10) as smtp:
            if settings["MAIL_USE_TLS"]:
                smtp.starttls(context=ssl.create_default_context())
            if settings["MAIL_USERNAME"]:
                smtp.login(settings["MAIL_USERNAME"], settings["MAIL_PASSWORD"] or "")
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException):
        log.warning("password reset: could not send the email through %s", settings["MAIL_SERVER"], exc_info=True)
