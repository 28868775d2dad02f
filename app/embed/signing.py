"""Signed, expiring embed URLs (as Metabase's and Looker's signed embedding): a key may require them.

A partner's server signs a page's token and an expiry with the key's embed secret and appends both to the
permanent URL: `?expires=<unix seconds>&signature=<hex HMAC-SHA256(embed secret, "<token>:<expires>")>`.
The signature covers the token, not the path, so one query string is good for every page, fragment and PDF
under that token. A signed page's own links (the fragments, the PDFs, the persona form) carry the request's
expiry, each signed for its own token: they are added to the page as it is served, so the stored page (see
service.py) stays free of them and a signed view is still one query.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import time
from dataclasses import dataclass, field

from cryptography.fernet import InvalidToken
from markupsafe import escape

from ..keys.crypto import decrypt_secret

log = logging.getLogger(__name__)

MAX_LIFETIME = 24 * 3600    # an `expires` further ahead than this is refused: a signed URL is short-lived
CLOCK_LEEWAY = 300          # ... give or take this much, for a partner's clock that runs a little fast
_EXPIRES = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"[0-9a-f]{64}")

NOT_SIGNED = "This link is not signed: open the reports from the page that shows them."
EXPIRED = "This link has expired: ask the page that showed it to load it again."
INVALID = "This link's signature is not valid: ask the page that showed it to load it again."
TOO_LONG = f"This link is valid for too long: a signed link may expire at most {MAX_LIFETIME // 3600} hours ahead."


class Refused(Exception):
    """A request the key's signing rules refuse; the message is the sentence the 403 page shows."""


def sign(secret: str, token: str, expires: str | int) -> str:
    """Hex HMAC-SHA256 of "<token>:<expires>", keyed with the embed secret as shown (prefix included)."""
    return hmac.new(secret.encode(), f"{token}:{expires}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Signed:
    """A request whose signature was checked: its expiry and the secret, to sign the page's own links."""

    expires: str
    signature: str
    secret: str = field(repr=False)

    def query(self, token: str) -> str:
        return f"expires={self.expires}&signature={sign(self.secret, token, self.expires)}"

    def etag(self, fingerprint: str) -> str:
        """The ETag of a stored page served with these links."""
        return hashlib.sha256(f"{fingerprint}\x1f{self.expires}\x1f{self.signature}".encode()).hexdigest()


def check(args, token: str, required: bool, secret_encrypted: str | None, now: float | None = None) -> Signed | None:
    """None for an unsigned request to a key that does not require signing (served as always); a `Signed`
    for a valid, unexpired signature; `Refused` otherwise. A signed request is checked whether or not the key
    requires signing: a URL that says it expires does expire."""
    expires_values, signature_values = args.getlist("expires"), args.getlist("signature")
    if not expires_values and not signature_values:
        if required:
            raise Refused(NOT_SIGNED)
        return None
    if len(expires_values) != 1 or len(signature_values) != 1:
        raise Refused(INVALID if expires_values and signature_values else NOT_SIGNED)
    expires, signature = expires_values[0], signature_values[0].lower()
    if not _EXPIRES.fullmatch(expires) or not _SIGNATURE.fullmatch(signature) or secret_encrypted is None:
        raise Refused(INVALID)
    try:
        secret = decrypt_secret(secret_encrypted)
    except InvalidToken:   # SECRET_KEY changed since the secret was stored: no URL can be checked
        log.warning("an embed secret cannot be decrypted: was SECRET_KEY changed?")
        raise Refused(INVALID) from None
    if not hmac.compare_digest(sign(secret, token, expires), signature):
        raise Refused(INVALID)
    now = time.time() if now is None else now
    if int(expires) <= now:
        raise Refused(EXPIRED)
    if int(expires) > now + MAX_LIFETIME + CLOCK_LEEWAY:
        raise Refused(TOO_LONG)
    return Signed(expires, signature, secret)


# Links to a token's pages as the templates write them: href="…/embed/(assessment|report)/<token>…". Every
# value from a report is escaped, so no report text can look like one. Bytes, as pages are stored; each pattern
# starts with a literal, which keeps a pass over a 500 KB page well under a millisecond.
_TOKEN_LINK = re.compile(rb'( href="[^"?#]*/embed/(?:assessment|report)/([A-Za-z0-9_-]{16,64})[^"?#]*)(\?[^"#]*)?"')
# The persona form (a GET form: the browser drops its action's query, so it carries the signature as fields).
_FRAGMENT_FORM = re.compile(rb' data-fragment-base="[^"]*"[^>]*>')


def sign_links(html: str | bytes, signed: Signed | None, token: str) -> str | bytes:
    """The page with every link to a token's page signed with the request's expiry, and the persona form
    carrying the signature of the page's own token; unchanged for an unsigned request."""
    if signed is None:
        return html
    data = html.encode() if isinstance(html, str) else html

    def link(found: re.Match) -> bytes:
        query = signed.query(found.group(2).decode()).replace("&", "&amp;").encode()
        return found.group(1) + (found.group(3) + b"&amp;" if found.group(3) else b"?") + query + b'"'

    fields = (f'<input type="hidden" name="expires" value="{escape(signed.expires)}">'
              f'<input type="hidden" name="signature" value="{sign(signed.secret, token, signed.expires)}">').encode()
    data = _FRAGMENT_FORM.sub(lambda found: found.group(0) + fields, _TOKEN_LINK.sub(link, data), count=1)
    return data.decode() if isinstance(html, str) else data
