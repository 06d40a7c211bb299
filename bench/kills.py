"""SIGKILL at random points of sync, full reindex, remember, replace, insert and reflect (tests/kills.py).

    .venv/bin/python bench/kills.py               # 200 kills
    .venv/bin/python bench/kills.py --kills 600 --seed 3

Prints the kills per operation and every problem found (a memory file half-written or lost, an index
that had to be moved aside or does not answer, a sync that does not equal a clean rebuild).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kills import prepare, run_kills


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMLANE_HOME"] = str(Path(tmp) / "home")
        ws = Path(tmp) / "ws"
        prepare(ws)
        started = time.perf_counter()
        result = run_kills(ws, args.kills, args.seed)
    print(f"{sum(result['kills'].values())} kills in {time.perf_counter() - started:.0f}s")
    print("| operation | killed | of which after a memory file had changed | finished before the kill |")
    print("| --- | --- | --- | --- |")
    for op, n in result["kills"].items():
        print(f"| {op} | {n} | {result['landed_after_a_write'][op]} | {result['finished_before_the_kill'][op]} |")
    print(f"problems: {len(result['problems'])}")
    for p in result["problems"][:20]:
        print(f"  {p}")


if __name__ == "__main__":
    main()
