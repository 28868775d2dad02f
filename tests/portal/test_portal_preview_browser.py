"""In a real browser (Debian's Chromium through Playwright): a partner's user who opens the reports from the portal's
assessment page is not counted as a reader, while the same browser reading them inside the partner's own site on
another site (where its clients read) is: the mark is a SameSite=Strict cookie, which browsers send only on our
own site's requests."""

from __future__ import annotations

import pytest

from tests.embed.test_embed_browser import PartnerSite, seed
from tests.portal import PASSWORD, make_user
from tests.support.browser import require_browser

pytestmark = pytest.mark.one_database   # rendering: SQLite only (see tests/conftest.py)

sync_api = require_browser()


def views(app, record) -> int:
    from app.extensions import db
    from app.models import Report

    app.extensions["view_counter"].flush()
    with app.app_context():
        return sum(report.view_count for report in db.session.query(Report).filter_by(assessment_id=record["id"]))


def test_opening_the_reports_from_the_portal_is_not_a_view_but_the_partners_site_is(browser, live, app, make_key):
    with PartnerSite() as site:
        # The partner's site is "localhost", the service "127.0.0.1": two sites, as a partner's domain and ours are.
        site_origin = site.origin.replace("127.0.0.1", "localhost")
        record, result = seed(app, make_key, embed_origins=[site_origin])
        make_user(app, partner="acme")
        context = browser.new_context()
        page = context.new_page()
        page.goto(live.url + "/portal/login")
        page.get_by_label("Email").fill("ann@acme.example")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.goto(live.url + "/portal/assessments")
        page.get_by_role("link", name="Northwind Clinics", exact=True).click()
        sync_api.expect(page.get_by_role("heading", level=1)).to_contain_text("Northwind Clinics")
        with context.expect_page() as opened:
            page.get_by_role("link", name="Open the viewer").click()
        viewer = opened.value
        sync_api.expect(viewer.locator(".summary__title")).to_be_visible()
        viewer.get_by_label("Report for").select_option("cfo")
        sync_api.expect(viewer.locator(".report")).to_have_attribute("data-persona", "cfo")
        with context.expect_page() as opened:
            page.get_by_role("link", name="Page of the CFO report").click()
        sync_api.expect(opened.value.locator(".report")).to_be_visible()
        assert views(app, record) == 0

        # The same signed-in browser on the partner's own site, where clients read: counted.
        site.embed(live.url + next(r["viewUrl"] for r in result["reports"] if r["persona"] == "cfo"),
                   expected_origin=live.url)
        page.goto(site_origin + "/")
        sync_api.expect(page.frame_locator("#crs").locator(".report")).to_be_visible()
        assert views(app, record) == 1
        context.close()
