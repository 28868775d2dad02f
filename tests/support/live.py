"""The app on a real loopback port, served by waitress from a daemon thread."""

from __future__ import annotations

import threading

import waitress
from waitress import wasyncore


class LiveServer:
    def __init__(self, app, threads: int = 4):
        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, name="live-server", daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        # Close every socket from the server's own loop thread, then stop its workers.
        try:
            self.server.trigger.pull_trigger(lambda: wasyncore.close_all(self.server._map))
        except OSError:
            # The trigger pipe's descriptor was closed under the server (seen once in a few full runs
            # after long LLM-backed tests; the closer is not yet found): its loop cannot be woken, so
            # close everything from here.
            wasyncore.close_all(self.server._map, ignore_all=True)
        self.thread.join(10)
        self.server.task_dispatcher.shutdown()
