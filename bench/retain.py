"""Drafting Retain bullets offline, measured: recall over drafted facts against recall over LoCoMo's own.

    .venv/bin/python bench/retain.py              # all ten conversations, k = 10

Converts LoCoMo with to_workspace.py only (plain logs, no Retain sections) under .bench/retain, runs
`mem.retain(..., apply=True)` on every daily log (the offline rules), and writes recall_queries.jsonl
the way to_retain.py does for LoCoMo's observations: a question expects the drafted bullets drawn from
one of its evidence turns. Then it recalls every question (bundled model) and scores with the shared
score_recall.py. Prints numbers; asserts nothing. Compare with bench/recall.py (LoCoMo's observations)
and bench/locomo.py (memory_search over the same logs).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

import locomo_data
import memlane

ROOT = Path(__file__).resolve().parents[1]
SHARED = locomo_data.SHARED
_TURN = re.compile(r"^- \[(D\d+:\d+)\]")


def draft_workspace(ws: Path, stores: Path) -> dict[str, Any]:
    """Append drafted Retain sections to every log of ``ws``; write recall_queries.jsonl for them."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    bullets = 0
    with memlane.open(
        ws, agent=f"draft-{ws.name}", provider="none", store={"path": str(stores / f"{ws.name}-draft.sqlite")}
    ) as mem:
        drafts = mem.retain(since="1900-01-01", apply=True)
    for d in drafts:
        if not d.written or d.lines is None:
            continue
        lines = (ws / d.path).read_text().splitlines()
        for k, draft in enumerate(d.drafts):
            m = _TURN.match(lines[draft.line - 1])
            bullets += 1
            if m:
                by_turn.setdefault(m.group(1), []).append({"path": d.path, "line": d.lines[0] + k})
    with (ws / "queries.jsonl").open() as src, (ws / "recall_queries.jsonl").open("w") as dst:
        for line in src:
            q = json.loads(line)
            expected: list[dict[str, Any]] = []
            for turn in q["evidence"]:
                for loc in by_turn.get(turn, []):
                    if loc not in expected:
                        expected.append(loc)
            q["expected_facts"] = expected
            dst.write(json.dumps(q) + "\n")
    return {"bullets": bullets, "logs": len(drafts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "retain")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    ws_root = locomo_data.workspaces(args.work / "ws", retain=False)
    stores = args.work / "stores"
    stores.mkdir(parents=True, exist_ok=True)
    convs = sorted(p for p in ws_root.iterdir() if (p / "queries.jsonl").exists())
    drafted = []
    t = time.perf_counter()
    for ws in convs:
        if not (ws / "recall_queries.jsonl").exists():
            drafted.append(draft_workspace(ws, stores))
    if drafted:
        print(
            f"drafted {sum(d['bullets'] for d in drafted)} bullets in {sum(d['logs'] for d in drafted)} logs "
            f"({time.perf_counter() - t:.1f}s, offline rules)"
        )
    results = []
    lat = []
    for ws in convs:
        queries = [json.loads(x) for x in (ws / "recall_queries.jsonl").read_text().splitlines() if x.strip()]
        last = max(dt.date.fromisoformat(p.stem[:10]) for p in (ws / "memory").glob("*.md"))
        now = dt.datetime.combine(last + dt.timedelta(days=1), dt.time(12))
        with memlane.open(ws, agent=ws.name, store={"path": str(stores / f"{ws.name}.sqlite")}) as mem:
            mem.sync()
            for q in queries:
                t = time.perf_counter()
                resp = mem.recall(q["question"], k=args.k, now=now)
                lat.append(time.perf_counter() - t)
                results.append(
                    {"qid": q["qid"], "facts": [{"source": f.source, "content": f.content} for f in resp.facts]}
                )
    out = args.work / "results-drafted.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in results))
    print(f"recall over drafted facts, {len(results)} questions, mean {mean(lat) * 1000:.1f} ms")
    score = subprocess.run(
        [sys.executable, str(SHARED / "score_recall.py"), str(ws_root), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    print(score.stdout)


if __name__ == "__main__":
    main()
