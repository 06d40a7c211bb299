from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from conftest import write
from memlane.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_index_search_get_status(workspace: Path) -> None:
    ws = str(workspace)
    code, out, _ = run("-w", ws, "index")
    assert code == 0 and "3 added" in out and "full reindex (new index)" in out
    code, out, _ = run("-w", ws, "index")
    assert code == 0 and "incremental sync" in out and "3 unchanged" in out
    code, out, _ = run("-w", ws, "search", "Kubernetes staging", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["results"][0]["path"] == "memory/2026-01-05.md" and payload["mode"] == "hybrid"
    code, out, _ = run("-w", ws, "search", "Kubernetes", "-n", "1")
    assert code == 0 and out.startswith("memory/2026-01-05.md:") and "Kubernetes" in out
    code, out, _ = run("-w", ws, "get", "memory/2026-01-05.md", "--from", "3", "--lines", "1")
    assert code == 0 and out == "- Ticket BILL-4821 blocks the migration.\n"
    code, out, _ = run("-w", ws, "status", "--json", "--deep")
    info = json.loads(out)
    assert code == 0 and info["files"] == 3 and info["chunks"] >= 3 and info["dirty"] is False
    assert info["probe"]["ok"] and info["dims"] == 384 and info["chunking"]["tokens"] == 254
    code, out, _ = run("-w", ws, "status")
    assert code == 0 and "up to date" in out and "all-MiniLM-L6-v2" in out


def test_user_mistakes_are_one_line_errors(workspace: Path, tmp_path: Path) -> None:
    ws = str(workspace)
    for args, fragment in [
        (("-w", ws, "get", "../secret.md"), "'..'"),
        (("-w", ws, "get", "memory/nope.md"), "not found"),
        (("-w", str(tmp_path / "missing"), "status"), "workspace is not a directory"),
        (("-w", ws, "-c", str(tmp_path / "none.json"), "status"), "config file not found"),
        (("-w", ws, "search", " "), "non-empty"),
    ]:
        code, out, err = run(*args)
        assert code == 1, args
        assert err.count("\n") == 1 and err.startswith("memlane: error:") and fragment in err, err
        assert "Traceback" not in err + out
    code, _, err = run("-w", ws, "search", "x", "--max-results", "0")
    assert code == 2 and "Traceback" not in err


def test_bad_config_value_names_key(workspace: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"query": {"maxResults": "lots"}}}}}))
    code, _, err = run("-w", str(workspace), "-c", str(cfg), "search", "x")
    assert code == 1 and "memorySearch.query.maxResults" in err


def test_no_results_and_keyword_mode(workspace: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    code, out, err = run("-w", str(workspace), "-c", str(cfg), "search", "zzzunknownzzz")
    assert code == 0 and out.strip() == "no results" and "keyword search only" in err


def test_tools_command() -> None:
    code, out, _ = run("tools", "--style", "anthropic")
    assert code == 0 and [t["name"] for t in json.loads(out)][:3] == ["memory_search", "memory_recall", "memory_get"]
    assert len(json.loads(out)) == 7


def test_every_command_is_documented_in_readme() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for name in cli.commands:  # type: ignore[attr-defined]
        assert f"memlane {name}" in readme, f"README does not show `memlane {name}`"


def test_real_entry_point_demo_and_piped_output(memlane_home: Path) -> None:
    env = {**os.environ, "MEMLANE_HOME": str(memlane_home)}
    proc = subprocess.run(
        [sys.executable, "-m", "memlane.cli", "demo"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "MEMORY.md:" in proc.stdout and "PostgreSQL" in proc.stdout and "京都" in proc.stdout
    assert "\r" not in proc.stderr  # no progress bar when not on a terminal
    bad = subprocess.run(
        [sys.executable, "-m", "memlane.cli", "get", "/etc/passwd"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and "absolute" in bad.stderr


def test_cli_search_sees_a_file_changed_since_the_last_index(tmp_path: Path) -> None:
    write(tmp_path, "MEMORY.md", "# Facts\n\nThe database is PostgreSQL 16.\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["-w", str(tmp_path), "index"]).exit_code == 0
    write(tmp_path, "memory/2026-02-02.md", "The heron nests by the lake.\n")
    out = runner.invoke(cli, ["-w", str(tmp_path), "search", "heron", "--json"])
    payload = json.loads(out.output)
    assert payload["stale"] is False and payload["results"][0]["path"] == "memory/2026-02-02.md"


def test_recall_and_core_commands(fact_workspace: Path) -> None:
    ws = str(fact_workspace)
    code, out, _ = run("-w", ws, "recall", "Marrakech", "--json", "-k", "2")
    payload = json.loads(out)
    assert code == 0 and set(payload) == {"facts", "entities", "notes"} and len(payload["facts"]) <= 2
    assert payload["facts"][0]["source"] == "memory/2025-11-27.md#L7"
    assert payload["facts"][0]["time"] == {"start": "2025-11-27", "end": "2025-12-01"}
    code, out, err = run("-w", ws, "recall", "crash", "--entity", "warelay", "--kind", "experience", "--explain")
    assert code == 0 and "I fixed the Baileys WS crash" in out and "memory/2025-11-27.md#L8-L9" in out
    assert "experience · 2025-11-27 · @warelay" in out and "vector=" in out and "entity: warelay (filter" in err
    code, out, err = run("-w", ws, "recall", "x", "--since", "soonish")
    assert code == 1 and "since: cannot read 'soonish'" in err and "Traceback" not in err
    code, out, err = run("-w", ws, "recall", "x", "--entity", "Petr")
    assert code == 1 and "did you mean Peter?" in err
    code, out, err = run("-w", ws, "core")
    assert code == 0 and out.startswith("# Memory") and "MEMORY.md: 76 of 5,000 characters" in err
    code, out, _ = run("-w", ws, "status")
    assert code == 0 and "7 facts, 5 entities (2 with a page), 0 unreadable Retain bullets" in out


def test_workspace_access_through_the_cli(workspace: Path, tmp_path: Path) -> None:
    ws = str(workspace)
    for access, can_read in (("ro", True), ("none", False)):
        cfg = tmp_path / f"{access}.json"
        cfg.write_text(json.dumps({"agents": {"defaults": {"workspaceAccess": access}}}))
        before = {p: p.read_bytes() for p in workspace.rglob("*.md")}
        code, _, err = run("-w", ws, "-c", str(cfg), "remember", "a note that must not land")
        assert code == 1 and "not allowed" in err and "workspaceAccess" in err and "Traceback" not in err
        assert {p: p.read_bytes() for p in workspace.rglob("*.md")} == before  # nothing changed, nothing added
        code, out, err = run("-w", ws, "-c", str(cfg), "get", "MEMORY.md")
        if can_read:
            assert code == 0 and out.startswith("# Memory")
        else:
            assert code == 1 and "workspaceAccess: none" in err
