"""Serving with waitress, and stopping gracefully: `python -m app.serving [waitress-serve options] wsgi:app`.

Takes waitress-serve's own options (the Makefile passes the same ones). On SIGTERM (or SIGINT):

1. the listening socket is closed at once, after accepting the connections already waiting in its
   backlog, so a request sent after the signal is refused at connect (a client or proxy retries it
   elsewhere), never accepted and then reset;
2. `/healthz` answers 503 "draining" on connections still open;
3. requests in flight, and requests already received on open connections, finish and their answers
   are sent, up to SHUTDOWN_GRACE_SECONDS; then the idle connections are closed;
4. background work is finished or handed back by the same deadline (`stop_background_work`): webhook
   attempts, runs (an unfinished run is handed to another process at once), print workers, view counts;
5. the process exits with status 0.
"""

from __future__ import annotations

import logging
import os
import pkgutil
import signal
import socket
import sys
import threading
import time

from waitress import create_server
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from werkzeug.wsgi import ClosingIterator

log = logging.getLogger(__name__)


class Requests:
    """WSGI middleware counting requests in flight; `draining` once the process stops."""

    def __init__(self, app):
        self.app = app
        self.draining = False
        self._lock = threading.Lock()
        self.in_flight = 0

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def __call__(self, environ, start_response):
        with self._lock:
            self.in_flight += 1
        try:
            result = self.app(environ, start_response)
        except BaseException:
            self._done()
            raise
        return ClosingIterator(result, [self._done])


def _channels(server) -> list[HTTPChannel]:
    return [channel for channel in list(server._map.values()) if isinstance(channel, HTTPChannel)]


def _busy(channel: HTTPChannel) -> bool:
    """A connection with a request being received, queued, served or sent, or active in the last second
    (a connection just accepted from the backlog whose request the main loop has not read yet)."""
    return bool(channel.request is not None or channel.requests or channel.total_outbufs_len
                or time.time() - channel.last_activity < 1.0)


def stop_listening(server) -> None:
    """Accept what waits in the backlog (those clients already connected), then close the listener."""
    while True:
        try:
            accepted = server.accept()
        except OSError:
            break
        if accepted is None:
            break
        conn, addr = accepted
        server.set_socket_options(conn)
        server.channel_class(server, conn, server.fix_addr(addr), server.adj, map=server._map)
    server.accepting = False
    server.del_channel()
    # Linux stops listening at shutdown(): a connect from now on is refused. The descriptor is closed
    # later (drain_and_exit), once the main loop, which may be inside select() with it, has moved on.
    try:
        server.socket.shutdown(socket.SHUT_RDWR)
    except OSError:
        server.socket.close()


def drain_and_exit(app, server, requests: Requests, grace: float) -> None:
    deadline = time.monotonic() + grace
    # Closed once the main loop's current wait (at most its loop timeout), which may list it, has ended.
    threading.Timer(server.adj.asyncore_loop_timeout + 0.5, server.socket.close).start()
    while time.monotonic() < deadline:
        if requests.in_flight == 0 and not any(_busy(channel) for channel in _channels(server)):
            break
        time.sleep(0.05)
    else:
        log.warning("stopping with %d request(s) still in flight", requests.in_flight)
    for channel in _channels(server):   # idle keep-alive connections: closed by the main loop
        if not _busy(channel):
            channel.will_close = True
    server.pull_trigger()
    from app import stop_background_work

    try:
        stop_background_work(app, deadline)
    except Exception:  # noqa: BLE001 - exit anyway; what was not handed back is taken over when stale
        log.exception("stopping background work failed")
    logging.shutdown()
    # Not sys.exit: the pools' threads (an LLM call, a print) would keep the interpreter alive past the
    # deadline; what they held has been handed back above.
    os._exit(0)


def main(argv: list[str]) -> None:
    kw, args = Adjustments.parse_args(argv)
    if kw.pop("help") or len(args) != 1 or kw.pop("call"):
        sys.exit("usage: python -m app.serving [waitress-serve options] MODULE:APP (as waitress-serve, without --call)")
    logging.getLogger("waitress").setLevel(logging.INFO)
    sys.path.append(os.getcwd())
    app = pkgutil.resolve_name(args[0])
    requests = Requests(app.wsgi_app)
    app.wsgi_app = requests
    app.extensions["serving"] = requests
    server = create_server(app, **kw)
    grace = app.config["SHUTDOWN_GRACE_SECONDS"]
    stopping = threading.Event()

    def on_signal(signum, frame):
        if stopping.is_set():
            return
        stopping.set()
        log.info("signal %s: refusing new connections, draining for up to %.0f s", signum, grace)
        requests.draining = True
        stop_listening(server)
        threading.Thread(target=drain_and_exit, args=(app, server, requests, grace), name="drain",
                         daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.print_listen("Serving on http://{}:{}")
    server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
