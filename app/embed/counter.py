"""View counts kept in memory and written in batches, off the request path.

A page view adds one to a per-process counter; a daemon thread, started on the first view, writes
what has accumulated every `EMBED_VIEW_FLUSH_SECONDS` in one transaction (one UPDATE per report,
`view_count = view_count + n`, so several processes add up correctly). What is still in memory is
written at a clean exit (atexit, which runs on SIGINT and on SIGTERM through the handler the app
installs for waitress) and whenever `flush()` is called. Counts in the API and the portal are at
most one interval behind.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import Counter

from flask import Flask
from sqlalchemy import bindparam, update
from sqlalchemy.exc import SQLAlchemyError

from ..extensions import db
from ..models import Report

log = logging.getLogger(__name__)

_ADD_VIEWS = (update(Report.__table__).where(Report.__table__.c.id == bindparam("report_id"))
              .values(view_count=Report.__table__.c.view_count + bindparam("views")))


class ViewCounter:
    """Per-process view counts, flushed to the database in batches."""

    def __init__(self, app: Flask, interval: float):
        self.app, self.interval = app, interval
        self._pending: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def add(self, report_id: int) -> None:
        with self._lock:
            self._pending[report_id] += 1
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._run, name="view-counter", daemon=True)
                self._thread.start()

    def flush(self) -> int:
        """Write what has accumulated; returns the number of views written. Safe from any thread."""
        with self._flush_lock:
            with self._lock:
                pending, self._pending = self._pending, Counter()
            if not pending:
                return 0
            with self.app.app_context():
                try:
                    db.session.execute(_ADD_VIEWS, [{"report_id": r, "views": n} for r, n in pending.items()])
                    db.session.commit()
                except SQLAlchemyError:
                    db.session.rollback()
                    log.warning("could not write %s view counts; keeping them for the next flush",
                                sum(pending.values()), exc_info=True)
                    with self._lock:
                        self._pending.update(pending)
                    return 0
                finally:
                    db.session.remove()
            return sum(pending.values())

    def _run(self) -> None:
        while not self._stopped:
            self._wake.wait(self.interval)
            self._wake.clear()
            if not self._stopped:   # stop() writes the rest itself
                self.flush()

    def stop(self) -> None:
        """Write what is left and stop the thread (at exit); views after this are not counted."""
        self._stopped = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.flush()


def init_app(app: Flask) -> None:
    counter = ViewCounter(app, app.config["EMBED_VIEW_FLUSH_SECONDS"])
    app.extensions["view_counter"] = counter
    atexit.register(counter.stop)
