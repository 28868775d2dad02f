"""Signed embeds in the portal: the key form's "Require signed embed links" checkbox, the embed secret shown once
with a new key, "Rotate embed secret" (confirmation, then the new secret once), and the keys page's setting."""

from __future__ import annotations

import html as html_module
import re

from app.extensions import db
from app.keys.crypto import decrypt_secret
from app.models import ApiKey
from tests.portal import follow, page_token

HINT = "Report pages and PDFs open only at links your server signed with the key’s embed secret"


def text(response) -> str:
    return html_module.unescape(response.get_data(as_text=True))


def post_form(client, path: str, data: dict | None = None, token_from: str | None = None):
    return client.post(path, data={**(data or {}), "csrf_token": page_token(client, token_from or path)})


def key_fields(**fields) -> dict:
    return {"name": "Production", "tier": "standard", "frameworks": "", "webhook_url": "", "day_rate": "",
            "currency": "", **fields}


def stored(app, key_id: int) -> tuple[bool, str | None]:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        return key.require_signed_embeds, key.embed_secret_encrypted


def checkbox(page: str) -> str:
    return re.search(r'<input[^>]*\bid="require_signed_embeds"[^>]*>', page).group(0)


def test_a_new_key_shows_its_embed_secret_once_and_can_require_signed_links(app, signed_in):
    page = text(signed_in.get("/portal/keys/new"))
    assert 'type="checkbox"' in checkbox(page) and " checked" not in checkbox(page) and HINT in page
    response = follow(signed_in, post_form(signed_in, "/portal/keys/new", key_fields(require_signed_embeds="y")))
    html = text(response)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    secret = re.search(r"embsec_[0-9a-f]{64}", html).group(0)
    assert html.count(secret) == 1 and "Embed secret" in html and re.search(r"whsec_[0-9a-f]{64}", html)
    with app.app_context():
        key = db.session.query(ApiKey).one()
        assert key.require_signed_embeds is True and decrypt_secret(key.embed_secret_encrypted) == secret
    listing = text(signed_in.get("/portal/keys"))
    assert secret not in listing and "Signed links only" in listing


def test_the_edit_form_turns_the_requirement_on_and_off(app, signed_in, make_key):
    key_id = make_key("Acme Security", name="Production").key.id
    assert "Permanent links" in text(signed_in.get("/portal/keys"))
    path = f"/portal/keys/{key_id}/edit"
    response = post_form(signed_in, path, key_fields(require_signed_embeds="y"))
    assert response.status_code == 302, text(response)
    assert stored(app, key_id)[0] is True
    assert " checked" in checkbox(text(signed_in.get(path)))
    assert post_form(signed_in, path, key_fields()).status_code == 302     # unticked: not sent
    assert stored(app, key_id)[0] is False


def test_a_key_without_an_embed_secret_is_told_to_rotate_one_first(app, signed_in, make_key):
    key_id = make_key("Acme Security", name="Production").key.id
    with app.app_context():
        db.session.get(ApiKey, key_id).embed_secret_encrypted = None
        db.session.commit()
    response = post_form(signed_in, f"/portal/keys/{key_id}/edit", key_fields(require_signed_embeds="y"))
    assert response.status_code == 200
    assert "This key has no embed secret yet: rotate its embed secret to get one" in text(response)
    assert stored(app, key_id) == (False, None)


def test_rotating_the_embed_secret_asks_first_then_shows_only_the_new_secret_once(app, signed_in, make_key):
    issued = make_key("Acme Security", name="Production")
    listing = text(signed_in.get("/portal/keys"))
    assert f"/portal/keys/{issued.key.id}/rotate-embed-secret" in listing
    path = f"/portal/keys/{issued.key.id}/rotate-embed-secret"
    confirm = text(signed_in.get(path))
    assert "Rotate the embed secret of Production" in confirm and "refused from now on" in confirm
    assert stored(app, issued.key.id)[1] is not None
    response = follow(signed_in, post_form(signed_in, path))
    html = text(response)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    assert "New embed secret" in html
    secret = re.search(r"embsec_[0-9a-f]{64}", html).group(0)
    assert secret != issued.embed_secret and html.count(secret) == 1
    assert not re.search(r"(crs|whsec)_[0-9a-f]{64}", html)
    with app.app_context():
        assert decrypt_secret(stored(app, issued.key.id)[1]) == secret
    assert secret not in text(signed_in.get("/portal/keys"))


def test_another_partners_key_and_a_revoked_key_cannot_be_rotated(app, signed_in, make_key):
    theirs = make_key("Globex", name="Theirs")
    assert signed_in.get(f"/portal/keys/{theirs.key.id}/rotate-embed-secret").status_code == 404
    mine = make_key("Acme Security", name="Old")
    with app.app_context():
        from app.models import utcnow
        db.session.get(ApiKey, mine.key.id).revoked_at = utcnow()
        db.session.commit()
    assert signed_in.get(f"/portal/keys/{mine.key.id}/rotate-embed-secret").status_code == 302
    token = page_token(signed_in, "/portal/keys/new")
    response = signed_in.post(f"/portal/keys/{mine.key.id}/rotate-embed-secret", data={"csrf_token": token})
    assert response.status_code == 302 and stored(app, mine.key.id)[1] is not None
    with app.app_context():
        assert decrypt_secret(stored(app, mine.key.id)[1]) == mine.embed_secret   # unchanged
