"""The application factory, configuration and the unauthenticated endpoints."""

from __future__ import annotations

import pytest

from app import create_app
from app.config import ConfigError, load_secret_key, normalize_database_url, settings_from_env


def test_testing_flag(app):
    assert app.testing
    assert not create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": "sqlite://"}).testing


def test_defaults_from_contract(tmp_path):
    settings = settings_from_env(str(tmp_path), env={})
    assert settings["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path}/app.db"
    assert settings["REPORT_ENGINE"] == "template"
    assert settings["RATELIMIT_STORAGE_URI"] == "memory://"
    assert settings["GENERATION_WORKERS"] == 25
    assert settings["WEBHOOK_MAX_ATTEMPTS"] == 3
    assert settings["WEBHOOK_BACKOFF_SECONDS"] == (1.0, 4.0, 16.0)
    assert settings["WEBHOOK_TIMEOUT_SECONDS"] == 10.0
    assert settings["WEBHOOK_ALLOW_PRIVATE_NETWORKS"] is False
    assert settings["MAX_CONTENT_LENGTH"] == 1024 * 1024
    assert "OPENAI_HTTP_TRANSPORT" not in settings
    assert (settings["OPENAI_MAX_CONCURRENCY"], settings["OPENAI_MAX_TOKENS"], settings["OPENAI_TEMPERATURE"]) == \
        (25, 2000, 0.2)   # CONTRACT.md: 25 in flight at most, the engine adapting below it
    assert settings["GENERATION_MAX_CONCURRENT_PER_PARTNER"] == 2
    assert "RECORD_CACHE_MB" not in settings and "API_KEY_CACHE_SECONDS" not in settings


@pytest.mark.parametrize("env", [{"REPORT_ENGINE": "gpt"}, {"GENERATION_WORKERS": "many"},
                                 {"GENERATION_WORKERS": "0"}, {"WEBHOOK_BACKOFF_SECONDS": "1,x"},
                                 {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "perhaps"}, {"OPENAI_TEMPERATURE": "3"},
                                 {"OPENAI_MAX_CONCURRENCY": "0"},
                                 {"GENERATION_MAX_CONCURRENT_PER_PARTNER": "0"}])
def test_bad_settings_fail_fast(tmp_path, env):
    with pytest.raises(ConfigError):
        settings_from_env(str(tmp_path), env=env)


def test_postgres_urls_use_psycopg3():
    assert normalize_database_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalize_database_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalize_database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_secret_key_generated_once(tmp_path):
    first = load_secret_key(str(tmp_path), env={})
    assert len(first) == 64
    assert load_secret_key(str(tmp_path), env={}) == first
    assert load_secret_key(str(tmp_path), env={"SECRET_KEY": "given"}) == "given"
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "database": "ok"}


def test_healthz_reports_unreachable_database(app_factory):
    app = app_factory()
    broken = create_app({**app.config, "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/none"})
    response = broken.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json()["database"] == "unreachable"


def test_openapi_document_covers_the_api(client):
    document = client.get("/openapi.json").get_json()
    assert document["openapi"].startswith("3.")
    paths = document["paths"]
    for path, method in [("/api/v1/assessments", "post"), ("/api/v1/assessments", "get"),
                         ("/api/v1/assessments/{assessment_id}", "get"),
                         ("/api/v1/assessments/{assessment_id}", "delete"),
                         ("/api/v1/personas", "get"), ("/api/v1/methodologies", "get"), ("/healthz", "get")]:
        assert method in paths[path], (path, method)
    one_of = paths["/api/v1/assessments"]["post"]["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in one_of} == {"Submission", "SubmissionAlt"}
    schemas = document["components"]["schemas"]
    assert {"framework", "policy"} <= set(schemas["Submission"]["properties"])
    assert {"frameworkName", "hasPolicy"} <= set(schemas["SubmissionAlt"]["properties"])
    assert schemas["Submission"]["additionalProperties"] is False
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_openapi_documents_rate_limit_headers(client):
    document = client.get("/openapi.json").get_json()
    get = document["paths"]["/api/v1/assessments/{assessment_id}"]["get"]["responses"]
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(get["200"]["headers"])
    assert "Retry-After" in get["429"]["headers"] and "headers" not in get["401"]
    post = document["paths"]["/api/v1/assessments"]["post"]["responses"]
    assert "Location" in post["201"]["headers"]
