"""A per-process cache of `GET /assessments/:id` bodies, kept coherent with the database.

The record read is the API's hottest request. Built from the database it costs two queries, and
each query hands the GIL back and forth with the other serving threads, which under concurrency
costs more than the queries themselves. Cached, a read costs no query at all.

How the cache stays right:
- Every write that changes what a record shows calls `record_changed(assessment_id)` inside its
  transaction. The ids ride on the session and are evicted when the transaction commits; a
  rollback forgets them. Eviction after the commit, not before, so no reader can rebuild the old
  record from the database after it was evicted.
- A reader takes a ticket before it reads the database and stores what it built only if nothing
  was evicted since, so a read racing a write cannot put the old record back.
- Other processes learn of the change from the database itself. On Postgres `record_changed` also
  queues `pg_notify`, which Postgres delivers to every listening process when, and only if, the
  transaction commits; each serving process runs a listener thread (`RecordListener`). While the
  listener is not connected (starting, or reconnecting after an error) the cache is bypassed and
  emptied, so a lost notification cannot leave a stale record behind.
- SQLite, the embedded default, is served by one process, which sees all of its own commits.

So the process that made a change never serves the old record once the change's response is out;
other processes stop serving it when the notification arrives, milliseconds after the commit.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import NamedTuple

from flask import Flask, current_app
from sqlalchemy import event, text
from sqlalchemy.orm import Session

from .extensions import db

log = logging.getLogger(__name__)

CHANNEL = "crs_record_changed"
_SESSION_KEY = "record_cache_changes"


class Entry(NamedTuple):
    partner_id: int
    base_url: str
    body: bytes


class RecordCache:
    """Serialised records by assessment id, bounded in bytes, least recently used out first."""

    def __init__(self, max_bytes: int, trusted: bool):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[int, Entry] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._version = 0  # bumped by every eviction: a reader's ticket
        self._trusted = trusted and max_bytes > 0

    @property
    def enabled(self) -> bool:
        return self._trusted

    def get(self, assessment_id: int, base_url: str) -> Entry | None:
        if not self._trusted:
            return None
        with self._lock:
            entry = self._entries.get(assessment_id)
            if entry is None or entry.base_url != base_url:
                return None
            self._entries.move_to_end(assessment_id)
            return entry

    def ticket(self) -> int:
        return self._version

    def put(self, assessment_id: int, entry: Entry, ticket: int) -> None:
        """Store a record built from the database, unless anything was evicted since `ticket`."""
        if not self._trusted or len(entry.body) > self.max_bytes:
            return
        with self._lock:
            if ticket != self._version:
                return
            old = self._entries.pop(assessment_id, None)
            if old is not None:
                self._size -= len(old.body)
            self._entries[assessment_id] = entry
            self._size += len(entry.body)
            while self._size > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._size -= len(dropped.body)

    def evict(self, assessment_ids) -> None:
        with self._lock:
            self._version += 1
            for assessment_id in assessment_ids:
                old = self._entries.pop(assessment_id, None)
                if old is not None:
                    self._size -= len(old.body)

    def set_trusted(self, trusted: bool) -> None:
        """Start or stop serving from the cache; either way, start from empty."""
        with self._lock:
            self._version += 1
            self._entries.clear()
            self._size = 0
            self._trusted = trusted and self.max_bytes > 0

    def __len__(self) -> int:
        return len(self._entries)


def record_cache(app: Flask | None = None) -> RecordCache:
    return (app or current_app).extensions["record_cache"]


def record_changed(assessment_id: int) -> None:
    """Call inside the transaction that changes what an assessment's record shows."""
    session = db.session
    changes = session.info.setdefault(_SESSION_KEY, (record_cache(), set()))[1]
    if assessment_id in changes:
        return
    changes.add(assessment_id)
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_notify(:channel, :payload)"),
                        {"channel": CHANNEL, "payload": str(assessment_id)})


def _after_commit(session: Session) -> None:
    changes = session.info.pop(_SESSION_KEY, None)
    if changes is not None:
        cache, ids = changes
        cache.evict(ids)


def _after_rollback(session: Session) -> None:
    session.info.pop(_SESSION_KEY, None)


class RecordListener:
    """One thread per serving process on Postgres: LISTENs, evicts what other processes changed."""

    HEALTH_SECONDS = 5.0
    RETRY_SECONDS = 1.0

    def __init__(self, app: Flask):
        self.app = app
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="record-listener", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10) -> None:
        self._stop.set()
        if self._thread is not None and self.listening.is_set():
            try:  # wake the thread from its wait for notifications
                with self.app.app_context(), db.engine.begin() as connection:
                    connection.execute(text("SELECT pg_notify(:channel, 'wake')"), {"channel": CHANNEL})
            except Exception:  # noqa: BLE001 - the database is gone: the wait ends by its timeout
                log.debug("could not wake the record listener", exc_info=True)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _connect(self):
        with self.app.app_context():
            pooled = db.engine.raw_connection()  # the engine's own connect arguments
        connection = pooled.driver_connection
        pooled.detach()  # this connection is the listener's alone, never back into the pool
        connection.autocommit = True
        return connection

    def _run(self) -> None:
        cache = record_cache(self.app)
        failing = False  # warn once per outage, not once per retry
        while not self._stop.is_set():
            connection = None
            lost = None
            try:
                connection = self._connect()
                connection.execute("SET application_name = 'crs-record-listener'")  # for pg_stat_activity
                connection.execute(f"LISTEN {CHANNEL}")
                cache.set_trusted(True)
                self.listening.set()
                log.info("record cache listening for changes%s", " again" if failing else "")
                failing = False
                while not self._stop.is_set():
                    for note in connection.notifies(timeout=self.HEALTH_SECONDS):
                        if note.payload.isdigit():
                            cache.evict((int(note.payload),))
                        elif self._stop.is_set():
                            break
                    connection.execute("SELECT 1")  # a dead connection must not pass for a quiet one
            except Exception as exc:  # noqa: BLE001 - the database is down or the connection dropped
                lost = exc
            finally:  # stop serving from the cache before anything else, the warning included
                self.listening.clear()
                cache.set_trusted(False)
                if connection is not None:
                    try:
                        connection.close()
                    except Exception:  # noqa: BLE001, S110 - closing a broken connection
                        pass
            if lost is not None:
                if not self._stop.is_set() and not failing:
                    log.warning("record cache listener lost the database; serving records uncached "
                                "until it reconnects", exc_info=lost)
                failing = True
            self._stop.wait(self.RETRY_SECONDS)


def init_app(app: Flask) -> None:
    """Give the app its cache; on Postgres it serves only while a listener (`start_background_work`) runs."""
    sqlite = app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite")
    app.extensions["record_cache"] = RecordCache(int(app.config["RECORD_CACHE_MB"] * 1024 * 1024), trusted=sqlite)
    app.extensions["record_listener"] = None if sqlite else RecordListener(app)
    if not event.contains(Session, "after_commit", _after_commit):
        event.listen(Session, "after_commit", _after_commit)
        event.listen(Session, "after_rollback", _after_rollback)
