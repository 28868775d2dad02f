"""A real OpenAI-compatible HTTP server on loopback, for tests and benchmarks.

Standard library only: `http.server.ThreadingHTTPServer` served from a daemon thread. Point the
official `openai` client at it (``OpenAI(api_key="test", base_url=server.base_url)`` or
``OPENAI_BASE_URL=server.base_url``) and it answers like the Chat Completions API would.

    with FakeOpenAIServer(latency=0.1) as server:
        server.status_for["cfo"] = 503          # the CFO's report fails with a 503
        server.malformed_for.add("ciso")        # the CISO's report is not valid report JSON
        server.hang_for.add("coo")              # the COO's report takes `hang_seconds` (30 s)
        server.reject_json_schema = 400         # a llama-cpp-python-like server: no json_schema
        server.slots = 4                        # a llama.cpp server with 4 slots
        server.report_slots = True              # ... that says so at GET /props (total_slots)
        server.refuse_beyond_slots = 429        # ... and refuses, not queues, a request past them
        ...
        assert len(server.calls_for("cfo")) == 1
        assert server.max_concurrency >= 20

Endpoints:

- ``POST /v1/chat/completions``: records the parsed body in `requests` (and its ``response_format``,
  or None, in `response_formats`), applies the behaviours, and answers `latency` seconds (or
  `hang_seconds` for a persona in `hang_for`) after the request got a slot (see `slots`; without
  slots, after it arrived), its own work included, as a provider's latency would be. The answer is
  a ChatCompletion whose message content is a report as a JSON object
  ``{"title", "summary", "sections": [{"heading", "paragraphs", "bullets"}], "callToAction",
  "citedRequirements": [{"id", "status"}]}`` (status ``met``, ``not_met`` or ``partially_met``).
  With a ``response_format`` of type ``json_schema`` or ``json_object`` (with or without a
  ``schema``) the content is the JSON object alone; without one (or with type ``text``) it is a
  sentence of prose, the object in a ```` ```json ```` fence, and another sentence, as small
  local models answer. ``usage`` counts a token per 4 characters and has
  ``prompt_tokens_details.cached_tokens``: the tokens of the messages up to and including the
  first user message (the system prompt and the shared part a provider's prompt cache serves).
- ``GET /v1/models``: one model, ``fake-model``.
- ``GET /props`` (at the server's root, as llama.cpp's llama-server serves it): with `report_slots`
  and `slots` set, llama-server's server properties, ``total_slots`` being `slots`; otherwise 404,
  as OpenAI, vLLM and Ollama answer. `props_requests` counts the asks.
- anything else: 404 with an OpenAI-shaped error body.

The prompt, as the app's `openai` engine writes it: a system message; a user message (the shared
part) with a line ``- <id> | <title> | <STATUS> | <topics>`` per requirement (STATUS is ``met``,
``NOT MET`` or ``PARTIALLY MET``) and a line ``Methodology: <id> (...)``; a last user message
starting ``Persona: <id> (<label>)`` with a line ``Open requirements in the reader's topics (discuss
these first): <id> (<STATUS>), ...`` (or ``none; ...``). A retry continues the conversation with
the assistant's answer and a user message starting ``That answer cannot be stored:``.

The persona of a request is read from the last non-assistant message with a line starting
``Persona: `` (``Persona: cfo (CFO)`` is persona ``cfo``, role ``CFO``), so a retry belongs to the
persona of its conversation. A line ``Methodology: <id>`` anywhere in the messages puts ``<id>``
into the report, so a test can check the prompt reached the model. A well-behaved answer cites,
with their statuses, the first three requirements of the "Open requirements" line (or, when that
line says none or is absent, the first three requirement lines of the prompt), names each in a
bullet of its first section, and names no id that is not in the prompt. The report names the client
only as "the organization" and is the same for the same persona, role, methodology and citations.

Behaviours (attributes, all put back by `reset()`), in order of precedence:

- `fail_all_status`: every request, models included, gets that error status.
- `rate_limit_first` (int, 0) and `retry_after` (float seconds, 1.0): the first N chat requests
  since the start or `reset()` (counted in arrival order, every one recorded in `requests`) get a
  429 with a ``Retry-After`` header (the seconds as text, e.g. ``0.5``) and an OpenAI-shaped
  rate-limit body, at once; later ones are answered as usual.
- `reject_json_schema` (None, 400 or 500): a request whose ``response_format`` type is
  ``json_schema`` gets that status at once, with an error saying the json_schema response format is
  not supported (llama-cpp-python style); ``json_object`` and no format are accepted.
  `reject_json_object` (bool): ``json_object`` is rejected the same way, with a 400 -- together, a
  server that only does plain text.
- `status_for[persona]`: an error status instead of a completion.
- `malformed_for`: a 200 whose content is, alternately per persona, ``{"title": 5}`` -- valid JSON,
  wrong schema -- and plain text.
- `cite_unknown_for`: personas whose answer cites, in ``citedRequirements`` and in a bullet, an id
  shaped like the prompt's first requirement id but absent from the prompt, on every attempt;
  `cite_unknown_once_for`: the same, on a first attempt only (a request with a ``That answer cannot
  be stored:`` message gets a well-behaved answer). `wrong_status_for`: every attempt cites the
  first cited requirement with a wrong status (in ``citedRequirements`` and in its bullet); these
  three combine. `contradict_for`: every attempt adds "Every requirement in scope is met" to the first
  section (a claim the statuses contradict); `contradict_once_for`: on a first attempt only.
- A prompt line ``Since the client's previous assessment (say this, and nothing more about the change): <text>``
  puts ``<text>`` into the first section, as a well-behaved model repeats it. `misreport_change_for`: every
  attempt adds a sentence giving the score as moving "from 12 % to 97 %" since the last assessment (wrong
  for any change, and wrong where there is no earlier assessment at all).
- `hang_for`: replaces the `latency` wait with `hang_seconds`; combines with the others.
- `slots` (None: no limit): at most that many chat requests are worked on (wait out their latency
  or hang) at once; the others queue in arrival order, and a request's latency counts from when it
  gets its slot, as on a llama.cpp server started with ``--parallel N``. Answers sent at once (the
  429s, the rejections, an unparseable body) take no slot. `max_in_service` records the most
  requests holding a slot at once; `max_concurrency` the most in flight, queued ones included.
  `refuse_beyond_slots` (None, 429 or 503): a request that finds every slot taken (or others
  queued) is answered at once with that status and ``Retry-After: <retry_after>`` instead of
  queueing, as a proxy with a concurrency limit (429) or Ollama with a full queue (503) answers;
  `refused` counts those answers.
- `gzip` (bool): response bodies are gzip-compressed (``Content-Encoding: gzip``) when the
  request's ``Accept-Encoding`` allows gzip. `chunked` (bool): responses are sent with
  ``Transfer-Encoding: chunked``, in several chunks, instead of a ``Content-Length``.

Waits (the latency, a hang, a queue for a slot) end early when the server stops, and the request is
then left unanswered.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from gzip import compress as gzip_compress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any

__all__ = ["FakeOpenAIServer", "MODEL_ID"]

MODEL_ID = "fake-model"
DEFAULT_HANG_SECONDS = 30.0
DEFAULT_RETRY_AFTER = 1.0

_PERSONA_RE = re.compile(r"^[ \t]*Persona:[ \t]*(\S+)(?:[ \t]+\(([^)\n]*)\))?", re.MULTILINE)
_METHODOLOGY_RE = re.compile(r"^[ \t]*Methodology:[ \t]*(\S+)", re.MULTILINE)
_STATUS = r"PARTIALLY MET|NOT MET|met"
# "- <id> | <title> | <STATUS> | <topics>": the status is the second field from the end.
_REQUIREMENT_RE = re.compile(
    rf"^[ \t]*-[ \t]*([^|\n]*?[^|\s])[ \t]*\|.*\|[ \t]*({_STATUS})[ \t]*\|[^|\n]*$", re.MULTILINE | re.IGNORECASE)
_OPEN_RE = re.compile(r"^[ \t]*Open requirements in the reader's topics[^:\n]*:[ \t]*(.*)$", re.MULTILINE)
# "<id> (<STATUS>)" items separated by commas; an id may have spaces and parentheses ("Art. 32(1)(a)").
_OPEN_ITEM_RE = re.compile(rf"(?:^|,)[ \t]*([^,\n]+?)[ \t]*\(({_STATUS})\)(?=[ \t]*(?:,|$))", re.IGNORECASE)
RETRY_PREFIX = "That answer cannot be stored:"
CHANGE_PREFIX = "Since the client's previous assessment (say this, and nothing more about the change): "
MISREPORTED_CHANGE = "Since the last assessment, the score moved from 12 % to 97 %."
MAX_CITED = 3

# Status as the prompt writes it -> as the answer cites it; its words in prose; a wrong one for it.
_STATUS_IDS = {"MET": "met", "NOT MET": "not_met", "PARTIALLY MET": "partially_met"}
_STATUS_PROSE = {"met": "is met and evidenced", "not_met": "is not met: nothing is in place yet",
                 "partially_met": "is partially met: present but incomplete"}
_WRONG_STATUS = {"met": "not_met", "not_met": "partially_met", "partially_met": "not_met"}

# Error bodies in OpenAI's shape, by status: (type, code, message).
_ERRORS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_error", None, "You are not allowed to perform this request."),
    404: ("invalid_request_error", "not_found", "The requested resource does not exist."),
    408: ("timeout_error", None, "The request timed out."),
    409: ("invalid_request_error", "conflict", "The request conflicts with the current state."),
    422: ("invalid_request_error", None, "The request could not be processed."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."),
    500: ("server_error", None, "The server had an error while processing your request."),
    502: ("server_error", None, "Bad gateway."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
    504: ("server_error", None, "The server timed out while processing your request."),
}


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _messages(body: Any) -> list[dict]:
    messages = body.get("messages") if isinstance(body, dict) else None
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def persona_of(body: Any) -> str | None:
    """The persona id of a chat-completion request body, from its last message; None if absent."""
    found = _persona_line(body)
    return found[0] if found else None


def _persona_line(body: Any) -> tuple[str, str | None] | None:
    # The last message, or on a retry the last one before the model's answer that has the line.
    for message in reversed(_messages(body)):
        if message.get("role") == "assistant":
            continue
        match = _PERSONA_RE.search(_text_of(message.get("content")))
        if match:
            role = (match.group(2) or "").strip() or None
            return match.group(1), role
    return None


def methodology_of(body: Any) -> str | None:
    """The methodology id from the first ``Methodology: <id>`` line in any message; None if absent."""
    for message in _messages(body):
        match = _METHODOLOGY_RE.search(_text_of(message.get("content")))
        if match:
            return match.group(1)
    return None


def _role_from_id(persona: str) -> str:
    words = re.split(r"[_\-\s]+", persona)
    return " ".join(w.upper() if len(w) <= 4 and len(words) == 1 else w.capitalize() for w in words if w)


def _prompt_texts(body: Any) -> list[str]:
    """The texts of the messages the model was given (its own earlier answers excluded)."""
    return [_text_of(m.get("content")) for m in _messages(body) if m.get("role") != "assistant"]


def is_retry(body: Any) -> bool:
    """Whether the request continues a conversation whose first answer was refused."""
    return any(m.get("role") == "user" and _text_of(m.get("content")).lstrip().startswith(RETRY_PREFIX)
               for m in _messages(body))


def requirements_of(body: Any) -> list[tuple[str, str]]:
    """``(id, status)`` of every requirement line of the prompt, in order, status as cited (``not_met``)."""
    found: dict[str, str] = {}
    for text in _prompt_texts(body):
        for match in _REQUIREMENT_RE.finditer(text):
            found.setdefault(match.group(1), _STATUS_IDS[match.group(2).upper()])
    return list(found.items())


def open_requirements_of(body: Any) -> list[tuple[str, str]]:
    """``(id, status)`` from the last "Open requirements in the reader's topics" line; [] for none."""
    for text in reversed(_prompt_texts(body)):
        lines = _OPEN_RE.findall(text)
        if lines:
            items = _OPEN_ITEM_RE.findall(lines[-1])
            return list({rid.strip(): _STATUS_IDS[status.upper()] for rid, status in items}.items())
    return []


def change_of(body: Any) -> str | None:
    """The prompt's sentence on the change since the client's previous assessment, which a well-behaved
    answer repeats; None when the prompt has none (a first assessment)."""
    for text in reversed(_prompt_texts(body)):
        for line in text.splitlines():
            if line.startswith(CHANGE_PREFIX):
                return line[len(CHANGE_PREFIX):].strip()
    return None


def cited_for(body: Any) -> list[tuple[str, str]]:
    """What a well-behaved answer cites: up to three open requirements of the reader, else of the prompt."""
    return (open_requirements_of(body) or requirements_of(body))[:MAX_CITED]


def unknown_id_for(body: Any) -> str:
    """An id shaped like the prompt's first requirement id (so an id check would look at it), not in the prompt."""
    prompt = "\n".join(_prompt_texts(body))
    known = requirements_of(body) or open_requirements_of(body)
    model = known[0][0] if known else "REQ-1"
    digits = list(re.finditer(r"\d+", model))
    for n in itertools.count(90):
        if digits:
            last = digits[-1]
            candidate = f"{model[:last.start()]}{n}{model[last.end():]}"
        else:
            candidate = f"{model}-{n}"
        if candidate not in prompt:
            return candidate
    raise AssertionError("unreachable")


def report_for(persona: str | None, role: str | None = None, methodology: str | None = None,
               cited: Sequence[tuple[str, str]] = ()) -> dict:
    """The report a well-behaved model writes: deterministic in its arguments.

    `cited` is the ``(id, status)`` of the requirements it discusses (status ``met``, ``not_met`` or
    ``partially_met``): each goes into ``citedRequirements`` and into a bullet of the first section.
    """
    role = role or (_role_from_id(persona) if persona else "Executive Sponsor")
    who = f"the {role}"
    seed = int(hashlib.sha256(f"{persona}|{role}|{methodology}".encode()).hexdigest()[:8], 16)
    horizon = (30, 60, 90)[seed % 3]
    focus = ("access control", "incident response", "supplier risk", "business continuity")[seed % 4]
    method_note = (
        f"This briefing follows the {methodology} methodology." if methodology
        else "This briefing follows a consultative approach."
    )
    return {
        "title": f"Compliance briefing for {who}: where the organization stands",
        "summary": (
            f"As {who}, you need a clear view of the organization's compliance position and the "
            f"gaps that matter most to your remit. The assessment shows solid foundations, with "
            f"open requirements concentrated in {focus}. {method_note}"
        ),
        "sections": [
            {
                "heading": "Current position",
                "paragraphs": [
                    f"The organization has implemented most of the controls in scope, but evidence of "
                    f"operation is uneven, particularly in {focus}.",
                    f"For {who}, the priority is to turn documented intent into controls that can be "
                    f"shown to work on the day an auditor asks.",
                ],
                "bullets": [
                    "Most requirements are met and evidenced.",
                    f"Open requirements cluster in {focus}.",
                    "Ownership of several controls is not yet assigned.",
                    *(f"{rid} {_STATUS_PROSE[status]}." for rid, status in cited),
                ],
            },
            {
                "heading": f"What this means for {who}",
                "paragraphs": [
                    f"Left open, these gaps expose the organization to audit findings, delayed deals "
                    f"and avoidable incidents, all of which land on the agenda of {who}.",
                    method_note,
                ],
                "bullets": [
                    "Audit findings that slow certification.",
                    "Customer due-diligence questions that stall sales cycles.",
                    "Incidents that are harder to contain without rehearsed processes.",
                ],
            },
            {
                "heading": "Recommended next steps",
                "paragraphs": [
                    f"A phased {horizon}-day plan closes the highest-risk gaps first and gives {who} "
                    f"measurable progress at each checkpoint.",
                ],
                "bullets": [
                    f"Name an owner for each open requirement in {focus}.",
                    f"Agree a {horizon}-day remediation plan with dated milestones.",
                    "Collect evidence of operation as each control is closed.",
                ],
            },
        ],
        "callToAction": (
            f"Schedule a working session with {who} this month to approve the {horizon}-day plan "
            f"and assign owners across the organization."
        ),
        "citedRequirements": [{"id": rid, "status": status} for rid, status in cited],
    }


def _error_body(status: int) -> dict:
    kind, code, message = _ERRORS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None, f"HTTP {status}.")
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _format_rejection(status: int, kind: str) -> dict:
    """A refusal of a response format, in the words of a server without grammar-constrained JSON schemas."""
    allowed = "'text'" if kind == "json_object" else "'text' or 'json_object'"
    return {"error": {
        "message": f"The {kind} response format is not supported by this server: response_format type "
                   f"must be {allowed}, got '{kind}'.",
        "type": "invalid_request_error" if status < 500 else "server_error",
        "param": "response_format", "code": None,
    }}


def _rate_limit_body(model: str, retry_after: float) -> dict:
    return {"error": {
        "message": f"Rate limit reached for {model} in organization org-fake on requests per min (RPM): "
                   f"Limit 3, Used 3, Requested 1. Please try again in {retry_after:g}s. Visit "
                   f"https://platform.openai.com/account/rate-limits to learn more.",
        "type": "requests", "param": None, "code": "rate_limit_exceeded",
    }}


def _props(slots: int) -> dict:
    """llama-server's GET /props, the fields a client reads; `total_slots` is its `--parallel`."""
    return {"default_generation_settings": {"n_ctx": 8192, "params": {"n_predict": -1, "temperature": 0.8}},
            "total_slots": slots, "model_alias": MODEL_ID, "model_path": f"/models/{MODEL_ID}.gguf",
            "chat_template": "", "modalities": {"vision": False, "audio": False}, "build_info": "b0-fake",
            "is_sleeping": False}


def _format_type(body: dict) -> str | None:
    """The response_format type of a request: ``json_schema``, ``json_object``, ``text``... or None."""
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and isinstance(fmt.get("type"), str):
        return fmt["type"]
    return None


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header allows gzip (q-values honoured, ``*`` included)."""
    weights: dict[str, float] = {}
    for item in (header or "").split(","):
        name, *params = item.split(";")
        weight = 1.0
        for param in params:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip().lower()] = weight
    for name in ("gzip", "x-gzip", "*"):
        if name in weights:
            return weights[name] > 0
    return False


def _pieces(data: bytes, count: int = 3) -> list[bytes]:
    """`data` in up to `count` non-empty pieces of about the same size."""
    size = max(1, -(-len(data) // count))
    return [data[i:i + size] for i in range(0, len(data), size)]


class _Stopped(Exception):
    """The server is stopping: leave the current request unanswered and close the connection."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True          # server_close() joins the handler threads: nothing outlives stop()
    request_queue_size = 128       # many simultaneous connects must not overflow the accept backlog
    allow_reuse_address = True

    def __init__(self, owner: FakeOpenAIServer):
        self.owner = owner
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup: skip it.
        TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = host, port

    def process_request(self, request, client_address) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Wake every handler blocked reading a kept-alive connection, so it can finish."""
        with self._connections_lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address) -> None:
        # A client that went away (timeout, closed pool) is normal here; anything else is a bug.
        if isinstance(sys.exc_info()[1], OSError | _Stopped):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    sys_version = ""
    server: _HTTPServer

    # Headers and body leave in separate writes; without TCP_NODELAY, Nagle's algorithm holds the
    # body until the client's delayed ACK (~40 ms), which real API servers do not add.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (OSError, _Stopped):
            self.close_connection = True

    # ---------------------------------------------------------------- plumbing
    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), headers)

    def _send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        owner = self.server.owner
        compressed = owner.gzip and accepts_gzip(self.headers.get("Accept-Encoding"))
        if compressed:
            data = gzip_compress(data, mtime=0)
        chunked = owner.chunked
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if compressed:
            self.send_header("Content-Encoding", "gzip")
        if owner.gzip:
            self.send_header("Vary", "Accept-Encoding")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{next(owner._ids):08d}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not chunked:
            self.wfile.write(data)
            return
        for piece in _pieces(data):      # one write each: the client sees several chunks
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def _send_error_status(self, status: int) -> None:
        self._send_json(status, _error_body(status))

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    # ---------------------------------------------------------------- routes
    def do_GET(self) -> None:
        self._read_body()
        owner = self.server.owner
        if self._path() == "/v1/models":
            if owner.fail_all_status:
                return self._send_error_status(owner.fail_all_status)
            return self._send_json(200, {"object": "list", "data": [
                {"id": MODEL_ID, "object": "model", "created": 1700000000, "owned_by": "fake-openai"},
            ]})
        if self._path() == "/props":
            with owner._lock:
                owner.props_requests += 1
            if owner.report_slots and owner.slots is not None:
                return self._send_json(200, _props(owner.slots))
        self._not_found()

    def do_POST(self) -> None:
        self._arrived = time.monotonic()
        if self._path() != "/v1/chat/completions":
            self._read_body()
            return self._not_found()
        owner = self.server.owner
        owner._arrive()  # in flight from arrival to answer, as its latency is counted
        try:
            self._chat_completions(self._read_body())
        finally:
            owner._leave()

    def _not_found(self) -> None:
        self._send_json(404, {"error": {
            "message": f"Invalid URL ({self.command} {self.path})", "type": "invalid_request_error",
            "param": None, "code": None,
        }})

    do_PUT = do_PATCH = do_DELETE = do_POST

    def _chat_completions(self, raw: bytes) -> None:
        owner = self.server.owner
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return self._send_json(400, {"error": {
                "message": "We could not parse the JSON body of your request.",
                "type": "invalid_request_error", "param": None, "code": None,
            }})
        index = owner._record(body)
        refusal = self._refusal(owner, body, index)
        if refusal is not None:
            return self._send_json(*refusal)
        self._answer(owner, body)

    def _refusal(self, owner: FakeOpenAIServer, body: dict,
                 index: int) -> tuple[int, dict, dict[str, str]] | None:
        """An answer given at once, before any slot or latency: a rate limit, a refused response format."""
        if owner.fail_all_status:
            return None
        if index < owner.rate_limit_first:
            model = body.get("model") if isinstance(body.get("model"), str) else MODEL_ID
            seconds = f"{owner.retry_after:g}"
            return 429, _rate_limit_body(model, owner.retry_after), {
                "Retry-After": seconds, "x-ratelimit-limit-requests": "3",
                "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": f"{seconds}s",
            }
        kind = _format_type(body)
        if kind == "json_schema" and owner.reject_json_schema:
            return owner.reject_json_schema, _format_rejection(owner.reject_json_schema, kind), {}
        if kind == "json_object" and owner.reject_json_object:
            return 400, _format_rejection(400, kind), {}
        return None

    def _answer(self, owner: FakeOpenAIServer, body: dict) -> None:
        # The answer is built first and sent `latency` after the request got its slot (arrived, when
        # it did not queue), so the server's own work is inside the latency a benchmark subtracts.
        found = _persona_line(body)
        persona, role = found if found else (None, None)
        wait = owner.hang_seconds if persona is not None and persona in owner.hang_for else owner.latency
        refuse = owner.refuse_beyond_slots
        started = owner._take_slot(self._arrived, refuse=refuse is not None)
        if started is None:      # every slot taken: refused at once, with when to come back
            return self._send_json(refuse, _error_body(refuse), {"Retry-After": f"{owner.retry_after:g}"})
        try:
            status, payload = self._completion(owner, body, persona, role)
            data = json.dumps(payload).encode()
            owner._wait(started + wait - time.monotonic())
        finally:
            owner._release_slot()
        self._send_bytes(status, data)

    def _completion(self, owner: FakeOpenAIServer, body: dict, persona: str | None,
                    role: str | None) -> tuple[int, dict]:
        status = owner.fail_all_status or (owner.status_for.get(persona) if persona is not None else None)
        if status and status != 200:
            return status, _error_body(status)
        if body.get("stream"):
            return 400, {"error": {
                "message": "The fake OpenAI server does not support stream=true.",
                "type": "invalid_request_error", "param": "stream", "code": None,
            }}

        if persona is not None and persona in owner.malformed_for:
            nth = owner._malformed_count(persona)
            content = '{"title": 5}' if nth % 2 == 0 else "Sorry, I cannot help with that request."
        else:
            report = report_for(persona, role, methodology_of(body), self._citations(owner, body, persona))
            if persona in owner.contradict_for or (persona in owner.contradict_once_for and not is_retry(body)):
                report["sections"][0]["paragraphs"].append("Every requirement in scope is met, so nothing is open.")
            if (change := change_of(body)) is not None:
                report["sections"][0]["paragraphs"].append(change)
            if persona in owner.misreport_change_for:
                report["sections"][0]["paragraphs"].append(MISREPORTED_CHANGE)
            if _format_type(body) in ("json_schema", "json_object"):
                content = json.dumps(report)
            else:  # plain text: the object in a fence between two sentences, as small local models write
                content = ("Here is the report for this reader as a JSON object.\n\n```json\n"
                           f"{json.dumps(report, indent=2)}\n```\n\nI hope this helps.")

        texts = [_text_of(m.get("content")) for m in _messages(body)]
        prompt_chars = sum(len(text) for text in texts)
        prefix_chars = 0   # the system prompt and the shared part: what a provider's prompt cache serves
        for message, text in zip(_messages(body), texts, strict=True):
            prefix_chars += len(text)
            if message.get("role") == "user":
                break
        prompt_tokens, completion_tokens = max(1, prompt_chars // 4), max(1, len(content) // 4)
        return 200, {
            "id": f"chatcmpl-fake{next(owner._ids):08d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") if isinstance(body.get("model"), str) else MODEL_ID,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": min(prompt_tokens, prefix_chars // 4)},
            },
            "system_fingerprint": "fp_fake",
        }

    @staticmethod
    def _citations(owner: FakeOpenAIServer, body: dict, persona: str | None) -> list[tuple[str, str]]:
        cited = cited_for(body)
        if persona is None:
            return cited
        if persona in owner.wrong_status_for and cited:
            rid, status = cited[0]
            cited[0] = (rid, _WRONG_STATUS[status])
        if persona in owner.cite_unknown_for or (persona in owner.cite_unknown_once_for and not is_retry(body)):
            cited.append((unknown_id_for(body), "not_met"))
        return cited


class FakeOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1, on a free port, in a daemon thread."""

    def __init__(self, latency: float = 0.0):
        self.latency: float = latency
        self.hang_seconds: float = DEFAULT_HANG_SECONDS
        self.requests: list[dict] = []
        self.response_formats: list[Any] = []
        self.status_for: dict[str, int] = {}
        self.malformed_for: set[str] = set()
        self.hang_for: set[str] = set()
        self.cite_unknown_for: set[str] = set()
        self.cite_unknown_once_for: set[str] = set()
        self.wrong_status_for: set[str] = set()
        self.contradict_for: set[str] = set()
        self.contradict_once_for: set[str] = set()
        self.misreport_change_for: set[str] = set()
        self.fail_all_status: int | None = None
        self.reject_json_schema: int | None = None
        self.reject_json_object: bool = False
        self.rate_limit_first: int = 0
        self.retry_after: float = DEFAULT_RETRY_AFTER
        self.slots: int | None = None
        self.report_slots: bool = False
        self.refuse_beyond_slots: int | None = None
        self.refused: int = 0
        self.props_requests: int = 0
        self.gzip: bool = False
        self.chunked: bool = False
        self.max_concurrency: int = 0
        self.max_in_service: int = 0
        self.base_url: str = ""
        self._initial_latency = latency
        self._lock = threading.Lock()
        self._slot_free = threading.Condition(self._lock)
        self._queue: deque[object] = deque()   # tickets of the requests waiting for a slot, oldest first
        self._active = 0
        self._in_service = 0
        self._malformed_seen: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        self._stopping.clear()
        self._httpd = _HTTPServer(self)
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
            name=f"fake-openai-{port}", daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        self._stopping.set()             # wake handlers waiting out a latency or a hang
        with self._slot_free:
            self._slot_free.notify_all() # and those queued for a slot
        httpd.shutdown()                 # no more accepts; serve_forever returns
        httpd.close_connections()        # wake handlers blocked on idle keep-alive connections
        httpd.server_close()             # close the listening socket, join the handler threads
        if thread is not None:
            thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- inspection and control
    def reset(self) -> None:
        """Forget requests and behaviours (in place); latency and hang_seconds go back to their defaults."""
        with self._lock:
            self.requests.clear()
            self.response_formats.clear()
            self._malformed_seen.clear()
            self.max_concurrency = self._active
            self.max_in_service = self._in_service
            self.slots = None
            self.refused = self.props_requests = 0
            self._slot_free.notify_all()
        self.report_slots = False
        self.refuse_beyond_slots = None
        self.status_for.clear()
        self.malformed_for.clear()
        self.hang_for.clear()
        self.cite_unknown_for.clear()
        self.cite_unknown_once_for.clear()
        self.wrong_status_for.clear()
        self.contradict_for.clear()
        self.contradict_once_for.clear()
        self.misreport_change_for.clear()
        self.fail_all_status = None
        self.reject_json_schema = None
        self.reject_json_object = False
        self.rate_limit_first = 0
        self.retry_after = DEFAULT_RETRY_AFTER
        self.gzip = False
        self.chunked = False
        self.latency = self._initial_latency
        self.hang_seconds = DEFAULT_HANG_SECONDS

    def calls_for(self, persona: str) -> list[dict]:
        """The recorded request bodies whose persona is `persona`, in arrival order."""
        with self._lock:
            snapshot = list(self.requests)
        return [body for body in snapshot if persona_of(body) == persona]

    # ---------------------------------------------------------------- used by the handler
    def _record(self, body: dict) -> int:
        """Record a chat request; its index among those recorded since the start or reset()."""
        with self._lock:
            self.requests.append(body)
            self.response_formats.append(body.get("response_format"))
            return len(self.requests) - 1

    def _arrive(self) -> None:
        with self._lock:
            self._active += 1
            self.max_concurrency = max(self.max_concurrency, self._active)

    def _leave(self) -> None:
        with self._lock:
            self._active -= 1

    def _take_slot(self, arrived: float, refuse: bool = False) -> float | None:
        """Wait, in arrival order, for a slot; when the request's latency starts (`arrived` if it did not queue).
        With `refuse`, None at once (counted in `refused`) instead of waiting."""
        ticket = object()
        waited = False
        with self._slot_free:
            if refuse and (self._queue or (self.slots is not None and self._in_service >= self.slots)):
                self.refused += 1
                return None
            self._queue.append(ticket)
            try:
                while self._queue[0] is not ticket or (self.slots is not None and self._in_service >= self.slots):
                    if self._stopping.is_set():
                        raise _Stopped
                    waited = True
                    self._slot_free.wait(0.1)   # also notices a change of `slots`
            except BaseException:
                self._queue.remove(ticket)
                self._slot_free.notify_all()
                raise
            self._queue.popleft()
            self._in_service += 1
            self.max_in_service = max(self.max_in_service, self._in_service)
            self._slot_free.notify_all()        # the next in line may fit in another free slot
        return time.monotonic() if waited else arrived

    def _release_slot(self) -> None:
        with self._slot_free:
            self._in_service -= 1
            self._slot_free.notify_all()

    def _malformed_count(self, persona: str) -> int:
        with self._lock:
            nth = self._malformed_seen.get(persona, 0)
            self._malformed_seen[persona] = nth + 1
            return nth

    def _wait(self, seconds: float) -> None:
        # One long wait can overshoot by about 1 % on a virtual machine's timer (10 ms at 1 s), which
        # a benchmark would count as the client's overhead: wait 90 % of what is left, then again.
        deadline = time.monotonic() + (seconds or 0)
        while not self._stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._stopping.wait(left * 0.9 if left > 0.005 else left)
        raise _Stopped
