"""WeasyPrint in worker processes: HTML in, PDF bytes out.

A print builds a layout tree of millions of short-lived objects and leaves some 60,000 objects in
reference cycles per report; in the serving process the collector's passes over them stopped every
thread (one full pass, after a few prints, took 560 ms while pages were being served), and the print
held the GIL that page views need. In a worker process neither reaches a page view, and the worker
tunes its collector for printing alone.

Workers come from a fork server (never a fork of the multi-threaded serving process), at most
`EMBED_PDF_MAX_CONCURRENT`, started on first use (`warm_up` at server start-up). Of the app this
module imports only the package itself (Flask and the settings), so a worker starts small.

Workers are recycled: each exits after `EMBED_PDF_WORKER_MAX_PRINTS` prints (the pool starts a fresh
one), and when a print leaves its worker above `EMBED_PDF_WORKER_MAX_MB` of memory, the pool is
replaced (the old one finishes what it was given, then its workers exit). A worker's memory only grows:
freed layout objects go back to Python's allocator, rarely to the system.
"""

from __future__ import annotations

import gc
import json
import logging
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from importlib import resources
from pathlib import Path

from weasyprint import CSS, HTML
from weasyprint.text.ffi import ffi, fontconfig, pangoft2
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

_STATIC = os.path.join(os.path.dirname(__file__), "static")
_STYLESHEETS = ("embed.css", "pdf.css")
# Fonts for the scripts a machine's own fonts may lack (Noto, SIL Open Font License 1.1), from packages that
# setup.cfg installs with the app. pdf.css still asks for sans-serif only: a character that font lacks comes from the
# first other font that has it, these included. Named in pdf.css, they would outrank the system's sans-serif for Latin
# too; so would Noto Sans, which fontconfig prefers for sans-serif: it is left out, Latin and Greek and Cyrillic print
# in the system's sans-serif as before (DejaVu Sans, which Debian's fontconfig installs).
_FONTS = {
    "manimgx_fonts": tuple(f"NotoSans{script}[wght].ttf" for script in (
        "Arabic", "Hebrew", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada",
        "Malayalam", "Sinhala", "Thai", "Lao", "Khmer", "Myanmar", "Armenian", "Georgian", "Ethiopic", "Symbols")) +
    ("NotoEmoji[wght].ttf",),
    "noto_cjk_sans_otc": ("NotoSansCJK-Regular.ttc",),   # Chinese, Japanese, Korean
}
# The scripts no PyPI package has a font for (Tibetan, Thaana, Syriac, Mongolian, Yi, Cherokee, Adlam, Javanese,
# Ol Chiki): Noto subsets that `make install` puts into the venv from requirements/fonts.json.
FONT_DIR = Path(sys.prefix) / "share" / "compliance-reports" / "fonts"
_PINNED = Path(__file__).resolve().parents[2] / "requirements" / "fonts.json"


def _pinned_fonts() -> list[str]:
    try:
        return [font["file"] for font in json.loads(_PINNED.read_text(encoding="utf-8"))["fonts"]]
    except OSError:   # an install without the repository's requirements/ folder: the folder's files, as found
        return sorted(p.name for p in FONT_DIR.glob("*.ttf"))


def _fetcher() -> URLFetcher:
    return URLFetcher(allowed_protocols={"data"}, allow_redirects=False)


@lru_cache(maxsize=4)
def _stylesheets(stamp: tuple) -> list[CSS]:
    """One stylesheet of both files: WeasyPrint matches every element against each sheet separately."""
    text = "\n".join(Path(_STATIC, name).read_text(encoding="utf-8") for name in _STYLESHEETS)
    return [CSS(string=text, base_url=_STATIC + os.sep, url_fetcher=_fetcher())]


def _stamp() -> tuple:
    return tuple(os.stat(os.path.join(_STATIC, name)).st_mtime_ns for name in _STYLESHEETS)


class _Fonts(FontConfiguration):
    """The system's fonts and `_FONTS`, read where they are installed, through the same fontconfig calls as
    WeasyPrint's `@font-face` support. (An `@font-face` rule would have WeasyPrint copy its file into a temporary
    folder of the configuration's own, 26 MB for these, which a killed worker leaves behind.)"""

    def __init__(self):
        super().__init__()
        for package, names in _FONTS.items():
            for name in names:
                try:
                    path = os.fsencode(resources.files(package) / name)
                except ModuleNotFoundError:
                    path = b""
                if not path or not fontconfig.FcConfigAppFontAddFile(self._config, path):
                    logging.getLogger(__name__).error("PDF font %s/%s is missing: its script prints as empty boxes",
                                                      package, name)
        for name in _pinned_fonts():
            if not fontconfig.FcConfigAppFontAddFile(self._config, os.fsencode(FONT_DIR / name)):
                logging.getLogger(__name__).error("PDF font %s is missing from %s (make install puts it there): its "
                                                  "script prints as empty boxes", name, FONT_DIR)
        pangoft2.pango_fc_font_map_config_changed(ffi.cast("PangoFcFontMap *", self.font_map))


@lru_cache(maxsize=1)
def _fonts() -> FontConfiguration:
    """A worker's fonts, loaded on its first print (fontconfig scans the files, ~40 ms) and kept."""
    return _Fonts()


def print_html(html: str) -> bytes:
    """The PDF of `html` with the embed and print stylesheets; loads nothing but `data:` URLs."""
    return HTML(string=html, url_fetcher=_fetcher()).write_pdf(stylesheets=_stylesheets(_stamp()), font_config=_fonts())


def _resident_mb() -> float:
    """This process's resident memory (Linux), in MB; 0 where /proc is missing."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def print_in_worker(html: str) -> tuple[bytes, float]:
    """The print a worker runs: the PDF, and the worker's memory after it."""
    return print_html(html), _resident_mb()


def _outlive_no_server(server_pid: int) -> None:
    """End this worker within a second of the serving process's death, however it died (kill -9, the
    out-of-memory killer): a worker holds the write end of its own task queue and of the fork server's and
    resource tracker's pipes, so without this it, and through it they, would wait for work forever."""
    while True:
        time.sleep(1)
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:   # the pid was reused by another user's process: ours is gone
            os._exit(0)


def _start_worker(server_pid: int) -> None:
    # What the imports built lives as long as the worker; the youngest generation holds 10,000 objects
    # instead of 700, since the default ran ~280 collections over each report's live layout tree
    # (a quarter of a 200-requirement print).
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    threading.Thread(target=_outlive_no_server, args=(server_pid,), name="server-watch", daemon=True).start()


class PrintTimedOut(Exception):
    """A print ran past its wall-clock limit; its workers were killed and replaced."""


class PrintingStopped(Exception):
    """The process is stopping: no print is started, and none is retried."""


_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_stopped = False
# What printing is tuned with: (workers, prints per worker, MB per worker, seconds per print), set at start-up.
DEFAULT_LIMITS = (2, 100, 300, 30.0)
_limits = DEFAULT_LIMITS


def configure(workers: int, max_prints: int, max_mb: int, timeout: float = DEFAULT_LIMITS[3]) -> None:
    global _limits, _stopped
    _limits = (workers, max_prints, max_mb, timeout)
    _stopped = False


def _printer() -> ProcessPoolExecutor:
    """The process's pool of print workers."""
    global _pool
    with _lock:
        if _stopped:
            raise PrintingStopped()
        if _pool is None:
            workers, max_prints = _limits[:2]
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            _pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                        initargs=(os.getpid(),), max_tasks_per_child=max_prints)
        return _pool


def _replace(old: ProcessPoolExecutor, *, cancel: bool) -> None:
    """Start the next print in a new pool; the old one is shut down (its queued prints cancelled when
    `cancel`, as after a crash, or finished first, as when it is only recycled)."""
    global _pool
    with _lock:
        if _pool is old:
            _pool = None
    old.shutdown(wait=False, cancel_futures=cancel)


def _kill(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now, whatever they are printing (SIGKILL: a print in C code ignores SIGTERM)."""
    for process in list((pool._processes or {}).values()):
        try:
            process.kill()
        except (OSError, ValueError):   # already gone, or closed
            pass


def _print(pool: ProcessPoolExecutor, html: str) -> bytes:
    future = pool.submit(print_in_worker, html)
    try:
        pdf, memory_mb = future.result(timeout=_limits[3])
    except TimeoutError:
        # A print that never ends (an SVG that draws 10^8 shapes) keeps a CPU busy until its worker is killed; the
        # pool's other prints fail with it and are retried once in the new pool (print_pdf).
        _kill(pool)   # first: shutdown() forgets the pool's processes
        _replace(pool, cancel=True)
        raise PrintTimedOut() from None
    if memory_mb > _limits[2]:
        _replace(pool, cancel=False)
    return pdf


def print_pdf(html: str) -> bytes:
    """Print in a worker process, within `timeout` seconds of wall-clock time (`PrintTimedOut` after it). If a
    worker died (killed, out of memory), the pool is replaced and the print runs once more in a new one."""
    pool = _printer()
    try:
        return _print(pool, html)
    except BrokenProcessPool:
        _replace(pool, cancel=True)
        return _print(_printer(), html)


def worker_pids() -> list[int]:
    """The print workers running now (for the operations checks and the tests)."""
    with _lock:
        return sorted(p.pid for p in (_pool._processes or {}).values()) if _pool is not None else []


def warm_up() -> None:
    """Start a worker and load its fonts in the background, so the first reader's PDF does not wait for them."""
    _printer().submit(print_in_worker, "<!doctype html><title>-</title><p>-</p>")


def shut_down() -> None:
    """Stop the workers (the process is stopping): queued prints are cancelled, running ones killed, and no pool
    is started again (a print waiting on a killed worker gets `PrintingStopped`, not a new worker)."""
    global _pool, _stopped
    with _lock:
        pool, _pool, _stopped = _pool, None, True
    if pool is not None:
        _kill(pool)   # first: shutdown() forgets the pool's processes
        pool.shutdown(wait=False, cancel_futures=True)
