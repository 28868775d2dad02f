#!/usr/bin/env python3
# Vendored from the product owner's tools (shared/tools/shared_sentences.py), unchanged below this line,
# so the suite measures repetition exactly as the reports are judged.
"""Measure how much report text is repeated, the way the product owner measures it.

Three figures, each over sentences of 8 or more words:
  across personas      per report: the share of its distinct sentences that appear verbatim in
                       another persona's report of the same run (same assessment, methodology).
                       Target: at most 15 % for every report.
  across methodologies per persona: the share of sentences that its report under SPIN and under
                       another methodology have in common (the larger of the two shares).
                       Target: at most 30 % for every persona.
  near-duplicates      per report: the share of its distinct sentences that have a near-duplicate
                       in another persona's report of the same run: word-trigram Jaccard
                       similarity of 0.6 or more, so a template filled with another name, id or
                       number counts. Target: at most 25 % for every report.
  within a report      sentences that occur more than once in one report. Target: 0.

"Verbatim" is after normalising case, whitespace, curly quotes, dashes and final punctuation.
Ignored: headings, sections whose heading matches /appendix|requirements in scope/i, and bullets
that are nothing but a requirement's id, title and status (needs the requirements, see below).

Input: a folder laid out as ROOT/<case>/<methodology>/<persona>.json, each file one report as
`GET /api/v1/assessments/:id/reports/:persona` returns it. Optional ROOT/<case>/assessment.json
(the submission body) gives the requirements for the id-title-status exclusion.

    python3 ../shared/tools/shared_sentences.py ROOT [--json]

Exit status 1 when a target is missed. Standard library only.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import statistics
import sys

APPENDIX = re.compile(r"appendix|requirements in scope", re.I)
ABBREV = re.compile(r"(?:\b(?:Art|Arts|No|Nos|Sec|Secs|Para|vs|etc|approx|incl|cf|Inc|Ltd|Co|Corp"
                    r"|St|Dr|Mr|Ms|Mrs|Fig|Vol|Ch|Rev|pp|p)|\be\.g|\bi\.e|\bU\.S|\bU\.K)\.$", re.I)
SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9\u00a7])")
WORD = re.compile(r"[A-Za-z0-9]")
STATUS = re.compile(r"\b(?:status|not met|not_met|partially met|partially_met|partly met|met"
                    r"|open|closed|in place|not in place|partial|gap)\b")


def sentences(text):
    text = re.sub(r"\s+", " ", text or "").strip()
    out = []
    for part in SPLIT.split(text) if text else []:
        if out and ABBREV.search(out[-1]):
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def norm(s):
    for a, b in (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'),
                 ("\u2013", "-"), ("\u2014", "-")):
        s = s.replace(a, b)
    s = re.sub(r"\s+", " ", s).strip().lower()
    return s.strip(" \"'()[]*").rstrip(".!?:;,").strip()


TOKEN = re.compile(r"[a-z0-9]+(?:[.()][a-z0-9]+)*")


def shingles(normalised):
    words = TOKEN.findall(normalised)
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}


def near_ratios(run):
    """{persona: share of its distinct sentences with a near-duplicate in another persona's report}"""
    sh = {(p, n): shingles(n) for p, lst in run.items() for n in set(lst)}
    index = {}
    for key, grams in sh.items():
        for g in grams:
            index.setdefault(g, set()).add(key)
    out = {}
    for p, lst in run.items():
        distinct, near = set(lst), 0
        for n in distinct:
            a, counts = sh[(p, n)], {}
            for g in a:
                for other in index.get(g, ()):
                    if other[0] != p:
                        counts[other] = counts.get(other, 0) + 1
            near += any(c / len(a | sh[o]) >= 0.6 for o, c in counts.items())
        out[p] = near / len(distinct) if distinct else 0.0
    return out


def requirement_only(text, reqs):
    t = text.lower()
    for r in reqs:
        if r["id"].lower() in t:
            rest = STATUS.sub(" ", t.replace(r["id"].lower(), " ").replace(r["title"].lower(), " "))
            if len(re.findall(r"[a-z0-9]+", rest)) <= 1:
                return True
    return False


def long_sentences(report, reqs):
    """Normalised sentences of 8+ words, in order, repeats kept, exclusions applied."""
    texts = [report.get("title"), report.get("summary")]
    for sec in report.get("sections") or []:
        if APPENDIX.search(sec.get("heading") or ""):
            continue
        texts += sec.get("paragraphs") or []
        texts += [b for b in sec.get("bullets") or [] if not requirement_only(b, reqs)]
    texts.append(report.get("callToAction"))
    return [(norm(s), s) for t in texts for s in sentences(t)
            if sum(1 for w in s.split() if WORD.search(w)) >= 8]


def load(root):
    """{case: {"reqs": [...], "runs": {methodology: {persona: report}}}}"""
    cases = {}
    for case_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        body = case_dir / "assessment.json"
        reqs = json.loads(body.read_text()).get("requirements", []) if body.exists() else []
        runs = {m.name: {f.stem: json.loads(f.read_text()) for f in sorted(m.glob("*.json"))}
                for m in sorted(p for p in case_dir.iterdir() if p.is_dir())}
        cases[case_dir.name] = {"reqs": reqs, "runs": {m: r for m, r in runs.items() if r}}
    return cases


def measure(cases):
    across, near, methods, repeats, worst = [], [], [], [], {}
    for case, c in cases.items():
        sets = {m: {p: [n for n, _ in long_sentences(r, c["reqs"])] for p, r in run.items()}
                for m, run in c["runs"].items()}
        for m, run in sets.items():
            counts = {}
            for lst in run.values():
                for n in set(lst):
                    counts[n] = counts.get(n, 0) + 1
            for p, lst in run.items():
                distinct = set(lst)
                ratio = sum(counts[n] > 1 for n in distinct) / len(distinct) if distinct else 0.0
                across.append((ratio, f"{case}/{m}/{p}"))
                repeats += [(f"{case}/{m}/{p}", n) for n in distinct if lst.count(n) > 1]
            near += [(r, f"{case}/{m}/{p}") for p, r in near_ratios(run).items()]
        for m, run in sets.items():
            if m == "spin" or "spin" not in sets:
                continue
            for p, lst in run.items():
                a, b = set(sets["spin"].get(p, [])), set(lst)
                both = a & b
                ratio = max(len(both) / len(a) if a else 0.0, len(both) / len(b) if b else 0.0)
                methods.append((ratio, f"{case}/{p}: spin vs {m}"))
    for name, values in (("across", across), ("near", near), ("methods", methods)):
        worst[name] = max(values) if values else (0.0, "")
    return {
        "across_personas": {"median": statistics.median(r for r, _ in across) if across else 0.0,
                            "max": worst["across"][0], "worst": worst["across"][1],
                            "over": sum(r > 0.15 for r, _ in across), "reports": len(across),
                            "ok": all(r <= 0.15 for r, _ in across)},
        "near_duplicates": {"median": statistics.median(r for r, _ in near) if near else 0.0,
                            "max": worst["near"][0], "worst": worst["near"][1],
                            "over": sum(r > 0.25 for r, _ in near), "reports": len(near),
                            "ok": all(r <= 0.25 for r, _ in near)},
        "across_methodologies": {"median": statistics.median(r for r, _ in methods) if methods else 0.0,
                                 "max": worst["methods"][0], "worst": worst["methods"][1],
                                 "over": sum(r > 0.30 for r, _ in methods), "pairs": len(methods),
                                 "ok": all(r <= 0.30 for r, _ in methods)},
        "within_report": {"repeated": len(repeats), "examples": repeats[:5], "ok": not repeats},
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    result = measure(load(args.root))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        a, m, w = result["across_personas"], result["across_methodologies"], result["within_report"]
        d = result["near_duplicates"]
        print(f"across personas:      median {a['median']:.0%}, max {a['max']:.0%} ({a['worst']}), "
              f"{a['over']}/{a['reports']} reports over 15 %")
        print(f"near-duplicates:      median {d['median']:.0%}, max {d['max']:.0%} ({d['worst']}), "
              f"{d['over']}/{d['reports']} reports over 25 %")
        print(f"across methodologies: median {m['median']:.0%}, max {m['max']:.0%} ({m['worst']}), "
              f"{m['over']}/{m['pairs']} pairs over 30 %")
        print(f"within a report:      {w['repeated']} repeated sentences")
        for where, n in w["examples"]:
            print(f"  {where}: \"{n[:120]}\"")
    return 0 if all(v["ok"] for v in result.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
