"""Opaque cursors for the list endpoints."""

from __future__ import annotations

import base64
import binascii

from .errors import ApiError
from .extensions import db

MAX_ID = 2**63 - 1


def encode_cursor(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"a:{last_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The id a cursor points after; 422 for anything this API did not hand out."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        prefix, _, number = text.partition(":")
        if prefix != "a" or not number.isdigit() or not 1 <= int(number) <= MAX_ID:
            raise ValueError(cursor)
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ApiError(422, "validation_error", "Some fields are invalid; see details.",
                       details={"cursor": ["Not a cursor returned by this endpoint."]}) from None


def paginate(query, column, limit: int, cursor: str | None) -> tuple[list, str | None]:
    """One page of `query`, newest first by the integer `column`, and the cursor of the next page."""
    if cursor:
        query = query.where(column < decode_cursor(cursor))
    rows = list(db.session.scalars(query.order_by(column.desc()).limit(limit + 1)))
    next_cursor = encode_cursor(getattr(rows[limit - 1], column.key)) if len(rows) > limit else None
    return rows[:limit], next_cursor
