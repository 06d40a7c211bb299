"""SIGKILL at random points of every writing operation (the short run; bench/kills.py runs 200+)."""

from __future__ import annotations

from pathlib import Path

from kills import OPS, prepare, run_kills


def test_random_kills_lose_nothing_and_the_index_recovers(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    prepare(ws)
    result = run_kills(ws, kills=2 * len(OPS), seed=7)
    assert result["problems"] == []
    assert all(n >= 1 for n in result["kills"].values()), result  # every operation was killed at least once
