"""Operation counts of the concurrency stress scenario (tests/stress.py) over a longer run.

.venv/bin/python bench/stress.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from stress import run_scenario


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMLANE_HOME"] = str(Path(tmp) / "home")
        ws = Path(tmp) / "ws"
        (ws / "memory").mkdir(parents=True)
        (ws / "MEMORY.md").write_text("# Facts\n\nThe database is PostgreSQL 16.\n")
        result = run_scenario(ws, args.seconds)
    print(f"{args.seconds:g} s, {len(result['reports'])} processes on one index")
    print("| process | operations | notes written | failures |")
    print("| --- | --- | --- | --- |")
    for r in result["reports"]:
        print(f"| {r['role']} | {r['ops']} | {len(r['written'])} | {len(r['failures'])} |")
    total = sum(len(r["written"]) for r in result["reports"])
    print(f"notes written: {total}; not findable afterwards: {len(result['missing'])}")
    for r in result["reports"]:
        for f in r["failures"][:3]:
            print(f"  {r['role']}: {f}")


if __name__ == "__main__":
    main()
