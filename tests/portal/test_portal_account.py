"""A signed-in partner user's own account page: who they are, and a password change that needs the current
password, signs out every other browser of the user and keeps this one signed in."""

from __future__ import annotations

import pytest

from tests.portal import PASSWORD, make_user, page_token, sign_in, words

NEW = "a much longer passphrase for acme"


def change(client, current=PASSWORD, new=NEW, again=None):
    return client.post("/portal/account", data={"current_password": current, "new_password": new,
                                                "confirm_password": new if again is None else again,
                                                "csrf_token": page_token(client, "/portal/account")})


def test_the_account_is_linked_from_every_page_and_says_who_you_are(signed_in):
    assert 'href="/portal/account"' in signed_in.get("/portal/keys").get_data(as_text=True)
    shown = words(signed_in.get("/portal/account"))
    assert "ann@acme.example" in shown and "Acme Security" in shown and "Change your password" in shown


def test_a_password_change_signs_out_other_browsers_and_keeps_this_one(app, signed_in):
    other = app.test_client()
    assert sign_in(other).status_code == 302 and other.get("/portal/keys").status_code == 200
    response = change(signed_in)
    assert response.status_code == 303 and response.headers["Location"] == "/portal/account"
    assert "Your password is changed." in words(signed_in.get("/portal/account"))
    assert signed_in.get("/portal/keys").status_code == 200                        # this browser: still in
    assert other.get("/portal/keys").headers["Location"].startswith("/portal/login")  # the other: signed out
    fresh = app.test_client()
    assert sign_in(fresh).status_code == 200                                        # the old password: refused
    assert sign_in(fresh, password=NEW).status_code == 302


@pytest.mark.parametrize(("current", "new", "again", "message"), [
    ("not my password at all", NEW, None, "Your current password is not the one you typed."),
    (PASSWORD, "short", None, "Use 12 to 1,024 characters."),
    (PASSWORD, NEW, NEW + "x", "The two new passwords differ."),
    (PASSWORD, PASSWORD, None, "The new password must differ from the current one."),
])
def test_a_refused_change_says_why_on_its_field_and_changes_nothing(app, signed_in, current, new, again, message):
    response = change(signed_in, current, new, again)
    assert response.status_code == 200 and message in words(response)
    assert 'aria-invalid="true"' in response.get_data(as_text=True)
    assert sign_in(app.test_client()).status_code == 302                            # the password is as it was


def test_signed_out_the_account_page_sends_you_to_sign_in(client):
    assert client.get("/portal/account").headers["Location"].startswith("/portal/login")


def test_guessing_the_current_password_is_throttled_like_sign_in(app_factory):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ACCOUNT="3/minute", PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(app)
    client = app.test_client()
    assert sign_in(client).status_code == 302
    for _ in range(3):
        assert change(client, current="a wrong guess of it").status_code == 200
    blocked = change(client)                          # even the right one waits now
    assert blocked.status_code == 429 and 1 <= int(blocked.headers["Retry-After"]) <= 60
    assert "Too many wrong current passwords" in words(blocked) and "Change your password" in words(blocked)
    assert sign_in(app.test_client()).status_code == 302   # the password is unchanged
