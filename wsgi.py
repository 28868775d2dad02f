"""WSGI entry point: `waitress-serve wsgi:app`, `flask --app wsgi ...`."""

import click

from app import create_app, start_background_work

app = create_app()

# A WSGI server importing this module serves; `flask --app wsgi <command>` imports it inside a
# click context and must not start background threads (db upgrade, keys, ...).
if click.get_current_context(silent=True) is None:
    start_background_work(app)
