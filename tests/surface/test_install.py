"""memlane install/uninstall: a host's own config file, other entries kept, idempotent, exactly undone;
the hook commands it writes run with the host's documented hook input on stdin."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from conftest import background_result, write
from memlane.errors import MemlaneError
from memlane.files.outside import ChangedOnDisk
from memlane.surface.host_files import load_json
from memlane.surface.install import Where, carry_out, plan

WS_LOG = "# 2026-01-05\n## Retain\n- W @Kestrel: The kestrel importer reads CSV exports.\n"

# Files as users have them, with entries of their own that must survive.
CLAUDE_JSON = {
    "numStartups": 41,
    "theme": "dark",
    "projects": {"/home/u/app": {"allowedTools": ["Bash(git:*)"], "mcpServers": {}}},
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
    },
}
CLAUDE_SETTINGS = {
    "permissions": {"allow": ["Bash(npm run test:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo welcome"}]}],
    },
}
MCP_JSON = {"mcpServers": {"postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"]}}}
CODEX_TOML = """# my codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "mcp-docs"]   # keep this comment

[profiles.fast]
model = "gpt-5-mini"
"""


def run_cli(*args: str, home: Path, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    return subprocess.run(
        [sys.executable, "-m", "memlane", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=stdin,
        timeout=300,
    )


def run_hook(command: object, payload: object, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A hook command run as its host runs it: split as a shell splits it, the host's JSON on stdin (and
    ``HOME`` set to ``home`` when given)."""
    env = {**os.environ, "HOME": str(home)} if home is not None else None
    return subprocess.run(
        shlex.split(str(command)), input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(autouse=True)
def _openclaw_in_the_test_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenClaw's file is the one in each test's home folder (conftest points the variable at a missing file)."""
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, project, ws = tmp_path / "home", tmp_path / "project", tmp_path / "ws"
    write(ws, "MEMORY.md", "# Memory\n\n- The team ships on Thursdays.\n")
    write(ws, "memory/2026-01-05.md", WS_LOG)
    project.mkdir()
    return home, project, ws


def _json(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


def _roundtrip(host: str, scope: str, files: dict[Path, str], home: Path, project: Path, ws: Path) -> None:
    """Install, install again, uninstall: other entries survive, the second run is a no-op, uninstall
    gives back the files' meaning (or removes the files install made). ``files``: path -> text before ("": none)."""
    for path, text in files.items():  # "": the file is not there before install
        if text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    args = ["--workspace", str(ws), "--agent", "main", "install", host, "--scope", scope]
    dry = run_cli(*args, "--dry-run", home=home, cwd=project)
    assert dry.returncode == 0, dry.stderr
    assert "+" in dry.stdout and all((p.read_text() if p.exists() else "") == t for p, t in files.items())
    first = run_cli(*args, home=home, cwd=project)
    assert first.returncode == 0, first.stderr
    after_first = {p: p.read_text() for p in files}
    second = run_cli(*args, home=home, cwd=project)
    assert second.returncode == 0 and "nothing to change" in second.stdout
    assert {p: p.read_text() for p in files} == after_first
    backups = [p for d in {p.parent for p in files} for p in d.glob("*.memlane-backup-*")]
    assert len(backups) == len([p for p, t in files.items() if t])  # one backup per existing file, once
    undo = run_cli(
        "--workspace", str(ws), "--agent", "main", "uninstall", host, "--scope", scope, home=home, cwd=project
    )
    assert undo.returncode == 0, undo.stderr
    for path, text in files.items():
        if not text:
            assert not path.exists()
        elif path.suffix == ".toml":
            assert tomllib.loads(path.read_text()) == tomllib.loads(text)
        else:
            assert _json(path) == json.loads(text)


def test_claude_code_user_scope(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    files = {
        home / ".claude.json": json.dumps(CLAUDE_JSON),
        home / ".claude" / "settings.json": json.dumps(CLAUDE_SETTINGS),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    out = run_cli("--workspace", str(ws), "install", "claude-code", home=home, cwd=project)
    assert out.returncode == 0, out.stderr
    cfg = _json(home / ".claude.json")
    servers = cfg["mcpServers"]
    assert isinstance(servers, dict) and set(servers) == {"github", "memlane"}
    assert cfg["numStartups"] == 41 and cfg["projects"] == CLAUDE_JSON["projects"]
    server = servers["memlane"]
    assert server["args"][-1] == "mcp" and str(ws) in server["args"]
    hooks = _json(home / ".claude" / "settings.json")["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["PreToolUse"] == CLAUDE_SETTINGS["hooks"]["PreToolUse"]  # type: ignore[index]
    assert hooks["SessionStart"][0] == CLAUDE_SETTINGS["hooks"]["SessionStart"][0]  # type: ignore[index]
    start = hooks["SessionStart"][1]["hooks"][0]["command"]
    capture = hooks["SessionEnd"][0]["hooks"][0]
    assert hooks["PreCompact"][0]["hooks"][0]["command"] == capture["command"] and capture["timeout"] >= 60

    # The hooks run as Claude Code runs them: the documented JSON on stdin.
    started = run_hook(
        start,
        {
            "session_id": "abc123",
            "transcript_path": str(home / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
        home=home,
    )
    assert started.returncode == 0, started.stderr
    assert "## Core (MEMORY.md)" in started.stdout and "ships on Thursdays" in started.stdout
    transcript = home / "t.jsonl"
    said = {"role": "user", "content": "I moved to Porto last week."}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "Noted: you live in Porto now."}]}
    lines = [  # Claude Code's transcript records
        {"type": "user", "sessionId": "abc123", "uuid": "u1", "parentUuid": None, "timestamp": "2026-01-06T10:00:00Z",
         "message": said},
        {"type": "assistant", "sessionId": "abc123", "uuid": "u2", "parentUuid": "u1",
         "timestamp": "2026-01-06T10:00:05Z", "message": answer},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines))
    ended = run_hook(
        capture["command"],
        {
            "session_id": "abc123",
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        },
        home=home,
    )
    assert ended.returncode == 0, ended.stderr
    # the hook hands the capture to a process of its own and says where its result goes
    assert "in the background" in ended.stdout
    result = background_result(Path(ended.stdout.rsplit("its result goes to ", 1)[1].strip()), transcript)
    assert result.startswith("captured 2 turns"), result
    assert "Porto" in (ws / "memory" / "2026-01-06.md").read_text()
    # Claude Code fires SessionEnd for sessions that wrote no transcript (`claude mcp list` does, as a real
    # Claude Code 2.1 showed): no transcript, or one that is not there, is nothing to capture, not a failure
    for given in (
        {"transcript_path": None},  # Codex's schema allows null
        {"transcript_path": str(home / "never-written.jsonl"), "hook_event_name": "SessionEnd"},
    ):
        quiet = run_hook(capture["command"], given)
        assert quiet.returncode == 0 and "nothing to capture" in quiet.stdout and quiet.stderr == "", quiet.stderr
    # a transcript that is there and cannot be read fails without a traceback and without blocking (1, not 2)
    unreadable = home / "folder.jsonl"
    unreadable.mkdir()
    bad = run_hook(capture["command"], {"transcript_path": str(unreadable)})
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and "folder.jsonl" in bad.stderr
    # wrong wiring still fails: no transcript_path at all, a name no file system takes, a user that is not there
    for given in ({}, {"transcript_path": "x" * 5000 + ".jsonl"}, {"transcript_path": "~nosuchuser9/t.jsonl"}):
        wrong = run_hook(capture["command"], given)
        assert wrong.returncode == 1 and "Traceback" not in wrong.stderr, (given, wrong.stderr)


def test_claude_code_roundtrip_user_and_project(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    user = {
        home / ".claude.json": json.dumps(CLAUDE_JSON),
        home / ".claude" / "settings.json": json.dumps(CLAUDE_SETTINGS),
    }
    _roundtrip("claude-code", "user", user, home, project, ws)
    proj = {project / ".mcp.json": json.dumps(MCP_JSON), project / ".claude" / "settings.json": ""}
    _roundtrip("claude-code", "project", proj, home, project, ws)


def test_cursor_and_claude_desktop_roundtrip(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    theirs = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}
    cursor_user = {
        home / ".cursor" / "mcp.json": json.dumps(MCP_JSON),
        home / ".cursor" / "hooks.json": json.dumps(theirs),
    }
    _roundtrip("cursor", "user", cursor_user, home, project, ws)
    _roundtrip(
        "cursor",
        "project",
        {project / ".cursor" / "mcp.json": "", project / ".cursor" / "hooks.json": ""},
        home,
        project,
        ws,
    )
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"  # Linux; macOS and Windows differ
    _roundtrip(
        "claude-desktop", "user", {desktop: json.dumps({**MCP_JSON, "globalShortcut": "Ctrl+Space"})}, home, project, ws
    )


def test_codex_toml_keeps_comments_and_tables(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    toml = home / ".codex" / "config.toml"
    hooks_json = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    _roundtrip(
        "codex", "user", {toml: CODEX_TOML, home / ".codex" / "hooks.json": json.dumps(hooks_json)}, home, project, ws
    )
    out = run_cli("--workspace", str(ws), "install", "codex", home=home, cwd=project)
    assert out.returncode == 0, out.stderr
    text = toml.read_text()
    assert "# keep this comment" in text and "# my codex settings" in text
    data = tomllib.loads(text)
    assert data["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "mcp-docs"]}
    assert data["mcp_servers"]["memlane"]["args"][-1] == "mcp" and data["profiles"]["fast"]["model"] == "gpt-5-mini"
    assert "/hooks" in out.stderr  # Codex runs a new hook only once the user trusts it
    hooks = _json(home / ".codex" / "hooks.json")["hooks"]
    assert isinstance(hooks, dict) and set(hooks) == {"Stop", "SessionStart", "PreCompact", "SessionEnd"}
    start = hooks["SessionStart"][0]["hooks"][0]["command"]
    (end,) = hooks["SessionEnd"][0]["hooks"]
    assert end["timeout"] == 3 and hooks["PreCompact"][0]["hooks"][0]["timeout"] == 120  # Codex's SessionEnd ceiling
    # Codex's SessionStart input (its generated schema's required fields)
    codex_input = {
        "session_id": "019a-1",
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "source": "startup",
    }
    started = run_hook(start, codex_input)
    assert started.returncode == 0, started.stderr
    answer = json.loads(started.stdout)["hookSpecificOutput"]  # Codex validates SessionStart's JSON answer
    assert answer["hookEventName"] == "SessionStart" and "ships on Thursdays" in answer["additionalContext"]
    # Codex's SessionEnd (its generated schema's fields) on a rollout: the capture runs in a process of its own
    rollout = home / ".codex" / "sessions" / "rollout-2026-05-01T12-00-00-019a-1.jsonl"
    rollout.parent.mkdir(parents=True)
    said = "We decided to move the API to Postgres 17."
    records = [
        {"timestamp": "2026-05-01T12:00:00Z", "type": "session_meta", "payload": {"id": "019a-1", "cwd": str(project)}},
        {"timestamp": "2026-05-01T12:00:02Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}},
    ]  # fmt: skip
    rollout.write_text("".join(json.dumps(r) + "\n" for r in records))
    ending = {**codex_input, "hook_event_name": "SessionEnd", "reason": "other", "transcript_path": str(rollout)}
    for key in ("model", "permission_mode", "source"):
        del ending[key]
    ended = run_hook(end["command"], ending)
    assert ended.returncode == 0 and "in the background" in ended.stdout, ended.stderr
    result = background_result(Path(ended.stdout.rsplit("its result goes to ", 1)[1].strip()), rollout)
    assert result.startswith("captured 1 turn"), result
    assert "Postgres 17" in (ws / "memory" / "2026-05-01.md").read_text()


OPENCLAW_JSON = {"agents": {"defaults": {"workspace": "~/w"}}, "mcp": {"servers": {"fs": {"command": "mcp-fs"}}}}


def test_openclaw_mcp_server_and_its_json5(setup: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    home, project, ws = setup
    path = home / ".openclaw" / "openclaw.json"
    # the state folder's file, as OpenClaw has it (the autouse fixture unset OPENCLAW_CONFIG_PATH)
    _roundtrip("openclaw", "user", {path: json.dumps(OPENCLAW_JSON)}, home, project, ws)
    path.write_text("{\n  // my gateway\n  gateway: { port: 18789 },\n}\n")
    out = run_cli("--workspace", str(ws), "install", "openclaw", home=home, cwd=project)
    assert out.returncode == 1 and "openclaw mcp set memlane" in out.stderr and "Traceback" not in out.stderr
    assert path.read_text().startswith("{\n  // my gateway")


def test_a_broken_host_file_is_left_alone(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    path = home / ".claude.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"mcpServers": {,}')
    out = run_cli("--workspace", str(ws), "install", "claude-code", home=home, cwd=project)
    assert out.returncode == 1 and "not valid JSON" in out.stderr and "Traceback" not in out.stderr
    assert path.read_text() == '{"mcpServers": {,}'
    assert not (home / ".claude" / "settings.json").exists()  # nothing half-done
    bad_scope = run_cli("--workspace", str(ws), "install", "codex", "--scope", "project", home=home, cwd=project)
    assert bad_scope.returncode == 1 and "--scope user" in bad_scope.stderr


def test_cursor_hooks_answer_in_json_and_claude_code_s_stay_quiet_in_cursor(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    for host in ("claude-code", "cursor"):
        out = run_cli("--workspace", str(ws), "install", host, home=home, cwd=project)
        assert out.returncode == 0, out.stderr
    cursor_start = _json(home / ".cursor" / "hooks.json")["hooks"]["sessionStart"][0]["command"]  # type: ignore[index]
    claude_start = _json(home / ".claude" / "settings.json")["hooks"]["SessionStart"][0]["hooks"][0]["command"]  # type: ignore[index]
    cursor_input = {  # Cursor's common hook input and sessionStart's own fields
        "conversation_id": "c-1",
        "generation_id": "g-1",
        "model": "gpt-5",
        "hook_event_name": "sessionStart",
        "cursor_version": "2.1.0",
        "workspace_roots": [str(project)],
        "transcript_path": None,
        "session_id": "c-1",
        "is_background_agent": False,
        "composer_mode": "agent",
    }
    mine = run_hook(str(cursor_start), cursor_input, home=home)
    assert mine.returncode == 0, mine.stderr
    assert "ships on Thursdays" in json.loads(mine.stdout)["additional_context"]
    # Cursor runs Claude Code's SessionStart too: with Cursor's own memlane hook installed, it says nothing
    theirs = run_hook(str(claude_start), cursor_input, home=home)
    assert theirs.returncode == 0 and theirs.stdout == ""


# -- what a hostile review found (each case once broke)


def _where(tmp_path: Path) -> Where:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return Where(tmp_path / "home", tmp_path / "proj", ws)


def test_the_backup_keeps_the_file_private_and_a_link_stays_a_link(tmp_path: Path) -> None:
    w = _where(tmp_path)
    dotfiles = tmp_path / "dotfiles" / "openclaw.json"
    write(dotfiles.parent, dotfiles.name, '{"channels": {"telegram": {"botToken": "SECRET"}}}')
    os.chmod(dotfiles, 0o600)
    link = w.home / ".openclaw" / "openclaw.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    p = plan("openclaw", "user", w)
    p.apply()
    assert link.is_symlink() and "memlane" in json.loads(dotfiles.read_text())["mcp"]["servers"]
    assert all(os.stat(b).st_mode & 0o777 == 0o600 for b in p.backups) and p.backups
    assert os.stat(dotfiles).st_mode & 0o777 == 0o600


def test_uninstall_touches_nothing_it_did_not_add(tmp_path: Path) -> None:
    w = _where(tmp_path)
    cursor = w.home / ".cursor" / "hooks.json"
    write(cursor.parent, cursor.name, '{"version": 1, "hooks": {}}')
    settings = w.home / ".claude" / "settings.json"
    theirs: dict[str, Any] = {
        "model": "opus",
        "hooks": {
            "SessionStart": [],
            "Stop": [{"hooks": [{"type": "command", "command": "~/scripts/memlane-backup.sh hook"}]}],
        },
    }
    write(settings.parent, settings.name, json.dumps(theirs))
    for host in ("cursor", "claude-code"):
        assert not plan(host, "user", w, "uninstall").changed
    del theirs["hooks"]["SessionStart"]  # an empty list install filled and uninstall emptied goes: same meaning
    settings.write_text(json.dumps(theirs))
    plan("claude-code", "user", w).apply()
    plan("claude-code", "user", w, "uninstall").apply()
    assert json.loads(settings.read_text()) == theirs


def test_a_second_install_keeps_what_the_user_added_to_memlane_s_entry(tmp_path: Path) -> None:
    w = _where(tmp_path)
    plan("cursor", "user", w).apply()
    mcp = w.home / ".cursor" / "mcp.json"
    data = json.loads(mcp.read_text())
    data["mcpServers"]["memlane"]["env"] = {"MEMLANE_HOME": "/srv/m"}
    mcp.write_text(json.dumps(data))
    assert not plan("cursor", "user", w).changed
    toml = w.home / ".codex" / "config.toml"
    plan("codex", "user", w).apply()
    toml.write_text(toml.read_text() + 'env = { OPENAI_API_KEY = "sk-1" }\nstartup_timeout_sec = 60\n')
    plan("codex", "user", Where(w.home, w.project, w.workspace, agent="other")).apply()
    entry = tomllib.loads(toml.read_text())["mcp_servers"]["memlane"]
    assert entry["env"] == {"OPENAI_API_KEY": "sk-1"} and entry["startup_timeout_sec"] == 60
    assert "other" in entry["args"]


@pytest.mark.parametrize(
    ("host", "name", "text", "error"),
    [
        ("claude-code", ".claude.json", '{"mcpServers": 3}', "mcpServers is not an object"),
        ("codex", ".codex/config.toml", "mcp_servers = 1\n", "mcp_servers is not a table"),
        ("codex", ".codex/config.toml", "mcp_servers = { other = { command = 'x' } }\n", "config.toml"),
        ("openclaw", ".openclaw/openclaw.json", '{"mcp": 3}', "mcp is not an object"),
    ],
)
def test_odd_host_files_give_a_clear_error(tmp_path: Path, host: str, name: str, text: str, error: str) -> None:
    w = _where(tmp_path)
    write(w.home, name, text)
    with pytest.raises(MemlaneError, match=error):
        plan(host, "user", w)
    assert (w.home / name).read_text() == text


def test_null_entries_are_absent_ones(tmp_path: Path) -> None:
    w = _where(tmp_path)
    write(w.home, ".claude.json", '{"mcpServers": null}')
    write(w.home, ".claude/settings.json", '{"hooks": null}')
    write(w.home, ".openclaw/openclaw.json", '{"mcp": null}')
    for host in ("claude-code", "openclaw"):
        plan(host, "user", w).apply()
    assert "memlane" in json.loads((w.home / ".claude.json").read_text())["mcpServers"]


def test_a_hook_given_nonsense_on_stdin_fails_cleanly(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    for stdin in ("[" * 200_000 + "]" * 200_000, "\x00\x01binary"):
        out = run_cli("--workspace", str(ws), "hook", "capture", home=home, cwd=project, stdin=stdin)
        assert out.returncode == 1 and "Traceback" not in out.stderr
    odd = run_cli("--workspace", str(ws), "hook", "capture", home=home, cwd=project, stdin="[1, 2]")
    assert odd.returncode == 1 and "transcript_path" in odd.stderr  # JSON, but no transcript named


def test_project_scope_says_what_claude_code_asks_first(tmp_path: Path) -> None:
    w = _where(tmp_path)
    assert any("approve" in n for n in plan("claude-code", "project", w).notes)  # a real Claude Code 2.1 asks
    assert not any("approve" in n for n in plan("claude-code", "user", w).notes)


def test_an_openclaw_json_install_made_goes_with_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = _where(tmp_path)
    path = w.home / ".openclaw" / "openclaw.json"
    plan("openclaw", "user", w).apply()
    assert "memlane" in json.loads(path.read_text())["mcp"]["servers"]
    plan("openclaw", "user", w, action="uninstall").apply()
    assert not path.exists()  # a real OpenClaw 2026.9 read the `{}` this used to leave: nothing of memlane's stays


# -- issue 40: never damage another program's files


@pytest.mark.parametrize(
    ("host", "scope"),
    [("claude-code", "user"), ("claude-code", "project"), ("cursor", "user"), ("cursor", "project"),
     ("claude-desktop", "user"), ("codex", "user"), ("openclaw", "user")],
)  # fmt: skip
def test_a_link_planted_at_a_temp_name_is_never_followed(tmp_path: Path, host: str, scope: str) -> None:
    """A cloned repository (or anyone) plants ``..mcp.json.memlane-tmp -> ../.bashrc`` beside every file
    install writes: install writes its files and leaves the link's target as it was."""
    w = _where(tmp_path)
    victim = w.home / ".bashrc"
    write(w.home, ".bashrc", "export PATH=$HOME/bin:$PATH\n")
    targets = [c.path for c in plan(host, scope, w).changes]
    assert targets
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        for name in (f".{path.name}.memlane-tmp", f".{path.name}.tmp"):
            (path.parent / name).symlink_to(os.path.relpath(victim, path.parent))
    plan(host, scope, w).apply()
    assert victim.read_text() == "export PATH=$HOME/bin:$PATH\n"
    for path in targets:
        assert path.is_file() and not path.is_symlink() and "memlane" in path.read_text()


CODEX_DOTTED = """mcp_servers.github.command = "gh-mcp"
mcp_servers.github.args = ["serve"]
model = "o3"
approval_policy = "never"
"""


def test_codex_dotted_keys_stay_the_user_s_and_uninstall_removes_only_memlane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _where(tmp_path)
    toml = w.home / ".codex" / "config.toml"
    write(toml.parent, toml.name, CODEX_DOTTED)
    monkeypatch.setenv("CODEX_HOME", str(toml.parent))
    plan("codex", "user", w).apply()
    data = tomllib.loads(toml.read_text())
    assert data["model"] == "o3" and data["approval_policy"] == "never"
    assert data["mcp_servers"]["github"] == {"command": "gh-mcp", "args": ["serve"]}
    assert set(data["mcp_servers"]["memlane"]) == {"command", "args"}  # nothing of the user's moved in
    plan("codex", "user", w, "uninstall").apply()
    assert toml.read_text() == CODEX_DOTTED


def test_apply_refuses_a_file_the_host_saved_after_plan_read_it(tmp_path: Path) -> None:
    w = _where(tmp_path)
    claude = w.home / ".claude.json"
    write(w.home, ".claude.json", json.dumps(CLAUDE_JSON))
    pending = plan("claude-code", "user", w)
    saved = {**CLAUDE_JSON, "numStartups": 42}  # Claude Code saves between plan() and apply()
    claude.write_text(json.dumps(saved))
    with pytest.raises(ChangedOnDisk, match="changed since memlane read it"):
        pending.apply()
    assert json.loads(claude.read_text()) == saved  # its save is kept
    assert not (w.home / ".claude" / "settings.json").exists()  # nothing of the plan was written
    assert not list(w.home.glob("*.memlane-*"))  # no backup, no temp file
    # `memlane install` plans again on what the file holds now: both the save and memlane's entry stay
    import memlane.surface.install as install_module

    real_plan, calls = install_module.plan, []

    def host_saves_once(*args: Any) -> Any:
        out = real_plan(*args)
        calls.append(1)
        if len(calls) == 1:
            claude.write_text(json.dumps({**saved, "numStartups": 43}))
        return out

    install_module.plan = host_saves_once  # type: ignore[assignment]
    try:
        carry_out("claude-code", "user", w)
    finally:
        install_module.plan = real_plan
    final = json.loads(claude.read_text())
    assert len(calls) == 2 and final["numStartups"] == 43 and "memlane" in final["mcpServers"]


def test_odd_json_stays_json_and_leaves_nothing_behind(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    claude = home / ".claude.json"
    digits = "9" * 5000  # past Python's int conversion limit
    text = (
        '{"big": 1e400, "precise": 0.10000000000000000000001, "zero": -0, "long": ' + digits + ", "
        '"name": "\\ud800 half a pair", "emoji": "\\ud83d\\ude00", "mcpServers": {}}'
    )
    write(home, ".claude.json", text)
    out = run_cli("--workspace", str(ws), "install", "claude-code", home=home, cwd=project)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    after = claude.read_text()
    assert "Infinity" not in after and '"big": 1e400' in after and "0.10000000000000000000001" in after
    assert '"zero": -0' in after and digits in after and "\\ud800 half a pair" in after
    read = json.loads(after, parse_int=str)
    assert read["emoji"] == "\U0001f600" and "memlane" in read["mcpServers"]
    assert not [p for p in home.iterdir() if "memlane-tmp" in p.name]
    undo = run_cli("--workspace", str(ws), "uninstall", "claude-code", home=home, cwd=project)
    assert undo.returncode == 0, undo.stderr
    back = claude.read_text()
    assert "1e400" in back and "\\ud800" in back and "memlane" not in back


def test_a_read_only_config_is_refused_with_one_line(setup: tuple[Path, Path, Path]) -> None:
    home, project, ws = setup
    claude = home / ".claude.json"
    write(home, ".claude.json", json.dumps(CLAUDE_JSON))
    claude.chmod(0o444)
    out = run_cli("--workspace", str(ws), "install", "claude-code", home=home, cwd=project)
    assert out.returncode == 1 and "read-only" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert json.loads(claude.read_text()) == CLAUDE_JSON and claude.stat().st_mode & 0o777 == 0o444
    assert not (home / ".claude" / "settings.json").exists()  # refused before anything was written
    assert not [p for p in home.iterdir() if "memlane-" in p.name]


def test_a_crlf_codex_config_keeps_crlf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = _where(tmp_path)
    toml = w.home / ".codex" / "config.toml"
    crlf = CODEX_TOML.replace("\n", "\r\n").encode()
    toml.parent.mkdir(parents=True)
    toml.write_bytes(crlf)
    monkeypatch.setenv("CODEX_HOME", str(toml.parent))
    plan("codex", "user", w).apply()
    raw = toml.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and b"[mcp_servers.memlane]\r\n" in raw
    plan("codex", "user", w, "uninstall").apply()
    assert toml.read_bytes() == crlf


def test_the_round_trip_check_refuses_an_edit_that_changes_more_than_memlane_s_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard behind items 2 and 9: if the edit itself goes wrong (here: today's fixes undone), the file
    that would be written is read back, found to differ from the old data plus memlane's entry, and refused."""
    import memlane.surface.host_files as install_module

    w = _where(tmp_path)
    toml = w.home / ".codex" / "config.toml"
    write(toml.parent, toml.name, CODEX_DOTTED)
    monkeypatch.setenv("CODEX_HOME", str(toml.parent))

    def header_among_the_keys(doc: Any, text: str, server: list[str], adding: bool, present: bool) -> str:
        entry = tomlkit.table()
        entry["command"], entry["args"] = server[0], server[1:]
        doc["mcp_servers"]["memlane"] = entry  # what install did: the header lands after the first line
        return tomlkit.dumps(doc)

    monkeypatch.setattr(install_module, "_toml_edit", header_among_the_keys)
    with pytest.raises(MemlaneError, match=r"cannot add \[mcp_servers.memlane\]"):
        plan("codex", "user", w)
    as_float = lambda data: json.dumps(data, default=lambda n: float(n.text)) + "\n"  # noqa: E731  # 1e400: Infinity
    monkeypatch.setattr(install_module, "dump_json", as_float)
    write(w.home, ".claude.json", '{"big": 1e400}')
    with pytest.raises(MemlaneError, match="would not read back as the old one plus memlane's entry"):
        plan("claude-code", "user", w)
    assert toml.read_text() == CODEX_DOTTED and (w.home / ".claude.json").read_text() == '{"big": 1e400}'


def test_deeply_nested_host_files_give_one_line_not_a_traceback(tmp_path: Path) -> None:
    w = _where(tmp_path)
    claude = w.home / ".claude.json"
    text = '{"deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
    write(w.home, ".claude.json", text)
    with pytest.raises(MemlaneError, match="not valid JSON") as caught:
        plan("claude-code", "user", w)
    assert "\n" not in str(caught.value) and claude.read_text() == text
    deep = '{"deep": ' + "[" * 900 + "]" * 900 + "}"  # deep, yet what today's code edits: still edited
    claude.write_text(deep)
    plan("claude-code", "user", w).apply()
    assert load_json(claude.read_text())["deep"] == load_json(deep)["deep"]
