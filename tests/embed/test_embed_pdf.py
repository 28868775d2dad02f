"""The PDFs of the embed pages: printed by WeasyPrint, read back as text with pypdf and as pictures with
pypdfium2, as a client who downloads one would see them."""

from __future__ import annotations

import io
import os
import re
import signal
from concurrent.futures.process import BrokenProcessPool

import pypdf
import pypdfium2
import pytest
from sqlalchemy import func, select, update

from app.catalog import PERSONAS
from app.embed import printing
from app.models import ApiKey, EmbedPdf, Partner
from tests.embed import embed_path, generate, submit, view_path
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)


@pytest.fixture
def generated(client, auth) -> tuple[dict, dict]:
    record = submit(client, auth, displayName="Northwind Clinics")
    return record, generate(client, auth, record["id"])


def pdf_text(data: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def report_of(client, auth, record, persona) -> dict:
    return client.get(f"/api/v1/assessments/{record['id']}/reports/{persona}", headers=auth).get_json()


def stored_pdfs(app) -> int:
    with app.app_context():
        from app.extensions import db
        return db.session.scalar(select(func.count()).select_from(EmbedPdf))


def test_one_report_as_a_pdf_with_page_numbers_running_header_and_appendix(client, auth, generated):
    record, result = generated
    response = client.get(view_path(result, "cfo") + ".pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    assert response.headers["Cache-Control"] == "private, no-cache"
    assert response.headers["Content-Disposition"] == 'inline; filename="iso-27001-cfo-report.pdf"'
    pages = pdf_text(response.data)
    report = report_of(client, auth, record, "cfo")
    text = "\n".join(pages)
    assert report["title"].split(":")[0] in pages[0]
    assert all(point.split(" ")[0] in text for point in report["keyPoints"])
    for n, page in enumerate(pages, start=1):
        assert f"Page {n} of {len(pages)}" in page
        assert "ISO 27001 · Northwind Clinics" in page          # the running header, on every page
    assert "CFO" in pages[-1]                                     # the persona in the running header
    for section in report["sections"]:
        assert section["heading"] in text.replace("\n", " ")
    assert "What it asks for" in text and "A.5.15" in text       # the appendix as a table
    assert "Stakeholder reports by Compliance Report Service" in text


def test_all_reports_in_one_pdf_with_contents_and_one_appendix(client, auth, generated):
    record, _ = generated
    response = client.get(embed_path(record) + ".pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    pages = pdf_text(response.data)
    contents = pages[0] + pages[1]
    assert "Contents" in contents
    for persona in PERSONAS:
        assert persona.label in contents
    assert "Appendix Requirements in scope" in contents.replace("\n", " ")
    text = "\n".join(pages)
    assert text.count("What it asks for") == 1                    # printed once, not 25 times
    assert f"Page {len(pages)} of {len(pages)}" in pages[-1]
    # A contents line ends with the page its report starts on.
    first = report_of(client, auth, record, "cfo")["title"]
    start = int(re.search(r"^CFO .*?\.{3,}\s*(\d+)", contents, re.MULTILINE | re.DOTALL).group(1))
    assert first.split(":")[0] in pages[start - 1]


def test_pdf_pages_are_printed_not_blank(client, generated):
    _, result = generated
    data = client.get(view_path(result, "ciso") + ".pdf").data
    document = pypdfium2.PdfDocument(data)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for n in range(min(2, len(document))):
            page = document[n]
            image = page.render(scale=1).to_pil().convert("L")
            page.close()
            image.save(ARTIFACTS / f"pdf-ciso-page-{n + 1}.png")
            dark = image.point(lambda value: 255 if value < 128 else 0).histogram()[255]
            assert dark > 2000, f"page {n + 1} is nearly empty"
    finally:
        document.close()


def test_a_pdf_is_printed_once_per_run_and_again_after_the_next(app, client, auth, generated):
    record, result = generated
    with app.app_context():   # the PDFs name the run's methodology
        from app.extensions import db
        db.session.execute(update(ApiKey).values(show_methodology=True))
        db.session.commit()
    path = view_path(result, "cfo") + ".pdf"
    first = client.get(path)
    assert stored_pdfs(app) == 1
    with app.app_context():
        from app.extensions import db
        created = db.session.scalar(select(EmbedPdf.created_at))
    again = client.get(path)
    assert again.data == first.data
    with app.app_context():
        assert db.session.scalar(select(EmbedPdf.created_at)) == created   # served from the store
    assert client.get(path, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304

    generate(client, auth, record["id"], methodology="challenger")
    after = client.get(path)
    assert after.status_code == 200 and after.data != first.data
    assert "Challenger" in "\n".join(pdf_text(after.data))       # the key shows the methodology (above)
    assert stored_pdfs(app) == 1                                   # replaced, not piled up


def test_pdfs_print_in_a_worker_process_and_a_killed_worker_is_replaced(client, generated):
    _, result = generated
    assert client.get(view_path(result, "cfo") + ".pdf").status_code == 200
    workers = dict(printing._pool._processes)
    assert workers and os.getpid() not in workers        # WeasyPrint's heap and pauses stay out of page views
    for pid, process in workers.items():                 # as the kernel's out-of-memory killer would
        os.kill(pid, signal.SIGKILL)
        process.join(10)

    response = client.get(view_path(result, "coo") + ".pdf")   # not stored yet: needs a print
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    pages = pdf_text(response.data)
    assert f"Page 1 of {len(pages)}" in pages[0]
    assert not set(printing._pool._processes) & set(workers)


def test_a_print_that_keeps_failing_answers_503_not_500(client, generated, monkeypatch):
    _, result = generated

    def worker_dies(html):
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(printing, "print_pdf", worker_dies)
    response = client.get(view_path(result, "cfo") + ".pdf")
    assert response.status_code == 503 and response.headers["Retry-After"] == "30"
    assert "could not be printed" in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)


def test_a_brand_change_prints_the_pdf_again(app, client, generated):
    _, result = generated
    path = view_path(result, "cfo") + ".pdf"
    assert "Prepared by" not in "\n".join(pdf_text(client.get(path).data))
    with app.app_context():
        from app.extensions import db
        db.session.execute(update(Partner).values(brand_name="Acme Security", white_label=True))
        db.session.commit()
    text = "\n".join(pdf_text(client.get(path).data))
    assert "Prepared by Acme Security" in text and "Compliance Report Service" not in text


def test_rotated_and_unknown_tokens_get_no_pdf(client, auth, generated):
    record, result = generated
    old_all, old_one = embed_path(record) + ".pdf", view_path(result, "cfo") + ".pdf"
    assert client.get(old_one).status_code == 200
    rotated = client.post(f"/api/v1/assessments/{record['id']}/embed-token/rotate", headers=auth).get_json()
    for path in (old_all, old_one, "/embed/report/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.pdf"):
        response = client.get(path)
        assert response.status_code == 404 and response.mimetype == "text/html"
        assert response.headers["Cache-Control"] == "no-store"
    assert client.get(view_path(rotated, "cfo") + ".pdf").status_code == 200


def test_pdf_keeps_the_pages_framing_and_privacy_headers(client, app, make_key):
    issued = make_key(embed_origins=["https://partner.example"])
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth, companyId="client_secret_7781")
    result = generate(client, auth, record["id"])
    response = client.get(view_path(result, "cfo") + ".pdf")
    assert "frame-ancestors https://partner.example" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "no-referrer" and response.headers["X-Robots-Tag"] == "noindex"
    assert b"client_secret_7781" not in response.data
    assert "client_secret_7781" not in "\n".join(pdf_text(client.get(embed_path(record) + ".pdf").data))


def test_pdf_requests_count_against_a_limit_of_their_own(app_factory, make_key):
    app = app_factory(EMBED_PDF_RATE_LIMIT="2/minute")
    client = app.test_client()
    with app.app_context():
        from app.extensions import db
        from app.keys.service import issue_api_key
        issued = issue_api_key("pdfs")
        db.session.commit()
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth)
    result = generate(client, auth, record["id"])
    path = view_path(result, "cfo") + ".pdf"
    assert [client.get(path).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get(view_path(result, "cfo")).status_code == 200     # the pages keep their own budget


@pytest.fixture
def printing_limits():
    """Set printing's limits for one test; the next print after it starts a pool with the defaults."""
    def set_limits(workers: int, max_prints: int, max_mb: int) -> None:
        printing.shut_down()
        printing.configure(workers, max_prints, max_mb)

    yield set_limits
    printing.shut_down()
    printing.configure(*printing.DEFAULT_LIMITS)


PAGE = "<!doctype html><title>t</title><h1>Risk register</h1><p>" + "Backups are tested monthly. " * 200 + "</p>"


def _print_and_see_worker() -> tuple[bytes, list[int]]:
    pdf = printing.print_pdf(PAGE)
    return pdf, printing.worker_pids()


def test_a_print_worker_is_replaced_after_its_quota_of_prints(printing_limits):
    printing_limits(1, 2, 10_000)
    seen = []
    for _ in range(4):
        pdf, pids = _print_and_see_worker()
        assert pdf.startswith(b"%PDF")
        seen.append(pids)
    workers = {pid for pids in seen for pid in pids}
    assert len(workers) >= 2, seen      # the first worker left after two prints; a fresh one printed the rest


def test_a_print_worker_over_its_memory_limit_is_replaced(printing_limits):
    printing_limits(1, 100, 50)         # WeasyPrint's worker holds more than 50 MB after any print
    first, first_pids = _print_and_see_worker()
    assert first.startswith(b"%PDF")
    second, second_pids = _print_and_see_worker()
    assert second.startswith(b"%PDF") and not set(second_pids) & set(first_pids)
