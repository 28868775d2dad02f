"""Blueprint /portal: thin views over the portal's services; every page but sign-in needs a signed-in user."""

from __future__ import annotations

import json
import time

from cryptography.fernet import InvalidToken
from flask import Blueprint, abort, flash, make_response, redirect, render_template, request, session, url_for

from .. import requests_log
from ..embed import previews
from ..embed.urls import public_base_url
from ..errors import ApiError
from ..extensions import db
from ..keys.brand import BrandError
from ..keys.crypto import decrypt_secret, encrypt_secret
from ..keys.service import DEFAULT_TIER, KeyInputError
from ..models import ApiKey, Partner, User, utcnow
from ..webhooks import ping
from ..webhooks.urls import unresolved_warning
from . import assessment_page, listings, modes, partner_brand, partner_keys, reset, reveal, twofactor, usage
from .accounts import (
    AccountError,
    authenticate,
    change_password,
    invite_user,
    invited_user,
    password_matches,
    session_fingerprint,
    set_password,
    team,
    tiers_up_to,
)
from .accounts import accept_invite as accept_invite_password
from .auth import current_user, password_accepted, safe_next, sign_in, sign_out
from .forms import (
    BrandForm,
    ChoosePasswordForm,
    CodeForm,
    ForgotForm,
    InviteForm,
    KeyForm,
    LoginForm,
    PasswordForm,
    SetupCodeForm,
    TurnOffForm,
)

INVITE_REVEAL = "invite_reveal"   # the new invitation's link, kept (encrypted) for the one page that shows it
CODES_REVEAL = "codes_reveal"     # new recovery codes, likewise
TOTP_SETUP = "totp_setup"         # a secret being added to an authenticator app, until a code confirms it
PENDING_2FA = "pending_2fa"       # a right password waiting for its second factor
PENDING_SECONDS = 300
bp = Blueprint("portal", __name__, url_prefix="/portal", static_folder="static", static_url_path="/static")

OPEN_ENDPOINTS = frozenset({"portal.login", "portal.static", "portal.accept_invite", "portal.forgot",
                            "portal.reset_password", "portal.login_code"})


@bp.before_request
def require_sign_in():
    """Signed-out visitors go to the sign-in page, and come back to where they were going."""
    if request.endpoint in OPEN_ENDPOINTS or current_user() is not None:
        return None
    target = request.full_path.rstrip("?") if request.method == "GET" else None
    return redirect(url_for("portal.login", next=safe_next(target, None)))


def _partner() -> Partner:
    return current_user().partner


def _key_or_404(raw_id: str) -> ApiKey:
    key_id = partner_keys.parse_key_id(raw_id)
    key = partner_keys.partner_key(_partner().id, key_id) if key_id is not None else None
    if key is None:
        abort(404)
    return key


def _sentence(error: Exception) -> str:
    """A service's message as a sentence: "tier must be ..." -> "Tier must be ...."."""
    message = str(error)
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def _secret_page(**context):
    """The only page that shows a full key or secret: rendered once, never stored by the browser."""
    response = make_response(render_template("portal/secret.html", **context))
    response.headers["Cache-Control"] = "no-store"
    return response


def _show_once(key: ApiKey, **secrets: str | None):
    """Post/redirect/get: keep the new key or secret for the one GET that shows it (see reveal.py)."""
    reveal.keep(key, **secrets)
    return redirect(url_for("portal.show_once", key_id=key.id), 303)


@bp.get("/")
def home():
    return redirect(url_for("portal.keys"))


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Sign in with email and password (throttled per address and per account, see `limit_sign_in`)."""
    destination = safe_next(request.args.get("next"), url_for("portal.keys"))
    if request.method == "GET" and current_user() is not None:
        return redirect(destination)
    form = LoginForm()
    failed = False
    if form.validate_on_submit():
        user = authenticate(form.email.data, form.password.data)
        if user is not None and twofactor.is_on(user):
            # The password was right; the code comes next, within PENDING_SECONDS, on the same browser.
            session[PENDING_2FA] = {"u": user.id, "f": session_fingerprint(user), "at": int(time.time()),
                                    "next": destination}
            password_accepted()
            db.session.commit()  # a rehashed password
            return redirect(url_for("portal.login_code"), 303)
        if user is not None:
            sign_in(user)
            db.session.commit()  # last_login_at and the session's row
            return redirect(destination)
        failed = True
    return render_template("portal/login.html", form=form, failed=failed)


def pending_user():
    """The user whose password this browser gave a moment ago, waiting for their second factor."""
    pending = session.get(PENDING_2FA)
    if not isinstance(pending, dict) or time.time() - pending.get("at", 0) > PENDING_SECONDS:
        return None
    user = db.session.get(User, pending.get("u"))
    if user is None or user.disabled_at is not None or session_fingerprint(user) != pending.get("f"):
        return None
    return user


@bp.route("/login/code", methods=["GET", "POST"])
def login_code():
    """The second step of a two-factor sign-in: a code from the app, or a recovery code (used up)."""
    user = pending_user()
    if user is None:
        session.pop(PENDING_2FA, None)
        flash("Sign in again: the code is asked for within five minutes of the password.")
        return redirect(url_for("portal.login"))
    form = CodeForm()
    if form.validate_on_submit():
        if twofactor.check(user, form.code.data):
            destination = session[PENDING_2FA].get("next") or url_for("portal.keys")
            user.last_login_at = utcnow()
            sign_in(user)
            db.session.commit()
            return redirect(safe_next(destination, url_for("portal.keys")), 303)
        form.code.errors = [*form.code.errors, "That code is not right. Codes change every 30 seconds."]
    return render_template("portal/login_code.html", form=form)


@bp.post("/account/2fa/start")
def start_two_factor():
    """A new secret for the authenticator app, kept (encrypted) in the session until a code confirms it."""
    session[TOTP_SETUP] = encrypt_secret(twofactor.new_secret())
    return redirect(url_for("portal.confirm_two_factor"), 303)


@bp.route("/account/2fa", methods=["GET", "POST"])
def confirm_two_factor():
    """Add the secret to an authenticator app, then type one of its codes to turn two-factor sign-in on."""
    user = current_user()
    try:
        secret = decrypt_secret(session.get(TOTP_SETUP) or "", ttl=900)
    except InvalidToken:
        return redirect(url_for("portal.account", _anchor="two-factor"))
    form = SetupCodeForm()
    if form.validate_on_submit():
        if twofactor.code_matches(secret, form.code.data):
            codes = twofactor.turn_on(user, secret)
            db.session.commit()
            session.pop(TOTP_SETUP, None)
            session[CODES_REVEAL] = encrypt_secret(json.dumps(codes))
            return redirect(url_for("portal.account", _anchor="two-factor"), 303)
        form.code.errors = [*form.code.errors, "That code is not right: check the app's clock, and type the code "
                                               "it shows now."]
    return render_template("portal/two_factor.html", form=form, secret=secret,
                           uri=twofactor.provisioning_uri(secret, user.email))


@bp.post("/account/2fa/off")
def turn_off_two_factor():
    """Turning it off takes the current password."""
    user = current_user()
    form = TurnOffForm()
    if form.validate_on_submit():
        if not password_matches(user, form.current_password.data):
            form.current_password.errors = [*form.current_password.errors,
                                            "Your current password is not the one you typed."]
        else:
            twofactor.turn_off(user)
            db.session.commit()
            flash("Two-factor sign-in is off: your password alone signs you in.")
            return redirect(url_for("portal.account", _anchor="two-factor"), 303)
    return account_page(user, off_form=form)


@bp.route("/forgot", methods=["GET", "POST"])
def forgot():
    """Ask for a reset link by email (when the operator set up mail); otherwise, say who resets passwords."""
    form = ForgotForm()
    if reset.mail_configured() and form.validate_on_submit():
        reset.send_link(form.email.data)
        flash("If an account has that email, a link to choose a new password is on its way. It works once, for an "
              "hour.")
        return redirect(url_for("portal.forgot"), 303)
    return render_template("portal/forgot.html", form=form, mail=reset.mail_configured())


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset_password(token: str):
    """A reset link from the email: choose a new password, which signs out every other session, and sign in."""
    user = reset.user_for(token)
    if user is None:
        return render_template("portal/error.html", status=404, title="This link does not work",
                               message="It was used already, or it is more than an hour old. Ask for a new one on "
                                       "the sign-in page."), 404
    return _choose_password(user, set_password, "Your password is changed, and you are signed in. Every other "
                            "browser signed in as you is signed out.", heading="Choose a new password",
                            lede="Every other browser signed in as you is signed out.")


def _choose_password(user, apply, welcome: str, **page):
    """The password form of an invitation or a reset link: `apply(user, password)`, then sign in (post/redirect/
    get); the form again with the reason on its field otherwise."""
    form = ChoosePasswordForm()
    if form.validate_on_submit():
        try:
            apply(user, form.new_password.data)
        except AccountError as error:
            db.session.rollback()
            form.new_password.errors = [*form.new_password.errors, _sentence(error)]
        else:
            user.last_login_at = utcnow()   # joining or resetting signs in: the team list says so
            sign_in(user)
            db.session.commit()
            flash(welcome)
            return redirect(url_for("portal.keys"), 303)
    return render_template("portal/choose_password.html", form=form, user=user, **page)


@bp.post("/logout")
def logout():
    """End the session, on the server too: a copy of the cookie stops working as well."""
    sign_out()
    db.session.commit()
    flash("You are signed out.")
    response = redirect(url_for("portal.login"))
    previews.unmark(response)
    return response


@bp.post("/team/invite")
def invite():
    """An owner invites a member of the same partner: the link is shown once, on the account page."""
    user = current_user()
    form = InviteForm()
    if form.validate_on_submit():
        try:
            invited, token = invite_user(user, form.email.data)
        except AccountError as error:
            db.session.rollback()
            form.email.errors = [*form.email.errors, _sentence(error)]
        else:
            db.session.commit()
            session[INVITE_REVEAL] = encrypt_secret(json.dumps(
                {"email": invited.email, "link": public_base_url() + url_for("portal.accept_invite", token=token)}))
            return redirect(url_for("portal.account", _anchor="team"), 303)
    return account_page(user, invite_form=form)


@bp.route("/invite/<token>", methods=["GET", "POST"])
def accept_invite(token: str):
    """The invited person chooses a password and is signed in; the link then stops working."""
    invited = invited_user(token)
    if invited is None:
        return render_template("portal/error.html", status=404, title="This invitation does not work",
                               message="It was used already, or it is more than a week old, or it was mistyped. Ask "
                                       "whoever invited you for a new one."), 404
    return _choose_password(invited, accept_invite_password,
                            f"Welcome. You are signed in as {invited.email} for {invited.partner.name}.",
                            heading=f"Join {invited.partner.name}",
                            lede="You were invited to the partner portal. Choose a password to sign in; this link "
                                 "then stops working.")


def _revealed(name: str):
    token = session.pop(name, None)
    if not token:
        return None
    try:
        return json.loads(decrypt_secret(token, ttl=300))
    except InvalidToken:
        return None


def account_page(user, form=None, invite_form=None, off_form=None, status: int = 200):
    """The account page with its password form, two-factor sign-in, the team, and a just-made invitation's link or
    new recovery codes (each shown once)."""
    return render_template("portal/account.html", form=form or PasswordForm(formdata=None), user=user,
                           invite_form=invite_form or InviteForm(formdata=None), team=team(user.partner_id),
                           invited=_revealed(INVITE_REVEAL), recovery_codes=_revealed(CODES_REVEAL),
                           off_form=off_form or TurnOffForm(formdata=None), two_factor=twofactor.is_on(user),
                           codes_left=len(user.recovery_code_hashes or [])), status


@bp.route("/account", methods=["GET", "POST"])
def account():
    """The signed-in user: who they are, and a password change (which signs out their other sessions)."""
    user = current_user()
    form = PasswordForm()
    if form.validate_on_submit():
        try:
            change_password(user, form.current_password.data, form.new_password.data)
        except AccountError as error:
            db.session.rollback()
            field = form.current_password if "current" in str(error) else form.new_password
            field.errors = [*field.errors, _sentence(error)]
        else:
            sign_in(user)   # this browser stays signed in; every other session of the user has ended
            db.session.commit()
            flash("Your password is changed. Every other browser signed in as you is signed out.")
            return redirect(url_for("portal.account"), 303)
    return account_page(user, form=form)


@bp.post("/mode")
def choose_mode():
    """Show all data, live data only or test data only in the lists, then back to the page the switch was on."""
    if not modes.choose(request.form.get("mode", "")):
        abort(400)
    return redirect(safe_next(request.form.get("next"), url_for("portal.keys")), 303)


@bp.get("/keys")
def keys():
    partner = _partner()
    return render_template("portal/keys.html", keys=partner_keys.partner_keys(partner.id, modes.livemode()),
                           partner=partner)


def _key_form(partner: Partner, current_tier: str | None = None, **data) -> KeyForm:
    form = KeyForm(data=data or None)
    form.tier.choices = partner_keys.tier_choices(partner, current_tier)
    return form


def _warn_unresolved(key: ApiKey) -> None:
    warning = unresolved_warning(key.webhook_url)
    if warning:
        flash(warning)


@bp.route("/keys/new", methods=["GET", "POST"])
def new_key():
    partner = _partner()
    allowed = tiers_up_to(partner.max_tier)
    # A partner's first key is a test key unless they say otherwise: trying the API out is never billed.
    form = _key_form(partner, tier=DEFAULT_TIER if DEFAULT_TIER in allowed else allowed[-1],
                     test_mode=not partner_keys.has_keys(partner.id))
    if form.validate_on_submit():
        try:
            issued = partner_keys.create_key(partner, form.changes())
        except KeyInputError as error:
            form.form_errors.append(_sentence(error))
        else:
            _warn_unresolved(issued.key)
            return _show_once(issued.key, api_key=issued.api_key, webhook_secret=issued.webhook_secret,
                              embed_secret=issued.embed_secret)
    return render_template("portal/key_form.html", form=form, partner=partner, key=None)


@bp.route("/keys/<key_id>/edit", methods=["GET", "POST"])
def edit_key(key_id: str):
    partner = _partner()
    key = _key_or_404(key_id)
    if key.revoked_at is not None:
        flash(f"Key {key.masked} is revoked and can no longer be changed.")
        return redirect(url_for("portal.keys"))
    form = _key_form(partner, key.tier, name=key.name or "", tier=key.tier, frameworks="\n".join(key.frameworks),
                     webhook_url=key.webhook_url or "", day_rate="" if key.day_rate is None else str(key.day_rate),
                     currency=key.currency or "", show_methodology=key.show_methodology,
                     require_signed_embeds=key.require_signed_embeds)
    if form.validate_on_submit():
        try:
            partner_keys.update_key(partner, key, form.changes())
        except KeyInputError as error:
            form.form_errors.append(_sentence(error))
        else:
            flash(f"Saved the settings of {key.name or key.masked}.")
            _warn_unresolved(key)
            return redirect(url_for("portal.keys", _anchor=f"key-{key.id}"))
    return render_template("portal/key_form.html", form=form, partner=partner, key=key)


@bp.route("/brand", methods=["GET", "POST"])
def brand():
    """The brand and embed origins of every key of the partner; a save redirects (post/redirect/get)."""
    partner = _partner()
    form = BrandForm(data={"embed_origins": "\n".join(partner.embed_origins or []),
                           "brand_name": partner.brand_name or "", "brand_color": partner.brand_color or "",
                           "white_label": partner.white_label})
    if form.validate_on_submit():
        try:
            partner_brand.save(partner, form.changes())
        except (KeyInputError, BrandError) as error:
            form.form_errors.append(_sentence(error))
        else:
            flash("Saved. Every key’s report pages and PDFs use this brand and these embed origins from now on.")
            return redirect(url_for("portal.brand"), 303)
    return render_template("portal/brand.html", form=form, partner=partner,
                           logo=partner_brand.current_logo(partner))


@bp.get("/keys/<key_id>/requests")
def key_requests(key_id: str):
    """The key's API requests of the last 7 days, newest first, filterable by status."""
    key = _key_or_404(key_id)
    status = request.args.get("status") or None
    raw_before = request.args.get("before", "")
    before = int(raw_before) if raw_before.isascii() and raw_before.isdigit() and len(raw_before) < 19 else None
    rows, next_before = requests_log.page(key.id, status, before)
    return render_template("portal/requests.html", key=key, rows=rows, next_before=next_before, status=status,
                           filters=requests_log.STATUS_FILTERS, days=requests_log.REQUEST_LOG_DAYS, before=before)


@bp.post("/keys/<key_id>/send-test-event")
def send_test_event(key_id: str):
    """Send a signed `webhook.test` event to the key's webhook URL now, and say what the receiver answered."""
    key = _key_or_404(key_id)
    if key.revoked_at is not None or not key.webhook_url:
        flash(f"{key.name or key.masked} has no webhook URL to send a test event to.")
        return redirect(url_for("portal.keys", _anchor=f"key-{key.id}"), 303)
    attempt = ping.send_test_event(key)
    outcome = f"HTTP {attempt['statusCode']}" if attempt["statusCode"] else attempt["error"]
    verdict = "received it" if attempt["error"] is None else "did not accept it"
    answer = (attempt.get("responseBody") or "").strip()
    flash(f"Test event sent to {key.webhook_url}: {outcome} in {attempt['durationMs']:,} ms; your receiver {verdict}."
          + (f" It answered: {answer[:300]}" if answer else ""))
    return redirect(url_for("portal.keys", _anchor=f"key-{key.id}"), 303)


@bp.route("/keys/<key_id>/revoke", methods=["GET", "POST"])
def revoke_key(key_id: str):
    """GET asks for confirmation; POST revokes."""
    key = _key_or_404(key_id)
    if request.method == "POST" and key.revoked_at is None:
        partner_keys.revoke_key(key)
        flash(f"Revoked {key.name or key.masked}. The API refuses it from now on.")
    if key.revoked_at is not None:
        return redirect(url_for("portal.keys", _anchor=f"key-{key.id}"))
    return render_template("portal/confirm.html", key=key, action="revoke")


@bp.route("/keys/<key_id>/rotate-secret", methods=["GET", "POST"])
def rotate_secret(key_id: str):
    """GET asks for confirmation; POST issues the new secret and shows it once."""
    key = _key_or_404(key_id)
    if key.revoked_at is not None:
        flash(f"Key {key.masked} is revoked and has no webhook secret to rotate.")
        return redirect(url_for("portal.keys"))
    if request.method == "POST":
        return _show_once(key, webhook_secret=partner_keys.rotate_secret(key))
    return render_template("portal/confirm.html", key=key, action="rotate")


@bp.route("/keys/<key_id>/rotate-embed-secret", methods=["GET", "POST"])
def rotate_embed_secret(key_id: str):
    """GET asks for confirmation; POST issues the new embed secret and shows it once."""
    key = _key_or_404(key_id)
    if key.revoked_at is not None:
        flash(f"Key {key.masked} is revoked and has no embed secret to rotate.")
        return redirect(url_for("portal.keys"))
    if request.method == "POST":
        return _show_once(key, embed_secret=partner_keys.rotate_embed(key))
    return render_template("portal/confirm.html", key=key, action="rotate-embed")


@bp.get("/keys/<key_id>/new-secrets")
def show_once(key_id: str):
    """The new key or secret, shown to the one GET after the POST that made it; a reload shows nothing."""
    key = _key_or_404(key_id)
    shown = reveal.take(key)
    if shown is None:
        flash("New keys and secrets are shown only once, and that page was already shown. If you did not store "
              "them, rotate the secret again, or revoke the key and create another.")
        return redirect(url_for("portal.keys", _anchor=f"key-{key.id}"))
    api_key = shown.get("api_key")
    base_url = public_base_url()
    return _secret_page(key=key, api_key=api_key, webhook_secret=shown.get("webhook_secret"),
                        embed_secret=shown.get("embed_secret"), base_url=base_url,
                        sample_curl=reveal.sample_curl(base_url, api_key, key) if api_key else None)


def _page_number() -> int:
    raw = request.args.get("page", "1")
    # isascii: "²".isdigit() is true, but int("²") raises.
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else 1


@bp.get("/assessments")
def assessments():
    partner = _partner()
    frameworks = listings.assessment_frameworks(partner.id)
    status = request.args.get("status") if request.args.get("status") in listings.ASSESSMENT_STATUSES else None
    framework = request.args.get("framework") if request.args.get("framework") in frameworks else None
    page = listings.assessments_page(partner.id, status, framework, _page_number(), modes.livemode())
    return render_template("portal/assessments.html", page=page, frameworks=frameworks, status=status,
                           framework=framework, statuses=listings.ASSESSMENT_STATUSES)


@bp.get("/assessments/<assessment_id>")
def assessment(assessment_id: str):
    """One assessment: what was submitted and by which key, its reports and PDFs, deliveries and charge."""
    number = assessment_page.parse_assessment_id(assessment_id)
    detail = assessment_page.assessment_detail(_partner().id, number) if number is not None else None
    if detail is None:
        abort(404)
    return render_template("portal/assessment.html", detail=detail, record=detail.assessment)


@bp.get("/usage")
def usage_page():
    partner = _partner()
    raw = request.args.get("month")
    month = usage.parse_month(raw) if raw else usage.current_month()
    if month is None:  # a month the service has no page for (e.g. 9999-12) is 404; anything else 400
        abort(404 if usage.looks_like_month(raw) else 400)
    return render_template("portal/usage.html", selected=usage.month_usage(partner.id, month),
                           months=usage.monthly_totals(partner.id), all_time=usage.all_time(partner.id),
                           current=usage.current_month())


@bp.get("/webhooks")
def webhooks():
    partner = _partner()
    status = request.args.get("status") if request.args.get("status") in listings.DELIVERY_STATUSES else None
    cursor = request.args.get("cursor") or None
    try:
        items, next_cursor, keys = listings.deliveries_page(partner.id, status, cursor, modes.livemode())
    except ApiError:
        abort(400)
    failed_count, failed = listings.failed_deliveries(partner.id, modes.livemode())
    return render_template("portal/webhooks.html", deliveries=items, next_cursor=next_cursor, keys=keys,
                           status=status, statuses=listings.DELIVERY_STATUSES, cursor=cursor,
                           failed_count=failed_count, failed=failed)


@bp.get("/webhooks/<delivery_id>")
def delivery(delivery_id: str):
    """One delivery: the payload as sent, each attempt with its answer, and Redeliver."""
    found = listings.delivery(_partner().id, delivery_id)
    if found is None:
        abort(404)
    return render_template("portal/delivery.html", delivery=found, key=db.session.get(ApiKey, found.api_key_id))


@bp.post("/webhooks/redeliver-failed")
def redeliver_failed():
    """Every failed delivery gets another round (after the partner's receiver was down)."""
    count = listings.redeliver_all_failed(_partner().id, modes.livemode())
    flash(f"{count} failed deliver{'y is' if count == 1 else 'ies are'} queued for another round of attempts."
          if count else "No delivery has failed; nothing to send again.")
    return redirect(url_for("portal.webhooks"))


@bp.post("/webhooks/<delivery_id>/redeliver")
def redeliver(delivery_id: str):
    """Queue another round of attempts, unless one is still pending (then say so; nothing changes)."""
    try:
        delivery = listings.redeliver(_partner().id, delivery_id)
    except listings.RedeliveryPending:
        flash(f"Delivery {delivery_id} still has a round of attempts queued or in progress; "
              "redeliver it once it has succeeded or failed.")
        return redirect(url_for("portal.delivery", delivery_id=delivery_id))
    except listings.NoWebhookUrl:
        flash(f"Delivery {delivery_id} cannot be redelivered: its key has no webhook URL any more. Set one on the"
              " key, then redeliver.")
        return redirect(url_for("portal.delivery", delivery_id=delivery_id))
    if delivery is None:
        abort(404)
    flash(f"Delivery {delivery.id} is queued for another round of attempts; they appear below as they are made.")
    return redirect(url_for("portal.delivery", delivery_id=delivery.id), 303)
