"""Write the 25 reports of each sample assessment to a folder, to read them and to measure them.

    python -m app.generation.samples OUT [--methodology spin ...] [--case hipaa_billing ...]

For each sample in app/content/samples/ (an API submission body) and each methodology, writes
OUT/<case>/<methodology>/<persona>.json (as `GET /assessments/:id/reports/:persona` returns it) and
<persona>.md (the same report as Markdown), plus OUT/<case>/assessment.json. That is the layout
`shared_sentences.py` reads. `make report-sample` runs it for every sample under SPIN and one more
methodology. Template engine only: no database, no network.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from ..catalog import DEFAULT_METHODOLOGY, METHODOLOGIES, PERSONAS
from .content import stored_content
from .facts import AssessmentFacts
from .template_engine import TemplateEngine

SAMPLES = Path(__file__).resolve().parent.parent / "content" / "samples"


def samples() -> dict[str, dict]:
    """{case: submission body}, in file-name order."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(SAMPLES.glob("*.json"))}


def markdown(report: dict) -> str:
    # As the client's pages show it: the reader, never the seller's methodology or our relation labels.
    lines = [f"# {report['title']}", "", f"*For the {report['personaLabel']}*", "", report["summary"], ""]
    if report.get("keyPoints"):
        lines += [f"- {p}" for p in report["keyPoints"]] + [""]
    for section in report["sections"]:
        lines += [f"## {section['heading']}", ""]
        for paragraph in section["paragraphs"]:
            lines += [paragraph, ""]
        lines += [f"- {b}" for b in section["bullets"]]
        lines += [""] if section["bullets"] else []
    lines += ["**Call to action:** " + report["callToAction"], ""]
    return "\n".join(lines)


def write_case(out: Path, case: str, body: dict, methodologies: list[str]) -> int:
    engine, facts = TemplateEngine(), AssessmentFacts.from_submission(body)
    folder = out / case
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assessment.json").write_text(json.dumps(body, indent=2), encoding="utf-8")
    written = 0
    for methodology in methodologies:
        target = folder / methodology
        target.mkdir(exist_ok=True)
        for persona in PERSONAS:
            report = stored_content(engine.write(facts, persona.id, methodology), persona.id, methodology,
                                    engine.name, "2026-01-01T00:00:00Z")
            (target / f"{persona.id}.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
            (target / f"{persona.id}.md").write_text(markdown(report), encoding="utf-8")
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--methodology", action="append", choices=[m.id for m in METHODOLOGIES],
                        help=f"repeatable; default {DEFAULT_METHODOLOGY} and challenger")
    parser.add_argument("--case", action="append", help="repeatable; default every sample")
    args = parser.parse_args(argv)
    cases = samples()
    chosen = args.case or list(cases)
    unknown = [c for c in chosen if c not in cases]
    if unknown:
        parser.error(f"unknown case(s) {unknown}; known: {sorted(cases)}")
    if args.out.exists():
        shutil.rmtree(args.out)
    total = sum(write_case(args.out, case, cases[case], args.methodology or [DEFAULT_METHODOLOGY, "challenger"])
                for case in chosen)
    print(f"wrote {total} reports to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
