"""Fixtures: app (on SQLite, and on Postgres when TEST_DATABASE_URL is set), client, runner, db, keys."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from app import create_app
from app.config import normalize_database_url
from app.extensions import db as _db
from app.generation.negotiation import Negotiator
from app.keys.service import issue_api_key, set_embed_origins
from tests.support.browser import axe_source, browser, live  # noqa: F401 - fixtures of the browser tests
from tests.support.fake_openai import FakeOpenAIServer
from tests.support.receiver import WebhookReceiver


def _per_worker() -> None:
    """Under pytest-xdist (`make test` runs two workers), each worker gets a Postgres database and a Redis
    database of its own: `<TEST_DATABASE_URL's database>_gw0` (created here if missing) and Redis db 15, 14, ...;
    set in the environment before any test module reads it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    number = int(worker.removeprefix("gw") or 0)
    if os.environ.get("TEST_DATABASE_URL"):
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(os.environ["TEST_DATABASE_URL"])
        name = f"{url.database}_{worker}"
        server = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
        with psycopg.connect(server, autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')
        os.environ["TEST_DATABASE_URL"] = url.set(database=name).render_as_string(hide_password=False)
    if os.environ.get("TEST_REDIS_URL"):
        base, _, db_index = os.environ["TEST_REDIS_URL"].rpartition("/")
        os.environ["TEST_REDIS_URL"] = f"{base}/{int(db_index or 15) - number}"


_per_worker()
POSTGRES_URL = os.environ.get("TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgres"] if POSTGRES_URL else [])


def database_url(backend: str, tmp_path) -> str:
    if backend == "postgres":
        return normalize_database_url(POSTGRES_URL)
    return f"sqlite:///{tmp_path / 'test.db'}"


def base_config(url: str) -> dict:
    """Test settings that do not depend on the developer's environment."""
    return {
        "TESTING": True, "SECRET_KEY": "test-secret-key", "SQLALCHEMY_DATABASE_URI": url,
        "PUBLIC_BASE_URL": None, "REPORT_ENGINE": "template", "RATELIMIT_STORAGE_URI": "memory://",
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": False,
    }


def reset_schema() -> None:
    """Drop everything, alembic's bookkeeping included, so each test starts empty."""
    _db.drop_all()
    with _db.engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


def pytest_collection_modifyitems(config, items):
    """Tests marked `one_database` (browser and PDF rendering) run on SQLite only: what they check is drawn by
    the browser or WeasyPrint from the same rows either way, and every database path they use is tested on
    both databases by the API, embed and generation tests."""
    keep, drop = [], []
    for item in items:
        on_postgres = getattr(item, "callspec", None) and item.callspec.params.get("backend") == "postgres"
        (drop if on_postgres and item.get_closest_marker("one_database") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture
def app_factory(backend, tmp_path):
    """Build apps on this test's database; the schema is created once by the first."""
    made = []

    def make(**overrides):
        application = create_app({**base_config(database_url(backend, tmp_path)), **overrides})
        if not made:
            with application.app_context():
                reset_schema()
                _db.create_all()
        made.append(application)
        return application

    yield make
    for application in made:
        application.extensions["run_watchdog"].stop()
        application.extensions["webhook_sender"].stop()
        application.extensions["view_counter"].stop()   # writes what is left, then no more connections
        application.extensions["generation_runner"].shutdown(wait=True)   # async runs end before their pool
        application.extensions["generation_pool"].shutdown(wait=True)
        engine = application.extensions["report_engine"]
        if hasattr(engine, "close"):
            engine.close()
        with application.app_context():
            _db.session.remove()
            _db.engine.dispose()


@pytest.fixture
def app(app_factory):
    return app_factory()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def db(app):
    with app.app_context():
        yield _db


@pytest.fixture
def make_key(app):
    """Issue a key: make_key(partner="acme", frameworks=[...]) -> IssuedKey. `embed_origins=[...]` sets the
    partner's (every key of the partner uses them)."""

    def make(partner: str = "acme", embed_origins: list[str] | None = None, **settings):
        with app.app_context():
            issued = issue_api_key(partner, **settings)
            if embed_origins is not None:
                set_embed_origins(issued.key.partner, embed_origins)
            _db.session.commit()
            _db.session.refresh(issued.key)
            _db.session.expunge(issued.key)
            return issued

    return make


@pytest.fixture
def api_key(make_key) -> str:
    return make_key().api_key


@pytest.fixture
def auth(api_key) -> dict:
    return {"Authorization": f"Bearer {api_key}"}


@pytest.fixture
def receiver():
    """A real webhook receiver on loopback that records every POST (see tests/support/receiver.py)."""
    server = WebhookReceiver().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def openai_server():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_openai(openai_server):
    """The loopback OpenAI-compatible server, with behaviours cleared for this test, and the process's
    memory of which structured-output mode it takes forgotten (one test's server may refuse one)."""
    openai_server.reset()
    Negotiator.forget()
    yield openai_server
    openai_server.reset()
    Negotiator.forget()


@pytest.fixture
def openai_app(app_factory, fake_openai):
    """An app whose reports come from the loopback server through the openai client."""
    return app_factory(REPORT_ENGINE="openai", OPENAI_BASE_URL=fake_openai.base_url, OPENAI_API_KEY="test",
                       OPENAI_MODEL="fake-model", OPENAI_MAX_RETRIES=0, OPENAI_TIMEOUT_SECONDS=5.0,
                       OPENAI_MAX_CONCURRENCY=25)
