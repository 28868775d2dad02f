"""A real OpenAI-compatible HTTP server on loopback, for tests and benchmarks.

Standard library only: `http.server.ThreadingHTTPServer` served from a daemon thread. Point the
official `openai` client at it (``OpenAI(api_key="test", base_url=server.base_url)`` or
``OPENAI_BASE_URL=server.base_url``) and it answers like the Chat Completions API would.

    with FakeOpenAIServer(latency=0.1) as server:
        server.status_for["cfo"] = 503          # the CFO's report fails with a 503
        server.malformed_for.add("ciso")        # the CISO's report is not valid report JSON
        server.hang_for.add("coo")              # the COO's report takes `hang_seconds` (30 s)
        ...
        assert len(server.calls_for("cfo")) == 1
        assert server.max_concurrency >= 20

Endpoints:

- ``POST /v1/chat/completions``: records the parsed body in `requests`, applies the behaviours,
  and answers `latency` seconds (or `hang_seconds` for a persona in `hang_for`) after the request
  arrived, its own work included, as a provider's latency would be. The answer is a
  ChatCompletion whose message content is a report as a JSON object
  ``{"title", "summary", "sections": [{"heading", "paragraphs", "bullets"}], "callToAction"}``.
- ``GET /v1/models``: one model, ``fake-model``.
- anything else: 404 with an OpenAI-shaped error body.

The persona of a request is read from the last message's content: the token after ``Persona: ``
on a line starting with it (``Persona: cfo (CFO)`` is persona ``cfo``, role ``CFO``). A line
``Methodology: <id>`` anywhere in the messages puts ``<id>`` into the report, so a test can check
the prompt reached the model. The report names the client only as "the organization" and is
the same for the same persona, role and methodology.

Behaviours, in order of precedence: `fail_all_status` (every request, models included), then
`status_for[persona]` (an error status instead of a completion), then `malformed_for` (a 200
whose content is, alternately per persona, ``{"title": 5}`` -- valid JSON, wrong schema -- and
plain text). `hang_for` replaces the `latency` wait with `hang_seconds` and combines with the
others. Waits end early when the server stops, and the request is then left unanswered.
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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any

__all__ = ["FakeOpenAIServer", "MODEL_ID"]

MODEL_ID = "fake-model"
DEFAULT_HANG_SECONDS = 30.0

_PERSONA_RE = re.compile(r"^[ \t]*Persona:[ \t]*(\S+)(?:[ \t]+\(([^)\n]*)\))?", re.MULTILINE)
_METHODOLOGY_RE = re.compile(r"^[ \t]*Methodology:[ \t]*(\S+)", re.MULTILINE)

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
    messages = _messages(body)
    if not messages:
        return None
    match = _PERSONA_RE.search(_text_of(messages[-1].get("content")))
    if not match:
        return None
    role = (match.group(2) or "").strip() or None
    return match.group(1), role


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


def report_for(persona: str | None, role: str | None = None, methodology: str | None = None) -> dict:
    """The report a well-behaved model writes: deterministic in its arguments."""
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
    }


def _error_body(status: int) -> dict:
    kind, code, message = _ERRORS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None, f"HTTP {status}.")
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


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
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{next(self.server.owner._ids):08d}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

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
        owner._record(body)
        self._answer(owner, body)

    def _answer(self, owner: FakeOpenAIServer, body: dict) -> None:
        # The answer is built first and sent `latency` after the request arrived, so the server's
        # own work is inside the latency a benchmark subtracts, as a provider's would be.
        found = _persona_line(body)
        persona, role = found if found else (None, None)
        wait = owner.hang_seconds if persona is not None and persona in owner.hang_for else owner.latency
        status, payload = self._completion(owner, body, persona, role)
        data = json.dumps(payload).encode()
        owner._wait(self._arrived + wait - time.monotonic())
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
            content = json.dumps(report_for(persona, role, methodology_of(body)))

        prompt_chars = sum(len(_text_of(m.get("content"))) for m in _messages(body))
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
            },
            "system_fingerprint": "fp_fake",
        }


class FakeOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1, on a free port, in a daemon thread."""

    def __init__(self, latency: float = 0.0):
        self.latency: float = latency
        self.hang_seconds: float = DEFAULT_HANG_SECONDS
        self.requests: list[dict] = []
        self.status_for: dict[str, int] = {}
        self.malformed_for: set[str] = set()
        self.hang_for: set[str] = set()
        self.fail_all_status: int | None = None
        self.max_concurrency: int = 0
        self.base_url: str = ""
        self._initial_latency = latency
        self._lock = threading.Lock()
        self._active = 0
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
            self._malformed_seen.clear()
            self.max_concurrency = self._active
        self.status_for.clear()
        self.malformed_for.clear()
        self.hang_for.clear()
        self.fail_all_status = None
        self.latency = self._initial_latency
        self.hang_seconds = DEFAULT_HANG_SECONDS

    def calls_for(self, persona: str) -> list[dict]:
        """The recorded request bodies whose persona is `persona`, in arrival order."""
        with self._lock:
            snapshot = list(self.requests)
        return [body for body in snapshot if persona_of(body) == persona]

    # ---------------------------------------------------------------- used by the handler
    def _record(self, body: dict) -> None:
        with self._lock:
            self.requests.append(body)

    def _arrive(self) -> None:
        with self._lock:
            self._active += 1
            self.max_concurrency = max(self.max_concurrency, self._active)

    def _leave(self) -> None:
        with self._lock:
            self._active -= 1

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
