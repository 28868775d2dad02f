"""Helpers for the portal tests: portal users, CSRF tokens from pages, signing in with the test client."""

from __future__ import annotations

import re
from html import unescape

from app.extensions import db
from app.portal.accounts import create_user

PASSWORD = "correct horse battery staple"  # noqa: S105 - a test account's password
_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*name="csrf_token"')


def make_user(app, partner: str = "Acme Security", email: str = "ann@acme.example", password: str = PASSWORD,
              max_tier: str | None = None) -> int:
    """A portal user of the partner (created if new); returns the user's id."""
    with app.app_context():
        user, _ = create_user(partner, email, password)
        if max_tier:
            user.partner.max_tier = max_tier
        db.session.commit()
        return user.id


def csrf_token(html: str) -> str:
    """The CSRF token of the first form on a page."""
    match = _CSRF.search(html)
    assert match, "no csrf_token on the page"
    return match.group(1) or match.group(2)


def page_token(client, path: str = "/portal/login") -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return csrf_token(response.get_data(as_text=True))


def sign_in(client, email: str = "ann@acme.example", password: str = PASSWORD):
    """POST the sign-in form as a browser would, with the token from the page."""
    return client.post("/portal/login", data={"email": email, "password": password, "csrf_token": page_token(client)})


def follow(client, response):
    """The page a post/redirect/get POST (a new key, a rotated secret) sends the browser to, with a 303."""
    assert response.status_code == 303, response.status_code
    return client.get(response.headers["Location"])


def words(response) -> str:
    """A page's text as a reader sees it: tags out, entities decoded, runs of whitespace as one space."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))).split())
