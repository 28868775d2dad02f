"""Report engines: what writes the text of one persona's report."""

from __future__ import annotations

from typing import Protocol

from flask import Flask

from .facts import AssessmentFacts


class ReportEngine(Protocol):
    """Writes `{"title", "summary", "sections", "callToAction"}` for one persona; thread-safe."""

    name: str

    def write(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> dict: ...


def build_engine(app: Flask) -> ReportEngine:
    """The engine REPORT_ENGINE names, configured from the app's settings."""
    if app.config["REPORT_ENGINE"] == "openai":
        from .openai_engine import OpenAIEngine

        return OpenAIEngine(api_key=app.config["OPENAI_API_KEY"], base_url=app.config["OPENAI_BASE_URL"],
                            model=app.config["OPENAI_MODEL"], timeout=app.config["OPENAI_TIMEOUT_SECONDS"],
                            max_retries=app.config["OPENAI_MAX_RETRIES"],
                            transport=app.config["OPENAI_HTTP_TRANSPORT"])
    from .template_engine import TemplateEngine

    return TemplateEngine()
