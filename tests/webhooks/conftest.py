"""Webhook tests: an app allowed to call loopback, its sender running, a real receiver."""

from __future__ import annotations

import pytest

from tests.support.processes import wait_until  # noqa: F401 - re-exported for the webhook tests
from tests.support.receiver import WebhookReceiver

FAST = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": True, "WEBHOOK_BACKOFF_SECONDS": (0.2, 0.4),
        "WEBHOOK_TIMEOUT_SECONDS": 2.0, "WEBHOOK_MAX_ATTEMPTS": 3}


@pytest.fixture
def app(app_factory):
    application = app_factory(**FAST)
    application.extensions["webhook_sender"].start()
    return application


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


@pytest.fixture
def hooked(make_key, receiver):
    """A key whose webhook URL is the receiver: (auth headers, IssuedKey)."""
    issued = make_key(webhook_url=receiver.url)
    return {"Authorization": f"Bearer {issued.api_key}"}, issued
