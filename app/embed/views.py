"""Blueprint /embed: iframe pages addressed by token."""

from flask import Blueprint

bp = Blueprint("embed", __name__, url_prefix="/embed")
