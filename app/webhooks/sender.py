"""The sender: a dispatcher thread claims due deliveries and a small pool attempts them.

Attempts to different endpoints run side by side (`WEBHOOK_CONCURRENCY`), so a receiver that
hangs holds one worker for its timeout and delays nobody else; attempts to one endpoint run one at
a time, in due order (see `claims`). One partner has at most `WEBHOOK_PARTNER_CONCURRENCY` of the
workers, so a partner with several slow endpoints leaves the rest to the other partners.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for_futures

from flask import Flask

from ..config import webhook_partner_concurrency
from ..database import discard_session
from .attempts import attempt_delivery
from .claims import POLL_SECONDS, claim_due, release_claims, seconds_until_next_due

log = logging.getLogger(__name__)
LEASE_MARGIN_SECONDS = 30  # a claim outlives the attempt's timeout by this much


class WebhookSender:
    """One dispatcher thread and one attempt pool per serving process; woken when a delivery is queued."""

    def __init__(self, app: Flask):
        self.app = app
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()  # guards the two mappings below (dispatcher and workers)
        self._in_flight: dict[str, int] = {}  # endpoints (URLs) with an attempt running here -> their partner
        self._futures: dict[Future, int] = {}   # attempts running or queued here, with their delivery

    def start(self) -> None:
        """Start the dispatcher and its pool (once)."""
        if self._thread is None:
            self._stop.clear()
            self._pool = ThreadPoolExecutor(max_workers=self.app.config["WEBHOOK_CONCURRENCY"],
                                            thread_name_prefix="webhook-attempt")
            self._thread = threading.Thread(target=self._run, name="webhook-sender", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Have the dispatcher look for due deliveries now."""
        self._wake.set()

    def stop(self, timeout: float = 15) -> None:
        """Stop claiming, then give running attempts up to `timeout` seconds to finish and be recorded; the
        claims of those still running are released, so another process attempts them at once."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._pool is not None:
            with self._lock:
                running = list(self._futures)
            wait_for_futures(running, timeout=timeout)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            with self._lock:
                unfinished = [pk for future, pk in self._futures.items() if not future.done() or future.cancelled()]
            if unfinished:
                with self.app.app_context():
                    release_claims(unfinished)

    def _run(self) -> None:
        log.info("webhook sender started")
        while not self._stop.is_set():
            # Cleared before looking, so a wake-up that arrives while we look is not lost.
            self._wake.clear()
            delay = POLL_SECONDS
            with self.app.app_context():
                try:
                    delay = self._dispatch()
                except Exception:  # noqa: BLE001 - e.g. the database is briefly down: keep the thread alive
                    log.exception("webhook sender cycle failed; retrying in %.0f s", POLL_SECONDS)
                finally:
                    discard_session()
            if delay > 0:
                self._wake.wait(timeout=delay)

    def _dispatch(self) -> float:
        """Hand due deliveries of idle endpoints to free workers, no partner past its share; return how long
        to sleep."""
        config = self.app.config
        partner_cap = webhook_partner_concurrency(config)
        with self._lock:
            in_flight = dict(self._in_flight)
        # Only as many claims as free workers: a claimed delivery never waits in the pool's queue,
        # where its lease would run down and its endpoint would look busy for nothing.
        free = config["WEBHOOK_CONCURRENCY"] - len(in_flight)
        if free > 0 and not self._stop.is_set():
            lease = config["WEBHOOK_TIMEOUT_SECONDS"] + LEASE_MARGIN_SECONDS
            for pk, url, partner_id in claim_due(in_flight, free, lease, partner_cap):
                with self._lock:
                    self._in_flight[url] = partner_id
                    future = self._pool.submit(self._attempt, pk, url)
                    self._futures[future] = pk
                in_flight[url] = partner_id
                free -= 1
        if free <= 0:
            return POLL_SECONDS  # a worker that finishes wakes the dispatcher
        return seconds_until_next_due(in_flight, partner_cap)

    def _attempt(self, pk: int, url: str) -> None:
        # Runs on a pool thread: its own app context and session, and only ids from the dispatcher.
        try:
            with self.app.app_context():
                try:
                    attempt_delivery(pk, self.app.config)
                except Exception:  # noqa: BLE001 - the claim's lease lets a later cycle try again
                    log.exception("webhook attempt of delivery %s could not run", pk)
                finally:
                    discard_session()
        finally:
            with self._lock:
                self._in_flight.pop(url, None)
                self._futures = {f: pk for f, pk in self._futures.items() if not f.done()}
            self._wake.set()
