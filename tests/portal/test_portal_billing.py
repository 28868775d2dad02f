"""Issue 33: the usage page itemises the month, a line per assessment, and downloads it as CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from app.models import UsageRecord
from tests.embed import generate, submit
from tests.portal import make_user, sign_in

NOW = datetime.now(UTC)
THIS_MONTH = f"{NOW:%Y-%m}"
LAST_YEAR = datetime(NOW.year - 1, 3, 14, 23, 59, 30, tzinfo=UTC)


def text(response) -> str:
    return response.get_data(as_text=True)


def bill(app, key, assessment_id: int, reports: int, at: datetime = NOW) -> None:
    """A usage record as generation.billing writes it."""
    from app.extensions import db

    with app.app_context():
        db.session.add(UsageRecord(assessment_id=assessment_id, partner_id=key.partner_id, api_key_id=key.id,
                                   reports=reports, created_at=at, updated_at=at))
        db.session.commit()


def section(page: str, caption: str) -> str:
    """The table with that caption."""
    assert caption in page, caption
    return page.split(caption, 1)[1].split("</table>", 1)[0]


def rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text(response))))


def page_total(page: str) -> Decimal:
    """The month's amount shown on the page (the accented figure)."""
    match = re.search(r"<dt>Amount</dt><dd>([0-9,]+) USD</dd>", page)
    assert match, "no amount on the page"
    return Decimal(match.group(1).replace(",", ""))


def test_a_line_per_billed_assessment_of_the_month(app, client, signed_in, make_key):
    production = make_key("Acme Security", name="Production")
    staging = make_key("Acme Security", name="Staging")
    auth = {"Authorization": f"Bearer {production.api_key}"}
    record = submit(client, auth, companyId="client_2041", displayName="Northwind Clinics")
    generate(client, auth, record["id"])   # billed by the API itself: one usage record, now
    bill(app, staging.key, 900_001, 7)
    bill(app, staging.key, 900_002, 3, LAST_YEAR)   # another month: not on this month's page
    page = text(signed_in.get("/portal/usage"))
    lines = section(page, f"By assessment, {NOW:%B %Y}")
    assert lines.count("<tr>") == 3   # header + 2 lines
    assert "Northwind Clinics" in lines and "client_2041" in lines and f"#{record['id']}" in lines
    assert "Production" in lines and production.key.masked in lines
    assert "#900001" in lines and "Erased assessment" in lines and "Staging" in lines and "70 USD" in lines
    assert "#900002" not in lines
    march = section(text(signed_in.get(f"/portal/usage?month={LAST_YEAR:%Y-%m}")), "By assessment, March")
    assert "#900002" in march and "30 USD" in march and "#900001" not in march
    assert re.search(rf'<time datetime="{NOW.year - 1}-03-14T23:59:30', march)


def test_a_month_with_no_usage(signed_in, make_key):
    make_key("Acme Security", name="Production")
    page = text(signed_in.get("/portal/usage?month=2001-02"))
    assert "No reports were delivered in February 2001." in page and "By assessment" not in page
    response = signed_in.get("/portal/usage.csv?month=2001-02")
    assert response.status_code == 200 and rows(response) == []
    assert text(response).splitlines() == [
        "date_utc,mode,assessment_id,client,company_id,key_name,key,reports,amount_usd"]


def test_csv_lines_add_up_to_the_page_total(app, signed_in, make_key):
    production = make_key("Acme Security", name="Production")
    staging = make_key("Acme Security", name="Staging")
    for n, (key, reports) in enumerate([(production, 25), (production, 20), (staging, 25), (staging, 1),
                                        (production, 13)]):
        bill(app, key.key, 1_000 + n, reports)
    bill(app, staging.key, 2_000, 9, LAST_YEAR)
    page = text(signed_in.get(f"/portal/usage?month={THIS_MONTH}"))
    response = signed_in.get(f"/portal/usage.csv?month={THIS_MONTH}")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="usage-{THIS_MONTH}.csv"'
    lines = rows(response)
    assert len(lines) == 5 and {line["mode"] for line in lines} == {"live"}
    assert all(re.fullmatch(r"[0-9]+\.[0-9]{2}", line["amount_usd"]) for line in lines)
    assert sum(Decimal(line["amount_usd"]) for line in lines) == page_total(page) == Decimal(840)
    assert sum(int(line["reports"]) for line in lines) == 84
    assert [line["assessment_id"] for line in lines] == ["1000", "1001", "1002", "1003", "1004"]
    assert lines[0]["key_name"] == "Production" and lines[0]["key"] == production.key.masked
    assert lines[0]["date_utc"] == NOW.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    assert max(Decimal(line["amount_usd"]) for line in lines) == Decimal(250)


def test_csv_cells_cannot_be_formulas(app, client, signed_in, make_key):
    sneaky = make_key("Acme Security", name="=HYPERLINK(\"https://evil.example\",\"x\")")
    for n, name in enumerate(("+1+2", "-3", "@SUM(A1)")):
        bill(app, make_key("Acme Security", name=name).key, 3_000 + n, 1)
    auth = {"Authorization": f"Bearer {sneaky.api_key}"}
    record = submit(client, auth, companyId="client_2042", displayName="=cmd|' /C calc'!A0")
    generate(client, auth, record["id"])
    lines = rows(signed_in.get("/portal/usage.csv"))
    names = {line["key_name"] for line in lines}
    assert names == {"'=HYPERLINK(\"https://evil.example\",\"x\")", "'+1+2", "'-3", "'@SUM(A1)"}
    mine = next(line for line in lines if line["assessment_id"] == str(record["id"]))
    assert mine["client"] == "'=cmd|' /C calc'!A0" and mine["company_id"] == "client_2042"  # companyId: no "="
    for line in lines:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in line.values())


def test_another_partners_usage_never_appears(app, signed_in, make_key):
    mine = make_key("Acme Security", name="Production")
    theirs = make_key("Globex", name="Globex secret key")
    bill(app, mine.key, 4_000, 2)
    bill(app, theirs.key, 4_001, 25)
    make_user(app, "Globex", "bo@globex.example")
    page = text(signed_in.get("/portal/usage"))
    lines = rows(signed_in.get("/portal/usage.csv"))
    assert [line["assessment_id"] for line in lines] == ["4000"]
    assert "Globex" not in page and "#4001" not in page and page_total(page) == Decimal(20)
    globex = app.test_client()
    assert sign_in(globex, "bo@globex.example").status_code == 302
    assert [line["assessment_id"] for line in rows(globex.get("/portal/usage.csv"))] == ["4001"]


def test_test_mode_lines_are_separate_and_free(app, client, signed_in, make_key):
    live = make_key("Acme Security", name="Production")
    test = make_key("Acme Security", name="Sandbox", livemode=False)
    for key, company in ((live, "client_live"), (test, "client_test")):
        auth = {"Authorization": f"Bearer {key.api_key}"}
        generate(client, auth, submit(client, auth, companyId=company)["id"])
    page = text(signed_in.get("/portal/usage"))
    billed = section(page, f"By assessment, {NOW:%B %Y}")
    free = section(page, f"Test assessments, {NOW:%B %Y}")
    assert "client_live" in billed and "client_test" not in billed
    assert "client_test" in free and "Sandbox" in free and "0 USD" in free
    lines = rows(signed_in.get("/portal/usage.csv"))
    by_mode = {line["mode"]: line for line in lines}
    assert len(lines) == 2 and by_mode["test"]["company_id"] == "client_test"
    assert by_mode["test"]["amount_usd"] == "0.00" and int(by_mode["test"]["reports"]) > 0
    assert sum(Decimal(line["amount_usd"]) for line in lines) == page_total(page) > 0


@pytest.mark.parametrize(("month", "status"), [("2026-13", 400), ("abc", 400), ("1999-12", 404),
                                               ("9999-12", 404), ("٢٠٢٦-01", 400)])
def test_csv_month_validation_is_the_pages(signed_in, month, status):
    assert signed_in.get("/portal/usage", query_string={"month": month}).status_code == status
    assert signed_in.get("/portal/usage.csv", query_string={"month": month}).status_code == status
    assert signed_in.get("/portal/usage.csv", query_string={"month": "2026-01"}).status_code == 200


def test_csv_needs_sign_in(app, client):
    response = client.get("/portal/usage.csv?month=2026-01")
    assert response.status_code == 302 and "/portal/login" in response.headers["Location"]
    make_user(app)
    sign_in(client)
    assert client.get("/portal/usage.csv?month=2026-01").status_code == 200
