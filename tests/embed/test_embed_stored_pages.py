"""Stored pages: a view of an unchanged page is one query and no rendering, and any change a reader could
see (a new run, the brand, the display name, the token, a release) renders the page again."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import pytest
from flask import template_rendered
from sqlalchemy import event, func, select, update
from sqlalchemy.exc import OperationalError

from app.embed import service
from app.extensions import db
from app.models import ApiKey, Assessment, EmbedPage, Partner
from tests.embed import embed_path, generate, submit, view_path


@pytest.fixture
def generated(client, auth) -> tuple[dict, dict]:
    record = submit(client, auth)
    return record, generate(client, auth, record["id"])


def page_paths(record, result) -> list[str]:
    """The three kinds of page: the viewer (as asked with and without ?persona=), a fragment, a report page."""
    return [embed_path(record), embed_path(record) + "?persona=cfo", embed_path(record) + "/reports/cfo",
            view_path(result, "cfo")]


@contextmanager
def watched(app):
    """Templates rendered and SQL statements run meanwhile."""
    rendered, statements = [], []

    def on_render(sender, template, context, **extra):
        rendered.append(template.name)

    def on_execute(conn, cursor, statement, *args):
        statements.append(statement.lstrip().split(None, 1)[0].upper())

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", on_execute)
    template_rendered.connect(on_render, app)
    try:
        yield rendered, statements
    finally:
        template_rendered.disconnect(on_render, app)
        event.remove(engine, "before_cursor_execute", on_execute)


def set_columns(app, model, **values) -> None:
    with app.app_context():
        db.session.execute(update(model).values(**values))
        db.session.commit()


def stored_rows(app, record) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(EmbedPage)
                                 .where(EmbedPage.assessment_id == record["id"]))


def test_an_unchanged_page_is_read_back_in_one_query_without_rendering(app, client, auth, generated):
    record, result = generated
    for path in page_paths(*generated):
        first = client.get(path)
        assert first.status_code == 200
        with watched(app) as (rendered, statements):
            again = client.get(path)
        assert again.status_code == 200 and again.data == first.data, path
        assert again.headers["ETag"] == first.headers["ETag"]
        assert again.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"]
        assert rendered == [] and statements == ["SELECT"], (path, rendered, statements)
    assert stored_rows(app, record) == 4
    # Views read back from the store still count: the fragment and the report page showed the CFO's
    # report twice each, ?persona=cfo twice.
    app.extensions["view_counter"].flush()
    counts = {r["persona"]: r["viewCount"] for r in
              client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"]}
    assert counts["cfo"] == 6 and counts["ceo_president"] == 2


def test_a_new_run_renders_every_page_again(app, client, auth, generated):
    record, result = generated
    set_columns(app, ApiKey, show_methodology=True)   # so that the pages name the run's methodology
    for path in page_paths(*generated):
        assert "SPIN Selling" in client.get(path).get_data(as_text=True)
    generate(client, auth, record["id"], methodology="challenger")
    for path in page_paths(*generated):
        body = client.get(path).get_data(as_text=True)
        assert "Challenger" in body and "SPIN Selling" not in body, path
    assert stored_rows(app, record) == 4   # each page's last rendering replaces the one before


def test_brand_display_name_and_release_changes_render_the_page_again(app, client, generated, monkeypatch):
    paths = page_paths(*generated)
    for path in paths:
        client.get(path)
    set_columns(app, Partner, brand_name="Acme Security", brand_color="#0f766e")
    for path in paths[:2] + paths[3:]:   # the fragment is the report alone, without the masthead
        body = client.get(path).get_data(as_text=True)
        assert "Prepared by Acme Security" in body and "--accent:#0f766e" in body, path
    set_columns(app, Assessment, display_name="Northwind Clinics")
    for path in paths[:2] + paths[3:]:
        assert "Prepared for Northwind Clinics" in client.get(path).get_data(as_text=True), path
    # A release that changes the templates or the code: every page is rendered again.
    monkeypatch.setattr(service, "page_version", lambda: "next-release")
    for path in paths:
        with watched(app) as (rendered, _):
            assert client.get(path).status_code == 200
        assert rendered, path


def test_embed_origins_apply_to_a_stored_page_at_once(app, client, generated):
    path = embed_path(generated[0])
    client.get(path)
    client.get(path)
    set_columns(app, Partner, embed_origins=["https://portal.example.com"])
    response = client.get(path)
    assert "frame-ancestors https://portal.example.com" in response.headers["Content-Security-Policy"]


def test_a_rotated_token_never_reaches_its_stored_page_and_the_new_one_links_new_tokens(app, client, auth, generated):
    record, result = generated
    old_page, old_report = embed_path(record), view_path(result, "cfo")
    for path in (old_page, old_report):
        client.get(path)
        etag = client.get(path).headers["ETag"]
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    rotated = client.post(f"/api/v1/assessments/{record['id']}/embed-token/rotate", headers=auth).get_json()
    for path in (old_page, old_report, old_page + "/reports/cfo"):
        assert client.get(path).status_code == 404, path
    body = client.get(embed_path(rotated)).get_data(as_text=True)
    new_report = client.get(f"/api/v1/assessments/{record['id']}", headers=auth).get_json()["reports"][0]
    assert old_report.rsplit("/", 1)[1] not in body
    assert new_report["viewUrl"].rsplit("/", 1)[1] + ".pdf" in body


def test_pages_are_not_stored_before_or_during_a_run(app, client, auth):
    record = submit(client, auth)
    assert "not ready yet" in client.get(embed_path(record)).get_data(as_text=True)
    assert stored_rows(app, record) == 0
    generate(client, auth, record["id"])
    set_columns(app, Assessment, status="generating")   # a new run has started
    for _ in range(2):
        with watched(app) as (rendered, _):
            assert client.get(embed_path(record)).status_code == 200
        assert rendered
    assert stored_rows(app, record) == 0
    set_columns(app, Assessment, status="completed")
    client.get(embed_path(record))
    assert stored_rows(app, record) == 1


def test_erasing_an_assessment_erases_its_stored_pages(app, client, auth, generated):
    record, result = generated
    for path in page_paths(*generated):
        client.get(path)
    assert stored_rows(app, record) == 4
    assert client.delete(f"/api/v1/assessments/{record['id']}", headers=auth).status_code == 204
    assert stored_rows(app, record) == 0
    for path in page_paths(*generated):
        assert client.get(path).status_code == 404


def test_a_page_that_cannot_be_stored_is_still_served(app, client, generated, monkeypatch, caplog):
    def locked(*args, **kwargs):
        raise OperationalError("INSERT INTO embed_pages ...", {}, Exception("database is locked"))

    monkeypatch.setattr(service, "insert", locked)
    caplog.set_level(logging.INFO, logger="app.embed.service")
    for _ in range(2):
        with watched(app) as (rendered, _):
            response = client.get(embed_path(generated[0]))
        assert response.status_code == 200 and "<article" in response.get_data(as_text=True) and rendered
    assert stored_rows(app, generated[0]) == 0
    assert "not stored: Exception" in caplog.text and "INSERT" not in caplog.text
