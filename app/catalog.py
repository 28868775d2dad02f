"""The catalogues: 25 personas and 10 methodologies, read from the content files, and prices.

The personas' and methodologies' text lives in `app/content/` (TOML), where a compliance expert can
review it; this module only exposes what the rest of the app looks up by id.
"""

from __future__ import annotations

from .content import Methodology, Persona, load

PRICE_PER_REPORT_USD = 10
PRICE_PER_ASSESSMENT_USD = 250
REPORTS_PER_ASSESSMENT = 25
DEFAULT_METHODOLOGY = "spin"
CATEGORIES = ("Executive", "Management", "Operational", "Business", "External")

CONTENT = load()
PERSONAS: tuple[Persona, ...] = CONTENT.personas
PERSONA_BY_ID: dict[str, Persona] = {p.id: p for p in PERSONAS}
METHODOLOGIES: tuple[Methodology, ...] = CONTENT.methodologies
METHODOLOGY_BY_ID: dict[str, Methodology] = {m.id: m for m in METHODOLOGIES}
