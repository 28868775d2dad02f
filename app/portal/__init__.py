"""Partner portal: staff sign in to manage keys and read assessments, usage and webhook deliveries."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """The session cookie the portal signs in with."""
    from .auth import PortalSessionInterface

    app.session_interface = PortalSessionInterface()


def blueprint():
    """The /portal blueprint, with its headers and error pages attached."""
    from . import usage_routes, web  # noqa: F401 - register /portal/usage.csv, the blueprint's hooks and handlers
    from .views import bp

    return bp


def limit_sign_in(app: Flask) -> None:
    """Throttle sign-in attempts; needs the app's rate limiter, so it runs after `ratelimit.init_app`."""
    from .web import limit_sign_in as wrap_login_view

    wrap_login_view(app)
