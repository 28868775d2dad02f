"""Blueprint /docs: the interactive API reference, Swagger UI over /openapi.json, all from our own origin.

Swagger UI's files come from the `swagger-ui-bundle-v2` package (installed, never fetched from a CDN);
they are served under a path that names their version, so browsers keep them for a year. Our own
small files (the init script, a few styles) carry a content hash in `?v=`. The page runs no inline
script and loads nothing from another origin: its Content-Security-Policy says so.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, render_template, request, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path

from ..embed.service import asset_version

bp = Blueprint("docs", __name__, static_folder="static", static_url_path="/docs/static")

ONE_YEAR = 365 * 24 * 3600
VENDOR_DIR = Path(str(swagger_ui_path))
# "swagger-ui-5.31.0" -> "5.31.0": the version is part of the assets' URLs.
SWAGGER_UI_VERSION = VENDOR_DIR.name.removeprefix("swagger-ui-")
# The only files of the bundle the page uses; nothing else in the package is served.
VENDOR_FILES = frozenset({"swagger-ui.css", "swagger-ui-bundle.js"})

# Only our own origin, for everything. Swagger UI's React sets element styles through the DOM, which
# style-src does not govern, so no 'unsafe-inline' is needed (tests/test_docs_browser.py finds no
# violation while operations, examples, schemas, the Authorize dialog and "Try it out" are used).
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
    "font-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
    "frame-ancestors 'none'",
])


def docs_asset(filename: str) -> str:
    """URL of one of our static files, versioned by its content."""
    return url_for("docs.static", filename=filename, v=asset_version(bp.static_folder, filename))


def vendor_asset(filename: str) -> str:
    return url_for("docs.vendor", version=SWAGGER_UI_VERSION, filename=filename)


@bp.get("/docs")
def index():
    return render_template("docs/index.html", docs_asset=docs_asset, vendor_asset=vendor_asset,
                           spec_url=url_for("main.openapi_document"))


@bp.get("/docs/vendor/swagger-ui/<version>/<filename>")
def vendor(version: str, filename: str):
    """A file of the installed Swagger UI; only the current version's, only the files the page uses."""
    if version != SWAGGER_UI_VERSION or filename not in VENDOR_FILES:
        abort(404)
    return send_from_directory(VENDOR_DIR, filename, max_age=ONE_YEAR)


@bp.after_app_request
def docs_headers(response: Response) -> Response:
    """Security and caching headers on every response under /docs, routing errors included."""
    if not (request.path == "/docs" or request.path.startswith("/docs/")):
        return response
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    if response.status_code not in (200, 304):
        response.headers["Cache-Control"] = "no-store"
    elif request.endpoint == "docs.vendor":
        response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"   # named by its version
    elif request.endpoint == "docs.static":
        filename = (request.view_args or {}).get("filename", "")
        current = asset_version(bp.static_folder, filename)
        versioned = current is not None and request.args.get("v") == current
        response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable" if versioned else "no-cache"
    else:
        response.headers["Cache-Control"] = "no-cache"   # the page names the assets: always the current ones
    return response
