"""`python -m bench.llm_server LATENCY [slots=N] [report_slots=1] [refuse=429]`: the loopback
OpenAI-compatible server in its own process.

A separate process keeps the server's CPU off the benchmarked process's GIL; it prints its base
URL on the first line and serves until killed; on SIGTERM it prints its counters (the most calls in
service and in flight at once, the refusals, the requests) as a JSON line and exits. `slots` gives
it that many slots (llama.cpp's `--parallel`), `report_slots=1` has it say so at GET /props
(`total_slots`), and `refuse=429` (or 503) has it refuse a call past its slots, with
`Retry-After: 0`, instead of queueing it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from types import SimpleNamespace

from tests.support.fake_openai import FakeOpenAIServer


@contextmanager
def llm_server(latency: float):
    """Start the server in a subprocess and yield its base URL."""
    with llm_server_process(latency) as server:
        yield server.base_url


@contextmanager
def llm_server_process(latency: float, *, slots: int | None = None, report_slots: bool = False,
                       refuse: int | None = None):
    """Start the server in a subprocess; yield it (`base_url`; `stats`, its counters, once stopped)."""
    options = [f"{name}={value}" for name, value in
               (("slots", slots), ("report_slots", int(report_slots)), ("refuse", refuse)) if value]
    process = subprocess.Popen([sys.executable, "-m", "bench.llm_server", str(latency), *options],
                               stdout=subprocess.PIPE, text=True)
    server = SimpleNamespace(base_url=process.stdout.readline().strip(), stats={})
    try:
        yield server
    finally:
        process.terminate()
        last = process.stdout.read().strip()
        process.wait(timeout=10)
        process.stdout.close()
        server.stats = json.loads(last) if last else {}


def _stop(server: FakeOpenAIServer) -> None:
    print(json.dumps({"max_in_service": server.max_in_service, "max_concurrency": server.max_concurrency,
                      "refused": server.refused, "requests": len(server.requests)}), flush=True)
    os._exit(0)


if __name__ == "__main__":
    server = FakeOpenAIServer(latency=float(sys.argv[1]))
    options = dict(arg.split("=", 1) for arg in sys.argv[2:])
    server.slots = int(options["slots"]) if "slots" in options else None
    server.report_slots = options.get("report_slots") == "1"
    server.refuse_beyond_slots = int(options["refuse"]) if "refuse" in options else None
    server.retry_after = 0
    signal.signal(signal.SIGTERM, lambda *_: _stop(server))
    server.start()
    print(server.base_url, flush=True)
    threading.Event().wait()
