"""The labelled title -> topic set (title_topics.csv) is well formed: it is ground truth for a classifier's tests."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from app.content.schemas import TOPICS

DATA = Path(__file__).with_name("title_topics.csv")
COLUMNS = ["source", "id", "title", "topic", "note"]


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with DATA.open(encoding="utf-8", newline="") as fh:
        body = [line for line in fh if not line.startswith("#")]
    reader = csv.DictReader(body)
    assert reader.fieldnames == COLUMNS
    parsed = list(reader)
    for row in parsed:
        assert None not in row and None not in row.values(), f"wrong number of fields: {row}"
    return parsed


def test_header_cites_every_source(rows):
    comments = "".join(line for line in DATA.read_text(encoding="utf-8").splitlines(True) if line.startswith("#"))
    for source in {r["source"] for r in rows}:
        assert f"#   {source} " in comments, f"source {source!r} is not described in the header"


def test_enough_rows(rows):
    assert len(rows) >= 300


def test_fields_are_filled_and_topics_known(rows):
    for row in rows:
        assert row["source"] and row["id"] and row["title"].strip() == row["title"] != "", row
        assert row["topic"] in TOPICS, row


def test_no_duplicate_source_and_id(rows):
    dupes = [key for key, n in Counter((r["source"], r["id"]) for r in rows).items() if n > 1]
    assert not dupes


def test_every_topic_has_at_least_eight_rows(rows):
    counts = Counter(r["topic"] for r in rows)
    assert {t: counts[t] for t in TOPICS if counts[t] < 8} == {}
