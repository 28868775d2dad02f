"""The OpenAPI 3 document, built from the marshmallow schemas, with a worked example for every operation.

The schemas come from `schemas.py` (and the report's from `generation/content.py`); this module adds
what a partner reads around them: the introduction, the error codes, the webhooks and their signatures
(all in `info.description`, Markdown), the headers of idempotent retries and asynchronous generation,
and examples taken from real responses (lists trimmed). tests/test_docs.py validates every example
against its schema, and checks that every error code the code raises is in the table.
"""

from __future__ import annotations

import copy
import json

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from ..catalog import METHODOLOGIES, PERSONAS
from ..generation.content import ReportContentSchema
from ..keys.service import TIER_LIMITS
from ..ratelimit import key_limit_message
from . import schemas as s
from .reports import NOT_GENERATED

JSON = "application/json"
SERVICE = "Compliance Report Service"
BASE_URL = "https://reports.example.com"   # PUBLIC_BASE_URL in the examples

# ------------------------------------------------------------------------------------------ error codes

# Every `code` the API answers with: (code, HTTP status, when, an example message). The table in
# info.description and the error examples of the operations are built from it.
ERROR_CODES: list[tuple[str, int, str, str]] = [
    ("invalid_json", 400, "The body is not valid JSON, or not a JSON object.", "The request body is not valid JSON."),
    ("invalid_idempotency_key", 400, "The `Idempotency-Key` header is empty, longer than 255 characters or not"
     " printable ASCII.", "Idempotency-Key must be 1 to 255 printable ASCII characters, such as a UUID."),
    ("bad_request", 400, "The HTTP request itself could not be understood.", "The request could not be understood."),
    ("unauthorized", 401, "Missing, malformed, unknown or revoked key; the answer carries"
     " `WWW-Authenticate: Bearer` and no rate-limit headers.", "The API key is invalid or revoked."),
    ("framework_not_allowed", 403, "The key may not submit assessments of this framework.",
     "This API key is not allowed to submit 'HIPAA' assessments."),
    ("forbidden", 403, "Generic code of a 403 (no endpoint answers it today).", "This key may not do that."),
    ("not_found", 404, "Unknown id, another partner's (or the other mode's: see *Test mode*), an id that is not"
     " a positive 64-bit integer, no content yet for a persona (or no report yet at all, on the all-reports read),"
     " or no such path.", "No assessment with that id."),
    ("method_not_allowed", 405, "The method is not allowed on the path; `Allow` lists those that are.",
     "This method is not allowed on this resource."),
    ("generation_in_progress", 409, "A generation run holds the assessment (on generate and on delete); try again"
     " when it ends.", "Reports for this assessment are being generated; try again when that run ends."),
    ("redelivery_pending", 409, "The webhook delivery still has a round of attempts queued or in progress.",
     "This delivery still has a round of attempts queued or in progress; redeliver it once its status is"
     " succeeded or failed."),
    ("webhook_url_missing", 409, "The delivery's key has no webhook URL any more, so there is nowhere to"
     " redeliver it.", "The key this delivery was sent for has no webhook URL any more; set one on the key, then"
     " redeliver."),
    ("idempotency_in_progress", 409, "A request with this `Idempotency-Key` is still running; retry after"
     " `Retry-After` to get its answer.", "A request with this Idempotency-Key is still being processed. Retry it"
     " when that one ends to get its answer."),
    ("conflict", 409, "Generic code of a 409 (no endpoint answers it today).",
     "The request conflicts with the current state of the resource."),
    ("payload_too_large", 413, "The body is larger than 1 MiB.", "The request body is larger than 1 MiB."),
    ("unsupported_media_type", 415, "A body sent with a `Content-Type` other than JSON.",
     "Send the request body with Content-Type: application/json."),
    ("validation_error", 422, "A field, query parameter or cursor is invalid; `details` maps each field path"
     " (`requirements.3.status`) to its messages.", "Some fields are invalid; see details."),
    ("idempotency_key_reused", 422, "This `Idempotency-Key` was already used with a different request body or"
     " endpoint.", "This Idempotency-Key was already used for a different request (another endpoint or body)."
     " Use a new key for a new request."),
    ("rate_limited", 429, "The key's hourly budget is spent; `Retry-After` (and `retryAfter` in the body) says"
     " when a request is possible again, `limit` and `window` say the key's budget, and the sentence says how to"
     " get a higher tier. (Failed authentication is limited per client address: that 429 has no `limit`.)",
     key_limit_message(TIER_LIMITS["standard"], 3600, 7, SERVICE)),
    ("generation_busy", 429, "The partner already runs its maximum of concurrent generations (2); nothing was"
     " claimed. `Retry-After`: 10 s.", "Your account already runs 2 generations at once, the most allowed; try"
     " again when one of them ends."),
    ("internal_error", 500, "Anything unexpected (logged on our side; never a stack trace).",
     "Something went wrong on our side. Try again later."),
    ("service_unavailable", 503, "The database is unreachable, or the service is restarting; `Retry-After` says"
     " when to try again.", "The database is unavailable. Try again shortly."),
]
ERROR_MESSAGES = {code: message for code, _, _, message in ERROR_CODES}
ERROR_EXTRAS: dict[str, dict] = {
    "validation_error": {"details": {"requirements.1.status": ["Must be one of: met, not_met, partially_met."],
                                     "requirements.2.id": ["Duplicate requirement id 'A.5.15'."]}},
    "rate_limited": {"retryAfter": 1800, "limit": TIER_LIMITS["standard"], "window": "1 hour"},
}


def _error_example(code: str) -> dict:
    body = {"error": ERROR_MESSAGES[code], "code": code, **ERROR_EXTRAS.get(code, {})}
    return {"summary": code, "value": body}


def _error(description: str, *codes: str) -> dict:
    content: dict = {"schema": "Error"}
    if codes:
        content["examples"] = {code: _error_example(code) for code in codes}
    return {"description": description, "content": {JSON: content}}


def _add_error(responses: dict, status: str, description: str, code: str) -> None:
    """Add one error code to a response, merging with the codes already documented for that status."""
    if status not in responses:
        responses[status] = _error(description, code)
        return
    response = responses[status]
    media = response["content"][JSON]
    media.setdefault("examples", {})[code] = _error_example(code)
    response["description"] = f"{response['description']} Or: {description}"


# ------------------------------------------------------------------------------------------ examples
# Real responses of the service (template engine, PUBLIC_BASE_URL=https://reports.example.com), lists
# trimmed: a generated record has 25 reports, the examples show two.

EMBED_TOKEN = "QElVZsa_DjGpUoQsxD1YQ3ynj_-AcNpk"  # noqa: S105 - example values of a test run, not secrets
ROTATED_EMBED_TOKEN = "ZdnEbjC9A7HSRV41bWli0AfZbwuSwXIH"  # noqa: S105
VIEW_TOKENS = {"ceo_president": "4YXD8oF3VDvMBOo8GwmLqSFR9DkEFu8W", "cfo": "UzsY6L9-ovmCakE9lB9RxlMLJkKGk6ew"}
ROTATED_VIEW_TOKENS = {"ceo_president": "nOJuMf0YBhGh-h0FSeJsMOR7eLlPZE_S", "cfo": "zV7qv8-wzXD950LU76od_4iJsA6Ho7pn"}
ASSESSMENT_ID = 318
DELIVERY_ID = "dlv_300d9d730dd0dd84e563d6c3a2fdd976"
CREATED_AT = "2026-03-02T09:14:07.512331Z"
GENERATED_AT = "2026-03-02T09:15:41.208954Z"

SUBMISSION_EXAMPLE = {
    "companyId": "client_1042", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
    "displayName": "Northwind Clinics",
    "requirements": [
        {"id": "A.5.15", "title": "Access control", "status": "not_met"},
        {"id": "A.8.13", "title": "Information backup", "status": "partially_met"},
        {"id": "A.5.1", "title": "Policies for information security", "status": "met"},
    ],
}
SUBMISSION_ALT_EXAMPLE = {
    "companyId": "client_2210", "industry": "SaaS", "frameworkName": "SOC 2", "hasPolicy": False,
    "requirements": [
        {"id": "CC6.1", "title": "Logical access security", "status": "partially_met"},
        {"id": "CC7.2", "title": "System monitoring", "status": "not_met"},
        {"id": "CC8.1", "title": "Change management", "status": "met"},
    ],
}


PREVIOUS_ID = 297
PREVIOUS_CREATED_AT = "2025-12-01T10:02:44.118201Z"
# The client's assessment of the quarter before (PREVIOUS_ID), as its requirements were submitted: "A 8.13" is the
# same control as "A.8.13". CHANGE is what the service works out between it and SUBMISSION_EXAMPLE.
PREVIOUS_REQUIREMENTS = [("A.5.15", "not_met"), ("A 8.13", "not_met"), ("A.5.1", "partially_met"),
                         ("A.5.19", "met")]
CHANGE = {
    "closed": 1, "improved": 1, "regressed": 0, "new": 0, "dropped": 1, "stillOpen": 2,
    "scoreBefore": 37.5, "scoreAfter": 50.0,
    "closedIds": ["A.5.1"], "improvedIds": ["A.8.13"], "regressedIds": [], "newIds": [], "droppedIds": ["A.5.19"],
    "stillOpenIds": ["A.5.15", "A.8.13"], "openSince": PREVIOUS_CREATED_AT,
}
SUBMISSION_LINKED_EXAMPLE = {**SUBMISSION_EXAMPLE, "previousAssessmentId": PREVIOUS_ID}
SUBMISSION_UNLINKED_EXAMPLE = {**SUBMISSION_EXAMPLE, "previousAssessmentId": None}
PREVIOUS_INVALID = {
    "error": "Some fields are invalid; see details.", "code": "validation_error",
    "details": {"previousAssessmentId": ["Must be the id of one of your earlier assessments made with a key of the"
                                         " same mode (live or test), or null to compare with none."]},
}


def _report_link(persona: str, token: str) -> dict:
    return {"persona": persona, "viewToken": token, "viewUrl": f"/embed/report/{token}", "status": "completed",
            "viewCount": 0, "engine": "template", "fallbackReason": None}


def _assessment(**changes) -> dict:
    record = {
        "id": ASSESSMENT_ID, "externalCompanyId": "client_1042", "industry": "Healthcare", "framework": "ISO 27001",
        "policy": "YES", "hasPolicy": True, "displayName": "Northwind Clinics",
        "requirements": [{"id": r["id"], "title": r["title"], "status": r["status"]}
                         for r in SUBMISSION_EXAMPLE["requirements"]],
        "requirementCounts": {"met": 1, "not_met": 1, "partially_met": 1, "total": 3}, "complianceScore": 50.0,
        "status": "submitted", "methodology": None, "embedToken": EMBED_TOKEN,
        "embedUrl": f"{BASE_URL}/embed/assessment/{EMBED_TOKEN}", "reports": [],
        "createdAt": CREATED_AT, "updatedAt": CREATED_AT, "generatedAt": None, "llmUsage": None,
        "livemode": True, "reportsDone": 0, "previousAssessmentId": None, "change": None,
    }
    record.update(changes)
    return record


ASSESSMENT_SUBMITTED = _assessment(updatedAt="2026-03-02T09:14:07.512338Z")
ASSESSMENT_LINKED = _assessment(updatedAt="2026-03-02T09:14:07.512338Z", previousAssessmentId=PREVIOUS_ID,
                                change=CHANGE)
ASSESSMENT_COMPLETED = _assessment(
    status="completed", methodology="challenger", updatedAt="2026-03-02T09:15:41.236107Z", generatedAt=GENERATED_AT,
    reports=[_report_link(p, t) for p, t in VIEW_TOKENS.items()], reportsDone=25, previousAssessmentId=PREVIOUS_ID,
    change=CHANGE)
ASSESSMENT_ROTATED = _assessment(
    **{**ASSESSMENT_COMPLETED, "embedToken": ROTATED_EMBED_TOKEN,
       "embedUrl": f"{BASE_URL}/embed/assessment/{ROTATED_EMBED_TOKEN}", "updatedAt": "2026-03-04T16:02:55.904417Z",
       "reports": [_report_link(p, t) for p, t in ROTATED_VIEW_TOKENS.items()]})
ASSESSMENT_GENERATING = _assessment(status="generating", updatedAt="2026-03-02T09:15:02.117842Z", reportsDone=0)
ASSESSMENT_PAGE = {
    "items": [{k: v for k, v in ASSESSMENT_COMPLETED.items() if k not in ("requirements", "reports")}],
    "nextCursor": "YTozMTg",
}
GENERATION_RESULT = {
    "assessmentId": ASSESSMENT_ID, "status": "completed", "methodology": "challenger", "complianceScore": 50.0,
    "totalReports": 25, "failedReports": 0, "embedToken": EMBED_TOKEN,
    "embedUrl": f"{BASE_URL}/embed/assessment/{EMBED_TOKEN}",
    "reports": [_report_link(p, t) for p, t in VIEW_TOKENS.items()], "generatedAt": GENERATED_AT,
    "llmUsage": None, "livemode": True,
}
REPORT_CONTENT = {
    "title": "ISO 27001: the open controls, the order to close them and the evidence each needs",
    "summary": "From the security chair, each open item is weighed by two tests: how directly an attacker could use"
               " it, and whether an assessor would find evidence that the control operates. The assessment points"
               " at Access control (A.5.15).",
    "sections": [
        {"heading": "What the assessment actually shows",
         "paragraphs": ["Identity controls decide whether one stolen password is enough to reach information in the"
                        " ISMS scope, which makes them the first path an attacker tries, and Access control (A.5.15)"
                        " is not met.", "Already sound in your area:"],
         "bullets": ["A.5.1 Policies for information security: met"]},
        {"heading": "Appendix: requirements in scope",
         "paragraphs": ["Statuses as recorded by the assessment: 1 met, 1 partly met and 1 not met, of 3."],
         "bullets": ["A.5.15 Access control: not met. Asks for rules to control physical and logical access to"
                     " information and other associated assets, based on business and information security"
                     " requirements",
                     "A.8.13 Information backup: partly met. Asks for backup copies of information, software and"
                     " systems maintained and regularly tested in line with the agreed backup policy",
                     "A.5.1 Policies for information security: met"],
         "requirements": [
             {"id": "A.5.15", "title": "Access control", "status": "not_met",
              "asks": "rules to control physical and logical access to information and other associated assets,"
                      " based on business and information security requirements"},
             {"id": "A.8.13", "title": "Information backup", "status": "partially_met",
              "asks": "backup copies of information, software and systems maintained and regularly tested in line"
                      " with the agreed backup policy"},
             {"id": "A.5.1", "title": "Policies for information security", "status": "met", "asks": None}]},
    ],
    "callToAction": "Our recommendation: confirm the order in which the open items are closed, access and detection"
                    " first, and give each a named control owner and a target date before the next management"
                    " review.",
    "keyPoints": ["One control open in your area: 1 not met", "First to close: Access control (A.5.15), not met",
                  "Your area: 4-8 of 6-13 person-days for the whole assessment (planning table)",
                  "1 more open item sits with other owners"],
    "persona": "ciso", "personaLabel": "CISO", "category": "Executive", "methodology": "challenger",
    "methodologyLabel": "Challenger Sale", "generatedAt": GENERATED_AT, "engine": "template",
    "readerRelation": "decision_maker", "knowledge": {"framework": "iso27001", "industry": "healthcare"},
    "livemode": True,
}
REPORT_CONTENT_CFO = {
    "title": "ISO 27001: where the open items leave Northwind Clinics exposed to loss, and what to fund first",
    "summary": "Read from finance, the open items are unpriced liabilities: the costs of response, interruption,"
               " notification and contractual claims for which no budget line provides. Closing them is a cost"
               " Northwind Clinics can plan and stage; the loss they leave open arrives at once and on no one's"
               " schedule. At Northwind Clinics, the assessment points at Access control (A.5.15) and Information"
               " backup (A.8.13).",
    "sections": [
        {"heading": "Already in place", "paragraphs": [], "bullets": ["A.5.1 Policies for information security: met"]},
        {"heading": "What a bad quarter would look like",
         "paragraphs": ["If one stolen sign-in opens email and the patient record, scheduling and billing systems to an"
                        " intruder, and the week goes on containing it and answering patients, the cost lands on"
                        " reserves rather than a budget line, and the insurance renewal that follows is priced on"
                        " it."],
         "bullets": []},
    ],
    "callToAction": "Our recommendation: approve a ring-fenced budget line this quarter for the open items named here,"
                    " with the first release once the accountable owner presents a costed plan and later releases"
                    " tied to evidence of closure, starting with Access control (A.5.15).",
    "keyPoints": ["2 controls open across the assessment: 1 not met, 1 partly met",
                  "First to close: Access control (A.5.15), not met, so ahead of the partly met items",
                  "Cost to close: 6-13 person-days, about USD 4,320-15,600, over 2 weeks (by 16 March 2026)"],
    "persona": "cfo", "personaLabel": "CFO", "category": "Executive", "methodology": "challenger",
    "methodologyLabel": "Challenger Sale", "generatedAt": GENERATED_AT, "engine": "template",
    "readerRelation": "decision_maker", "knowledge": {"framework": "iso27001", "industry": "healthcare"},
    "livemode": True,
}
# ?persona=ciso&persona=cfo: persona order (CFO before CISO), whatever the order of the query.
REPORT_LIST = {"reports": [REPORT_CONTENT_CFO, REPORT_CONTENT]}
REPORT_LIST_NOT_GENERATED = {"error": NOT_GENERATED.format(id=ASSESSMENT_ID), "code": "not_found"}
REPORT_LIST_INVALID = {"error": "Some fields are invalid; see details.", "code": "validation_error",
                       "details": {"persona": [s.unknown_persona_message(["cfoo"])]}}
USAGE = {
    "currency": "USD", "livemode": True, "total": {"assessments": 2, "reports": 49, "amount": 490},
    "keys": [{"keyId": 7, "key": "crs_…3b2b", "assessments": 1, "reports": 25, "amount": 250},
             {"keyId": 9, "key": "crs_…e41c", "assessments": 1, "reports": 24, "amount": 240}],
}
KEY_SETTINGS = {
    "id": 7, "key": "crs_…3b2b", "name": "Production", "livemode": True, "tier": "standard", "rateLimit": 100,
    "frameworks": [], "dayRate": None, "currency": None, "showMethodology": False, "requireSignedEmbeds": False,
    "createdAt": "2026-02-18T10:31:12.040017Z",
}
KEY_PRICED = {**KEY_SETTINGS, "dayRate": 1200, "currency": "EUR"}
KEY_SHOWING_METHODOLOGY = {**KEY_PRICED, "showMethodology": True}
KEY_CLEARED = {**KEY_SHOWING_METHODOLOGY, "dayRate": None}
KEY_UPDATE_INVALID = {
    "error": "Some fields are invalid; see details.", "code": "validation_error",
    "details": {"dayRate": ["Must be a whole number from 1 to 1,000,000, or null."],
                "currency": ["Must be one of: USD, EUR, GBP, CAD, AUD, NZD, CHF, SEK, NOK, DKK, JPY, SGD, INR, ZAR"
                             " (upper-case), or null."]},
}
PARTNER_SETTINGS = {"partner": "Acme Security", "brandName": None, "brandColor": None, "logoUrl": None,
                    "whiteLabel": False, "embedOrigins": []}
PARTNER_BRANDED = {**PARTNER_SETTINGS, "brandName": "Acme Security", "brandColor": "#1a73e8",
                   "embedOrigins": ["https://portal.acme-security.example"]}
PARTNER_WITH_LOGO = {**PARTNER_BRANDED, "logoUrl": f"{BASE_URL}/embed/logo/"
                                                   "3f0c1d2e4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"}
PARTNER_UPDATE_INVALID = {
    "error": "Some fields are invalid; see details.", "code": "validation_error",
    "details": {"brandColor": ["Accent colour must be a hex colour like #1a73e8."],
                "embedOrigins": ["Embed origin must look like https://example.com, got"
                                 " 'portal.acme-security.example'."]},
}
DELIVERY = {
    "id": DELIVERY_ID, "event": "assessment.reports.completed", "assessmentId": ASSESSMENT_ID, "status": "succeeded",
    "attempts": [{"at": "2026-03-02T09:15:41.301266Z", "statusCode": 503, "error": "HTTP 503", "durationMs": 412,
                  "responseBody": "upstream connect error"},
                 {"at": "2026-03-02T09:15:42.733509Z", "statusCode": 200, "error": None, "durationMs": 87,
                  "responseBody": "{\"received\": true}"}],
    "createdAt": "2026-03-02T09:15:41.240318Z", "nextAttemptAt": None,
}
DELIVERY_REDELIVERED = {**DELIVERY, "status": "pending", "nextAttemptAt": "2026-03-05T11:20:03.118201Z"}
DELIVERY_PAGE = {"items": [DELIVERY], "nextCursor": None}
PERSONA_LIST = {"items": [{"id": p.id, "label": p.label, "category": p.category} for p in PERSONAS[:4]]}
HEALTHY = {"status": "ok", "database": "ok"}
UNHEALTHY = {"status": "error", "database": "unreachable"}
METHODOLOGY_LIST = {"items": [{"id": m.id, "label": m.label} for m in METHODOLOGIES]}

WEBHOOK_COMPLETED = {
    "event": "assessment.reports.completed", "assessmentId": ASSESSMENT_ID, "externalCompanyId": "client_1042",
    "framework": "ISO 27001", "complianceScore": 50.0, "status": "completed", "totalReports": 25, "failedReports": 0,
    "embedToken": EMBED_TOKEN, "embedUrl": f"{BASE_URL}/embed/assessment/{EMBED_TOKEN}",
    "reports": [{"persona": p, "viewToken": t, "viewUrl": f"/embed/report/{t}"} for p, t in VIEW_TOKENS.items()],
    "previousAssessmentId": PREVIOUS_ID, "change": CHANGE, "livemode": True, "timestamp": "2026-03-02T09:15:41.239877Z",
}
WEBHOOK_FAILED = {
    "event": "assessment.reports.failed", "assessmentId": ASSESSMENT_ID, "externalCompanyId": "client_1042",
    "framework": "ISO 27001", "status": "failed", "totalReports": 25, "failedReports": 25,
    "error": "APITimeoutError: Request timed out.", "livemode": False, "timestamp": "2026-03-02T09:25:12.004411Z",
}


def _examples(**named) -> dict:
    """Named examples: name -> (summary, value)."""
    return {name: {"summary": summary, "value": value} for name, (summary, value) in named.items()}


# ------------------------------------------------------------------------------------------ description

def _json_block(value: dict) -> str:
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```"


def _error_table() -> str:
    rows = [f"| `{code}` | {status} | {meaning} |" for code, status, meaning, _ in ERROR_CODES]
    return "\n".join(["| `code` | HTTP status | Meaning |", "|---|---|---|", *rows])


VERIFY_SNIPPET = '''```python
import base64, hashlib, hmac, time

def verify(body: bytes, headers, secret: str, tolerance: int = 300) -> bool:
    """Standard Webhooks signature: True when the delivery is ours and this attempt is recent.
    body: the raw request body, byte for byte, before any JSON parsing; headers: a case-insensitive
    mapping (Flask's or Django's request.headers); secret: your "whsec_" + 64 hex characters."""
    delivery_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # Space-separated entries: two for 24 hours after a secret rotation (new and previous secret).
    return any(hmac.compare_digest(expected.encode(), entry.encode())
               for entry in headers.get("webhook-signature", "").split())

def verify_service_signature(body: bytes, headers, secret: str) -> bool:
    """X-Service-Signature: hex HMAC-SHA256 of the body, keyed with the whole secret string.
    Current secret only, and no timestamp: simpler, but it does not refuse a replayed delivery."""
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), headers.get("X-Service-Signature", "").encode())
```'''


def _field_table(rows: list[tuple[str, str, str]]) -> str:
    return "\n".join(["| Field | Type | Content |", "|---|---|---|",
                      *(f"| `{name}` | {kind} | {text} |" for name, kind, text in rows)])


COMPLETED_FIELDS = [
    ("event", "string", "`assessment.reports.completed`: the run wrote at least one report"),
    ("assessmentId", "integer", "the assessment's `id`"),
    ("externalCompanyId", "string", "your `companyId` of the submission"),
    ("framework", "string", "as submitted"),
    ("complianceScore", "number", "`round(100 × (met + 0.5 × partially_met) / total, 1)`"),
    ("status", "string", "`completed`"),
    ("totalReports", "integer", "reports of the run (25)"),
    ("failedReports", "integer", "reports of the run that failed (each keeps its last good content, if any)"),
    ("embedToken", "string", "token of the all-reports page"),
    ("embedUrl", "string", "absolute URL of the all-reports page, for an iframe"),
    ("reports", "array", "one `{persona, viewToken, viewUrl}` per persona; `viewUrl` is a path on this service"),
    ("previousAssessmentId", "integer or null", "the client's earlier assessment this one is compared with, as on"
     " the record"),
    ("change", "object or null", "what changed since it: `closed`, `improved`, `regressed`, `new`, `dropped`,"
     " `stillOpen`, `scoreBefore`, `scoreAfter` and the ids of each, as on the record"),
    ("livemode", "boolean", "`false` when the run was made with a test key"),
    ("timestamp", "string", "ISO 8601 UTC time of the event, the same on every attempt"),
]
FAILED_FIELDS = [
    ("event", "string", "`assessment.reports.failed`: the run wrote no report"),
    ("assessmentId", "integer", "the assessment's `id`"),
    ("externalCompanyId", "string", "your `companyId` of the submission"),
    ("framework", "string", "as submitted"),
    ("status", "string", "`failed`"),
    ("totalReports", "integer", "reports of the run (25)"),
    ("failedReports", "integer", "reports of the run that failed (all of them)"),
    ("error", "string", "the first report's error, or `No report could be generated.`"),
    ("livemode", "boolean", "`false` when the run was made with a test key"),
    ("timestamp", "string", "ISO 8601 UTC time of the event, the same on every attempt"),
]


GUIDE_SUMMARY = ("<strong>Guide</strong>: test mode, rate limits and tiers, retrying safely, generating in the"
                 " background, errors, webhooks and their signatures")


def description() -> str:
    return "\n\n".join([
        "Submit a compliance assessment (a framework's requirements, each `met`, `partially_met` or `not_met`),"
        " generate 25 reports on it, one per reader (CEO, CFO, CISO, external auditor, ...), and show them to"
        " your clients through embeddable pages. A signed webhook tells you when a generation run ends.",
        "Every path is under `/api/v1`; bodies are JSON (`Content-Type: application/json`, at most 1 MiB). Every"
        " request sends the API key as `Authorization: Bearer crs_` followed by 64 lowercase hex characters;"
        " use **Authorize** below to try requests from this page (the key stays in this tab). Each key has an"
        " hourly budget shared by all endpoints, reported in the `X-RateLimit-*` and `RateLimit` headers.",
        "The first hour: `POST /api/v1/assessments`, then `POST /api/v1/assessments/{assessment_id}/generate`, then"
        " `GET /api/v1/assessments/{assessment_id}/reports` reads all 25 reports in one request.",
        # The guide is folded, so that Authorize and the operations are on the first screen (Swagger UI shows
        # info.description above them); <details> needs no script, and the Markdown inside it is rendered.
        f"<details id=\"guide\">\n<summary>{GUIDE_SUMMARY}</summary>",
        "## Test mode",
        "A key is a live key or a test key, fixed when it is issued; both look the same (`crs_` + 64 hex). The"
        " assessments a test key creates are real (reports, embed pages, webhooks) but carry `livemode: false`,"
        " are never billed (`GET /api/v1/usage` with a test key counts them at 0 USD) and their pages say"
        " *Test report*. Live and test keys never see each other's assessments or webhook deliveries: an id of the"
        " other mode answers 404, as another partner's would.",
        "## Rate limits",
        "Each key has one hourly budget shared by every `/api/v1` endpoint, counted on a sliding 1-hour window (a"
        " request counts for exactly 3600 s): " + ", ".join(f"{tier} {n:,}" for tier, n in TIER_LIMITS.items())
        + " requests an hour, by the key's tier (standard is the default). Every answer to a request with a valid key"
        " carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (UTC epoch seconds) and the IETF"
        " draft's `RateLimit-Policy` and `RateLimit`. Over the budget the answer is `429 rate_limited` with"
        " `Retry-After`; its body adds `retryAfter` (seconds), the key's `limit` and `window`, and a sentence that"
        " says how to get a higher tier: in the partner portal (Keys, Edit settings) up to your account's tier cap,"
        " above it, whoever runs the service (the operator's `keys update` or `partners set-max-tier`). Reading a"
        " run costs one request with `GET /api/v1/assessments/{assessment_id}/reports`, not one per persona.",
        "## Retrying safely: `Idempotency-Key`",
        "Every `POST` accepts an optional `Idempotency-Key` header (1 to 255 printable ASCII characters; a UUID"
        " is best). The first response is stored for 24 hours per partner; a retry with the same key and the same"
        " body gets it again, with `Idempotent-Replayed: true`, and changes nothing. Answers that ask you to try"
        " again (409, 429, 5xx) are not stored, so the retry runs. The same key on another endpoint or with"
        " another body is `422 idempotency_key_reused`; a retry while the first request still runs is"
        " `409 idempotency_in_progress`.",
        "## Generating in the background: `Prefer: respond-async`",
        "`POST /api/v1/assessments/{assessment_id}/generate` answers when all 25 reports are written. With"
        " `Prefer: respond-async` it answers `202` at once instead, with `Preference-Applied: respond-async`, a"
        " `Location` naming the assessment, and the record in status `generating` with `reportsDone: 0`. Poll"
        " `GET` on that location (`reportsDone` grows to 25, `status` becomes `completed` or `failed`) or wait"
        " for the webhook.",
        "## Errors",
        "Every error is `{\"error\": \"<sentence>\", \"code\": \"<snake_case>\"}`, plus `details` for field errors"
        " and `retryAfter`, `limit` and `window` for `rate_limited`; never a stack trace or an HTML page. Branch on"
        " `code`, not on the sentence.",
        _error_table(),
        "## Webhooks",
        "When a generation run ends, the key that called `generate` gets a `POST` to its webhook URL with a JSON"
        " body. Any 2xx answer is success; otherwise it is tried up to 3 times (after 1 s, then 4 s; 10 s"
        " timeout each, redirects not followed). `GET /api/v1/webhook-deliveries` lists every delivery and"
        " attempt, and `POST /api/v1/webhook-deliveries/{delivery_id}/redeliver` queues another round.",
        "Headers of every attempt:",
        "\n".join([
            "| Header | Content |", "|---|---|",
            "| `Content-Type` | `application/json` |",
            "| `User-Agent` | `ComplianceReportService-Webhooks/1` |",
            "| `X-Service-Event` | the event: `assessment.reports.completed` or `assessment.reports.failed` |",
            "| `X-Service-Delivery` | the delivery id (`dlv_` + 32 hex), the same on every attempt and"
            " redelivery: deduplicate on it |",
            "| `X-Service-Timestamp` | ISO 8601 time of the event, the same on every attempt |",
            "| `X-Service-Signature` | hex HMAC-SHA256 of the exact body bytes, keyed with your `whsec_...` secret"
            " string |",
            "| `webhook-id` | the delivery id again ([Standard Webhooks](https://www.standardwebhooks.com/)) |",
            "| `webhook-timestamp` | Unix time of this attempt, in seconds |",
            "| `webhook-signature` | `v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">`,"
            " keyed with the base64-decoding of the secret after `whsec_`; for 24 hours after a secret rotation"
            " two such entries, space-separated (new secret, previous secret) |",
        ]),
        "### `assessment.reports.completed`",
        _field_table(COMPLETED_FIELDS),
        "Example (`reports` trimmed to 2 of 25):",
        _json_block(WEBHOOK_COMPLETED),
        "### `assessment.reports.failed`",
        _field_table(FAILED_FIELDS),
        "Example (a test key's run against an LLM that timed out):",
        _json_block(WEBHOOK_FAILED),
        "### Verifying a signature",
        "Check a signature on the raw body bytes, before parsing the JSON, and compare in constant time."
        " Either signature proves the body is ours. The Standard Webhooks one (`verify` below) also covers the"
        " delivery id and the attempt's time, so it refuses replays older than the tolerance, and it keeps"
        " working through a secret rotation; `X-Service-Signature` is signed with the current secret only."
        " Python, standard library only:",
        VERIFY_SNIPPET,
        "Or with the `standardwebhooks` library: `Webhook(secret.removeprefix(\"whsec_\")).verify(body, headers)`"
        " (it also refuses timestamps more than 5 minutes off).",
        "</details>",
    ])


# ------------------------------------------------------------------------------------------ parameters

ID_PARAM = {"name": "assessment_id", "in": "path", "required": True, "example": ASSESSMENT_ID,
            "description": "The assessment's `id`.",
            "schema": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}}
LIMIT_PARAM = {"name": "limit", "in": "query", "description": "Items per page, 1 to 100 (default 20).",
               "schema": {"type": "integer", "minimum": 1, "maximum": 100}}
CURSOR_PARAM = {
    "name": "cursor", "in": "query",
    "description": "Opaque: pass the `nextCursor` of the previous page unchanged (it is `null` on the last page)."
                   " Only a value this endpoint handed out is accepted; any other string is"
                   " `422 validation_error` (`details.cursor`), which no JSON Schema can express.",
    "schema": {"type": "string"}}

PERSONA_FILTER_PARAM = {
    "name": "persona", "in": "query", "required": False, "style": "form", "explode": True, "example": ["ciso", "cfo"],
    "description": "Only these personas' reports (ids of `GET /api/v1/personas`): repeat the parameter"
                   " (`?persona=cfo&persona=ciso`) or separate ids with commas (`?persona=cfo,ciso`). The answer is"
                   " in persona order either way. An unknown id is `422 validation_error` with `details.persona`."
                   " Without it: every persona.",
    "schema": {"type": "array", "items": {"type": "string", "enum": [p.id for p in PERSONAS]}}}
REPORT_LIST_DESCRIPTION = (
    "Every report of the assessment in one request, each exactly as"
    " `GET /api/v1/assessments/{assessment_id}/reports/{persona}` answers it (`livemode` included), in the order of"
    " `GET /api/v1/personas`: reading a run costs one request of the key's hourly budget instead of 25.\n\n"
    "These are the reports of the latest run. A persona whose report failed in that run keeps its last good content,"
    " as on the single read; one that never had content is left out, so `reports` may hold fewer than 25 (the"
    " record's `reports[].status` says which failed). While a run goes on, the previous run's reports are answered."
    " Before the assessment has any report (its first run has not ended) the answer is `404 not_found`, as on the"
    " single read.\n\n"
    "Not paginated: there are 25 reports at most.")

IDEMPOTENCY_KEY_PATTERN = r"^[\x20-\x7E]{1,255}$"
IDEMPOTENCY_PARAM = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "description": "Send a unique value (a UUID) to make a retry safe. The first response is stored for 24 hours"
                   " per partner; a retry with the same key and the same body gets it again with the header"
                   " `Idempotent-Replayed: true` and changes nothing. (Answers 409, 429 and 5xx are not stored:"
                   " a retry runs again.) 1 to 255 printable ASCII characters.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": IDEMPOTENCY_KEY_PATTERN}}
PREFER_PARAM = {
    "name": "Prefer", "in": "header", "required": False, "example": "respond-async",
    "description": "`respond-async`: answer `202` at once, with `Preference-Applied: respond-async`, `Location`"
                   " (the assessment's URL) and the record in status `generating` with `reportsDone` 0. The run"
                   " continues on the server, the webhook fires when it ends, and"
                   " `GET /api/v1/assessments/{assessment_id}` then shows `reportsDone` of 25. Without it, the"
                   " answer is the `200` GenerationResult when the run is over. Other preferences are ignored.",
    "schema": {"type": "string"}}

REPLAYED_HEADER = {"description": "`true` when this is the stored answer to an earlier request with the same"
                                  " `Idempotency-Key`; absent otherwise.",
                   "required": False, "schema": {"type": "string", "enum": ["true"]}}

# ------------------------------------------------------------------------------------------ operations

def _ok(description: str, schema, status: str = "200", examples: dict | None = None) -> dict:
    content: dict = {"schema": schema}
    if examples:
        content["examples"] = examples
    return {status: {"description": description, "content": {JSON: content}}}


AUTH_ERRORS = {"401": _error("Missing, malformed, unknown or revoked key.", "unauthorized"),
               "429": _error("Rate limit exceeded.", "rate_limited")}
NOT_FOUND = {"404": _error("Unknown id, another partner's, or the other mode's.", "not_found")}


def _body_errors() -> dict:
    return {"400": _error("Body is not valid JSON, or not an object.", "invalid_json"),
            "413": _error("Body larger than 1 MiB.", "payload_too_large"),
            "415": _error("Body sent with a content type other than JSON.", "unsupported_media_type"),
            "422": _error("Field validation failed; details maps field paths to messages.", "validation_error")}


SUBMISSION_DESCRIPTION = (
    "The submission, in either spelling: `framework` and `policy` (`\"YES\"`/`\"NO\"`, any case), or"
    " `frameworkName` and `hasPolicy` (a JSON boolean); the spellings may be mixed per field, but both spellings of"
    " one field with different values are a 422. Unknown fields are refused.\n\n"
    "Two rules no JSON Schema can express, each a `422 validation_error`: each requirement's `id` must be"
    " unique within the submission, and `displayName` must not be the same as `companyId` (compared ignoring"
    " case and everything but letters and digits), since `companyId` must stay opaque.\n\n"
    "Progress: the new assessment is compared with the client's earlier one (`previousAssessmentId` and `change` on"
    " the record and in the completion webhook). Without `previousAssessmentId` that is the most recent earlier"
    " assessment of the same `companyId` and framework (\"ISO 27001\" and \"ISO/IEC 27001:2022\" are one framework)"
    " made with a key of the same mode; with an id, that one, which must be yours and of the same mode, else"
    " `422 validation_error` with `details.previousAssessmentId`; with `null`, none. Of two submissions for one"
    " client at once, the later id is compared with the earlier.")


def _operations() -> list[tuple[str, str, dict]]:
    """(path, method, operation): each operation lists every status it can answer, with examples."""
    return [
        ("/api/v1/assessments", "post", {
            "tags": ["Assessments"], "summary": "Submit an assessment", "operationId": "createAssessment",
            "requestBody": {"required": True, "description": SUBMISSION_DESCRIPTION, "content": {JSON: {
                "schema": {"oneOf": [{"$ref": "#/components/schemas/Submission"},
                                     {"$ref": "#/components/schemas/SubmissionAlt"}]},
                "examples": _examples(
                    iso27001=("ISO 27001, three requirements", SUBMISSION_EXAMPLE),
                    soc2=("SOC 2 in the second spelling (frameworkName, hasPolicy)", SUBMISSION_ALT_EXAMPLE),
                    linked=("Compared with a chosen earlier assessment", SUBMISSION_LINKED_EXAMPLE),
                    unlinked=("Compared with none", SUBMISSION_UNLINKED_EXAMPLE))}}},
            "responses": {**_ok("Created; Location names the new assessment.", "Assessment", "201",
                                _examples(submitted=("The new assessment, before generation", ASSESSMENT_SUBMITTED),
                                          linked=("The client's next quarter, compared with the one before",
                                                  ASSESSMENT_LINKED))),
                          **_body_errors(), **AUTH_ERRORS,
                          "422": {"description": "Field validation failed; details maps field paths to messages.",
                                  "content": {JSON: {"schema": "Error", "examples": {
                                      "validation_error": _error_example("validation_error"),
                                      "previous_assessment": {
                                          "summary": "previousAssessmentId names another partner's, the other"
                                                     " mode's or no assessment", "value": PREVIOUS_INVALID}}}}},
                          "403": _error("Framework not allowed for this key.", "framework_not_allowed")}}),
        ("/api/v1/assessments", "get", {
            "tags": ["Assessments"], "summary": "List assessments, newest first", "operationId": "listAssessments",
            "description": "The key's assessments (of its mode, live or test), without `requirements` and `reports`.",
            "parameters": [LIMIT_PARAM, CURSOR_PARAM],
            "responses": {**_ok("One page.", "AssessmentPage", examples=_examples(
                                page=("A page of one, with more to come (?limit=1)", ASSESSMENT_PAGE))),
                          **AUTH_ERRORS, "422": _error("Invalid limit or cursor.", "validation_error")}}),
        ("/api/v1/assessments/{assessment_id}", "get", {
            "tags": ["Assessments"], "summary": "An assessment with its reports", "operationId": "getAssessment",
            "parameters": [ID_PARAM],
            "description": "Answers with an ETag; send it back in If-None-Match to get 304 while the record is"
                           " unchanged. While a run is going on, `status` is `generating` and `reportsDone` counts"
                           " the reports written so far.",
            "responses": {**_ok("The assessment, with its ETag.", "Assessment", examples=_examples(
                                completed=("After generation (reports trimmed to 2 of 25)", ASSESSMENT_COMPLETED),
                                generating=("While a run is going on", ASSESSMENT_GENERATING))),
                          **AUTH_ERRORS, **NOT_FOUND,
                          "304": {"description": "Unchanged since the ETag sent in If-None-Match; no body."}}}),
        ("/api/v1/assessments/{assessment_id}", "delete", {
            "tags": ["Assessments"], "summary": "Erase an assessment, its reports and tokens",
            "operationId": "deleteAssessment", "parameters": [ID_PARAM],
            "description": "Erases the assessment, its requirements, reports, embed and view tokens, its webhook"
                           " deliveries and the stored answers of Idempotency-Keys that name it. Billing history"
                           " stays. Example: `DELETE /api/v1/assessments/318` answers `204` with no body.",
            "responses": {"204": {"description": "Erased; no body."}, **AUTH_ERRORS, **NOT_FOUND,
                          "409": _error("Reports for it are being generated (generation_in_progress); delete it"
                                        " when the run ends.", "generation_in_progress")}}),
        ("/api/v1/assessments/{assessment_id}/embed-token/rotate", "post", {
            "tags": ["Assessments"], "summary": "Issue new embed and view tokens", "operationId": "rotateEmbedToken",
            "parameters": [ID_PARAM], "description": "The old tokens stop working at once. No body.",
            "responses": {**_ok("The assessment with its new tokens.", "Assessment", examples=_examples(
                                rotated=("New embedToken and viewTokens (reports trimmed to 2 of 25)",
                                         ASSESSMENT_ROTATED))),
                          **AUTH_ERRORS, **NOT_FOUND}}),
        ("/api/v1/assessments/{assessment_id}/generate", "post", {
            "tags": ["Reports"], "summary": "Generate the 25 persona reports", "operationId": "generateReports",
            "parameters": [ID_PARAM, PREFER_PARAM],
            "description": "Writes the 25 reports and answers `200` when every one is written (`status`"
                           " `completed`, or `failed` when none could be). With `Prefer: respond-async` the answer"
                           " is `202` at once and the run continues on the server. Regeneration, with any"
                           " methodology, keeps all tokens. A partner runs at most 2 generations at once.",
            "requestBody": {"required": False, "description": "Optional; the methodology defaults to `spin`"
                                                              " (see `GET /api/v1/methodologies`).",
                            "content": {JSON: {"schema": "GenerateRequest", "examples": _examples(
                                challenger=("Challenger Sale", {"methodology": "challenger"}))}}},
            "responses": {**_ok("Generation finished (status completed or failed).", "GenerationResult",
                                examples=_examples(completed=("All 25 written (reports trimmed to 2 of 25)",
                                                              GENERATION_RESULT))),
                          "202": {"description": "Accepted (`Prefer: respond-async`): the run goes on on the"
                                                 " server; poll Location or wait for the webhook.",
                                  "headers": {
                                      "Preference-Applied": {"description": "The preference honoured.",
                                                             "required": True,
                                                             "schema": {"type": "string", "enum": ["respond-async"]}},
                                      "Location": {"description": "The assessment's URL, to poll.", "required": True,
                                                   "schema": {"type": "string"}}},
                                  "content": {JSON: {"schema": "Assessment", "examples": _examples(
                                      generating=("The record as the run starts", ASSESSMENT_GENERATING))}}},
                          **_body_errors(), **AUTH_ERRORS, **NOT_FOUND,
                          "409": _error("Generation already running for this assessment.", "generation_in_progress"),
                          "429": _error("Rate limit exceeded (rate_limited), or the partner already runs"
                                        " GENERATION_MAX_CONCURRENT_PER_PARTNER generations (generation_busy);"
                                        " Retry-After says when to try again.", "rate_limited", "generation_busy"),
                          "503": _error("The service is restarting and cannot start a background run; Retry-After"
                                        " says when to try again.", "service_unavailable")}}),
        ("/api/v1/assessments/{assessment_id}/reports", "get", {
            "tags": ["Reports"], "summary": "Every report's content, in one request", "operationId": "listReports",
            "parameters": [ID_PARAM, PERSONA_FILTER_PARAM],
            "description": REPORT_LIST_DESCRIPTION,
            "responses": {**_ok("The reports, in persona order.", "ReportList", examples=_examples(
                                picked=("?persona=ciso&persona=cfo: two reports under Challenger, in persona order"
                                        " (sections trimmed)", REPORT_LIST))),
                          **AUTH_ERRORS,
                          "404": {"description": "Unknown assessment, another partner's or the other mode's; or no"
                                                 " report yet (before the first run ends).",
                                  "content": {JSON: {"schema": "Error", "examples": _examples(
                                      not_found=("Unknown id, or another partner's",
                                                 _error_example("not_found")["value"]),
                                      not_generated=("Not generated yet", REPORT_LIST_NOT_GENERATED))}}},
                          "422": {"description": "An unknown persona id in `persona`, or another query parameter;"
                                                 " details names it.",
                                  "content": {JSON: {"schema": "Error", "examples": _examples(
                                      validation_error=("?persona=cfoo", REPORT_LIST_INVALID))}}}}}),
        ("/api/v1/assessments/{assessment_id}/reports/{persona}", "get", {
            "tags": ["Reports"], "summary": "One report's content", "operationId": "getReport",
            "parameters": [ID_PARAM, {"name": "persona", "in": "path", "required": True, "example": "ciso",
                                      "description": "A persona id from `GET /api/v1/personas`.",
                                      "schema": {"type": "string", "enum": [p.id for p in PERSONAS]}}],
            "responses": {**_ok("The report.", "ReportContent", examples=_examples(
                                ciso=("The CISO's report under Challenger (sections trimmed to 2 of 7)",
                                      REPORT_CONTENT))),
                          **AUTH_ERRORS,
                          "404": _error("Unknown assessment, or no content for that persona yet.", "not_found")}}),
        ("/api/v1/usage", "get", {
            "tags": ["Usage"], "summary": "Assessments and reports billed, per key and in total",
            "operationId": "getUsage",
            "description": "Each assessment is billed once, for the most reports any single run delivered, at 10 USD"
                           " a report. With a test key: the test assessments, at 0 USD (`livemode` false).",
            "responses": {**_ok("Usage in USD.", "Usage", examples=_examples(live=("Two keys, two assessments",
                                                                                    USAGE))),
                          **AUTH_ERRORS}}),
        ("/api/v1/key", "get", {
            "tags": ["Key"], "summary": "The calling key's own settings", "operationId": "getKey",
            "description": "The settings of the key that sends the request: what its reports price effort at"
                           " (`dayRate`, `currency`), whether its clients' pages and PDFs name the sales"
                           " methodology (`showMethodology`), whether its embed pages need signed URLs"
                           " (`requireSignedEmbeds`), its mode, tier and limit. Never the key itself or its"
                           " secrets.",
            "responses": {**_ok("The key's settings.", "KeySettings", examples=_examples(
                                defaults=("A new key: the default range, methodology hidden", KEY_SETTINGS),
                                priced=("A day rate of 1,200 EUR", KEY_PRICED))),
                          **AUTH_ERRORS}}),
        ("/api/v1/key", "patch", {
            "tags": ["Key"], "summary": "Change the calling key's report settings", "operationId": "updateKey",
            "description": "Any of `dayRate`, `currency` and `showMethodology`; a field left out is unchanged, and"
                           " `null` removes the day rate or the currency. A day rate without a currency is in USD."
                           " The day rate applies from the next `generate` (the CFO's, CEO's, board's and owner's"
                           " reports price effort at it; without it they use a documented default range);"
                           " `showMethodology` applies at once to every page and PDF of the key's assessments."
                           " Unknown fields are refused. Answers with the key's settings.",
            "requestBody": {"required": True, "content": {JSON: {"schema": "KeyUpdate", "examples": _examples(
                priced=("Price effort at 1,200 EUR a person-day", {"dayRate": 1200, "currency": "EUR"}),
                methodology=("Name the methodology on the client pages", {"showMethodology": True}),
                clear=("Back to the default range", {"dayRate": None}))}}},
            "responses": {**_ok("Saved; the key's settings.", "KeySettings", examples=_examples(
                                priced=("After {\"dayRate\": 1200, \"currency\": \"EUR\"}", KEY_PRICED),
                                methodology=("After {\"showMethodology\": true}", KEY_SHOWING_METHODOLOGY),
                                clear=("After {\"dayRate\": null}", KEY_CLEARED))),
                          **_body_errors(),
                          "422": {"description": "A field is invalid or unknown; details maps each field to its"
                                                 " messages. Nothing was changed.",
                                  "content": {JSON: {"schema": "Error", "examples": _examples(
                                      validation_error=("A day rate of 0 and a lower-case currency",
                                                        KEY_UPDATE_INVALID))}}},
                          **AUTH_ERRORS}}),
        ("/api/v1/partner", "get", {
            "tags": ["Partner"], "summary": "Your brand and embed origins", "operationId": "getPartner",
            "description": "What every key of the calling key's partner, live and test, shows its clients: the brand"
                           " on the report pages and PDFs (`brandName`, `brandColor`, the logo, `whiteLabel`) and the"
                           " sites that may show them in an iframe (`embedOrigins`). A key created later uses them"
                           " too.",
            "responses": {**_ok("The partner's settings.", "PartnerSettings", examples=_examples(
                                plain=("The standard design, any site may frame the pages", PARTNER_SETTINGS),
                                branded=("A name, an accent, a logo and one embedding site", PARTNER_WITH_LOGO))),
                          **AUTH_ERRORS}}),
        ("/api/v1/partner", "patch", {
            "tags": ["Partner"], "summary": "Change your brand and embed origins", "operationId": "updatePartner",
            "description": "Any of `brandName`, `brandColor`, `logo` (the file in base64), `whiteLabel` and"
                           " `embedOrigins`; a field left out is unchanged, `null` removes it. Applies at once to"
                           " every page and PDF of every key of the partner. Unknown fields are refused; nothing is"
                           " changed when any field is invalid. Answers with the partner's settings.",
            "requestBody": {"required": True, "content": {JSON: {"schema": "PartnerUpdate", "examples": _examples(
                branded=("A name, an accent and one embedding site",
                         {"brandName": "Acme Security", "brandColor": "#1a73e8",
                          "embedOrigins": ["https://portal.acme-security.example"]}),
                no_logo=("Remove the logo", {"logo": None}))}}},
            "responses": {**_ok("Saved; the partner's settings.", "PartnerSettings", examples=_examples(
                                branded=("After the first example", PARTNER_BRANDED),
                                no_logo=("After {\"logo\": null}, from the logo example of GET", PARTNER_BRANDED))),
                          **_body_errors(),
                          "422": {"description": "A field is invalid or unknown; details maps each field to its"
                                                 " messages. Nothing was changed.",
                                  "content": {JSON: {"schema": "Error", "examples": _examples(
                                      validation_error=("A colour name and an origin without its scheme",
                                                        PARTNER_UPDATE_INVALID))}}},
                          **AUTH_ERRORS}}),
        ("/api/v1/webhook-deliveries", "get", {
            "tags": ["Webhooks"], "summary": "Webhook deliveries with every attempt, newest first",
            "operationId": "listWebhookDeliveries",
            "parameters": [LIMIT_PARAM, CURSOR_PARAM,
                           {"name": "assessmentId", "in": "query", "description": "Only this assessment's.",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
                           {"name": "status", "in": "query", "description": "Only deliveries in this status.",
                            "schema": {"type": "string", "enum": ["pending", "succeeded", "failed"]}}],
            "responses": {**_ok("One page.", "DeliveryPage", examples=_examples(
                                page=("A delivery that succeeded on its second attempt", DELIVERY_PAGE))),
                          **AUTH_ERRORS, "422": _error("Invalid filter, limit or cursor.", "validation_error")}}),
        ("/api/v1/webhook-deliveries/{delivery_id}/redeliver", "post", {
            "tags": ["Webhooks"], "summary": "Queue a new round of attempts under the same delivery id",
            "operationId": "redeliverWebhook",
            "description": "For a delivery whose status is `succeeded` or `failed`; the new round signs the same"
                           " body with the key's current secret and sends it to the key's current webhook URL."
                           " No body.",
            "parameters": [{"name": "delivery_id", "in": "path", "required": True, "example": DELIVERY_ID,
                            "description": "The delivery's `id` (`X-Service-Delivery`): `dlv_` and 32 hex digits.",
                            "schema": {"type": "string", "pattern": "^dlv_[0-9a-f]{32}$"}}],
            "responses": {**_ok("Queued.", "Delivery", "202", _examples(
                                queued=("A new round queued; earlier attempts kept", DELIVERY_REDELIVERED))),
                          **AUTH_ERRORS,
                          "404": _error("Unknown delivery, or another partner's.", "not_found"),
                          "409": _error("A round of attempts is still queued or in progress (redelivery_pending),"
                                        " or the key has no webhook URL any more (webhook_url_missing).",
                                        "redelivery_pending", "webhook_url_missing")}}),
        ("/api/v1/webhook-deliveries/redeliver", "post", {
            "tags": ["Webhooks"], "summary": "Queue a new round for every failed delivery since a time",
            "operationId": "redeliverFailedWebhooks",
            "description": "After your receiver was down: every delivery of your key's mode whose status is"
                           " `failed` and that was created at or after `since` (of one assessment, with"
                           " `assessmentId`) gets a new round of attempts under its own delivery id, one endpoint"
                           " at a time in due order. Deliveries pending or succeeded are left alone.",
            "requestBody": {"required": True, "content": {JSON: {"schema": "RedeliverFailed", "examples": _examples(
                since=("Everything that failed since the outage began", {"since": "2026-11-26T08:00:00Z"}))}}},
            "responses": {**_ok("Queued.", "Redelivered", "202", _examples(
                                queued=("Three failed deliveries queued again",
                                        {"redelivered": 3, "since": "2026-11-26T08:00:00Z"}))),
                          **_body_errors(), **AUTH_ERRORS}}),
        ("/api/v1/personas", "get", {
            "tags": ["Catalogue"], "summary": "The 25 personas", "operationId": "listPersonas",
            "responses": {**_ok("The catalogue.", "PersonaList", examples=_examples(
                                excerpt=("The first 4 of 25", PERSONA_LIST))), **AUTH_ERRORS}}),
        ("/api/v1/methodologies", "get", {
            "tags": ["Catalogue"], "summary": "The sales methodologies", "operationId": "listMethodologies",
            "responses": {**_ok("The catalogue.", "MethodologyList", examples=_examples(
                                all=("All 10", METHODOLOGY_LIST))), **AUTH_ERRORS}}),
        ("/healthz", "get", {
            "tags": ["Service"], "summary": "Liveness and database check", "operationId": "health", "security": [],
            "responses": {**_ok("Healthy.", "Health", examples=_examples(ok=("Healthy", HEALTHY))),
                          "503": {"description": "Database unreachable.", "content": {JSON: {
                              "schema": "Health", "examples": _examples(
                                  unreachable=("The database does not answer", UNHEALTHY))}}}}}),
    ]


TAGS = [
    {"name": "Assessments", "description": "Submit, list, read and erase assessments; rotate their tokens."},
    {"name": "Reports", "description": "Generate the 25 reports of an assessment; read them all in one request, or"
                                       " one."},
    {"name": "Usage", "description": "What is billed."},
    {"name": "Key", "description": "The calling key's own settings: the day rate and currency its reports price"
                                   " effort at, and whether its clients' pages name the sales methodology."},
    {"name": "Partner", "description": "What every key of your account shows your clients: the brand on the report"
                                       " pages and PDFs, and the sites that may frame them."},
    {"name": "Webhooks", "description": "The deliveries of your webhook, and redelivery."},
    {"name": "Catalogue", "description": "The personas and methodologies."},
    {"name": "Service", "description": "Unauthenticated health check."},
]

SCHEMAS = {
    "Error": s.ErrorSchema, "Submission": s.SubmissionSchema, "SubmissionAlt": s.SubmissionAltSchema,
    "Assessment": s.AssessmentSchema, "AssessmentPage": s.AssessmentPageSchema,
    "GenerateRequest": s.GenerateRequestSchema, "GenerationResult": s.GenerationResultSchema,
    "ReportContent": ReportContentSchema, "ReportList": s.ReportListSchema, "Usage": s.UsageSchema,
    "PersonaList": s.PersonaListSchema,
    "MethodologyList": s.MethodologyListSchema, "Health": s.HealthSchema,
    "Delivery": s.DeliverySchema, "DeliveryPage": s.DeliveryPageSchema,
    "RedeliverFailed": s.RedeliverFailedSchema, "Redelivered": s.RedeliveredSchema,
    "KeySettings": s.KeySettingsSchema, "KeyUpdate": s.KeyUpdateSchema,
    "PartnerSettings": s.PartnerSettingsSchema, "PartnerUpdate": s.PartnerUpdateSchema,
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


def _with_idempotency(operation: dict) -> dict:
    """A POST under /api/v1: the Idempotency-Key header, its three errors, and Idempotent-Replayed on success."""
    operation = copy.deepcopy(operation)
    responses = operation["responses"]
    for status, response in responses.items():
        if status.startswith("2"):
            response["headers"] = {**response.get("headers", {}), "Idempotent-Replayed": REPLAYED_HEADER}
    _add_error(responses, "400", "The Idempotency-Key header is empty, longer than 255 characters or not printable"
                                 " ASCII (invalid_idempotency_key).", "invalid_idempotency_key")
    _add_error(responses, "409", "A request with this Idempotency-Key is still running (idempotency_in_progress);"
                                 " retry after Retry-After.", "idempotency_in_progress")
    _add_error(responses, "422", "This Idempotency-Key was used with a different request body or endpoint"
                                 " (idempotency_key_reused).", "idempotency_key_reused")
    responses["409"]["headers"] = {"Retry-After": {
        "description": "Seconds to wait before retrying (with idempotency_in_progress).", "required": False,
        **INT_HEADER}}
    return {**operation, "parameters": [*operation.get("parameters", []), IDEMPOTENCY_PARAM],
            "responses": dict(sorted(responses.items()))}


def _with_headers(path: str, operation: dict) -> dict:
    """Every authenticated answer but 401 carries the rate-limit headers; 429 adds Retry-After."""
    if not path.startswith("/api/v1/"):
        return operation
    responses = {}
    for status, response in operation["responses"].items():
        headers = dict(response.get("headers", {}))
        if status != "401":
            headers.update({name: {**spec, "required": True} for name, spec in RATE_LIMIT_HEADERS.items()})
        if status in ("429", "503"):
            headers["Retry-After"] = {"description": "Seconds until a request is possible again.", "required": True,
                                      **INT_HEADER}
        if status == "201":
            headers["Location"] = {"description": "The new resource.", "required": True,
                                   "schema": {"type": "string"}}
        responses[status] = {**response, "headers": headers} if headers else response
    return {**operation, "responses": responses}


def build_openapi(version: str) -> dict:
    """Assemble the document of every endpoint."""
    spec = APISpec(title=SERVICE, version=version, openapi_version="3.0.3", plugins=[MarshmallowPlugin()],
                   info={"description": description()}, tags=TAGS)
    spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer",
                                                   "description": "crs_ followed by 64 hex characters"})
    for name, schema in SCHEMAS.items():
        spec.components.schema(name, schema=schema)
    paths: dict[str, dict] = {}
    for path, method, operation in _operations():
        if method == "post" and path.startswith("/api/v1/"):
            operation = _with_idempotency(operation)
        paths.setdefault(path, {})[method] = _with_headers(path, operation)
    for path, ops in paths.items():
        spec.path(path=path, operations=ops)
    document = spec.to_dict()
    document["security"] = [{"bearerAuth": []}]
    return document
