"""Partner API keys: issuing, hashing, lookup, the auth hook and the `keys` CLI."""

from flask import Flask


def init_app(app: Flask) -> None:
    """Give the app its cache of validated keys."""
    from .cache import KeyCache

    app.extensions["key_cache"] = KeyCache(app.config["API_KEY_CACHE_SECONDS"])
