"""The `users` and `partners` CLI groups, with which operators open the portal to a partner's staff."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from app.models import ApiKey, Partner, User
from tests.portal import PASSWORD, make_user, sign_in


def users(runner, *args, input=None):
    return runner.invoke(args=["users", *args], input=input)


def create(runner, email="Ann@Acme.example", partner="Acme Security", password=PASSWORD):
    return users(runner, "create", "--partner", partner, "--email", email, "--password-stdin", input=password + "\n")


def test_create_reads_the_password_from_stdin_and_stores_only_its_argon2id_hash(runner, db, client):
    result = create(runner)
    assert result.exit_code == 0, result.output
    assert "Created user ann@acme.example for partner 'Acme Security'" in result.output
    assert "Created partner 'Acme Security'" in result.output  # a new partner is said out loud: typos show
    assert PASSWORD not in result.output
    user = db.session.scalar(select(User))
    assert user.email == "ann@acme.example"  # stored lowercased
    # Argon2id with OWASP's parameters (issue 31: scrypt with N=2^15 was below OWASP's floor)
    assert user.password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$") and PASSWORD not in user.password_hash
    assert user.partner.name == "Acme Security" and user.partner.max_tier == "standard"
    assert user.disabled_at is None and user.last_login_at is None
    # The trailing newline of the input is not part of the password; the email is matched in any case.
    assert sign_in(client, "ANN@acme.EXAMPLE ", PASSWORD).status_code == 302
    db.session.expire_all()
    assert db.session.scalar(select(User)).last_login_at is not None


def test_create_for_an_existing_partner_does_not_announce_a_new_one(runner, make_key):
    make_key("Acme Security")
    result = create(runner)
    assert result.exit_code == 0 and "Created partner" not in result.output


def test_create_prompts_for_the_password_without_the_flag(runner, db):
    result = users(runner, "create", "--partner", "acme", "--email", "bo@acme.example",
                   input=f"{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert PASSWORD not in result.output  # the prompt hides the input
    assert db.session.scalar(select(User.email)) == "bo@acme.example"


def test_create_refuses_bad_input(runner, db):
    assert create(runner).exit_code == 0
    cases = [(dict(email="ann@acme.example"), "exists already"),
             (dict(email="not-an-email"), "not an email address"),
             (dict(email="bo@acme.example", password="short"), "at least 12 characters"),
             (dict(email="bo@acme.example", password="x" * 1025), "at most 1024"),
             (dict(email="bo@acme.example", partner="  "), "partner name must not be empty")]
    for kwargs, message in cases:
        result = create(runner, **kwargs)
        assert result.exit_code != 0 and message in result.output, (kwargs, result.output)
    two_lines = users(runner, "create", "--partner", "a", "--email", "c@a.example", "--password-stdin",
                      input=f"{PASSWORD}\nsecond line\n")
    assert two_lines.exit_code != 0 and "single line" in two_lines.output
    assert db.session.scalar(select(User.email).where(User.email != "ann@acme.example")) is None


def test_list_shows_users_without_secrets(runner):
    create(runner)
    create(runner, email="bo@globex.example", partner="Globex")
    text = users(runner, "list")
    assert text.exit_code == 0
    assert "ann@acme.example" in text.output and "bo@globex.example" in text.output and "active" in text.output
    rows = json.loads(users(runner, "list", "--json").output)
    assert [r["email"] for r in rows] == ["ann@acme.example", "bo@globex.example"]
    assert set(rows[0]) == {"id", "email", "partner", "createdAt", "lastLoginAt", "disabledAt"}
    only = json.loads(users(runner, "list", "--partner", "Globex", "--json").output)
    assert [r["email"] for r in only] == ["bo@globex.example"]
    assert "scrypt" not in text.output and PASSWORD not in text.output


def test_disable_refuses_sign_in_and_ends_open_sessions(runner, app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    assert client.get("/portal/keys").status_code == 200
    result = users(runner, "disable", "ANN@acme.example")
    assert result.exit_code == 0 and "Disabled ann@acme.example" in result.output
    assert client.get("/portal/keys").headers["Location"].startswith("/portal/login")  # the open session ended
    response = sign_in(client)
    assert response.status_code == 200 and "The email or password is not right" in response.get_data(as_text=True)
    assert "disabled" in users(runner, "list").output
    assert users(runner, "enable", "ann@acme.example").exit_code == 0
    assert sign_in(client).status_code == 302
    assert users(runner, "disable", "nobody@acme.example").exit_code != 0


def test_a_session_ended_by_disabling_stays_ended_when_the_user_is_enabled_again(runner, app, client):
    make_user(app)
    assert sign_in(client).status_code == 302
    assert users(runner, "disable", "ann@acme.example").exit_code == 0
    assert users(runner, "enable", "ann@acme.example").exit_code == 0  # before the session made any request
    assert client.get("/portal/keys").headers["Location"].startswith("/portal/login")
    assert sign_in(client).status_code == 302  # signing in again works


@pytest.mark.parametrize("command", ["reset-password", "set-password"])   # the name, and the first one
def test_reset_password_ends_the_other_sessions(runner, app, client, command):
    make_user(app)
    sign_in(client)
    other = app.test_client()
    sign_in(other)
    result = users(runner, command, "ann@acme.example", "--password-stdin", input="a brand new passphrase\n")
    assert result.exit_code == 0, result.output
    assert client.get("/portal/keys").status_code == 302
    assert other.get("/portal/keys").status_code == 302
    assert sign_in(client).status_code == 200  # the old password no longer works
    assert sign_in(client, password="a brand new passphrase").status_code == 302


def test_partners_list_and_set_max_tier(runner, db, make_key):
    make_key("Acme Security")
    make_key("Acme Security")
    create(runner)
    listed = json.loads(runner.invoke(args=["partners", "list", "--json"]).output)
    assert listed == [{"id": listed[0]["id"], "name": "Acme Security", "maxTier": "standard", "maxKeys": 5, "keys": 2,
                       "users": 1}]
    result = runner.invoke(args=["partners", "set-max-tier", "Acme Security", "enterprise"])
    assert result.exit_code == 0 and "up to enterprise" in result.output
    assert db.session.scalar(select(Partner.max_tier)) == "enterprise"
    assert "max tier enterprise" in runner.invoke(args=["partners", "list"]).output
    assert runner.invoke(args=["partners", "set-max-tier", "Nobody", "trial"]).exit_code != 0
    assert runner.invoke(args=["partners", "set-max-tier", "Acme Security", "platinum"]).exit_code != 0


def test_the_keys_cli_is_not_bound_by_the_cap(runner, make_key):
    make_key("Acme Security")  # capped at the default, standard
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--tier", "enterprise", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["rateLimit"] == 1000


def test_a_partners_keys_are_capped_so_its_budget_does_not_grow_with_them(runner, app, db):
    """Issue 31: each key has its own hourly limit, so 15 trial keys made 40 requests a minute with no 429."""
    def create(*extra):
        return runner.invoke(args=["keys", "create", "--partner", "Acme Security", "--tier", "trial", *extra])
    for _ in range(5):
        assert create().exit_code == 0
    refused = create()
    assert refused.exit_code != 0
    assert "Acme Security already has 5 active live keys, the most it may hold: each key has its own hourly " \
           "request budget, so more keys would multiply it. Revoke a live key that is no longer used, or ask for a " \
           "higher limit." in refused.output and "flask partners set-max-keys 'Acme Security' N" in refused.output
    assert db.session.scalar(select(func.count(ApiKey.id))) == 5
    assert create("--test").exit_code == 0            # test keys are counted apart
    first = db.session.scalar(select(ApiKey.id).order_by(ApiKey.id))
    assert runner.invoke(args=["keys", "revoke", str(first)]).exit_code == 0
    assert create().exit_code == 0                    # a revoked key frees its place
    assert create().exit_code != 0
    result = runner.invoke(args=["partners", "set-max-keys", "Acme Security", "8"])
    assert result.exit_code == 0 and "up to 8 active live keys" in result.output
    assert create().exit_code == 0
    assert "up to 8 active keys per mode" in runner.invoke(args=["partners", "list"]).output
    assert runner.invoke(args=["partners", "set-max-keys", "Acme Security", "0"]).exit_code != 0
    assert runner.invoke(args=["partners", "set-max-keys", "Nobody", "3"]).exit_code != 0


def test_an_old_scrypt_hash_still_signs_in_and_is_upgraded_to_argon2id_then(db, client, app):
    """Accounts made before Argon2id keep working; their hash is replaced at the next correct sign-in."""
    from werkzeug.security import generate_password_hash
    user_id = make_user(app)
    user = db.session.get(User, user_id)
    user.password_hash = generate_password_hash(PASSWORD, method="scrypt")
    db.session.commit()
    assert sign_in(client, password="not the password at all").status_code == 200
    db.session.expire_all()
    assert db.session.get(User, user_id).password_hash.startswith("scrypt:")   # a wrong password changes nothing
    assert sign_in(client).status_code == 302
    db.session.expire_all()
    assert db.session.get(User, user_id).password_hash.startswith("$argon2id$")
    assert client.get("/portal/keys").status_code == 200                       # the session made at sign-in holds
    from app.portal.accounts import authenticate
    assert authenticate("ann@acme.example", PASSWORD).id == user_id             # and the new hash checks out
    assert authenticate("ann@acme.example", PASSWORD + "x") is None
