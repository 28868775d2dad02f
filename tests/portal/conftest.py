"""Fixtures the portal tests share."""

from __future__ import annotations

import pytest

from tests.portal import make_user, sign_in


@pytest.fixture
def signed_in(app, client):
    """The test client signed in as the partner's first portal user (a module may define its own)."""
    make_user(app)
    assert sign_in(client).status_code == 302
    return client
