"""`python -m bench.bare_page_app PORT THREADS FILE`: a bare Flask handler sending FILE's bytes as HTML on
waitress, the baseline the embed viewer page is compared with (the same bytes, the same server settings)."""

import sys

from flask import Flask, Response
from waitress import serve

app = Flask(__name__)
with open(sys.argv[3], "rb") as page:
    BODY = page.read()


@app.get("/bare")
def bare():
    return Response(BODY, mimetype="text/html")


if __name__ == "__main__":
    serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]), _quiet=True)
