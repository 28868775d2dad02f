"""Report engines: what writes the text of one persona's report."""

from __future__ import annotations

from typing import Protocol

from flask import Flask

from .facts import AssessmentFacts


class ReportEngine(Protocol):
    """Writes one persona's report content (`title`, `summary`, `sections`, `callToAction`, ...); thread-safe.

    Keys starting with "_" are for the run, not the report, and are taken off before storing:
    `_engine` (the engine that actually wrote it, when not this one), `_fallback_reason`, `_usage`.
    """

    name: str

    def write(self, facts: AssessmentFacts, persona_id: str, methodology_id: str) -> dict: ...


def build_engine(app: Flask) -> ReportEngine:
    """The engine REPORT_ENGINE names, configured from the app's settings."""
    if app.config["REPORT_ENGINE"] == "openai":
        from .openai_engine import OpenAIEngine

        config = app.config
        return OpenAIEngine(api_key=config["OPENAI_API_KEY"], base_url=config["OPENAI_BASE_URL"],
                            model=config["OPENAI_MODEL"], timeout=config["OPENAI_TIMEOUT_SECONDS"],
                            max_retries=config["OPENAI_MAX_RETRIES"], max_concurrency=config["OPENAI_MAX_CONCURRENCY"],
                            max_tokens=config["OPENAI_MAX_TOKENS"], temperature=config["OPENAI_TEMPERATURE"])
    from .template_engine import TemplateEngine

    return TemplateEngine()
