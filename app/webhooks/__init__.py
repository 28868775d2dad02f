"""Webhooks: URL safety, and (later) the outbox, signer and sender thread."""
