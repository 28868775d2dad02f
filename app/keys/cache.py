"""A short-lived, per-process cache of validated keys."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import current_app


class KeyCache:
    """Validated keys by hash for a few seconds, so most requests spend no query on authentication.

    Revoking or changing a key forgets it in this process at once; other processes see the change
    within `API_KEY_CACHE_SECONDS`.
    """

    def __init__(self, ttl: float):
        self.ttl = ttl
        self._entries: dict[str, tuple[Any, float]] = {}
        self._lock = threading.Lock()

    def get(self, digest: str) -> Any | None:
        entry = self._entries.get(digest)
        if entry is None or time.monotonic() - entry[1] > self.ttl:
            return None
        return entry[0]

    def put(self, digest: str, key: Any) -> None:
        with self._lock:
            if len(self._entries) > 10_000:
                self._entries.clear()
            self._entries[digest] = (key, time.monotonic())

    def forget(self, key_id: int) -> None:
        with self._lock:
            for digest in [d for d, (k, _) in self._entries.items() if k.id == key_id]:
                del self._entries[digest]


def forget_cached_key(key_id: int) -> None:
    """Drop a changed or revoked key from this process's cache."""
    cache = current_app.extensions.get("key_cache")
    if cache is not None:
        cache.forget(key_id)
