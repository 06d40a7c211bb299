"""The first search after a small write, as an agent that logs as it goes meets it.

    .venv/bin/python bench/after_sync.py --workspace W/ws --store W/idx.sqlite --agent A --queries DIR

Copies the workspace and its built index to a scratch folder (the originals are not touched), warms a process
with 20 questions, then 8 times: appends a line to the newest daily log, syncs, and times the first search after
the sync and the one after it (different questions each time). Prints the medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import memlane
from search_latency import questions  # bench/search_latency.py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", type=Path, required=True)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--agent", default="main")
    ap.add_argument("--queries", type=Path, required=True, help="a folder with queries.jsonl (60 questions or more)")
    args = ap.parse_args()
    asked = [q["question"] for q in questions(args.queries)]
    with tempfile.TemporaryDirectory(prefix="memlane-after-sync-") as tmp:
        work = Path(tmp)
        shutil.copytree(args.workspace, work / "ws")
        shutil.copy(args.store, work / "idx.sqlite")
        log = sorted((work / "ws" / "memory").glob("*.md"))[-1]
        store = {"path": str(work / "idx.sqlite")}
        with memlane.open(work / "ws", agent=args.agent, store=store, sync={"watch": False}) as mem:
            for q in asked[:20]:
                mem.search(q, max_results=10, min_score=0)
            first: list[float] = []
            second: list[float] = []
            for i in range(8):
                with log.open("a", encoding="utf-8") as f:
                    f.write(f"\n- note {i}: the garden hose leaked again.\n")
                mem.sync()
                for out, q in ((first, asked[20 + i]), (second, asked[40 + i])):
                    t = time.perf_counter()
                    mem.search(q, max_results=10, min_score=0)
                    out.append((time.perf_counter() - t) * 1000)
    print(
        f"first search after a one-line sync: median {statistics.median(first):.1f} ms; "
        f"the search after it: {statistics.median(second):.1f} ms (8 writes)"
    )


if __name__ == "__main__":
    main()
