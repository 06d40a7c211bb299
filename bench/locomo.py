"""LoCoMo retrieval quality through the memlane library: keyword-only, vector-only and hybrid.

    .venv/bin/python bench/locomo.py                       # all 10 conversations, categories 1-4
    .venv/bin/python bench/locomo.py --convs conv-26 conv-30 --modes hybrid
    # LongMemEval: convert with ../shared/bench/longmemeval/lme_to_workspace.py into .bench/lme/workspaces, then
    .venv/bin/python bench/locomo.py --work .bench/lme

Converts ../shared/bench/locomo/locomo10.json into workspaces (once, under .bench/), indexes
each with the configured provider (default: the bundled local model), ranks every question
with min_score 0 in each mode over the same index, and scores the results with the shared
score.py (R@k, MRR@10, full-evidence recall, lines per result). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import memlane
from memlane.search import rank

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "bench" / "locomo"


def convert(data: Path, out: Path) -> None:
    if (out / "summary.json").exists() or any(out.glob("*/queries.jsonl")):
        return
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(SHARED / "to_workspace.py"), str(data), str(out)], check=True, stdout=subprocess.DEVNULL
    )


def run_conv(
    ws: Path, store_dir: Path, modes: list[str], topk: int, overrides: dict[str, Any], lat: dict[str, list[float]]
) -> dict[str, list[dict[str, Any]]]:
    queries = [json.loads(line) for line in (ws / "queries.jsonl").read_text().splitlines() if line.strip()]
    settings = {"store": {"path": str(store_dir / f"{ws.name}.sqlite")}, **overrides}
    out: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    with memlane.open(ws, agent=ws.name, **settings) as mem:
        mem.sync()
        hybrid = mem.settings.query.hybrid
        window = mem.settings.query.window
        provider = mem.choice.provider
        vectors = mem._vector_index() if provider else None
        for q in queries:
            qvec = provider.embed_query(q["question"]) if provider else None
            for mode in modes:
                t = time.perf_counter()
                if mode == "keyword":
                    results, _ = rank(mem.store, q["question"], None, None, hybrid, topk, 0.0, window)
                elif mode == "vector":
                    results, _ = rank(
                        mem.store,
                        q["question"],
                        qvec,
                        vectors,
                        hybrid.model_copy(update={"enabled": False}),
                        topk,
                        0.0,
                        window,
                    )
                else:
                    results, _ = rank(mem.store, q["question"], qvec, vectors, hybrid, topk, 0.0, window)
                lat[mode].append((time.perf_counter() - t) * 1000)
                out[mode].append({"qid": q["qid"], "results": [r.to_dict() for r in results]})
    return out


def score(queries_dir: Path, results: Path, extra: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(SHARED / "score.py"), str(queries_dir), str(results), "--json", *extra],
        check=True,
        capture_output=True,
        text=True,
    )
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED / "locomo10.json")
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "locomo")
    ap.add_argument("--convs", nargs="*", default=[])
    ap.add_argument("--modes", nargs="*", default=["keyword", "vector", "hybrid"])
    ap.add_argument("--topk", type=int, default=10)
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        help='memorySearch override as JSON, e.g. \'{"query": {"hybrid": {"fusion": "rrf"}}}\'',
    )
    ap.add_argument("--md-only", action="store_true", help="count only Markdown evidence lines")
    args = ap.parse_args()

    workspaces = args.work / "workspaces"
    convert(args.data, workspaces)
    convs = sorted(p for p in workspaces.iterdir() if (p / "queries.jsonl").exists())
    if args.convs:
        convs = [p for p in convs if p.name in args.convs]
    overrides: dict[str, Any] = {}
    for s in args.sets:
        overrides.update(json.loads(s))
    store_dir = args.work / "stores"
    store_dir.mkdir(parents=True, exist_ok=True)

    lat: dict[str, list[float]] = {m: [] for m in args.modes}
    per_mode: dict[str, list[dict[str, Any]]] = {m: [] for m in args.modes}
    t0 = time.perf_counter()
    for ws in convs:
        for mode, rows in run_conv(ws, store_dir, args.modes, args.topk, overrides, lat).items():
            per_mode[mode].extend(rows)
    print(f"{len(convs)} conversations, {len(per_mode[args.modes[0]])} questions, {time.perf_counter() - t0:.1f}s")

    qdir = args.work / "queries"
    qdir.mkdir(exist_ok=True)
    for ws in convs:  # score only the selected conversations
        (qdir / ws.name).mkdir(exist_ok=True)
        (qdir / ws.name / "queries.jsonl").write_text((ws / "queries.jsonl").read_text())
    extra = ["--md-only"] if args.md_only else []
    print(
        f"{'mode':8} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'EvR@10':>7} {'mh R@5':>7} {'mh EvR@10':>9} "
        f"{'lines/res':>9} {'p50 ms':>7}"
    )
    for mode in args.modes:
        path = args.work / f"results-{mode}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in per_mode[mode]))
        rep = score(qdir, path, extra)
        o = rep["overall"]
        mh = next((v for k, v in rep["by_category"].items() if "multi" in k), None) or {}
        print(
            f"{mode:8} {o['R@1']:6.3f} {o['R@5']:6.3f} {o['R@10']:6.3f} {o['MRR']:6.3f} {o['EvR@10']:7.3f} "
            f"{mh.get('R@5', float('nan')):7.3f} {mh.get('EvR@10', float('nan')):9.3f} {o['lines/res@10']:9.1f} "
            f"{median(lat[mode]):7.2f}"
        )


if __name__ == "__main__":
    main()
