"""`python -m bench.limiter_app PORT THREADS`: bare Flask plus only Flask-Limiter's moving window (memory).

The reference the issue names: what the limiter alone costs over bare Flask on the same settings.
"""

import sys

from flask import Flask
from flask_limiter import Limiter
from waitress import serve

app = Flask(__name__)
limiter = Limiter(lambda: "bench", app=app, strategy="moving-window", storage_uri="memory://")


@app.get("/bare")
@limiter.limit("10000000/hour")
def bare():
    return {"id": 1, "status": "completed"}


if __name__ == "__main__":
    serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]), _quiet=True)
