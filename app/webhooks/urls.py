"""Which webhook URLs we agree to call."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from flask import current_app


class WebhookUrlError(ValueError):
    """The URL is not one we will deliver to."""


def _is_private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified)


def validate_webhook_url(url: str, *, resolve: bool = True) -> str:
    """Return the URL if it is http(s) to a public host; raise WebhookUrlError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise WebhookUrlError("webhook URL must start with http:// or https://")
    if not parts.hostname:
        raise WebhookUrlError("webhook URL must name a host")
    if parts.username or parts.password:
        raise WebhookUrlError("webhook URL must not carry credentials")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise WebhookUrlError("webhook URL has an invalid port") from None
    if current_app.config.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS") or not resolve:
        return url
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise WebhookUrlError(f"webhook host {parts.hostname!r} does not resolve") from None
    if any(_is_private(info[4][0]) for info in infos):
        raise WebhookUrlError(
            "webhook URL resolves to a loopback, private or link-local address; "
            "set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it")
    return url
