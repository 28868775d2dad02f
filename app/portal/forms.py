"""The portal's forms (Flask-WTF). Plain action buttons (revoke, rotate, redeliver, sign out) carry only
`csrf_token()`: CSRFProtect checks the token of every POST, whichever form sent it.
"""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, SelectField, StringField, TextAreaField, URLField
from wtforms.validators import DataRequired, Length, Optional, ValidationError

from ..keys.service import KeyInputError, normalize_origin
from ..webhooks.urls import WebhookUrlError, validate_webhook_url
from .partner_keys import KeyChanges

MAX_LINES = 50


def lines(text: str | None) -> list[str]:
    """One entry per line (commas also separate), blanks dropped, duplicates once, order kept."""
    seen: list[str] = []
    for line in (text or "").replace(",", "\n").splitlines():
        entry = line.strip()
        if entry and entry not in seen:
            seen.append(entry)
    return seen


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired("Enter your email address."), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired("Enter your password."), Length(max=1024)])


class KeyForm(FlaskForm):
    """Create a key, or change one's settings (the same fields)."""

    name = StringField("Name", validators=[DataRequired("Give the key a name."), Length(max=200)],
                       description="For you only, e.g. “Production” or “Staging”.")
    tier = SelectField("Tier", validators=[DataRequired("Choose a tier.")], validate_choice=True,
                       description="Sets the key’s hourly request limit.")
    frameworks = TextAreaField("Allowed frameworks", validators=[Optional(), Length(max=4000)],
                               description="One per line, e.g. ISO 27001. Leave empty to allow every framework.")
    webhook_url = URLField("Webhook URL", validators=[Optional(), Length(max=2048)],
                           description="Where we send the assessment.reports.completed and .failed events.")
    embed_origins = TextAreaField("Embed origins", validators=[Optional(), Length(max=4000)],
                                  description="Sites that may frame the report pages, one per line, "
                                              "e.g. https://portal.example.com. Leave empty to allow any site.")

    def validate_frameworks(self, field):
        if len(lines(field.data)) > MAX_LINES:
            raise ValidationError(f"List at most {MAX_LINES} frameworks.")
        if any(len(f) > 200 for f in lines(field.data)):
            raise ValidationError("A framework name has at most 200 characters.")

    def validate_webhook_url(self, field):
        if field.data and field.data.strip():
            try:
                validate_webhook_url(field.data.strip())
            except WebhookUrlError as error:
                # The operator's hint (WEBHOOK_ALLOW_PRIVATE_NETWORKS) after the semicolon is not for partners.
                message = str(error).split(";", 1)[0]
                raise ValidationError(message[:1].upper() + message[1:] + ".") from None

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

    def changes(self) -> KeyChanges:
        return KeyChanges(name=self.name.data.strip(), tier=self.tier.data, frameworks=lines(self.frameworks.data),
                          webhook_url=(self.webhook_url.data or "").strip() or None,
                          embed_origins=lines(self.embed_origins.data))
