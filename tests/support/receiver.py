"""A real webhook receiver on loopback: records every POST and answers from a script."""

from __future__ import annotations

import json
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
    """`responses` is consumed per request: an int status, or ("hang", seconds) then 200; then `default`."""

    def __init__(self, default: int = 200):
        self.default = default
        self.responses: list = []
        self.received: list[Received] = []
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
                    action = receiver.responses.pop(0) if receiver.responses else receiver.default
                    receiver._changed.notify_all()
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

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks/crs"

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
