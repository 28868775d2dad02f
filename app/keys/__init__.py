"""Partner API keys: issuing, hashing, lookup, the auth hook and the `keys` CLI."""

