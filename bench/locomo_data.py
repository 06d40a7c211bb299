"""LoCoMo for the benches: ../shared/bench/locomo converted once, with the data's own scripts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo"


def available() -> bool:
    return (SHARED / "locomo10.json").exists()


def workspaces(out: Path, retain: bool = True) -> Path:
    """One workspace per conversation under ``out`` (to_workspace.py), with LoCoMo's observations as
    Retain bullets and recall_queries.jsonl when ``retain`` (to_retain.py). Converted once."""
    done = "recall_queries.jsonl" if retain else "queries.jsonl"
    if not any(out.glob(f"*/{done}")):
        out.mkdir(parents=True, exist_ok=True)
        for script in ("to_workspace.py", "to_retain.py") if retain else ("to_workspace.py",):
            subprocess.run(
                [sys.executable, str(SHARED / script), str(SHARED / "locomo10.json"), str(out)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
    return out
