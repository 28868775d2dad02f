"""Real webhook receivers on loopback: one that records every POST and answers from a script (over
plain HTTP or TLS), and one that accepts connections and never answers."""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class WebhookReceiver:
    """`responses` is consumed per request: an int status, or ("hang", seconds) then 200; then `default`.

    `host` and `port` choose the listening address (two receivers can share a port on 127.0.0.1
    and 127.0.0.2); with `tls` every connection is wrapped in that server context, and the names
    clients asked for by SNI are kept in `server_names`. `max_in_flight` is the most requests it
    was handling at once.
    """

    def __init__(self, default: int = 200, host: str = "127.0.0.1", port: int = 0,
                 tls: ssl.SSLContext | None = None):
        self.default = default
        self.responses: list = []
        self.received: list[Received] = []
        self.server_names: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.release = threading.Event()
        self.release.set()
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver._changed:
                    receiver.received.append(Received({k.lower(): v for k, v in self.headers.items()}, body,
                                                      time.monotonic()))
                    receiver.in_flight += 1
                    receiver.max_in_flight = max(receiver.max_in_flight, receiver.in_flight)
                    action = receiver.responses.pop(0) if receiver.responses else receiver.default
                    receiver._changed.notify_all()
                try:
                    self._answer(action)
                finally:
                    with receiver._changed:
                        receiver.in_flight -= 1

            def _answer(self, action):
                receiver.release.wait(30)
                if isinstance(action, tuple):
                    time.sleep(action[1])
                    action = 200
                payload = b'{"ok": true}'
                try:
                    self.send_response(action)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the sender gave up waiting (timeout test)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

            def finish_request(self, request, client_address):
                # The TLS handshake happens here, on the connection's own thread, not in accept().
                if tls is None:
                    return super().finish_request(request, client_address)
                with tls.wrap_socket(request, server_side=True) as wrapped:  # it takes over the socket
                    super().finish_request(wrapped, client_address)

            def handle_error(self, request, client_address):
                pass  # a refused handshake is what some tests expect; the client side reports it

        if tls is not None:
            tls.sni_callback = lambda _sock, name, _context: self.server_names.append(name)
        self._server = Server((host, port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def host(self) -> str:
        return self._server.server_address[0]

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/hooks/crs"

    def start(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def wait_for(self, count: int, timeout: float = 15) -> list[Received]:
        """Block until `count` requests arrived (no sleeps); fail loudly otherwise."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"expected {count} webhook requests, got {len(self.received)}")
                self._changed.wait(left)
            return list(self.received)


class SilentReceiver:
    """Accepts TCP connections and never answers, like a partner's hung server; `stop` closes them."""

    def __init__(self):
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.connections: list[socket.socket] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hooks/crs"

    def start(self) -> SilentReceiver:
        self._thread.start()
        return self

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed by stop()
            with self._changed:
                self.connections.append(connection)
                self._changed.notify_all()
            self._accepted(connection)

    def _accepted(self, connection: socket.socket) -> None:
        """What to do with a new connection: nothing (subclasses answer on it)."""

    def wait_for_connection(self, timeout: float = 15) -> None:
        """Block until a client has connected."""
        with self._changed:
            if not self._changed.wait_for(lambda: self.connections, timeout):
                raise AssertionError("nobody connected to the silent receiver")

    def stop(self) -> None:
        # shutdown() wakes the accept() above; closing alone may not on Linux.
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(5)
        with self._changed:
            for connection in self.connections:
                connection.close()


class DribblingReceiver(SilentReceiver):
    """Reads the request, then answers one byte every `interval` seconds, status line and headers included,
    like a hostile receiver holding a sender's worker: each read gets a byte well within any per-read timeout."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Padding: " + b"x" * 200 + b"\r\n\r\nok"

    def __init__(self, interval: float = 0.25):
        super().__init__()
        self.interval = interval

    def _accepted(self, connection: socket.socket) -> None:
        threading.Thread(target=self._dribble, args=(connection,), daemon=True).start()

    def _dribble(self, connection: socket.socket) -> None:
        try:
            connection.recv(65536)
            for byte in self.ANSWER:
                connection.sendall(bytes([byte]))
                time.sleep(self.interval)
        except OSError:
            return   # the sender gave up and closed the connection
