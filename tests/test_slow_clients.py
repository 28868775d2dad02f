"""A flood of slow clients does not lock a normal client out of the server `make run` starts."""

from __future__ import annotations

import os
import socket
import threading

import pytest
import requests

from tests.support.processes import flask_cli, free_port, start_service, stop

pytestmark = pytest.mark.slow
SLOW_CLIENTS = 200


def test_200_connections_dribbling_headers_leave_room_for_a_normal_client(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/slow.db", "SECRET_KEY": "test-secret-key"}
    flask_cli(env, "db", "upgrade")
    port = free_port()
    service = start_service(env, port, threads=4)
    stop_dribbling = threading.Event()
    sockets: list[socket.socket] = []
    try:
        for _ in range(SLOW_CLIENTS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(sock)

        def dribble() -> None:  # one header byte per connection every 0.2 s, never finishing the request
            while not stop_dribbling.wait(0.2):
                for sock in sockets:
                    try:
                        sock.sendall(b"a")
                    except OSError:
                        pass

        dribbler = threading.Thread(target=dribble, daemon=True)
        dribbler.start()
        for _ in range(3):
            response = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            assert response.status_code == 200
    finally:
        stop_dribbling.set()
        for sock in sockets:
            sock.close()
        stop(service)
