"""Which webhook URLs we agree to call, and the addresses we agree to connect to for them."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Blocks Python's `is_global` lets through (its tables also differ between patch releases), or that
# we refuse whatever the Python version says: "this network", shared address space (carrier NAT),
# IETF protocol assignments, the deprecated 6to4 relay anycast, multicast and the reserved 240/4.
_REFUSED_V4 = tuple(ipaddress.IPv4Network(n) for n in (
    "0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.88.99.0/24", "224.0.0.0/4", "240.0.0.0/4"))
# Native IPv6 must be global unicast (2000::/3): that alone rules out site-local fec0::/10, unique
# local, link-local, multicast and the reserved space. Inside 2000::/3, the documentation prefixes.
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_REFUSED_V6 = tuple(ipaddress.IPv6Network(n) for n in ("2001:db8::/32", "3fff::/20"))
# Prefixes that carry an IPv4 address in their last 32 bits and reach it: IPv4-compatible (::/96,
# deprecated, but some stacks still route it), IPv4-mapped, and the NAT64 well-known prefix, which
# a DNS64 network translates to that IPv4 address.
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class WebhookUrlError(ValueError):
    """The URL is not one we will deliver to."""


class WebhookHostUnresolved(WebhookUrlError):
    """The URL's host has no address (now): refused when a key is saved, retried when sending."""


@dataclass(frozen=True)
class WebhookTarget:
    """A webhook URL with the addresses its host resolved to once; the sender connects only to these."""

    url: str
    hostname: str
    port: int
    addresses: tuple[str, ...]


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a packet to `ip` ends up at, for the IPv6 forms that embed one."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]  # (server, client); the client is the host behind it, already un-XORed
    if ip in _IPV4_COMPATIBLE or ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_global_address(ip: IPAddress) -> bool:
    """True only for an address on the public internet, judged by the IPv4 address it embeds if any."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            if not is_global_address(embedded):
                return False
            if ip.ipv4_mapped is not None or ip in _IPV4_COMPATIBLE or ip in _NAT64:
                return True  # these are the IPv4 host itself, whatever Python's IPv6 tables say
        return (ip in _GLOBAL_UNICAST_V6 and ip.is_global and not ip.is_multicast
                and not any(ip in net for net in _REFUSED_V6))
    return ip.is_global and not ip.is_multicast and not any(ip in net for net in _REFUSED_V4)


def _parse(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise WebhookUrlError("webhook URL must start with http:// or https://")
    if not parts.hostname:
        raise WebhookUrlError("webhook URL must name a host")
    if parts.username or parts.password:
        raise WebhookUrlError("webhook URL must not carry credentials")
    try:   # a name no DNS could ever answer (a label over 63 characters, say) is an error, not "not yet"
        parts.hostname.encode("idna")
    except UnicodeError:
        raise WebhookUrlError(f"webhook host {parts.hostname[:80]!r} is not a valid host name") from None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise WebhookUrlError("webhook URL has an invalid port") from None
    return parts.hostname, port


def resolve_webhook_url(url: str) -> WebhookTarget:
    """Resolve the URL's host once and check every address it gave (unless private networks are allowed)."""
    hostname, port = _parse(url)
    try:
        infos = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise WebhookHostUnresolved(f"webhook host {hostname!r} does not resolve") from None
    addresses = tuple(dict.fromkeys(info[4][0] for info in infos))  # resolver order, each address once
    if not addresses:
        raise WebhookHostUnresolved(f"webhook host {hostname!r} does not resolve")
    if not current_app.config.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS"):
        # Every address, not just the first: a client may be steered to any of them.
        if not all(is_global_address(ipaddress.ip_address(a.split("%", 1)[0])) for a in addresses):
            raise WebhookUrlError(
                "webhook URL resolves to an address that is not on the public internet (loopback, private, "
                "link-local, shared, reserved or multicast); set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it")
    return WebhookTarget(url, hostname, port, addresses)


def validate_webhook_url(url: str, *, resolve: bool = True) -> str:
    """Return the URL if it is http(s) to a public host; raise WebhookUrlError otherwise."""
    _parse(url)
    # With private networks allowed (tests, private deployments) a key may name a host that does not
    # resolve yet; the sender still resolves once per attempt and connects to that address.
    if resolve and not current_app.config.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS"):
        resolve_webhook_url(url)
    return url


def unresolved_warning(url: str | None) -> str | None:
    """A sentence for the partner when a saved webhook URL's host does not resolve yet (a receiver set up after the
    key): it is kept, and each delivery attempt resolves it again. None when it resolves (or is not checked)."""
    if not url or current_app.config.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS"):
        return None
    try:
        resolve_webhook_url(url)
    except WebhookHostUnresolved:
        host = urlsplit(url).hostname
        return (f"The webhook host {host} does not resolve yet. The URL is saved; deliveries are attempted when a"
                f" run ends and retried, so set up its DNS record soon, or the deliveries will fail.")
    except WebhookUrlError:
        return None
    return None
