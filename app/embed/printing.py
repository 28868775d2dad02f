"""WeasyPrint in worker processes: HTML in, PDF bytes out.

A print builds a layout tree of millions of short-lived objects and leaves some 60,000 objects in
reference cycles per report; in the serving process the collector's passes over them stopped every
thread (one full pass, after a few prints, took 560 ms while pages were being served), and the print
held the GIL that page views need. In a worker process neither reaches a page view, and the worker
tunes its collector for printing alone.

Workers come from a fork server (never a fork of the multi-threaded serving process), at most
`EMBED_PDF_MAX_CONCURRENT`, started on first use (`warm_up` at server start-up). Of the app this
module imports only the package itself (Flask and the settings), so a worker starts small.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from pathlib import Path

from weasyprint import CSS, HTML
from weasyprint.urls import URLFetcher

_STATIC = os.path.join(os.path.dirname(__file__), "static")
_STYLESHEETS = ("embed.css", "pdf.css")


def _fetcher() -> URLFetcher:
    return URLFetcher(allowed_protocols={"data"}, allow_redirects=False)


@lru_cache(maxsize=4)
def _stylesheets(stamp: tuple) -> list[CSS]:
    """One stylesheet of both files: WeasyPrint matches every element against each sheet separately."""
    text = "\n".join(Path(_STATIC, name).read_text(encoding="utf-8") for name in _STYLESHEETS)
    return [CSS(string=text, base_url=_STATIC + os.sep, url_fetcher=_fetcher())]


def _stamp() -> tuple:
    return tuple(os.stat(os.path.join(_STATIC, name)).st_mtime_ns for name in _STYLESHEETS)


def print_html(html: str) -> bytes:
    """The PDF of `html` with the embed and print stylesheets; loads nothing but `data:` URLs."""
    return HTML(string=html, url_fetcher=_fetcher()).write_pdf(stylesheets=_stylesheets(_stamp()))


def _start_worker() -> None:
    # What the imports built lives as long as the worker; the youngest generation holds 10,000 objects
    # instead of 700, since the default ran ~280 collections over each report's live layout tree
    # (a quarter of a 200-requirement print).
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _printer(workers: int) -> ProcessPoolExecutor:
    """The process's pool of print workers, sized by the first caller."""
    global _pool
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            _pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
        return _pool


def _replace(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def print_pdf(html: str, workers: int) -> bytes:
    """Print in a worker process. If a worker died (killed, out of memory), the pool is replaced and the
    print runs once more in a new one."""
    pool = _printer(workers)
    try:
        return pool.submit(print_html, html).result()
    except BrokenProcessPool:
        _replace(pool)
        return _printer(workers).submit(print_html, html).result()


def warm_up(workers: int) -> None:
    """Start a worker and load its fonts in the background, so the first reader's PDF does not wait for them."""
    _printer(workers).submit(print_html, "<!doctype html><title>-</title><p>-</p>")
