"""Servers for the HTTP benchmarks, each in its own process on the same waitress settings."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
THREADS = 16


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=1).status_code < 500:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


@contextmanager
def _process(args: list, env: dict, health_url: str):
    process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_healthy(health_url)
        yield
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def bare_flask(module: str = "bench.bare_app"):
    """A bare Flask endpoint returning a small JSON object (`bench.limiter_app`: behind the limiter); yields its URL."""
    port = free_port()
    with _process([sys.executable, "-m", module, str(port), str(THREADS)], dict(os.environ),
                  f"http://127.0.0.1:{port}/bare"):
        yield f"http://127.0.0.1:{port}/bare"


@contextmanager
def bare_page(path: str):
    """A bare Flask handler sending the bytes of the file at `path` as HTML; yields its URL."""
    port = free_port()
    with _process([sys.executable, "-m", "bench.bare_page_app", str(port), str(THREADS), path], dict(os.environ),
                  f"http://127.0.0.1:{port}/bare"):
        yield f"http://127.0.0.1:{port}/bare"


@contextmanager
def service(directory: str, **env_overrides):
    """The service under waitress on a fresh SQLite database; yields (base URL, env)."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{directory}/bench.db", "SECRET_KEY": "bench",
           "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}", **env_overrides}
    subprocess.run([BIN / "flask", "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    with _process([BIN / "waitress-serve", f"--listen=127.0.0.1:{port}", f"--threads={THREADS}", "wsgi:app"], env,
                  f"http://127.0.0.1:{port}/healthz"):
        yield f"http://127.0.0.1:{port}", env


def create_key(env: dict, rate_limit: int = 10_000_000, partner: str = "bench") -> str:
    out = subprocess.run([BIN / "flask", "--app", "wsgi", "keys", "create", "--partner", partner,
                          "--rate-limit", str(rate_limit), "--json"], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["apiKey"]


def load(url: str, **options) -> dict:
    """Run bench.load in its own process so the load never shares the server's GIL."""
    args = [sys.executable, "-m", "bench.load", url, "--threads", str(options.get("threads", 16)),
            "--seconds", str(options.get("seconds", 5.0)), "--method", options.get("method", "GET")]
    for name, value in options.get("headers", {}).items():
        args += ["--header", f"{name}: {value}"]
    if options.get("body"):
        args += ["--body", options["body"]]
    out = subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)
