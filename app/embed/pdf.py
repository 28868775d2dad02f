"""PDFs of the embed pages, printed on the server by WeasyPrint from the same templates and print styles.

A PDF is printed the first time it is asked for after a run and kept in the database (`EmbedPdf`) under
a fingerprint of what it was printed from: the run, the brand, whether the key shows the methodology, the
display name and the release's code, templates and stylesheets (`service.page_version`, which names the
stored pages too).
Any change gives a new fingerprint and so a new print; every process shares the stored copy. The print
itself runs in a worker process (`printing`) and loads nothing: the stylesheets are read from disk and
the only URLs it follows are `data:` ones.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

from flask import current_app, render_template
from markupsafe import Markup
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..models import Assessment, EmbedPdf, Report
from . import charts, printing, service

log = logging.getLogger(__name__)

ALL = "all"


class PdfBusy(Exception):
    """Every printing slot stayed taken for the whole wait, or the process already handles as many PDF requests
    as it allows (`EMBED_PDF_MAX_REQUESTS`)."""


class PdfFailed(Exception):
    """The print worker died twice in a row (a fresh one included), the print ran past its time limit, or the
    process is stopping."""


# Prints in progress in this process, by fingerprint: a request for a PDF that another request is printing waits
# for that print instead of printing it again (ten readers of one PDF cost one print).
_printing: dict[str, Future] = {}
_printing_lock = threading.Lock()
# Fingerprints whose print ran past its time limit, with when: asked again within TIMED_OUT_SECONDS, they answer 503
# at once rather than keep a CPU busy for another full limit.
_timed_out: dict[str, float] = {}
TIMED_OUT_SECONDS = 600


def _logo_data_uri(brand: service.Brand) -> str | None:
    if not brand.logo_digest:
        return None
    found = service.logo(brand.logo_digest)
    if found is None:
        return None
    data, mimetype = found
    return f"data:{mimetype};base64,{base64.b64encode(data).decode()}"


def _fingerprint(assessment: Assessment, reports: list[Report], scope: str) -> str:
    brand = service.brand_for(assessment.partner)
    parts = [scope, service.page_version(), assessment.display_name or "", assessment.framework, assessment.industry,
             repr(brand), f"methodology:{service.shows_methodology(assessment)}",
             *(f"{r.persona}:{r.generated_at and r.generated_at.isoformat()}" for r in reports),
             # What the card says of earlier assessments, which erasing one of them changes (app/progress.py).
             json.dumps(assessment.change, sort_keys=True),
             *(f"{p.score}@{p.on.isoformat()}" for p in (charts.score_history(assessment)
                                                          if assessment.previous_assessment_id else ()))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def css_string(text: str) -> Markup:
    """A quoted CSS string that no partner text can end early: everything but letters and digits escaped."""
    quoted = '"' + "".join(c if c.isascii() and c.isalnum() else f"\\{ord(c):x} " for c in text) + '"'
    return Markup(quoted)  # noqa: S704 - every character but [A-Za-z0-9] is a CSS hex escape


def _html(assessment: Assessment, reports: list[Report], scope: str) -> str:
    brand = service.brand_for(assessment.partner)
    header = service.header_for(assessment)
    views = [service.report_view(r.content, assessment.change) for r in reports]
    return render_template(
        "embed/pdf.html", header=header, brand=brand, logo_src=_logo_data_uri(brand), views=views,
        single=scope != ALL, service_name=current_app.config["SERVICE_NAME"], css_string=css_string,
        rows=views[0].rows if views else ())


def _slots() -> threading.BoundedSemaphore:
    return current_app.extensions["embed_pdf_slots"]


def pdf_for(assessment: Assessment, reports: list[Report], scope: str) -> bytes:
    """The stored PDF if it is current, else a print: shared with a request already printing the same PDF in this
    process, and stored for the next request."""
    fingerprint = _fingerprint(assessment, reports, scope)
    stored = db.session.execute(
        select(EmbedPdf.fingerprint, EmbedPdf.pdf)
        .where(EmbedPdf.assessment_id == assessment.id, EmbedPdf.scope == scope)).first()
    if stored is not None and stored.fingerprint == fingerprint:
        return stored.pdf
    if time.monotonic() - _timed_out.get(fingerprint, -TIMED_OUT_SECONDS) < TIMED_OUT_SECONDS:
        raise PdfFailed()
    # Each request here holds a server thread while it prints or waits: at most EMBED_PDF_MAX_REQUESTS of them, so
    # the other threads stay free for pages, the API and /healthz.
    requests = current_app.extensions["embed_pdf_requests"]
    if not requests.acquire(blocking=False):
        raise PdfBusy()
    try:
        with _printing_lock:
            shared = _printing.get(fingerprint)
            if shared is None:
                mine = _printing[fingerprint] = Future()
        if shared is not None:
            try:
                return shared.result(timeout=current_app.config["EMBED_PDF_WAIT_SECONDS"])
            except TimeoutError:
                raise PdfBusy() from None
        try:
            pdf = _print(assessment, reports, scope, fingerprint)
            _store(assessment.id, scope, fingerprint, pdf)   # before the print is forgotten: no second print
        except BaseException as error:
            mine.set_exception(error)
            raise
        finally:
            with _printing_lock:
                _printing.pop(fingerprint, None)
        mine.set_result(pdf)
        return pdf
    finally:
        requests.release()


def _print(assessment: Assessment, reports: list[Report], scope: str, fingerprint: str) -> bytes:
    slots = _slots()
    if not slots.acquire(timeout=current_app.config["EMBED_PDF_WAIT_SECONDS"]):
        raise PdfBusy()
    try:
        return printing.print_pdf(_html(assessment, reports, scope))
    except BrokenProcessPool:
        log.error("PDF of assessment %s (%s): the print worker died twice", assessment.id, scope)
        raise PdfFailed() from None
    except printing.PrintTimedOut:
        _timed_out[fingerprint] = time.monotonic()
        log.error("PDF of assessment %s (%s): the print ran past %s s; its worker was killed", assessment.id, scope,
                  current_app.config["EMBED_PDF_PRINT_TIMEOUT_SECONDS"])
        raise PdfFailed() from None
    except printing.PrintingStopped:
        raise PdfFailed() from None
    finally:
        slots.release()


def _store(assessment_id: int, scope: str, fingerprint: str, pdf: bytes) -> None:
    try:
        db.session.execute(delete(EmbedPdf).where(EmbedPdf.assessment_id == assessment_id,
                                                  EmbedPdf.scope == scope))
        db.session.add(EmbedPdf(assessment_id=assessment_id, scope=scope, fingerprint=fingerprint, pdf=pdf))
        db.session.commit()
    except IntegrityError:   # another process stored the same print meanwhile: theirs serves as well
        db.session.rollback()
        log.info("PDF of assessment %s (%s) stored by another request", assessment_id, scope)


def init_app(app) -> None:
    app.extensions["embed_pdf_slots"] = threading.BoundedSemaphore(app.config["EMBED_PDF_MAX_CONCURRENT"])
    app.extensions["embed_pdf_requests"] = threading.BoundedSemaphore(app.config["EMBED_PDF_MAX_REQUESTS"])
    printing.configure(app.config["EMBED_PDF_MAX_CONCURRENT"], app.config["EMBED_PDF_WORKER_MAX_PRINTS"],
                       app.config["EMBED_PDF_WORKER_MAX_MB"], app.config["EMBED_PDF_PRINT_TIMEOUT_SECONDS"])
