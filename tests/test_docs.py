"""/docs (Swagger UI from our own origin, under a strict CSP) and the richer OpenAPI document behind it:
an example on every operation, each valid against its schema and shaped like the real answer, the
Idempotency-Key and Prefer headers, every error code, and a signature snippet that verifies what
app/webhooks/signing.py signs."""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from werkzeug.datastructures import Headers

from app.api import openapi
from app.api.schemas import GenerateRequestSchema, SubmissionLoader
from app.errors import HTTP_CODES
from app.models import utcnow
from app.webhooks.outbox import completed_payload, failed_payload
from app.webhooks.signing import delivery_headers

jsonschema_rs = pytest.importorskip("jsonschema_rs", reason="schemathesis's JSON Schema validator validates examples")

APP_DIR = Path(__file__).resolve().parents[1] / "app"
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def document(client) -> dict:
    return client.get("/openapi.json").get_json()


def operations(document: dict):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


# --------------------------------------------------------------------------- the page and its files

class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[str | None] = []
        self.styles: list[str] = []
        self.inline_handlers: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.inline_handlers += [name for name in attributes if name.startswith("on")]
        if tag == "script":
            self.scripts.append(attributes.get("src"))
        elif tag == "link" and attributes.get("rel") == "stylesheet":
            self.styles.append(attributes["href"])
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def page_assets(client) -> tuple[object, _Assets]:
    response = client.get("/docs")
    parser = _Assets()
    parser.feed(response.get_data(as_text=True))
    return response, parser


def test_docs_is_html_under_a_strict_content_security_policy(client):
    response, page = page_assets(client)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert page.title == "Compliance Report Service API"
    policy = dict(part.strip().split(" ", 1) for part in response.headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["img-src"] == "'self' data:"
    assert policy["frame-ancestors"] == "'none'"
    assert "'unsafe-eval'" not in response.headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-inline'" not in policy["style-src"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-cache"
    # No inline script at all: every script is a file, and no element has an on... handler.
    assert page.scripts and all(page.scripts), page.scripts
    assert page.inline_handlers == []


def test_docs_assets_come_from_our_origin_and_are_cached_by_version(client):
    _, page = page_assets(client)
    urls = page.scripts + page.styles
    assert {Path(url.split("?")[0]).name for url in urls} == {"swagger-ui-bundle.js", "swagger-ui.css",
                                                              "docs.js", "docs.css"}
    for url in urls:
        assert url.startswith("/docs/"), url    # a path on this origin: no scheme, no host, no CDN
        with client.get(url) as response:
            assert response.status_code == 200, url
            assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable", url
            assert response.headers["Content-Security-Policy"]
            assert response.mimetype in ("text/javascript", "application/javascript", "text/css"), url
    bundle = next(url for url in urls if url.endswith("swagger-ui-bundle.js"))
    assert "/5." in bundle   # Swagger UI 5, named by its version in the path


def test_docs_serves_only_the_files_it_uses(client):
    _, page = page_assets(client)
    bundle = next(url for url in page.scripts if url.endswith("swagger-ui-bundle.js"))
    folder = bundle.rsplit("/", 1)[0]
    for name in ("index.html", "swagger-initializer.js", "oauth2-redirect.html", "swagger-ui-bundle.js.map",
                 "..%2F__init__.py"):
        with client.get(f"{folder}/{name}") as response:
            assert response.status_code == 404, name
            assert response.headers["Cache-Control"] == "no-store"
    with client.get(bundle.replace("/5.", "/4.")) as old_version:
        assert old_version.status_code == 404
    # One of our files asked for without its content hash is served, but revalidated.
    ours = next(url for url in page.scripts if "docs.js" in url)
    with client.get(ours.split("?")[0]) as unversioned:
        assert unversioned.status_code == 200 and unversioned.headers["Cache-Control"] == "no-cache"


def test_docs_init_turns_off_the_validator_badge(client):
    _, page = page_assets(client)
    with client.get(next(url for url in page.scripts if "docs.js" in url)) as response:
        script = response.get_data(as_text=True)
    assert re.search(r"validatorUrl:\s*null", script)
    assert "queryConfigEnabled: false" in script
    assert "http://" not in script and "https://" not in script


# --------------------------------------------------------------------------- the document

def _json_schema(node, in_properties: bool = False):
    """OpenAPI 3.0's schema dialect as JSON Schema: `nullable` becomes a null type, OpenAPI-only keywords go."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    if in_properties:
        return {name: _json_schema(value) for name, value in node.items()}
    out = {key: _json_schema(value, key in ("properties", "schemas")) for key, value in node.items()
           if key not in ("nullable", "readOnly", "writeOnly", "example", "examples", "discriminator")}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    return out


def validator_for(document: dict, schema: dict):
    root = {**_json_schema(schema), "components": {"schemas": _json_schema(document["components"]["schemas"],
                                                                           in_properties=True)}}
    return jsonschema_rs.Draft4Validator(root, validate_formats=True)


def all_examples(document: dict):
    """(where, schema, value) of every example in the document: media types and parameters."""
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        for parameter in operation.get("parameters", []):
            if "example" in parameter:
                yield f"{where} parameter {parameter['name']}", parameter["schema"], parameter["example"]
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            for name, example in body.get("examples", {}).items():
                yield f"{where} request {name}", body["schema"], example["value"]
        for status, response in operation["responses"].items():
            media = response.get("content", {}).get("application/json")
            for name, example in (media or {}).get("examples", {}).items():
                yield f"{where} {status} {name}", media["schema"], example["value"]


def test_every_operation_has_a_worked_example(document):
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        body = operation.get("requestBody")
        if body:
            assert body["content"]["application/json"].get("examples"), f"{where}: request body without example"
        successes = {status: r for status, r in operation["responses"].items() if status.startswith("2")}
        assert successes, where
        for status, response in successes.items():
            if "content" in response:
                assert response["content"]["application/json"].get("examples"), f"{where} {status}: no example"
            else:   # 204: no body; the path parameter carries the example
                assert all("example" in p for p in operation.get("parameters", []) if p["in"] == "path"), where


def test_every_example_validates_against_its_schema(document):
    checked = 0
    for where, schema, value in all_examples(document):
        validator = validator_for(document, schema)
        errors = [f"{error.instance_path}: {error.message}" for error in validator.iter_errors(value)]
        assert not errors, f"{where}: {errors}"
        checked += 1
    assert checked >= 40


def test_the_validation_catches_a_bad_example(document):
    """The checker above is not vacuous: a field of the wrong type or an unknown field fails."""
    schema = {"$ref": "#/components/schemas/Assessment"}
    good = openapi.ASSESSMENT_COMPLETED
    assert validator_for(document, schema).is_valid(good)
    assert not validator_for(document, schema).is_valid({**good, "complianceScore": "50"})
    assert not validator_for(document, schema).is_valid({**good, "unknownField": 1})
    assert not validator_for(document, schema).is_valid({**good, "createdAt": "yesterday"})


def test_request_examples_pass_the_api_own_validation(document):
    """The rules JSON Schema cannot express (unique ids, displayName not companyId) hold in the examples too."""
    create = document["paths"]["/api/v1/assessments"]["post"]["requestBody"]["content"]["application/json"]
    for example in create["examples"].values():
        SubmissionLoader().load(example["value"])
    generate = document["paths"]["/api/v1/assessments/{assessment_id}/generate"]["post"]
    assert generate["requestBody"]["content"]["application/json"]["examples"]["challenger"]["value"] == {
        "methodology": "challenger"}
    GenerateRequestSchema().load({"methodology": "challenger"})


def _shape(value):
    """The keys of a JSON value, recursively, taking lists by their first item."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__ if value is not None else None


def _same_keys(example, real, where: str) -> None:
    if isinstance(example, dict) and isinstance(real, dict):
        assert set(example) == set(real), f"{where}: example {sorted(example)} != real {sorted(real)}"
        for key in example:
            _same_keys(example[key], real[key], f"{where}.{key}")
    elif isinstance(example, list) and isinstance(real, list) and example and real:
        _same_keys(example[0], real[0], f"{where}[0]")


def test_examples_have_the_shape_of_real_answers(client, auth, document):
    """Submit the example, generate with the example body, and compare every success example's keys with
    what the API really answered."""
    paths = document["paths"]

    def example(path, method, status, name):
        return paths[path][method]["responses"][status]["content"]["application/json"]["examples"][name]["value"]

    body = paths["/api/v1/assessments"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    created = client.post("/api/v1/assessments", json=body["iso27001"]["value"], headers=auth)
    assert created.status_code == 201
    _same_keys(example("/api/v1/assessments", "post", "201", "submitted"), created.get_json(), "createAssessment")
    assert client.post("/api/v1/assessments", json=body["soc2"]["value"], headers=auth).status_code == 201
    record_id = created.get_json()["id"]
    generated = client.post(f"/api/v1/assessments/{record_id}/generate", json={"methodology": "challenger"},
                            headers=auth)
    assert generated.status_code == 200
    _same_keys(example("/api/v1/assessments/{assessment_id}/generate", "post", "200", "completed"),
               generated.get_json(), "generateReports")
    one = "/api/v1/assessments/{assessment_id}"
    real_record = client.get(f"/api/v1/assessments/{record_id}", headers=auth).get_json()
    _same_keys(example(one, "get", "200", "completed"), real_record, "getAssessment")
    _same_keys(example(one + "/generate", "post", "202", "generating"), real_record, "generateReports 202")
    page = client.get("/api/v1/assessments?limit=1", headers=auth).get_json()
    _same_keys(example("/api/v1/assessments", "get", "200", "page"), page, "listAssessments")
    assert page["nextCursor"] is not None
    report = client.get(f"/api/v1/assessments/{record_id}/reports/ciso", headers=auth).get_json()
    _same_keys(example(one + "/reports/{persona}", "get", "200", "ciso"), report, "getReport")
    listed = client.get(f"/api/v1/assessments/{record_id}/reports?persona=ciso&persona=cfo", headers=auth).get_json()
    documented = example(one + "/reports", "get", "200", "picked")
    _same_keys(documented, listed, "listReports")
    assert [i["persona"] for i in documented["reports"]] == [i["persona"] for i in listed["reports"]] == ["cfo", "ciso"]
    assert listed["reports"][1] == report
    _same_keys(example("/api/v1/usage", "get", "200", "live"), client.get("/api/v1/usage", headers=auth).get_json(),
               "getUsage")
    for path, name in (("/api/v1/personas", "excerpt"), ("/api/v1/methodologies", "all")):
        real = client.get(path, headers=auth).get_json()
        documented = example(path, "get", "200", name)
        _same_keys(documented, real, path)
        assert all(item in real["items"] for item in documented["items"]), path
    rotated = client.post(f"/api/v1/assessments/{record_id}/embed-token/rotate", headers=auth).get_json()
    _same_keys(example(one + "/embed-token/rotate", "post", "200", "rotated"), rotated, "rotateEmbedToken")
    assert client.get("/healthz").get_json() == example("/healthz", "get", "200", "ok")


def test_every_post_documents_idempotency(document):
    posts = [(path, operation) for path, method, operation in operations(document)
             if method == "post" and path.startswith("/api/v1/")]
    assert len(posts) == 5
    for path, operation in posts:
        header = next(p for p in operation["parameters"] if p["name"] == "Idempotency-Key")
        assert header["in"] == "header" and header["required"] is False, path
        assert header["schema"]["maxLength"] == 255 and header["schema"]["minLength"] == 1
        assert "Idempotent-Replayed: true" in header["description"] and "24 hours" in header["description"]
        responses = operation["responses"]
        for status, code in (("400", "invalid_idempotency_key"), ("409", "idempotency_in_progress"),
                             ("422", "idempotency_key_reused")):
            assert code in responses[status]["content"]["application/json"]["examples"], (path, code)
        for status, response in responses.items():
            if status.startswith("2"):
                replayed = response["headers"]["Idempotent-Replayed"]
                assert replayed["required"] is False and replayed["schema"]["enum"] == ["true"], (path, status)
    for path, method, operation in operations(document):
        if method != "post":
            assert all(p["name"] != "Idempotency-Key" for p in operation.get("parameters", [])), (path, method)


def test_the_idempotency_pattern_matches_the_rule():
    pattern = re.compile(openapi.IDEMPOTENCY_PARAM["schema"]["pattern"])
    for good in ("0", "4f1d3c6e-8a2b-4d5e-9f10-2b3c4d5e6f70", "order 1042/retry", "~" * 255):
        assert pattern.fullmatch(good), good
    for bad in ("", "x" * 256, "caf\u00e9", "tab\there", "\x7f"):
        assert not pattern.fullmatch(bad), bad


def test_generate_documents_prefer_respond_async(document):
    generate = document["paths"]["/api/v1/assessments/{assessment_id}/generate"]["post"]
    prefer = next(p for p in generate["parameters"] if p["name"] == "Prefer")
    assert prefer["in"] == "header" and prefer["required"] is False and prefer["example"] == "respond-async"
    accepted = generate["responses"]["202"]
    assert accepted["headers"]["Preference-Applied"]["schema"]["enum"] == ["respond-async"]
    assert accepted["headers"]["Location"]["required"] is True
    assert accepted["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Assessment"}
    value = accepted["content"]["application/json"]["examples"]["generating"]["value"]
    assert value["status"] == "generating" and value["reportsDone"] == 0
    assert generate["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GenerationResult"}
    assert "reportsDone` of 25" in prefer["description"]


def test_rules_json_schema_cannot_express_are_described(document):
    for path in ("/api/v1/assessments", "/api/v1/webhook-deliveries"):
        cursor = next(p for p in document["paths"][path]["get"]["parameters"] if p["name"] == "cursor")
        assert "nextCursor" in cursor["description"] and "422" in cursor["description"]
    body = document["paths"]["/api/v1/assessments"]["post"]["requestBody"]["description"]
    assert "unique" in body and "displayName" in body and "422" in body


def _codes_in_source() -> set[str]:
    codes = {code for code, _ in HTTP_CODES.values()}
    call = re.compile(r"(?:ApiError|json_error)\(\s*\d{3},\s*\"([a-z_]+)\"")
    for path in APP_DIR.rglob("*.py"):
        codes |= set(call.findall(path.read_text()))
    return codes


def test_the_error_table_lists_every_code_the_api_answers(document):
    in_source = _codes_in_source()
    assert {"invalid_json", "validation_error", "generation_busy", "idempotency_key_reused",
            "idempotency_in_progress", "invalid_idempotency_key", "service_unavailable"} <= in_source
    table = {code: status for code, status, _, _ in openapi.ERROR_CODES}
    assert in_source | {"internal_error"} <= set(table), in_source - set(table)
    for status, (code, _) in HTTP_CODES.items():
        assert table[code] == status, code
    description = document["info"]["description"]
    for code, status in table.items():
        assert f"| `{code}` | {status} |" in description, code


def test_the_guide_is_folded_below_a_short_introduction(document):
    """Swagger UI shows info.description above Authorize and the operations: only a short introduction is
    unfolded; the guide (test mode, rate limits, errors, webhooks) is in a <details> that needs no script."""
    description = document["info"]["description"]
    intro, _, guide = description.partition("<details")
    assert guide, "the guide is not folded"
    assert len(intro) < 1200 and "Authorize** below" in intro
    assert "GET /api/v1/assessments/{assessment_id}/reports" in intro
    assert guide.index("<summary>") < guide.index("## Test mode") and description.rstrip().endswith("</details>")
    for heading in ("## Test mode", "## Rate limits", "## Errors", "## Webhooks", "### Verifying a signature"):
        assert heading in guide, heading


def test_the_rate_limited_example_is_what_a_spent_key_gets(client, make_key, document):
    issued = make_key()   # the default tier, standard, as in the example
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    for _ in range(100):
        client.get("/api/v1/personas", headers=headers)
    real = client.get("/api/v1/personas", headers=headers).get_json()
    documented = document["paths"]["/api/v1/personas"]["get"]["responses"]["429"]["content"]["application/json"]
    value = documented["examples"]["rate_limited"]["value"]
    _same_keys(value, real, "rate_limited")
    assert value["limit"] == real["limit"] == 100 and value["window"] == real["window"] == "1 hour"
    assert value["error"] == real["error"].replace(f"keys update {issued.key.id} ", "keys update 7 ")
    schema = document["components"]["schemas"]["Error"]["properties"]
    assert schema["limit"]["type"] == "integer" and schema["window"]["type"] == "string"
    assert "`limit`" in document["info"]["description"] and "tier cap" in document["info"]["description"]


def test_the_all_reports_read_documents_its_filter_and_errors(document):
    operation = document["paths"]["/api/v1/assessments/{assessment_id}/reports"]["get"]
    persona = next(p for p in operation["parameters"] if p["name"] == "persona")
    assert persona["in"] == "query" and persona["required"] is False
    assert persona["style"] == "form" and persona["explode"] is True
    assert persona["schema"]["items"]["enum"][:2] == ["ceo_president", "cfo"]
    assert "?persona=cfo&persona=ciso" in persona["description"] and "?persona=cfo,ciso" in persona["description"]
    reports = document["components"]["schemas"]["ReportList"]["properties"]["reports"]
    assert reports["items"] == {"$ref": "#/components/schemas/ReportContent"}
    assert "25" in operation["description"] and "Not paginated" in operation["description"]
    invalid = operation["responses"]["422"]["content"]["application/json"]["examples"]["validation_error"]["value"]
    assert list(invalid["details"]) == ["persona"]
    assert set(operation["responses"]["404"]["content"]["application/json"]["examples"]) == {
        "not_found", "not_generated"}


def test_description_covers_test_mode_and_the_webhooks(document):
    description = document["info"]["description"]
    assert "crs_" in description and "/api/v1" in description
    assert "## Test mode" in description and "livemode: false" in description
    for event in ("assessment.reports.completed", "assessment.reports.failed"):
        assert f"### `{event}`" in description
    payloads = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", description, re.S)]
    assert {p["event"] for p in payloads} == {"assessment.reports.completed", "assessment.reports.failed"}
    assert all(isinstance(p["livemode"], bool) for p in payloads)
    for header in ("X-Service-Signature", "webhook-id", "webhook-timestamp", "webhook-signature"):
        assert f"`{header}`" in description


def test_webhook_examples_have_the_fields_of_real_payloads(app):
    """The documented payloads carry exactly the fields app/webhooks/outbox.py writes."""
    record = {"id": 1, "externalCompanyId": "c", "framework": "ISO 27001", "complianceScore": 50.0,
              "embedToken": "t", "embedUrl": "u", "livemode": True, "previousAssessmentId": 297,
              "change": openapi.CHANGE,
              "reports": [{"persona": "ciso", "viewToken": "v", "viewUrl": "/embed/report/v"}]}
    with app.app_context():
        _same_keys(openapi.WEBHOOK_COMPLETED, completed_payload(record, 0, utcnow()), "completed")
        _same_keys(openapi.WEBHOOK_FAILED, failed_payload(record, 1, "boom", utcnow()), "failed")
    assert [name for name, _, _ in openapi.COMPLETED_FIELDS] == list(openapi.WEBHOOK_COMPLETED)
    assert [name for name, _, _ in openapi.FAILED_FIELDS] == list(openapi.WEBHOOK_FAILED)


def test_the_documented_signature_check_verifies_what_we_sign(document):
    snippet = re.search(r"```python\n(.*?)```", document["info"]["description"], re.S).group(1)
    namespace: dict = {}
    exec(snippet, namespace)  # noqa: S102 - our own documentation's code, run to prove it works
    verify, verify_service = namespace["verify"], namespace["verify_service_signature"]
    new, old = "whsec_" + "ab12" * 16, "whsec_" + "9f3e" * 16
    body = json.dumps(openapi.WEBHOOK_COMPLETED, separators=(",", ":"), ensure_ascii=False).encode()
    now = int(time.time())

    def headers(secrets, at=now):
        return Headers(delivery_headers("dlv_" + "0" * 32, "assessment.reports.completed", "2026-03-02T09:15:41Z",
                                        body, secrets, at))

    current = headers([new])
    assert verify(body, current, new) and verify_service(body, current, new)
    assert not verify(body + b" ", current, new) and not verify_service(body + b" ", current, new)
    assert not verify(body, current, old) and not verify_service(body, current, old)
    rotating = headers([new, old])   # the 24 hours after a rotation: both secrets verify the standard one
    assert verify(body, rotating, new) and verify(body, rotating, old)
    assert verify_service(body, rotating, new) and not verify_service(body, rotating, old)
    assert not verify(body, headers([new], at=now - 600), new)   # a replay, ten minutes late
    forged = Headers(current)
    forged["webhook-signature"] = "v1,\u00e9"
    forged["X-Service-Signature"] = "\u00e9"
    assert not verify(body, forged, new) and not verify_service(body, forged, new)
