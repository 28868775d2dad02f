"""schemathesis hooks for tests/test_contract.py (loaded through SCHEMATHESIS_HOOKS).

schemathesis draws short `Idempotency-Key` values and reuses them across cases, so most generated
submissions would end as `422 idempotency_key_reused` before their body is validated. A unique key per
case keeps the header exercised and lets every case reach the endpoint's own rules.
"""

from __future__ import annotations

import uuid

import schemathesis


@schemathesis.hook
def map_headers(ctx, headers):
    if headers and "Idempotency-Key" in headers:
        headers["Idempotency-Key"] = uuid.uuid4().hex
    return headers
