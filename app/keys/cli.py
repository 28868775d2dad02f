"""`flask --app wsgi keys ...`: operators issue and manage partner keys."""

from __future__ import annotations

import json

import click
from cryptography.fernet import InvalidToken
from flask.cli import AppGroup
from sqlalchemy import func, select

from ..extensions import db
from ..models import ApiKey
from ..webhooks.urls import unresolved_warning
from .brand import MAX_LOGO_BYTES, BrandError, normalize_color, normalize_name, validate_logo
from .crypto import reencrypt_secret
from .service import (
    CURRENCIES,
    TIER_LIMITS,
    KeyInputError,
    KeyLimitError,
    issue_api_key,
    key_settings,
    normalize_currency,
    normalize_day_rate,
    report_settings,
    revoke_api_key,
    rotate_embed_secret,
    rotate_webhook_secret,
    set_report_settings,
    update_api_key,
)

keys_cli = AppGroup("keys", help="Create and manage partner API keys.")
TIER = click.Choice(list(TIER_LIMITS))


def _load_key(key_id: int) -> ApiKey:
    key = db.session.get(ApiKey, key_id)
    if key is None:
        raise click.ClickException(f"no key with id {key_id}")
    return key


def _created_json(issued) -> dict:
    key = issued.key
    return {"id": key.id, "partner": key.partner.name, "apiKey": issued.api_key,
            "webhookSecret": issued.webhook_secret, "embedSecret": issued.embed_secret, "tier": key.tier,
            "rateLimit": key.rate_limit, "frameworks": list(key.frameworks), "webhookUrl": key.webhook_url,
            "livemode": bool(key.livemode),
            **report_settings(key), "requireSignedEmbeds": bool(key.require_signed_embeds)}


# Brand options are checked as they are parsed, so a bad one stops the command before it touches
# the database, naming the option: "Invalid value for '--brand-color': Accent colour must be ...".
def _checked(check):
    def callback(_ctx, _param, value):
        if value is None:
            return None
        try:
            return check(value)
        except BrandError as error:
            raise click.BadParameter(str(error)) from None

    return callback


def _brand_name(text: str) -> str:
    return normalize_name(text) or ""  # "" (not None) so that an empty name still removes the old one


def _brand_color(text: str) -> str:
    return normalize_color(text) if text.strip() else ""


def _read_logo(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_LOGO_BYTES + 1)  # one byte over is enough to say it is too big
    except OSError as error:
        raise click.BadParameter(f"cannot read {path!r}: {error.strerror}") from None
    validate_logo(data)
    return data


def brand_options(command):
    """--brand-name, --brand-color, --logo, --clear-logo and --white-label/--no-white-label."""
    options = (
        click.option("--brand-name", callback=_checked(_brand_name),
                     help='Partner name shown as "Prepared by NAME" on the client pages (\'\' removes it).'),
        click.option("--brand-color", metavar="HEX", callback=_checked(_brand_color),
                     help="Accent colour, #rrggbb or #rgb ('' removes it)."),
        click.option("--logo", metavar="FILE", type=click.Path(exists=True, dir_okay=False),
                     callback=_checked(_read_logo), help="PNG or SVG logo file, at most 64 KB."),
        click.option("--clear-logo", is_flag=True, help="Remove the logo."),
        click.option("--white-label/--no-white-label", default=None,
                     help="Hide every mention of this service on the client pages."),
    )
    for option in reversed(options):
        command = option(command)
    return command


# The report settings are checked as they are parsed too: "Invalid value for '--day-rate': Day rate must be ...".
def _checked_setting(check):
    def callback(_ctx, _param, value):
        if value is None:
            return None
        try:
            checked = check(value)
        except KeyInputError as error:
            message = str(error)
            raise click.BadParameter(message[:1].upper() + message[1:]) from None
        return "" if checked is None else checked   # "" (not None): an empty value still clears the old one

    return callback


def report_options(command):
    """--day-rate, --currency and --show-methodology/--hide-methodology."""
    options = (
        click.option("--day-rate", metavar="N", callback=_checked_setting(normalize_day_rate),
                     help="Whole units of the currency per person-day (1 to 1,000,000) that the CFO's, CEO's,"
                          " board's and owner's reports price effort at ('' removes it: a documented default"
                          " range)."),
        click.option("--currency", metavar="CODE", callback=_checked_setting(normalize_currency),
                     help=f"Currency of the day rate: {', '.join(CURRENCIES)} (default USD; '' removes it)."),
        click.option("--show-methodology/--hide-methodology", default=None,
                     help="Show the sales methodology's name on the report pages and PDFs (hidden by default)."),
    )
    for option in reversed(options):
        command = option(command)
    return command


def _report_changes(day_rate, currency, show_methodology) -> dict:
    changes = {"show_methodology": show_methodology}
    if day_rate is not None:
        changes["day_rate"] = day_rate or None
    if currency is not None:
        changes["currency"] = currency or None
    return changes


def brand_changes(brand_name, brand_color, logo, clear_logo, white_label) -> dict:
    """Keyword arguments for `set_brand` from `brand_options`."""
    if logo is not None and clear_logo:
        raise click.UsageError("--logo and --clear-logo cannot be used together.")
    changes = {"white_label": white_label}
    if brand_name is not None:
        changes["name"] = brand_name
    if brand_color is not None:
        changes["color"] = brand_color
    if logo is not None or clear_logo:
        changes["logo"] = logo
    return changes


def _moved(_ctx, param, value):
    if value:
        raise click.UsageError(f"{param.opts[0]} is set for the partner now, not per key: every key of a partner shows "
                               f"its clients the same brand and may be framed by the same sites. Use "
                               f"`flask partners update PARTNER {param.opts[0]} ...`.")


def moved_to_partner(command):
    """The per-key brand and embed-origin options of earlier releases, hidden: they say where the setting went."""
    for flag in ("--embed-origin", "--any-embed-origin", "--brand-name", "--brand-color", "--logo", "--clear-logo",
                 "--white-label", "--no-white-label"):
        takes_value = flag in ("--embed-origin", "--brand-name", "--brand-color", "--logo")
        command = click.option(flag, "moved_" + flag.strip("-").replace("-", "_"), hidden=True, expose_value=False,
                               callback=_moved, is_flag=not takes_value, multiple=flag == "--embed-origin",
                               is_eager=True)(command)
    return command


SIGNED_EMBEDS = click.option(
    "--require-signed-embeds/--no-require-signed-embeds", default=None,
    help="Answer embed pages and PDFs only at signed, unexpired URLs (signed with the key's embed secret);"
         " off by default: the tokens alone open them.")


def _warn_unresolved(url: str | None) -> None:
    warning = unresolved_warning(url)
    if warning:
        click.echo(f"Warning: {warning}", err=True)


@keys_cli.command("create")
@click.option("--partner", required=True, help="Partner name; created if new.")
@click.option("--name", default=None, help="A label for this key.")
@click.option("--tier", type=TIER, default="standard", show_default=True)
@click.option("--rate-limit", type=click.IntRange(min=1), default=None, help="Requests per hour; overrides the tier.")
@click.option("--framework", "frameworks", multiple=True, help="Allow only this framework (repeatable).")
@click.option("--webhook-url", default=None)
@report_options
@SIGNED_EMBEDS
@click.option("--test", "test_mode", is_flag=True,
              help="A test key: its assessments are real but never billed, and only test keys see them.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@moved_to_partner
def create_key(partner, name, tier, rate_limit, frameworks, webhook_url, day_rate, currency, show_methodology,
               require_signed_embeds, test_mode, as_json):
    """Create a key; the key, its webhook secret and its embed secret are shown only now. Its pages show the
    partner's brand and may be framed by the partner's embed origins (`flask partners update`)."""
    report = _report_changes(day_rate, currency, show_methodology)
    try:
        issued = issue_api_key(partner, tier=tier, rate_limit=rate_limit, frameworks=list(frameworks),
                               webhook_url=webhook_url, name=name,
                               livemode=not test_mode, require_signed_embeds=bool(require_signed_embeds))
        set_report_settings(issued.key, **report)
    except KeyLimitError as exc:
        db.session.rollback()
        raise click.ClickException(f"{exc} (Operator: flask partners set-max-keys {partner!r} N.)") from None
    except KeyInputError as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    _warn_unresolved(issued.key.webhook_url)
    if as_json:
        click.echo(json.dumps(_created_json(issued)))
        return
    key = issued.key
    mode = "test key, never billed" if not key.livemode else "live key"
    click.echo(f"Created key {key.id} for partner {key.partner.name!r} ({mode}; {key.tier}, {key.rate_limit}/hour).")
    click.echo(f"API key:        {issued.api_key}")
    click.echo(f"Webhook secret: {issued.webhook_secret}")
    click.echo(f"Embed secret:   {issued.embed_secret}")
    click.echo("Store them now: they are not shown again.")


@keys_cli.command("list")
@click.option("--partner", default=None, help="Only this partner's keys.")
@click.option("--json", "as_json", is_flag=True)
def list_keys(partner, as_json):
    """List keys (masked) with their settings."""
    query = select(ApiKey).order_by(ApiKey.id)
    rows = [key_settings(k) for k in db.session.scalars(query)]
    if partner:
        rows = [r for r in rows if r["partner"] == partner]
    if as_json:
        click.echo(json.dumps(rows))
        return
    for r in rows:
        state = f"revoked {r['revokedAt']}" if r["revokedAt"] else "active"
        frameworks = ", ".join(r["frameworks"]) or "all frameworks"
        rate = f"{r['dayRate']} {r['currency']}/day" if r["dayRate"] is not None else "default"
        click.echo(f"{r['id']:>4}  {r['key']}  {'live' if r['livemode'] else 'test'}  {r['partner']}  "
                   f"{r['tier']} {r['rateLimit']}/h  "
                   f"{frameworks}  webhook={r['webhookUrl'] or '-'}  day-rate={rate}  "
                   f"methodology={'shown' if r['showMethodology'] else 'hidden'}  "
                   f"embeds={'signed' if r['requireSignedEmbeds'] else 'permanent'}  {state}")


@keys_cli.command("update")
@click.argument("key_id", type=int)
@click.option("--name", default=None)
@click.option("--tier", type=TIER, default=None, help="New tier; resets the limit to the tier's unless --rate-limit.")
@click.option("--rate-limit", type=click.IntRange(min=1), default=None)
@click.option("--framework", "frameworks", multiple=True, help="Replace the allowed frameworks.")
@click.option("--all-frameworks", is_flag=True, help="Remove the framework restriction.")
@click.option("--webhook-url", default=None, help="New webhook URL ('' removes it).")
@report_options
@SIGNED_EMBEDS
@click.option("--json", "as_json", is_flag=True)
@moved_to_partner
def update_key(key_id, name, tier, rate_limit, frameworks, all_frameworks, webhook_url, day_rate, currency,
               show_methodology, require_signed_embeds, as_json):
    """Change a key's settings (the brand and embed origins are the partner's: `flask partners update`)."""
    report = _report_changes(day_rate, currency, show_methodology)
    key = _load_key(key_id)
    changes = {}
    if rate_limit is not None:
        changes["rate_limit"] = rate_limit
    if webhook_url is not None:
        changes["webhook_url"] = webhook_url
    try:
        update_api_key(key, tier=tier, name=name,
                       frameworks=[] if all_frameworks else (list(frameworks) or None),
                       require_signed_embeds=require_signed_embeds, **changes)
        set_report_settings(key, **report)
    except KeyInputError as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    settings = key_settings(key)
    click.echo(json.dumps(settings) if as_json else f"Updated key {key.id}: {settings}")
    if webhook_url:
        _warn_unresolved(key.webhook_url)


@keys_cli.command("revoke")
@click.argument("key_id", type=int)
def revoke_key(key_id):
    """Revoke a key: the API refuses it at once."""
    key = _load_key(key_id)
    revoke_api_key(key)
    db.session.commit()
    click.echo(f"Revoked key {key.id} ({key.masked}).")


@keys_cli.command("rotate-webhook-secret")
@click.argument("key_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def rotate_secret(key_id, as_json):
    """Issue a new webhook secret; it is shown only now."""
    key = _load_key(key_id)
    secret = rotate_webhook_secret(key)
    db.session.commit()
    if as_json:
        click.echo(json.dumps({"id": key.id, "webhookSecret": secret}))
    else:
        click.echo(f"New webhook secret for key {key.id}: {secret}")
        click.echo("Store it now: it is not shown again.")


@keys_cli.command("rotate-embed-secret")
@click.argument("key_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def rotate_embed(key_id, as_json):
    """Issue a new embed secret; it is shown only now, and URLs signed with the old one stop working."""
    key = _load_key(key_id)
    secret = rotate_embed_secret(key)
    db.session.commit()
    if as_json:
        click.echo(json.dumps({"id": key.id, "embedSecret": secret}))
    else:
        click.echo(f"New embed secret for key {key.id}: {secret}")
        click.echo("Store it now: it is not shown again. URLs signed with the previous one are refused from now on.")


@keys_cli.command("ensure-demo")
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True)
def ensure_demo(base_url):
    """On a database with no key at all, create a demo key and print it once, with its webhook and embed secrets
    and a curl example; otherwise say how to get a key (the demo key was shown only once)."""
    if db.session.scalar(select(func.count()).select_from(ApiKey)):
        click.echo("Keys exist already (a demo key is printed only on an empty database). For a new one:\n"
                   "  .venv/bin/flask --app wsgi keys create --partner 'Your company' --test")
        return
    issued = issue_api_key("demo", name="demo key", livemode=False)   # trying it out is never billed
    db.session.commit()
    base = base_url.rstrip("/")
    body = json.dumps({"companyId": "client_1042", "industry": "Healthcare", "framework": "ISO 27001",
                       "policy": "YES", "requirements": [
                           {"id": "A.5.15", "title": "Access control", "status": "not_met"},
                           {"id": "A.8.13", "title": "Information backup", "status": "partially_met"},
                           {"id": "A.5.1", "title": "Policies for information security", "status": "met"}]})
    click.echo("A demo key (test mode: never billed, its pages say \"Test report\") was created."
               " It is shown only this once:\n")
    click.echo(f"  {issued.api_key}\n")
    click.echo("Its secrets, also shown only this once (keep them with the key):\n")
    click.echo(f"  Webhook secret: {issued.webhook_secret}")
    click.echo("    checks the signature of this key's webhooks (give it a URL with"
               f" `.venv/bin/flask --app wsgi keys update {issued.key.id} --webhook-url URL`)")
    if issued.embed_secret:
        click.echo(f"  Embed secret:   {issued.embed_secret}")
        click.echo("    signs embed URLs, for a key that requires signed ones (see the README's \"Signed embed URLs\")")
    click.echo("\nTry it:\n")
    click.echo(f"  curl -s -X POST {base}/api/v1/assessments \\\n"
               f"    -H 'Authorization: Bearer {issued.api_key}' \\\n"
               f"    -H 'Content-Type: application/json' \\\n"
               f"    -d '{body}'\n")


@keys_cli.command("reencrypt-secrets")
def reencrypt_secrets():
    """Encrypt every stored webhook and embed secret with the current SECRET_KEY (step 2 of rotating it: run
    after setting the new SECRET_KEY with the old one in SECRET_KEY_FALLBACKS; afterwards the old key is needed
    only for portal sign-ins made before the rotation). Secrets no key can read are listed, not changed."""
    columns = ("webhook_secret_encrypted", "previous_webhook_secret_encrypted", "embed_secret_encrypted")
    done, unreadable = 0, []
    for key in db.session.scalars(select(ApiKey).order_by(ApiKey.id)):
        for column in columns:
            token = getattr(key, column)
            if not token:
                continue
            try:
                setattr(key, column, reencrypt_secret(token))
                done += 1
            except InvalidToken:
                unreadable.append(f"key {key.id} ({column})")
    db.session.commit()
    click.echo(f"Re-encrypted {done} secret(s) with the current SECRET_KEY.")
    if unreadable:
        click.echo("Not readable with SECRET_KEY or SECRET_KEY_FALLBACKS, left as they were: " + ", ".join(unreadable))
        raise SystemExit(1)
