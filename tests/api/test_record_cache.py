"""The record cache: a repeated read makes no query, and every write shows in the next read.

On Postgres the app's listener runs (see conftest), so these tests cover both the in-process
eviction and the LISTEN/NOTIFY path.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event, text

from app.assessments import assessment_record
from app.extensions import db as _db
from app.keys.auth import authenticate_request
from app.record_cache import CHANNEL, Entry, RecordCache
from tests.factories import submission


def statements_of(app, action) -> list[str]:
    """The SQL statements `action()` sends."""
    statements = []
    with app.app_context():
        engine = _db.engine
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        action()
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    return statements


def read(client, auth, assessment_id):
    response = client.get(f"/api/v1/assessments/{assessment_id}", headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def listener_caught_up(app, seconds: float = 10.0) -> None:
    """On Postgres, wait until the app's listener has handled every notification committed so far.

    The process's own writes also come back through LISTEN (milliseconds later) and evict again;
    a test that counts queries must not let one of them land between its two reads. Postgres
    delivers notifications in commit order, so once a marker sent now is handled, so are they.
    """
    listener = app.extensions["record_listener"]
    if listener is None:
        return
    cache = app.extensions["record_cache"]
    marker = threading.Event()
    evict = cache.evict

    def evict_watching(ids):
        evict(ids)
        if 0 in ids:  # no assessment has id 0
            marker.set()
    cache.evict = evict_watching
    try:
        with app.app_context():
            _db.session.execute(text("SELECT pg_notify(:channel, '0')"), {"channel": CHANNEL})
            _db.session.commit()
        assert marker.wait(seconds), "the record listener did not catch up"
    finally:
        del cache.evict


def fresh(app, auth, assessment_id) -> dict:
    """The record built from the database, bypassing the cache."""
    with app.test_request_context(headers=auth):
        return assessment_record(authenticate_request(), str(assessment_id))


def test_a_repeated_read_makes_no_query(app, client, auth):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    listener_caught_up(app)
    app.extensions["record_cache"].evict([record["id"]])
    first = []
    assert len(statements_of(app, lambda: first.append(read(client, auth, record["id"])))) <= 2
    again = []
    assert statements_of(app, lambda: again.append(read(client, auth, record["id"]))) == []
    assert again == first and len(first[0]["reports"]) == 25


def test_every_write_shows_in_the_next_read(app, client, auth):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    assessment_id = record["id"]
    assert read(client, auth, assessment_id)["status"] == "submitted"

    generated = client.post(f"/api/v1/assessments/{assessment_id}/generate", json={"methodology": "spin"},
                            headers=auth).get_json()
    after_generate = read(client, auth, assessment_id)
    assert after_generate["status"] == "completed" and after_generate["methodology"] == "spin"
    assert len(after_generate["reports"]) == 25 and after_generate["generatedAt"] == generated["generatedAt"]
    assert after_generate == fresh(app, auth, assessment_id)

    view_token = after_generate["reports"][0]["viewToken"]
    assert client.get(f"/embed/report/{view_token}").status_code == 200
    assert read(client, auth, assessment_id)["reports"][0]["viewCount"] == 1
    client.get(f"/embed/assessment/{after_generate['embedToken']}")
    assert read(client, auth, assessment_id)["reports"][0]["viewCount"] == 2

    client.post(f"/api/v1/assessments/{assessment_id}/generate", json={"methodology": "challenger"}, headers=auth)
    assert read(client, auth, assessment_id)["methodology"] == "challenger"

    rotated = client.post(f"/api/v1/assessments/{assessment_id}/embed-token/rotate", headers=auth).get_json()
    after_rotate = read(client, auth, assessment_id)
    assert after_rotate["embedToken"] == rotated["embedToken"] != after_generate["embedToken"]
    assert after_rotate == fresh(app, auth, assessment_id)

    assert client.delete(f"/api/v1/assessments/{assessment_id}", headers=auth).status_code == 204
    gone = client.get(f"/api/v1/assessments/{assessment_id}", headers=auth)
    assert gone.status_code == 404 and gone.get_json()["code"] == "not_found"


def test_a_run_shows_generating_then_completed(openai_app, fake_openai, make_key):
    fake_openai.latency = 0.5
    client = openai_app.test_client()
    auth = {"Authorization": f"Bearer {make_key().api_key}"}
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    assert read(client, auth, record["id"])["status"] == "submitted"  # cached before the run
    run = threading.Thread(target=lambda: client.post(f"/api/v1/assessments/{record['id']}/generate",
                                                      headers=auth))
    run.start()
    seen = set()
    while run.is_alive():
        seen.add(read(client, auth, record["id"])["status"])
        time.sleep(0.02)
    run.join()
    assert "generating" in seen
    assert read(client, auth, record["id"])["status"] == "completed"


def test_a_failed_run_puts_the_status_back_in_the_next_read(app, client, auth, monkeypatch):
    from app.generation import service

    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    assert read(client, auth, record["id"])["status"] == "submitted"

    def store_then_see_generating(*args, **kwargs):
        assert read(client, auth, record["id"])["status"] == "generating"
        raise RuntimeError("disk full")

    monkeypatch.setattr(service, "store_run", store_then_see_generating)
    assert client.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth).status_code == 500
    assert read(client, auth, record["id"])["status"] == "submitted"


def test_another_partner_gets_404_from_a_cached_record(client, auth, make_key):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    read(client, auth, record["id"])
    other = {"Authorization": f"Bearer {make_key('globex').api_key}"}
    response = client.get(f"/api/v1/assessments/{record['id']}", headers=other)
    assert response.status_code == 404 and response.get_json()["code"] == "not_found"


def test_the_embed_url_follows_the_request_host_when_no_base_url_is_set(client, auth):
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    first = client.get(f"/api/v1/assessments/{record['id']}", headers=auth, base_url="http://one.example")
    second = client.get(f"/api/v1/assessments/{record['id']}", headers=auth, base_url="http://two.example")
    assert first.get_json()["embedUrl"].startswith("http://one.example/embed/")
    assert second.get_json()["embedUrl"].startswith("http://two.example/embed/")


def test_a_read_racing_a_write_cannot_store_the_old_record():
    cache = RecordCache(1024, trusted=True)
    ticket = cache.ticket()          # a reader starts building from the database
    cache.evict([7])                 # a write commits meanwhile
    cache.put(7, Entry(1, "http://x", b"old"), ticket)
    assert cache.get(7, "http://x") is None
    cache.put(7, Entry(1, "http://x", b"new"), cache.ticket())
    assert cache.get(7, "http://x").body == b"new"


def test_the_cache_is_bounded_in_bytes_and_drops_the_least_recently_read():
    cache = RecordCache(10, trusted=True)
    for assessment_id in (1, 2, 3):
        cache.put(assessment_id, Entry(1, "u", b"xxxx"), cache.ticket())
    assert cache.get(1, "u") is None and cache.get(3, "u") is not None
    cache.get(2, "u")
    cache.put(4, Entry(1, "u", b"xxxx"), cache.ticket())
    assert cache.get(3, "u") is None and cache.get(2, "u") is not None
    cache.put(5, Entry(1, "u", b"x" * 11), cache.ticket())  # larger than the whole cache: not kept
    assert cache.get(5, "u") is None


def test_a_disabled_cache_serves_nothing(app_factory):
    app = app_factory(RECORD_CACHE_MB=0)
    client = app.test_client()
    with app.app_context():
        from app.keys.service import issue_api_key

        issued = issue_api_key("acme")
        _db.session.commit()
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    record = client.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    read(client, auth, record["id"])
    assert len(app.extensions["record_cache"]) == 0
    assert len(statements_of(app, lambda: read(client, auth, record["id"]))) >= 1


# --- Postgres: several processes, kept coherent by LISTEN/NOTIFY --------------------------------


@pytest.fixture
def two_apps(backend, app_factory):
    if backend != "postgres":
        pytest.skip("cross-process coherence is the Postgres listener's job")
    first, second = app_factory(), app_factory()
    with first.app_context():
        from app.keys.service import issue_api_key

        issued = issue_api_key("acme")
        _db.session.commit()
    return first, second, {"Authorization": f"Bearer {issued.api_key}"}


def eventually(check, seconds: float = 3.0):
    deadline = time.monotonic() + seconds
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def test_a_write_in_one_process_reaches_the_others_cache(two_apps):
    first, second = (a.test_client() for a in two_apps[:2])
    auth = two_apps[2]
    record = first.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    assert read(second, auth, record["id"])["status"] == "submitted"
    assert len(two_apps[1].extensions["record_cache"]) == 1

    first.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)

    def second_sees_completed():
        assert read(second, auth, record["id"])["status"] == "completed"
    eventually(second_sees_completed)

    rotated = first.post(f"/api/v1/assessments/{record['id']}/embed-token/rotate", headers=auth).get_json()

    def second_sees_rotation():
        assert read(second, auth, record["id"])["embedToken"] == rotated["embedToken"]
    eventually(second_sees_rotation)

    first.delete(f"/api/v1/assessments/{record['id']}", headers=auth)

    def second_sees_deletion():
        assert second.get(f"/api/v1/assessments/{record['id']}", headers=auth).status_code == 404
    eventually(second_sees_deletion)


def test_without_its_listener_a_process_reads_the_database(two_apps):
    first_app, second_app, auth = two_apps
    first, second = first_app.test_client(), second_app.test_client()
    record = first.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    read(second, auth, record["id"])
    second_app.extensions["record_listener"].stop()
    assert not second_app.extensions["record_cache"].enabled
    first.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)
    assert read(second, auth, record["id"])["status"] == "completed"  # at once: nothing was cached


def test_the_listener_reconnects_after_losing_its_connection(two_apps, caplog):
    first_app, second_app, auth = two_apps
    first, second = first_app.test_client(), second_app.test_client()
    listener = second_app.extensions["record_listener"]
    record = first.post("/api/v1/assessments", json=submission(), headers=auth).get_json()
    read(second, auth, record["id"])
    with second_app.app_context():
        killed = _db.session.scalar(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                         "WHERE application_name = 'crs-record-listener'"))
        _db.session.commit()
    assert killed == 2  # both apps' listeners

    # This listener's own loss first: the other app's warning alone would satisfy the log check
    # while this one has not noticed yet. It stays down for RETRY_SECONDS (1 s), so polling sees it.
    def lost():
        assert not listener.listening.is_set()
    eventually(lost, seconds=10)

    def reconnected():
        assert "listener lost the database" in caplog.text
        assert listener.listening.is_set()
    eventually(reconnected, seconds=10)
    assert len(second_app.extensions["record_cache"]) == 0  # nothing cached before the loss survives it
    first.post(f"/api/v1/assessments/{record['id']}/generate", headers=auth)

    def second_sees_completed():
        assert read(second, auth, record["id"])["status"] == "completed"
    eventually(second_sees_completed)
