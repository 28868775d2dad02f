"""Per-key limits on a 1-hour sliding window, as a partner's client sees them."""

from __future__ import annotations

import logging
import os
import time

import pytest

from tests.factories import submission

REDIS_URL = os.environ.get("TEST_REDIS_URL")


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


@pytest.fixture
def clock(monkeypatch):
    """A controllable time.time, read by limits and Flask-Limiter at call time."""
    now = [1_900_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def test_headers_on_success(client, make_key, clock):
    headers = bearer(make_key())
    response = client.get("/api/v1/assessments", headers=headers)
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Limit"] == "100"
    assert response.headers["X-RateLimit-Remaining"] == "99"
    assert int(response.headers["X-RateLimit-Reset"]) == int(clock[0]) + 3600
    assert response.headers["RateLimit-Policy"] == '"hourly";q=100;w=3600'
    assert response.headers["RateLimit"] == '"hourly";r=99;t=3600'
    assert "Retry-After" not in response.headers


def test_errors_count_and_carry_headers(client, make_key):
    headers = bearer(make_key())
    client.get("/api/v1/assessments", headers=headers)
    not_found = client.get("/api/v1/assessments/424242", headers=headers)
    assert not_found.status_code == 404 and not_found.headers["X-RateLimit-Remaining"] == "98"
    invalid = client.post("/api/v1/assessments", json={"bad": 1}, headers=headers)
    assert invalid.status_code == 422 and invalid.headers["X-RateLimit-Remaining"] == "97"
    assert "Retry-After" not in invalid.headers


def test_401_carries_no_rate_limit_headers(client):
    response = client.get("/api/v1/assessments", headers={"Authorization": "Bearer crs_" + "0" * 64})
    assert response.status_code == 401
    for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "Retry-After"):
        assert name not in response.headers


@pytest.mark.parametrize("settings, limit", [({"tier": "trial"}, "10"), ({"tier": "starter"}, "50"),
                                             ({"tier": "professional"}, "500"), ({"tier": "enterprise"}, "1000"),
                                             ({"tier": "trial", "rate_limit": 7}, "7")])
def test_tiers_and_override(client, make_key, settings, limit):
    response = client.get("/api/v1/personas", headers=bearer(make_key(**settings)))
    assert response.headers["X-RateLimit-Limit"] == limit


def test_over_the_limit_is_429_with_retry_after(client, make_key, clock):
    headers = bearer(make_key(tier="trial"))
    first_at = clock[0]
    for _ in range(10):
        assert client.get("/api/v1/personas", headers=headers).status_code == 200
        clock[0] += 1
    response = client.get("/api/v1/assessments", headers=headers)
    assert response.status_code == 429
    body = response.get_json()
    expected = int(first_at + 3600 - clock[0])
    assert body["code"] == "rate_limited" and body["error"].startswith("Rate limit exceeded. Try again later.")
    assert (body["limit"], body["window"]) == (10, "1 hour")   # and how to get a higher tier (test_rate_limit_body)
    assert body["retryAfter"] == expected
    assert response.headers["Retry-After"] == str(body["retryAfter"])
    assert response.headers["X-RateLimit-Remaining"] == "0"


def test_one_window_shared_by_every_endpoint(client, make_key):
    headers = bearer(make_key(rate_limit=3))
    assert client.get("/api/v1/personas", headers=headers).status_code == 200
    assert client.get("/api/v1/methodologies", headers=headers).status_code == 200
    assert client.post("/api/v1/assessments", json=submission(), headers=headers).status_code == 201
    assert client.get("/api/v1/usage", headers=headers).status_code == 429


def test_keys_are_independent(client, make_key):
    exhausted, fresh = make_key(rate_limit=1), make_key(rate_limit=1)
    assert client.get("/api/v1/personas", headers=bearer(exhausted)).status_code == 200
    assert client.get("/api/v1/personas", headers=bearer(exhausted)).status_code == 429
    assert client.get("/api/v1/personas", headers=bearer(fresh)).status_code == 200


def test_the_window_slides(client, make_key, clock):
    """Requests spread over the hour free one slot each as the oldest leaves the window."""
    headers = bearer(make_key(rate_limit=3))
    start = clock[0]
    for offset in (0, 1200, 2400):  # at 0 min, 20 min, 40 min
        clock[0] = start + offset
        assert client.get("/api/v1/personas", headers=headers).status_code == 200
    clock[0] = start + 3000
    blocked = client.get("/api/v1/personas", headers=headers)
    assert blocked.status_code == 429 and blocked.get_json()["retryAfter"] == 600
    # A fixed clock-hour window would reset everything at once; the sliding window frees only the oldest.
    clock[0] = start + 3601
    freed = client.get("/api/v1/personas", headers=headers)
    assert freed.status_code == 200 and freed.headers["X-RateLimit-Remaining"] == "0"
    assert int(freed.headers["X-RateLimit-Reset"]) == int(start) + 1200 + 3600
    assert client.get("/api/v1/personas", headers=headers).status_code == 429
    clock[0] = start + 1200 + 3601
    assert client.get("/api/v1/personas", headers=headers).status_code == 200


def test_failed_authentication_is_throttled_per_address(client, make_key):
    bad = {"Authorization": "Bearer crs_" + "f" * 64}
    for _ in range(60):
        assert client.get("/api/v1/assessments", headers=bad).status_code == 401
    response = client.get("/api/v1/assessments", headers=bad)
    assert response.status_code == 429 and response.get_json()["code"] == "rate_limited"
    assert int(response.headers["Retry-After"]) >= 1
    assert client.get("/api/v1/assessments", headers=bearer(make_key())).status_code == 200


def test_client_address_from_trusted_proxy_only(app_factory, make_key):
    proxied = app_factory(TRUSTED_PROXIES=1, AUTH_FAILURE_RATE_LIMIT="2/minute").test_client()
    bad = {"Authorization": "Bearer nope"}
    for _ in range(2):
        assert proxied.get("/api/v1/personas", headers={**bad, "X-Forwarded-For": "203.0.113.7"}).status_code == 401
    assert proxied.get("/api/v1/personas", headers={**bad, "X-Forwarded-For": "203.0.113.7"}).status_code == 429
    assert proxied.get("/api/v1/personas", headers={**bad, "X-Forwarded-For": "198.51.100.9"}).status_code == 401

    direct = app_factory(AUTH_FAILURE_RATE_LIMIT="2/minute").test_client()
    for address in ("203.0.113.7", "198.51.100.9"):
        assert direct.get("/api/v1/personas", headers={**bad, "X-Forwarded-For": address}).status_code == 401
    assert direct.get("/api/v1/personas", headers={**bad, "X-Forwarded-For": "192.0.2.1"}).status_code == 429


def test_unreachable_redis_fails_open_with_a_warning(app_factory, make_key, caplog):
    app = app_factory(RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0")
    headers = bearer(make_key(rate_limit=1))
    with caplog.at_level(logging.WARNING):
        responses = [app.test_client().get("/api/v1/personas", headers=headers) for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert all("X-RateLimit-Limit" not in r.headers for r in responses)
    assert "rate limit" in caplog.text.lower()


def test_unreachable_redis_still_throttles_failed_authentication_in_memory(app_factory, make_key, caplog):
    """Only the per-key budget fails open; guessing keys stays limited per address, per process."""
    app = app_factory(RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0", AUTH_FAILURE_RATE_LIMIT="3/minute")
    client = app.test_client()
    valid = bearer(make_key(rate_limit=1))
    for headers in ({"Authorization": "Bearer crs_" + "f" * 64}, {"Authorization": "Bearer nope"}, {}):
        assert client.get("/api/v1/personas", headers=headers).status_code == 401
    with caplog.at_level(logging.WARNING):
        blocked = client.get("/api/v1/assessments", headers={"Authorization": "Bearer crs_" + "e" * 64})
    assert blocked.status_code == 429 and blocked.get_json()["code"] == "rate_limited"
    assert 1 <= int(blocked.headers["Retry-After"]) <= 60
    assert client.get("/api/v1/personas").status_code == 429  # no key at all: the same address budget
    # A valid key is still served, past its own hourly limit of 1, without rate-limit fields.
    served = [client.get("/api/v1/personas", headers=valid) for _ in range(3)]
    assert [r.status_code for r in served] == [200, 200, 200]
    assert all("X-RateLimit-Limit" not in r.headers for r in served)
    assert "falling back to in-memory storage" in caplog.text


@pytest.mark.skipif(not REDIS_URL, reason="TEST_REDIS_URL is not set")
def test_two_instances_on_redis_share_the_failed_authentication_budget(app_factory):
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    first = app_factory(RATELIMIT_STORAGE_URI=REDIS_URL, AUTH_FAILURE_RATE_LIMIT="4/minute").test_client()
    second = app_factory(RATELIMIT_STORAGE_URI=REDIS_URL, AUTH_FAILURE_RATE_LIMIT="4/minute").test_client()
    bad = {"Authorization": "Bearer nope"}
    assert [(first if i % 2 else second).get("/api/v1/personas", headers=bad).status_code
            for i in range(4)] == [401] * 4
    assert first.get("/api/v1/personas", headers=bad).status_code == 429
    assert second.get("/api/v1/personas", headers=bad).status_code == 429
    redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.mark.skipif(not REDIS_URL, reason="TEST_REDIS_URL is not set")
def test_two_instances_on_redis_share_one_budget(app_factory, make_key):
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    first = app_factory(RATELIMIT_STORAGE_URI=REDIS_URL).test_client()
    second = app_factory(RATELIMIT_STORAGE_URI=REDIS_URL).test_client()
    headers = bearer(make_key(rate_limit=5))
    statuses = [(first if i % 2 else second).get("/api/v1/personas", headers=headers).status_code for i in range(5)]
    assert statuses == [200] * 5
    assert first.get("/api/v1/personas", headers=headers).status_code == 429
    assert second.get("/api/v1/personas", headers=headers).status_code == 429
    redis.Redis.from_url(REDIS_URL).flushdb()


def test_embed_pages_are_limited_per_address_but_assets_are_not(app_factory):
    client = app_factory(EMBED_RATE_LIMIT="3/minute").test_client()
    for _ in range(3):
        assert client.get("/embed/assessment/unknown-token").status_code == 404
    limited = client.get("/embed/assessment/unknown-token")
    assert limited.status_code == 429 and limited.mimetype == "text/html"
    assert int(limited.headers["Retry-After"]) >= 1
    for _ in range(2):
        asset = client.get("/embed/static/embed.css")
        assert asset.status_code == 200
        asset.close()


def test_embed_pages_carry_no_partner_rate_limit_headers(client):
    page = client.get("/embed/assessment/unknown-token")
    assert page.status_code == 404
    assert "X-RateLimit-Limit" not in page.headers and "RateLimit" not in page.headers
