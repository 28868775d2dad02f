"""Optional two-factor sign-in: turned on with a code from an authenticator app, then asked for after the password;
ten recovery codes shown once, each working once; turned off with the password; wrong codes throttled."""

from __future__ import annotations

import re
from html import unescape

import pyotp

from tests.portal import PASSWORD, make_user, page_token, sign_in, words


def post(client, path, form_page, **data):
    return client.post(path, data={**data, "csrf_token": page_token(client, form_page)})


def turn_on(client) -> tuple[str, list[str]]:
    """Through the account page: the secret the page shows, and the recovery codes it shows once."""
    started = post(client, "/portal/account/2fa/start", "/portal/account")
    assert started.status_code == 303
    setup = client.get(started.headers["Location"]).get_data(as_text=True)
    secret = re.search(r'class="totp-secret">([A-Z2-7 ]+)<', setup).group(1).replace(" ", "")
    assert f"secret={secret}" in unescape(setup)                       # the otpauth:// link carries the same key
    assert "recovery code" not in setup                                 # none exists yet: only the app's code
    wrong = post(client, "/portal/account/2fa", "/portal/account/2fa", code="000000")
    assert wrong.status_code == 200 and "That code is not right" in words(wrong)
    done = post(client, "/portal/account/2fa", "/portal/account/2fa", code=pyotp.TOTP(secret).now())
    assert done.status_code == 303
    page = client.get(done.headers["Location"]).get_data(as_text=True)
    codes = re.findall(r"<li><code>([0-9a-f]{6}-[0-9a-f]{6})</code></li>", page)
    assert len(codes) == 10 and "shown only now" in page
    assert not re.findall(r"<li><code>[0-9a-f]{6}-", client.get("/portal/account").get_data(as_text=True))
    return secret, codes


def password_step(client):
    return client.post("/portal/login", data={"email": "ann@acme.example", "password": PASSWORD,
                                              "csrf_token": page_token(client)})


def code_step(client, code):
    return post(client, "/portal/login/code", "/portal/login/code", code=code)


def test_with_two_factor_on_the_password_alone_does_not_sign_in(app, signed_in):
    secret, codes = turn_on(signed_in)
    assert "On: after your password" in words(signed_in.get("/portal/account"))
    browser = app.test_client()
    first = password_step(browser)
    assert first.status_code == 303 and first.headers["Location"] == "/portal/login/code"
    assert browser.get("/portal/keys").status_code == 302                 # not signed in yet
    assert "That code is not right" in words(code_step(browser, "123456"))
    assert code_step(browser, pyotp.TOTP(secret).now()).status_code == 303
    assert browser.get("/portal/keys").status_code == 200

    # A recovery code works once.
    other = app.test_client()
    password_step(other)
    assert code_step(other, codes[0].upper()).status_code == 303
    assert "9 recovery codes left" in words(other.get("/portal/account"))
    again = app.test_client()
    password_step(again)
    assert code_step(again, codes[0]).status_code == 200


def test_the_code_step_needs_the_password_step_first(client):
    response = client.get("/portal/login/code")
    assert response.status_code == 302 and response.headers["Location"].startswith("/portal/login")


def test_turning_it_off_takes_the_password(app, signed_in):
    turn_on(signed_in)
    wrong = post(signed_in, "/portal/account/2fa/off", "/portal/account", current_password="not it at all")
    assert wrong.status_code == 200 and "Your current password is not the one you typed." in words(wrong)
    assert post(signed_in, "/portal/account/2fa/off", "/portal/account",
                current_password=PASSWORD).status_code == 303
    assert sign_in(app.test_client()).status_code == 302                 # the password alone again


def test_wrong_codes_are_throttled(app_factory):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ACCOUNT="3/minute", PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(app)
    owner = app.test_client()
    assert sign_in(owner).status_code == 302
    secret, _ = turn_on(owner)
    browser = app.test_client()
    assert password_step(browser).status_code == 303
    for _ in range(3):
        assert code_step(browser, "000000").status_code == 200
    blocked = code_step(browser, pyotp.TOTP(secret).now())
    assert blocked.status_code == 429 and "Too many wrong codes" in words(blocked)


def test_right_passwords_before_a_code_do_not_count_toward_the_sign_in_throttle(app_factory):
    app = app_factory(PORTAL_LOGIN_LIMIT_PER_ACCOUNT="2/minute", PORTAL_LOGIN_LIMIT_PER_ADDRESS="100/minute")
    make_user(app)
    owner = app.test_client()
    assert sign_in(owner).status_code == 302
    turn_on(owner)
    for _ in range(3):
        assert password_step(app.test_client()).status_code == 303


def test_the_operator_can_turn_it_off_for_a_user_who_lost_the_app(app, signed_in, runner):
    turn_on(signed_in)
    result = runner.invoke(args=["users", "reset-two-factor", "ann@acme.example"])
    assert result.exit_code == 0 and "Two-factor sign-in is off for ann@acme.example" in result.output
    assert signed_in.get("/portal/keys").status_code == 302              # their sessions ended
    assert sign_in(app.test_client()).status_code == 302                 # the password alone again
    assert runner.invoke(args=["users", "reset-two-factor", "nobody@acme.example"]).exit_code != 0
