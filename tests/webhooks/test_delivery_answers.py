"""What a partner's receiver answered is kept with each attempt (its first 2 KB, as text) and shown, escaped, on the
delivery's own portal page with the payload as sent; the status shows once per attempt."""

from __future__ import annotations

import json
import re
import threading
from html import unescape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from app.extensions import db
from app.models import WebhookDelivery
from tests.portal import make_user, sign_in
from tests.webhooks.conftest import bearer, run, settled

ANSWERS = [(503, b"<h1>upstream down</h1><script>alert(1)</script>" + b"x" * 3000), (200, '{"received": "✓"}'.encode())]


class AnsweringReceiver:
    """Answers the n-th POST with ANSWERS[n] (the last one after that)."""

    def __init__(self):
        self.count = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                self.rfile.read(int(self.headers["Content-Length"]))
                status, body = ANSWERS[min(receiver.count, len(ANSWERS) - 1)]
                receiver.count += 1
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_each_attempt_keeps_the_answer_and_the_delivery_page_shows_it_with_the_payload(app, client, make_key):
    receiver = AnsweringReceiver()
    try:
        issued = make_key("Acme Security", webhook_url=receiver.url)
        auth = bearer(issued)
        result = run(client, auth)
        [delivery] = settled(client, auth)
    finally:
        receiver.stop()
    first, second = delivery["attempts"]
    assert (first["statusCode"], second["statusCode"]) == (503, 200) and delivery["status"] == "succeeded"
    assert first["responseBody"].startswith("<h1>upstream down</h1>") and len(first["responseBody"]) == 2048
    assert second["responseBody"] == '{"received": "✓"}'

    make_user(app)
    assert sign_in(client).status_code == 302
    listing = client.get("/portal/webhooks").get_data(as_text=True)
    assert f'href="/portal/webhooks/{delivery["id"]}"' in listing
    page = client.get(f"/portal/webhooks/{delivery['id']}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html   # escaped
    words = unescape(re.sub(r"<[^>]+>", " ", html))
    assert words.count("HTTP 503") == 1 and words.count("HTTP 200") == 1     # the status once, not "HTTP 503 HTTP 503"
    assert '{"received": "✓"}' in words
    # The payload as sent, indented, with the run's own values.
    assert '"event": "assessment.reports.completed"' in words and f'"assessmentId": {result["assessmentId"]}' in words
    sent = json.loads(re.search(r"Payload as sent\s*(\{.*\})", words, re.S).group(1))
    assert sent["embedToken"] == result["embedToken"]
    # Another partner's, and no such delivery: 404.
    assert client.get("/portal/webhooks/dlv_" + "0" * 32).status_code == 404
    other = make_key("Globex").key
    with app.app_context():
        db.session.add(WebhookDelivery(
            id="dlv_theirs", partner_id=other.partner_id, api_key_id=other.id, assessment_id=1, event="x",
            url="https://hooks.globex.example/", body=b"{}", event_at="x", status="failed", attempts=[]))
        db.session.commit()
    assert client.get("/portal/webhooks/dlv_theirs").status_code == 404
