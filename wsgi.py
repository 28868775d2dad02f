"""WSGI entry point: `waitress-serve wsgi:app`, `flask --app wsgi ...`."""

import gc
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
    # What start-up built (catalogue, knowledge, mappers, templates) lives as long as the process: keep it
    # out of the collector's full passes, which stop every thread. Under page load they took 70-550 ms,
    # several times a minute (the embed benchmark's p99 outliers); with this, 10-30 ms.
    gc.freeze()
    if threading.current_thread() is threading.main_thread():
        # SIGTERM ends the process through SystemExit, so atexit work (the last view counts) runs.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
