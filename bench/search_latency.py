"""Search as an agent calls it, on a built index of a real workspace: p50/p95 and where the time goes.

    .venv/bin/python bench/search_latency.py --workspace DIR --store INDEX.sqlite --agent AGENT

``mem.search(question, max_results=10, min_score=0)`` through the public API, every question of the
workspace's ``queries.jsonl`` once with its own ``question_date`` as ``now`` and once without, each query
embedded for the first time (the query cache is cleared). Each stage of a search is timed inside the real
call by wrapping the function that does it: the dirty check (``freshen``), the query embedding, the keyword
leg's FTS queries, the vector scores, the key cosines, the rows read, the priors, and the windows with their
snippets. ``bench/embed.py --workspace`` runs the same measurement in the process that has just indexed.
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import memlane
from memlane.search import ranking


def questions(workspace: Path) -> list[dict[str, Any]]:
    path = workspace / "queries.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


@contextmanager
def stages(mem: memlane.Memory) -> Iterator[dict[str, float]]:
    """Seconds spent in each stage, summed while the block runs (wrappers removed after)."""
    spent: dict[str, float] = defaultdict(float)
    undo: list[Callable[[], None]] = []

    def wrap(owner: object, name: str, label: str) -> None:
        real = getattr(owner, name)

        def timed(*args: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return real(*args, **kw)
            finally:
                spent[label] += time.perf_counter() - t

        setattr(owner, name, timed)
        undo.append(lambda: setattr(owner, name, real))

    provider = mem.choice.provider
    wrap(mem.index, "freshen", "dirty check")
    if provider is not None:
        wrap(provider, "embed_query", "query embedding")
    wrap(mem.store, "keyword_search", "keyword FTS")
    wrap(mem.store, "term_frequencies", "term frequencies")
    wrap(mem.store, "chunks_by_seq", "rows read")
    wrap(ranking, "_score_keys", "key cosines")
    wrap(ranking, "apply_priors", "priors")
    wrap(ranking, "_widen", "windows + snippets")
    wrap(ranking, "_result", "snippets of results")
    vectors = mem._vector_index()  # type: ignore[attr-defined]
    wrap(type(vectors), "scores", "vector scores")
    try:
        yield spent
    finally:
        for u in reversed(undo):
            u()


def pct(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def measure(mem: memlane.Memory, qs: list[dict[str, Any]], label: str, with_now: bool) -> None:
    """Print p50/p95 of the questions, with ``now`` (each question's date) or without, and the stages' share."""
    from locomo import question_date  # bench/locomo.py

    provider = mem.choice.provider
    mem.search("warm up the model and the vector matrices", max_results=10, min_score=0)
    total: list[float] = []
    each: dict[str, list[float]] = defaultdict(list)  # each stage's ms in each search
    with stages(mem) as spent:
        for q in qs:
            if provider is not None and hasattr(provider, "_queries"):
                provider._queries._vectors.clear()  # type: ignore[attr-defined]  # embedded for the first time
            before = dict(spent)
            t = time.perf_counter()
            mem.search(q["question"], max_results=10, min_score=0, now=question_date(q) if with_now else None)
            total.append((time.perf_counter() - t) * 1000)
            for k, v in spent.items():
                each[k].append((v - before.get(k, 0.0)) * 1000)
    p50, p95 = pct(total)
    when = "with now" if with_now else "without now"
    print(f"{label}, {when}: p50 {p50:.1f} ms, p95 {p95:.1f} ms ({len(qs)} questions)")
    mean = sum(total) / len(total)
    parts = ", ".join(f"{k} {v * 1000 / len(qs):.1f}" for k, v in sorted(spent.items(), key=lambda kv: -kv[1]))
    print(f"  mean {mean:.1f} ms per search: {parts}")
    medians = {k: float(np.median(v + [0.0] * (len(qs) - len(v)))) for k, v in each.items()}
    parts = ", ".join(f"{k} {v:.1f}" for k, v in sorted(medians.items(), key=lambda kv: -kv[1]))
    print(f"  each stage's median ms: {parts} (the rest: {p50 - sum(medians.values()):.1f} of the p50)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", type=Path, required=True)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--agent", default="main")
    ap.add_argument("--queries", type=Path, help="the workspace whose queries.jsonl to ask (default: --workspace)")
    ap.add_argument("--set", default="{}", help="memorySearch overrides (JSON), e.g. a query setting to compare")
    ap.add_argument("--score", action="store_true", help="also R@5 / MRR of the same calls (../shared/bench/score.py)")
    args = ap.parse_args()
    qdir = args.queries or args.workspace
    qs = questions(qdir)
    overrides = {"sync": {"watch": False}, **json.loads(args.set)}
    for with_now in (True, False):
        # A new Memory each time: nothing kept from the other pass (postings, windows, vector matrices).
        with memlane.open(args.workspace, agent=args.agent, store={"path": str(args.store)}, **overrides) as mem:
            if mem.is_dirty():  # a search would refresh it in the background, beside the measurement
                raise SystemExit(f"the index is not up to date with {args.workspace}: run `memlane index` first")
            measure(mem, qs, "fresh process", with_now)
            if args.score and with_now:
                quality(mem, qs, qdir)


def quality(mem: memlane.Memory, qs: list[dict[str, Any]], qdir: Path) -> None:
    """R@5 and MRR of ``mem.search(question, max_results=10, min_score=0, now=its date)``, scored by the shared
    scorer: the public API's figure the issue quotes."""
    import subprocess
    import sys
    import tempfile

    from locomo import SHARED, question_date

    rows = [
        {
            "qid": q["qid"],
            "results": [r.to_dict() for r in mem.search(q["question"], 10, 0, now=question_date(q)).results],
        }
        for q in qs
    ]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "q").mkdir()
        (Path(tmp) / "q" / "queries.jsonl").write_text((qdir / "queries.jsonl").read_text())
        (Path(tmp) / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        out = subprocess.run(
            [
                sys.executable,
                str(SHARED / "score.py"),
                str(Path(tmp) / "q"),
                str(Path(tmp) / "results.jsonl"),
                "--json",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    o = json.loads(out)["overall"]
    print(f"quality (public API, max_results=10, min_score=0, now): R@5 {o['R@5']:.3f}, MRR {o['MRR']:.3f}")


if __name__ == "__main__":
    main()
