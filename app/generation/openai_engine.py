"""Report text from any OpenAI-compatible server, one chat completion per persona."""

from __future__ import annotations

import json
import logging
import urllib.request
from dataclasses import replace

from marshmallow import ValidationError
from openai import DefaultHttpxClient, OpenAI

from ..catalog import METHODOLOGY_BY_ID
from ..content import Methodology, load
from .content import CONTENT_JSON_SCHEMA, EngineContentSchema, apply_display_name
from .facts import AssessmentFacts
from .http_transport import LeanHTTPTransport
from .plan import work_plan
from .reading import slots_for
from .template_engine import appendix, basis, reading_for

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You are a senior compliance consultant writing one stakeholder report on a compliance assessment, for "
    "the one reader described last, in their terms and in their relation to the organization. Rules: refer "
    "to the client only as 'the organization' and never invent a name; discuss only requirements listed in "
    "the assessment, by their id and title, with exactly the status given (NOT MET means absent: nothing to "
    "show; PARTIALLY MET means present but incomplete, and the assessment does not say where the gap is; "
    "never call one by the other's word); quote a figure only from the facts given, with the source in "
    "brackets as given; an outside reader is never asked to approve, fund, sign, buy or meet anyone; no "
    "sales language, no seller's stage names as headings; do not repeat a sentence. Answer with a JSON "
    "object only, matching the schema."
)
STATUS_WORDS = {"met": "met", "not_met": "NOT MET", "partially_met": "PARTIALLY MET"}
RELATION_GUIDE = {
    "decision_maker": "an internal decision maker: end with an ask to approve, fund, name an owner or set a date",
    "operator": "an internal operator: give a work plan (order of work, what done looks like, evidence to "
                "keep) and end with a task to start this week",
    "outside_reader": "an outside reader: give evidence status, residual risk and the questions to ask; end "
                      "with how to read the record, never with a request to approve, fund, sign, buy or meet",
}
_content_schema = EngineContentSchema()
RESPONSE_FORMAT = {"type": "json_schema",
                   "json_schema": {"name": "persona_report", "strict": True, "schema": CONTENT_JSON_SCHEMA}}


class EngineOutputError(ValueError):
    """The model answered, but not with a usable report."""


def _anonymous(facts: AssessmentFacts) -> AssessmentFacts:
    """The facts without the display name, shared by the run's prompts (the name is applied afterwards)."""
    return facts.memo("anonymous", lambda: replace(facts, display_name=None))


def assessment_prompt(facts: AssessmentFacts, methodology: Methodology) -> str:
    """The part shared by all 25 calls of a run; first, so the provider's prompt cache serves it."""
    fw, ind, content = facts.framework_pack, facts.industry_pack, load()
    plan = work_plan(facts)
    lines = [f"Framework: {facts.framework}"]
    if fw:
        lines += [f"Knowledge pack: {fw.name}. It protects {fw.data_term}; line items are {fw.item_term}s; "
                  f"assessed or enforced by {fw.assessor}.",
                  f"Deliverable: {fw.deliverable.format_map(slots_for(facts))}"]
    else:
        lines.append("No knowledge pack matches this framework: use general wording and cite no framework rule.")
    lines.append(f"Industry: {facts.industry}")
    if ind:
        lines.append(f"Industry pack: {ind.name}; data at stake: {ind.data}; who asks for evidence: "
                     f"{ind.customers}; regulators: {ind.regulators}.")
    lines += [
        f"Documented policy: {'yes' if facts.has_policy else 'no'}",
        f"Compliance score: {facts.compliance_score} / 100 ({facts.met} met, {facts.partially_met} partially "
        f"met, {facts.not_met} not met, {facts.total} total). The score and counts are shown to the reader on a "
        "summary card; do not restate them in prose.",
        f"Methodology: {methodology.id} ({methodology.label}). Tone: {methodology.tone} Structure: "
        f"{methodology.structure}",
        f"Effort basis: {content.effort_basis}. Whole assessment: {plan.total_range} person-days.",
        "Work plan (the same in every report): " + "; ".join(
            f"{s.window}: {s.topic.label} ({', '.join(facts.requirements[i].id for i in s.indices)})"
            for s in plan.steps),
        "Requirements (id | title | status | topics):",
        *(f"- {r.id} | {r.title} | {STATUS_WORDS[r.status]} | {', '.join(t) or 'unmapped'}"
          for r, t in zip(facts.requirements, facts.topics, strict=True)),
    ]
    return "\n".join(lines)


def persona_prompt(facts: AssessmentFacts, persona_id: str, methodology_id: str) -> str:
    """The part that differs per call; last. Every field rendered: no placeholder reaches the model."""
    r = reading_for(facts, persona_id, methodology_id)
    p = r.p
    lines = [
        f"Persona: {p.id} ({p.label})",
        f"Reader: {r.fill(p.role)}. Relation: {RELATION_GUIDE[p.relation]}.",
        f"What this reader needs: {r.fill(p.needs)}",
        "The reader's topics and why each matters to them:",
        *(_topic_line(r, r.content.topics[t]) for t in p.topics),
        "Open requirements in the reader's topics (discuss these first): "
        + (", ".join(f"{r.short(i)} ({STATUS_WORDS[r.f.requirements[i].status]})" for i in r.mine_open)
           or "none; say so, and say what the reader's job is then"),
        "Other open requirements (mention briefly as other owners' work): "
        + (", ".join(r.short(i) for i in r.others) or "none"),
        "Facts you may quote, with their sources:",
        *(f"- {r.fill(f['text'])}" for f in r.facts_for()),
        "Sections, in this order: " + "; ".join(r.fill(s.heading) for s in r.plan.sections),
        f"Call to action: {r.fill(p.ask_clean if r.all_met else p.ask)}.",
        "Write the report for this reader now.",
    ]
    return "\n".join(lines)


def _topic_line(r, topic) -> str:
    return (f"- {topic.label}: {r.angle(topic)} (not met here means: {r.fill(topic.absent)}; partly met: "
            f"{r.fill(topic.partial)})")


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
        anonymous = _anonymous(facts)
        shared = facts.memo(("openai-prompt", methodology_id),
                            lambda: assessment_prompt(anonymous, METHODOLOGY_BY_ID[methodology_id]))
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": shared},
            {"role": "user", "content": persona_prompt(anonymous, persona_id, methodology_id)},
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
        # What the model does not write: the appendix, the basis of figures, and the reader's relation.
        r = reading_for(facts, persona_id, methodology_id)
        content["sections"] += [appendix(facts, r.relation), basis(r)]
        content["readerRelation"] = r.relation
        content["knowledge"] = {"framework": r.framework.key if r.framework else None,
                                "industry": r.industry.key if r.industry else None}
        return apply_display_name(content, facts.display_name)

    def close(self) -> None:
        self.client.close()


def _proxied(host: str) -> bool:
    """Whether HTTP(S)_PROXY / ALL_PROXY (minus NO_PROXY) would send requests to `host` through a proxy."""
    proxies = urllib.request.getproxies_environment()
    if not any(proxies.get(scheme) for scheme in ("http", "https", "all")):
        return False
    return not urllib.request.proxy_bypass_environment(host, proxies)
