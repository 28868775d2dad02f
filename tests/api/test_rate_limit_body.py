"""The 429 of a spent key budget says the key's limit and window, and the true way to a higher tier (issue 32)."""

from __future__ import annotations

import pytest

from app.keys.service import TIER_LIMITS
from app.ratelimit import key_limit_message


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def spend(client, headers, times: int) -> None:
    for _ in range(times):
        assert client.get("/api/v1/personas", headers=headers).status_code == 200


def test_a_spent_budget_says_limit_window_and_how_to_get_a_higher_tier(client, make_key):
    issued = make_key(tier="trial")
    spend(client, bearer(issued), TIER_LIMITS["trial"])
    response = client.get("/api/v1/assessments", headers=bearer(issued))
    assert response.status_code == 429
    body = response.get_json()
    assert list(body) == ["error", "retryAfter", "limit", "window", "code"]
    assert body["code"] == "rate_limited" and body["limit"] == 10 and body["window"] == "1 hour"
    assert response.headers["Retry-After"] == str(body["retryAfter"])
    assert response.headers["X-RateLimit-Limit"] == str(body["limit"])
    message = body["error"]
    assert message.startswith("Rate limit exceeded. Try again later. This key allows 10 requests an hour")
    assert "starter 50, standard 100, professional 500, enterprise 1,000 an hour" in message
    assert "partner portal (Keys, Edit settings)" in message and "tier cap" in message
    assert "ask whoever runs Compliance Report Service" in message and "account manager" not in message
    assert f"`flask --app wsgi keys update {issued.key.id} --tier starter`" in message
    assert "`flask --app wsgi partners set-max-tier`" in message


def test_the_sentence_names_the_service_as_configured(app_factory, make_key):
    client = app_factory(SERVICE_NAME="Acme Reports").test_client()
    issued = make_key(rate_limit=1)
    spend(client, bearer(issued), 1)
    assert "ask whoever runs Acme Reports" in client.get("/api/v1/personas", headers=bearer(issued)).get_json()["error"]


def test_a_rate_limit_override_is_the_limit_stated(client, make_key):
    issued = make_key(tier="standard", rate_limit=3)
    spend(client, bearer(issued), 3)
    body = client.get("/api/v1/usage", headers=bearer(issued)).get_json()
    assert body["limit"] == 3 and "This key allows 3 requests an hour" in body["error"]


@pytest.mark.parametrize("limit, tiers, tier", [
    (100, "Higher tiers: professional 500, enterprise 1,000 an hour.", "professional"),
    (500, "Higher tier: enterprise 1,000 an hour.", "enterprise"),
])
def test_the_sentence_names_only_the_tiers_above_the_key(limit, tiers, tier):
    message = key_limit_message(limit, 3600, 7)
    assert f"This key allows {limit:,} requests an hour (a sliding window). {tiers}" in message
    assert f"keys update 7 --tier {tier}`" in message


def test_at_the_top_tier_the_sentence_asks_for_a_custom_limit():
    message = key_limit_message(TIER_LIMITS["enterprise"], 3600, 7)
    assert "1,000 requests an hour (a sliding window), the most of any tier" in message
    assert "keys update 7 --rate-limit N" in message and "--tier" not in message


def test_the_per_address_limit_of_failed_authentication_names_no_key_budget(app_factory):
    client = app_factory(AUTH_FAILURE_RATE_LIMIT="2/minute").test_client()
    bad = {"Authorization": "Bearer crs_" + "f" * 64}
    for _ in range(2):
        assert client.get("/api/v1/assessments", headers=bad).status_code == 401
    body = client.get("/api/v1/assessments", headers=bad).get_json()
    assert body["code"] == "rate_limited" and body["error"] == "Rate limit exceeded. Try again later."
    assert "limit" not in body and "window" not in body
