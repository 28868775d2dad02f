"""Issue 34, done when: three quarterly assessments of one client driven through the API (some items closed, one
regressed, one new, one dropped). The counts; what the board, CFO, network admin, external auditor and general
counsel read of the change; the card's two charts, drawn from the statuses and said in words; the PDF; the webhook.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape

import pytest

from app.extensions import db
from app.models import Assessment
from tests.embed import embed_path, view_path
from tests.embed.test_embed_change_marks import words
from tests.embed.test_embed_pdf import pdf_text

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

COLOURS = {"#15803d": "met", "#b45309": "partially_met", "#b91c1c": "not_met"}


def reqs(*rows: tuple[str, str, str]) -> list[dict]:
    return [{"id": ref, "title": title, "status": status} for ref, title, status in rows]


ACCESS, BACKUP, POLICY = ("A.5.15", "Access control"), ("A.8.13", "Information backup"), \
    ("A.5.1", "Policies for information security")
SUPPLIER, LOGGING = ("A.5.19", "Information security in supplier relationships"), ("A.8.15", "Logging")
PHYSICAL, VULNS = ("A.7.4", "Physical security monitoring"), ("A.8.8", "Management of technical vulnerabilities")
CONTINUITY = ("A.5.30", "ICT readiness for business continuity")
QUARTERS = [
    reqs((*ACCESS, "not_met"), (*BACKUP, "not_met"), (*POLICY, "partially_met"), (*SUPPLIER, "met"),
         (*LOGGING, "met"), (*PHYSICAL, "not_met"), (*VULNS, "not_met")),
    # Q2: access and policy closed, backup better, logging worse; the rest as before.
    reqs((*ACCESS, "met"), (*BACKUP, "partially_met"), (*POLICY, "met"), (*SUPPLIER, "met"),
         (*LOGGING, "partially_met"), (*PHYSICAL, "not_met"), (*VULNS, "not_met")),
    # Q3: backup closed, supplier worse, physical monitoring no longer assessed, continuity new.
    reqs((*ACCESS, "met"), (*BACKUP, "met"), (*POLICY, "met"), (*SUPPLIER, "not_met"),
         (*LOGGING, "partially_met"), (*VULNS, "not_met"), (*CONTINUITY, "not_met")),
]
DATES = [datetime(2026, 3, 16, tzinfo=UTC), datetime(2026, 6, 15, tzinfo=UTC), datetime(2026, 9, 14, tzinfo=UTC)]


def svg(html: str, css: str) -> str | None:
    found = re.search(rf'<svg class="chart {css}".*?</svg>', html, re.S)
    return found.group(0) if found else None


def bars(chart: str) -> dict[str, dict[str, float]]:
    """Each row's label -> the width drawn in each status colour."""
    drawn: dict[str, dict[str, float]] = {}
    label = None
    for tag in re.findall(r"<text[^>]*>[^<]*</text>|<rect[^>]*/>", chart):
        if tag.startswith("<text") and 'x="0"' in tag:
            label = unescape(re.sub(r"<[^>]+>", "", tag))
            drawn[label] = {}
        elif tag.startswith("<rect") and label is not None and 'height="12"' in tag:
            colour = re.search(r'fill="([^"]+)"', tag).group(1)
            width = float(re.search(r'width="([\d.]+)"', tag).group(1))
            drawn[label][COLOURS[colour]] = drawn[label].get(COLOURS[colour], 0) + width
    return drawn


@pytest.fixture
def series(app, client, make_key, receiver):
    """The three quarters, generated, each dated as the partner made it; (records, results, webhook payloads)."""
    app.config["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] = True
    app.extensions["webhook_sender"].start()
    auth = {"Authorization": f"Bearer {make_key(webhook_url=receiver.url).api_key}"}
    records, results = [], []
    for quarter, on in zip(QUARTERS, DATES, strict=True):
        created = client.post("/api/v1/assessments", headers=auth, json={
            "companyId": "client_9911", "industry": "Dental practice", "framework": "ISO 27001", "policy": "YES",
            "displayName": "Harbor Dental", "requirements": quarter})
        assert created.status_code == 201, created.get_json()
        with app.app_context():
            db.session.get(Assessment, created.get_json()["id"]).created_at = on
            db.session.commit()
        generated = client.post(f"/api/v1/assessments/{created.get_json()['id']}/generate", headers=auth)
        assert generated.status_code == 200
        records.append(client.get(f"/api/v1/assessments/{created.get_json()['id']}", headers=auth).get_json())
        results.append(generated.get_json())
    payloads = {r.json["assessmentId"]: r.json for r in receiver.wait_for(3)}
    return records, results, payloads, auth


def test_three_quarters_counts_parts_card_charts_pdf_and_webhook(client, series):
    records, results, payloads, auth = series
    first, second, third = records

    # Counts: each quarter is compared with the one before.
    assert second["previousAssessmentId"] == first["id"] and third["previousAssessmentId"] == second["id"]
    assert {k: second["change"][k] for k in ("closed", "improved", "regressed", "new", "dropped", "stillOpen")} == \
        {"closed": 2, "improved": 1, "regressed": 1, "new": 0, "dropped": 0, "stillOpen": 3}
    change = third["change"]
    assert {k: change[k] for k in ("closed", "improved", "regressed", "new", "dropped", "stillOpen")} == \
        {"closed": 1, "improved": 0, "regressed": 1, "new": 1, "dropped": 1, "stillOpen": 2}
    assert (change["closedIds"], change["regressedIds"], change["newIds"], change["droppedIds"]) == \
        (["A.8.13"], ["A.5.19"], ["A.5.30"], ["A.7.4"])
    assert change["scoreBefore"] == second["complianceScore"] and change["scoreAfter"] == third["complianceScore"]

    # The webhook of each quarter carries its link and change.
    assert payloads[first["id"]]["change"] is None
    assert payloads[third["id"]]["previousAssessmentId"] == second["id"] and payloads[third["id"]]["change"] == change

    # Each reader's part of the change.
    def part(persona: str) -> str:
        report = client.get(f"/api/v1/assessments/{third['id']}/reports/{persona}", headers=auth).get_json()
        return "\n".join(report["sections"][0]["paragraphs"])

    before, after = f"{second['complianceScore']:g}", f"{third['complianceScore']:g}"
    board = part("board_member")
    assert f"Since the last assessment (15 June 2026), the score moved from {before} % to {after} %: 1 closed, " \
           f"1 regressed and 1 new; 2 were open then and are open still" in board
    assert "what stayed open carries into this budget" in part("cfo")
    assert "Closed since then: Information backup (A.8.13). Worse than then: Information security in supplier " \
           "relationships (A.5.19)." in board
    # What was assessed changed (A.7.4 left, A.5.30 came), and A.8.8 has been open since the first quarter.
    assert "The two scores do not cover the same requirements: ICT readiness for business continuity (A.5.30) is " \
           "assessed for the first time and 1 requirement assessed last time is not assessed now." in board
    assert "Open at every assessment since 16 March 2026: Management of technical vulnerabilities (A.8.8)." in board
    admin = part("network_admin")
    assert "Worse than at the last assessment (15 June 2026): Information security in supplier relationships " \
           "(A.5.19)" in admin
    assert "open then and no better now: Logging (A.8.15" in admin
    auditor = part("external_auditor")
    assert "recorded as better: Information backup (A.8.13" in auditor and "worse: " in auditor
    counsel = part("general_counsel")
    assert "Open at the last assessment (15 June 2026) and no better now: " in counsel and "(A.8.8" in counsel
    assert "last assessment" not in words(client.get(view_path(results[0], "board_member")).get_data(as_text=True))

    # The card: the score before and after, the counts, and the two charts with their words.
    page = client.get(view_path(results[2], "board_member")).get_data(as_text=True)
    shown = words(page)
    assert f"{before}% last time" in shown and f"{after}%" in shown
    assert "Since the last assessment: 1 met now that was open, 1 worse, 1 new, 1 no longer assessed, 2 still " \
           "open." in shown
    trend = svg(page, "chart--trend")
    charts = re.search(r'<div class="charts">.*?</div>', page, re.S).group(0)
    assert trend is not None and trend in charts and 'role="img"' in trend
    assert "<script" not in charts and not re.search(r"\son\w+=", charts)     # drawn without JavaScript
    assert (f'aria-label="Compliance score over time: {first["complianceScore"]:g}% in March 2026, '
            f'{second["complianceScore"]:g}% in June 2026, {after}% in September 2026 (this assessment)."') in trend
    points = [tuple(map(float, p.split(","))) for p in re.search(r'points="([^"]+)"', trend).group(1).split()]
    assert len(points) == 3 and points[0][0] < points[1][0] < points[2][0]
    scores = [r["complianceScore"] for r in records]   # higher scores are drawn higher (smaller y)
    assert sorted(range(3), key=lambda i: points[i][1]) == sorted(range(3), key=lambda i: -scores[i])

    areas = svg(page, "chart--areas")
    said = re.search(r'aria-label="([^"]+)"', areas).group(1)
    # Q3 by area, as the reports file each control: every status counted once, the most open work first.
    expected = {"Suppliers and vendors": {"not_met": 1}, "Backup and recovery": {"met": 1, "not_met": 1},
                "Patching and malware": {"not_met": 1}, "Logging and monitoring": {"partially_met": 1},
                "Access control": {"met": 1}, "Governance and risk": {"met": 1}}
    drawn = bars(areas)
    assert set(drawn) == set(expected)
    unit = next(iter(drawn["Access control"].values()))
    for label, counts in expected.items():
        assert {s: round(w / unit) for s, w in drawn[label].items()} == counts, label
        assert label + ": " + ", ".join(f"{n} {w}" for s, w in (("met", "met"), ("partially_met", "partly met"),
                                                                 ("not_met", "not met"))
                                       if (n := counts.get(s))) in unescape(said)
    assert sum(sum(c.values()) for c in expected.values()) == len(QUARTERS[2])
    first_page = client.get(view_path(results[0], "board_member")).get_data(as_text=True)
    assert svg(first_page, "chart--areas") is not None and svg(first_page, "chart--trend") is None

    # The PDFs: the cover of all reports and a single report carry the charts' words and the change.
    cover = " ".join(pdf_text(client.get(embed_path(third) + ".pdf").data)[0].split())
    assert f"{after}% ({before}% at the last assessment)" in cover
    assert "SCORE OVER TIME" in cover.upper() and "STATUS BY AREA" in cover.upper()
    assert "Suppliers and vendors" in cover and "Mar 2026" in cover and "Sep 2026" in cover
    single = " ".join(" ".join(pdf_text(client.get(view_path(results[2], "cfo") + ".pdf").data)).split())
    assert "Backup and recovery" in single and "what stayed open carries into this budget" in single

    # Erasing the first quarter takes it out of the third's chart, on the page and in the PDF printed before.
    assert client.delete(f"/api/v1/assessments/{first['id']}", headers=auth).status_code == 204
    trend = svg(client.get(view_path(results[2], "board_member")).get_data(as_text=True), "chart--trend")
    assert "March 2026" not in trend and f"{second['complianceScore']:g}% in June 2026" in trend
    cover = " ".join(pdf_text(client.get(embed_path(third) + ".pdf").data)[0].split())
    assert "Mar 2026" not in cover and "Jun 2026" in cover and "Sep 2026" in cover
    # ... and from what the next generation says of how long items have been open.
    assert client.post(f"/api/v1/assessments/{third['id']}/generate", headers=auth).status_code == 200
    board = part("board_member")
    assert "Since the last assessment (15 June 2026)" in board and "March 2026" not in board


def test_more_than_nine_areas_keep_the_eight_with_most_open_work_and_sum_the_rest(client, auth):
    """Board reporting keeps to fewer than ten figures: eleven areas draw as the eight with the most open work and
    "Other areas", which counts every requirement of the rest."""
    rows = reqs(("A.5.15", "Access control", "not_met"), ("A.8.13", "Information backup", "not_met"),
                ("A.5.24", "Incident management planning", "not_met"),
                ("A.8.8", "Technical vulnerabilities", "not_met"),
                ("A.8.15", "Logging", "partially_met"), ("A.8.24", "Use of cryptography", "partially_met"),
                ("A.6.3", "Awareness, education and training", "partially_met"),
                ("A.8.20", "Networks security", "partially_met"), ("A.7.1", "Physical security perimeters", "met"),
                ("A.8.32", "Change management", "met"), ("A.5.9", "Inventory of information", "met"))
    created = client.post("/api/v1/assessments", headers=auth, json={
        "companyId": "client_areas", "industry": "Retail", "framework": "ISO 27001", "policy": "YES",
        "requirements": rows}).get_json()
    result = client.post(f"/api/v1/assessments/{created['id']}/generate", headers=auth).get_json()
    drawn = bars(svg(client.get(view_path(result, "ceo_president")).get_data(as_text=True), "chart--areas"))
    assert len(drawn) == 9 and list(drawn)[-1] == "Other areas"
    assert list(drawn)[:4] == sorted(list(drawn)[:4])          # the four not met first, then by name
    assert set(drawn["Other areas"]) == {"met"}                # the three met areas, summed
    unit = drawn["Access control"]["not_met"]
    assert round(drawn["Other areas"]["met"] / unit) == 3
