"""Webhooks: URL safety, the outbox, signing and the sender (a dispatcher thread and a worker pool)."""

from __future__ import annotations

from flask import Flask

from .sender import WebhookSender


def init_app(app: Flask) -> None:
    """Give the app its sender; it starts only with `start_background_work`, in a serving process."""
    app.extensions["webhook_sender"] = WebhookSender(app)
