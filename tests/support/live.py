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
        # Stop the loop from its own thread, but keep the trigger's pipe open until no worker can
        # pull it: a worker pulls it after every request, and a pull that woke the loop before our
        # own would let the loop close the pipe under our write (EBADF, or a stray byte into a
        # reused descriptor).
        server, trigger = self.server, self.server.trigger

        def stop() -> None:  # in the loop thread; the loop ends once its map is empty
            trigger.del_channel()                  # out of the map, its pipe still open
            wasyncore.dispatcher.close(server)     # the listening socket (server.close() would close the trigger)
            wasyncore.close_all(server._map)       # the connections

        trigger.pull_trigger(stop)
        self.thread.join(10)
        server.task_dispatcher.shutdown()
        if not server.task_dispatcher.threads:     # no worker is left to pull it
            trigger.close()
