"""LiveServer's exit against a waitress worker pulling the trigger at the same moment.

`LiveServer.__exit__` queues a thunk that closes every dispatcher of the server's map (the trigger's
pipe included: `BaseWSGIServer.close()` closes the trigger) and then writes the trigger's wake-up
byte. A waitress worker pulls the same trigger after every request it serves (`HTTPChannel.service`).
If that pull wakes the loop thread between the queueing and the write, the loop runs the thunk and
closes the pipe, and the exit's own `os.write` then goes to a closed descriptor: `OSError: [Errno 9]
Bad file descriptor` in `trigger._physical_pull` (or, had the number been reused meanwhile, a stray
byte into someone else's descriptor). The test below forces that interleaving -- the pause a GIL
switch can put there -- instead of waiting for it to happen by chance.
"""

from __future__ import annotations

import threading
import time

from waitress import wasyncore

from tests.support.live import LiveServer


def _app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]


class _ThunkRunsBeforeTheWrite:
    """Stands in for `trigger.lock`. When the exit releases it after queueing its thunk, the trigger is
    pulled once more, as a waitress worker pulls it after a request, and the exit waits until the loop
    thread has run the queued thunks: only then does the exit's own `_physical_pull` go on."""

    def __init__(self, trigger, exiting: threading.Thread):
        self.inner, self.trigger, self.exiting = trigger.lock, trigger, exiting
        self.interleaved = False

    def __enter__(self):
        return self.inner.__enter__()

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)
        if self.exiting is threading.current_thread() and self.trigger.thunks and not self.interleaved:
            self.trigger._physical_pull()          # the worker's pull (from this thread: same effect)
            deadline = time.monotonic() + 5
            while self.trigger.thunks and time.monotonic() < deadline:
                time.sleep(0.001)                  # the loop thread runs the thunks meanwhile
            self.interleaved = not self.trigger.thunks
        return False


def _exit_while_a_worker_pulls(live: LiveServer) -> tuple[_ThunkRunsBeforeTheWrite, list[str]]:
    """Exit `live` under the forced interleaving; returns it and each write to an already closed trigger."""
    live.__enter__()
    trigger = live.server.trigger
    preempt = trigger.lock = _ThunkRunsBeforeTheWrite(trigger, threading.current_thread())
    late_writes: list[str] = []
    pull = trigger._physical_pull

    def recorded_pull() -> None:
        if trigger._closed:
            late_writes.append(f"a write to the trigger after it was closed, from {threading.current_thread().name}")
        pull()

    trigger._physical_pull = recorded_pull
    try:
        live.__exit__(None, None, None)
    finally:
        if live.thread.is_alive():  # an exit that failed before the loop could be told to stop
            wasyncore.close_all(live.server._map, ignore_all=True)
            live.thread.join(10)
    return preempt, late_writes


def test_the_exit_never_writes_to_a_closed_trigger_when_a_worker_pulls_it_meanwhile():
    live = LiveServer(_app, threads=2)
    preempt, late_writes = _exit_while_a_worker_pulls(live)
    assert preempt.interleaved                    # the thunk did run before the exit's own write
    assert late_writes == []
    assert not live.thread.is_alive() and not live.server._map
    assert live.server.trigger._closed            # and nothing is left open
