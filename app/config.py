"""Settings read from the environment (and `instance/config.py`), with defaults."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta

ENGINES = ("template", "openai")


class ConfigError(RuntimeError):
    """A setting is missing or malformed; raised at start-up, never per request."""


def _int(env: dict, name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def _temperature(env: dict) -> float:
    raw = env.get("OPENAI_TEMPERATURE")
    if raw in (None, ""):
        return 0.2
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"OPENAI_TEMPERATURE must be a number, got {raw!r}") from None
    if not 0 <= value <= 2:
        raise ConfigError(f"OPENAI_TEMPERATURE must be between 0 and 2, got {value}")
    return value


def _float(env: dict, name: str, default: float) -> float:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value


def _bool(env: dict, name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be true or false, got {raw!r}")


def _seconds_list(env: dict, name: str, default: str) -> tuple[float, ...]:
    raw = env.get(name) or default
    try:
        waits = tuple(float(part) for part in raw.split(",") if part.strip())
    except ValueError:
        raise ConfigError(f"{name} must be numbers separated by commas, got {raw!r}") from None
    if any(w < 0 for w in waits) or (default and not waits):
        raise ConfigError(f"{name} needs {'at least one' if default else 'only'} non-negative number"
                          f"{'' if default else 's'}")
    return waits


def _backoff(env: dict) -> tuple[float, ...]:
    return _seconds_list(env, "WEBHOOK_BACKOFF_SECONDS", "1,4,16")


def webhook_partner_concurrency(config) -> int:
    """The per-process cap on one partner's webhook attempts in flight: WEBHOOK_PARTNER_CONCURRENCY, by default
    max(1, WEBHOOK_CONCURRENCY // 2) (4 workers: 2), and never more than WEBHOOK_CONCURRENCY. Read from the app's
    config when used, so it follows a WEBHOOK_CONCURRENCY set in `instance/config.py`."""
    concurrency = config["WEBHOOK_CONCURRENCY"]
    return min(config.get("WEBHOOK_PARTNER_CONCURRENCY") or max(1, concurrency // 2), concurrency)


def normalize_database_url(url: str) -> str:
    """Let `postgres://` and `postgresql://` URLs use the psycopg 3 driver we ship."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def settings_from_env(instance_path: str, env: dict | None = None) -> dict:
    """Build the Flask config mapping from environment variables."""
    env = dict(os.environ if env is None else env)
    engine = (env.get("REPORT_ENGINE") or "template").strip().lower()
    if engine not in ENGINES:
        raise ConfigError(f"REPORT_ENGINE must be one of {', '.join(ENGINES)}, got {engine!r}")
    database_url = env.get("DATABASE_URL") or "sqlite:///" + os.path.join(instance_path, "app.db")
    public_base = (env.get("PUBLIC_BASE_URL") or "").strip().rstrip("/") or None
    return {
        # Old SECRET_KEYs, newest first, comma-separated: portal sign-ins signed with them stay valid and secrets
        # encrypted with them stay readable, so SECRET_KEY can be rotated (README, "Rotating SECRET_KEY").
        "SECRET_KEY_FALLBACKS": [k.strip() for k in (env.get("SECRET_KEY_FALLBACKS") or "").split(",") if k.strip()],
        "SQLALCHEMY_DATABASE_URI": normalize_database_url(database_url),
        "PUBLIC_BASE_URL": public_base,
        "RATELIMIT_STORAGE_URI": env.get("RATELIMIT_STORAGE_URI") or "memory://",
        "REPORT_ENGINE": engine,
        "OPENAI_API_KEY": env.get("OPENAI_API_KEY") or None,
        "OPENAI_BASE_URL": env.get("OPENAI_BASE_URL") or None,
        "OPENAI_MODEL": env.get("OPENAI_MODEL") or "gpt-4o-mini",
        "OPENAI_TIMEOUT_SECONDS": _float(env, "OPENAI_TIMEOUT_SECONDS", 60.0),
        "OPENAI_MAX_RETRIES": _int(env, "OPENAI_MAX_RETRIES", 2),
        # The operator's upper bound on calls in flight per LLM server and model (the contract's 25: a run's calls
        # all leave at once where the server takes them, OpenAI or vLLM); under it the engine keeps to what the
        # server says (llama.cpp's /props total_slots) or shows (429/503) it takes.
        "OPENAI_MAX_CONCURRENCY": _int(env, "OPENAI_MAX_CONCURRENCY", 25, minimum=1),
        "OPENAI_MAX_TOKENS": _int(env, "OPENAI_MAX_TOKENS", 2000, minimum=1),
        "OPENAI_TEMPERATURE": _temperature(env),
        # Test keys are free (never billed), so by default their runs use the template engine; the operator
        # may let them spend LLM tokens too (as Stripe's test mode never moves money unless told to).
        "OPENAI_IN_TEST_MODE": _bool(env, "OPENAI_IN_TEST_MODE", False),
        "GENERATION_WORKERS": _int(env, "GENERATION_WORKERS", 25, minimum=1),
        "GENERATION_MAX_CONCURRENT_PER_PARTNER": _int(env, "GENERATION_MAX_CONCURRENT_PER_PARTNER", 2, minimum=1),
        # Active live keys (and, apart, test keys) a partner may hold unless the operator set its own limit.
        "PARTNER_MAX_KEYS": _int(env, "PARTNER_MAX_KEYS", 5, minimum=1),
        # A run proves it is alive every RUN_HEARTBEAT_SECONDS; one silent for RUN_STALE_SECONDS is taken over
        # by a serving process (resumed, or failed after RUN_MAX_RECOVERIES take-overs). See the README.
        "RUN_HEARTBEAT_SECONDS": _float(env, "RUN_HEARTBEAT_SECONDS", 5.0),
        "RUN_STALE_SECONDS": _float(env, "RUN_STALE_SECONDS", 30.0),
        "RUN_MAX_RECOVERIES": _int(env, "RUN_MAX_RECOVERIES", 2, minimum=0),
        # How long storing a finished run is retried while the database is unreachable.
        "RUN_STORE_RETRY_SECONDS": _float(env, "RUN_STORE_RETRY_SECONDS", 30.0),
        # On SIGTERM: how long requests in flight and runs get to finish before the process exits.
        "SHUTDOWN_GRACE_SECONDS": _float(env, "SHUTDOWN_GRACE_SECONDS", 20.0),
        # A retry whose Idempotency-Key is still running waits this long for its answer before a 409.
        "IDEMPOTENCY_WAIT_SECONDS": _float(env, "IDEMPOTENCY_WAIT_SECONDS", 2.0),
        "WEBHOOK_MAX_ATTEMPTS": _int(env, "WEBHOOK_MAX_ATTEMPTS", 3, minimum=1),
        "WEBHOOK_BACKOFF_SECONDS": _backoff(env),
        "WEBHOOK_TIMEOUT_SECONDS": _float(env, "WEBHOOK_TIMEOUT_SECONDS", 10.0),
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": _bool(env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS", False),
        "WEBHOOK_CONCURRENCY": _int(env, "WEBHOOK_CONCURRENCY", 4, minimum=1),
        # Attempts one partner may have in flight per process, so its slow endpoints leave the other workers to
        # other partners. Unset (None): half of WEBHOOK_CONCURRENCY, at least 1; see webhook_partner_concurrency.
        "WEBHOOK_PARTNER_CONCURRENCY": _int(env, "WEBHOOK_PARTNER_CONCURRENCY", None, minimum=1),
        # Rounds after a failed round (seconds after it failed); empty: the spec's three attempts only.
        "WEBHOOK_RESCUE_SECONDS": _seconds_list(env, "WEBHOOK_RESCUE_SECONDS", ""),
        "TRUSTED_PROXIES": _int(env, "TRUSTED_PROXIES", 0),
        "AUTH_FAILURE_RATE_LIMIT": env.get("AUTH_FAILURE_RATE_LIMIT") or "60/minute",
        "EMBED_RATE_LIMIT": env.get("EMBED_RATE_LIMIT") or "600/minute",
        "EMBED_VIEW_FLUSH_SECONDS": _float(env, "EMBED_VIEW_FLUSH_SECONDS", 2.0),
        # PDFs count against EMBED_RATE_LIMIT like every page, and against this stricter one of their own.
        "EMBED_PDF_RATE_LIMIT": env.get("EMBED_PDF_RATE_LIMIT") or "20/minute",
        "EMBED_PDF_MAX_CONCURRENT": _int(env, "EMBED_PDF_MAX_CONCURRENT", 2, minimum=1),
        "EMBED_PDF_WAIT_SECONDS": _float(env, "EMBED_PDF_WAIT_SECONDS", 60.0),
        # requests for PDFs one process handles at once (printing, or waiting for a slot or for the same print):
        # half of make run's 16 server threads, so the other half always serve pages, the API and /healthz
        "EMBED_PDF_MAX_REQUESTS": _int(env, "EMBED_PDF_MAX_REQUESTS", 8, minimum=1),
        "EMBED_PDF_PRINT_TIMEOUT_SECONDS": _float(env, "EMBED_PDF_PRINT_TIMEOUT_SECONDS", 30.0),
        # A print worker is replaced after this many prints, or once its memory passes this many MB.
        "EMBED_PDF_WORKER_MAX_PRINTS": _int(env, "EMBED_PDF_WORKER_MAX_PRINTS", 100, minimum=1),
        "EMBED_PDF_WORKER_MAX_MB": _int(env, "EMBED_PDF_WORKER_MAX_MB", 300, minimum=50),
        # The name the pages give this service in their footer (a white-label brand hides it).
        "SERVICE_NAME": env.get("SERVICE_NAME") or "Compliance Report Service",
        # Password reset by email (app/portal/reset.py): an SMTP server the portal may send through; without
        # MAIL_SERVER the sign-in page says the operator resets passwords (`flask users reset-password`).
        "MAIL_SERVER": env.get("MAIL_SERVER") or None,
        "MAIL_PORT": _int(env, "MAIL_PORT", 587, minimum=1),
        "MAIL_USE_TLS": _bool(env, "MAIL_USE_TLS", True),       # STARTTLS before anything is sent
        "MAIL_USERNAME": env.get("MAIL_USERNAME") or None,
        "MAIL_PASSWORD": env.get("MAIL_PASSWORD") or None,
        "MAIL_FROM": env.get("MAIL_FROM") or None,
        "PORTAL_LOGIN_LIMIT_PER_ADDRESS": env.get("PORTAL_LOGIN_LIMIT_PER_ADDRESS") or "10/minute;100/hour",
        "PORTAL_LOGIN_LIMIT_PER_ACCOUNT": env.get("PORTAL_LOGIN_LIMIT_PER_ACCOUNT") or "5/minute;20/hour",
        "MAX_CONTENT_LENGTH": 1024 * 1024,
        # Portal sessions: a signed cookie, refreshed on every request, that lapses after 2 h idle.
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        # Always Secure when true; when false the portal still marks it Secure on https requests.
        "SESSION_COOKIE_SECURE": _bool(env, "SESSION_COOKIE_SECURE", False),
        "PERMANENT_SESSION_LIFETIME": timedelta(hours=2),
        "SESSION_REFRESH_EACH_REQUEST": True,
        # A form's CSRF token lives as long as the session (the idle expiry above) rather than 1 h.
        "WTF_CSRF_TIME_LIMIT": None,
        "JSON_SORT_KEYS": False,
    }


def load_secret_key(instance_path: str, env: dict | None = None) -> str:
    """Return SECRET_KEY from the environment, or the one generated once into the instance folder.

    The key derives the encryption key of stored webhook secrets, so it must survive restarts:
    it is written with O_EXCL so concurrent first starts agree on a single value.
    """
    env = os.environ if env is None else env
    if env.get("SECRET_KEY"):
        return env["SECRET_KEY"]
    path = os.path.join(instance_path, "secret_key")
    os.makedirs(instance_path, exist_ok=True)
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
        try:
            os.link(tmp, path)  # atomic: the first process to link wins, the others read its value
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    with open(path) as handle:
        value = handle.read().strip()
    if not value:
        raise ConfigError(f"{path} is empty; delete it or set SECRET_KEY")
    return value
