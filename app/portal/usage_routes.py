"""Routes of the usage pages kept out of views.py: registered on the portal blueprint when it is first imported."""

from __future__ import annotations

from .usage import usage_csv
from .views import bp

bp.add_url_rule("/usage.csv", endpoint="usage_csv", view_func=usage_csv)
