"""`python -m bench.llm_server LATENCY`: the loopback OpenAI-compatible server in its own process.

A separate process keeps the server's CPU off the benchmarked process's GIL; it prints its base
URL on the first line and serves until killed.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from contextlib import contextmanager

from tests.support.fake_openai import FakeOpenAIServer


@contextmanager
def llm_server(latency: float):
    """Start the server in a subprocess and yield its base URL."""
    process = subprocess.Popen([sys.executable, "-m", "bench.llm_server", str(latency)],
                               stdout=subprocess.PIPE, text=True)
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


if __name__ == "__main__":
    server = FakeOpenAIServer(latency=float(sys.argv[1])).start()
    print(server.base_url, flush=True)
    threading.Event().wait()
