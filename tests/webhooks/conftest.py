"""Webhook tests: an app allowed to call loopback, its sender running, real receivers, a scripted resolver."""

from __future__ import annotations

import socket
from collections import Counter

import pytest

from tests.factories import submission
from tests.support.processes import wait_until
from tests.support.receiver import SilentReceiver

FAST = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": True, "WEBHOOK_BACKOFF_SECONDS": (0.2, 0.4),
        "WEBHOOK_TIMEOUT_SECONDS": 2.0, "WEBHOOK_MAX_ATTEMPTS": 3}
__all__ = ["FAST", "bearer", "deliveries", "run", "settled", "wait_until"]


def bearer(issued) -> dict:
    """Authorization headers for an IssuedKey."""
    return {"Authorization": f"Bearer {issued.api_key}"}


def run(client, auth, **overrides) -> dict:
    """Submit an assessment and generate its reports; the generate response."""
    record = client.post("/api/v1/assessments", json=submission(**overrides), headers=auth).get_json()
    response = client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    assert response.status_code == 200
    return response.get_json()


def deliveries(client, auth, query: str = "") -> list[dict]:
    """The key's partner's deliveries, as the API lists them."""
    return client.get(f"/api/v1/webhook-deliveries{query}", headers=auth).get_json()["items"]


def settled(client, auth, count: int = 1):
    """Deliveries once none is pending any more."""
    def check():
        items = deliveries(client, auth)
        return items if len(items) >= count and all(d["status"] != "pending" for d in items) else None
    return wait_until(check)


@pytest.fixture
def app(app_factory):
    application = app_factory(**FAST)
    application.extensions["webhook_sender"].start()
    return application


@pytest.fixture
def silent():
    server = SilentReceiver().start()
    yield server
    server.stop()


@pytest.fixture
def hooked(make_key, receiver):
    """A key whose webhook URL is the receiver: (auth headers, IssuedKey)."""
    issued = make_key(webhook_url=receiver.url)
    return bearer(issued), issued


class ScriptedResolver:
    """`socket.getaddrinfo` for made-up names: a name answers `first` on its first lookup and `then` on
    every later one (a DNS rebinding attacker's server); other names go to the real resolver."""

    def __init__(self, real):
        self.real = real
        self.scripts: dict[str, tuple[list[str], list[str]]] = {}
        self.lookups: Counter[str] = Counter()

    def answer(self, name: str, first: list[str], then: list[str] | None = None) -> None:
        """Script `name` afresh; its lookup count starts again at zero."""
        self.scripts[name] = (first, first if then is None else then)
        self.lookups[name] = 0

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002 - socket's own names
        name = host.decode() if isinstance(host, bytes) else host
        if name not in self.scripts:
            return self.real(host, port, family, type, proto, flags)
        self.lookups[name] += 1
        first, then = self.scripts[name]
        results = []
        for address in first if self.lookups[name] == 1 else then:
            if ":" in address:
                results.append((socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "",
                                (address, int(port), 0, 0)))
            else:
                results.append((socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port))))
        return results


@pytest.fixture
def dns(monkeypatch):
    """Install a ScriptedResolver as `socket.getaddrinfo` (what our check and urllib3 both call)."""
    resolver = ScriptedResolver(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    return resolver
