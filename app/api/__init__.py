"""Blueprint /api/v1: thin views that load a schema, call a service and dump a schema."""

from flask import Blueprint

from .. import requests_log
from ..errors import refuse_nul
from ..keys.auth import require_api_key
from . import idempotency

bp = Blueprint("api", __name__, url_prefix="/api/v1")
bp.before_request(requests_log.start)   # first: the duration counts authentication too
bp.before_request(require_api_key)
bp.before_request(refuse_nul)   # after authentication, as any 404 or 422: no key is a 401 first
bp.before_request(idempotency.begin)   # after authentication: keys are scoped to the partner
# Flask runs after-request functions in reverse: the log is written last, once idempotency.finish has committed.
bp.after_request(requests_log.record)
bp.after_request(idempotency.finish)

from . import assessments, catalog, generation, keys, reports, webhooks  # noqa: E402,F401  (views register on bp)
