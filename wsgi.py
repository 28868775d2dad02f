"""WSGI entry point: `waitress-serve wsgi:app`, `flask --app wsgi ...`."""

import signal
import sys
import threading

import click

from app import create_app, start_background_work

app = create_app()

# A WSGI server importing this module serves; `flask --app wsgi <command>` imports it inside a
# click context and must not start background threads (db upgrade, keys, ...).
if click.get_current_context(silent=True) is None:
    start_background_work(app)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM ends the process through SystemExit, so atexit work (the last view counts) runs.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
