"""The embed pages over the Flask test client: content, escaping, headers, tokens, view counts, assets."""

from __future__ import annotations

import html
import re
import threading
import time

import pytest
from sqlalchemy import select, update

from app.catalog import CATEGORIES, PERSONAS
from app.keys.service import set_embed_origins
from app.models import Assessment, Partner, Report
from tests.embed import embed_path, generate, submit, view_path

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PAGE_BUDGET = 60 * 1024


@pytest.fixture
def generated(client, auth) -> tuple[dict, dict]:
    """A submitted and generated assessment: (record, generation result)."""
    record = submit(client, auth, companyId="client_secret_7781")
    return record, generate(client, auth, record["id"])


def article_of(body: str) -> str:
    """The one report in a page."""
    match = re.search(r"<article\b.*?</article>", body, re.DOTALL)
    assert match, "no report in the page"
    return match.group(0)


def csp_of(response) -> dict[str, str]:
    policy = response.headers["Content-Security-Policy"]
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in (p.strip() for p in policy.split(";"))}


def report_content(client, auth, record, persona) -> dict:
    return client.get(f"/api/v1/assessments/{record['id']}/reports/{persona}", headers=auth).get_json()


def view_counts(client, auth, record) -> dict[str, int]:
    client.application.extensions["view_counter"].flush()   # what the background flush writes within seconds
    reports = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"]
    return {r["persona"]: r["viewCount"] for r in reports}


def asset_urls(body: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/embed/static/[^"]+)"', body)


# --------------------------------------------------------------------------- the viewer page

def test_viewer_shows_header_selector_and_the_first_report(client, auth, generated):
    record, _ = generated
    response = client.get(embed_path(record))
    assert response.status_code == 200 and response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert '<html lang="en">' in body and "<main" in body
    assert '<h1 class="visually-hidden">ISO 27001 compliance reports</h1>' in body
    assert "ISO 27001 · Healthcare" in body
    assert "SPIN Selling" not in body   # the key does not show the methodology to its clients (the default)
    assert ">62.5<" in body and 'stroke-dasharray="62.5 100"' in body
    # The summary card: the counts as status chips, then the reader's key points.
    assert '<span class="chip chip--met">2 met</span>' in body and "of 4 requirements assessed" in body
    assert '<span class="chip chip--partial">1 partly met</span>' in body
    assert '<span class="chip chip--not-met">1 not met</span>' in body
    points = report_content(client, auth, record, "ceo_president")["keyPoints"]
    assert re.findall(r'<ul class="points">(.*?)</ul>', body, re.DOTALL)[0].count("<li>") == len(points) >= 2
    assert all(html.escape(point, quote=False) in body for point in points)
    generated_at = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["generatedAt"]
    assert f'<time datetime="{generated_at[:10]}">' in body

    assert '<label class="picker__label" for="persona">' in body and 'name="persona"' in body
    assert re.findall(r'<optgroup label="([^"]+)">', body) == list(CATEGORIES)
    assert re.findall(r'<option value="([a-z_]+)"', body) == [p.id for p in PERSONAS]
    assert '<option value="ceo_president" selected>' in body and body.count(" selected>") == 1
    assert '<button class="button" type="submit" data-js-hide>' in body
    assert body.count("<article") == 1  # one report per page, the rest comes by fragment
    assert 'data-persona="ceo_president"' in body
    content = report_content(client, auth, record, "ceo_president")
    assert html.escape(content["title"], quote=False) in body


def test_headings_go_h1_h2_h3(client, auth, generated):
    record, result = generated
    for path in (embed_path(record), view_path(result, "cfo")):
        levels = [int(n) for n in re.findall(r"<h([1-6])\b", client.get(path).get_data(as_text=True))]
        assert levels[0] == 1 and levels.count(1) == 1
        assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels


def test_persona_param_is_rendered_on_the_server(client, auth, generated):
    record, _ = generated
    body = client.get(embed_path(record) + "?persona=cfo").get_data(as_text=True)
    assert '<option value="cfo" selected>' in body and body.count(" selected>") == 1
    assert 'data-persona="cfo"' in body and '<span class="pill">CFO</span>' in body
    content = report_content(client, auth, record, "cfo")
    assert html.escape(content["title"], quote=False) in body
    for section in content["sections"]:
        heading = re.escape(html.escape(section["heading"], quote=False))
        assert re.search(rf'<h3 class="section__heading"[^>]*>{heading}</h3>', body), section["heading"]


@pytest.mark.parametrize("persona", ["nobody", "", "CFO", SCRIPT, "cfo/../ciso"])
def test_unknown_persona_param_falls_back_to_the_first(client, generated, persona):
    record, _ = generated
    response = client.get(embed_path(record), query_string={"persona": persona})
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and 'data-persona="ceo_president"' in body
    assert SCRIPT not in body and "alert(1)" not in body


def test_fragment_is_the_same_partial_as_the_page(client, generated):
    record, _ = generated
    for persona in ("cfo", "investor", "network_admin"):
        page = client.get(embed_path(record) + f"?persona={persona}").get_data(as_text=True)
        fragment = client.get(embed_path(record) + f"/reports/{persona}")
        assert fragment.status_code == 200 and fragment.mimetype == "text/html"
        text = fragment.get_data(as_text=True)
        assert "<html" not in text and "<main" not in text
        assert text.strip() == article_of(page)


def test_the_form_points_at_the_page_and_the_fragments(client, generated):
    record, _ = generated
    body = client.get(embed_path(record)).get_data(as_text=True)
    assert f'<form class="card picker" method="get" action="{embed_path(record)}"' in body
    assert f'data-fragment-base="{embed_path(record)}/reports/"' in body


def test_single_report_page(client, auth, generated):
    record, result = generated
    response = client.get(view_path(result, "ciso"))
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    content = report_content(client, auth, record, "ciso")
    assert f'<h1 class="summary__title" id="r-ciso-title">{html.escape(content["title"], quote=False)}</h1>' in body
    assert '<span class="pill">CISO</span>' in body
    assert "ISO 27001" in body and ">62.5<" in body and "Healthcare" in body
    assert body.count("<article") == 1 and 'data-persona="ciso"' in body
    assert "<select" not in body
    content = report_content(client, auth, record, "ciso")
    assert html.escape(content["summary"], quote=False) in body


def test_before_generation_the_page_says_reports_are_not_ready(client, auth, app):
    record = submit(client, auth)
    response = client.get(embed_path(record))
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Reports are not ready yet" in body and "<select" not in body and "<article" not in body
    assert ">62.5<" in body  # the score is known from the submission
    assert client.get(embed_path(record) + "/reports/cfo").status_code == 404

    with app.app_context():
        from app.extensions import db

        db.session.execute(update(Assessment).where(Assessment.id == record["id"]).values(status="generating"))
        db.session.commit()
    assert "being written now" in client.get(embed_path(record)).get_data(as_text=True)


def test_a_persona_without_content_is_left_out(client, auth, app, generated):
    record, result = generated
    with app.app_context():
        from app.extensions import db

        db.session.execute(update(Report).where(Report.assessment_id == record["id"], Report.persona == "ceo_president")
                           .values(content=None, generated_at=None, status="failed"))
        db.session.commit()
    body = client.get(embed_path(record) + "?persona=ceo_president").get_data(as_text=True)
    assert 'value="ceo_president"' not in body and 'data-persona="cfo"' in body  # the first with content
    fragment = client.get(embed_path(record) + "/reports/ceo_president")
    assert fragment.status_code == 404
    assert client.get(view_path(result, "ceo_president")).status_code == 404


# --------------------------------------------------------------------------- tokens and 404s

@pytest.mark.parametrize("path", [
    "/embed/assessment/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "/embed/assessment/short",
    "/embed/assessment/" + "x" * 500,
    "/embed/assessment/%3Cscript%3E",
    "/embed/assessment/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/reports/cfo",
    "/embed/report/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "/embed/report/",
    "/embed/nothing-here",
])
def test_unknown_tokens_are_a_plain_404(client, generated, path):
    response = client.get(path)
    assert response.status_code == 404 and response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert "<h1>" in body and "Traceback" not in body and "<script" not in body
    assert csp_of(response)["frame-ancestors"] == "*"


def test_unknown_persona_fragment_is_a_404_framed_like_the_page(client, make_key):
    issued = make_key(partner="globex", embed_origins=["https://partner.example"])
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth)
    generate(client, auth, record["id"])
    for persona in ("nobody", "CFO"):
        response = client.get(embed_path(record) + f"/reports/{persona}")
        assert response.status_code == 404 and response.mimetype == "text/html"
        assert persona not in response.get_data(as_text=True)
        assert csp_of(response)["frame-ancestors"] == "https://partner.example"


def test_rotated_and_deleted_tokens_stop_working(client, auth, generated):
    record, result = generated
    old_page, old_report = embed_path(record), view_path(result, "cfo")
    rotated = client.post(f"/api/v1/assessments/{record['id']}/embed-token/rotate", headers=auth).get_json()
    assert client.get(old_page).status_code == 404
    assert client.get(old_page + "/reports/cfo").status_code == 404
    assert client.get(old_report).status_code == 404
    assert client.get(embed_path(rotated)).status_code == 200
    assert client.get(view_path(rotated, "cfo")).status_code == 200

    assert client.delete(f"/api/v1/assessments/{record['id']}", headers=auth).status_code == 204
    assert client.get(embed_path(rotated)).status_code == 404
    assert client.get(view_path(rotated, "cfo")).status_code == 404


# --------------------------------------------------------------------------- headers

def embed_responses(client, record, result):
    yield "page", client.get(embed_path(record))
    yield "fragment", client.get(embed_path(record) + "/reports/cfo")
    yield "report", client.get(view_path(result, "cfo"))
    yield "unknown persona", client.get(embed_path(record) + "/reports/nobody")
    yield "unknown token", client.get("/embed/report/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    yield "no route", client.get("/embed/elsewhere")
    yield "wrong method", client.post(embed_path(record))


def test_every_embed_response_carries_the_security_headers(client, generated):
    record, result = generated
    for name, response in embed_responses(client, record, result):
        csp = csp_of(response)
        assert csp["default-src"] == "'none'", name
        assert csp["style-src"].startswith("'self'") and "unsafe" not in csp["style-src"], name
        assert csp["script-src"] == "'self'", name
        assert csp["img-src"] == "'self' data:" and csp["connect-src"] == "'self'", name
        assert csp["base-uri"] == "'none'" and csp["form-action"] == "'self'", name
        assert csp["frame-ancestors"] == "*", name
        assert "X-Frame-Options" not in response.headers, name
        assert response.headers["Referrer-Policy"] == "no-referrer", name
        assert response.headers["X-Robots-Tag"] == "noindex", name
        assert response.headers["X-Content-Type-Options"] == "nosniff", name
        expected = "private, no-cache" if response.status_code == 200 else "no-store"
        assert response.headers["Cache-Control"] == expected, name
        assert "Set-Cookie" not in response.headers, name


def test_html_pages_allow_no_inline_style_while_the_404_keeps_its_own(client, generated):
    record, _ = generated
    assert csp_of(client.get(embed_path(record)))["style-src"] == "'self'"
    missing = client.get("/embed/report/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert re.fullmatch(r"'self'( 'sha256-[A-Za-z0-9+/]+=*')*", csp_of(missing)["style-src"])


def test_frame_ancestors_come_from_the_partners_embed_origins(client, app, make_key):
    origins = ["https://partner.example", "https://*.partner.example", "http://localhost:3000"]
    issued = make_key(partner="initech", embed_origins=origins)
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth)
    result = generate(client, auth, record["id"])
    for path in (embed_path(record), embed_path(record) + "/reports/cfo", view_path(result, "cfo")):
        assert csp_of(client.get(path))["frame-ancestors"] == " ".join(origins)

    with app.app_context():  # the partner changes its origins: pages follow at once
        from app.extensions import db

        set_embed_origins(db.session.get(Partner, issued.key.partner_id), [])
        db.session.commit()
    assert csp_of(client.get(embed_path(record)))["frame-ancestors"] == "*"


def test_a_tampered_origin_cannot_inject_directives(client, app, make_key):
    issued = make_key(partner="hooli", embed_origins=["https://ok.example"])
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = submit(client, auth)
    with app.app_context():
        from app.extensions import db

        db.session.execute(update(Partner).where(Partner.id == issued.key.partner_id)
                           .values(embed_origins=["https://ok.example", "https://x; script-src *"]))
        db.session.commit()
    csp = client.get(embed_path(record)).headers["Content-Security-Policy"]
    assert "frame-ancestors https://ok.example" in csp and "script-src *" not in csp


# --------------------------------------------------------------------------- partner data

def test_every_partner_string_is_escaped(client, auth):
    requirements = [
        {"id": SCRIPT, "title": IMG, "status": "not_met"},
        {"id": IMG[:60], "title": SCRIPT, "status": "partially_met"},
        {"id": "A.5.1", "title": "Policies", "status": "met"},
    ]
    record = submit(client, auth, displayName=f"Acme {SCRIPT}{IMG}", industry=SCRIPT + IMG,
                    framework=IMG + SCRIPT, requirements=requirements)
    page_before = client.get(embed_path(record)).get_data(as_text=True)
    result = generate(client, auth, record["id"])
    bodies = [page_before]
    for persona in ("ceo_president", "ciso", "internal_auditor", "investor"):
        bodies.append(client.get(embed_path(record) + f"?persona={persona}").get_data(as_text=True))
        bodies.append(client.get(embed_path(record) + f"/reports/{persona}").get_data(as_text=True))
        bodies.append(client.get(view_path(result, persona)).get_data(as_text=True))
    for body in bodies:
        assert SCRIPT not in body and "<img" not in body and "onerror=alert(1)>" not in body
        assert body.count("<script") == body.count('<script src="/embed/static/embed.js')  # ours only
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        assert "&lt;img src=x onerror=alert(1)&gt;" in body
    # The payloads reach the report text (requirement ids and titles, the display name), escaped there too.
    fragment = bodies[2]
    assert "Acme &lt;script&gt;" in fragment and "&#34;&gt;&lt;img src=x" in fragment


def test_company_id_never_appears(client, auth):
    record = submit(client, auth, companyId="acme-client-0042", displayName="Northwind Clinics")
    result = generate(client, auth, record["id"])
    bodies = [client.get(embed_path(record)).get_data(as_text=True)]
    for persona in (p.id for p in PERSONAS):
        bodies.append(client.get(embed_path(record) + f"/reports/{persona}").get_data(as_text=True))
    bodies.append(client.get(view_path(result, "cfo")).get_data(as_text=True))
    for body in bodies:
        assert "acme-client-0042" not in body
    assert "Prepared for Northwind Clinics" in bodies[0]


def test_without_display_name_reports_say_the_organization(client, generated):
    record, _ = generated
    body = client.get(embed_path(record)).get_data(as_text=True)
    assert "Prepared for" not in body and "the organization" in body.lower()
    assert "client_secret_7781" not in body


# --------------------------------------------------------------------------- view counts

def test_views_are_counted_per_report_without_personal_data(client, auth, generated):
    record, result = generated
    assert set(view_counts(client, auth, record).values()) == {0}
    client.get(embed_path(record))                              # the default persona
    client.get(embed_path(record) + "?persona=cfo")
    client.get(embed_path(record) + "/reports/cfo")             # a switch in the browser
    client.get(embed_path(record) + "/reports/ciso")
    response = client.get(view_path(result, "cfo"))
    client.head(view_path(result, "cfo"))                       # not a reader
    client.get(embed_path(record) + "/reports/nobody")          # 404: nothing shown
    counts = view_counts(client, auth, record)
    assert counts["ceo_president"] == 1 and counts["cfo"] == 3 and counts["ciso"] == 1
    assert sum(counts.values()) == 5
    assert "Set-Cookie" not in response.headers


def test_pages_before_generation_count_nothing(client, auth, app):
    record = submit(client, auth)
    client.get(embed_path(record))
    with app.app_context():
        from app.extensions import db

        assert db.session.scalar(select(Report.id).where(Report.assessment_id == record["id"])) is None


# --------------------------------------------------------------------------- assets and weight

def test_static_assets_are_versioned_and_cached_for_a_year(client, generated):
    record, _ = generated
    urls = asset_urls(client.get(embed_path(record)).get_data(as_text=True))
    assert sorted(u.split("?")[0] for u in urls) == ["/embed/static/embed.css", "/embed/static/embed.js"]
    for url in urls:
        assert re.search(r"\?v=[0-9a-f]{12}$", url), url
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.mimetype in ("text/css", "text/javascript", "application/javascript")
        response.close()
        stale = client.get(url.split("?")[0] + "?v=000000000000")
        assert stale.status_code == 200 and stale.headers["Cache-Control"] == "no-cache"
        stale.close()
    assert client.get("/embed/static/nothing.css").status_code == 404


def test_nothing_leaves_the_origin_and_nothing_is_inline(client, generated):
    record, result = generated
    for path in (embed_path(record), view_path(result, "cfo")):
        body = client.get(path).get_data(as_text=True)
        for url in re.findall(r'(?:src|href|action)="([^"]*)"', body):
            assert url.startswith("/") or url.startswith("data:"), url
        assert "style=" not in body and "<style" not in body
        assert not re.search(r"<[^>]*\son[a-z]+=", body)
        assert re.findall(r"<script[^>]*>", body) == [f'<script src="{asset_urls(body)[1]}" defer>']
    css = client.get("/embed/static/embed.css")
    stylesheet = css.get_data(as_text=True)
    css.close()
    assert "@import" not in stylesheet and "@font-face" not in stylesheet and "@media print" in stylesheet
    assert all(u.strip("\"'").startswith("data:") for u in re.findall(r"url\(([^)]*)\)", stylesheet))
    js = client.get("/embed/static/embed.js")
    source = js.get_data(as_text=True)
    js.close()
    assert "eval(" not in source and "new Function" not in source and "document.write" not in source
    assert source.count("innerHTML") == 1  # the server-rendered fragment, nothing else
    assert 'type: "crs:resize"' in source and "history.replaceState" in source


def test_viewer_page_and_its_assets_fit_in_60_kb(client, auth):
    requirements = [{"id": f"CC{i // 10}.{i % 10}", "title": f"Control {i}: " + "logical access review " * 12,
                     "status": ("met", "not_met", "partially_met")[i % 3]} for i in range(400)]
    record = submit(client, auth, requirements=requirements, displayName="Northwind Clinics International")
    generate(client, auth, record["id"])
    for persona in ("ceo_president", "internal_auditor", "external_auditor", "security_analyst"):
        body = client.get(embed_path(record) + f"?persona={persona}").data
        # The requirements appendix lists every requirement in scope, so it grows with the assessment
        # (here 400 requirements of ~270 characters: over 100 KB on its own); the budget is for the rest.
        html = body.decode()
        start = html.index(">Appendix: requirements in scope</h3>")
        appendix = html[html.rindex('<details class="section fold"', 0, start):html.index("</details>", start)]
        assert appendix.count("<tr data-status=") == 400
        total = len(body) - len(appendix.encode())
        for url in asset_urls(body.decode()):
            response = client.get(url)
            total += len(response.data)
            response.close()
        assert total <= PAGE_BUDGET, f"{persona}: {total} bytes"


# --------------------------------------------------------------------------- caching and counting off the request path

def test_a_reload_costs_a_304_while_the_token_is_valid_and_a_404_once_it_is_rotated(client, auth, generated):
    record, result = generated
    for path in (embed_path(record), embed_path(record) + "/reports/cfo", view_path(result, "cfo")):
        first = client.get(path)
        assert first.status_code == 200 and first.headers["ETag"]
        again = client.get(path, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and again.data == b"", path
        assert again.headers["Cache-Control"] == "private, no-cache"
    etag = client.get(embed_path(record)).headers["ETag"]
    rotated = client.post(f"/api/v1/assessments/{record['id']}/embed-token/rotate", headers=auth)
    assert rotated.status_code == 200
    gone = client.get(embed_path(record), headers={"If-None-Match": etag})
    assert gone.status_code == 404 and gone.headers["Cache-Control"] == "no-store"


def test_views_reach_the_database_within_seconds_without_a_write_per_view(app_factory, make_key):
    app = app_factory(EMBED_VIEW_FLUSH_SECONDS=1.0)
    client = app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = submit(client, auth)
    client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    writes = []

    def count_writes(conn, cursor, statement, *args):
        if statement.lstrip().upper().startswith("UPDATE REPORTS"):
            writes.append(threading.get_ident())   # which thread wrote: the request's, or the counter's

    with app.app_context():
        from sqlalchemy import event

        from app.extensions import db

        engine = db.engine
    event.listen(engine, "before_cursor_execute", count_writes)
    try:
        for _ in range(20):
            assert client.get(embed_path(record) + "?persona=cfo").status_code == 200
        # nothing written on the request path (the test client serves on this thread); the counter's own thread may
        # already have flushed, on a slow machine, while the 20 views were being asked for
        assert threading.get_ident() not in writes
        deadline = time.monotonic() + 10
        while True:
            reports = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"]
            if next(r["viewCount"] for r in reports if r["persona"] == "cfo") == 20:
                break
            assert time.monotonic() < deadline, "the views were not written within 10 s"
            time.sleep(0.05)
        assert 1 <= len(writes) <= 5   # in a batch or a few, not one per view
        assert threading.get_ident() not in writes
    finally:
        event.remove(engine, "before_cursor_execute", count_writes)


def test_views_left_in_memory_are_written_at_a_clean_stop(app, client, auth, generated):
    record, _ = generated
    for _ in range(3):
        client.get(embed_path(record) + "?persona=ciso")
    app.extensions["view_counter"].stop()
    reports = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"]
    assert next(r["viewCount"] for r in reports if r["persona"] == "ciso") == 3
