"""An owner invites a second user of the same partner: the link is shown once, works once and for 7 days, and the
person who opens it chooses a password and is signed in to the same partner as a member."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import User, utcnow
from tests.portal import make_user, page_token, sign_in, words

PASSWORD = "another long passphrase here"


@pytest.fixture
def owner(app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    return client


def invite(client, email="bo@acme.example"):
    token = page_token(client, "/portal/account")
    return client.post("/portal/team/invite", data={"email": email, "csrf_token": token})


def link_path(response_page: str) -> str:
    return re.search(r"https?://[^/<\s]+(/portal/invite/[A-Za-z0-9_-]+)", response_page).group(1)


def accept(client, path, password=PASSWORD, again=None):
    return client.post(path, data={"new_password": password, "confirm_password": again or password,
                                   "csrf_token": page_token(client, path)})


def test_an_invited_member_joins_the_same_partner_with_a_password_of_their_own(app, owner, make_key):
    make_key("Acme Security", name="Production")
    response = invite(owner)
    assert response.status_code == 303
    page = owner.get(response.headers["Location"]).get_data(as_text=True)
    path = link_path(page)
    assert "bo@acme.example" in words(owner.get("/portal/account")) and "/portal/invite/" not in \
        owner.get("/portal/account").get_data(as_text=True)                        # shown once
    newcomer = app.test_client()
    assert "Join Acme Security" in words(newcomer.get(path))
    joined = accept(newcomer, path)
    assert joined.status_code == 303 and joined.headers["Location"] == "/portal/keys"
    assert "Production" in words(newcomer.get("/portal/keys"))                      # the partner's keys
    with app.app_context():                                                          # joining was a sign-in
        assert db.session.query(User).filter_by(email="bo@acme.example").one().last_login_at is not None
    assert newcomer.get(path).status_code == 404                                    # the link worked once
    assert sign_in(app.test_client(), "bo@acme.example", PASSWORD).status_code == 302
    with app.app_context():
        member = db.session.query(User).filter_by(email="bo@acme.example").one()
        assert member.role == "member" and member.invite_token_hash is None
    shown = words(newcomer.get("/portal/account"))
    assert "Owners of the account can invite more people." in shown
    assert newcomer.post("/portal/team/invite", data={"email": "cy@acme.example", "csrf_token": page_token(
        newcomer, "/portal/account")}).status_code == 200
    with app.app_context():
        assert db.session.query(User).filter_by(email="cy@acme.example").count() == 0


def test_before_accepting_the_invited_email_cannot_sign_in_and_an_old_link_fails(app, owner):
    path = link_path(owner.get(invite(owner).headers["Location"]).get_data(as_text=True))
    assert sign_in(app.test_client(), "bo@acme.example", "!invited").status_code == 200
    with app.app_context():
        member = db.session.query(User).filter_by(email="bo@acme.example").one()
        member.invite_expires_at = utcnow() - timedelta(minutes=1)
        db.session.commit()
    answer = app.test_client().get(path)
    assert answer.status_code == 404 and "This invitation does not work" in words(answer)


@pytest.mark.parametrize(("email", "message"), [("ann@acme.example", "has an account already"),
                                                ("not an email", "")])
def test_a_refused_invitation_says_why(owner, email, message):
    response = invite(owner, email)
    assert response.status_code == 200 and 'aria-invalid="true"' in response.get_data(as_text=True)
    assert message in words(response)


def test_a_short_or_mismatched_password_is_refused_on_the_invitation_page(app, owner):
    path = link_path(owner.get(invite(owner).headers["Location"]).get_data(as_text=True))
    newcomer = app.test_client()
    assert "Use 12 to 1,024 characters." in words(accept(newcomer, path, "short"))
    assert "The two passwords differ." in words(accept(newcomer, path, PASSWORD, PASSWORD + "x"))
    assert newcomer.get("/portal/keys").status_code == 302                          # still signed out
