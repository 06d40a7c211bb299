"""The time-aware graph measured on a generated memory: 1,000 people over 5 years of daily logs.

    .venv/bin/python bench/graph.py                     # both forms, seed 7, 1,000 people, keyword-only recall
    .venv/bin/python bench/graph.py --people 200 --provider local   # with the bundled model (slower to index)
    .venv/bin/python bench/graph.py --form explicit --people 5000   # ~95k relations: walk latency

``graph_data.generate`` writes the same events twice: Retain bullets with inline relation fields ("explicit")
and the same sentences without them ("prose"). Each form gets an empty workspace and is indexed through the
public API; then every question is asked as a person would:

- "Where does X live now?" / "Where does X work now?": ``mem.recall(q, k=5)``, top-1 fact must name the answer;
- "Where did X live on D?" / "Where did X work on D?": ``mem.recall(q, as_of=D)``;
- "What did memory hold about where X lived on D?": ``mem.recall(q, as_of=D, known_at=D)``;
- "Who works at Y now?": ``mem.graph(Y, depth=1)``, the people holding works_at Y today must be the answer set.

Also: collateral closures (a statement closed by another subject's statement, or by another predicate's
value), index time, and graph walk latency (depth 2 from 200 people). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import graph_data
import memlane
from memlane.facts.graph import Predicates, directory_of
from memlane.facts.graph.query import Graph


def run(form: str, people: int, seed: int, provider: str, years: int = 5) -> None:
    data = graph_data.generate(seed=seed, people=people, form=form, years=years)
    root = Path(tempfile.mkdtemp(prefix=f"graph-{form}-"))
    ws = root / "ws"
    for path, text in data.files.items():
        p = ws / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    now = dt.datetime.fromisoformat(data.today) + dt.timedelta(hours=12)
    settings = {"provider": provider, "store": {"path": str(root / "index.sqlite")}}
    with memlane.open(ws, **settings) as mem:
        t0 = time.perf_counter()
        mem.sync()
        index_s = time.perf_counter() - t0
        hits: Counter[str] = Counter()
        total: Counter[str] = Counter()
        stale_top: Counter[str] = Counter()
        recall_ms: list[float] = []
        for q in data.questions:
            total[q.kind] += 1
            if q.kind == "works_now":
                assert q.company is not None
                hood = mem.graph(q.company, depth=1, now=now)
                got = {
                    e["subject"]
                    for e in hood["edges"]
                    if e["predicate"] == "works_at" and e["object"] == hood["entity"] and not e.get("ends")
                }
                hits[q.kind] += got == set(q.answer)
                continue
            kwargs: dict[str, object] = {}
            if q.kind.startswith("asof"):
                kwargs["as_of"] = q.date
            elif q.kind == "known_live":
                kwargs["as_of"] = q.date
                kwargs["known_at"] = q.date
            t = time.perf_counter()
            resp = mem.recall(q.question, k=5, now=now, **kwargs)  # type: ignore[arg-type]
            recall_ms.append((time.perf_counter() - t) * 1000)
            top = resp.facts[0].content if resp.facts else ""
            if any(a in top for a in q.answer):
                hits[q.kind] += 1
            elif any(s in top for s in q.stale):
                stale_top[q.kind] += 1
        # A closure is collateral when the closer is another subject's, or states another slot's value (lives_in
        # and located_in share "where"; an end of ANY closes whatever the subject held with that object).
        slot = Predicates().slot
        pairs = mem.store.facts.relations._rows(
            "SELECT r.subject_key, c.subject_key, r.predicate, c.predicate, c.stated FROM relations r "
            "JOIN relations c ON c.seq = r.closed_by",
            [],
        )
        collateral = sum(1 for rs, cs, rp, cp, st in pairs if rs != cs or (st != "*" and slot(rp) != slot(cp)))
        relations = mem.store.facts.relations.count()
        keys = sorted({q.person for q in data.questions if q.person})[:200]
        walk_ms, inner_ms = [], []
        graph = Graph(mem.store.facts, directory_of(mem.store.facts), Predicates())
        cfg = mem.settings.graph
        for name in keys:
            t = time.perf_counter()
            mem.graph(name, depth=2, now=now)
            walk_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()  # the walk alone: without the check that the files did not change
            graph.neighbourhood(name, 2, now.date().isoformat(), cfg.fanout, cfg.max_nodes)
            inner_ms.append((time.perf_counter() - t) * 1000)
    print(
        f"\n== {form}: {people} people, {len(data.files)} files, {relations} relations indexed; index {index_s:.1f} s"
    )
    for kind in sorted(total):
        print(
            f"  {kind:<13} top-1 {hits[kind] / total[kind]:6.1%}  ({hits[kind]}/{total[kind]}; "
            f"stale on top {stale_top[kind]})"
        )
    print(f"  collateral closures: {collateral} of {len(pairs)} closures")
    print(
        f"  recall p50 {statistics.median(recall_ms):.1f} ms; graph depth 2 p50 {statistics.median(walk_ms):.1f} ms "
        f"(the walk alone {statistics.median(inner_ms):.1f} ms; the rest is the check that no file changed)"
    )
    shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--people", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--provider", default="none")
    ap.add_argument("--form", choices=["explicit", "prose", "both"], default="both")
    ap.add_argument("--years", type=int, default=5)
    args = ap.parse_args()
    for form in ("explicit", "prose") if args.form == "both" else (args.form,):
        run(form, args.people, args.seed, args.provider, args.years)


if __name__ == "__main__":
    main()
