"""The portal's forms (Flask-WTF). Plain action buttons (revoke, rotate, redeliver, sign out) carry only
`csrf_token()`: CSRFProtect checks the token of every POST, whichever form sent it.
"""

from __future__ import annotations

import re

from flask import request
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    EmailField,
    FileField,
    PasswordField,
    SelectField,
    StringField,
    TextAreaField,
    URLField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, Optional, ValidationError

from ..keys.brand import MAX_LOGO_BYTES, BrandError, normalize_color, normalize_name, validate_logo
from ..keys.service import CURRENCIES, KeyInputError, normalize_currency, normalize_day_rate, normalize_origin
from ..webhooks.urls import WebhookHostUnresolved, WebhookUrlError, validate_webhook_url
from .accounts import MIN_PASSWORD_LENGTH
from .partner_brand import BrandChanges
from .partner_keys import KeyChanges
from .submission import SUBMIT_METHODS, submission

MAX_LINES = 50
# Control characters other than line breaks and tabs: never meant in a name, URL or email, and
# Postgres refuses NUL in text outright (a 500 if it got that far).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def lines(text: str | None) -> list[str]:
    """One entry per line (commas also separate), blanks dropped, duplicates once, order kept."""
    seen: list[str] = []
    for line in (text or "").replace(",", "\n").splitlines():
        entry = line.strip()
        if entry and entry not in seen:
            seen.append(entry)
    return seen


def no_control_characters(_form, field) -> None:
    """Refuse text with control characters (line breaks and tabs are fine in the list fields)."""
    if field.data and _CONTROL.search(field.data):
        raise ValidationError("Remove the control characters from this field.")


class PortalForm(FlaskForm):
    """A form that reads the request's fields from `submission`: a form body or a JSON object, text only.

    Flask-WTF's own reading hands uploaded files and JSON numbers, lists or nulls to the fields,
    which then fail with a 500; here such a body is a 400 before any field sees it.
    """

    def __init__(self, *args, **kwargs):
        if not args and "formdata" not in kwargs:
            kwargs["formdata"] = self.submitted_fields()
        super().__init__(*args, **kwargs)

    @staticmethod
    def submitted_fields():
        """The fields to validate, or None when nothing was submitted (a GET), as Flask-WTF does."""
        if request.method not in SUBMIT_METHODS:
            return None
        submitted = submission()
        if submitted.error is not None:
            raise submitted.error
        return submitted.fields or None


class LoginForm(PortalForm):
    email = EmailField("Email", validators=[DataRequired("Enter your email address."), Length(max=254),
                                            no_control_characters])
    password = PasswordField("Password", validators=[DataRequired("Enter your password."), Length(max=1024)])


def new_password_field(label: str, missing: str) -> PasswordField:
    """A password being chosen: its length rule, said in the field's description and in its error."""
    return PasswordField(label, validators=[
        DataRequired(missing),
        Length(min=MIN_PASSWORD_LENGTH, max=1024, message=f"Use {MIN_PASSWORD_LENGTH} to 1,024 characters.")],
        description=f"At least {MIN_PASSWORD_LENGTH} characters; a few unrelated words make a strong one.")


class PasswordForm(PortalForm):
    """The signed-in user's own password change."""

    current_password = PasswordField("Current password", validators=[DataRequired("Enter your current password."),
                                                                     Length(max=1024)])
    new_password = new_password_field("New password", "Choose a new password.")
    confirm_password = PasswordField("New password again", validators=[
        DataRequired("Type the new password again."), EqualTo("new_password", "The two new passwords differ.")])


class CodeForm(PortalForm):
    code = StringField("Code", validators=[DataRequired("Enter the code."), Length(max=40), no_control_characters],
                       description="The 6-digit code your authenticator app shows, or one of your recovery codes.")


class SetupCodeForm(PortalForm):
    """Turning two-factor sign-in on: only the app's code (no recovery code exists yet)."""
    code = StringField("Code", validators=[DataRequired("Enter the code."), Length(max=40), no_control_characters],
                       description="The 6-digit code your authenticator app shows now.")


class TurnOffForm(PortalForm):
    current_password = PasswordField("Current password", validators=[DataRequired("Enter your current password."),
                                                                     Length(max=1024)])


class ForgotForm(PortalForm):
    email = EmailField("Email", validators=[DataRequired("Enter your email address."), Length(max=254),
                                            no_control_characters])


class InviteForm(PortalForm):
    email = EmailField("Email", validators=[DataRequired("Enter the email address of the person to invite."),
                                            Length(max=254), no_control_characters],
                       description="They get a link to choose their password; they see and manage everything you do.")


class ChoosePasswordForm(PortalForm):
    """A password chosen at an invitation or a reset link."""

    new_password = new_password_field("Choose a password", "Choose a password.")
    confirm_password = PasswordField("The password again", validators=[
        DataRequired("Type the password again."), EqualTo("new_password", "The two passwords differ.")])


class KeyForm(PortalForm):
    """Create a key, or change one's settings (the same fields)."""

    name = StringField("Name", validators=[DataRequired("Give the key a name."), Length(max=200),
                                               no_control_characters],
                       description="For you only, e.g. “Production” or “Staging”.")
    tier = SelectField("Tier", validators=[DataRequired("Choose a tier.")], validate_choice=True,
                       description="Sets the key’s hourly request limit.")
    frameworks = TextAreaField("Allowed frameworks", validators=[Optional(), Length(max=4000), no_control_characters],
                               description="One per line, e.g. ISO 27001. Leave empty to allow every framework.")
    webhook_url = URLField("Webhook URL", validators=[Optional(), Length(max=2048), no_control_characters],
                           description="Where we send the assessment.reports.completed and .failed events.")
    test_mode = BooleanField("Test key", description="For trying the API out: assessments made with it are real but "
                                                     "never billed, only test keys see them, and their pages say "
                                                     "“Test report”. A key’s mode cannot be changed later.")
    # What the reports price effort at, and whether the client pages name the sales methodology.
    day_rate = StringField("Day rate", validators=[Optional()],
                           description="Reports for the CFO, CEO, board and owner price effort at this rate; without "
                                       "it they use a documented default range. A whole number per person-day, "
                                       "e.g. 1200.")
    currency = SelectField("Currency", validate_choice=False,
                           choices=[SelectChoice("", "USD (default)"), *(SelectChoice(code) for code in CURRENCIES)],
                           description="The currency of the day rate.")
    show_methodology = BooleanField("Show the methodology",
                                    description="Show the sales methodology's name on report pages and PDFs (off: "
                                                "your client never sees it).")
    require_signed_embeds = BooleanField(
        "Require signed embed links",
        description="Report pages and PDFs open only at links your server signed with the key’s embed secret, "
                    "valid for at most 24 hours (off: the permanent links work).")

    def validate_day_rate(self, field):
        try:
            if any(character in field.data for character in "\t\n\r\v\f"):   # spaces around are fine
                raise KeyInputError("not a number")
            normalize_day_rate(field.data)
        except KeyInputError:
            raise ValidationError("Enter a whole number from 1 to 1,000,000 (per person-day), or leave it empty "
                                  "to use the default range.") from None

    def validate_currency(self, field):
        if (field.data or "") not in ("", *CURRENCIES):   # what the list offers, as it offers it
            raise ValidationError(f"Choose one of {', '.join(CURRENCIES)}.")

    def validate_frameworks(self, field):
        if len(lines(field.data)) > MAX_LINES:
            raise ValidationError(f"List at most {MAX_LINES} frameworks.")
        if any(len(f) > 200 for f in lines(field.data)):
            raise ValidationError("A framework name has at most 200 characters.")

    def validate_webhook_url(self, field):
        if field.data and field.data.strip():
            try:
                validate_webhook_url(field.data.strip())
            except WebhookHostUnresolved:   # saved with a warning (views.py): the receiver may come later
                pass
            except WebhookUrlError as error:
                # The operator's hint (WEBHOOK_ALLOW_PRIVATE_NETWORKS) after the semicolon is not for partners.
                message = str(error).split(";", 1)[0]
                raise ValidationError(message[:1].upper() + message[1:] + ".") from None
            except ValueError:  # what urlsplit or the resolver make of e.g. "http://[::1" or a 300-character label
                raise ValidationError("This is not a valid URL.") from None

    def changes(self) -> KeyChanges:
        return KeyChanges(name=self.name.data.strip(), tier=self.tier.data, frameworks=lines(self.frameworks.data),
                          webhook_url=(self.webhook_url.data or "").strip() or None,
                          livemode=not self.test_mode.data, day_rate=normalize_day_rate(self.day_rate.data),
                          currency=normalize_currency(self.currency.data),
                          show_methodology=bool(self.show_methodology.data),
                          require_signed_embeds=bool(self.require_signed_embeds.data))


class BrandForm(PortalForm):
    """The brand and embed origins every key of the partner uses."""

    embed_origins = TextAreaField("Embed origins", validators=[Optional(), Length(max=4000), no_control_characters],
                                  description="Sites that may show the report pages in an iframe, one per line, "
                                              "e.g. https://portal.example.com. Leave empty to allow any site.")

    # The brand on the pages and PDFs the partner's clients see.
    brand_name = StringField("Prepared by", validators=[Optional()],
                             description="Your company’s name as your clients should see it: “Prepared by Acme "
                                         "Security”. Leave empty to show none.")
    brand_color = StringField("Accent colour", validators=[Optional()],
                              description="A hex colour like #1a73e8, used for headings, links and buttons. "
                                          "Leave empty for the default.")
    # Never filled from the submitted fields: the file itself is read from the upload in validate_brand_logo.
    brand_logo = FileField("Logo", description="PNG or SVG, at most 64 KB. SVG files may not contain scripts, "
                                               "event handlers or links to other files.")
    remove_logo = BooleanField("Remove the logo")
    white_label = BooleanField("White-label", description="Hide every mention of Compliance Reports on the report "
                                                          "pages and PDFs: your clients see only your brand.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.logo: bytes | None = None  # a new logo that passed the checks, once validated

    def validate_brand_name(self, field):
        try:
            normalize_name(field.data)
        except BrandError as error:
            raise ValidationError(f"{error}.") from None

    def validate_brand_color(self, field):
        try:
            normalize_color(field.data)
        except BrandError as error:
            raise ValidationError(f"{error}.") from None

    def _upload(self):
        """The file sent in the logo input, or None when it was left empty (or nothing was posted)."""
        if request.method not in SUBMIT_METHODS:
            return None
        upload = request.files.get(self.brand_logo.name)
        return upload if upload is not None and upload.filename else None

    def validate_brand_logo(self, _field):
        self.logo = None
        upload = self._upload()
        if upload is None:
            return
        data = upload.read(MAX_LOGO_BYTES + 1)  # one byte over is enough to say it is too big
        try:
            self.logo = validate_logo(data)[0]
        except BrandError as error:
            raise ValidationError(f"{error}.") from None

    def validate_remove_logo(self, field):
        if field.data and self._upload() is not None:
            raise ValidationError("Either choose a new logo or remove the current one, not both.")

    def validate_embed_origins(self, field):
        origins = lines(field.data)
        if len(origins) > MAX_LINES:
            raise ValidationError(f"List at most {MAX_LINES} origins.")
        for origin in origins:
            try:
                normalize_origin(origin)
            except KeyInputError:
                raise ValidationError(f"“{origin}” is not an origin: write it like https://example.com, "
                                      "without a path.") from None

    def changes(self) -> BrandChanges:
        color = (self.brand_color.data or "").strip()
        return BrandChanges(embed_origins=lines(self.embed_origins.data),
                            brand_name=normalize_name(self.brand_name.data),
                            brand_color=normalize_color(color) if color else None, logo=self.logo,
                            remove_logo=bool(self.remove_logo.data), white_label=bool(self.white_label.data))
