"""`python -m bench.bare_app PORT THREADS`: the baseline, a bare Flask JSON endpoint on waitress."""

import sys

from flask import Flask
from waitress import serve

app = Flask(__name__)


@app.get("/bare")
def bare():
    return {"id": 1, "status": "completed"}


if __name__ == "__main__":
    serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]), _quiet=True)
