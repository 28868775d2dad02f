"""HTTP for webhook attempts: connect to the address we checked, speak to the URL's host.

Resolving the host again at connect time would let a DNS answer that changed since the check (DNS
rebinding) steer the request to a private address. So the attempt connects to an address from
`resolve_webhook_url` while the request keeps the URL's host in its Host header, TLS SNI and
certificate check; `requests` and urllib3 still do all of HTTP.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from .urls import WebhookTarget


class PinnedAddressAdapter(HTTPAdapter):
    """A transport adapter that opens its connections to one fixed IP address."""

    def __init__(self, address: str, **kwargs):
        self.address = address
        super().__init__(max_retries=0, **kwargs)

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


def post(target: WebhookTarget, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST `body` to the target over its checked addresses; return the HTTP status code.

    The addresses are tried in resolver order, moving on only when a connection cannot be opened at
    all (refused, unreachable), never after a timeout, so one attempt stays within about `timeout`.
    """
    last = len(target.addresses) - 1
    for index, address in enumerate(target.addresses):
        with requests.Session() as session:
            session.trust_env = False
            adapter = PinnedAddressAdapter(address)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            try:
                # stream=True: only the status matters, and a huge body must not be read into memory.
                with session.post(target.url, data=body, headers=headers, timeout=timeout, allow_redirects=False,
                                  stream=True, verify=_ca_bundle()) as response:
                    return response.status_code
            except requests.ConnectionError as exc:
                if index == last or not _could_not_connect(exc):
                    raise
    raise AssertionError("unreachable: a target has at least one address")
