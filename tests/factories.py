"""Request bodies for tests."""

from __future__ import annotations


def submission(**overrides) -> dict:
    """A valid submission in the spec's spelling."""
    body = {
        "companyId": "client_1042", "industry": "Healthcare", "framework": "ISO 27001", "policy": "YES",
        "requirements": [
            {"id": "A.5.15", "title": "Access control", "status": "not_met"},
            {"id": "A.8.13", "title": "Information backup", "status": "partially_met"},
            {"id": "A.5.1", "title": "Policies for information security", "status": "met"},
            {"id": "A.5.19", "title": "Information security in supplier relationships", "status": "met"},
        ],
    }
    body.update(overrides)
    return body
