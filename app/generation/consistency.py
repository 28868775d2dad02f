"""The checker every report passes before it is stored: what it says agrees with the reader's selection.

It reads the finished text (title, summary, key points, sections, call to action) and compares what it
states with the `Reading` it was written from: each requirement named with a status word has that
status; "all met", "nothing open" and "nothing met" claims hold; counts of other owners' items add up;
the call to action names only open items; the client is named; no internal or seller's wording
reaches the reader. A failure is a bug in the writer (or a bad LLM answer), never a silent fallback.
"""

from __future__ import annotations

import re

from ..catalog import METHODOLOGIES
from .reading import STATUS_WORD, Reading

APPENDIX = re.compile(r"^Appendix", re.I)
REQUIREMENTS_APPENDIX = "Appendix: requirements in scope"   # the same list in all 25, checked by its own tests
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])|\n")   # sentences, and each text on its own line
WORD_NUMBERS = {w: n for n, w in enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten"))}
STATUS_OF_WORD = {v: k for k, v in STATUS_WORD.items()}
ALL_MET = re.compile(r"\bAll \d+ [\w ]{1,60}? (?:(?:assessed )?at [^.\n]{0,200}? (?:are )?)?recorded as met"
                     r"|\bEvery (?:assessed )?\w+ (?:in scope |in your areas? )?is (?:recorded as )?met"
                     r"|\bEvery requirement in scope|, all \d+ are met")
LISTED = re.compile(r"(?:^|; )(Not met|Partly met|Met|Recorded as met): ([^;]*)")
# Words that belong to our tooling, our research notes or the seller's playbook, never to a reader.
FORBIDDEN = ("knowledge pack", "general wording", "for reference:", "for scale:", "(note:", "the need is concrete",
             "questions above", "most requirements met", "n.d.)")


SELLER = re.compile(r"\b(?:" + "|".join(re.escape(m.label) for m in METHODOLOGIES) + r")\b")
NOTHING_OPEN = re.compile(r"Nothing open (?:at [^.\n]{0,200} )?(?:falls )?in your area")
NOTHING_MET = re.compile(r"Nothing (?:here |in your area )?is (?:recorded as )?met yet")
# Counts are found by their words and read from the word before them (a leading \w+ would make the
# regex try every word of the report).
OTHERS_COUNT = re.compile(r" more open items? (?:sits?|\w+) with| open items? sits? with")
OTHERS_HOLD = re.compile(r"[Oo]ther owners hold (\w+) more open item")
MINE_COUNT = re.compile(r" open (?:across the assessment|in your area)\b")


class ReportInconsistency(ValueError):
    """The report says something its own selection contradicts."""


def _number(word: str) -> int | None:
    word = word.lower()
    return int(word) if word.isdigit() else WORD_NUMBERS.get(word)


def _texts(content: dict, appendix: bool = False) -> list[str]:
    out = [content.get("title", ""), content.get("summary", ""), content.get("callToAction", ""),
           *content.get("keyPoints", [])]
    for section in content.get("sections", []):
        heading = section.get("heading", "")
        if heading == REQUIREMENTS_APPENDIX or (APPENDIX.match(heading) and not appendix):
            continue
        out += [section.get("heading", ""), *section.get("paragraphs", []), *section.get("bullets", [])]
    return [t for t in out if t]


def _ids(r: Reading) -> tuple[re.Pattern | None, dict[str, str]]:
    """One pattern matching any requirement id as a whole token (longest first), and each id's status."""
    def build():
        status = {req.id.strip(): req.status for req in r.f.requirements if req.id.strip()}
        if not status:
            return None, status
        ids = sorted(status, key=len, reverse=True)
        return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, ids)) + r")(?![\w]|\.\w)"), status
    return r.f.memo("consistency_ids", build)


def _named(text: str, r: Reading) -> list[tuple[str, str]]:
    """The requirements a text names, as (id, status), each once, in order."""
    pattern, status = _ids(r)
    if pattern is None:
        return []
    return [(rid, status[rid]) for rid in dict.fromkeys(m.group(0) for m in pattern.finditer(text))]


STATED = re.compile(r"[^()]*?\)?(?: is|,|:) (not met|partly met|met)\b")


def _check_statuses(text: str, r: Reading, errors: list[str]) -> None:
    pattern, status = _ids(r)
    if pattern is None:
        return
    if "(" not in text and ":" not in text and " met" not in text:
        return
    for sentence in SENTENCE.split(text):
        # "Not met: A (id), B (id)." and "Met: id, id" state one status for everything named after them.
        for label, body in LISTED.findall(sentence):
            said = STATUS_OF_WORD["met" if label == "Recorded as met" else label.lower()]
            for rid, actual in _named(body, r):
                if actual != said:
                    errors.append(f"{rid} is {STATUS_WORD[actual]}, but the text lists it as {STATUS_WORD[said]}")
        # "Title (id, designation) is not met" and "First to close: Title (id), partly met"
        for m in pattern.finditer(sentence):
            stated = STATED.match(sentence, m.end())
            if stated and STATUS_OF_WORD[stated.group(1)] != status[m.group(0)]:
                errors.append(f"{m.group(0)} is {STATUS_WORD[status[m.group(0)]]}, but the text calls it "
                              f"{stated.group(1)}")
    # A strengths bullet: "id Title: met"
    for line in (line for line in text.split("\n") if line.endswith(": met")):
        for rid, actual in _named(line, r)[:1]:
            if actual != "met":
                errors.append(f"{rid} is {STATUS_WORD[actual]}, but a bullet lists it as met")


def _check_claims(text: str, r: Reading, errors: list[str]) -> None:
    f = r.f
    if (f.open_count or r.policy_gap) and ("All " in text or "Every " in text) and ALL_MET.search(text):
        errors.append(f"claims everything is met, but {f.open_count} requirements are open")
    if NOTHING_OPEN.search(text) and (r.mine_open or r.policy_first):
        errors.append("says nothing is open in the reader's area, but their selection has open items")
    if NOTHING_MET.search(text) and r.met_mine:
        errors.append("says nothing is met yet, but the reader's selection has met items")
    if "Every open item sits " in text and (r.mine_open or r.policy_first):
        errors.append("says every open item sits with other owners, but the reader has open items")
    said = [m.group(1) for m in OTHERS_HOLD.finditer(text)] if "ther owners hold" in text else []
    said += [text[:m.start()].rsplit(None, 1)[-1] for m in OTHERS_COUNT.finditer(text)] if " open item" in text else []
    for word in said:
        n = _number(word)
        if n is not None and n != r.others_count:
            errors.append(f"counts {n} open items with other owners, but there are {r.others_count}")
    for m in MINE_COUNT.finditer(text) if " open " in text else ():
        words = text[:m.start()].rsplit(None, 2)
        n = _number(words[-2]) if len(words) >= 2 else None
        if n is not None and n != len(r.mine_open):
            errors.append(f"counts {n} open items for the reader, but the selection has {len(r.mine_open)}")
    if ("None of the open work is yours" in text or "No step of the shared work plan falls to you" in text) and \
            (r.mine_open or r.policy_first):
        errors.append("tells the reader none of the open work is theirs, but they have open items")


# What a report says of the client's earlier assessment (issue 34) is checked against the stored change as
# statuses are against the requirements: a sentence that speaks of the earlier assessment may give the score
# before and after, counts and the requirements that moved only as the change holds them.
EARLIER = re.compile(r"\b(?:since|at|in|than) the (?:last|previous|prior|earlier) assessment\b|\blast time\b"
                     r"|\b(?:the|its|your) (?:previous|prior|earlier) assessment\b", re.I)
SCORE_MOVE = re.compile(r"\bfrom (\d+(?:\.\d+)?) ?% to (\d+(?:\.\d+)?) ?%")
MOVE_COUNTS = (("closed", re.compile(r"\b(\d+) closed\b")), ("improved", re.compile(r"\b(\d+) improved\b")),
               ("regressed", re.compile(r"\b(\d+) regressed\b")), ("new", re.compile(r"\b(\d+) new\b")),
               ("dropped", re.compile(r"\b(\d+) dropped\b")),
               ("stillOpen", re.compile(r"\b(\d+) (?:was|were) open then\b|\b(\d+) (?:still open|open still)\b")))
# A clause about one kind of move names only requirements that moved so; (ids it may name, the move in words).
MOVES = (
    (re.compile(r"\b(?:worse|regressed|slipped|deteriorated)\b", re.I), ("regressedIds",), "worse"),
    (re.compile(r"\b(?:better|improved|closed|now met)\b", re.I), ("closedIds", "improvedIds"), "better"),
    (re.compile(r"\b(?:still open|open still|open then|remained open|remains open|no better now)\b", re.I),
     ("stillOpenIds",), "open in both"),
    (re.compile(r"\bnew since\b|\bnewly (?:assessed|added)\b|\bassessed for the first time\b", re.I), ("newIds",),
     "new"),
)


def _check_change(text: str, r: Reading, errors: list[str]) -> None:
    change = r.f.change
    sentences = [s for s in SENTENCE.split(text) if EARLIER.search(s)]
    if not change:
        if sentences:
            errors.append("speaks of an earlier assessment, but this one is compared with none")
        return
    for sentence in sentences:
        for m in SCORE_MOVE.finditer(sentence):
            before, after = float(m.group(1)), float(m.group(2))
            if abs(before - change["scoreBefore"]) > .5 or abs(after - change["scoreAfter"]) > .5:
                errors.append(f"gives the score as moving from {m.group(1)} % to {m.group(2)} %, but it moved from "
                              f"{change['scoreBefore']:g} % to {change['scoreAfter']:g} %")
        for key, pattern in MOVE_COUNTS:
            for m in pattern.finditer(sentence):
                n = int(next(g for g in m.groups() if g))
                if n != (change.get(key) or 0):
                    errors.append(f"counts {n} {key} since the last assessment, but there are {change.get(key) or 0}")
        for clause in sentence.split(";"):
            moves = [(keys, words) for pattern, keys, words in MOVES if pattern.search(clause)]
            if len(moves) != 1:
                continue
            keys, words = moves[0]
            allowed = {x for key in keys for x in change.get(key) or ()}
            for rid, _ in _named(clause, r):
                if rid not in allowed:
                    errors.append(f"calls {rid} {words} since the last assessment, but it is not")


def check_report(content: dict, r: Reading) -> None:
    """Raise ReportInconsistency listing every disagreement between the report and its selection."""
    errors: list[str] = []
    texts = _texts(content)
    everything = "\n".join(_texts(content, appendix=True))
    joined = "\n".join(texts)
    _check_statuses(joined, r, errors)
    _check_claims(joined, r, errors)
    _check_change(joined, r, errors)
    if not r.all_met:
        for rid, status in _named(content.get("callToAction", ""), r):
            if status == "met":
                errors.append(f"the call to action names {rid} as work to do, but it is met")
    lowered = everything.lower()
    for word in FORBIDDEN:
        if word in lowered:
            errors.append(f"contains {word!r}")
    for m in SELLER.finditer(everything):
        errors.append(f"names the seller's methodology ({m.group(0)})")
    if r.f.organization.lower() not in joined.lower():
        errors.append(f"never names its subject ({r.f.organization!r})")
    if errors:
        raise ReportInconsistency(f"{r.p.id}: " + "; ".join(dict.fromkeys(errors)))
