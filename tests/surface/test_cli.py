from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from conftest import write
from memlane.surface.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def main(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """The real entry point in a subprocess (``CliRunner`` catches exceptions, so a traceback could not show
    there). The environment is the test's: MEMLANE_HOME set, API keys removed (conftest)."""
    proc = subprocess.run(
        [sys.executable, "-m", "memlane", *args], input=stdin, capture_output=True, timeout=120, check=False
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def one_line_error(code: int, out: str, err: str) -> bool:
    """Exit 1 with one line on stderr that says it is memlane's error, and no traceback anywhere."""
    return code == 1 and err.count("\n") == 1 and err.startswith("memlane: error:") and "Traceback" not in out + err


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
        code, out, err = main(*args)
        assert one_line_error(code, out, err) and fragment in err, (args, err)
    code, _, err = main("-w", ws, "search", "x", "--max-results", "0")
    assert code == 2 and "Traceback" not in err


def test_hostile_arguments_are_one_line_errors_and_write_nothing(fact_workspace: Path, tmp_path: Path) -> None:
    """Each of these was a traceback (issue 23): a name too long for the file system, stdin that is not UTF-8,
    a --since before the year 1, an --older-than past a century, a file where memory/archive belongs."""
    ws = str(fact_workspace)
    cfg = tmp_path / "words.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    before = {p: p.read_bytes() for p in fact_workspace.rglob("*") if p.is_file()}
    common = ("-w", ws, "-c", str(cfg))
    for args, fragment in [
        (("get", "memory/" + "a" * 300 + ".md"), "name too long"),
        (("recall", "x", "--since", "99999999d"), "before the year 1"),
        (("reflect", "--since", "99999999d"), "before the year 1"),
        (("retain", "--since", "99999999d"), "before the year 1"),
        (("recall", "x", "--since", "9" * 5000 + "d"), "(5001 characters)"),
        (("archive", "--older-than", "999999999"), "--older-than must be between 0 and 36500"),
    ]:
        code, out, err = main(*common, *args)
        assert one_line_error(code, out, err) and fragment in err, (args[:2], err[-2000:])
    code, out, err = main(*common, "remember", "-", stdin=b"\xff\xfe not UTF-8")
    assert one_line_error(code, out, err) and "stdin is not UTF-8 text (byte 0xff at offset 0)" in err, err
    assert {p: p.read_bytes() for p in fact_workspace.rglob("*") if p.is_file()} == before
    write(fact_workspace, "memory/2020-01-01.md", "- an old log\n")
    write(fact_workspace, "memory/archive", "a file where the folder belongs\n")
    code, out, err = main(*common, "archive", "--older-than", "30")
    assert one_line_error(code, out, err) and "memory/archive is a file" in err, err
    assert (fact_workspace / "memory/2020-01-01.md").is_file()


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
    assert len(json.loads(out)) == 9


def test_every_command_is_documented_in_the_cli_page() -> None:
    # The CLI's reference moved from the README to docs/cli.md, which the README links.
    root = Path(__file__).parents[2]
    assert "(docs/cli.md)" in (root / "README.md").read_text()
    page = (root / "docs" / "cli.md").read_text()
    for name in cli.commands:  # type: ignore[attr-defined]
        assert f"memlane {name}" in page, f"docs/cli.md does not show `memlane {name}`"


def test_real_entry_point_demo_and_piped_output(memlane_home: Path) -> None:
    env = {**os.environ, "MEMLANE_HOME": str(memlane_home)}
    proc = subprocess.run(
        [sys.executable, "-m", "memlane", "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "MEMORY.md:" in proc.stdout and "PostgreSQL" in proc.stdout and "京都" in proc.stdout
    assert "\r" not in proc.stderr  # no progress bar when not on a terminal
    bad = subprocess.run(
        [sys.executable, "-m", "memlane", "get", "/etc/passwd"],
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
    code, out, err = main("-w", ws, "recall", "x", "--since", "soonish")
    assert one_line_error(code, out, err) and "since: cannot read 'soonish'" in err
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
        code, out, err = main("-w", ws, "-c", str(cfg), "remember", "a note that must not land")
        assert one_line_error(code, out, err) and "not allowed" in err and "workspaceAccess" in err
        assert {p: p.read_bytes() for p in workspace.rglob("*.md")} == before  # nothing changed, nothing added
        code, out, err = run("-w", ws, "-c", str(cfg), "get", "MEMORY.md")
        if can_read:
            assert code == 0 and out.startswith("# Memory")
        else:
            assert code == 1 and "workspaceAccess: none" in err


def test_the_error_edge_turns_input_errors_into_one_line_and_shows_bugs() -> None:
    """Whatever command raises it, an OSError, UnicodeError, OverflowError or ValueError leaves `memlane` as one
    line; any other exception is a bug and keeps its traceback."""
    script = "import sys, memlane.surface.cli as c\ndef boom(**_):\n    raise {exc}\nc.cli = boom\nc.main()\n"
    for exc, fragment in [
        ("OSError(28, 'No space left on device', '/x/' + 'y' * 500)", "No space left on device: /x/yyy"),
        ("b'\\xff'.decode('utf-8')", "not UTF-8 text (byte 0xff at offset 0)"),
        ("OverflowError('date value out of range')", "date value out of range"),
        ("ValueError('bad\\nvalue')", "bad value"),
    ]:
        proc = subprocess.run(
            [sys.executable, "-c", script.format(exc=exc)], capture_output=True, text=True, timeout=60, check=False
        )
        assert one_line_error(proc.returncode, proc.stdout, proc.stderr) and fragment in proc.stderr, proc.stderr
        assert len(proc.stderr) < 200
    bug = subprocess.run(
        [sys.executable, "-c", script.format(exc="KeyError('a bug')")], capture_output=True, text=True, timeout=60
    )
    assert bug.returncode == 1 and "Traceback" in bug.stderr and "KeyError" in bug.stderr


def test_the_global_options_work_after_the_command_too(workspace: Path, tmp_path: Path) -> None:
    """`memlane install claude-code --workspace X`, as people type it: the group's options are taken after
    any command, with the same outcome as before it (issue 40, item 10)."""
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "config.json"
    config.write_text("{}")
    env = {**os.environ, "HOME": str(home)}

    def both(*command: str, **opts: str) -> None:
        flags = [x for name, value in opts.items() for x in (f"--{name}", value)]
        runs = [
            subprocess.run(
                [sys.executable, "-m", "memlane", *args], capture_output=True, text=True, env=env, timeout=300
            )
            for args in ([*flags, *command], [*command, *flags])
        ]
        before, after = runs
        assert before.returncode == 0, before.stderr
        assert (after.returncode, after.stdout, after.stderr) == (before.returncode, before.stdout, before.stderr)

    ws = str(workspace)
    both("install", "claude-code", "--dry-run", "--json", workspace=ws, agent="main", config=str(config))
    both("get", "MEMORY.md", "--lines", "3", workspace=ws)
    both("tools", "--style", "anthropic", agent="main")
    # the option after the command is the one that counts, and a command's usage errors are unchanged
    code, out, _ = main("-w", str(tmp_path / "nowhere"), "get", "MEMORY.md", "--lines", "1", "-w", ws)
    assert code == 0 and out == "# Memory\n"
    assert main("get", "--workspace")[0] == 2
