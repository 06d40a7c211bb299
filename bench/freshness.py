"""Time from a file save to the change being searchable, through the watcher (no search-triggered sync).

.venv/bin/python bench/freshness.py [--runs 9] [--provider local|none] [--debounce-ms 1500]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import memlane


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--debounce-ms", type=int, default=1500)
    parser.add_argument("--files", type=int, default=100, help="memory files already indexed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMLANE_HOME"] = str(Path(tmp) / "home")
        ws = Path(tmp) / "ws"
        (ws / "memory").mkdir(parents=True)
        (ws / "MEMORY.md").write_text("# Facts\n\nThe database is PostgreSQL 16.\n")
        for i in range(args.files):
            (ws / "memory" / f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}-{i}.md").write_text(f"# Day {i}\n\nEntry {i}.\n")
        settings = {"sync": {"watchDebounceMs": args.debounce_ms, "onSearch": False, "onSessionStart": False}}
        with memlane.open(ws, provider=args.provider, **settings) as mem:
            mem.sync()
            mem.search("warm up the model")
            mem.start(watch=True)
            time.sleep(0.5)
            times = []
            for i in range(args.runs):
                tok = "fr" + uuid.uuid4().hex[:10]
                path = ws / "memory" / f"2026-09-{i + 1:02d}.md"
                start = time.perf_counter()
                path.write_text(f"# Saved\n\nFreshness probe {tok}.\n")
                while not any(tok in r.snippet for r in mem.search(tok, min_score=0).results):
                    if time.perf_counter() - start > 60:
                        sys.exit(f"run {i}: not searchable after 60 s")
                    time.sleep(0.01)
                times.append(time.perf_counter() - start)
                time.sleep(0.3)
    ms = sorted(t * 1000 for t in times)
    print(f"provider {args.provider}, watchDebounceMs {args.debounce_ms}, {args.files} files, {args.runs} saves")
    print(f"save -> searchable: median {statistics.median(ms):.0f} ms, min {ms[0]:.0f}, max {ms[-1]:.0f}")
    print(f"median minus debounce: {statistics.median(ms) - args.debounce_ms:.0f} ms")


if __name__ == "__main__":
    main()
