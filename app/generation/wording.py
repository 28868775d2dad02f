"""Wording helpers shared by the writers."""

from __future__ import annotations


def join(items: list[str]) -> str:
    """ "a, b and c"; "a; b, c; and d" when an item has a comma of its own."""
    if len(items) <= 2:
        return " and ".join(items)
    if any("," in item for item in items):
        return "; ".join(items[:-1]) + "; and " + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(n: int) -> str:
    """ "three" for 3; figures from 11 on."""
    return WORDS[n] if n < len(WORDS) else str(n)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_IRREGULAR = {"criterion": "criteria"}


def plural(noun: str) -> str:
    """ "criterion" -> "criteria", "subcategory" -> "subcategories", "control" -> "controls" """
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    return noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
