"""Structured output, negotiated once per server and model.

Servers differ in what `response_format` they take: OpenAI and vLLM take a strict `json_schema`;
llama-cpp-python's server rejects it (400 or 500) but takes `{"type": "json_object", "schema": ...}`;
some take neither. The first call to a server and model tries `json_schema`, then `json_object`
with the schema in the prompt, then plain text with the JSON object cut out of the answer. The mode
that works is kept for the life of the process; the run's other calls wait for that first call
instead of each being rejected in turn, so a run costs a couple of rejected calls, not 75.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable

from openai import APIStatusError

from .content import CONTENT_JSON_SCHEMA

log = logging.getLogger(__name__)

MODES = ("json_schema", "json_object", "text")
JSON_SCHEMA_FORMAT = {"type": "json_schema",
                      "json_schema": {"name": "persona_report", "strict": True, "schema": CONTENT_JSON_SCHEMA}}
SCHEMA_INSTRUCTION = ("Answer with one JSON object and nothing else, matching this JSON schema: "
                      + json.dumps(CONTENT_JSON_SCHEMA, separators=(",", ":")))
# Words in a rejection that show the server refused the response format, not the request as such
# (llama.cpp's server may also fail to read back its own json_schema output: "... does not match
# the expected peg-native format", a 500 that json_object avoids).
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|schema|grammar|\bformat\b", re.I)
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def request_body(mode: int, messages: list[dict]) -> dict:
    """The parts of a chat request that depend on the mode."""
    if mode == 0:
        return {"messages": messages, "response_format": JSON_SCHEMA_FORMAT}
    system, *rest = messages
    messages = [{**system, "content": f"{system['content']}\n\n{SCHEMA_INSTRUCTION}"}, *rest]
    if mode == 1:
        return {"messages": messages, "response_format": {"type": "json_object", "schema": CONTENT_JSON_SCHEMA}}
    return {"messages": messages}


def rejects_format(exc: APIStatusError) -> bool:
    """Whether an error answer refuses the response format (and so a simpler mode may work)."""
    if exc.status_code not in (400, 422, 500):
        return False
    return bool(_FORMAT_WORDS.search(f"{exc.message} {json.dumps(exc.body, default=str)}"))


def extract_json(text: str) -> str:
    """The JSON object in an answer: the whole text, a ```json fence, or from the first { to the last }."""
    text = text.strip()
    if text.startswith("{"):
        return text
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else text


class Negotiator:
    """The working mode for one server and model, shared by every engine of the process."""

    _registry: dict[tuple[str, str], Negotiator] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def for_server(cls, base_url: str, model: str) -> Negotiator:
        with cls._registry_lock:
            return cls._registry.setdefault((base_url, model), cls())

    @classmethod
    def forget(cls) -> None:
        """Forget every server's mode (for tests that reuse one URL for servers that behave differently)."""
        with cls._registry_lock:
            for negotiator in cls._registry.values():
                negotiator._start_over()

    def __init__(self) -> None:
        self._start_over()

    def _start_over(self) -> None:
        self.mode = 0
        self._lock = threading.Lock()
        self._probing = False
        self._known = threading.Event()   # set once a call has come back (or the first one gave up)

    def complete(self, call: Callable[[dict, object], str | None], messages: list[dict], usage) -> str | None:
        """`call(body, usage)` in the working mode, stepping down a mode when the server refuses one."""
        prober = False
        if not self._known.is_set():
            with self._lock:
                prober = not self._probing
                self._probing = True
            if not prober:
                self._known.wait()    # the first call of the process finds the mode for everyone
        try:
            while True:
                mode = self.mode
                try:
                    text = call(request_body(mode, messages), usage)
                except APIStatusError as exc:
                    if mode + 1 < len(MODES) and rejects_format(exc):
                        with self._lock:
                            if self.mode == mode:
                                self.mode = mode + 1
                                log.warning("the LLM server refused response format %s (%s); using %s from now on",
                                            MODES[mode], exc.status_code, MODES[mode + 1])
                        continue
                    raise
                self._known.set()
                return text
        finally:
            if prober:
                self._known.set()     # whatever happened, the others may go on and negotiate themselves
