"""marshmallow schemas: the single contract for validation, output and the OpenAPI document."""

from __future__ import annotations

import base64
import re

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from ..catalog import DEFAULT_METHODOLOGY, METHODOLOGY_BY_ID, PERSONA_BY_ID, PERSONAS
from ..embed.urls import embed_url, public_base_url, view_url
from ..generation.content import ReportContentSchema
from ..keys.brand import MAX_LOGO_BYTES, MAX_NAME_LENGTH, BrandError, normalize_color, normalize_name, validate_logo
from ..keys.service import (
    CURRENCIES,
    MAX_DAY_RATE,
    MAX_EMBED_ORIGINS,
    MIN_DAY_RATE,
    TIER_LIMITS,
    KeyInputError,
    normalize_origin,
)
from ..pagination import MAX_ID
from .fields import FullMatch, StrictBoolean, StrictInteger, Text, UtcDateTime

REQUIREMENT_STATUSES = ("met", "not_met", "partially_met")
ASSESSMENT_STATUSES = ("submitted", "generating", "completed", "failed")
COMPANY_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_\-.:]{0,127}$"
POLICY_PATTERN = r"^([Yy][Ee][Ss]|[Nn][Oo])$"
MAX_REQUIREMENTS = 2000


PREVIOUS_REQUEST_DESCRIPTION = (
    "The earlier assessment this one is compared with (see `change` on the record). Left out: the most recent"
    " earlier assessment of the same `companyId` and framework made with a key of the same mode (live or test), if"
    " any. An id: that assessment, which must be one of yours in the same mode (`422 validation_error` with"
    " `details.previousAssessmentId` otherwise). `null`: none.")


def _alnum(value: str) -> str:
    return re.sub(r"[^0-9a-z]", "", value.casefold())


# ---------------------------------------------------------------- requests

class RequirementSchema(Schema):
    id = Text(required=True, max_length=64, metadata={"description": "The framework's clause reference."})
    title = Text(required=True, max_length=500)
    status = fields.String(required=True, validate=validate.OneOf(REQUIREMENT_STATUSES))


class _SubmissionBase(Schema):
    companyId = fields.String(
        required=True, validate=FullMatch(COMPANY_ID_PATTERN, error="Must be 1-128 characters of "
                                                "A-Z a-z 0-9 _ - . : starting with a letter or digit."),
        metadata={"description": "Opaque client id chosen by the partner; never the real company name.",
                  "pattern": COMPANY_ID_PATTERN, "example": "client_1042"})
    industry = Text(required=True, max_length=200, metadata={"example": "Healthcare"})
    requirements = fields.List(fields.Nested(RequirementSchema), required=True,
                               validate=validate.Length(min=1, max=MAX_REQUIREMENTS),
                               metadata={"minItems": 1, "maxItems": MAX_REQUIREMENTS})
    displayName = Text(max_length=200, allow_none=True,
                       metadata={"description": "Optional display name; reports say 'the organization' without it."})
    previousAssessmentId = StrictInteger(
        allow_none=True, validate=validate.Range(min=1, max=MAX_ID),
        metadata={"description": PREVIOUS_REQUEST_DESCRIPTION, "example": 297})


class SubmissionSchema(_SubmissionBase):
    """The submission as the spec spells it."""

    framework = Text(required=True, max_length=200, metadata={"example": "ISO 27001"})
    policy = fields.String(required=True, metadata={"pattern": POLICY_PATTERN, "description": "YES or NO, any case."})


class SubmissionAltSchema(_SubmissionBase):
    """The second spelling: `frameworkName` and a boolean `hasPolicy`."""

    frameworkName = Text(required=True, max_length=200, metadata={"example": "SOC 2"})
    hasPolicy = StrictBoolean(required=True)


class SubmissionLoader(_SubmissionBase):
    """Accepts either spelling per field and returns one normalised dict."""

    framework = Text(max_length=200)
    frameworkName = Text(max_length=200)
    policy = fields.String()
    hasPolicy = StrictBoolean()

    @validates_schema(skip_on_field_errors=False)
    def _check(self, data, **kwargs):
        errors: dict[str, list[str]] = {}
        frameworks = {data[k] for k in ("framework", "frameworkName") if k in data}
        if not frameworks:
            errors["framework"] = ["Missing data for required field (or give frameworkName)."]
        elif len(frameworks) > 1:
            errors["framework"] = ["framework and frameworkName disagree."]
        flags = []
        if "policy" in data:
            policy = data["policy"].strip().upper()
            if policy not in ("YES", "NO"):
                errors["policy"] = ["Must be YES or NO."]
            else:
                flags.append(policy == "YES")
        if "hasPolicy" in data:
            flags.append(data["hasPolicy"])
        if not flags and "policy" not in errors:
            errors["policy"] = ["Missing data for required field (or give hasPolicy)."]
        elif len(set(flags)) > 1:
            errors["policy"] = ["policy and hasPolicy disagree."]
        display = data.get("displayName")
        if display and _alnum(display) == _alnum(data.get("companyId", "")):
            errors["displayName"] = ["Must not equal companyId: companyId must stay opaque."]
        seen: set[str] = set()
        for index, requirement in enumerate(data.get("requirements") or []):
            ref = requirement.get("id")
            if ref in seen:
                errors[f"requirements.{index}.id"] = [f"Duplicate requirement id {ref!r}."]
            seen.add(ref)
        if errors:
            raise ValidationError(errors)

    @post_load
    def _normalise(self, data, **kwargs):
        has_policy = data["hasPolicy"] if "hasPolicy" in data else data["policy"].strip().upper() == "YES"
        return {
            "company_id": data["companyId"],
            "industry": data["industry"],
            "framework": data.get("framework") or data["frameworkName"],
            "has_policy": has_policy,
            "display_name": data.get("displayName") or None,
            "requirements": [{"ref": r["id"], "title": r["title"], "status": r["status"]}
                             for r in data["requirements"]],
            # Only when given: absent means "link automatically", null "link to none".
            **({"previous_assessment_id": data["previousAssessmentId"]} if "previousAssessmentId" in data else {}),
        }


class GenerateRequestSchema(Schema):
    methodology = fields.String(load_default=DEFAULT_METHODOLOGY, validate=validate.OneOf(list(METHODOLOGY_BY_ID)),
                                metadata={"description": "Sales methodology; default spin."})


class ListQuerySchema(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(load_default=None)


def unknown_persona_message(unknown: list[str]) -> str:
    names = ", ".join(repr(p) for p in unknown)
    return (f"Unknown persona{'s' if len(unknown) > 1 else ''} {names}. Must be one of:"
            f" {', '.join(p.id for p in PERSONAS)}"
            " (GET /api/v1/personas).")


class PersonaFilter(fields.Field):
    """`?persona=`: persona ids, the parameter repeated (`?persona=cfo&persona=ciso`) or comma-separated
    (`?persona=cfo,ciso`), or both; loaded as a set. An empty or unknown id is refused, naming it."""

    def _deserialize(self, value, attr, data, **kwargs):
        values = value if isinstance(value, list) else [value]
        picked = [part.strip() for item in values for part in str(item).split(",")]
        unknown = list(dict.fromkeys(p for p in picked if p not in PERSONA_BY_ID))
        if unknown:
            raise ValidationError(unknown_persona_message(unknown))
        return frozenset(picked)


class ReportsQuerySchema(Schema):
    """The query of `GET /assessments/:id/reports`, from `request.args.to_dict(flat=False)`; other
    parameters are refused, as on the paginated lists."""

    persona = PersonaFilter(load_default=None)


# ---------------------------------------------------------------- responses

class RequirementOutSchema(Schema):
    id = fields.String(attribute="ref")
    title = fields.String()
    status = fields.String(metadata={"enum": list(REQUIREMENT_STATUSES)})


class RequirementCountsSchema(Schema):
    met = fields.Integer()
    not_met = fields.Integer()
    partially_met = fields.Integer()
    total = fields.Integer()


class ReportLinkSchema(Schema):
    persona = fields.String()
    viewToken = fields.String(attribute="view_token")
    viewUrl = fields.Function(lambda report: view_url(report.view_token), metadata={"type": "string"})
    status = fields.String(metadata={"enum": ["pending", "completed", "failed"]})
    viewCount = fields.Integer(attribute="view_count", metadata={"description": "Times the report was shown."})
    engine = fields.String(allow_none=True, metadata={
        "description": "The engine that wrote the stored content: the configured one, or `template` when it "
                       "fell back; null before a first report."})
    fallbackReason = fields.String(attribute="fallback_reason", allow_none=True, metadata={
        "description": "Why the template engine wrote this report instead of the configured LLM; null otherwise."})


class LlmUsageSchema(Schema):
    """Tokens the LLM provider reported for the last run (`openai` engine; null for `template`)."""

    promptTokens = fields.Integer()
    completionTokens = fields.Integer()
    cachedTokens = fields.Integer(metadata={"description": "Prompt tokens served from the provider's cache, "
                                                           "where it reports them."})


def _ids(what: str) -> fields.List:
    return fields.List(fields.String(), metadata={"description": f"Ids of the requirements {what}."})


class ChangeSchema(Schema):
    """What changed since the earlier assessment (`previousAssessmentId`), worked out when the two were linked.

    Requirements are matched by the framework's own id forms (`A.8.13`, `A 8.13` and `Annex A 8.13` are one
    control; `164.308(a)(1)(ii)(A)` in any case). Open means not met or partly met."""

    closed = fields.Integer(metadata={"description": "Open before, met now."})
    improved = fields.Integer(metadata={"description": "Not met before, partly met now (so also still open)."})
    regressed = fields.Integer(metadata={"description": "Met or partly met before, lower now."})
    new = fields.Integer(metadata={"description": "Only in this assessment."})
    dropped = fields.Integer(metadata={"description": "Only in the earlier assessment."})
    stillOpen = fields.Integer(metadata={"description": "Open in both (improved and partly-met-to-not-met items"
                                                        " included)."})
    scoreBefore = fields.Float(metadata={"description": "The earlier assessment's complianceScore."})
    scoreAfter = fields.Float(metadata={"description": "This assessment's complianceScore."})
    closedIds = _ids("closed, as this assessment writes them")
    improvedIds = _ids("improved")
    regressedIds = _ids("regressed")
    newIds = _ids("only in this assessment")
    droppedIds = fields.List(fields.String(), allow_none=True, metadata={
        "description": "Ids of the requirements only in the earlier assessment, as it wrote them; null once it is"
                       " erased."})
    stillOpenIds = _ids("open in both")
    openSince = fields.String(allow_none=True, metadata={
        "format": "date-time", "description": "The earlier assessment's createdAt: the stillOpen requirements have"
                                              " been open at least since then. Null once it is erased."})


class AssessmentSchema(Schema):
    id = fields.Integer()
    externalCompanyId = fields.String(attribute="external_company_id")
    industry = fields.String()
    framework = fields.String()
    policy = fields.Function(lambda a: "YES" if a.has_policy else "NO",
                             metadata={"type": "string", "enum": ["YES", "NO"]})
    hasPolicy = fields.Boolean(attribute="has_policy")
    displayName = fields.String(attribute="display_name", allow_none=True)
    requirements = fields.List(fields.Nested(RequirementOutSchema))
    requirementCounts = fields.Nested(RequirementCountsSchema, attribute="requirement_counts")
    complianceScore = fields.Float(attribute="compliance_score")
    status = fields.String(metadata={"enum": list(ASSESSMENT_STATUSES)})
    methodology = fields.String(allow_none=True, metadata={"enum": list(METHODOLOGY_BY_ID)})
    embedToken = fields.String(attribute="embed_token")
    embedUrl = fields.Function(lambda a: embed_url(a.embed_token), metadata={"type": "string", "format": "uri"})
    reports = fields.List(fields.Nested(ReportLinkSchema))
    createdAt = UtcDateTime(attribute="created_at")
    updatedAt = UtcDateTime(attribute="updated_at")
    generatedAt = UtcDateTime(attribute="generated_at", allow_none=True)
    llmUsage = fields.Nested(LlmUsageSchema, attribute="llm_usage", allow_none=True)
    livemode = fields.Boolean(metadata={"description": "false for an assessment made with a test key: never billed,"
                                                       " seen only by test keys"})
    reportsDone = fields.Integer(attribute="reports_done", metadata={
        "description": "Reports written so far by the running generation (of 25), or by the last one"})
    previousAssessmentId = fields.Integer(attribute="previous_assessment_id", allow_none=True, metadata={
        "description": "The client's earlier assessment this one is compared with: the most recent one of the same"
                       " companyId, framework and mode, or the one the submission named; null when there is none,"
                       " when the submission sent null, or once that one is erased. Never another partner's or"
                       " the other mode's."})
    change = fields.Nested(ChangeSchema, allow_none=True, metadata={
        "description": "What changed since the earlier assessment, worked out when the two were linked; null when"
                       " this one was never linked. Erasing the earlier one keeps the counts, scores and this"
                       " assessment's own ids, and sets droppedIds and openSince to null."})


class AssessmentListItemSchema(AssessmentSchema):
    class Meta:
        exclude = ("requirements", "reports")


class AssessmentPageSchema(Schema):
    items = fields.List(fields.Nested(AssessmentListItemSchema))
    nextCursor = fields.String(allow_none=True)


class GenerationResultSchema(Schema):
    assessmentId = fields.Integer(attribute="id")
    status = fields.String(metadata={"enum": ["completed", "failed"]})
    methodology = fields.String()
    complianceScore = fields.Float(attribute="compliance_score")
    totalReports = fields.Function(lambda a: len(a.reports), metadata={"type": "integer"})
    failedReports = fields.Function(lambda a: sum(r.status != "completed" for r in a.reports),
                                    metadata={"type": "integer"})
    embedToken = fields.String(attribute="embed_token")
    embedUrl = fields.Function(lambda a: embed_url(a.embed_token), metadata={"type": "string", "format": "uri"})
    reports = fields.List(fields.Nested(ReportLinkSchema))
    generatedAt = UtcDateTime(attribute="generated_at")
    llmUsage = fields.Nested(LlmUsageSchema, attribute="llm_usage", allow_none=True)
    livemode = fields.Boolean()


class UsageCountsSchema(Schema):
    assessments = fields.Integer()
    reports = fields.Integer()
    amount = fields.Integer()


class KeyUsageSchema(Schema):
    keyId = fields.Integer()
    key = fields.String(metadata={"description": "The key as crs_…last4."})
    assessments = fields.Integer()
    reports = fields.Integer()
    amount = fields.Integer()


class UsageSchema(Schema):
    currency = fields.String()
    livemode = fields.Boolean(metadata={
        "description": "false when asked with a test key: the partner's test assessments and reports, at 0 USD"
                       " (test mode is never billed)"})
    total = fields.Nested(UsageCountsSchema)
    keys = fields.List(fields.Nested(KeyUsageSchema))


class DeliveryQuerySchema(ListQuerySchema):
    assessmentId = fields.Integer(validate=validate.Range(min=1, max=2**63 - 1))
    status = fields.String(validate=validate.OneOf(["pending", "succeeded", "failed"]))


class RedeliverFailedSchema(Schema):
    since = fields.AwareDateTime(required=True, metadata={
        "description": "Redeliver the failed deliveries created at or after this time (ISO 8601 with an offset)."})
    assessmentId = fields.Integer(validate=validate.Range(min=1, max=2**63 - 1),
                                  metadata={"description": "Only this assessment's."})


class RedeliveredSchema(Schema):
    redelivered = fields.Integer(metadata={"description": "How many failed deliveries got a new round."})
    since = UtcDateTime()


class AttemptSchema(Schema):
    at = fields.String(metadata={"format": "date-time"})
    url = fields.String(metadata={"description": "Where this attempt was sent (a redelivery goes to the key's"
                                                 " webhook URL at the time)."})
    statusCode = fields.Integer(allow_none=True)
    error = fields.String(allow_none=True)
    durationMs = fields.Integer()
    responseBody = fields.String(allow_none=True, metadata={
        "description": "The first 2 KB of the receiver's answer, as text; null when no answer came (or for attempts"
                       " made before this field existed)."})


class DeliverySchema(Schema):
    id = fields.String(metadata={"description": "The X-Service-Delivery / webhook-id of every attempt."})
    event = fields.String(metadata={"enum": ["assessment.reports.completed", "assessment.reports.failed"]})
    assessmentId = fields.Integer(attribute="assessment_id")
    status = fields.String(metadata={"enum": ["pending", "succeeded", "failed"]})
    attempts = fields.List(fields.Nested(AttemptSchema))
    createdAt = UtcDateTime(attribute="created_at")
    nextAttemptAt = UtcDateTime(attribute="next_attempt_at", allow_none=True)


class DeliveryPageSchema(Schema):
    items = fields.List(fields.Nested(DeliverySchema))
    nextCursor = fields.String(allow_none=True)


class PersonaSchema(Schema):
    id = fields.String()
    label = fields.String()
    category = fields.String()


class PersonaListSchema(Schema):
    items = fields.List(fields.Nested(PersonaSchema))


class MethodologySchema(Schema):
    id = fields.String()
    label = fields.String()


class MethodologyListSchema(Schema):
    items = fields.List(fields.Nested(MethodologySchema))


DAY_RATE_DESCRIPTION = (
    "Whole units of `currency` per person-day that the CFO's, CEO's, board's and owner's reports price effort"
    f" at, {MIN_DAY_RATE} to {MAX_DAY_RATE:,}; null: they use a documented default range.")
CURRENCY_DESCRIPTION = ("ISO 4217 code of the day rate, upper-case, one of " + ", ".join(CURRENCIES)
                        + ". A day rate set without one is in USD.")
SHOW_METHODOLOGY_DESCRIPTION = (
    "Whether the report pages and PDFs your clients see name the sales methodology (e.g. \"SPIN Selling\");"
    " false (the default): they never do. The API's report content always carries `methodology`.")


class KeySettingsSchema(Schema):
    """`GET /api/v1/key`: the calling key's own settings, never the key itself or its webhook secret."""

    id = fields.Integer()
    key = fields.String(attribute="masked", metadata={"description": "The key as crs_…last4."})
    name = fields.String(allow_none=True)
    livemode = fields.Boolean(metadata={"description": "false for a test key"})
    tier = fields.String(metadata={"enum": list(TIER_LIMITS)})
    rateLimit = fields.Integer(attribute="rate_limit", metadata={"description": "Requests per hour."})
    frameworks = fields.List(fields.String(), metadata={
        "description": "Frameworks the key may submit; empty: every framework."})
    dayRate = fields.Integer(attribute="day_rate", allow_none=True, metadata={"description": DAY_RATE_DESCRIPTION})
    currency = fields.String(allow_none=True, metadata={"description": CURRENCY_DESCRIPTION,
                                                        "enum": [*CURRENCIES, None]})
    showMethodology = fields.Boolean(attribute="show_methodology", metadata={
        "description": SHOW_METHODOLOGY_DESCRIPTION})
    requireSignedEmbeds = fields.Boolean(attribute="require_signed_embeds", dump_only=True, metadata={
        "description": "Whether the embed pages and PDFs of the key's assessments open only at signed, expiring URLs"
                       " (`?expires=…&signature=…`, signed with the key's embed secret); false (the default): the"
                       " tokens alone open them. Read-only here: set with the `keys` CLI or in the portal."})
    createdAt = UtcDateTime(attribute="created_at")


class KeyUpdateSchema(Schema):
    """`PATCH /api/v1/key`: any of the three report settings; a field left out is unchanged, null clears."""

    dayRate = StrictInteger(allow_none=True, validate=validate.Range(
                                min=MIN_DAY_RATE, max=MAX_DAY_RATE,
                                error=f"Must be a whole number from {MIN_DAY_RATE} to {MAX_DAY_RATE:,}, or null."),
                            attribute="day_rate",
                            metadata={"description": DAY_RATE_DESCRIPTION + " Send null to remove it."})
    currency = fields.String(allow_none=True, validate=validate.OneOf(
                                 CURRENCIES, error="Must be one of: {choices} (upper-case), or null."),
                             metadata={"description": CURRENCY_DESCRIPTION + " Send null to remove it.",
                                       "enum": [*CURRENCIES, None]})
    showMethodology = StrictBoolean(attribute="show_methodology",
                                    metadata={"description": SHOW_METHODOLOGY_DESCRIPTION})


EMBED_ORIGINS_DESCRIPTION = ("The sites that may show the partner's embed pages in an iframe (`frame-ancestors`), each"
                             " `scheme://host[:port]`, e.g. `https://portal.example.com`; empty: any site.")
WHITE_LABEL_DESCRIPTION = "Whether the pages and PDFs leave out every mention of this service."


class PartnerSettingsSchema(Schema):
    """`GET /api/v1/partner`: what every key of the calling key's partner shows its clients."""

    partner = fields.String(attribute="name", metadata={"description": "The partner's name."})
    brandName = fields.String(attribute="brand_name", allow_none=True, metadata={
        "description": "Shown as \"Prepared by …\" on the report pages and PDFs; null: none."})
    brandColor = fields.String(attribute="brand_color", allow_none=True, metadata={
        "description": "The accent colour of the pages, `#rrggbb`; null: the standard design."})
    logoUrl = fields.Method("logo_url", allow_none=True, metadata={
        "description": "The logo as the pages load it (PNG or SVG, served from this service); null: no logo."})
    whiteLabel = fields.Boolean(attribute="white_label", metadata={"description": WHITE_LABEL_DESCRIPTION})
    embedOrigins = fields.List(fields.String(), attribute="embed_origins",
                               metadata={"description": EMBED_ORIGINS_DESCRIPTION})

    def logo_url(self, partner) -> str | None:
        digest = partner.brand_logo_digest
        return f"{public_base_url()}/embed/logo/{digest}" if digest else None


def _checked(check, error_type):
    """A marshmallow validator from one of the services' checks: its message becomes the field's error."""
    def validator(value):
        try:
            check(value)
        except error_type as error:
            message = str(error)
            raise ValidationError(message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")) from None
    return validator


def _color(text: str) -> None:
    if text.strip():
        normalize_color(text)


def _origins(origins: list[str]) -> None:
    if len(origins) > MAX_EMBED_ORIGINS:
        raise KeyInputError(f"at most {MAX_EMBED_ORIGINS} embed origins")
    for origin in origins:
        normalize_origin(origin)


class PartnerUpdateSchema(Schema):
    """`PATCH /api/v1/partner`: any of the brand fields and the embed origins; a field left out is unchanged, null
    removes it."""

    brandName = fields.String(allow_none=True, validate=[validate.Length(max=MAX_NAME_LENGTH),
                                                         _checked(normalize_name, BrandError)],
                              metadata={"description": "Shown as \"Prepared by …\" on the report pages and PDFs, at"
                                                       f" most {MAX_NAME_LENGTH} characters; null or \"\" removes"
                                                       " it."})
    brandColor = fields.String(allow_none=True, validate=[validate.Length(max=20), _checked(_color, BrandError)],
                               metadata={"description": "The accent colour, `#rrggbb` or `#rgb`; null or \"\" removes"
                                                        " it."})
    logo = fields.String(allow_none=True, validate=validate.Length(max=(MAX_LOGO_BYTES + 2) // 3 * 4 + 4), metadata={
        "description": "A PNG or SVG file of at most 64 KB, base64-encoded; null removes the logo. SVG files may"
                       " not contain scripts, event handlers or links to other files."})
    whiteLabel = StrictBoolean(metadata={"description": WHITE_LABEL_DESCRIPTION})
    embedOrigins = fields.List(fields.String(validate=validate.Length(max=300),
                                             metadata={"pattern": r"^(\*|https?://[A-Za-z0-9.*-]+(:[0-9]{1,5})?/?)$"}),
                               allow_none=True,
                               validate=_checked(_origins, KeyInputError),
                               metadata={"description": EMBED_ORIGINS_DESCRIPTION + " Replaces the whole list; null"
                                                        " or [] lets any site frame the pages."})

    @post_load
    def decoded(self, data, **_kwargs):
        """The logo as bytes, checked: a field error, not a stored file, when it is not a safe PNG or SVG."""
        if data.get("logo") is not None:
            try:
                raw = base64.b64decode(data["logo"], validate=True)
            except ValueError:
                raise ValidationError({"logo": ["Must be the file's bytes in base64."]}) from None
            try:
                data["logo"] = validate_logo(raw)[0]
            except BrandError as error:
                raise ValidationError({"logo": [f"{error}."]}) from None
        return data


class ReportListSchema(Schema):
    """`GET /assessments/:id/reports`: the reports of the assessment in one answer, in persona order (the contract's
    `reports` array; 25 at most, so not paginated)."""

    reports = fields.List(fields.Nested(ReportContentSchema), metadata={
        "description": "Each report exactly as `GET /api/v1/assessments/{assessment_id}/reports/{persona}` answers"
                       " it, in the order of `GET /api/v1/personas`; a persona with no content yet is left out."})


class ErrorSchema(Schema):
    error = fields.String(required=True)
    code = fields.String(required=True)
    details = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    retryAfter = fields.Integer(metadata={"description": "With `rate_limited`: whole seconds until a request is"
                                                         " possible again (as `Retry-After`)."})
    limit = fields.Integer(metadata={"description": "With `rate_limited` for a key's budget: the requests the key"
                                                    " may make per `window`."})
    window = fields.String(metadata={"description": "With `rate_limited` for a key's budget: the sliding window the"
                                                    " `limit` counts over, `1 hour`."})


class HealthSchema(Schema):
    status = fields.String()
    database = fields.String()
