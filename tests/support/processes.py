"""The service as a real waitress process, as it runs in production."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate, timeout: float = 15, interval: float = 0.02):
    """Poll until `predicate()` is truthy and return its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(interval)


def flask_cli(env: dict, *args: str) -> str:
    return subprocess.run([BIN / "flask", "--app", "wsgi", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout


def serve_command(port: int, threads: int) -> list[str]:
    """The waitress command line of `make serve` (and `make run`), as make expands it."""
    out = subprocess.run(["make", "--no-print-directory", "-n", "serve", "HOST=127.0.0.1", f"PORT={port}",
                          f"WAITRESS_THREADS={threads}", f"BIN={BIN}"], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    [line] = [line for line in out.splitlines() if line.startswith("exec ")]
    return shlex.split(line)[1:]


def start_service(env: dict, port: int, threads: int = 16) -> subprocess.Popen:
    """The service as `make serve` runs it, on `port`; returns once /healthz answers 200."""
    process = subprocess.Popen(serve_command(port, threads), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)

    def healthy():
        try:
            return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
        except requests.ConnectionError:
            return False

    wait_until(healthy, timeout=30, interval=0.1)
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
