"""Report generation: engines, the fan-out pool, scoring and billing."""

from __future__ import annotations

import atexit
from concurrent.futures import ThreadPoolExecutor

from flask import Flask

from .engines import build_engine
from .recovery import RunWatchdog
from .template_engine import TemplateEngine


def init_app(app: Flask) -> None:
    """Give the app its report engine and its fan-out pool (threads start on first use)."""
    engine = build_engine(app)
    pool = ThreadPoolExecutor(max_workers=app.config["GENERATION_WORKERS"], thread_name_prefix="generate")
    # Runs answered with 202 (`Prefer: respond-async`) go on here: each waits on the pool above for its
    # 25 reports, so it cannot be a task of that pool (runs holding every worker would wait on each other).
    runner = ThreadPoolExecutor(max_workers=app.config["GENERATION_WORKERS"], thread_name_prefix="generation-run")
    app.extensions["report_engine"] = engine
    app.extensions["test_mode_engine"] = engine if app.config.get("OPENAI_IN_TEST_MODE") else TemplateEngine()
    app.extensions["generation_pool"] = pool
    app.extensions["generation_runner"] = runner
    app.extensions["run_watchdog"] = RunWatchdog(app)   # started by a serving process (start_background_work)
    atexit.register(pool.shutdown, wait=False, cancel_futures=True)
