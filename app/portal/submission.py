"""The fields a portal POST submitted, read once from whatever body it came in: a form (urlencoded or
multipart) or a JSON object.

Both the sign-in throttle and the forms read the fields from here, so the throttle counts a sign-in
against the very account the form then checks, whatever the body's shape. Reading never raises
(an exception inside a rate limiter's key function counts as a storage failure, which would skip or
weaken the limit); a body that cannot be read is reported, and the form refuses it with a 4xx.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import request
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import BadRequest, HTTPException

SUBMIT_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class Submission:
    """String fields only; `error` is the 4xx to answer when the body could not be taken as fields."""

    fields: ImmutableMultiDict
    error: HTTPException | None = None


def _from_json() -> Submission:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        return Submission(ImmutableMultiDict(), BadRequest("The body is not a JSON object."))
    # A number, list, object or null where a form would send text is refused (a list would otherwise
    # become several values, and the throttle and the form could read different ones). The text
    # fields are kept all the same: a sign-in with a numeric password still counts for its account.
    fields = ImmutableMultiDict({name: value for name, value in data.items() if isinstance(value, str)})
    if len(fields) < len(data):
        return Submission(fields, BadRequest("Every field must be a string."))
    return Submission(fields)


def _read() -> Submission:
    if request.method not in SUBMIT_METHODS:
        return Submission(ImmutableMultiDict())
    try:
        if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            # Uploaded files are never fields of a portal form: only the text parts count.
            return Submission(request.form)
        if request.is_json:
            return _from_json()
    except HTTPException as error:  # e.g. 413 for a body over MAX_CONTENT_LENGTH
        return Submission(ImmutableMultiDict(), error)
    return Submission(ImmutableMultiDict())


_ENVIRON_KEY = "crs.portal_submission"


def submission() -> Submission:
    """This request's submitted fields, read once per request; never raises."""
    # Kept in the WSGI environ, not on `g`: `g` lives as long as the app context, which a test (or
    # any caller that pushed one) may keep across several requests.
    if _ENVIRON_KEY not in request.environ:
        request.environ[_ENVIRON_KEY] = _read()
    return request.environ[_ENVIRON_KEY]


def submitted_field(name: str) -> str | None:
    """One submitted field's text (the first, if sent twice), or None."""
    return submission().fields.get(name)
