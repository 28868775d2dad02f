"""Signing in and out of the portal (issue 16): the throttle counts every body shape, sessions end on
the server, the throttles outlive a Redis outage, and `next` never carries a header break."""

from __future__ import annotations

import hashlib
import io
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.extensions import db
from app.models import ApiKey, PortalSession, utcnow
from tests.portal import PASSWORD, make_user, page_token, sign_in

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1: connection refused at once
WRONG = "not the password at all"


def text(response) -> str:
    return response.get_data(as_text=True)


def post_login(client, shape: str, email, password, query: str = ""):
    """POST /portal/login with the fields in one of the body shapes a client may send."""
    token = page_token(client)
    path = "/portal/login" + query
    if shape == "form":
        return client.post(path, data={"email": email, "password": password, "csrf_token": token})
    if shape == "multipart":
        return client.post(path, data={"email": email, "password": password, "csrf_token": token,
                                       "attachment": (io.BytesIO(b"not a field"), "note.txt")})
    if shape == "json":
        return client.post(path, json={"email": email, "password": password}, headers={"X-CSRFToken": token})
    if shape == "json-non-string-password":
        return client.post(path, json={"email": email, "password": 123456789012},
                           headers={"X-CSRFToken": token})
    raise AssertionError(shape)


# --------------------------------------------------------------------------- the throttle, whatever the body

@pytest.mark.parametrize("shape", ["form", "multipart", "json", "json-non-string-password"])
def test_every_body_shape_counts_toward_the_account_throttle(app_factory, shape):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ACCOUNT="3/minute", PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(app)
    make_user(app, "Globex", "bo@globex.example")
    client = app.test_client()
    for _ in range(3):
        attempt = post_login(client, shape, "Ann@Acme.example ", WRONG)  # any case and spacing: one account
        assert attempt.status_code in (200, 400), (shape, attempt.status_code)
        assert client.get("/portal/keys").status_code == 302
    blocked = sign_in(client)  # the browser's form, right password: the account waits now
    assert blocked.status_code == 429 and 1 <= int(blocked.headers["Retry-After"]) <= 60
    assert "Too many sign-in attempts" in text(blocked)
    assert post_login(client, "json", "ann@acme.example", PASSWORD).status_code == 429
    assert sign_in(client, "bo@globex.example").status_code == 302  # other accounts are not held up


def test_a_json_sign_in_works_like_the_form(client, app):
    make_user(app)
    response = post_login(client, "json", "ann@acme.example", PASSWORD, query="?next=/portal/usage")
    assert response.status_code == 302 and response.headers["Location"] == "/portal/usage"
    assert client.get("/portal/keys").status_code == 200
    wrong = post_login(app.test_client(), "json", "ann@acme.example", WRONG)
    assert wrong.status_code == 200 and "The email or password is not right" in text(wrong)


@pytest.mark.parametrize("email", [42, 4.2, True, None, ["ann@acme.example"], {"email": "ann@acme.example"}])
def test_a_non_string_json_email_is_a_400(client, app, email):
    make_user(app)
    response = client.post("/portal/login", json={"email": email, "password": PASSWORD},
                           headers={"X-CSRFToken": page_token(client)})
    assert response.status_code == 400
    assert "That request could not be handled" in text(response)
    assert client.get("/portal/keys").status_code == 302  # a list holding the right email signs no one in


@pytest.mark.parametrize("body", [b"[1, 2]", b'"ann@acme.example"', b"null", b"{not json", b"\xff\xfe"])
def test_a_json_body_that_is_not_an_object_is_a_400(client, app, body):
    make_user(app)
    response = client.post("/portal/login", data=body, content_type="application/json",
                           headers={"X-CSRFToken": page_token(client)})
    assert response.status_code == 400


BODIES_WITHOUT_AN_EMAIL = {
    "empty": dict,
    "text/plain": lambda: {"data": b"email=ann@acme.example", "content_type": "text/plain"},
    "email sent as a file": lambda: {"data": {"email": (io.BytesIO(b"ann@acme.example"), "email.txt"),
                                              "password": PASSWORD}},
    "json number email": lambda: {"json": {"email": 7, "password": PASSWORD}},
}


@pytest.mark.parametrize("body", BODIES_WITHOUT_AN_EMAIL)
def test_bodies_without_a_usable_email_answer_4xx_or_the_form_and_count_per_address(app_factory, body):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ADDRESS="3/minute", PORTAL_LOGIN_LIMIT_PER_ACCOUNT="100/minute")
    make_user(app)
    client = app.test_client()
    for _ in range(3):
        response = client.post("/portal/login", headers={"X-CSRFToken": page_token(client)},
                               **BODIES_WITHOUT_AN_EMAIL[body]())
        assert response.status_code in (200, 400), response.status_code  # the form with its errors, or a 400
        assert client.get("/portal/keys").status_code == 302
    assert sign_in(client).status_code == 429


# --------------------------------------------------------------------------- sessions end on the server

def session_cookie(client) -> str:
    cookie = client.get_cookie("session", path="/portal")
    assert cookie is not None, "no portal session cookie"
    return cookie.value


def with_cookie(app, value: str):
    """Another browser holding a copy of a session cookie."""
    other = app.test_client()
    other.set_cookie("session", value, path="/portal")
    return other


def test_a_copy_of_the_session_cookie_stops_working_at_sign_out(app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    thief = with_cookie(app, session_cookie(client))
    assert thief.get("/portal/keys").status_code == 200  # before sign-out, the copy works (it is the session)
    token = page_token(thief, "/portal/keys/new")
    signed_out = client.post("/portal/logout", data={"csrf_token": page_token(client, "/portal/keys")})
    assert signed_out.status_code == 302
    for path in ("/portal/keys", "/portal/usage", "/portal/keys/new"):
        response = thief.get(path)
        assert response.status_code == 302 and response.headers["Location"].startswith("/portal/login"), path
    created = thief.post("/portal/keys/new", data={"name": "Stolen", "tier": "standard", "csrf_token": token})
    assert created.status_code in (302, 400) and "crs_" not in text(created)
    with app.app_context():
        assert db.session.scalar(select(ApiKey.id)) is None


def test_the_cookie_carries_a_random_token_stored_only_as_its_hash(app, client):
    make_user(app)
    sign_in(client)
    contents = app.session_interface.get_signing_serializer(app).loads(session_cookie(client))
    token = contents["portal_session"]
    assert len(token) >= 32 and "portal_user" not in contents  # ≥ 128 bits; the cookie names no user id
    with app.app_context():
        stored = db.session.scalars(select(PortalSession)).all()
        assert [row.token_hash for row in stored] == [hashlib.sha256(token.encode()).hexdigest()]
    second = app.test_client()
    sign_in(second)
    assert app.session_interface.get_signing_serializer(app).loads(session_cookie(second))["portal_session"] != token
    with app.app_context():
        assert db.session.scalar(select(db.func.count(PortalSession.id))) == 2


def test_an_idle_session_ends_on_the_server_too_and_stale_rows_are_pruned(app, client):
    make_user(app)
    sign_in(client)
    with app.app_context():  # five minutes idle: the next request renews last use
        db.session.execute(update(PortalSession).values(last_seen_at=utcnow() - timedelta(minutes=5)))
        db.session.commit()
    assert client.get("/portal/keys").status_code == 200
    with app.app_context():
        assert utcnow() - aware(db.session.scalar(select(PortalSession.last_seen_at))) < timedelta(minutes=1)
        db.session.execute(update(PortalSession).values(last_seen_at=utcnow() - timedelta(hours=2, minutes=1)))
        db.session.commit()
    assert client.get("/portal/keys").headers["Location"].startswith("/portal/login")  # even with a fresh cookie
    with app.app_context():
        assert db.session.scalar(select(PortalSession.id)) is None
    sign_in(client)
    other = app.test_client()
    sign_in(other)
    with app.app_context():
        first = db.session.scalars(select(PortalSession.id).order_by(PortalSession.id)).first()
        db.session.execute(update(PortalSession).where(PortalSession.id == first)
                           .values(last_seen_at=utcnow() - timedelta(hours=3)))
        db.session.commit()
    sign_in(app.test_client())  # each sign-in prunes the rows that idled out
    with app.app_context():
        assert first not in db.session.scalars(select(PortalSession.id)).all()
        assert db.session.scalar(select(db.func.count(PortalSession.id))) == 2


def aware(value):
    return value if value.tzinfo else value.replace(tzinfo=utcnow().tzinfo)


# --------------------------------------------------------------------------- throttles while Redis is down

def test_sign_in_throttles_fall_back_to_memory_while_redis_is_down(app_factory):
    per_account = app_factory(RATELIMIT_STORAGE_URI=DEAD_REDIS, PORTAL_LOGIN_LIMIT_PER_ACCOUNT="3/minute",
                              PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(per_account)
    client = per_account.test_client()
    for _ in range(3):
        assert sign_in(client, password=WRONG).status_code == 200
    blocked = sign_in(client)
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) >= 1
    assert "Too many sign-in attempts" in text(blocked)

    per_address = app_factory(RATELIMIT_STORAGE_URI=DEAD_REDIS, PORTAL_LOGIN_LIMIT_PER_ADDRESS="3/minute",
                              PORTAL_LOGIN_LIMIT_PER_ACCOUNT="100/minute")
    client = per_address.test_client()
    for n in range(3):
        assert sign_in(client, f"guess{n}@acme.example", WRONG).status_code == 200
    assert sign_in(client, "guess9@acme.example", WRONG).status_code == 429


# --------------------------------------------------------------------------- where sign-in sends you next

@pytest.mark.parametrize("target", [
    "/portal/keys\r\nSet-Cookie: x=1",       # a raw CR/LF in the value
    "/portal/keys\nSet-Cookie: x=1",
    "/portal/keys%0d%0aSet-Cookie:x=1",      # percent-encoded inside the value (the URL has %250d%250a)
    "/portal/keys%250D%250ASet-Cookie:x=1",  # and once more
    "/portal/keys\x00",
])
def test_a_next_with_a_line_break_never_reaches_the_location_header(app, client, target):
    make_user(app)
    form = {"email": "ann@acme.example", "password": PASSWORD, "csrf_token": page_token(client)}
    response = client.post("/portal/login", query_string={"next": target}, data=form)
    assert response.status_code == 302 and response.headers["Location"] == "/portal/keys"
    assert any(cookie.startswith("session=") for cookie in response.headers.getlist("Set-Cookie"))
    assert not any(c.startswith("x=") for c in response.headers.getlist("Set-Cookie"))
    # Already signed in, the sign-in page forwards with the same check.
    again = client.get("/portal/login", query_string={"next": target})
    assert again.status_code == 302 and again.headers["Location"] == "/portal/keys"


def test_a_line_break_in_the_url_itself_is_dropped_from_next(app, client):
    response = client.get("/portal/login?next=/portal/keys%0d%0aSet-Cookie:x=1")
    assert response.status_code == 200  # the sign-in page; the form posts without the bad next
    make_user(app)
    form = {"email": "ann@acme.example", "password": PASSWORD, "csrf_token": page_token(client)}
    signed_in = client.post("/portal/login?next=/portal/keys%0d%0aSet-Cookie:x=1", data=form)
    assert signed_in.status_code == 302 and signed_in.headers["Location"] == "/portal/keys"
