"""`GET` and `PATCH /api/v1/partner`: a partner reads and sets, with any of its keys, the brand and embed origins
every key of the partner uses, a key made later included; authenticated and rate-limited like the rest of the API,
documented with examples shaped like the real answers."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlsplit

import pytest

from app.extensions import db
from app.models import Partner
from tests.keys.test_brand import png_bytes, svg

FIELDS = {"partner", "brandName", "brandColor", "logoUrl", "whiteLabel", "embedOrigins"}


def bearer(issued) -> dict:
    return {"Authorization": f"Bearer {issued.api_key}"}


def patch(client, auth, body):
    return client.patch("/api/v1/partner", json=body, headers=auth)


def stored(app, name: str) -> tuple:
    with app.app_context():
        partner = db.session.query(Partner).filter_by(name=name).one()
        return (partner.brand_name, partner.brand_color, partner.brand_logo, partner.white_label,
                partner.embed_origins)


def test_a_new_partner_has_the_standard_design_and_any_site_may_frame_it(client, make_key):
    response = client.get("/api/v1/partner", headers=bearer(make_key("acme")))
    assert response.status_code == 200
    assert response.get_json() == {"partner": "acme", "brandName": None, "brandColor": None, "logoUrl": None,
                                   "whiteLabel": False, "embedOrigins": []}
    assert response.headers["X-RateLimit-Limit"] == "100"


def test_set_with_one_key_applies_to_every_key_of_the_partner_and_to_a_new_one(app, client, make_key):
    live, test = make_key("acme"), make_key("acme", livemode=False)
    logo = png_bytes()
    body = patch(client, bearer(test), {"brandName": "Acme Security", "brandColor": "#1A73E8", "whiteLabel": True,
                                        "logo": base64.b64encode(logo).decode(),
                                        "embedOrigins": ["https://Portal.Acme.example/", "https://portal.acme.example"]})
    assert body.status_code == 200, body.get_json()
    body = body.get_json()
    assert set(body) == FIELDS
    assert (body["brandName"], body["brandColor"], body["whiteLabel"]) == ("Acme Security", "#1a73e8", True)
    assert body["embedOrigins"] == ["https://portal.acme.example"]           # normalised, each once
    assert body["logoUrl"].endswith("/embed/logo/" + hashlib.sha256(logo).hexdigest())
    assert stored(app, "acme")[:4] == ("Acme Security", "#1a73e8", logo, True)
    later = make_key("acme")
    for key in (live, test, later):
        assert client.get("/api/v1/partner", headers=bearer(key)).get_json() == body
    # The logo URL answers with the file, from our origin.
    logo_response = client.get(urlsplit(body["logoUrl"]).path)
    assert logo_response.status_code == 200 and logo_response.data == logo


def test_fields_left_out_stay_and_null_removes(app, client, make_key):
    auth = bearer(make_key("acme"))
    patch(client, auth, {"brandName": "Acme", "brandColor": "#0f766e", "logo": base64.b64encode(svg()).decode(),
                         "embedOrigins": ["https://a.example"]})
    body = patch(client, auth, {"brandColor": None}).get_json()
    assert (body["brandName"], body["brandColor"], body["embedOrigins"]) == ("Acme", None, ["https://a.example"])
    assert body["logoUrl"] is not None
    body = patch(client, auth, {"logo": None, "brandName": "", "embedOrigins": []}).get_json()
    assert (body["brandName"], body["logoUrl"], body["embedOrigins"]) == (None, None, [])
    assert patch(client, auth, {}).get_json() == body
    assert stored(app, "acme") == (None, None, None, False, [])


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"brandColor": "blue"}, "brandColor", "Accent colour must be a hex colour like #1a73e8."),
    ({"brandName": "x" * 101}, "brandName", None),
    ({"brandName": "Acme\nSecurity"}, "brandName", "Brand name may not contain control characters or line breaks."),
    ({"embedOrigins": ["portal.acme.example"]}, "embedOrigins", None),
    ({"embedOrigins": "https://a.example"}, "embedOrigins", None),
    ({"embedOrigins": [f"https://{n}.example" for n in range(51)]}, "embedOrigins", "At most 50 embed origins."),
    ({"logo": "not base64!"}, "logo", "Must be the file's bytes in base64."),
    ({"logo": base64.b64encode(b"GIF89a....").decode()}, "logo", "Logo must be a PNG or SVG file."),
    ({"logo": base64.b64encode(svg('<script>alert(1)</script>')).decode()}, "logo",
     "SVG logos may not contain scripts, event handlers or external references."),
    ({"whiteLabel": "yes"}, "whiteLabel", None),
    ({"brand_name": "Acme"}, "brand_name", "Unknown field."),
])
def test_invalid_or_unknown_fields_are_422_and_change_nothing(app, client, make_key, body, field, message):
    auth = bearer(make_key("acme"))
    assert patch(client, auth, {"brandName": "Before", "embedOrigins": ["https://a.example"]}).status_code == 200
    response = patch(client, auth, {**body, "brandColor": "#111111"} if field != "brandColor" else body)
    assert response.status_code == 422
    error = response.get_json()
    assert error["code"] == "validation_error" and list(error["details"]) == [field], error
    if message:
        assert error["details"][field] == [message]
    assert stored(app, "acme") == ("Before", None, None, False, ["https://a.example"])


def test_a_partner_changes_only_its_own(app, client, make_key):
    mine, stranger = make_key("acme"), make_key("globex")
    assert patch(client, bearer(mine), {"brandName": "Acme", "embedOrigins": ["https://a.example"]}).status_code == 200
    assert client.get("/api/v1/partner", headers=bearer(stranger)).get_json()["brandName"] is None
    assert stored(app, "globex") == (None, None, None, False, [])


def test_authenticated_like_the_rest(app, client, runner, make_key):
    assert client.get("/api/v1/partner").status_code == 401
    issued = make_key("acme")
    assert runner.invoke(args=["keys", "revoke", str(issued.key.id)]).exit_code == 0
    assert patch(client, bearer(issued), {"brandName": "Mallory"}).status_code == 401
    assert stored(app, "acme")[0] is None


def test_openapi_documents_both_operations_with_examples_of_the_real_shape(client, make_key):
    auth = bearer(make_key("acme"))
    document = client.get("/openapi.json").get_json()
    item = document["paths"]["/api/v1/partner"]
    update = document["components"]["schemas"]["PartnerUpdate"]
    assert update["additionalProperties"] is False
    assert set(update["properties"]) == {"brandName", "brandColor", "logo", "whiteLabel", "embedOrigins"}
    real = client.get("/api/v1/partner", headers=auth).get_json()
    for method in ("get", "patch"):
        assert "401" in item[method]["responses"] and "429" in item[method]["responses"]
        for example in item[method]["responses"]["200"]["content"]["application/json"]["examples"].values():
            assert set(example["value"]) == set(real), method
    request = item["patch"]["requestBody"]["content"]["application/json"]
    for name, example in request["examples"].items():
        response = patch(client, auth, example["value"])
        assert response.status_code == 200, (name, response.get_json())
        documented = item["patch"]["responses"]["200"]["content"]["application/json"]["examples"][name]["value"]
        answer = response.get_json()
        assert {k: answer[k] for k in FIELDS - {"partner"}} == {k: documented[k] for k in FIELDS - {"partner"}}, name
    invalid = item["patch"]["responses"]["422"]["content"]["application/json"]["examples"]["validation_error"]
    response = patch(client, auth, {"brandColor": "blue", "embedOrigins": ["portal.acme-security.example"]})
    assert response.get_json()["details"] == invalid["value"]["details"]
