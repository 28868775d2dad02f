"""What the process learns about a server and model: its structured output and how many calls it takes.

Structured output, negotiated once per server and model. Servers differ in what `response_format`
they take: OpenAI and vLLM take a strict `json_schema`; llama-cpp-python's server rejects it (400 or
500) but takes `{"type": "json_object", "schema": ...}`; some take neither. The first call to a server
and model tries `json_schema`, then `json_object` with the schema in the prompt, then plain text with
the JSON object cut out of the answer. The mode that works is kept for the life of the process; the
run's other calls wait for that first call instead of each being rejected in turn, so a run costs a
couple of rejected calls, not 75.

Calls in flight, limited per server and model across the process's runs (`Limiter`): as many as the
server takes, found without configuration. OpenAI and vLLM take a run's 25 calls at once, so the
limit starts at the operator's cap (OPENAI_MAX_CONCURRENCY, 25 by default). llama.cpp's llama-server
says how many slots it has (GET /props, `total_slots`): asked once, while the first call goes alone,
and the limit is that. A server that says nothing and refuses what it cannot take (a 429 or 503)
halves the limit, down to 1; successes while the limit binds grow it back by one per limit's worth,
up to the cap or the slots (AIMD). A call waits for its place here, before it leaves, so its
timeout counts from then, not while it waits.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
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


class Limiter:
    """Calls in flight to one server and model, shared by every engine and run of the process (see above)."""

    OK, OVERLOADED, FAILED = "ok", "overloaded", "failed"
    BUSY_SECONDS = 60.0   # a server that answered a call this recently and refuses one is busy, not down

    def __init__(self, cap: int = 25) -> None:
        self._changed = threading.Condition()
        self.cap = self.limit = cap
        self.slots: int | None = None     # what the server said it takes, if it did
        self.in_flight = 0
        self._asked = self._asking = False
        self._epoch = 0                   # one more at each decrease
        self._successes = 0               # while the limit binds, since it last changed
        self.last_success = float("-inf")

    def configure(self, cap: int) -> None:
        """The operator's upper bound (OPENAI_MAX_CONCURRENCY); a new one starts the limit over from it."""
        with self._changed:
            if cap != self.cap:
                self.cap = cap
                self.limit = self._ceiling()
                self._changed.notify_all()

    def _ceiling(self) -> int:
        return min(self.cap, self.slots or self.cap)

    def acquire(self, ask_slots: Callable[[], int | None]) -> int:
        """Wait for a place; the epoch to hand back to `release`. The first call asks the server its slots
        (`ask_slots`, in a thread of its own) and goes alone until the answer is in."""
        with self._changed:
            if not self._asked:
                self._asked = self._asking = True
                threading.Thread(target=self._learn_slots, args=(ask_slots,), name="llm-slots", daemon=True).start()
            while self.in_flight >= (1 if self._asking else self.limit):
                self._changed.wait()
            self.in_flight += 1
            return self._epoch

    def _learn_slots(self, ask_slots: Callable[[], int | None]) -> None:
        slots = None
        try:
            slots = ask_slots()
        except Exception as exc:  # noqa: BLE001 - a server that does not say (404, no answer) is the usual case
            log.debug("the LLM server does not say how many calls it takes: %s", exc)
        with self._changed:
            self.slots = slots
            self.limit = min(self.limit, self._ceiling())
            self._asking = False
            if slots:
                log.info("the LLM server has %d slots: at most %d calls in flight", slots, self.limit)
            self._changed.notify_all()

    def release(self, epoch: int, outcome: str) -> None:
        """A call is back: OK, OVERLOADED (a 429 or 503) or FAILED (anything else, which says nothing of load).

        An overload halves the limit once for the calls that left together: answers to calls that left
        before the last decrease (an older epoch) do not decrease it again."""
        with self._changed:
            binding = self.in_flight >= self.limit
            self.in_flight -= 1
            if outcome == self.OK:
                self.last_success = time.monotonic()
                self._successes += binding
                if self._successes >= self.limit and self.limit < self._ceiling():
                    self.limit += 1
                    self._successes = 0
            elif outcome == self.OVERLOADED and epoch == self._epoch:
                self.limit = max(1, self.limit // 2)
                self._epoch += 1
                self._successes = 0
                log.warning("the LLM server refused a call as too busy: at most %d calls in flight from now on",
                            self.limit)
            self._changed.notify_all()

    def serving(self) -> bool:
        """Whether the server answered a call lately: then a refusal means busy (wait, retry), not down."""
        return time.monotonic() - self.last_success < self.BUSY_SECONDS


class Negotiator:
    """The working mode and the limiter for one server and model, shared by every engine of the process."""

    _registry: dict[tuple[str, str], Negotiator] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def for_server(cls, base_url: str, model: str) -> Negotiator:
        with cls._registry_lock:
            return cls._registry.setdefault((base_url, model), cls())

    @classmethod
    def forget(cls) -> None:
        """Forget every server's mode and limit (for tests that reuse one URL for servers that behave
        differently); a call in flight gives its place back to the limiter it took it from."""
        with cls._registry_lock:
            for negotiator in cls._registry.values():
                negotiator._start_over()

    def __init__(self) -> None:
        self._start_over()

    def _start_over(self) -> None:
        self.mode = 0
        self.limiter = Limiter(self.limiter.cap if hasattr(self, "limiter") else 25)
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
