"""Reading and validating JSON request bodies into the one error shape."""

from __future__ import annotations

import json

from flask import request
from marshmallow import Schema, ValidationError

from ..errors import ApiError


def flatten_errors(messages, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as {"requirements.3.status": ["..."]}."""
    flat: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            path = str(key) if not prefix else f"{prefix}.{key}"
            if key == "_schema":
                path = prefix or "_schema"
            for sub_path, sub_messages in flatten_errors(value, path).items():
                flat.setdefault(sub_path, []).extend(sub_messages)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        flat[prefix or "_schema"] = list(messages)
    else:
        flat[prefix or "_schema"] = [str(messages)]
    return flat


def validation_error(messages) -> ApiError:
    return ApiError(422, "validation_error", "Some fields are invalid; see details.",
                    details=flatten_errors(messages))


def json_object(*, optional: bool = False) -> dict:
    """The request body as a JSON object, or a 400/415 in the house shape."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if optional:
            return {}
        raise ApiError(400, "invalid_json", "The request body must be a JSON object.")
    mimetype = request.mimetype
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ApiError(415, "unsupported_media_type", "Send the request body with Content-Type: application/json.")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "invalid_json", "The request body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", "The request body must be a JSON object.")
    return body


def load(schema: Schema, data: dict):
    """Validate with a schema; 422 with field paths on failure."""
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise validation_error(exc.messages) from None
