"""Compliance Report Service: the application factory."""

from __future__ import annotations

import logging
import os
import re

from flask import Flask

from .config import load_secret_key, settings_from_env

__version__ = "0.1.0"

FLASK_RUN_REFUSED = ("`flask run` does not serve this app: it would not start the webhook sender (webhooks would"
                     " wait in the outbox), the watchdog of runs or the PDF workers. Serve it with `make run`"
                     " (or `make serve` once installed and migrated).")


def refuse_flask_run() -> None:
    """Stop `flask run` before it serves. Background work starts only where wsgi.py is imported outside a click
    command (waitress, `make run`); Werkzeug's server, with its reloader a second process that is replaced on
    every change without a graceful stop, is not a serving process we support."""
    import click
    from flask.cli import run_command

    context = click.get_current_context(silent=True)
    if context is not None and context.command is run_command:
        raise click.ClickException(FLASK_RUN_REFUSED)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app: settings, extensions, blueprints, error handlers, CLI."""
    refuse_flask_run()
    app = Flask(__name__, instance_relative_config=True,
                template_folder=os.path.join(os.path.dirname(os.path.dirname(__file__)), "templates"))
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_mapping(settings_from_env(app.instance_path))
    app.config["MIGRATIONS_DIR"] = os.path.join(os.path.dirname(app.root_path), "migrations")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)
    from .errors import JSONProvider
    app.json = JSONProvider(app)   # "crs_…1a2b", names and titles as written, not \u escapes
    configure_logging()

    register_extensions(app)
    register_blueprints(app)
    register_errors(app)
    register_rate_limits(app)
    register_cli(app)
    return app


# Every control character a request can carry: C0 (NUL, ESC, CR, LF, ...), DEL and C1 (0x80-0x9f, which some
# terminals read as escape sequences too).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape_controls(text: str) -> str:
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def _escaping_record_factory(base):
    def make_record(*args, **kwargs) -> logging.LogRecord:
        record = base(*args, **kwargs)
        if record.name.startswith("app.") and record.args:
            message = record.getMessage()
            if _CONTROL.search(message):
                record.msg, record.args = _escape_controls(message), None
        return record

    make_record.escapes_line_breaks = True
    return make_record


def configure_logging() -> None:
    """INFO to stderr unless the host process configured logging already.

    Our log lines carry partner-supplied values (paths, emails, LLM and receiver errors): every control
    character in them is escaped (CR and LF as \\r and \\n, the others as \\xNN), so no value can forge a
    log line of its own or send escape sequences to an operator's terminal.
    """
    base = logging.getLogRecordFactory()
    if not getattr(base, "escapes_line_breaks", False):
        logging.setLogRecordFactory(_escaping_record_factory(base))
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    # The openai client's HTTP library logs every call at INFO: 25 lines per generation, written
    # from the fan-out's threads while the run waits on them. Failures are logged by the engine.
    for name in ("httpx", "httpx2", "httpcore", "httpcore2"):
        logging.getLogger(name).setLevel(logging.WARNING)
    # WeasyPrint (the PDFs) logs every print step at INFO, three of them when it is imported, and warns
    # about browser-only CSS it ignores. Set before the blueprints import it.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)


def start_background_work(app: Flask) -> None:
    """Start what a serving process runs: the webhook sender (resuming pending deliveries), the watchdog
    that finishes runs whose process died, and a PDF worker."""
    from .embed import printing

    app.extensions["webhook_sender"].start()
    app.extensions["run_watchdog"].start()
    printing.warm_up()


def stop_background_work(app: Flask, deadline: float) -> None:
    """Hand back or finish what the process runs, by `deadline` (time.monotonic()): webhook attempts in
    flight are finished and recorded (or their claims released), runs finish (or are handed to another
    process at once), print workers stop and the last view counts are written."""
    import time

    from .embed import printing
    from .generation import service

    app.extensions["run_watchdog"].stop()
    app.extensions["webhook_sender"].stop(timeout=max(0.0, deadline - time.monotonic()))
    while service.runs_in_process() and time.monotonic() < deadline:
        time.sleep(0.05)
    with app.app_context():
        service.hand_back(service.runs_in_process())
    printing.shut_down()
    app.extensions["view_counter"].stop()


def register_extensions(app: Flask) -> None:
    from . import database, generation, portal, webhooks
    from .embed import counter, pdf
    from .extensions import compress, csrf

    # First, so its after_request runs last, on the finished answer: pages and JSON over 1 KB are sent compressed
    # where the client accepts it; each encoding has its own ETag and If-None-Match still gets 304. (The viewer page
    # at 200 requirements: 67 KB, 7 KB compressed.) The static CSS and JS (18 KB, cached for a year) are files sent
    # as they are: compressing them here would read them whole and leave the file open. PDFs are sent as they are.
    app.config.setdefault("COMPRESS_MIMETYPES", ["text/html", "application/json"])
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", 1024)
    app.config.setdefault("COMPRESS_STREAMS", False)
    compress.init_app(app)

    database.init_app(app)
    generation.init_app(app)
    counter.init_app(app)
    pdf.init_app(app)
    webhooks.init_app(app)
    csrf.init_app(app)
    portal.init_app(app)


def register_blueprints(app: Flask) -> None:
    from . import main
    from .api import bp as api_bp
    from .api.openapi import build_openapi
    from .assessments import IdConverter
    from .docs import bp as docs_bp
    from .embed.views import bp as embed_bp
    from .extensions import csrf
    from .portal import blueprint as portal_blueprint

    app.url_map.converters["id"] = IdConverter
    app.register_blueprint(main.bp)
    app.register_blueprint(api_bp)
    csrf.exempt(api_bp)  # bearer keys, not cookies: nothing for a cross-site form to ride on
    app.register_blueprint(embed_bp)
    app.register_blueprint(docs_bp)
    app.register_blueprint(portal_blueprint())
    app.extensions["openapi"] = build_openapi(__version__)


def register_errors(app: Flask) -> None:
    from .errors import register_error_handlers

    register_error_handlers(app)


def register_rate_limits(app: Flask) -> None:
    from . import portal, ratelimit

    ratelimit.init_app(app)
    portal.limit_sign_in(app)


def register_cli(app: Flask) -> None:
    from .keys.cli import keys_cli
    from .portal.cli import partners_cli, users_cli

    app.cli.add_command(keys_cli)
    app.cli.add_command(users_cli)
    app.cli.add_command(partners_cli)
