"""marshmallow fields shared by the API schemas."""

from __future__ import annotations

import unicodedata

from marshmallow import ValidationError, fields, validate

from ..models import iso_utc

_ALLOWED_CONTROLS = {"\t", "\n", "\r"}


class Text(fields.String):
    """A trimmed string of bounded length with no NUL or other control characters."""

    def __init__(self, *, max_length: int, min_length: int = 1, **kwargs):
        super().__init__(validate=validate.Length(min=min_length, max=max_length), **kwargs)
        self.metadata.setdefault("minLength", min_length)
        self.metadata.setdefault("maxLength", max_length)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in text):
            raise ValidationError("Must not contain control characters.")
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
            raise ValidationError("Must be valid Unicode text.")
        return text.strip()


class FullMatch(validate.Regexp):
    """`validate.Regexp` over the whole value: its `re.match` lets `$` match before a final newline,
    so "client_1\n" passed a `^...$` pattern."""

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class StrictBoolean(fields.Boolean):
    """Only JSON true and false; no 'yes', 1 or "true"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


class StrictInteger(fields.Integer):
    """Only a JSON integer: no 2.5e-42 turned into 0, no 1.0, no "12", and no true (a bool is an int in Python)."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError("Not a valid integer.")
        return super()._deserialize(value, attr, data, **kwargs)


class UtcDateTime(fields.DateTime):
    """ISO 8601 in UTC with a `Z`."""

    def _serialize(self, value, attr, obj, **kwargs):
        return iso_utc(value)
