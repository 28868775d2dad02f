"""A real SMTP server on loopback that keeps every message it is given (enough SMTP for smtplib's client)."""

from __future__ import annotations

import email
import socketserver
import threading
from email.message import Message


class SmtpSink:
    def __init__(self):
        self.messages: list[Message] = []
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line: str) -> None:
                self.wfile.write(line.encode() + b"\r\n")

            def handle(self):
                self.reply("220 sink ready")
                while line := self.rfile.readline():
                    command = line.decode(errors="replace").strip().upper()
                    if command.startswith(("EHLO", "HELO")):
                        self.reply("250 sink")
                    elif command.startswith(("MAIL", "RCPT", "RSET", "NOOP")):
                        self.reply("250 OK")
                    elif command == "DATA":
                        self.reply("354 go ahead")
                        body = b""
                        while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                            body += chunk[1:] if chunk.startswith(b"..") else chunk
                        sink.messages.append(email.message_from_bytes(body))
                        self.reply("250 kept")
                    elif command == "QUIT":
                        self.reply("221 bye")
                        return
                    else:
                        self.reply("502 not here")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def __enter__(self) -> SmtpSink:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
