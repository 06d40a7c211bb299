"""Fact recall on LoCoMo: its per-session observations as `## Retain` bullets, recalled as a user calls it.

    .venv/bin/python bench/recall.py                      # all ten conversations, k = 10
    .venv/bin/python bench/recall.py --set '{"recall": {"contextWeight": 0}}'    # a variant
    .venv/bin/python bench/recall.py --provider none       # words only
    .venv/bin/python bench/recall.py --sweep               # re-weight the signals offline: tune on 1-5, check 6-10

Converts ../shared/bench/locomo/locomo10.json with to_workspace.py + to_retain.py (once, under
.bench/recall), indexes each conversation with the configured provider (default: the bundled local
model; vectors stay cached in .bench/recall/stores), asks every question as ``mem.recall(question,
k=10)`` (the clock's now; ``--now after`` sets it to the day after the conversation's last session),
and scores with the shared score_recall.py: overall, per category, and for conversations 1-5 (tuned
on) and 6-10 (held out) separately. Also prints the recall latency. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import locomo_data
import memlane

ROOT = Path(__file__).resolve().parents[1]
SHARED = locomo_data.SHARED


def run_conv(
    ws: Path,
    stores: Path,
    k: int,
    overrides: dict[str, Any],
    lat: list[float],
    explain: bool = False,
    after: bool = False,
) -> list[dict[str, Any]]:
    queries = [json.loads(x) for x in (ws / "recall_queries.jsonl").read_text().splitlines() if x.strip()]
    last_day = max(dt.date.fromisoformat(p.stem[:10]) for p in (ws / "memory").glob("*.md"))
    # What a user calls: mem.recall(question, k=10), the clock's now. --now after: the day after the last
    # session, as if asked right after the conversation (the figure this bench used to report).
    now = dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time(12)) if after else None
    settings = {"store": {"path": str(stores / f"{ws.name}.sqlite")}, **overrides}
    out = []
    with memlane.open(ws, agent=ws.name, **settings) as mem:
        mem.sync()
        mem.recall("warm up", k=k, now=now)
        for q in queries:
            t = time.perf_counter()
            resp = mem.recall(q["question"], k=k, now=now, explain=explain)
            lat.append((time.perf_counter() - t) * 1000)
            row: dict[str, Any] = {
                "qid": q["qid"],
                "facts": [{"source": f.source, "content": f.content} for f in resp.facts],
            }
            if explain:
                row["candidates"] = [(f.source, f.signals) for f in resp.candidates or []]
                row["category"] = q["category"]
                row["expected"] = [f"{e['path']}#L{e['line']}" for e in q["expected_facts"]]
            out.append(row)
    return out


def score(workspaces: Path, convs: list[Path], results: list[dict[str, Any]], work: Path, tag: str) -> str:
    """score_recall.py over the given conversations only (it reads every recall_queries.jsonl of a folder)."""
    folder = work / f"score-{tag}"
    folder.mkdir(exist_ok=True)
    names = {c.name for c in convs}
    for ws in convs:
        (folder / ws.name).mkdir(exist_ok=True)
        (folder / ws.name / "recall_queries.jsonl").write_text((ws / "recall_queries.jsonl").read_text())
    for old in folder.iterdir():
        if old.is_dir() and old.name not in names:
            for f in old.iterdir():
                f.unlink()
            old.rmdir()
    path = work / f"results-{tag}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in results if r["qid"].split("/")[0] in names))
    proc = subprocess.run(
        [sys.executable, str(SHARED / "score_recall.py"), str(folder), str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "recall")
    ap.add_argument("--convs", nargs="*", default=[])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--provider", default=None, help="memorySearch.provider (default: the configured one)")
    ap.add_argument("--set", dest="sets", action="append", default=[], help="memorySearch override as JSON")
    ap.add_argument("--halves", action="store_true", help="also score conversations 1-5 and 6-10 apart")
    ap.add_argument("--sweep", action="store_true", help="grid over the recall weights, offline")
    ap.add_argument(
        "--now",
        choices=("clock", "after"),
        default="clock",
        help="the present of each question: the clock (as mem.recall is called) or the day after the last session",
    )
    args = ap.parse_args()

    workspaces = args.work / "ws"
    locomo_data.workspaces(workspaces)
    convs = sorted(p for p in workspaces.iterdir() if (p / "recall_queries.jsonl").exists())
    if args.convs:
        convs = [p for p in convs if p.name in args.convs]
    overrides: dict[str, Any] = {}
    for s in args.sets:
        overrides = _merge(overrides, json.loads(s))
    if args.provider:
        overrides["provider"] = args.provider
    stores = args.work / "stores"
    stores.mkdir(parents=True, exist_ok=True)

    lat: list[float] = []
    results: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for ws in convs:
        results.extend(run_conv(ws, stores, args.k, overrides, lat, explain=args.sweep, after=args.now == "after"))
    if args.sweep:
        sweep(results, args.k)
        return
    print(
        f"{len(convs)} conversations, {len(results)} questions, {time.perf_counter() - t0:.1f}s; "
        f"recall p50 {median(lat):.1f} ms (query embedding included)"
    )
    print(score(workspaces, convs, results, args.work, "all"))
    if args.halves and len(convs) == 10:
        for tag, part in (("conv1-5", convs[:5]), ("conv6-10", convs[5:])):
            print(f"-- {tag} ({', '.join(c.name for c in part)})")
            print(score(workspaces, part, results, args.work, tag))


SIGNALS = ("vector", "text", "context", "entity", "related", "time", "opinion", "dated")
GRID = {
    "vectorWeight": [0.4, 0.5, 0.6, 0.7, 0.8],  # textWeight = 1 - vectorWeight
    "contextWeight": [0.3, 0.5, 0.7],
    "entityWeight": [0.0, 0.05, 0.1, 0.2],
    "relatedWeight": [0.05],
    "timeWeight": [0.1, 0.2, 0.3, 0.5],
    "opinionWeight": [0.15],
    "datedWeight": [0.0, 0.05, 0.1, 0.2],
}


def sweep(results: list[dict[str, Any]], k: int) -> None:
    """Every weight combination of GRID scored on the candidates each question had (ranking as in
    memlane.facts.recall); best first by R@5 + MRR on conversations 1-5, with 6-10 beside it."""
    import itertools

    import numpy as np

    configs = list(itertools.product(*GRID.values()))
    w = np.array(configs, dtype=np.float64)  # (configs, 6)
    halves = sorted({r["qid"].split("/")[0] for r in results})
    first = set(halves[:5])
    stats = {
        name: {"r5": np.zeros(len(configs)), "mrr": np.zeros(len(configs)), "n": 0}
        for name in ("1-5", "6-10", "temporal 1-5", "temporal 6-10")
    }
    for r in results:
        if r["category"] == 5 or not r["expected"] or not r["candidates"]:
            continue
        expected = {(e.split("#L")[0], int(e.split("#L")[1])) for e in r["expected"]}
        sig = np.array([[c[1][s] for s in SIGNALS] for c in r["candidates"]])  # (cands, 7)
        hit = np.array([_hits(c[0], expected) for c in r["candidates"]])
        if not hit.any():
            continue_scores = np.zeros(len(configs))
            ranks = np.full(len(configs), 99)
        else:
            lexical = bool((sig[:, 1] > 0).any())
            wv = w[:, 0] if lexical else np.ones(len(configs))
            wt = 1 - w[:, 0] if lexical else np.zeros(len(configs))
            scores = (
                np.outer(wv, sig[:, 0])
                + np.outer(wt, sig[:, 1])
                + np.outer(w[:, 1], sig[:, 2])
                + np.outer(w[:, 2], sig[:, 3])
                + np.outer(w[:, 3], sig[:, 4])
                + np.outer(w[:, 4], sig[:, 5])
                + np.outer(w[:, 5], sig[:, 6])
                + np.outer(w[:, 6], sig[:, 7])
            )  # (configs, cands)
            order = np.argsort(-scores, axis=1, kind="stable")
            hit_sorted = hit[order]
            ranks = np.where(hit_sorted.any(axis=1), hit_sorted.argmax(axis=1) + 1, 99)
            continue_scores = np.where(ranks <= 10, 1.0 / ranks, 0.0)
        half = "1-5" if r["qid"].split("/")[0] in first else "6-10"
        for name in (half, f"temporal {half}") if r["category"] == 2 else (half,):
            stats[name]["r5"] += ranks <= 5
            stats[name]["mrr"] += continue_scores
            stats[name]["n"] += 1

    def fig(name: str, i: int) -> str:
        st = stats[name]
        return f"{st['r5'][i] / st['n']:.3f}/{st['mrr'][i] / st['n']:.3f}"

    objective = stats["1-5"]["r5"] / stats["1-5"]["n"] + stats["1-5"]["mrr"] / stats["1-5"]["n"]
    print(f"R@5/MRR over the candidates (k={k}), tuned on conversations 1-5:")
    print(f"{'weights (' + ', '.join(GRID) + ')':70} {'1-5':>12} {'6-10':>12} {'temp 1-5':>12} {'temp 6-10':>12}")
    for i in np.argsort(-objective, kind="stable")[:15]:
        print(
            f"{configs[i]!s:70} {fig('1-5', i):>12} {fig('6-10', i):>12} "
            f"{fig('temporal 1-5', i):>12} {fig('temporal 6-10', i):>12}"
        )


def _hits(source: str, expected: set[tuple[str, int]]) -> bool:
    path, _, lines = source.partition("#L")
    a, _, b = lines.partition("-L")
    return any(p == path and int(a) <= ln <= int(b or a) for p, ln in expected)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


if __name__ == "__main__":
    main()
