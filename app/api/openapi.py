"""The OpenAPI 3 document, built from the marshmallow schemas."""

from __future__ import annotations

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from ..catalog import PERSONAS
from ..generation.content import ReportContentSchema
from . import schemas as s

JSON = "application/json"


def _error(description: str) -> dict:
    return {"description": description, "content": {JSON: {"schema": "Error"}}}


def _ok(description: str, schema, status: str = "200") -> dict:
    return {status: {"description": description, "content": {JSON: {"schema": schema}}}}


ID_PARAM = {"name": "assessment_id", "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}}
AUTH_ERRORS = {"401": _error("Missing, malformed, unknown or revoked key."),
               "429": _error("Rate limit exceeded.")}
NOT_FOUND = {"404": _error("Unknown id, or another partner's.")}
BODY_ERRORS = {"400": _error("Body is not valid JSON, or not an object."),
               "413": _error("Body larger than 1 MiB."),
               "415": _error("Body sent with a content type other than JSON."),
               "422": _error("Field validation failed; details maps field paths to messages.")}

# (path, method, operation): each operation lists every status it can answer.
OPERATIONS: list[tuple[str, str, dict]] = [
    ("/api/v1/assessments", "post", {
        "summary": "Submit an assessment", "operationId": "createAssessment",
        "requestBody": {"required": True, "content": {JSON: {"schema": {"oneOf": [
            {"$ref": "#/components/schemas/Submission"}, {"$ref": "#/components/schemas/SubmissionAlt"}]}}}},
        "responses": {**_ok("Created; Location names the new assessment.", "Assessment", "201"),
                      **BODY_ERRORS, **AUTH_ERRORS, "403": _error("Framework not allowed for this key.")}}),
    ("/api/v1/assessments", "get", {
        "summary": "List assessments, newest first", "operationId": "listAssessments",
        "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                       {"name": "cursor", "in": "query", "schema": {"type": "string"}}],
        "responses": {**_ok("One page.", "AssessmentPage"), **AUTH_ERRORS,
                      "422": _error("Invalid limit or cursor.")}}),
    ("/api/v1/assessments/{assessment_id}", "get", {
        "summary": "An assessment with its reports", "operationId": "getAssessment", "parameters": [ID_PARAM],
        "description": "Answers with an ETag; send it back in If-None-Match to get 304 while the record is unchanged.",
        "responses": {**_ok("The assessment, with its ETag.", "Assessment"), **AUTH_ERRORS, **NOT_FOUND,
                      "304": {"description": "Unchanged since the ETag sent in If-None-Match; no body."}}}),
    ("/api/v1/assessments/{assessment_id}", "delete", {
        "summary": "Erase an assessment, its reports and tokens", "operationId": "deleteAssessment",
        "parameters": [ID_PARAM],
        "responses": {"204": {"description": "Erased."}, **AUTH_ERRORS, **NOT_FOUND,
                      "409": _error("Reports for it are being generated (generation_in_progress); delete it when"
                                    " the run ends.")}}),
    ("/api/v1/assessments/{assessment_id}/embed-token/rotate", "post", {
        "summary": "Issue new embed and view tokens", "operationId": "rotateEmbedToken", "parameters": [ID_PARAM],
        "description": "The old tokens stop working at once.",
        "responses": {**_ok("The assessment with its new tokens.", "Assessment"), **AUTH_ERRORS, **NOT_FOUND}}),
    ("/api/v1/assessments/{assessment_id}/generate", "post", {
        "summary": "Generate the 25 persona reports", "operationId": "generateReports", "parameters": [ID_PARAM],
        "description": "Runs the fan-out and answers when every report is written. Regeneration keeps all tokens.",
        "requestBody": {"required": False, "content": {JSON: {"schema": "GenerateRequest"}}},
        "responses": {**_ok("Generation finished (status completed or failed).", "GenerationResult"),
                      **BODY_ERRORS, **AUTH_ERRORS, **NOT_FOUND,
                      "409": _error("Generation already running for this assessment."),
                      "429": _error("Rate limit exceeded (rate_limited), or the partner already runs"
                                    " GENERATION_MAX_CONCURRENT_PER_PARTNER generations (generation_busy);"
                                    " Retry-After says when to try again.")}}),
    ("/api/v1/assessments/{assessment_id}/reports/{persona}", "get", {
        "summary": "One report's content", "operationId": "getReport",
        "parameters": [ID_PARAM, {"name": "persona", "in": "path", "required": True,
                                  "schema": {"type": "string", "enum": [p.id for p in PERSONAS]}}],
        "responses": {**_ok("The report.", "ReportContent"), **AUTH_ERRORS,
                      "404": _error("Unknown assessment, or no content for that persona yet.")}}),
    ("/api/v1/usage", "get", {
        "summary": "Assessments and reports billed, per key and in total", "operationId": "getUsage",
        "responses": {**_ok("Usage in USD.", "Usage"), **AUTH_ERRORS}}),
    ("/api/v1/webhook-deliveries", "get", {
        "summary": "Webhook deliveries with every attempt, newest first", "operationId": "listWebhookDeliveries",
        "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                       {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                       {"name": "assessmentId", "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
                       {"name": "status", "in": "query",
                        "schema": {"type": "string", "enum": ["pending", "succeeded", "failed"]}}],
        "responses": {**_ok("One page.", "DeliveryPage"), **AUTH_ERRORS,
                      "422": _error("Invalid filter, limit or cursor.")}}),
    ("/api/v1/webhook-deliveries/{delivery_id}/redeliver", "post", {
        "summary": "Queue a new round of attempts under the same delivery id", "operationId": "redeliverWebhook",
        "parameters": [{"name": "delivery_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {**_ok("Queued.", "Delivery", "202"), **AUTH_ERRORS,
                      "404": _error("Unknown delivery, or another partner's."),
                      "409": _error("A round of attempts is still queued or in progress (redelivery_pending).")}}),
    ("/api/v1/personas", "get", {
        "summary": "The 25 personas", "operationId": "listPersonas",
        "responses": {**_ok("The catalogue.", "PersonaList"), **AUTH_ERRORS}}),
    ("/api/v1/methodologies", "get", {
        "summary": "The sales methodologies", "operationId": "listMethodologies",
        "responses": {**_ok("The catalogue.", "MethodologyList"), **AUTH_ERRORS}}),
    ("/healthz", "get", {
        "summary": "Liveness and database check", "operationId": "health", "security": [],
        "responses": {**_ok("Healthy.", "Health"), "503": {"description": "Database unreachable.",
                                                           "content": {JSON: {"schema": "Health"}}}}}),
]

SCHEMAS = {
    "Error": s.ErrorSchema, "Submission": s.SubmissionSchema, "SubmissionAlt": s.SubmissionAltSchema,
    "Assessment": s.AssessmentSchema, "AssessmentPage": s.AssessmentPageSchema,
    "GenerateRequest": s.GenerateRequestSchema, "GenerationResult": s.GenerationResultSchema,
    "ReportContent": ReportContentSchema, "Usage": s.UsageSchema, "PersonaList": s.PersonaListSchema,
    "MethodologyList": s.MethodologyListSchema, "Health": s.HealthSchema,
    "Delivery": s.DeliverySchema, "DeliveryPage": s.DeliveryPageSchema,
}


INT_HEADER = {"schema": {"type": "integer"}}
RATE_LIMIT_HEADERS = {
    "X-RateLimit-Limit": {"description": "Requests allowed per hour for this key.", **INT_HEADER},
    "X-RateLimit-Remaining": {"description": "Requests left in the sliding window.", **INT_HEADER},
    "X-RateLimit-Reset": {"description": "UTC epoch second when the oldest counted request leaves the window.",
                          **INT_HEADER},
    "RateLimit-Policy": {"description": 'IETF draft form, e.g. "hourly";q=100;w=3600', "schema": {"type": "string"}},
    "RateLimit": {"description": 'IETF draft form, e.g. "hourly";r=42;t=1800', "schema": {"type": "string"}},
}


def _with_headers(path: str, operation: dict) -> dict:
    """Every authenticated answer but 401 carries the rate-limit headers; 429 adds Retry-After."""
    if not path.startswith("/api/v1/"):
        return operation
    responses = {}
    for status, response in operation["responses"].items():
        headers = {} if status == "401" else {name: {**spec, "required": True}
                                              for name, spec in RATE_LIMIT_HEADERS.items()}
        if status == "429":
            headers["Retry-After"] = {"description": "Seconds until a request is possible again.", "required": True,
                                      **INT_HEADER}
        if status == "201":
            headers["Location"] = {"description": "The new resource.", "required": True,
                                   "schema": {"type": "string"}}
        responses[status] = {**response, "headers": headers} if headers else response
    return {**operation, "responses": responses}


def build_openapi(version: str) -> dict:
    """Assemble the document of every endpoint."""
    spec = APISpec(title="Compliance Report Service", version=version, openapi_version="3.0.3",
                   plugins=[MarshmallowPlugin()],
                   info={"description": "Submit compliance assessments, generate 25 persona reports, embed them."})
    spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer",
                                                   "description": "crs_ followed by 64 hex characters"})
    for name, schema in SCHEMAS.items():
        spec.components.schema(name, schema=schema)
    paths: dict[str, dict] = {}
    for path, method, operation in OPERATIONS:
        paths.setdefault(path, {})[method] = _with_headers(path, operation)
    for path, ops in paths.items():
        spec.path(path=path, operations=ops)
    document = spec.to_dict()
    document["security"] = [{"bearerAuth": []}]
    return document
