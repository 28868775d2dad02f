"""Every requirement's `obliges` stays short enough to read in the report's sentence.

The writers put it in "<title> (<id>) is not met, where <framework> asks for <obliges>.", read by owners, CFOs and
auditors; past about 30 words that sentence stops being readable. Packs are written to at most 30 words (counted
with str.split()); the test allows 32 so a light edit does not trip it.
"""

from __future__ import annotations

import pytest

from app.content import load

MAX_WORDS = 32
C = load()
KEYS = sorted(C.frameworks)


def _words(text: str) -> int:
    return len(text.split())


def test_there_are_packs_to_check():
    assert len(KEYS) >= 16
    assert all(C.frameworks[key].requirements for key in KEYS)


@pytest.mark.parametrize("key", KEYS)
def test_every_obliges_is_at_most_32_words(key):
    too_long = {rid: _words(info["obliges"]) for rid, info in C.frameworks[key].requirements.items()
                if _words(info["obliges"]) > MAX_WORDS}
    assert not too_long, f"{key}: obliges over {MAX_WORDS} words (id: words): {too_long}"
