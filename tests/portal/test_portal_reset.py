"""Password reset: by email through a real SMTP server on loopback when MAIL_SERVER is set (a link that works once,
for an hour, and says nothing about which emails have accounts); without mail, the pages say the operator resets
passwords with `flask users reset-password`."""

from __future__ import annotations

import re
import time

import itsdangerous.timed

from tests.portal import PASSWORD, make_user, page_token, sign_in, words
from tests.support.processes import wait_until
from tests.support.smtp import SmtpSink

NEW = "a brand new passphrase for ann"


def ask(client, email):
    return client.post("/portal/forgot", data={"email": email, "csrf_token": page_token(client, "/portal/forgot")})


def choose(client, path, password=NEW):
    return client.post(path, data={"new_password": password, "confirm_password": password,
                                   "csrf_token": page_token(client, path)})


def test_a_link_by_email_resets_the_password_once(app_factory, monkeypatch):
    with SmtpSink() as smtp:
        app = app_factory(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp.port, MAIL_USE_TLS=False,
                          MAIL_FROM="portal@reports.example")
        make_user(app)
        client = app.test_client()
        assert "We email you a link" in words(client.get("/portal/login"))
        response = ask(client, "ANN@acme.example ")
        assert response.status_code == 303
        assert "a link to choose a new password is on its way" in words(client.get(response.headers["Location"]))
        [message] = wait_until(lambda: smtp.messages)     # sent from a thread: the answer never waits for it
        assert message["To"] == "ann@acme.example" and message["From"] == "portal@reports.example"
        path = re.search(r"https?://[^/\s]+(/portal/reset/\S+)", message.get_payload(decode=True).decode()).group(1)

        other = app.test_client()
        assert sign_in(other).status_code == 302                       # a browser signed in with the old password
        answer = choose(client, path)
        assert answer.status_code == 303 and client.get("/portal/keys").status_code == 200   # signed in now
        assert other.get("/portal/keys").headers["Location"].startswith("/portal/login")      # signed out
        assert sign_in(app.test_client(), password=NEW).status_code == 302
        assert app.test_client().get(path).status_code == 404          # the link worked once

        # An unknown email: the same answer, and no email.
        assert ask(app.test_client(), "nobody@acme.example").status_code == 303
        time.sleep(0.5)
        assert len(smtp.messages) == 1

        # A link over an hour old no longer works.
        ask(app.test_client(), "ann@acme.example")
        wait_until(lambda: len(smtp.messages) == 2)
        late = re.search(r"(/portal/reset/\S+)", smtp.messages[-1].get_payload(decode=True).decode()).group(1)
        later = time.time() + 3601
        monkeypatch.setattr(itsdangerous.timed, "time", type("T", (), {"time": staticmethod(lambda: later)}))
        assert app.test_client().get(late).status_code == 404


def test_without_mail_the_pages_say_the_operator_resets_passwords(app, client):
    make_user(app)
    assert "sets a new one for you" in words(client.get("/portal/login"))
    page = words(client.get("/portal/forgot"))
    assert "flask users reset-password YOUR-EMAIL" in page and "Email me a link" not in page
    assert client.get("/portal/reset/not-a-token").status_code == 404
    assert sign_in(client, password=PASSWORD).status_code == 302


def test_asking_for_links_is_throttled_per_address(app_factory):
    with SmtpSink() as smtp:
        app = app_factory(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp.port, MAIL_USE_TLS=False,
                          PORTAL_LOGIN_LIMIT_PER_ADDRESS="2/minute")
        make_user(app)
        client = app.test_client()
        assert ask(client, "ann@acme.example").status_code == 303
        assert ask(client, "ann@acme.example").status_code == 303
        blocked = ask(client, "ann@acme.example")
        assert blocked.status_code == 429 and "Too many requests from here." in words(blocked)
        wait_until(lambda: len(smtp.messages) == 2)
        time.sleep(0.5)
        assert len(smtp.messages) == 2
