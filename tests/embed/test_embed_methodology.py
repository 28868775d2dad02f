"""The client-facing pages and PDFs name the sales methodology only when the key that owns the assessment
says so (`showMethodology`); the partner's API always does. Turning the setting on or off shows on the very
next view of a page, and in the next PDF, however recently they were stored."""

from __future__ import annotations

import io

import pypdf
import pytest
from sqlalchemy import update

from app.catalog import METHODOLOGIES
from app.extensions import db
from app.models import Report
from tests.embed import embed_path, generate, submit, view_path

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

LABELS = [m.label for m in METHODOLOGIES]   # "SPIN Selling", "Challenger Sale", ...


def pdf_text(data: bytes, pages: int | None = None) -> str:
    """The text of the PDF (or of its first `pages`), every run of whitespace as one space."""
    return " ".join(" ".join(page.extract_text().split())
                    for page in pypdf.PdfReader(io.BytesIO(data)).pages[:pages])


def named(text: str) -> list[str]:
    return [label for label in LABELS if label in text]


def show(client, auth, on: bool) -> None:
    response = client.patch("/api/v1/key", json={"showMethodology": on}, headers=auth)
    assert response.status_code == 200 and response.get_json()["showMethodology"] is on


def page_paths(record, result) -> list[str]:
    """The viewer (with and without ?persona=), a fragment and a report page."""
    return [embed_path(record), embed_path(record) + "?persona=cfo", embed_path(record) + "/reports/cfo",
            view_path(result, "cfo")]


@pytest.fixture
def challenger(client, auth) -> tuple[dict, dict]:
    record = submit(client, auth, displayName="Northwind Clinics")
    return record, generate(client, auth, record["id"], methodology="challenger")


def test_pages_of_a_key_without_the_setting_never_name_the_methodology(client, auth):
    record = submit(client, auth)
    for methodology in METHODOLOGIES:
        result = generate(client, auth, record["id"], methodology=methodology.id)
        for persona in ("ceo_president", "cfo", "ciso", "board_member", "external_auditor"):
            for path in (embed_path(record) + f"?persona={persona}", embed_path(record) + f"/reports/{persona}",
                         view_path(result, persona)):
                body = client.get(path).get_data(as_text=True)
                assert named(body) == [], (methodology.id, path, named(body))
        # The partner's API keeps it.
        content = client.get(f"/api/v1/assessments/{record['id']}/reports/cfo", headers=auth).get_json()
        assert (content["methodology"], content["methodologyLabel"]) == (methodology.id, methodology.label)
        assert client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["methodology"] == \
            methodology.id


def test_with_the_setting_the_summary_names_it(client, auth, challenger):
    show(client, auth, True)
    for path in page_paths(*challenger):
        body = client.get(path).get_data(as_text=True)
        assert "ISO 27001 · Challenger Sale · <time" in body, path
        assert named(body) == ["Challenger Sale"], path


def test_toggling_the_setting_changes_pages_already_viewed_and_stored(client, auth, challenger):
    paths = page_paths(*challenger)
    first = {path: client.get(path) for path in paths}
    for path, response in first.items():
        assert "Challenger Sale" not in response.get_data(as_text=True), path
        again = client.get(path, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304, path                           # stored and current
    show(client, auth, True)
    for path, response in first.items():
        shown = client.get(path, headers={"If-None-Match": response.headers["ETag"]})
        assert shown.status_code == 200 and "Challenger Sale" in shown.get_data(as_text=True), path
        assert shown.headers["ETag"] != response.headers["ETag"], path
    show(client, auth, False)
    for path in paths:
        assert "Challenger Sale" not in client.get(path).get_data(as_text=True), path


def test_pdfs_follow_the_setting_and_print_again_when_it_changes(app, client, auth, challenger):
    record, result = challenger
    with app.app_context():   # two reports, not 25: the all-reports PDF prints in seconds, three times over
        db.session.execute(update(Report).where(Report.persona.not_in(("ceo_president", "cfo")))
                           .values(generated_at=None))
        db.session.commit()
    single, whole = view_path(result, "cfo") + ".pdf", embed_path(record) + ".pdf"

    hidden = {path: client.get(path) for path in (single, whole)}
    for path, response in hidden.items():
        assert response.status_code == 200 and response.mimetype == "application/pdf", path
        text = pdf_text(response.data)
        assert "Northwind Clinics" in text and named(text) == [], (path, named(text))
    assert "Methodology" not in pdf_text(hidden[whole].data)            # no row on the cover

    show(client, auth, True)
    for path, before in hidden.items():
        response = client.get(path, headers={"If-None-Match": before.headers["ETag"]})
        assert response.status_code == 200 and response.data != before.data, path
        assert pdf_text(response.data).count("Challenger Sale") >= (1 if path == single else 3), path
    assert "Methodology Challenger Sale" in pdf_text(client.get(whole).data, 1)   # the cover's facts

    show(client, auth, False)
    for path in (single, whole):
        assert named(pdf_text(client.get(path).data)) == [], path


def test_the_setting_of_the_key_that_owns_the_assessment_decides(client, auth, make_key, challenger):
    """Another key of the same partner turning it on changes nothing for this key's assessments."""
    other = {"Authorization": f"Bearer {make_key('acme').api_key}"}
    show(client, other, True)
    for path in page_paths(*challenger):
        assert "Challenger Sale" not in client.get(path).get_data(as_text=True), path
