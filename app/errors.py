"""One error shape: JSON `{"error", "code"[, "details"]}` under /api, a small HTML page elsewhere."""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Callable

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException, NotFound

from .extensions import db

log = logging.getLogger(__name__)

# Codes for the HTTP errors werkzeug raises on its own (routing, body size, methods).
HTTP_CODES = {
    400: ("bad_request", "The request could not be understood."),
    401: ("unauthorized", "A valid API key is required."),
    403: ("forbidden", "This key may not do that."),
    404: ("not_found", "No such resource."),
    405: ("method_not_allowed", "This method is not allowed on this resource."),
    409: ("conflict", "The request conflicts with the current state of the resource."),
    413: ("payload_too_large", "The request body is larger than 1 MiB."),
    415: ("unsupported_media_type", "Send the request body as application/json."),
    422: ("validation_error", "The request body is not valid."),
    429: ("rate_limited", "Rate limit exceeded. Try again later."),
}


class ApiError(Exception):
    """An error a client caused, answered with the JSON error shape."""

    def __init__(self, status: int, code: str, message: str, details: dict | None = None,
                 headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}


def not_found(message: str = "No such resource.") -> ApiError:
    return ApiError(404, "not_found", message)


def json_error(status: int, code: str, message: str, details: dict | None = None,
               headers: dict | None = None, **extra) -> Response:
    """The one JSON error response (`extra` adds fields such as `retryAfter`)."""
    body = {"error": message, **extra, "code": code}
    if details:
        body["details"] = details
    response = jsonify(body)
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def wants_json() -> bool:
    """JSON for the API and the machine endpoints; HTML for pages people look at."""
    path = request.path
    return path.startswith("/api/") or path == "/api" or path in ("/healthz", "/openapi.json")


def html_error(status: int, title: str) -> Response:
    """The HTML answer to an error: the page of the area the request is in, where the area registered one
    (`error_pages`: the portal keeps its layout and navigation on a 405 or a 500), else the shared page."""
    for matches, render in current_app.extensions.get("error_pages", ()):
        if matches():
            try:
                return render(status, title)
            except Exception:  # noqa: BLE001 - the area's page needs what may have failed (the database)
                log.warning("the area's own %s page failed; the shared page answers", status, exc_info=True)
                try:
                    db.session.rollback()
                except Exception:  # noqa: BLE001 - the database itself may be what failed
                    log.debug("rollback after the area's error page failed", exc_info=True)
    return Response(render_template("errors/error.html", status=status, title=title),
                    status=status, mimetype="text/html")


def error_pages(app: Flask, matches: Callable[[], bool], render: Callable[[int, str], Response]) -> None:
    """Let an area answer its requests' HTML errors with a page of its own: `render(status, message)` wherever
    `matches()` holds for the request."""
    app.extensions.setdefault("error_pages", []).append((matches, render))


# A code point of the surrogate range is always a lone surrogate in a Python string (JSON's escaped pairs are
# joined when parsed): UTF-8 cannot encode it, so it is written as JSON's own escape.
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, with names and titles as written (no \\u escapes), and any lone surrogate a partner sent
    (a key of an unknown field, echoed in a 422) escaped, so building the answer never fails."""
    ensure_ascii = False
    sort_keys = False

    def dumps(self, obj, **kwargs) -> str:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", super().dumps(obj, **kwargs))


def refuse_nul() -> None:
    """No resource is named with a NUL, and no database takes one in a query (Postgres refuses it with an
    error): in an API request, a NUL in the path is a 404 and in a query parameter a 422 naming it, before
    any view runs (after authentication: app/api/__init__.py)."""
    if "\x00" in request.path:
        raise NotFound()
    named = [key for key, value in request.args.items(multi=True) if "\x00" in key or "\x00" in value]
    if named:
        raise ApiError(422, "validation_error", "Some fields are invalid; see details.",
                       details={key: ["Must not contain NUL characters."] for key in named})


def _refuse_nul_in_page_paths() -> None:
    """Pages: a NUL in the path is a 404. Their query parameters are checked by the views that read them (a
    sign-in's `next` with a NUL is dropped, and the sign-in goes on)."""
    if request.blueprint != "api" and "\x00" in request.path:
        raise NotFound()


def client_error(error: HTTPException) -> Response:
    """The house answer to an HTTP error under 500: JSON for the API, the shared HTML page for the rest."""
    status = error.code or 400
    code, message = HTTP_CODES.get(status, ("http_error", error.description or "Request failed."))
    headers = {}
    if status == 405 and getattr(error, "valid_methods", None):
        headers["Allow"] = ", ".join(error.valid_methods)
    if wants_json():
        return json_error(status, code, message, headers=headers)
    response = html_error(status, message)
    response.headers.update(headers)
    return response


def register_error_handlers(app: Flask) -> None:
    """Answer every error in the house shape; never a stack trace."""
    app.before_request(_refuse_nul_in_page_paths)

    @app.errorhandler(ApiError)
    def handle_api_error(error: ApiError):
        return json_error(error.status, error.code, error.message, error.details, error.headers)

    @app.errorhandler(HTTPException)
    def handle_http_exception(error: HTTPException):
        if (error.code or 500) >= 500:
            return handle_unexpected(error)
        return client_error(error)

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def handle_database_unavailable(error: Exception):
        log.error("database unavailable on %s %s: %s", request.method, request.path, type(error).__name__)
        try:
            db.session.rollback()
        except Exception:  # noqa: BLE001 - the connection is already gone
            log.debug("rollback after a database error failed", exc_info=True)
        if wants_json():
            return json_error(503, "service_unavailable", "The database is unavailable. Try again shortly.",
                              headers={"Retry-After": "5"})
        response = html_error(503, "The service is briefly unavailable. Try again shortly.")
        response.headers["Retry-After"] = "5"
        return response

    @app.errorhandler(Exception)
    def handle_unexpected(error: Exception):
        if isinstance(error, DBAPIError):
            # The database's own message quotes the values it refused (Postgres: "Key (view_token)=(...)
            # already exists"): log where it failed and the SQLSTATE, never the message.
            sqlstate = getattr(error.orig, "sqlstate", None) or "unknown"
            log.error("unhandled database error on %s %s: %s, %s (SQLSTATE %s)\n%s", request.method, request.path,
                      type(error).__name__, type(error.orig).__name__, sqlstate,
                      "".join(traceback.format_tb(error.__traceback__)).rstrip())
        else:
            log.exception("unhandled error on %s %s", request.method, request.path)
        try:
            db.session.rollback()
        except Exception:  # noqa: BLE001 - the rollback itself may fail when the database is gone
            log.warning("rollback after an unhandled error failed", exc_info=True)
        if wants_json():
            return json_error(500, "internal_error", "Something went wrong on our side. Try again later.")
        return html_error(500, "Something went wrong on our side.")
