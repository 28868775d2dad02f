"""Report text from any OpenAI-compatible server, one chat completion per persona."""

from __future__ import annotations

import json
import logging
import urllib.request

from marshmallow import ValidationError
from openai import DefaultHttpxClient, OpenAI

from ..catalog import METHODOLOGY_BY_ID, PERSONA_BY_ID, Methodology, Persona
from .content import CONTENT_JSON_SCHEMA, EngineContentSchema, apply_display_name
from .facts import AssessmentFacts
from .http_transport import LeanHTTPTransport

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You are a senior compliance consultant writing a stakeholder briefing on a compliance assessment. "
    "Write for the one reader named at the end, in their terms, following the sales methodology given. "
    "Refer to the client only as 'the organization'; never invent a company name. Name unmet and partially "
    "met requirements by their id and title. Answer with a JSON object only, matching the schema."
)
STATUS_WORDS = {"met": "met", "not_met": "NOT MET", "partially_met": "PARTIALLY MET"}
_content_schema = EngineContentSchema()
RESPONSE_FORMAT = {"type": "json_schema",
                   "json_schema": {"name": "persona_report", "strict": True, "schema": CONTENT_JSON_SCHEMA}}


class EngineOutputError(ValueError):
    """The model answered, but not with a usable report."""


def assessment_prompt(facts: AssessmentFacts, methodology: Methodology) -> str:
    """The part shared by all 25 calls of a run; first, so the provider's prompt cache serves it."""
    lines = [
        f"Framework: {facts.framework}",
        f"Industry: {facts.industry}",
        f"Documented policy: {'yes' if facts.has_policy else 'no'}",
        f"Compliance score: {facts.compliance_score} / 100 "
        f"({facts.met} met, {facts.partially_met} partially met, {facts.not_met} not met, {facts.total} total)",
        f"Methodology: {methodology.id} ({methodology.label}). Tone: {methodology.tone}",
        "Sections, in this order (one per stage):",
        *(f"- {stage.heading}: {stage.purpose}" for stage in methodology.stages),
        f"Call to action style: {methodology.cta_style}",
        "Requirements (id | title | status):",
        *(f"- {r.id} | {r.title} | {STATUS_WORDS[r.status]}" for r in facts.requirements),
    ]
    return "\n".join(lines)


def persona_prompt(persona: Persona) -> str:
    """The part that differs per call; last."""
    return "\n".join([
        f"Persona: {persona.id} ({persona.label})",
        f"Category: {persona.category}",
        f"Reader: {persona.role}",
        f"What they care about: {'; '.join(persona.concerns)}",
        f"The decision in front of them: {persona.decides}",
        f"Express consequences in terms of: {persona.stakes}",
        "Write the briefing for this reader now.",
    ])


class OpenAIEngine:
    """One `chat.completions` call per persona through the official client."""

    name = "openai"

    def __init__(self, *, api_key: str | None, base_url: str | None, model: str, timeout: float,
                 max_retries: int, transport: str = "lean"):
        self.model = model
        settings = {"api_key": api_key or "not-set", "base_url": base_url, "timeout": timeout,
                    "max_retries": max_retries}
        self.transport = transport
        if transport == "lean":  # the client's own httpx defaults, with the lean transport under them
            self.client = OpenAI(**settings, http_client=DefaultHttpxClient(transport=LeanHTTPTransport()))
            if _proxied(self.client.base_url.host):  # httpx honours proxies only with its own transport
                log.info("an environment proxy applies to the LLM server: using httpx's own transport")
                self.client.close()
                self.transport = "httpx"
        if self.transport == "httpx":
            self.client = OpenAI(**settings)
        self.client.chat.completions  # noqa: B018 - warms the client's lazy imports before the first run

    def messages(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> list[dict]:
        """The prompt: no company id (facts has none) and no display name (applied afterwards)."""
        shared = facts.memo(("openai-prompt", methodology_id),
                            lambda: assessment_prompt(facts, METHODOLOGY_BY_ID[methodology_id]))
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": shared},
            {"role": "user", "content": persona_prompt(PERSONA_BY_ID[persona_id])},
        ]

    def write(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> dict:
        # `client.post` (the client's documented route for raw bodies) skips `create`'s recursive
        # transform of the typed parameters, and `cast_to=object` the response models: together
        # ~5 ms of CPU per call, which 25 threads pay one after another under the GIL. Timeouts,
        # retries and error mapping are the client's as usual.
        body = {"model": self.model, "messages": self.messages(facts, persona_id, methodology_id),
                "response_format": RESPONSE_FORMAT}
        completion = self.client.post("/chat/completions", body=body, cast_to=object)  # the JSON, unmodelled
        try:
            text = completion["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise EngineOutputError("the model's answer has no message content") from None
        try:
            content = _content_schema.load(json.loads(text or ""))
        except (ValueError, TypeError, ValidationError) as exc:
            raise EngineOutputError(f"the model's answer is not a report: {exc}") from None
        return apply_display_name(content, facts.display_name)

    def close(self) -> None:
        self.client.close()


def _proxied(host: str) -> bool:
    """Whether HTTP(S)_PROXY / ALL_PROXY (minus NO_PROXY) would send requests to `host` through a proxy."""
    proxies = urllib.request.getproxies_environment()
    if not any(proxies.get(scheme) for scheme in ("http", "https", "all")):
        return False
    return not urllib.request.proxy_bypass_environment(host, proxies)
