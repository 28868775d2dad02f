"""The summary card's two small charts, drawn as inline SVG with no script: the status of each area (met, partly
met and not met per topic) and, when the assessment is linked to the client's earlier ones, the score over time.

Each chart is an `<svg role="img">` whose `aria-label` (and `<title>`, the tooltip) says in words every figure it
draws, so a screen reader gets the whole chart and the drawing can stay wordless where room is short. Colours
are presentation attributes, not CSS: the pages' Content-Security-Policy forbids inline styles, and WeasyPrint
draws the same SVG into the PDFs with the same colours.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape
from sqlalchemy import select

from ..content import load
from ..extensions import db
from ..generation.facts import main_topic, requirement_topics
from ..models import Assessment, Requirement

STATUS_COLOURS = {"met": "#15803d", "partially_met": "#b45309", "not_met": "#b91c1c"}   # the chips' --met etc.
INK, MUTED, RULE = "#1f2937", "#4b5563", "#d1d5db"
MAX_AREAS = 9          # board reporting: fewer than ten figures; past it, those with least open work are one row
MAX_POINTS = 6         # the score over time: this assessment and up to five before it
OTHER = "Other areas"


@dataclass(frozen=True)
class Area:
    label: str
    met: int = 0
    partially_met: int = 0
    not_met: int = 0

    @property
    def total(self) -> int:
        return self.met + self.partially_met + self.not_met

    @property
    def open(self) -> int:
        return self.partially_met + self.not_met

    def plus(self, other: Area) -> Area:
        return Area(self.label, self.met + other.met, self.partially_met + other.partially_met,
                    self.not_met + other.not_met)

    def words(self) -> str:
        parts = [f"{n} {w}" for n, w in ((self.met, "met"), (self.partially_met, "partly met"),
                                           (self.not_met, "not met")) if n]
        return f"{self.label}: {', '.join(parts)}"


@dataclass(frozen=True)
class ScorePoint:
    score: float
    on: datetime
    current: bool = False


def areas_of(assessment: Assessment) -> tuple[Area, ...]:
    """The assessment's requirements counted by their main topic (as the reports file them), the areas with
    most open work first; beyond MAX_AREAS, those with the least open work are summed as "Other areas"."""
    pack = load().framework_for(assessment.framework)
    topics = load().topics
    counts: dict[str, Area] = {}
    for ref, title, status in db.session.execute(
            select(Requirement.ref, Requirement.title, Requirement.status)
            .where(Requirement.assessment_id == assessment.id).order_by(Requirement.position)):
        topic = main_topic(requirement_topics(pack, ref, title))
        label = topics[topic].chart_label if topic in topics else OTHER
        counts[label] = counts.get(label, Area(label)).plus(Area(label, **{status: 1}))
    ranked = sorted(counts.values(), key=lambda a: (-a.open, -a.not_met, -a.total, a.label))
    if len(ranked) <= MAX_AREAS:
        return tuple(ranked)
    rest = Area(OTHER)
    for area in ranked[MAX_AREAS - 1:]:
        rest = rest.plus(area)
    return (*ranked[:MAX_AREAS - 1], rest)


def score_history(assessment: Assessment) -> tuple[ScorePoint, ...]:
    """This assessment's score and those of the earlier ones it is linked to, oldest first: the chain of
    `previousAssessmentId`, which never crosses partners or modes and ends at an erased one."""
    points = [ScorePoint(assessment.compliance_score, assessment.created_at, current=True)]
    previous = assessment.previous_assessment_id
    while previous is not None and len(points) < MAX_POINTS:
        row = db.session.execute(
            select(Assessment.previous_assessment_id, Assessment.compliance_score, Assessment.created_at)
            .where(Assessment.id == previous, Assessment.partner_id == assessment.partner_id,
                   Assessment.livemode == assessment.livemode)).first()
        if row is None:
            break
        points.append(ScorePoint(row.compliance_score, row.created_at))
        previous = row.previous_assessment_id
    return tuple(reversed(points))


def _svg(label: str, width: int, height: int, body: list[str], css: str) -> Markup:
    text = escape(label)
    return Markup(  # noqa: S704 - the label is escaped; every other value is a number or ours
        f'<svg class="chart {css}" viewBox="0 0 {width} {height}" role="img" aria-label="{text}" '
        f'font-family="inherit" font-size="12"><title>{text}</title>{"".join(body)}</svg>')


def _score(score: float) -> str:
    return f"{score:g}%"


def area_chart(areas: tuple[Area, ...]) -> Markup | None:
    """A stacked bar per area (met, partly met, not met), scaled to the largest area, with its open count."""
    if not areas:
        return None
    width, row, bar, left, right = 360, 22, 12, 150, 306
    scale = (right - left) / max(a.total for a in areas)
    body: list[str] = []
    for n, area in enumerate(areas):
        y = n * row
        body.append(f'<text x="0" y="{y + 15}" fill="{INK}">{escape(area.label)}</text>')
        x = float(left)
        for status, count in (("met", area.met), ("partially_met", area.partially_met), ("not_met", area.not_met)):
            if count:
                body.append(f'<rect x="{x:.1f}" y="{y + 5}" width="{count * scale:.1f}" height="{bar}" '
                            f'fill="{STATUS_COLOURS[status]}"/>')
                x += count * scale
        body.append(f'<text x="{width}" y="{y + 15}" text-anchor="end" fill="{MUTED}">'
                    f'{f"{area.open} open" if area.open else "all met"}</text>')
    y = len(areas) * row + 8
    x = 0
    for status, name in (("met", "Met"), ("partially_met", "Partly met"), ("not_met", "Not met")):
        body.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{STATUS_COLOURS[status]}"/>'
                    f'<text x="{x + 14}" y="{y + 9}" fill="{MUTED}">{name}</text>')
        x += 14 + 7 * len(name) + 16
    label = "Requirements by area. " + "; ".join(a.words() for a in areas) + "."
    return _svg(label, width, y + 14, body, "chart--areas")


def _month(on: datetime) -> str:
    return f"{on:%b %Y}"


def score_chart(points: tuple[ScorePoint, ...]) -> Markup | None:
    """The score at each linked assessment, oldest first, as a line on a 0-100 scale with each value and date;
    None for an assessment with no earlier one."""
    if len(points) < 2:
        return None
    width, top, bottom, left, right = 360, 18, 84, 34, 340
    dates = [_month(p.on) for p in points]
    if len(set(dates)) < len(dates):           # two in one month: the day tells them apart
        dates = [f"{p.on.day} {p.on:%b %y}" for p in points]
    step = (right - left) / (len(points) - 1)
    xy = [(left + n * step, bottom - (bottom - top) * p.score / 100) for n, p in enumerate(points)]
    body = [f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="{RULE}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" fill="{MUTED}" font-size="9">{v}%</text>'
            for v, y in ((0, bottom), (50, (top + bottom) / 2), (100, top))]
    body.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in xy)}" fill="none" '
                f'stroke="{INK}" stroke-width="2"/>')
    for (x, y), point, date in zip(xy, points, dates, strict=True):
        anchor = "start" if x == left else "end" if x == right else "middle"
        weight = ' font-weight="700"' if point.current else ""
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{4 if point.current else 3}" fill="{INK}"/>'
                    f'<text x="{x:.1f}" y="{max(y - 8, 10):.1f}" text-anchor="{anchor}" fill="{INK}"{weight}>'
                    f'{_score(point.score)}</text>'
                    f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="{anchor}" fill="{MUTED}">{date}</text>')
    label = ("Compliance score over time: " + ", ".join(
        f"{_score(p.score)} in {p.on:%B %Y}{' (this assessment)' if p.current else ''}" for p in points) + ".")
    return _svg(label, width, bottom + 22, body, "chart--trend")
