"""The lean HTTP/1.1 transport on real loopback sockets, through the `openai` client as the engine uses it.

Every test talks to `ScriptedServer`, a raw TCP server on 127.0.0.1 that reads one whole request
per step, records its bytes and the connection it arrived on, and answers with scripted raw bytes
(then optionally closes, waits first, or never answers). Nothing in the transport is mocked: what
is asserted is what crossed the wire and what the caller got back.
"""

from __future__ import annotations

import datetime
import gzip
import ipaddress
import json
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx2
import openai
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from openai import DefaultHttpxClient, OpenAI

from app.generation.http_transport import LeanHTTPTransport
from app.generation.openai_engine import OpenAIEngine

SOCKET_TIMEOUT = 5.0  # the longest any socket operation of the server may block
COMPLETION = {"id": "chatcmpl-1", "object": "chat.completion",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"title\": \"ok\"}"}}]}
BODY = {"model": "m", "messages": [{"role": "user", "content": "Persona: cfo (CFO) – naïve café"}]}


# ---------------------------------------------------------------------------------------- the scripted server
@dataclass
class Received:
    """One request as it arrived: its raw bytes, split, and the connection (0, 1, ...) it came on."""

    raw: bytes
    connection: int
    request_line: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    @property
    def json(self):
        return json.loads(self.body)


@dataclass
class Reply:
    """What the server does with one request: wait `delay`, write `data` (in pieces of `piece` bytes
    when given), then close the connection when `close`. `hang` never answers (until the server stops).
    `after`, when given, holds the answer until the server's state satisfies it."""

    data: bytes = b""
    close: bool = False
    delay: float = 0.0
    after: Callable[[], bool] | None = None
    piece: int = 0
    hang: bool = False


HANG = Reply(hang=True)


class ScriptedServer:
    """A raw HTTP/1.1 server on loopback that answers from a script, one step per request.

    `script` is consumed in the order requests arrive (across connections); when it is empty,
    `default(received)` decides. Each connection is served by its own thread; every socket
    operation has a timeout, and `stop()` wakes and joins every thread.
    """

    def __init__(self, tls: ssl.SSLContext | None = None):
        self.tls = tls
        self.script: list[Reply] = []
        self.default: Callable[[Received], Reply] = lambda received: Reply(json_response(COMPLETION))
        self.requests: list[Received] = []
        self.connections = 0           # accepted so far
        self.closed = 0                # of those, finished (the server side closed)
        self.errors: list[BaseException] = []  # anything but a socket error in a server thread
        self._stopping = threading.Event()
        self._changed = threading.Condition()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(SOCKET_TIMEOUT)
        self.port = self._listener.getsockname()[1]

    def start(self) -> ScriptedServer:
        self._spawn(self._accept)
        return self

    def respond(self, *steps: Reply) -> None:
        with self._changed:
            self.script.extend(steps)

    def wait_until(self, predicate: Callable[[], bool], timeout: float = SOCKET_TIMEOUT) -> None:
        with self._changed:
            assert self._changed.wait_for(predicate, timeout), "the server did not get there in time"

    def stop(self) -> list[threading.Thread]:
        """Stop accepting, cut every connection, and join the threads; returns any still running."""
        self._stopping.set()
        _shutdown(self._listener)  # wakes the blocked accept(); close() alone would not
        self._threads[0].join(SOCKET_TIMEOUT)  # the accept loop: no connection is added after this
        with self._changed:
            sockets, threads = list(self._sockets), list(self._threads)
        for sock in sockets:  # wakes each connection's blocked recv()
            _shutdown(sock)
        for thread in threads:
            thread.join(SOCKET_TIMEOUT)
        self._listener.close()
        return [thread for thread in threads if thread.is_alive()]

    # ------------------------------------------------------------------------------------ threads
    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=self._guarded, args=(target, *args), daemon=True)
        with self._changed:
            self._threads.append(thread)
        thread.start()

    def _guarded(self, target, *args) -> None:
        try:
            target(*args)
        except OSError:
            pass  # a peer that hung up, a refused handshake, or stop() shutting a socket down
        except BaseException as exc:  # reported by the fixture, not as a thread warning
            self.errors.append(exc)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._changed:
                index = self.connections
                self.connections += 1
                self._sockets.append(sock)
                self._changed.notify_all()
            self._spawn(self._serve, sock, index)

    def _serve(self, sock: socket.socket, index: int) -> None:
        try:
            sock.settimeout(SOCKET_TIMEOUT)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                plain, sock = sock, self.tls.wrap_socket(sock, server_side=True)
                with self._changed:
                    self._sockets[self._sockets.index(plain)] = sock
            buffer = bytearray()
            while not self._stopping.is_set():
                received = self._read_request(sock, buffer, index)
                if received is None:
                    return
                with self._changed:
                    self.requests.append(received)
                    step = self.script.pop(0) if self.script else self.default(received)
                    self._changed.notify_all()
                if step.hang:
                    self._stopping.wait(SOCKET_TIMEOUT * 2)
                    return
                if step.delay:
                    self._stopping.wait(step.delay)
                if step.after is not None:
                    self.wait_until(step.after)
                if step.piece:
                    for at in range(0, len(step.data), step.piece):
                        sock.sendall(step.data[at:at + step.piece])
                        time.sleep(0.001)
                else:
                    sock.sendall(step.data)
                if step.close:
                    return
        finally:
            sock.close()
            with self._changed:
                self.closed += 1
                self._changed.notify_all()

    @staticmethod
    def _read_request(sock: socket.socket, buffer: bytearray, index: int) -> Received | None:
        """One request (head, then a Content-Length body); None when the client hung up first."""
        while b"\r\n\r\n" not in buffer:
            data = sock.recv(65536)
            if not data:
                return None
            buffer += data
        head_end = buffer.index(b"\r\n\r\n") + 4
        lines = bytes(buffer[:head_end - 4]).decode("latin-1").split("\r\n")
        headers = [(name.strip(), value.strip()) for name, _, value in (line.partition(":") for line in lines[1:])]
        length = int(next((v for k, v in headers if k.lower() == "content-length"), "0"))
        while len(buffer) < head_end + length:
            data = sock.recv(65536)
            if not data:
                return None
            buffer += data
        raw = bytes(buffer[:head_end + length])
        del buffer[:head_end + length]
        return Received(raw, index, lines[0], headers, raw[head_end:])


def _shutdown(sock: socket.socket) -> None:
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's method, on TLS sockets too
    except OSError:
        pass


def json_response(payload, *, status: str = "200 OK", headers: tuple[str, ...] = ()) -> bytes:
    body = json.dumps(payload).encode()
    return response(body, status=status, headers=("Content-Type: application/json",
                                                  f"Content-Length: {len(body)}", *headers))


def response(body: bytes = b"", *, status: str = "200 OK", headers: tuple[str, ...] = ()) -> bytes:
    return "\r\n".join([f"HTTP/1.1 {status}", *headers, "", ""]).encode("latin-1") + body


def causes(exc: BaseException | None) -> Iterator[BaseException]:
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


# ---------------------------------------------------------------------------------------- fixtures
@pytest.fixture
def serve() -> Iterator[Callable[..., ScriptedServer]]:
    """Start scripted servers; each is stopped, its threads joined, and checked for errors at teardown."""
    servers: list[ScriptedServer] = []

    def start(tls: ssl.SSLContext | None = None) -> ScriptedServer:
        servers.append(ScriptedServer(tls).start())
        return servers[-1]

    yield start
    stuck = [thread for server in servers for thread in server.stop()]
    assert stuck == [], "a server thread did not stop"
    assert [error for server in servers for error in server.errors] == []


@pytest.fixture
def server(serve) -> ScriptedServer:
    return serve()


@pytest.fixture
def make_client() -> Iterator[Callable[..., OpenAI]]:
    """The engine's client: `OpenAI(..., http_client=DefaultHttpxClient(transport=LeanHTTPTransport()))`."""
    clients: list[OpenAI] = []

    def make(base_url: str, *, timeout: float = 2.0, transport: LeanHTTPTransport | None = None) -> OpenAI:
        client = OpenAI(api_key="x", base_url=base_url, max_retries=0, timeout=timeout,
                        http_client=DefaultHttpxClient(transport=transport or LeanHTTPTransport()))
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(server, make_client) -> OpenAI:
    return make_client(f"http://127.0.0.1:{server.port}/v1")


@pytest.fixture
def plain_client() -> Iterator[httpx2.Client]:
    """A bare httpx2 client on the transport, for requests the openai client does not make."""
    with httpx2.Client(transport=LeanHTTPTransport(), timeout=2.0) as plain:
        yield plain


def call(client: OpenAI, body: dict | None = None):
    """What `OpenAIEngine.write` does on the wire."""
    return client.post("/chat/completions", body=body or BODY, cast_to=object)


# ---------------------------------------------------------------------------------------- 1. the request
def test_request_and_content_length_response_through_the_openai_client(server, client):
    """The engine's call sends a well-formed request (line, Host, auth, exact JSON body and its length)
    and a Content-Length JSON answer comes back as the parsed dict."""
    assert call(client) == COMPLETION
    [received] = server.requests
    assert received.request_line == "POST /v1/chat/completions HTTP/1.1"
    assert received.header("Host") == [f"127.0.0.1:{server.port}"]
    assert received.header("Authorization") == ["Bearer x"]
    assert received.json == BODY
    assert received.header("Content-Length") == [str(len(received.body))]
    assert "naïve café".encode() in received.body  # non-ASCII text crosses as UTF-8, byte for byte
    assert received.raw.endswith(b"\r\n\r\n" + received.body) and server.connections == 1


# ---------------------------------------------------------------------------------------- 2. response framing
def test_chunked_response_with_extensions_and_trailers(server, client):
    """A chunked answer (several chunks, a chunk extension, trailer fields) decodes to the same JSON,
    and the trailers are consumed exactly: the connection is reused for the next call."""
    body = json.dumps(COMPLETION).encode()
    chunks = [body[:7], body[7:40], body[40:]]
    framed = b"".join(b"%x" % len(c) + (b";name=value" if i == 1 else b"") + b"\r\n" + c + b"\r\n"
                      for i, c in enumerate(chunks))
    server.respond(Reply(response(framed + b"0;last=yes\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n",
                                  headers=("Content-Type: application/json", "Transfer-Encoding: chunked",
                                           "Trailer: X-Checksum, X-Other"))))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 0]


def test_close_delimited_response(server, client):
    """An answer with neither Content-Length nor chunking ends when the server closes; the next call
    opens a new connection."""
    server.respond(Reply(response(json.dumps(COMPLETION).encode(), headers=("Content-Type: application/json",)),
                         close=True))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_interim_1xx_responses_are_skipped(server, client):
    """`100 Continue` (and a 103 with fields) before the real answer are read past, not returned."""
    server.respond(Reply(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
                         + json_response(COMPLETION)))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 0]


def test_gzip_content_encoding_is_decoded(server, client):
    """A gzip-encoded body passes through the transport untouched and httpx decodes it above it."""
    body = gzip.compress(json.dumps(COMPLETION).encode())
    server.respond(Reply(response(body, headers=("Content-Type: application/json", "Content-Encoding: gzip",
                                                 f"Content-Length: {len(body)}"))))
    assert call(client) == COMPLETION


def test_response_arriving_in_small_pieces(server, client):
    """A response written a few bytes at a time (the head's blank line split across reads) parses the same."""
    server.respond(Reply(json_response(COMPLETION), piece=3))
    assert call(client) == COMPLETION


def test_bytes_after_the_response_spoil_the_connection(server, client):
    """Bytes beyond the declared length mean the connection is out of step: it is not reused."""
    server.respond(Reply(json_response(COMPLETION) + b"HTTP/1.1 200 OK\r\n"))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_http_1_0_response_is_not_reused(server, client):
    """An HTTP/1.0 answer gives no keep-alive: the next call opens a new connection."""
    server.respond(Reply(json_response(COMPLETION).replace(b"HTTP/1.1", b"HTTP/1.0", 1)))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


# ---------------------------------------------------------------------------------------- 3. keep-alive
def test_sequential_calls_share_one_connection(server, client):
    """Three calls one after another go over one kept-alive connection."""
    for _ in range(3):
        assert call(client) == COMPLETION
    assert server.connections == 1
    assert [r.connection for r in server.requests] == [0, 0, 0]


def test_connection_close_response_is_not_reused(server, client):
    """After an answer with `Connection: close`, the next call opens a new connection."""
    server.respond(Reply(json_response(COMPLETION, headers=("Connection: close",)), close=True))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_connection_close_is_honoured_even_if_the_server_keeps_it_open(server, client):
    """`Connection: close` alone (the server leaves the socket open) is enough not to reuse it."""
    server.respond(Reply(json_response(COMPLETION, headers=("Connection: keep-alive, close",))))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_idle_connection_closed_by_the_server_is_dropped(server, client):
    """The server closes a kept-alive connection while it is idle: the next call succeeds on a new one,
    with no error surfacing."""
    server.respond(Reply(json_response(COMPLETION), close=True))  # looks reusable, then the server hangs up
    assert call(client) == COMPLETION
    server.wait_until(lambda: server.closed == 1)
    time.sleep(0.05)  # the FIN crosses loopback
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_idle_connection_older_than_keepalive_expiry_is_dropped(server, make_client):
    """With `keepalive_expiry=0.05`, a connection idle for 0.1 s is not reused; one idle for less is."""
    client = make_client(f"http://127.0.0.1:{server.port}/v1", transport=LeanHTTPTransport(keepalive_expiry=0.05))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    time.sleep(0.1)
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 0, 1]


def test_head_and_204_have_empty_bodies_and_keep_the_connection(server, plain_client):
    """A HEAD answer (with a Content-Length it does not send) and a 204 end at their heads: the
    bodies are empty and the connection carries the next request."""
    base = f"http://127.0.0.1:{server.port}"
    server.respond(Reply(response(headers=("Content-Type: application/json", "Content-Length: 1234"))),
                   Reply(response(status="204 No Content")),
                   Reply(response(b"ok", headers=("Content-Length: 2",))))
    head = plain_client.head(f"{base}/thing")
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == "1234"
    empty = plain_client.delete(f"{base}/thing")
    assert empty.status_code == 204 and empty.content == b""
    after = plain_client.get(f"{base}/thing?x=1")
    assert after.status_code == 200 and after.content == b"ok"
    assert [r.request_line for r in server.requests] == ["HEAD /thing HTTP/1.1", "DELETE /thing HTTP/1.1",
                                                         "GET /thing?x=1 HTTP/1.1"]
    assert [r.connection for r in server.requests] == [0, 0, 0]


# ---------------------------------------------------------------------------------------- 4. failures
def test_server_that_never_answers_times_out(server, make_client):
    """A server that accepts and reads the request but never answers gives `APITimeoutError`,
    in about the client's timeout."""
    client = make_client(f"http://127.0.0.1:{server.port}/v1", timeout=0.5)
    server.respond(HANG)
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError) as raised:
        call(client)
    assert 0.4 < time.monotonic() - started < 3
    assert any(isinstance(e, httpx2.ReadTimeout) for e in causes(raised.value))
    assert len(server.requests) == 1


def test_connection_refused(make_client):
    """Nothing listening on the port: `APIConnectionError` (from httpx's `ConnectError`)."""
    with socket.socket() as bound:  # bound but not listening: the port stays ours and refuses connections
        bound.bind(("127.0.0.1", 0))
        client = make_client(f"http://127.0.0.1:{bound.getsockname()[1]}/v1")
        with pytest.raises(openai.APIConnectionError) as raised:
            call(client)
    assert not isinstance(raised.value, openai.APITimeoutError)
    assert any(isinstance(e, httpx2.ConnectError) for e in causes(raised.value))


@pytest.mark.skipif(sys.platform != "linux", reason="relies on Linux dropping SYNs to a full accept queue")
def test_connect_timeout(make_client):
    """A listener whose accept queue is full never completes the handshake: `APITimeoutError`
    (httpx's `ConnectTimeout`) in about the timeout."""
    with socket.socket() as listener, socket.socket() as filler:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler.connect(listener.getsockname())  # takes the queue's only place; later SYNs are dropped
        client = make_client(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", timeout=0.3)
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError) as raised:
            call(client)
        assert time.monotonic() - started < 3
    assert any(isinstance(e, httpx2.ConnectTimeout) for e in causes(raised.value))


MALFORMED = {  # the response, and what the transport's error says is wrong with it
    "status line": (Reply(b"HTTP/1.1 OK\r\nContent-Length: 0\r\n\r\n"), "Malformed status line"),
    "not http": (Reply(b"SSH-2.0-OpenSSH_9.6\r\n\r\n"), "Malformed status line"),
    "header field without colon": (Reply(b"HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\nok"),
                                   "Malformed header field"),
    "space before the colon": (Reply(b"HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok"),
                               "Malformed header field"),
    "conflicting lengths": (Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok"),
                            "Invalid Content-Length"),
    "truncated content-length body": (Reply(response(b'{"id": ', headers=("Content-Length: 100",)), close=True),
                                      "disconnected after 7 of 100 body bytes"),
    "malformed chunk size": (Reply(response(b"zz\r\nabc\r\n0\r\n\r\n", headers=("Transfer-Encoding: chunked",))),
                             "Malformed chunk size"),
    "chunk without crlf": (Reply(response(b"2\r\nokXX0\r\n\r\n", headers=("Transfer-Encoding: chunked",))),
                           "does not end with CRLF"),
    "truncated chunked body": (Reply(response(b"10\r\nabc", headers=("Transfer-Encoding: chunked",)), close=True),
                               "disconnected after 3 of 16 body bytes"),
    "head over 64 KB": (Reply(response(headers=tuple(f"X-Pad-{i}: {'a' * 1000}" for i in range(70)))),
                        "longer than 65536 bytes"),
    "closed before answering": (Reply(close=True), "disconnected without sending a response"),
    "protocol switch": (Reply(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"),
                        "protocol switch"),
}


@pytest.mark.parametrize("step, complaint", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_response_is_a_protocol_error_and_the_connection_is_dropped(server, client, step, complaint):
    """A response that breaks HTTP/1.1 framing gives `APIConnectionError` caused by httpx's
    `RemoteProtocolError` (for the reason the case is about); the broken connection is not pooled,
    so the next call works on a new one."""
    server.respond(step)
    with pytest.raises(openai.APIConnectionError) as raised:
        call(client)
    errors = [e for e in causes(raised.value) if isinstance(e, httpx2.RemoteProtocolError)]
    assert errors and complaint in str(errors[0])
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 1]


def test_large_head_under_the_limit_is_accepted(server, client):
    """A response head of about 60 KB (under the 64 KB limit) is read whole, across several reads."""
    body = json.dumps(COMPLETION).encode()
    pads = tuple(f"X-Pad-{i}: {'a' * 1000}" for i in range(60))
    server.respond(Reply(response(body, headers=("Content-Type: application/json", f"Content-Length: {len(body)}",
                                                 *pads))))
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.connection for r in server.requests] == [0, 0]


@pytest.mark.parametrize("size", [b"1_0", b"0x10", b"+10", b"1 0", b"", b"1" * 17],
                         ids=["underscore", "0x prefix", "plus sign", "inner space", "empty", "17 digits"])
def test_chunk_size_that_is_not_plain_hex_digits_is_rejected(server, client, size):
    """A chunk size is 1*HEXDIG (RFC 9112) and nothing Python's `int(text, 16)` would also take:
    no `_` separators, prefixes or signs. (The `_` case was accepted until the parser got a regex.)"""
    server.respond(Reply(response(size + b"\r\n" + b"a" * 16 + b"\r\n0\r\n\r\n",
                                  headers=("Transfer-Encoding: chunked",))))
    with pytest.raises(openai.APIConnectionError) as raised:
        call(client)
    errors = [e for e in causes(raised.value) if isinstance(e, httpx2.RemoteProtocolError)]
    assert errors and "Malformed chunk size" in str(errors[0])


@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rb", "a\x00b"],
                         ids=["crlf", "lf", "cr", "nul"])
def test_header_value_with_cr_lf_or_nul_is_refused_before_sending(server, plain_client, value):
    """A request header value that would split the head is `LocalProtocolError`; nothing reaches the server."""
    with pytest.raises(httpx2.LocalProtocolError):
        plain_client.get(f"http://127.0.0.1:{server.port}/", headers={"X-Value": value})
    assert plain_client.get(f"http://127.0.0.1:{server.port}/").status_code == 200  # the server is reachable
    assert [r.request_line for r in server.requests] == ["GET / HTTP/1.1"]
    assert b"X-Injected" not in server.requests[0].raw and server.connections == 1


# ---------------------------------------------------------------------------------------- 5. TLS
@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    """A self-signed certificate (and its key) for `localhost` and 127.0.0.1, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    folder = tmp_path_factory.mktemp("tls")
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)


@pytest.fixture
def tls_server(serve, certificate) -> ScriptedServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return serve(tls=context)


def test_https_with_a_trusted_certificate(tls_server, make_client, certificate):
    """With `ssl_context` trusting the certificate, calls to https://localhost complete, over one
    kept-alive TLS connection."""
    transport = LeanHTTPTransport(ssl_context=ssl.create_default_context(cafile=certificate[0]))
    client = make_client(f"https://localhost:{tls_server.port}/v1", transport=transport)
    assert call(client) == COMPLETION
    assert call(client) == COMPLETION
    assert [r.request_line for r in tls_server.requests] == ["POST /v1/chat/completions HTTP/1.1"] * 2
    assert tls_server.requests[0].header("Host") == [f"localhost:{tls_server.port}"]
    assert [r.connection for r in tls_server.requests] == [0, 0]


def test_https_with_an_untrusted_certificate_fails_to_connect(tls_server, make_client):
    """With the default context (httpx's, which does not trust the certificate), the handshake fails:
    `APIConnectionError` from httpx's `ConnectError`, and no request is sent."""
    client = make_client(f"https://localhost:{tls_server.port}/v1")
    with pytest.raises(openai.APIConnectionError) as raised:
        call(client)
    assert any(isinstance(e, httpx2.ConnectError) for e in causes(raised.value))
    assert any(isinstance(e, ssl.SSLCertVerificationError) for e in causes(raised.value))
    assert tls_server.requests == []


# ---------------------------------------------------------------------------------------- 6. proxy fallback
PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                   "REQUEST_METHOD"]  # set, it makes urllib ignore HTTP_PROXY (the CGI rule)


@pytest.mark.parametrize("environment, expected", [
    ({}, "lean"),
    ({"HTTPS_PROXY": "http://proxy.example:3128", "HTTP_PROXY": "http://proxy.example:3128"}, "httpx"),
    ({"HTTPS_PROXY": "http://proxy.example:3128", "HTTP_PROXY": "http://proxy.example:3128",
      "NO_PROXY": "llm.internal"}, "lean"),
], ids=["no proxy", "proxy", "proxy bypassed by NO_PROXY"])
def test_engine_falls_back_to_httpx_when_a_proxy_applies(monkeypatch, environment, expected):
    """The lean transport cannot speak to proxies, so the engine uses httpx's own transport exactly
    when an environment proxy applies to the LLM server's host."""
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
        monkeypatch.delenv(variable.lower(), raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    engine = OpenAIEngine(api_key="x", base_url="http://llm.internal:8080/v1", model="m", timeout=1, max_retries=0)
    try:
        assert engine.transport == expected
    finally:
        engine.close()


# ---------------------------------------------------------------------------------------- 7. threads
def test_25_concurrent_calls_through_one_client(server, client):
    """25 threads calling at once through one client all succeed, each with its own answer, on at
    most 25 connections. They are in flight together: the server holds every answer until all 25
    requests have arrived, which calls made one after another could never satisfy."""
    server.default = lambda received: Reply(json_response({"n": received.json["n"]}),
                                            after=lambda: len(server.requests) == 25)
    barrier = threading.Barrier(25)
    results: dict[int, object] = {}

    def run(n: int) -> None:
        barrier.wait(SOCKET_TIMEOUT)
        try:
            results[n] = call(client, {"n": n})
        except Exception as exc:  # kept as the thread's result, asserted below
            results[n] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in range(25)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(SOCKET_TIMEOUT)
    assert results == {n: {"n": n} for n in range(25)}
    assert len(server.requests) == 25 and server.connections <= 25


def test_ipv6_literal_host(make_client):
    """An IPv6 literal base URL (`http://[::1]:port`) connects to the address, bracketless."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    with socket.socket(socket.AF_INET6) as listener:
        try:
            listener.bind(("::1", 0))
        except OSError:
            pytest.skip("no IPv6 loopback on this machine")
        listener.listen(1)
        listener.settimeout(SOCKET_TIMEOUT)
        client = make_client(f"http://[::1]:{listener.getsockname()[1]}/v1")
        answer = {}

        def serve_one() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(SOCKET_TIMEOUT)
                received = ScriptedServer._read_request(conn, bytearray(), 0)
                answer["host"] = received.header("Host")
                conn.sendall(json_response(COMPLETION))

        thread = threading.Thread(target=serve_one)
        thread.start()
        assert call(client) == COMPLETION
        thread.join(SOCKET_TIMEOUT)
    assert answer["host"][0].startswith("[::1]:")
