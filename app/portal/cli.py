"""`flask --app wsgi users ...` and `partners ...`: operators manage portal accounts and tier caps."""

from __future__ import annotations

import json
import sys

import click
from flask.cli import AppGroup
from sqlalchemy import func, select

from ..extensions import db
from ..keys.brand import BrandError
from ..keys.cli import brand_changes, brand_options
from ..keys.service import KeyInputError, key_limit, partner_settings, set_brand, set_embed_origins
from ..models import ApiKey, Partner, User, iso_utc
from . import sessions, twofactor
from .accounts import (
    TIERS,
    AccountError,
    create_user,
    disable_user,
    enable_user,
    find_partner,
    find_user,
    set_max_keys,
    set_max_tier,
    set_password,
)

users_cli = AppGroup("users", help="Create and manage partner portal users.")
partners_cli = AppGroup("partners", help="List partners, set their limits, and set the brand and embed origins every "
                                        "key of a partner uses.")


def _read_password(from_stdin: bool) -> str:
    """The password from standard input (one line; the trailing newline is not part of it), or a hidden prompt."""
    if not from_stdin:
        return click.prompt("Password", hide_input=True, confirmation_prompt=True)
    text = sys.stdin.read()
    password = text[:-1] if text.endswith("\n") else text
    password = password[:-1] if password.endswith("\r") else password
    if "\n" in password or "\r" in password:
        raise click.ClickException("give the password as a single line on standard input")
    return password


def _load_user(email: str) -> User:
    user = find_user(email)
    if user is None:
        raise click.ClickException(f"no user with email {email.strip().lower()}")
    return user


def _user_row(user: User) -> dict:
    return {"id": user.id, "email": user.email, "partner": user.partner.name, "createdAt": iso_utc(user.created_at),
            "lastLoginAt": iso_utc(user.last_login_at), "disabledAt": iso_utc(user.disabled_at)}


@users_cli.command("create")
@click.option("--partner", required=True, help="Partner name; created if new.")
@click.option("--email", required=True, help="Sign-in email (stored lowercased).")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input instead of prompting.")
def create(partner, email, password_stdin):
    """Create a portal user for a partner."""
    password = _read_password(password_stdin)
    try:
        user, new_partner = create_user(partner, email, password)
    except AccountError as error:
        db.session.rollback()
        raise click.ClickException(str(error)) from None
    db.session.commit()
    if new_partner:
        click.echo(f"Created partner {user.partner.name!r} (it had no keys or users yet).")
    click.echo(f"Created user {user.email} for partner {user.partner.name!r}; they sign in at /portal/login.")


@users_cli.command("list")
@click.option("--partner", default=None, help="Only this partner's users.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
def list_users(partner, as_json):
    """List portal users (never their passwords)."""
    query = select(User).join(User.partner).order_by(Partner.name, User.email)
    if partner:
        query = query.where(Partner.name == partner)
    rows = [_user_row(u) for u in db.session.scalars(query)]
    if as_json:
        click.echo(json.dumps(rows))
        return
    for r in rows:
        state = f"disabled {r['disabledAt']}" if r["disabledAt"] else "active"
        click.echo(f"{r['id']:>4}  {r['email']}  {r['partner']}  last sign-in {r['lastLoginAt'] or 'never'}  {state}")


@users_cli.command("disable")
@click.argument("email")
def disable(email):
    """Refuse the user's sign-in; their open sessions end at once."""
    user = _load_user(email)
    disable_user(user)
    db.session.commit()
    click.echo(f"Disabled {user.email}.")


@users_cli.command("enable")
@click.argument("email")
def enable(email):
    """Let a disabled user sign in again."""
    user = _load_user(email)
    enable_user(user)
    db.session.commit()
    click.echo(f"Enabled {user.email}.")


@users_cli.command("reset-password")
@click.argument("email")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input instead of prompting.")
def change_password(email, password_stdin):
    """Give a user a new password (a forgotten one, without mail); their open sessions end."""
    user = _load_user(email)
    try:
        set_password(user, _read_password(password_stdin))
    except AccountError as error:
        db.session.rollback()
        raise click.ClickException(str(error)) from None
    db.session.commit()
    click.echo(f"Changed the password of {user.email}.")


users_cli.add_command(change_password, "set-password")   # its first name, kept for scripts that use it


@users_cli.command("reset-two-factor")
@click.argument("email")
def reset_two_factor(email):
    """Turn a user's two-factor sign-in off (a lost phone and no recovery code left); their sessions end."""
    user = _load_user(email)
    twofactor.turn_off(user)
    sessions.end_all(user.id)
    db.session.commit()
    click.echo(f"Two-factor sign-in is off for {user.email}; they sign in with their password and can turn it on "
               f"again on their account page.")


@partners_cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
def list_partners(as_json):
    """Partners with their tier cap, their key limit and how many keys and users they have."""
    keys = select(func.count(ApiKey.id)).where(ApiKey.partner_id == Partner.id).scalar_subquery()
    users = select(func.count(User.id)).where(User.partner_id == Partner.id).scalar_subquery()
    rows = [{"id": partner.id, "name": partner.name, "maxTier": partner.max_tier, "maxKeys": key_limit(partner),
             "keys": nkeys, "users": nusers}
            for partner, nkeys, nusers in db.session.execute(select(Partner, keys, users).order_by(Partner.name))]
    if as_json:
        click.echo(json.dumps(rows))
        return
    for r in rows:
        click.echo(f"{r['id']:>4}  {r['name']}  max tier {r['maxTier']}  up to {r['maxKeys']} active keys per mode  "
                   f"{r['keys']} keys  {r['users']} users")


@partners_cli.command("set-max-keys")
@click.argument("name")
@click.argument("count", type=int)
def set_partner_max_keys(name, count):
    """Set how many active live keys (and, apart, test keys) the partner may hold; each key has its own hourly
    budget, so this caps the partner's budget. Default: PARTNER_MAX_KEYS."""
    try:
        partner = set_max_keys(name, count)
    except AccountError as error:
        db.session.rollback()
        raise click.ClickException(str(error)) from None
    db.session.commit()
    click.echo(f"Partner {partner.name!r} may now hold up to {partner.max_keys} active live keys and "
               f"{partner.max_keys} active test keys.")


@partners_cli.command("set-max-tier")
@click.argument("name")
@click.argument("tier", type=click.Choice(TIERS))
def set_partner_max_tier(name, tier):
    """Set the highest tier the partner's portal users may choose (the keys CLI is not limited by it)."""
    try:
        partner = set_max_tier(name, tier)
    except AccountError as error:
        db.session.rollback()
        raise click.ClickException(str(error)) from None
    db.session.commit()
    click.echo(f"Partner {partner.name!r} may now choose tiers up to {partner.max_tier} in the portal.")


def _load_partner(name: str) -> Partner:
    partner = find_partner(name)
    if partner is None:
        raise click.ClickException(f"no partner named {name!r} (`flask partners list` shows them)")
    return partner


def _show_partner(partner: Partner, as_json: bool, prefix: str = "") -> None:
    settings = partner_settings(partner)
    if as_json:
        click.echo(json.dumps(settings))
        return
    brand = settings["brand"]
    click.echo(f"{prefix}Partner {partner.name!r}: brand name {brand['name'] or '(none)'}, accent "
               f"{brand['color'] or '(default)'}, {'a logo' if brand['logo'] else 'no logo'}, "
               f"{'white-label' if brand['whiteLabel'] else 'not white-label'}; embed pages may be framed by "
               f"{', '.join(settings['embedOrigins']) or 'any site'}.")


@partners_cli.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def show_partner(name, as_json):
    """The brand and embed origins every key of the partner uses."""
    _show_partner(_load_partner(name), as_json)


@partners_cli.command("update")
@click.argument("name")
@click.option("--embed-origin", "embed_origins", multiple=True,
              help="Replace the sites allowed to frame the partner's embed pages (repeatable), e.g."
                   " https://portal.example.com.")
@click.option("--any-embed-origin", is_flag=True, help="Let any site frame the partner's embed pages.")
@brand_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def update_partner(name, embed_origins, any_embed_origin, brand_name, brand_color, logo, clear_logo, white_label,
                   as_json):
    """Set the brand on the pages and PDFs of every key of the partner, and the sites that may frame them."""
    if embed_origins and any_embed_origin:
        raise click.UsageError("--embed-origin and --any-embed-origin cannot be used together.")
    brand = brand_changes(brand_name, brand_color, logo, clear_logo, white_label)
    partner = _load_partner(name)
    try:
        set_brand(partner, **brand)
        if embed_origins or any_embed_origin:
            set_embed_origins(partner, list(embed_origins))
    except (KeyInputError, BrandError) as error:
        db.session.rollback()
        raise click.ClickException(str(error)) from None
    db.session.commit()
    _show_partner(partner, as_json, prefix="Updated. ")
