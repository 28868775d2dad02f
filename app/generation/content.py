"""The shape of a report's content, shared by both engines and the API."""

from __future__ import annotations

import re

from marshmallow import Schema, fields, validate

from ..catalog import METHODOLOGY_BY_ID, PERSONA_BY_ID

# What an LLM must answer with (OpenAI "strict" JSON schema: every property required, no extras).
CONTENT_JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["title", "summary", "sections", "callToAction", "citedRequirements"],
    "properties": {
        "title": {"type": "string"},
        "summary": {"type": "string"},
        "sections": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["heading", "paragraphs", "bullets"],
            "properties": {"heading": {"type": "string"},
                           "paragraphs": {"type": "array", "items": {"type": "string"}},
                           "bullets": {"type": "array", "items": {"type": "string"}}}}},
        "callToAction": {"type": "string"},
        "citedRequirements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "status"],
            "properties": {"id": {"type": "string"},
                           "status": {"type": "string", "enum": ["met", "not_met", "partially_met"]}}}},
    },
}


class SectionSchema(Schema):
    heading = fields.String(required=True, validate=validate.Length(min=1, max=300))
    paragraphs = fields.List(fields.String(validate=validate.Length(max=5000)), required=True,
                             validate=validate.Length(max=20))
    bullets = fields.List(fields.String(validate=validate.Length(max=2000)), required=True,
                          validate=validate.Length(max=40))


class CitedRequirementSchema(Schema):
    id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    status = fields.String(required=True, validate=validate.OneOf(("met", "not_met", "partially_met")))


class ReportTextSchema(Schema):
    title = fields.String(required=True, validate=validate.Length(min=1, max=300))
    summary = fields.String(required=True, validate=validate.Length(min=1, max=5000))
    sections = fields.List(fields.Nested(SectionSchema), required=True, validate=validate.Length(min=1, max=20))
    callToAction = fields.String(required=True, validate=validate.Length(min=1, max=3000))


class EngineContentSchema(ReportTextSchema):
    """What an LLM answers; validated before it is stored (citedRequirements is checked, then dropped)."""

    citedRequirements = fields.List(fields.Nested(CitedRequirementSchema), required=True,
                                    validate=validate.Length(max=400))


class RequirementRowSchema(Schema):
    id = fields.String()
    title = fields.String()
    status = fields.String(metadata={"description": "met, not_met or partially_met"})
    asks = fields.String(allow_none=True, metadata={"description": "what an open requirement asks for, where the "
                                                                   "framework pack knows it; null otherwise"})


class StoredSectionSchema(SectionSchema):
    requirements = fields.List(fields.Nested(RequirementRowSchema), metadata={
        "description": "only on the requirements appendix: every requirement in scope, as data"})


class ReportContentSchema(ReportTextSchema):
    """A stored report as `GET /assessments/:id/reports/:persona` returns it."""

    sections = fields.List(fields.Nested(StoredSectionSchema))
    keyPoints = fields.List(fields.String(), metadata={
        "description": "three to five short points for this reader, shown at the top of the pages"})

    persona = fields.String()
    personaLabel = fields.String()
    category = fields.String()
    methodology = fields.String()
    methodologyLabel = fields.String()
    generatedAt = fields.String()
    engine = fields.String()
    readerRelation = fields.String(metadata={"description": "decision_maker, operator or outside_reader"})
    knowledge = fields.Dict(metadata={"description": "the knowledge packs used: {framework, industry}, "
                                                     "each a pack key or null"})
    fallback = fields.Boolean(metadata={"description": "present and true when the configured engine failed "
                                                       "and the template engine wrote this report"})
    livemode = fields.Boolean(metadata={"description": "false for a report of an assessment made with a test key: "
                                                       "never billed, marked \"Test report\" on its pages and PDFs"})


_ORGANIZATION = re.compile(r"\b([Tt])he organization\b")


def apply_display_name(content: dict, display_name: str | None) -> dict:
    """Swap 'the organization' for the partner's display name in every string of the content."""
    if not display_name:
        return content

    def swap(text: str) -> str:
        return _ORGANIZATION.sub(display_name.replace("\\", "\\\\"), text)

    return {
        **content,
        "title": swap(content["title"]), "summary": swap(content["summary"]),
        "sections": [{**s, "heading": swap(s["heading"]), "paragraphs": [swap(p) for p in s["paragraphs"]],
                      "bullets": [swap(b) for b in s["bullets"]],
                      **({"requirements": [{**row, "asks": swap(row["asks"]) if row["asks"] else None}
                                           for row in s["requirements"]]} if "requirements" in s else {})}
                     for s in content["sections"]],
        "callToAction": swap(content["callToAction"]),
        **({"keyPoints": [swap(k) for k in content["keyPoints"]]} if "keyPoints" in content else {}),
    }


def stored_content(content: dict, persona_id: str, methodology_id: str, engine: str, generated_at: str) -> dict:
    """An engine's content with the labels a reader needs, as stored and served."""
    persona = PERSONA_BY_ID[persona_id]
    methodology = METHODOLOGY_BY_ID[methodology_id]
    return {"persona": persona.id, "personaLabel": persona.label, "category": persona.category,
            "methodology": methodology.id, "methodologyLabel": methodology.label, **content,
            "generatedAt": generated_at, "engine": engine}
