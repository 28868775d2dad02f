"""`GET` and `PATCH /api/v1/key`: a key reads and changes its own report settings (dayRate, currency,
showMethodology) through the API, authenticated and rate-limited like every other endpoint, documented in
the OpenAPI document with examples shaped like the real answers."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import ApiKey

FIELDS = {"id", "key", "name", "livemode", "tier", "rateLimit", "frameworks", "dayRate", "currency",
          "showMethodology", "requireSignedEmbeds", "createdAt"}


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def patch(client, auth, body, **kwargs):
    return client.patch("/api/v1/key", json=body, headers=auth, **kwargs)


def stored(app, key_id: int) -> tuple:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        return key.day_rate, key.currency, key.show_methodology


def test_get_shows_the_calling_key_and_nothing_secret(client, make_key):
    issued = make_key("acme", name="Production", frameworks=["ISO 27001"])
    response = client.get("/api/v1/key", headers=bearer(issued))
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == FIELDS
    assert body["id"] == issued.key.id and body["key"] == f"crs_…{issued.api_key[-4:]}"
    assert (body["dayRate"], body["currency"], body["showMethodology"], body["livemode"]) == (None, None, False, True)
    assert body["name"] == "Production" and body["frameworks"] == ["ISO 27001"] and body["tier"] == "standard"
    text = response.get_data(as_text=True)
    assert issued.api_key not in text and issued.webhook_secret not in text and "whsec_" not in text
    # Rate-limited like the rest of /api/v1: the same hourly window.
    assert response.headers["X-RateLimit-Limit"] == "100" and "X-RateLimit-Remaining" in response.headers
    test_key = make_key("acme", livemode=False)
    assert client.get("/api/v1/key", headers=bearer(test_key)).get_json()["livemode"] is False


def test_patch_sets_clears_and_leaves_the_rest(app, client, make_key):
    issued = make_key()
    auth = bearer(issued)
    response = patch(client, auth, {"dayRate": 1200, "currency": "EUR"})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert set(body) == FIELDS and (body["dayRate"], body["currency"], body["showMethodology"]) == (1200, "EUR", False)
    assert stored(app, issued.key.id) == (1200, "EUR", False)
    assert client.get("/api/v1/key", headers=auth).get_json() == body

    body = patch(client, auth, {"showMethodology": True}).get_json()          # the others unchanged
    assert (body["dayRate"], body["currency"], body["showMethodology"]) == (1200, "EUR", True)
    body = patch(client, auth, {"dayRate": None}).get_json()                  # null clears
    assert (body["dayRate"], body["currency"], body["showMethodology"]) == (None, "EUR", True)
    assert patch(client, auth, {}).get_json() == body                         # nothing asked, nothing changed
    body = patch(client, auth, {"currency": None, "showMethodology": False}).get_json()
    assert (body["dayRate"], body["currency"], body["showMethodology"]) == (None, None, False)
    body = patch(client, auth, {"dayRate": 480}).get_json()                   # without a currency: USD
    assert (body["dayRate"], body["currency"]) == (480, "USD")
    assert stored(app, issued.key.id)[:2] == (480, "USD")


@pytest.mark.parametrize(("body", "field"), [
    ({"dayRate": 0}, "dayRate"), ({"dayRate": 1_000_001}, "dayRate"), ({"dayRate": -1}, "dayRate"),
    ({"dayRate": 2.5}, "dayRate"), ({"dayRate": 1200.0}, "dayRate"), ({"dayRate": "1200"}, "dayRate"),
    ({"dayRate": True}, "dayRate"), ({"dayRate": 2.5e-42}, "dayRate"), ({"dayRate": ""}, "dayRate"),
    ({"currency": "usd"}, "currency"), ({"currency": "XYZ"}, "currency"), ({"currency": ""}, "currency"),
    ({"currency": 978}, "currency"), ({"showMethodology": "true"}, "showMethodology"),
    ({"showMethodology": 1}, "showMethodology"), ({"showMethodology": None}, "showMethodology"),
    ({"dayrate": 1200}, "dayrate"), ({"brandName": "Acme"}, "brandName"),
])
def test_invalid_or_unknown_fields_are_422_and_change_nothing(app, client, make_key, body, field):
    issued = make_key()
    auth = bearer(issued)
    assert patch(client, auth, {"dayRate": 900, "currency": "GBP"}).status_code == 200
    response = patch(client, auth, {**body, "showMethodology": True} if field != "showMethodology" else body)
    assert response.status_code == 422
    error = response.get_json()
    assert error["code"] == "validation_error" and error["error"] == "Some fields are invalid; see details."
    assert list(error["details"]) == [field], error
    assert stored(app, issued.key.id) == (900, "GBP", False)


def test_the_messages_say_what_is_allowed(client, auth):
    details = patch(client, auth, {"dayRate": 0, "currency": "usd", "extra": 1}).get_json()["details"]
    assert details == {"dayRate": ["Must be a whole number from 1 to 1,000,000, or null."],
                       "currency": ["Must be one of: USD, EUR, GBP, CAD, AUD, NZD, CHF, SEK, NOK, DKK, JPY, SGD,"
                                    " INR, ZAR (upper-case), or null."],
                       "extra": ["Unknown field."]}


def test_bodies_that_are_not_a_json_object(client, auth):
    assert client.patch("/api/v1/key", headers=auth).get_json()["code"] == "invalid_json"
    assert patch(client, auth, [1]).get_json()["code"] == "invalid_json"
    response = client.patch("/api/v1/key", data="dayRate=1", headers={**auth, "Content-Type": "text/plain"})
    assert response.status_code == 415 and response.get_json()["code"] == "unsupported_media_type"
    response = client.put("/api/v1/key", json={}, headers=auth)
    assert response.status_code == 405 and set(response.headers["Allow"].split(", ")) >= {"GET", "PATCH"}


def test_a_key_changes_only_itself(app, client, make_key):
    mine, other = make_key("acme"), make_key("acme")
    stranger = make_key("globex")
    assert patch(client, bearer(mine), {"dayRate": 1500, "showMethodology": True}).status_code == 200
    assert stored(app, mine.key.id) == (1500, "USD", True)
    assert stored(app, other.key.id) == (None, None, False)      # the same partner's other key
    assert stored(app, stranger.key.id) == (None, None, False)
    assert client.get("/api/v1/key", headers=bearer(other)).get_json()["dayRate"] is None


def test_authenticated_like_the_rest(app, client, runner, make_key):
    assert client.get("/api/v1/key").status_code == 401
    response = patch(client, {"Authorization": "Bearer crs_" + "0" * 64}, {"dayRate": 5})
    assert response.status_code == 401 and response.get_json()["code"] == "unauthorized"
    issued = make_key()
    assert runner.invoke(args=["keys", "revoke", str(issued.key.id)]).exit_code == 0
    assert patch(client, bearer(issued), {"dayRate": 5}).status_code == 401
    assert stored(app, issued.key.id) == (None, None, False)


def test_the_hourly_limit_covers_the_key_endpoint(client, make_key):
    auth = bearer(make_key(rate_limit=2))
    assert client.get("/api/v1/key", headers=auth).status_code == 200
    assert patch(client, auth, {"dayRate": 10}).status_code == 200
    limited = patch(client, auth, {"dayRate": 20})
    assert limited.status_code == 429 and limited.get_json()["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) >= 1


def test_openapi_documents_both_operations_with_examples_of_the_real_shape(client, auth):
    document = client.get("/openapi.json").get_json()
    item = document["paths"]["/api/v1/key"]
    assert set(item) >= {"get", "patch"}
    update = document["components"]["schemas"]["KeyUpdate"]
    assert update["additionalProperties"] is False
    assert set(update["properties"]) == {"dayRate", "currency", "showMethodology"}
    assert update["properties"]["dayRate"]["minimum"] == 1 and update["properties"]["dayRate"]["maximum"] == 1_000_000
    assert "EUR" in update["properties"]["currency"]["enum"]
    request = item["patch"]["requestBody"]["content"]["application/json"]
    assert request["schema"] == {"$ref": "#/components/schemas/KeyUpdate"} and request["examples"]
    assert "validation_error" in item["patch"]["responses"]["422"]["content"]["application/json"]["examples"]
    for method in ("get", "patch"):
        assert "401" in item[method]["responses"] and "429" in item[method]["responses"]
        assert "X-RateLimit-Limit" in item[method]["responses"]["200"]["headers"]
    real = client.get("/api/v1/key", headers=auth).get_json()
    for method in ("get", "patch"):
        for example in item[method]["responses"]["200"]["content"]["application/json"]["examples"].values():
            assert set(example["value"]) == set(real), method
    for name, example in request["examples"].items():
        response = patch(client, auth, example["value"])
        assert response.status_code == 200, (name, response.get_json())
        documented = item["patch"]["responses"]["200"]["content"]["application/json"]["examples"][name]["value"]
        assert {k: response.get_json()[k] for k in ("dayRate", "currency", "showMethodology")} == {
            k: documented[k] for k in ("dayRate", "currency", "showMethodology")}, name
