"""HTTP for webhook attempts: connect to the address we checked, speak to the URL's host.

Resolving the host again at connect time would let a DNS answer that changed since the check (DNS
rebinding) steer the request to a private address. So the attempt connects to an address from
`resolve_webhook_url` while the request keeps the URL's host in its Host header, TLS SNI and
certificate check; `requests` and urllib3 still do all of HTTP.
"""

from __future__ import annotations

import os
import socket
import threading
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError

from .urls import WebhookTarget


class Deadline:
    """One attempt's total time: `requests`' timeout bounds each socket operation, so a receiver answering a
    byte every few seconds (status line and headers included) could hold a worker for as long as it liked.
    When the deadline passes, every connection the attempt opened is shut down, which ends a blocked read."""

    def __init__(self, seconds: float):
        self.expired = False
        self._connections: list = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def track(self, connection) -> None:
        """Called for each new connection (before it connects: its socket is shut down when the deadline passes)."""
        with self._lock:
            self._connections.append(connection)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            connections = list(self._connections)
        for connection in connections:
            _shut(connection)


def _shut(connection) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass   # already closed


def _tracked(pool_class, deadline: Deadline):
    """A urllib3 pool class whose new connections the deadline can shut down."""
    class Pool(pool_class):
        def _new_conn(self):
            connection = super()._new_conn()
            deadline.track(connection)
            return connection
    return Pool


class PinnedAddressAdapter(HTTPAdapter):
    """A transport adapter that opens its connections to one fixed IP address, within one deadline."""

    def __init__(self, address: str, deadline: Deadline, **kwargs):
        self.address = address
        self.deadline = deadline
        super().__init__(max_retries=0, **kwargs)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _tracked(HTTPConnectionPool, self.deadline),
                                                   "https": _tracked(HTTPSConnectionPool, self.deadline)}

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        """The pool for the pinned address, with the URL's hostname for SNI and the certificate check."""
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        hostname = host_params["host"]
        host_params = {**host_params, "host": self.address}
        if host_params["scheme"] == "https":
            # server_hostname is sent as SNI, and Python's ssl module (check_hostname stays on) checks the
            # certificate against it, not against the IP address the connection goes to. No
            # assert_hostname: it would make urllib3 turn check_hostname off and match by itself.
            pool_kwargs = {**pool_kwargs, "server_hostname": hostname}
        return host_params, pool_kwargs

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        """Send with the URL's own Host header, never through a proxy (it would resolve the host itself)."""
        request.headers["Host"] = urlsplit(request.url).netloc  # credentials are refused, so host[:port]
        return super().send(request, stream=stream, timeout=timeout, verify=verify, cert=cert, proxies=None)


def _ca_bundle() -> str | bool:
    # Sessions here ignore the environment (proxies, .netrc), so honour requests' CA bundle variables
    # by hand: operators (and the tests) trust a private CA with them.
    return os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True


def _could_not_connect(exc: requests.ConnectionError) -> bool:
    # requests wraps urllib3's MaxRetryError, whose reason says what failed. NewConnectionError means
    # no connection was opened, so nothing was sent; a connect timeout is a different reason.
    reason = getattr(exc.args[0] if exc.args else None, "reason", None)
    return isinstance(reason, NewConnectionError) and not isinstance(exc, requests.Timeout)


RESPONSE_BODY_BYTES = 2048   # of a receiver's answer, kept with the attempt for the partner to read


def post(target: WebhookTarget, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
    """POST `body` to the target over its checked addresses; return the HTTP status code and the first
    RESPONSE_BODY_BYTES of the answer's body (empty when it sends none in time).

    The whole attempt (connecting, sending, and reading the status line and headers) has `timeout` seconds,
    however slowly the receiver answers; past it, requests.Timeout. The addresses are tried in resolver order,
    moving on only when a connection cannot be opened at all (refused, unreachable), never after a timeout.
    """
    last = len(target.addresses) - 1
    with Deadline(timeout) as deadline:
        for index, address in enumerate(target.addresses):
            with requests.Session() as session:
                session.trust_env = False
                adapter = PinnedAddressAdapter(address, deadline)
                session.mount("http://", adapter)
                session.mount("https://", adapter)
                try:
                    # stream=True: a huge body is never read into memory, only its first bytes.
                    with session.post(target.url, data=body, headers=headers, timeout=timeout,
                                      allow_redirects=False, stream=True, verify=_ca_bundle()) as response:
                        if deadline.expired:
                            raise requests.Timeout(f"no answer within {timeout:g} s")
                        return response.status_code, _first_bytes(response, deadline)
                except requests.RequestException as exc:
                    if deadline.expired:
                        raise requests.Timeout(f"no answer within {timeout:g} s") from exc
                    if not isinstance(exc, requests.ConnectionError) or index == last or not _could_not_connect(exc):
                        raise
    raise AssertionError("unreachable: a target has at least one address")


def _first_bytes(response: requests.Response, deadline: Deadline) -> bytes:
    """Up to RESPONSE_BODY_BYTES of the body, as far as it arrives before the attempt's deadline; the status is
    the answer, so a body that stalls or breaks off is kept as far as it came, never an error."""
    received = b""
    try:
        for chunk in response.iter_content(chunk_size=512):
            received += chunk
            if len(received) >= RESPONSE_BODY_BYTES or deadline.expired:
                break
    except (requests.RequestException, OSError):
        pass
    return received[:RESPONSE_BODY_BYTES]
