"""Which data the portal's lists show: all of it, live data only or test data only (Stripe's test-mode switch).

The choice is kept in the signed-in session; every list (keys, assessments, deliveries) reads it, and each row
stays marked Live or Test whatever the choice.
"""

from __future__ import annotations

from flask import session

MODES = {"all": ("All data", None), "live": ("Live data", True), "test": ("Test data", False)}
_KEY = "portal_mode"


def current() -> str:
    mode = session.get(_KEY, "all")
    return mode if mode in MODES else "all"


def livemode() -> bool | None:
    """The filter the lists apply: True (live only), False (test only) or None (both)."""
    return MODES[current()][1]


def choose(mode: str) -> bool:
    """Keep the choice; False for a mode that is not one."""
    if mode not in MODES:
        return False
    session[_KEY] = mode
    return True
