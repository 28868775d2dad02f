"""Checks on an LLM's report before it is stored: it may cite only the assessment's requirements,
each with its own status.

The answer lists the requirements it discusses in `citedRequirements`; every id must be one of the
assessment's and every status the one recorded. The text is also searched for anything shaped like
one of the assessment's ids (same letters, digits and punctuation, any numbers) that is not one of
them and does not appear in the prompt either (the facts given to the model may cite a rule).
"""

from __future__ import annotations

import re

from .facts import AssessmentFacts


class GroundingError(ValueError):
    """The answer cites something the assessment does not have, or a status it does not record."""


def _key(ref: str) -> str:
    return re.sub(r"\s+", "", ref).casefold()


def _shape(ref: str) -> str | None:
    """A pattern for ids written like this one, or None when the shape would match plain numbers."""
    parts = re.findall(r"\d+|[A-Z]+|[a-z]+|\s+|.", ref.strip())
    if not any(p.isalpha() for p in parts) and sum(p in ".()-" for p in parts) < 2:
        return None     # "8.3" or "12" would match prices and years
    out = []
    for part in parts:
        out.append(r"\d+" if part.isdigit() else r"[a-z]+" if part.islower() else
                   r"\s*" if part.isspace() else re.escape(part))
    return "".join(out)


def _id_pattern(facts: AssessmentFacts) -> re.Pattern | None:
    def build():
        shapes = sorted({s for r in facts.requirements if (s := _shape(r.id))}, key=len, reverse=True)
        return re.compile(r"(?<![\w.])(?:" + "|".join(shapes) + r")(?![\w(])") if shapes else None
    return facts.memo("id_pattern", build)


def _text(content: dict) -> str:
    parts = [content.get("title", ""), content.get("summary", ""), content.get("callToAction", "")]
    for section in content.get("sections", []):
        parts += [section.get("heading", ""), *section.get("paragraphs", []), *section.get("bullets", [])]
    return "\n".join(parts)


def check_grounding(content: dict, facts: AssessmentFacts, prompt: str = "") -> None:
    """Raise GroundingError listing every problem; return None when the answer may be stored."""
    known = {_key(r.id): r for r in facts.requirements}
    errors = []
    for cited in content.get("citedRequirements", []):
        requirement = known.get(_key(cited["id"]))
        if requirement is None:
            errors.append(f"{cited['id']} is not a requirement of this assessment")
        elif cited["status"] != requirement.status:
            errors.append(f"{requirement.id} is {requirement.status}, not {cited['status']}")
    pattern = _id_pattern(facts)
    if pattern is not None:
        for token in dict.fromkeys(m.group(0) for m in pattern.finditer(_text(content))):
            if _key(token) not in known and token not in prompt:   # the prompt is only read for a stranger
                errors.append(f"the text cites {token}, which is not a requirement of this assessment")
    if errors:
        raise GroundingError("; ".join(errors[:10]))
