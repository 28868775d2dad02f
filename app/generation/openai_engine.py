"""Report text from any OpenAI-compatible server, one chat completion per persona.

The prompt carries what the template engine knows (packs, topic routing, the reader's relation,
facts with their sources, statuses and headings), fully rendered; the shared part comes first and
is identical in the run's 25 calls, so a provider's prompt cache can serve it. The answer is
checked before it is stored (`grounding.py`): one retry with the errors in the conversation, then
the template engine writes that persona's report and says so. Structured output is negotiated once
per base URL and model, calls in flight are limited per base URL and model across the process to what
the server takes (both in `negotiation.py`), and the tokens the provider reports are summed per run.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
from dataclasses import replace

from marshmallow import ValidationError
from openai import APIStatusError, OpenAI

from ..catalog import METHODOLOGY_BY_ID
from ..content import Methodology, load
from .blocks import _owns_policy, condition_point, key_points, policy_held, since_last
from .consistency import ReportInconsistency, check_report
from .content import CONTENT_JSON_SCHEMA, EngineContentSchema, apply_display_name
from .facts import AssessmentFacts
from .grounding import GroundingError, check_grounding
from .negotiation import Limiter, Negotiator, extract_json
from .plan import main_topic, work_plan
from .pricing import MONEY_READERS, basis_sentence, money
from .reading import infos_of, reason_of, reason_order, slots_for, subjects_of, why_first
from .template_engine import TemplateEngine, appendix, basis, reading_for
from .wording import plural

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You are a senior compliance consultant writing one stakeholder report on a compliance assessment, for "
    "the one reader described last, in their terms and in their relation to the organization. Rules: refer "
    "to the client only as 'the organization' and never invent a name; discuss only requirements listed in "
    "the assessment, by their id and title, with exactly the status given (NOT MET means absent: nothing to "
    "show; PARTIALLY MET means present but incomplete, and the assessment does not say where the gap is; "
    "never call one by the other's word); list every requirement you discuss in citedRequirements with its "
    "status as given (met, not_met or partially_met); quote a figure only from the facts given, with the "
    "source in brackets as given; an outside reader is never asked to approve, fund, sign, buy or meet "
    "anyone; no sales language, no seller's stage names as headings; do not repeat a sentence. Answer with "
    "a JSON object only, matching the schema."
)
STATUS_WORDS = {"met": "met", "not_met": "NOT MET", "partially_met": "PARTIALLY MET"}
RELATION_GUIDE = {
    "decision_maker": "an internal decision maker: end with an ask to approve, fund, name an owner or set a date",
    "operator": "an internal operator: give a work plan (order of work, what done looks like, evidence to "
                "keep) and end with a task to start this week",
    "outside_reader": "an outside reader: give evidence status, residual risk and the questions to ask; end "
                      "with how to read the record, never with a request to approve, fund, sign, buy or meet",
}
RETRY_PROMPT = ("That answer cannot be stored: {errors}. Answer again with the whole corrected JSON object, "
                "citing only requirements of the assessment with their statuses as given.")
_content_schema = EngineContentSchema()
_template = TemplateEngine()
# A server that is full says so with a 429 (a proxy's or provider's limit) or a 503 (llama.cpp past its
# slots, Ollama with a full queue): the limiter hears it, and the call waits it out and queues again.
OVERLOADED = (429, 503)
MAX_BUSY_RETRIES = 10      # such waits per call while the server answers others (beyond OPENAI_MAX_RETRIES)
MAX_RETRY_AFTER = 60.0     # a longer Retry-After fails the call, as the client's own retries do


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
        lines += [f"Knowledge pack: {fw.name}. It protects {fw.data_term}; line items are {plural(fw.item_term)}; "
                  f"assessed or enforced by {fw.assessor}.",
                  f"Deliverable: {fw.deliverable.format_map(slots_for(facts))}"]
    else:
        lines.append("This framework has no reference entry here: describe each requirement from its title alone, "
                     "plainly, cite no framework rule, and never mention what reference material exists.")
    lines.append(f"Industry: {facts.industry}")
    served = slots_for(facts)["served"]
    if ind:
        lines.append(f"Industry pack: {ind.name}; data at stake: {ind.data}; who asks for evidence: "
                     f"{ind.customers}; regulators: {ind.regulators}.")
    lines.append(f'The organization serves {served}: call them that, never "customers" unless that is the word.'
                 if ind else f'Say "{served}" for whom the organization serves; never guess a sector or say '
                 '"customers".')
    lines += [
        f"Documented policy: {'yes' if facts.has_policy else 'no'}",
        f"Compliance score: {facts.compliance_score} / 100 ({facts.met} met, {facts.partially_met} partially "
        f"met, {facts.not_met} not met, {facts.total} total). The score and counts are shown to the reader on a "
        "summary card; do not restate them in prose.",
        f"Methodology (shapes tone and order; never name it or its stages to the reader): Tone: "
        f"{methodology.tone} Structure: {methodology.structure}",
        f"Effort basis: {content.effort_basis}. All open items: {plan.total_range} person-days of work.",
        "Work plan (the same in every report): " + "; ".join(
            f"{s.window}: {s.topic.label} ({', '.join(facts.requirements[i].id for i in s.indices)})"
            for s in plan.steps),
        "Requirements (id | title | status | main topic), each followed by what it obliges where known. Say what "
        "a requirement obliges only from this list, and argue a topic's importance only for requirements whose "
        "main topic it is:",
        *_requirement_lines(facts),
    ]
    return "\n".join(lines)


def _requirement_lines(facts: AssessmentFacts) -> list[str]:
    """ "- id | title | STATUS | main topic", then "  obliges: ..." where the pack knows it."""
    topics, lines = load().topics, []
    for i, r in enumerate(facts.requirements):
        lines.append(f"- {r.id} | {r.title} | {STATUS_WORDS[r.status]} | {topics[main_topic(facts, i)].label}")
        info = facts.infos[i]
        asks = info["obliges"].format_map(slots_for(facts)) if info and info.get("obliges") else None
        if asks:
            lines.append(f"  obliges: {asks}")
    return lines


def _reason_lines(r) -> list[str]:
    """ "- A.8.5: <why its subject matters, in the kind of reason this reader weighs first>" per open requirement,
    and the framework's own rule about it where the pack has one."""
    kind, subjects, infos = reason_order(r.p, r.f)[0], subjects_of(r.f), infos_of(r.f)
    lines = []
    for i in (i for g in r.groups for i in g.indices):
        if subjects[i] is not None:
            lines.append(f"- {r.short(i)}: {r.fill(reason_of(r.f, subjects[i], kind))}")
        if infos[i] and infos[i].get("matters"):
            lines.append(f"- {r.short(i)}, under {r.slots['framework']}'s own rules: {r.fill(infos[i]['matters'])}")
    return lines


def _topic_line(r, topic) -> str:
    return (f"- {topic.label}: {r.stake(topic)} (not met here means: {r.fill(topic.absent)}; partly met: "
            f"{r.fill(topic.partial)})")


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
        ("Scope: this reader answers for the whole organization; discuss every open requirement from their "
         "angle, in the order below, and never say that other people own items." if r.whole else
         "Scope: this reader owns the topics above; discuss their open requirements, and name the other owners "
         "exactly as listed below."),
        *(["First finding: the organization has no documented security policy. "
           + (r.fill(r.framework.policy_rule) if r.framework else "")]
          if r.policy_first else []),
        *([f"The security policy (say this): {held}"] if (held := policy_held(r)) else []),
        *([f"Applicability (say this before planning those items): {cond}."]
          if (cond := condition_point(r)) else []),
        "Open requirements for this reader, in order of exposure (discuss these, in this order): "
        + ("; ".join(f"{r.short(i)} ({STATUS_WORDS[r.f.requirements[i].status]}, {g.topic.label})"
                     for g in r.groups for i in g.indices)
           or "none; say so, and say what the reader's job is then"),
        "Why each of those matters to this reader (argue a requirement only with its own reason, never with "
        "another requirement's or a whole topic's):",
        *_reason_lines(r),
        *(["Two requirements read together (say this, with both statuses as given):", *(f"- {t}" for t in together)]
          if (together := r.interactions()) else []),
        "Open requirements with other owners (mention briefly, with the owner): "
        + ("; ".join(f"{owner}: {k} on {label}" for owner, label, k in r.others_by_owner()) or "none"),
        *([f"Since the client's previous assessment (say this, and nothing more about the change): {since}"]
          if (since := since_last(r)) else []),
        *(["First to close (the work plan's order): the missing security policy"] if _owns_policy(r) and r.whole
          else [f"First to close (the work plan's order): {r.short(r.first_item)}"
                f"{why_first(r.f, r.first_item, r.mine_open)}"] if r.first_item is not None else []),
        *([f"Money for this reader: closing every open item takes {work_plan(r.f).total_range} person-days, about "
           f"{money(r.f, work_plan(r.f).total)}. {basis_sentence(r.f)}"] if r.p.id in MONEY_READERS else []),
        *([f"What open items mean for the deliverable: {r.fill(r.framework.open_items_mean)}"]
          if r.whole and r.relation == "decision_maker" and r.framework
          and r.framework.open_items_mean else []),
        "Facts you may quote, with their sources:",
        *(f"- {r.fill(f['text'])}" for f in r.facts_for()),
        "Sections, in this order: " + "; ".join(r.fill(s.heading) for s in r.plan.sections),
        f"Call to action: {r.fill(p.ask_clean if r.all_met else p.ask)}.",
        "Write the report for this reader now.",
    ]
    return "\n".join(lines)


class Usage:
    """Tokens the provider reported, summed over calls; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.prompt = self.completion = self.cached = 0

    def add(self, usage: dict | None) -> None:
        if not isinstance(usage, dict):
            return
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        with self._lock:
            self.prompt += int(usage.get("prompt_tokens") or 0)
            self.completion += int(usage.get("completion_tokens") or 0)
            self.cached += int(cached or 0)

    def as_dict(self) -> dict:
        return {"promptTokens": self.prompt, "completionTokens": self.completion, "cachedTokens": self.cached}


def retry_after(headers) -> float | None:
    """The seconds a refusal asks to wait: OpenAI's `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) * scale)
        except ValueError:
            pass
        date = email.utils.parsedate_tz(raw) if scale == 1.0 else None
        if date is not None:
            return max(0.0, email.utils.mktime_tz(date) - time.time())
    return None


class _Client(OpenAI):
    """The client with its own retries (connection errors, timeouts, 408, 409, 5xx) but for a 429 or
    503, which it hands back at once for the engine to wait out off the limiter (`_call`). The hook is
    the client's own; test_a_429_with_retry_after_is_waited_out fails if it stops being called."""

    def _should_retry(self, response) -> bool:
        return response.status_code not in OVERLOADED and super()._should_retry(response)


class OpenAIEngine:
    """One chat completion per persona (two when the first answer fails its checks)."""

    name = "openai"

    def __init__(self, *, api_key: str | None, base_url: str | None, model: str, timeout: float,
                 max_retries: int, max_concurrency: int = 25, max_tokens: int = 2000, temperature: float = 0.2):
        self.model, self.max_tokens, self.temperature = model, max_tokens, temperature
        self.timeout = timeout
        # The client's own transport (httpx), timeouts and errors; its retries but for a 429 or 503.
        self.client = _Client(api_key=api_key or "not-set", base_url=base_url, timeout=timeout,
                              max_retries=max_retries)
        self.negotiator = Negotiator.for_server(str(self.client.base_url), model)
        # Calls in flight to this server and model, across every engine and run of the process: at
        # most `max_concurrency`, and no more than the server takes (negotiation.Limiter).
        self.negotiator.limiter.configure(max_concurrency)

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
        messages = self.messages(facts, persona_id, methodology_id)
        usage = Usage()
        errors = ""
        for _attempt in range(2):
            text = None
            try:
                text = self.negotiator.complete(self._call, messages, usage)
                content = self._parse(text)
                check_grounding(content, _anonymous(facts), prompt="\n".join(m["content"] for m in messages[:3]))
                r = reading_for(_anonymous(facts), persona_id, methodology_id)
                check_report({**content, "keyPoints": []}, r)
                break
            except (EngineOutputError, GroundingError, ReportInconsistency) as exc:
                errors = str(exc)
                log.info("answer for %s rejected: %s", persona_id, errors)
                messages = [*messages, {"role": "assistant", "content": text or ""},
                            {"role": "user", "content": RETRY_PROMPT.format(errors=errors)}]
        else:
            report = _template.write(facts, persona_id, methodology_id)
            return {**report, "fallback": True, "_engine": "template",
                    "_fallback_reason": f"the model's answer failed its checks twice: {errors}"[:1000],
                    "_usage": usage.as_dict()}
        content.pop("citedRequirements", None)
        # What the model does not write: the appendices, the key points (figures from the shared plan)
        # and the reader's relation.
        r = reading_for(facts, persona_id, methodology_id)
        for fact in r.facts_for():   # the prompt carried these facts: list their sources
            r.cite(fact)
        content["sections"] += [appendix(facts, r.relation), basis(r)]
        content["keyPoints"] = key_points(r)
        content["readerRelation"] = r.relation
        content["knowledge"] = {"framework": r.framework.key if r.framework else None,
                                "industry": r.industry.key if r.industry else None}
        return {**apply_display_name(content, facts.display_name), "_usage": usage.as_dict()}

    def _call(self, body: dict, usage: Usage) -> str | None:
        """One completion: the message text, or None. Raises the client's errors.

        The call takes its place in the limiter before it leaves, so the client's timeout counts from
        then, not while it waits. A 429 or 503 (but for a spent quota) is the server saying it is full:
        the place goes back, the call waits out the Retry-After (a backoff without one) and queues
        again; up to MAX_BUSY_RETRIES times while the server answers other calls (busy, not down),
        else as one of the client's retries (OPENAI_MAX_RETRIES).
        """
        body = {"model": self.model, "max_tokens": self.max_tokens, "temperature": self.temperature, **body}
        limiter = self.negotiator.limiter
        busy = retries = 0
        while True:
            epoch = limiter.acquire(self._server_slots)
            outcome = Limiter.FAILED
            try:
                # `client.post` (the documented route for raw bodies) skips `create`'s transform of typed
                # parameters; `cast_to=object` keeps the JSON as the server sent it.
                completion = self.client.post("/chat/completions", body=body, cast_to=object)
                outcome = Limiter.OK
            except APIStatusError as exc:
                if exc.status_code not in OVERLOADED or exc.code == "insufficient_quota":
                    raise
                outcome, status = Limiter.OVERLOADED, exc.status_code
                wait = retry_after(exc.response.headers)
                if limiter.serving() and busy < MAX_BUSY_RETRIES:
                    busy += 1
                elif retries < self.client.max_retries:
                    retries += 1
                else:
                    raise
                if wait is None:     # the client's backoff: 0.5 s doubling to 8 s, less up to a quarter
                    wait = min(0.5 * 2 ** (busy + retries - 1), 8.0) * (1 - 0.25 * random.random())  # noqa: S311
                elif wait > MAX_RETRY_AFTER:
                    raise
            finally:
                limiter.release(epoch, outcome)
            if outcome == Limiter.OK:
                break
            log.info("the LLM server is full (%s): waiting %.1f s for another try", status, wait)
            time.sleep(wait)
        if not isinstance(completion, dict):
            raise EngineOutputError("the server's answer is not a chat completion")
        usage.add(completion.get("usage"))
        try:
            return completion["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise EngineOutputError("the model's answer has no message content") from None

    @staticmethod
    def _parse(text: str | None) -> dict:
        try:
            return _content_schema.load(json.loads(extract_json(text or "")))
        except (ValueError, TypeError, ValidationError) as exc:
            raise EngineOutputError(f"the answer is not a report in the schema: {exc}") from None

    def _server_slots(self) -> int | None:
        """How many calls the server serves at once, where it says: llama.cpp's llama-server answers GET
        /props (at its root, beside /v1) with `total_slots`, its --parallel. Others answer 404: raises."""
        root = str(self.client.base_url).rstrip("/").removesuffix("/v1")
        props = self.client.get(f"{root}/props", cast_to=object,
                                options={"max_retries": 0, "timeout": min(5.0, self.timeout)})
        slots = props.get("total_slots") if isinstance(props, dict) else None
        return slots if type(slots) is int and slots > 0 else None

    def close(self) -> None:
        self.client.close()


__all__ = ["CONTENT_JSON_SCHEMA", "OpenAIEngine", "assessment_prompt", "persona_prompt"]
