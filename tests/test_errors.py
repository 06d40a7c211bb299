"""The error tree (errors.py's docstring): a caller can tell a bad call, a missing thing and a refusal apart by type,
while the CLI edge still turns every one of them into one line and exit code 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memlane
from memlane.errors import AccessError, MemlaneError, NotFoundError, UsageError

NONE = {"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}


def test_the_three_kinds_are_memlane_errors_and_not_each_other() -> None:
    kinds = (UsageError, NotFoundError, AccessError)
    for kind in kinds:
        assert issubclass(kind, MemlaneError)
        assert not any(issubclass(kind, other) for other in kinds if other is not kind)


def test_a_bad_call_is_a_usage_error(fact_workspace: Path) -> None:
    with memlane.open(fact_workspace, config=NONE) as mem:
        with pytest.raises(UsageError, match="query must be a non-empty string"):
            mem.search("  ")
        with pytest.raises(UsageError, match="unknown fact kind"):
            mem.recall("Peter", kinds="gossip")
        with pytest.raises(UsageError, match="depth must be 1 to 4"):
            mem.graph("Peter", depth=9)


def test_what_is_not_there_is_not_found(fact_workspace: Path) -> None:
    with memlane.open(fact_workspace, config=NONE) as mem:
        with pytest.raises(NotFoundError, match="no entity 'Nobody' in the index"):
            mem.timeline("Nobody")
        with pytest.raises(NotFoundError, match="no entity"):
            mem.graph("Nobody")
        with pytest.raises(NotFoundError, match="the passage to replace is not in"):
            mem.replace("MEMORY.md", "a passage that was never written", "x")


@pytest.mark.parametrize("access", ["ro", "none"])
def test_a_refused_write_is_an_access_error_and_changes_nothing(fact_workspace: Path, access: str) -> None:
    before = {p: p.read_bytes() for p in fact_workspace.rglob("*.md")}
    cfg = {"agents": {"defaults": {"workspaceAccess": access, "memorySearch": {"provider": "none"}}}}
    with memlane.open(fact_workspace, config=cfg) as mem, pytest.raises(AccessError):
        mem.write("a note that must not land")
    assert {p: p.read_bytes() for p in fact_workspace.rglob("*.md")} == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["timeline", "Nobody"], "no entity 'Nobody' in the index"),
        (["search", " "], "query must be a non-empty string"),
    ],
)
def test_the_cli_edge_is_one_line_and_exit_code_1(
    fact_workspace: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(NONE))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        [sys.executable, "-m", "memlane", "-w", str(fact_workspace), "-c", str(cfg), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr
