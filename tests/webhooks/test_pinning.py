"""No DNS rebinding: an attempt connects to the address it resolved and checked, and nowhere else.

The resolver is scripted (`dns` fixture): `hooks.example.test` answers 127.0.0.1 on its first lookup
and 127.0.0.2 on every later one, as an attacker's DNS server would once the check has passed.
Real receivers listen on both addresses, on the same port, so a second lookup would show.
"""

from __future__ import annotations

import ipaddress

import pytest

from app.webhooks import urls
from tests.support.receiver import WebhookReceiver
from tests.webhooks.certificates import LocalAuthority
from tests.webhooks.conftest import bearer, run, settled

HOST = "hooks.example.test"


def twin_receivers(tls_first=None) -> tuple[WebhookReceiver, WebhookReceiver]:
    """Receivers on 127.0.0.1 and 127.0.0.2 sharing one port number."""
    for _ in range(5):
        first = WebhookReceiver(tls=tls_first).start()
        try:
            return first, WebhookReceiver(host="127.0.0.2", port=first.port).start()
        except OSError:  # that port is taken on 127.0.0.2: try another
            first.stop()
    raise AssertionError("no port free on both 127.0.0.1 and 127.0.0.2")


@pytest.fixture
def twins():
    first, second = twin_receivers()
    yield first, second
    first.stop()
    second.stop()


@pytest.fixture
def public_loopback(app, monkeypatch):
    """Call it (once the key is saved) to enforce the address check, with 127.0.0.1 standing in for
    a public address, so that the checked address can be a real socket on this machine."""
    real = urls.is_global_address
    stand_in = ipaddress.ip_address("127.0.0.1")

    def enforce():
        app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = False
        monkeypatch.setattr(urls, "is_global_address", lambda ip: ip == stand_in or real(ip))

    return enforce


def test_with_private_networks_allowed_it_connects_to_the_address_it_resolved(client, make_key, dns, twins):
    first, second = twins
    auth = bearer(make_key(webhook_url=f"http://{HOST}:{first.port}/hooks/crs"))
    dns.answer(HOST, ["127.0.0.1"], then=["127.0.0.2"])
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded"
    [request] = first.received
    assert request.headers["host"] == f"{HOST}:{first.port}"
    assert second.received == []
    assert dns.lookups[HOST] == 1  # resolved once, by the check; the connection did not look it up again


def test_a_rebinding_answer_after_the_check_is_never_used(client, make_key, dns, twins, public_loopback):
    """With the check enforced: the first answer passes it, and the request goes to that address even
    though the name now resolves to a private one."""
    first, second = twins
    auth = bearer(make_key(webhook_url=f"http://{HOST}:{first.port}/hooks/crs"))
    dns.answer(HOST, ["127.0.0.1"], then=["127.0.0.2"])
    public_loopback()
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded", delivery["attempts"]
    [request] = first.received
    assert request.headers["host"] == f"{HOST}:{first.port}" and request.json["event"] == delivery["event"]
    assert second.received == []


def test_the_next_attempt_checks_again_and_refuses_the_new_answer(client, make_key, dns, twins, public_loopback):
    """Attempt 1 goes to the checked 127.0.0.1 and gets a 500; attempt 2 resolves again, gets the
    private 127.0.0.2, refuses it, and sends nothing there."""
    first, second = twins
    first.responses = [500]
    auth = bearer(make_key(webhook_url=f"http://{HOST}:{first.port}/hooks/crs"))
    dns.answer(HOST, ["127.0.0.1"], then=["127.0.0.2"])
    public_loopback()
    run(client, auth)
    [delivery] = settled(client, auth)
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, None]
    assert delivery["attempts"][1]["error"].startswith("refused:") and delivery["status"] == "failed"
    assert len(first.received) == 1 and second.received == []


def test_an_address_that_refuses_the_connection_falls_back_to_the_next_checked_one(client, make_key, dns,
                                                                                   receiver):
    """hooks.example.test has two addresses and nothing listens on the first: the attempt moves on to
    the second, which it also checked, and succeeds."""
    auth = bearer(make_key(webhook_url=f"http://{HOST}:{receiver.port}/hooks/crs"))
    dns.answer(HOST, ["127.0.0.3", "127.0.0.1"])
    run(client, auth)
    [delivery] = settled(client, auth)
    assert delivery["status"] == "succeeded" and len(delivery["attempts"]) == 1
    assert receiver.received[0].headers["host"] == f"{HOST}:{receiver.port}"


def test_an_ipv6_address_is_connected_to_with_the_hostname_in_host(client, make_key, dns):
    try:
        receiver = WebhookReceiver(host="::1").start()
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    try:
        auth = bearer(make_key(webhook_url=f"http://{HOST}:{receiver.port}/hooks/crs"))
        dns.answer(HOST, ["::1"], then=["127.0.0.2"])
        run(client, auth)
        [delivery] = settled(client, auth)
        assert delivery["status"] == "succeeded", delivery["attempts"]
        assert receiver.received[0].headers["host"] == f"{HOST}:{receiver.port}"
    finally:
        receiver.stop()


@pytest.fixture
def authority(tmp_path, monkeypatch):
    """A CA that the sender trusts (through requests' REQUESTS_CA_BUNDLE variable)."""
    ca = LocalAuthority(tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca.ca_file))
    return ca


def test_https_speaks_to_the_hostname_while_connecting_to_the_checked_ip(client, make_key, dns, authority,
                                                                        public_loopback):
    """SNI and the certificate check use hooks.example.test; the TCP connection goes to 127.0.0.1."""
    first, second = twin_receivers(tls_first=authority.server_context(HOST))
    try:
        auth = bearer(make_key(webhook_url=f"https://{HOST}:{first.port}/hooks/crs"))
        dns.answer(HOST, ["127.0.0.1"], then=["127.0.0.2"])
        public_loopback()
        run(client, auth)
        [delivery] = settled(client, auth)
        assert delivery["status"] == "succeeded", delivery["attempts"]
        assert first.server_names == [HOST]
        [request] = first.received
        assert request.headers["host"] == f"{HOST}:{first.port}"
        assert second.received == []
    finally:
        first.stop()
        second.stop()


def test_https_refuses_a_certificate_for_another_name(client, make_key, dns, authority, public_loopback):
    """The receiver at the checked address presents a valid certificate, for other.example.test: the
    handshake fails, no request is sent, and the attempt log says it was the certificate."""
    first, second = twin_receivers(tls_first=authority.server_context("other.example.test"))
    try:
        auth = bearer(make_key(webhook_url=f"https://{HOST}:{first.port}/hooks/crs"))
        dns.answer(HOST, ["127.0.0.1"])
        public_loopback()
        run(client, auth)
        [delivery] = settled(client, auth)
        assert delivery["status"] == "failed" and len(delivery["attempts"]) == 3
        error = delivery["attempts"][0]["error"]
        assert error.startswith("SSLError:") and "certificate" in error.lower() and HOST in error, error
        assert first.server_names[0] == HOST  # it asked for the right name
        assert first.received == [] and second.received == []
    finally:
        first.stop()
        second.stop()
