"""Wording helpers shared by the template engine and its content blocks."""

from __future__ import annotations

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _join(items: list[str]) -> str:
    """"a, b and c"; "a; b, c; and d" when an item has a comma of its own."""
    if len(items) <= 2:
        return " and ".join(items)
    if any("," in item for item in items):
        return "; ".join(items[:-1]) + "; and " + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    """For a bullet folded into a sentence; leaves "A.5.15 ..." and "CC6.1 ..." alone."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[0].isupper() and text[1].islower() \
        else text


def _word(n: int) -> str:
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def _count(n: int, noun: str) -> str:
    return f"one {noun}" if n == 1 else f"{n} {noun}s"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def _fmt_score(score: float) -> str:
    return f"{score:.1f}".removesuffix(".0")
