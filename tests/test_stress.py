"""Watcher, MCP server, CLI and library processes appending, searching and syncing at once."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from stress import run_scenario


def test_concurrent_processes_lose_nothing_and_never_fail(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# Facts\n\nThe database is PostgreSQL 16.\n")
    for i in range(30):
        write(ws, f"memory/2026-01-{i % 28 + 1:02d}-{i}.md", f"# Day {i}\n\nRoutine entry {i}.\n")
    result = run_scenario(ws, seconds=8)
    reports = {r["role"] + str(i): r for i, r in enumerate(result["reports"])}
    failures = {k: r["failures"] for k, r in reports.items() if r["failures"]}
    assert failures == {}
    written = sum(len(r["written"]) for r in result["reports"])
    assert written > 20 and all(r["ops"] > 0 for r in result["reports"] if r["role"] != "watch")
    assert result["missing"] == []
