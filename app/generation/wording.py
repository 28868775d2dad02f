"""Wording helpers shared by the writers."""

from __future__ import annotations


def join(items: list[str]) -> str:
    """ "a, b and c"; "a; b, c; and d" when an item has a comma of its own."""
    if len(items) <= 2:
        return " and ".join(items)
    if any("," in item for item in items):
        return "; ".join(items[:-1]) + "; and " + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def lower_first(text: str) -> str:
    """For a title folded into a sentence; leaves "A.5.15 ..." and acronyms ("MFA setup") alone."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[0].isupper() and text[1].islower() else text


def fmt_score(score: float) -> str:
    return f"{score:.1f}".removesuffix(".0")
