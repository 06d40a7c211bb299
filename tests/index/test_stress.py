"""Watcher, MCP server, CLI and library processes appending, searching and syncing at once."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from stress import run_scenario


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# Facts\n\nThe database is PostgreSQL 16.\n")
    for i in range(30):
        write(ws, f"memory/2026-01-{i % 28 + 1:02d}-{i}.md", f"# Day {i}\n\nRoutine entry {i}.\n")
    return ws


def _check(result: dict[str, object], min_written: int) -> None:
    reports = result["reports"]
    assert isinstance(reports, list)
    failures = {f"{r['role']}{i}": r["failures"] for i, r in enumerate(reports) if r["failures"]}
    assert failures == {}
    written = sum(len(r["written"]) for r in reports)
    assert written >= min_written and all(r["ops"] > 0 for r in reports)
    assert result["missing"] == []


def test_concurrent_processes_lose_nothing_and_never_fail(tmp_path: Path) -> None:
    _check(run_scenario(_workspace(tmp_path), seconds=8), min_written=10)


def test_concurrent_processes_with_the_real_model(tmp_path: Path) -> None:
    """Fewer processes (each loads the model), same rules: every note found without an extra sync."""
    result = run_scenario(_workspace(tmp_path), seconds=6, roles=("writer", "searcher", "cli"), provider="local")
    _check(result, min_written=2)
