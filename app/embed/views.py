"""Blueprint /embed: iframe pages addressed by token, their report fragments and their headers."""

from __future__ import annotations

import re

from flask import Blueprint, Response, abort, current_app, g, render_template, request, url_for

from .. import csp
from ..errors import html_error
from . import pdf, previews, service, signing

bp = Blueprint("embed", __name__, url_prefix="/embed", static_folder="static", static_url_path="/static")

ONE_YEAR = 365 * 24 * 3600
# A logo opened on its own: an SVG's inline styles apply, nothing else loads or runs.
LOGO_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"


@bp.context_processor
def template_helpers() -> dict:
    return {"embed_asset": embed_asset}


# App-wide: the PDFs print outside an embed request too.
bp.add_app_template_global(service.format_date, "embed_date")
bp.add_app_template_filter(service.requirement_rows, "requirement_rows")
bp.add_app_template_filter(service.status_counts, "status_counts")


def embed_asset(filename: str) -> str:
    """URL of a static file, versioned by its content so it can be cached for a year."""
    return url_for("embed.static", filename=filename, v=service.asset_version(bp.static_folder, filename))


def _assessment_or_404(token: str):
    assessment = service.assessment_by_embed_token(token)
    if assessment is None:
        abort(404)
    g.embed_frame_ancestors = service.frame_ancestors(assessment)
    return assessment


def _report_or_404(token: str):
    """The report a view token addresses, with content; its creating key's origins decide the framing."""
    report = service.report_by_view_token(token)
    if report is None:
        abort(404)
    g.embed_frame_ancestors = service.frame_ancestors(report.assessment)
    return report


def _count_view(report_id: int, partner_id: int | None) -> None:
    """A client's view; not a HEAD (it shows nobody the report), nor a look by the partner's own signed-in user."""
    if request.method == "GET" and not previews.previewing(partner_id):
        current_app.extensions["view_counter"].add(report_id)


def _page(html: str | bytes, etag: str | None = None, style_hashes: list[str] | None = None) -> Response:
    """A page with an ETag: a reload whose copy is current gets a bodiless 304. The token was checked
    before this (a rotated or deleted one is a 404 at once), and `no-cache` makes the browser ask."""
    # A 304 carries the hashes too: the browser keeps the header.
    g.embed_style_hashes = csp.style_hashes(html) if style_hashes is None else style_hashes
    response = current_app.make_response(html)
    if etag:
        response.set_etag(etag)
    else:
        response.add_etag()
    return response.make_conditional(request)


def _served(kind: str, token: str, persona: str, render) -> Response:
    """A page as stored at its last rendering when nothing it was rendered from has changed, checked by one
    query that also checks the token; otherwise `render()` -> (html, report shown or None), and the result
    is stored for the next view. Pages before and during a run are never stored: they change as it goes."""
    lookup = service.page_lookup(kind, token, persona)
    if lookup is None:
        abort(404)
    g.embed_frame_ancestors = lookup.frame_ancestors
    # A signed request's links are added as the page is served: the stored page never holds a signature.
    signed = _signature(token, lookup.require_signed_embeds, lookup.embed_secret_encrypted)
    etag = signed.etag(lookup.fingerprint) if signed else lookup.fingerprint
    if lookup.stored is not None:
        _count_view(lookup.stored.report_id, lookup.partner_id)
        return _page(signing.sign_links(lookup.stored.html, signed, token), etag, list(lookup.stored.style_hashes))
    html, report = render()
    if report is not None:
        _count_view(report.id, lookup.partner_id)
    if report is None or lookup.status == "generating":
        return _page(signing.sign_links(html, signed, token))
    style_hashes = csp.style_hashes(html)
    service.store_page(lookup, kind, report.id, html, style_hashes)
    return _page(signing.sign_links(html, signed, token), etag, style_hashes)


def _signature(token: str, required: bool, secret_encrypted: str | None) -> signing.Signed | None:
    """The request's checked signature, or None for an unsigned request the key allows; a refused one is a
    403 page that says why, framed as the page would be."""
    try:
        return signing.check(request.args, token, required, secret_encrypted)
    except signing.Refused as refused:
        abort(html_error(403, str(refused)))


def _key_signing(assessment) -> tuple[bool, str | None]:
    """The creating key's signing rules: (signed URLs required, the encrypted embed secret)."""
    key = assessment.api_key
    return (bool(key.require_signed_embeds), key.embed_secret_encrypted) if key is not None else (False, None)


def _render(template: str, assessment, **context) -> str:
    return render_template(template, header=service.header_for(assessment),
                           brand=service.brand_for(assessment.partner),
                           service_name=current_app.config["SERVICE_NAME"], **context)


def _report_pdf_url(report) -> str:
    return url_for("embed.report_pdf", token=report.view_token)


@bp.get("/assessment/<token>")
def assessment_page(token: str):
    """Every report of an assessment behind a persona selector; `?persona=` picks one on the server."""
    asked = request.args.get("persona") or ""

    def render():
        assessment = _assessment_or_404(token)
        reports = service.shown_reports(assessment)
        selected = service.choose_report(reports, asked)
        html = _render(
            "embed/assessment.html", assessment, groups=service.persona_groups(reports),
            selected=selected.persona if selected else None,
            view=service.report_view(selected.content, assessment.change) if selected else None,
            report_pdf_url=_report_pdf_url(selected) if selected else None,
            pdf_url=url_for("embed.assessment_pdf", token=token) if selected else None,
            fragment_base=url_for("embed.assessment_page", token=token) + "/reports/")
        return html, selected

    # Any ?persona= that names no persona shows the first report, as no ?persona= does: one stored page.
    return _served(service.ASSESSMENT_PAGE, token, asked if asked in service.PERSONA_BY_ID else "", render)


@bp.get("/assessment/<token>/reports/<persona>")
def report_fragment(token: str, persona: str):
    """One report as an HTML fragment, rendered by the same partial as the page, for in-place switching."""
    def render():
        assessment = _assessment_or_404(token)
        report = service.report_for_persona(assessment, persona)
        if report is None:
            abort(404)
        html = render_template("embed/_report.html", header=service.header_for(assessment),
                               view=service.report_view(report.content, assessment.change),
                               report_pdf_url=_report_pdf_url(report))
        return html, report

    return _served(service.FRAGMENT, token, persona, render)


@bp.get("/report/<token>")
def report_page(token: str):
    """One report on its own, under the masthead."""
    def render():
        report = _report_or_404(token)
        html = _render("embed/report.html", report.assessment, persona_label=service.persona_label(report.persona),
                       view=service.report_view(report.content, report.assessment.change), level=1,
                       report_pdf_url=_report_pdf_url(report))
        return html, report

    return _served(service.REPORT_PAGE, token, "", render)


@bp.get("/report/<token>.pdf")
def report_pdf(token: str):
    """One report as a PDF, printed from the page's templates."""
    report = _report_or_404(token)
    _signature(token, *_key_signing(report.assessment))
    return _pdf(report.assessment, [report], report.persona, f"{report.persona}-report")


@bp.get("/assessment/<token>.pdf")
def assessment_pdf(token: str):
    """Every report of an assessment in one PDF, with a table of contents and one requirements appendix."""
    assessment = _assessment_or_404(token)
    _signature(token, *_key_signing(assessment))
    reports = service.reports_with_content(assessment)
    if not reports:
        abort(404)
    return _pdf(assessment, reports, pdf.ALL, "stakeholder-reports")


def _pdf(assessment, reports, scope: str, name: str) -> Response:
    try:
        data = pdf.pdf_for(assessment, reports, scope)
    except (pdf.PdfBusy, pdf.PdfFailed) as error:
        why = ("The PDF is being printed for another reader." if isinstance(error, pdf.PdfBusy)
               else "The PDF could not be printed just now.")
        response = html_error(503, f"{why} Try again in a minute.")
        response.headers["Retry-After"] = "30"
        return response
    framework = re.sub(r"[^A-Za-z0-9]+", "-", assessment.framework).strip("-").lower() or "assessment"
    response = Response(data, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{framework}-{name}.pdf"'
    response.add_etag()
    return response.make_conditional(request)


@bp.get("/logo/<digest>")
def brand_logo(digest: str):
    """A partner's logo, named by its content hash, so it is cached for a year. An SVG gets a policy
    that runs no script and loads nothing, even when opened on its own."""
    found = service.logo(digest)
    if found is None:
        abort(404)
    data, mimetype = found
    response = Response(data, mimetype=mimetype)
    g.embed_logo = True
    return response


def content_security_policy(ancestors: str, style_hashes: list[str]) -> str:
    """Only our own origin; frame-ancestors decides who may put the page in an iframe."""
    return "; ".join([
        "default-src 'none'", " ".join(["style-src 'self'", *style_hashes]), "script-src 'self'",
        "img-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'self'",
        f"frame-ancestors {ancestors}",
    ])


def _inline_style_hashes(response: Response) -> list[str]:
    """Hashes of the page's own <style> blocks: recorded by `_page`, or read from an error page's body,
    so a brand's colours apply and a 404 inside an iframe keeps its look."""
    if "embed_style_hashes" in g:
        return g.embed_style_hashes
    if response.status_code < 400 or response.mimetype != "text/html" or response.direct_passthrough:
        return []
    return csp.style_hashes(response.get_data(as_text=True))


def _is_embed_request() -> bool:
    prefix = bp.url_prefix or ""
    return request.blueprint == bp.name or request.path == prefix or request.path.startswith(prefix + "/")


@bp.after_app_request
def embed_headers(response: Response) -> Response:
    """Framing, privacy and caching headers on every response under /embed, routing errors included.

    Registered app-wide (and filtered by path) because a blueprint-only hook never sees the 404 and
    405 answers for paths under /embed that match no route.
    """
    if not _is_embed_request():
        return response
    ancestors = g.get("embed_frame_ancestors", service.ANY_ANCESTOR)
    if g.get("embed_logo") and response.status_code == 200:
        response.headers["Content-Security-Policy"] = LOGO_POLICY
    else:
        response.headers["Content-Security-Policy"] = content_security_policy(ancestors,
                                                                              _inline_style_hashes(response))
    response.headers.pop("X-Frame-Options", None)
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Robots-Tag"] = "noindex"
    response.headers["X-Content-Type-Options"] = "nosniff"
    if request.endpoint == "embed.static" and response.status_code in (200, 304):
        _static_cache(response)
    elif request.endpoint == "embed.brand_logo" and response.status_code == 200:
        response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"   # named by its content
    elif response.status_code in (200, 304):
        response.headers["Cache-Control"] = "private, no-cache"   # kept, but revalidated on every view
    else:
        response.headers["Cache-Control"] = "no-store"
    return response


def _static_cache(response: Response) -> None:
    """A year and immutable when the URL carries the file's current hash; revalidate otherwise."""
    filename = (request.view_args or {}).get("filename", "")
    current = service.asset_version(bp.static_folder, filename)
    if current is not None and request.args.get("v") == current:
        response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"
