"""A lean HTTP/1.1 transport under the `openai` client: the fan-out's send cost, cut.

Why it exists: generation makes 25 chat-completion calls at once, and under one GIL their CPU
is paid one after another before the last request leaves. Profiled per call, httpx's default
transport (httpcore2's pool and h11's state machine) cost as much as the `openai` client's own
request building. The CPU that 25 calls spent before their requests left came to 23 to 28 ms
through it, and 15 to 17 ms through this transport (see the README's benchmark section). The
`openai` client still builds every request, applies timeouts, retries and maps errors; only the
bytes on the wire are ours.

What it does: a keep-alive pool per origin (idle connections expire after `keepalive_expiry`,
and one the server has closed is dropped before reuse); the request in one `sendall`; a strict
response parser (status line, header fields, then Content-Length, chunked or close-delimited
framing, 1xx responses skipped); TLS through the same default context httpx builds; httpx's own
exceptions, so the client's timeout and connection-error handling sees what it always sees.

What it does not: HTTP/2, proxies (the engine keeps httpx's transport when an environment proxy
applies), upgrades, and streaming responses (the body is read before returning; the engine
never streams).
"""

from __future__ import annotations

import re
import select
import socket
import ssl
import threading
import time

import httpx2 as httpx

MAX_HEAD_BYTES = 64 * 1024   # status line and header fields together
MAX_LINE_BYTES = 8 * 1024    # one chunk-size or trailer line
KEEPALIVE_SECONDS = 5.0      # httpx's default keep-alive expiry
MAX_IDLE_PER_ORIGIN = 100    # the openai client's default `max_keepalive_connections`
RECV_BYTES = 256 * 1024

_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([1-9][0-9][0-9])(?: ([^\r\n]*))?")
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FORBIDDEN_IN_HEADER = re.compile(rb"[\x00\r\n]")
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")  # 1*HEXDIG; int(..., 16) alone would take "0x", "+", "_"


class _Connection:
    __slots__ = ("sock", "idle_since")

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.idle_since = 0.0

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def closed_by_peer(self) -> bool:
        """An idle connection with anything to read has been closed (or spoiled) by the server."""
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        try:
            poller = select.poll()
            poller.register(self.sock, select.POLLIN)
            return bool(poller.poll(0))
        except (OSError, ValueError):
            return True


class _Reader:
    """Buffered reads from one socket for one response; `ReadTimeout`/`ReadError` on failure."""

    __slots__ = ("sock", "buffer", "request")

    def __init__(self, sock: socket.socket, request: httpx.Request):
        self.sock = sock
        self.buffer = bytearray()
        self.request = request

    def fill(self) -> bool:
        """Read what the socket has; False at end of stream."""
        try:
            data = self.sock.recv(RECV_BYTES)
        except TimeoutError as exc:
            raise httpx.ReadTimeout(str(exc) or "timed out reading the response", request=self.request) from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc), request=self.request) from exc
        if not data:
            return False
        self.buffer += data
        return True

    def until(self, delimiter: bytes, limit: int, what: str) -> bytes:
        """Bytes up to `delimiter` (consumed, not returned)."""
        start = 0
        while True:
            end = self.buffer.find(delimiter, start)
            if end >= 0:
                if end > limit:
                    break
                line = bytes(self.buffer[:end])
                del self.buffer[:end + len(delimiter)]
                return line
            if len(self.buffer) > limit:
                break
            start = max(0, len(self.buffer) - len(delimiter) + 1)
            if not self.fill():
                if not self.buffer and what == "response head":
                    raise httpx.RemoteProtocolError("Server disconnected without sending a response.",
                                                    request=self.request)
                raise httpx.RemoteProtocolError(f"Server disconnected in the middle of the {what}.",
                                                request=self.request)
        raise httpx.RemoteProtocolError(f"The {what} is longer than {limit} bytes.", request=self.request)

    def exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self.fill():
                raise httpx.RemoteProtocolError(
                    f"Server disconnected after {len(self.buffer)} of {size} body bytes.", request=self.request)
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def to_close(self) -> bytes:
        while self.fill():
            pass
        data = bytes(self.buffer)
        self.buffer.clear()
        return data


class LeanHTTPTransport(httpx.BaseTransport):
    """HTTP/1.1 with keep-alive for `httpx2.Client(transport=...)`; thread-safe."""

    def __init__(self, *, ssl_context: ssl.SSLContext | None = None, keepalive_expiry: float = KEEPALIVE_SECONDS,
                 max_idle_per_origin: int = MAX_IDLE_PER_ORIGIN):
        self._ssl_context = ssl_context
        self._keepalive_expiry = keepalive_expiry
        self._max_idle = max_idle_per_origin
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._lock = threading.Lock()
        self._closed = False

    # ---------------------------------------------------------------- the transport API
    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{url.scheme}://'.",
                                            request=request)
        # raw_host: the ASCII (IDNA) form, for DNS and SNI; IPv6 literals come without brackets
        origin = (url.scheme, url.raw_host.decode("ascii"), url.port or (443 if url.scheme == "https" else 80))
        timeouts = request.extensions.get("timeout", {})
        payload = _serialize(request)
        connection = self._checkout(origin, timeouts, request)
        try:
            _send(connection.sock, payload, timeouts.get("write"), request)
            connection.sock.settimeout(timeouts.get("read"))
            status, reason, headers, body, reusable = _read_response(_Reader(connection.sock, request),
                                                                     request.method)
        except BaseException:
            connection.close()
            raise
        if reusable:
            self._checkin(origin, connection)
        else:
            connection.close()
        return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body),
                              extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason})

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()

    # ---------------------------------------------------------------- the pool
    def _checkout(self, origin: tuple[str, str, int], timeouts: dict, request: httpx.Request) -> _Connection:
        now = time.monotonic()
        while True:
            with self._lock:
                connections = self._idle.get(origin)
                connection = connections.pop() if connections else None
            if connection is None:
                return self._connect(origin, timeouts.get("connect"), request)
            if now - connection.idle_since < self._keepalive_expiry and not connection.closed_by_peer():
                return connection
            connection.close()

    def _checkin(self, origin: tuple[str, str, int], connection: _Connection) -> None:
        connection.idle_since = time.monotonic()
        with self._lock:
            connections = self._idle.setdefault(origin, [])
            if not self._closed and len(connections) < self._max_idle:
                connections.append(connection)
                return
        connection.close()

    def _connect(self, origin: tuple[str, str, int], timeout: float | None, request: httpx.Request) -> _Connection:
        scheme, host, port = origin
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(str(exc) or "timed out connecting", request=request) from exc
        except OSError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if scheme == "https":
                sock = self._tls_context().wrap_socket(sock, server_hostname=host)
        except TimeoutError as exc:
            sock.close()
            raise httpx.ConnectTimeout(str(exc) or "timed out in the TLS handshake", request=request) from exc
        except OSError as exc:  # ssl.SSLError included: a certificate that does not verify
            sock.close()
            raise httpx.ConnectError(str(exc), request=request) from exc
        return _Connection(sock)

    def _tls_context(self) -> ssl.SSLContext:
        if self._ssl_context is None:
            self._ssl_context = httpx.create_ssl_context()  # what httpx's own transport verifies with
        return self._ssl_context


def _serialize(request: httpx.Request) -> bytes:
    """Request line, header fields and body, ready for one `sendall`."""
    body = request.read()
    target = request.url.raw_path or b"/"
    parts = [request.method.encode("ascii"), b" ", target, b" HTTP/1.1\r\n"]
    chunked = False
    for name, value in request.headers.raw:
        if not _TOKEN.fullmatch(name) or _FORBIDDEN_IN_HEADER.search(value):
            raise httpx.LocalProtocolError(f"Illegal header field {name!r}.", request=request)
        if name.lower() == b"transfer-encoding":
            chunked = value.strip().lower().endswith(b"chunked")
        parts += (name, b": ", value, b"\r\n")
    parts.append(b"\r\n")
    if chunked:  # a body httpx framed as a stream: send what was buffered as one chunk
        parts += ((b"%x\r\n" % len(body)) + body + b"\r\n" if body else b"", b"0\r\n\r\n")
    else:
        parts.append(body)
    return b"".join(parts)


def _send(sock: socket.socket, payload: bytes, timeout: float | None, request: httpx.Request) -> None:
    try:
        sock.settimeout(timeout)
        sock.sendall(payload)
    except TimeoutError as exc:
        raise httpx.WriteTimeout(str(exc) or "timed out sending the request", request=request) from exc
    except OSError as exc:
        raise httpx.WriteError(str(exc), request=request) from exc


def _read_response(reader: _Reader, method: str) -> tuple[int, bytes, list[tuple[bytes, bytes]], bytes, bool]:
    """(status, reason, header fields, body, whether the connection may be reused)."""
    request = reader.request
    while True:
        head = reader.until(b"\r\n\r\n", MAX_HEAD_BYTES, "response head")
        lines = head.split(b"\r\n")
        status_line = _STATUS_LINE.fullmatch(lines[0])
        if status_line is None:
            raise httpx.RemoteProtocolError(f"Malformed status line {lines[0][:100]!r}.", request=request)
        status = int(status_line.group(2))
        if status == 101:
            raise httpx.RemoteProtocolError("Unexpected protocol switch (101).", request=request)
        if status >= 200:
            break  # 1xx informational responses carry no body: read the next head
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name) or _FORBIDDEN_IN_HEADER.search(value):
            raise httpx.RemoteProtocolError(f"Malformed header field {line[:100]!r}.", request=request)
        headers.append((name, value.strip(b" \t")))
    fields: dict[bytes, list[bytes]] = {}
    for name, value in headers:
        fields.setdefault(name.lower(), []).append(value)
    connection_tokens = {t.strip().lower() for v in fields.get(b"connection", []) for t in v.split(b",")}
    reusable = status_line.group(1) == b"1" and b"close" not in connection_tokens
    if method == "HEAD" or status in (204, 304):
        body = b""
    elif b"transfer-encoding" in fields:
        codings = [t.strip().lower() for v in fields[b"transfer-encoding"] for t in v.split(b",")]
        if codings[-1] == b"chunked":
            body = _read_chunked(reader)
        else:
            body, reusable = reader.to_close(), False
    elif b"content-length" in fields:
        lengths = {v.strip() for v in fields[b"content-length"]}
        if len(lengths) != 1 or not next(iter(lengths)).isdigit():
            raise httpx.RemoteProtocolError(f"Invalid Content-Length {sorted(lengths)!r}.", request=request)
        body = reader.exactly(int(next(iter(lengths))))
    else:
        body, reusable = reader.to_close(), False
    if reader.buffer:  # bytes after the response: the connection is out of step
        reusable = False
    return status, status_line.group(3) or b"", headers, body, reusable


def _read_chunked(reader: _Reader) -> bytes:
    body = bytearray()
    while True:
        line = reader.until(b"\r\n", MAX_LINE_BYTES, "chunked body")
        size_text = line.split(b";", 1)[0].strip(b" \t")
        if not _CHUNK_SIZE.fullmatch(size_text):
            raise httpx.RemoteProtocolError(f"Malformed chunk size {line[:100]!r}.", request=reader.request)
        size = int(size_text, 16)
        if size == 0:
            while reader.until(b"\r\n", MAX_LINE_BYTES, "chunked body"):  # trailer fields, then an empty line
                pass
            return bytes(body)
        body += reader.exactly(size)
        if reader.exactly(2) != b"\r\n":
            raise httpx.RemoteProtocolError("A chunk does not end with CRLF.", request=reader.request)
