"""The keyword leg alone: FTS5's ``ORDER BY rank`` against the postings the SQLite store keeps (bm25.py).

    .venv/bin/python bench/keyword_leg.py --store INDEX.sqlite --queries DIR

Every question of ``DIR/queries.jsonl`` once, in a fresh store (nothing kept yet), on both tables (the whole
text and the user text), top 50 as a search asks: median and p95 ms of each way, and how many top-50 lists
differ (in order) and the largest score difference. Prints numbers; asserts nothing (tests/store/test_bm25.py does).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

import numpy as np

from memlane.store.sqlite import SQLiteStore
from memlane.text.keywords import match_expression


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True, help="a folder with queries.jsonl")
    args = ap.parse_args()
    questions = [json.loads(x)["question"] for x in (args.queries / "queries.jsonl").read_text().splitlines() if x]
    store = SQLiteStore(args.store)
    conn = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    for said in (False, True):
        fts = "chunks_said_fts" if said else "chunks_fts"
        sql = f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ? ORDER BY rank LIMIT 50"
        fts5: list[float] = []
        kept: list[float] = []
        differ, worst = 0, 0.0
        for q in questions:
            match = match_expression(q)
            if match is None:
                continue
            t = time.perf_counter()
            want = conn.execute(sql, (match,)).fetchall()
            fts5.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            got = store.keyword_search(match, 50, said=said)
            kept.append((time.perf_counter() - t) * 1000)
            differ += [r for r, _ in want] != [r for r, _ in got]
            worst = max([worst] + [abs(a[1] - b[1]) for a, b in zip(want, got, strict=False) if a[0] == b[0]])
        print(
            f"{fts}: FTS5 median {np.median(fts5):.1f} / p95 {np.percentile(fts5, 95):.1f} ms; kept postings "
            f"{np.median(kept):.1f} / {np.percentile(kept, 95):.1f} ms; {differ} of {len(kept)} top-50 lists "
            f"differ; largest score difference {worst:.1e}"
        )
    store.close()


if __name__ == "__main__":
    main()
