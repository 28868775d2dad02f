"""Status chips beside the requirements a section names: report text names a requirement as "Title (ID)" or
"Title (ID, designation)", and on the pages (and in the PDFs) an open one gets the appendix table's chip
right after the closing parenthesis, rendered on the server, with the text around it still escaped."""

from __future__ import annotations

import io
import re

import pypdf
import pytest
from sqlalchemy import select

from app.embed.service import _inline_ref_pattern, report_view, with_ref_chips
from app.extensions import db
from app.models import Report
from tests.embed import embed_path, generate, submit, view_path

NOT_MET = '<span class="chip chip--not-met">Not met</span>'
PARTLY = '<span class="chip chip--partial">Partly met</span>'
HIPAA = [
    {"id": "164.308(a)(1)(ii)(A)", "title": "Risk analysis", "status": "not_met"},
    {"id": "164.312(b)", "title": "Audit controls", "status": "partially_met"},
    {"id": "164.312(a)(1)", "title": "Access control", "status": "met"},
    {"id": "164.308(a)(6)(ii)", "title": "Response and reporting", "status": "not_met"},
]


def chips(text: str, status: dict[str, str]) -> str:
    return str(with_ref_chips(text, _inline_ref_pattern(tuple(status)), status)[0])


def section_paragraphs(body: str) -> list[str]:
    """The inner HTML of every paragraph and bullet of the report's sections (not the chip rows)."""
    sections = "".join(re.findall(r'<(?:section|details) class="section.*?</(?:section|details)>', body, re.DOTALL))
    return re.findall(r"<(?:p|li)>(.*?)</(?:p|li)>", sections, re.DOTALL)


# --------------------------------------------------------------------------- the rule

def test_a_chip_follows_the_closing_parenthesis_of_each_open_ref():
    status = {"CC6.1": "not_met", "CC8.1": "partially_met"}
    assert chips("Change management (CC8.1) is partly met.", status) == (
        f"Change management (CC8.1) {PARTLY} is partly met.")
    assert chips("Logical access (CC6.1, required); change management (CC8.1).", status) == (
        f"Logical access (CC6.1, required) {NOT_MET}; change management (CC8.1) {PARTLY}.")


def test_ids_are_matched_whole_and_only_inside_a_ref():
    status = {"CC6.1": "not_met", "164.312(a)": "partially_met"}
    for text in ("Something else (CC6.10) is open.", "CC6.1 is named bare, not as a ref.",
                 "See (CC6.1a) and (xCC6.1).", "Access control (164.312(a)(1)) is met.",
                 "A ref with another parenthesis (CC6.1, see (2)) is not one we read.",
                 "IBM Cost of a Data Breach (2024)"):
        assert chips(text, status) == text.replace("&", "&amp;"), text
    assert chips("Access (164.312(a), addressable) is partly met.", status) == (
        f"Access (164.312(a), addressable) {PARTLY} is partly met.")


def test_hipaa_ids_with_parentheses_longest_first():
    status = {r["id"]: r["status"] for r in HIPAA if r["status"] != "met"}
    status["164.308(a)(1)"] = "partially_met"     # a prefix of another id: the longer one wins where it fits
    assert chips("Risk analysis (164.308(a)(1)(ii)(A), required) is not met.", status) == (
        f"Risk analysis (164.308(a)(1)(ii)(A), required) {NOT_MET} is not met.")
    assert chips("Security management (164.308(a)(1)) is partly met.", status) == (
        f"Security management (164.308(a)(1)) {PARTLY} is partly met.")


def test_met_requirements_get_no_chip_and_the_text_stays_escaped():
    content = {"persona": "ciso", "sections": [
        {"heading": "Open", "paragraphs": ['<script>alert(1)</script> & "Access" (A.5.15) <b>now</b>; '
                                           "Policies (A.5.1) are met."],
         "bullets": ["Close <i>Logging</i> (A.8.15, first) & report"]},
        {"heading": "Appendix: requirements in scope", "paragraphs": [], "bullets": [], "requirements": [
            {"id": "A.5.15", "title": "Access control", "status": "not_met", "asks": "x"},
            {"id": "A.8.15", "title": "Logging", "status": "partially_met", "asks": "y"},
            {"id": "A.5.1", "title": "Policies", "status": "met", "asks": None}]}]}
    view = report_view(content)
    paragraph = view.sections[0].paragraphs[0]
    assert str(paragraph.html) == (
        f"&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Access&#34; (A.5.15) {NOT_MET} &lt;b&gt;now&lt;/b&gt;; "
        "Policies (A.5.1) are met.")
    assert paragraph.chips == ()          # named as a ref: no chip row above it as well
    assert str(view.sections[0].bullets[0]) == f"Close &lt;i&gt;Logging&lt;/i&gt; (A.8.15, first) {PARTLY} &amp; report"


def test_an_open_id_named_outside_a_ref_keeps_its_chip_above_the_paragraph():
    content = {"persona": "ciso", "sections": [
        {"heading": "Open", "paragraphs": ["A.5.15 and Logging (A.8.15) are open."]},
        {"heading": "Appendix: requirements in scope", "paragraphs": [], "requirements": [
            {"id": "A.5.15", "title": "Access control", "status": "not_met"},
            {"id": "A.8.15", "title": "Logging", "status": "not_met"}]}]}
    paragraph = report_view(content).sections[0].paragraphs[0]
    assert [c.ref for c in paragraph.chips] == ["A.5.15"]
    assert str(paragraph.html) == f"A.5.15 and Logging (A.8.15) {NOT_MET} are open."


# --------------------------------------------------------------------------- the pages and the PDF

@pytest.fixture
def generated(client, auth) -> tuple[dict, dict]:
    record = submit(client, auth, displayName="Northwind Clinics")
    return record, generate(client, auth, record["id"])


def test_a_report_page_puts_the_chip_next_to_the_ref_in_a_section_paragraph(client, generated):
    record, result = generated
    for path in (view_path(result, "ciso"), embed_path(record) + "?persona=ciso", embed_path(record) + "/reports/ciso"):
        body = client.get(path).get_data(as_text=True)
        paragraphs = section_paragraphs(body)
        assert any(f"Access control (A.5.15) {NOT_MET}" in p for p in paragraphs), path
        assert any(f"Information backup (A.8.13) {PARTLY}" in p for p in paragraphs), path
        assert not any("(A.5.1) <span" in p or "(A.5.19) <span" in p for p in paragraphs), path   # met: none
        # The appendix table keeps its own chips.
        assert f'<td class="reqs__status">{NOT_MET}</td>' in body, path


def test_hipaa_refs_with_a_designation(client, auth):
    record = submit(client, auth, framework="HIPAA", requirements=HIPAA)
    result = generate(client, auth, record["id"])
    paragraphs = section_paragraphs(client.get(view_path(result, "ciso")).get_data(as_text=True))
    assert any(f"Risk analysis (164.308(a)(1)(ii)(A), required) {NOT_MET}" in p for p in paragraphs), paragraphs
    assert any(f"Audit controls (164.312(b), required) {PARTLY}" in p for p in paragraphs), paragraphs


def test_partner_text_around_a_chip_stays_escaped(client, auth):
    requirements = [{"id": "A.5.15", "title": 'Access <img src=x onerror="alert(1)"> & control',
                     "status": "not_met"},
                    {"id": "A.5.1", "title": "Policies", "status": "met"}]
    record = submit(client, auth, requirements=requirements)
    result = generate(client, auth, record["id"])
    body = client.get(view_path(result, "ciso")).get_data(as_text=True)
    assert "<img" not in body
    assert any("Access &lt;img src=x onerror=&#34;alert(1)&#34;&gt; &amp; control (A.5.15) " + NOT_MET in p
               for p in section_paragraphs(body))


def test_a_bullet_that_names_a_ref_gets_the_chip_too(app, client, generated):
    record, result = generated
    with app.app_context():
        report = db.session.scalar(select(Report).where(Report.assessment_id == record["id"],
                                                        Report.persona == "ciso"))
        content = dict(report.content)
        sections = [dict(s) for s in content["sections"]]
        sections[1]["bullets"] = ["First, Information backup (A.8.13), then the rest"]
        report.content = {**content, "sections": sections}
        db.session.commit()
    body = client.get(view_path(result, "ciso")).get_data(as_text=True)
    assert f"<li>First, Information backup (A.8.13) {PARTLY}, then the rest</li>" in body


def test_the_pdf_prints_the_chip_after_the_ref(client, generated):
    _, result = generated
    data = client.get(view_path(result, "ciso") + ".pdf").data
    text = " ".join(" ".join(page.extract_text().split()) for page in pypdf.PdfReader(io.BytesIO(data)).pages)
    assert "Access control (A.5.15) Not met is not met" in text
    assert "(A.8.13) Partly met" in text
