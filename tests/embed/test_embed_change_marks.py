"""Issue 34: the appendix of a client's later assessment marks how each requirement moved since the earlier one
(met now, better, worse, new, open last time too), on the pages and in the PDFs; a first assessment has no marks."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.api.test_progress_linking import Q1, Q2, submit
from tests.embed import embed_path, generate, view_path
from tests.embed.test_embed_pdf import pdf_text

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)


def rows(html: str) -> dict[str, str]:
    """Appendix rows: requirement id -> the words of its status cell."""
    found = {}
    for row in re.findall(r"<tr data-status=.*?</tr>", html, re.S):
        ref = unescape(re.search(r'class="reqs__id">([^<]*)<', row).group(1))
        cell = re.search(r'<td class="reqs__status">(.*?)</td>', row, re.S).group(1)
        found[ref] = " ".join(unescape(re.sub(r"<[^>]+>", " ", cell)).split())
    return found


def test_the_appendix_marks_each_requirements_change_on_the_page_and_in_the_pdf(client, auth):
    first = submit(client, auth, requirements=Q1)
    first_result = generate(client, auth, first["id"])
    second = submit(client, auth, requirements=Q2)
    result = generate(client, auth, second["id"])

    marked = rows(client.get(view_path(result, "internal_auditor")).get_data(as_text=True))
    assert marked == {
        "A 5.1": "Met Met now, open last time", "Annex A 8.13": "Met Met now, open last time",
        "A.5.19": "Partly met Worse than last time", "A.8.24": "Not met New since last time",
        "A5.15": "Not met Open last time too", "A.8.15": "Met",
    }
    viewer = rows(client.get(embed_path(second) + "?persona=internal_auditor").get_data(as_text=True))
    assert viewer == marked
    assert all("last time" not in cell for cell in rows(
        client.get(view_path(first_result, "internal_auditor")).get_data(as_text=True)).values())

    pdf = client.get(view_path(result, "internal_auditor") + ".pdf")
    text = " ".join(" ".join(pdf_text(pdf.data)).split())
    assert "Met now, open last time" in text and "Worse than last time" in text and "New since last time" in text


def words(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_card_gives_the_score_before_and_what_moved_and_the_pdf_cover_too(client, auth):
    first = submit(client, auth, requirements=Q1)
    first_result = generate(client, auth, first["id"])
    second = submit(client, auth, requirements=Q2)
    result = generate(client, auth, second["id"])
    for page in (client.get(embed_path(second)), client.get(view_path(result, "board_member"))):
        shown = words(page.get_data(as_text=True))
        assert "41.7% last time" in shown
        assert ("Since the last assessment: 2 met now that were open, 1 worse, 1 new, 1 no longer assessed,"
                " 1 still open.") in shown
    assert "last time" not in words(client.get(view_path(first_result, "board_member")).get_data(as_text=True))
    cover = " ".join(pdf_text(client.get(embed_path(second) + ".pdf").data)[0].split())
    assert "(41.7% at the last assessment)" in cover and "Since the last assessment: 2 met now" in cover
