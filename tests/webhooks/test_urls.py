"""Which addresses a webhook may reach: the address check, the one-time resolution, and key settings."""

from __future__ import annotations

import ipaddress
import json

import pytest
from flask import Flask

from app.webhooks.urls import (
    WebhookHostUnresolved,
    WebhookUrlError,
    is_global_address,
    resolve_webhook_url,
    validate_webhook_url,
)

REFUSED = [
    # IPv4 special-purpose blocks
    ("0.1.2.3", "this network, 0.0.0.0/8"),
    ("10.0.0.1", "private"),
    ("100.64.1.1", "shared address space (carrier-grade NAT), 100.64.0.0/10"),
    ("127.0.0.1", "loopback"),
    ("169.254.1.1", "link-local (cloud metadata lives here)"),
    ("172.16.5.4", "private"),
    ("192.0.0.1", "IETF protocol assignments, 192.0.0.0/24"),
    ("192.0.0.9", "IETF protocol assignments (anycast), 192.0.0.0/24"),
    ("192.0.2.1", "documentation"),
    ("192.88.99.1", "6to4 relay anycast"),
    ("192.168.1.1", "private"),
    ("198.18.0.1", "benchmarking, 198.18.0.0/15"),
    ("203.0.113.7", "documentation"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"),
    # IPv6 native
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("fe80::1", "link-local"),
    ("fc00::1", "unique local"),
    ("fd12:3456::1", "unique local"),
    ("fec0::1", "site-local (deprecated), fec0::/10"),
    ("ff02::1", "multicast, link scope"),
    ("ff0e::1", "multicast, global scope"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation, 3fff::/20"),
    ("100::1", "discard-only"),
    ("5f00::1", "outside global unicast 2000::/3"),
    # IPv6 forms that carry a non-global IPv4 address
    ("::ffff:10.0.0.1", "IPv4-mapped private"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
    ("::ffff:100.64.1.1", "IPv4-mapped shared address space"),
    ("::10.0.0.1", "IPv4-compatible private"),
    ("::127.0.0.1", "IPv4-compatible loopback"),
    ("2002:0a00:0001::", "6to4 of 10.0.0.1"),
    ("2002:a9fe:a9fe::1", "6to4 of 169.254.169.254"),
    # Teredo: server 65.54.227.120, client 10.0.0.1 stored XOR 0xffffffff (f5ff:fffe) in the last 32 bits
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo, client 10.0.0.1"),
    ("64:ff9b::10.0.0.1", "NAT64 of 10.0.0.1"),
    ("64:ff9b:1::1", "local-use NAT64, 64:ff9b:1::/48"),
]

ACCEPTED = [
    ("8.8.8.8", "public IPv4"),
    ("1.1.1.1", "public IPv4"),
    ("93.184.216.34", "public IPv4"),
    ("2606:4700:4700::1111", "public IPv6"),
    ("2001:4860:4860::8888", "public IPv6"),
    ("::ffff:8.8.8.8", "IPv4-mapped public: that is 8.8.8.8"),
    ("64:ff9b::8.8.8.8", "NAT64 of a public address"),
]


@pytest.mark.parametrize("address, why", REFUSED, ids=[a for a, _ in REFUSED])
def test_non_global_addresses_are_refused(address, why):
    assert not is_global_address(ipaddress.ip_address(address)), why


@pytest.mark.parametrize("address, why", ACCEPTED, ids=[a for a, _ in ACCEPTED])
def test_global_addresses_are_accepted(address, why):
    assert is_global_address(ipaddress.ip_address(address)), why


def test_teredo_example_embeds_what_the_table_says():
    """The Teredo row really carries 10.0.0.1: Python un-XORs the client address."""
    assert ipaddress.ip_address("2001:0:4136:e378:8000:63bf:f5ff:fffe").teredo == (
        ipaddress.IPv4Address("65.54.227.120"), ipaddress.IPv4Address("10.0.0.1"))


@pytest.fixture
def policy_app():
    """A bare app context for the checks (private networks refused, as in production)."""
    application = Flask(__name__)
    application.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = False
    with application.app_context():
        yield application


def test_every_resolved_address_must_be_global(policy_app, dns):
    dns.answer("mixed.example.test", ["8.8.8.8", "10.0.0.1"])
    with pytest.raises(WebhookUrlError, match="not on the public internet"):
        resolve_webhook_url("https://mixed.example.test/hook")
    dns.answer("sneaky.example.test", ["2606:4700:4700::1111", "::ffff:192.168.0.1"])
    with pytest.raises(WebhookUrlError):
        validate_webhook_url("https://sneaky.example.test/hook")


def test_resolution_keeps_every_checked_address_in_order(policy_app, dns):
    dns.answer("hooks.example.test", ["2606:4700:4700::1111", "8.8.8.8", "8.8.8.8"])
    target = resolve_webhook_url("https://hooks.example.test:8443/hook")
    assert target.hostname == "hooks.example.test" and target.port == 8443
    assert target.addresses == ("2606:4700:4700::1111", "8.8.8.8")
    assert dns.lookups["hooks.example.test"] == 1


def test_private_networks_allowed_still_resolves_once(policy_app, dns):
    """The escape hatch skips the address check, not the pinning: the sender still gets addresses."""
    policy_app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = True
    dns.answer("hooks.example.test", ["127.0.0.1"])
    assert resolve_webhook_url("http://hooks.example.test/hook").addresses == ("127.0.0.1",)
    assert validate_webhook_url("http://not-resolved.example.test/hook") == "http://not-resolved.example.test/hook"


def test_unresolvable_host(policy_app, dns):
    dns.answer("gone.example.test", [])
    with pytest.raises(WebhookHostUnresolved):
        validate_webhook_url("https://gone.example.test/hook")


@pytest.mark.parametrize("url", ["ftp://example.com/x", "https:///x", "https://user:pw@example.com/x",
                                 "https://example.com:99999/x"])
def test_malformed_urls(policy_app, url):
    with pytest.raises(WebhookUrlError):
        validate_webhook_url(url)


def test_keys_cli_applies_the_rules_when_a_url_is_saved(app_factory, dns):
    """`keys create` and `keys update` call validate_webhook_url: a host on shared address space
    (which the old loopback/private check let through) is refused; a public one is saved."""
    runner = app_factory().test_cli_runner()  # WEBHOOK_ALLOW_PRIVATE_NETWORKS=false
    dns.answer("cgnat.example.test", ["100.64.1.1"])
    dns.answer("public.example.test", ["93.184.216.34"])
    refused = runner.invoke(args=["keys", "create", "--partner", "acme", "--webhook-url",
                                  "https://cgnat.example.test/hook"])
    assert refused.exit_code != 0 and "not on the public internet" in refused.output
    created = runner.invoke(args=["keys", "create", "--partner", "acme", "--webhook-url",
                                  "https://public.example.test/hook", "--json"])
    assert created.exit_code == 0, created.output
    key_id = str(json.loads(created.output)["id"])
    updated = runner.invoke(args=["keys", "update", key_id, "--webhook-url", "https://cgnat.example.test/other"])
    assert updated.exit_code != 0 and "not on the public internet" in updated.output
