"""Views of the catalogues: personas and methodologies."""

from __future__ import annotations

from ..catalog import METHODOLOGIES, PERSONAS
from . import bp
from .schemas import MethodologyListSchema, PersonaListSchema

_personas = PersonaListSchema().dump({"items": PERSONAS})
_methodologies = MethodologyListSchema().dump({"items": METHODOLOGIES})


@bp.get("/personas")
def list_personas():
    return _personas


@bp.get("/methodologies")
def list_methodologies():
    return _methodologies
