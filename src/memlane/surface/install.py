"""``memlane install <host>``: memlane's MCP server and session hooks written into a host's own config file.

Each host keeps its MCP servers (and, where it has them, its hooks) in a file of its own format. Install
merges memlane's entries into that file: every other entry is kept, a backup of the file is written before
it changes, and a second install changes nothing. Every edit is read back before it is written, and must
be the old data plus exactly memlane's entry (after uninstall: the old data without it), else it is refused;
JSON numbers keep their text (``1e400`` is not turned into ``Infinity``). Files are written by
:mod:`memlane.files.outside`: never through a planted link, only over what :func:`plan` read (a host's save
in between makes :func:`carry_out` plan again), never over a read-only file, mode and CRLF kept.

Uninstall removes exactly the entries install adds (the ``memlane`` server and the hook handlers that run
``memlane ... hook``), and containers those leave empty; a file that install created and uninstall empties
is removed.

The entries run this Python (``sys.executable -m memlane``) with the workspace given, so that the host
finds the same memlane and memory whatever its own ``PATH`` and working folder.

Hosts (the formats their documentation gives):

- ``claude-code``: MCP servers in ``~/.claude.json`` (user) or ``.mcp.json`` (project); hooks in
  ``~/.claude/settings.json`` or ``.claude/settings.json``: ``SessionStart`` prints :mod:`context`,
  ``PreCompact`` and ``SessionEnd`` capture the session's transcript. Every capture hook runs with
  ``--background``: it checks its input and hands the capture to a process of its own, so the host waits about
  0.1 s, not the 2-3 s a capture takes (hosts give a session-end hook little time: docs/design/capture.md §47).
- ``cursor``: MCP servers in ``~/.cursor/mcp.json`` or ``.cursor/mcp.json``; hooks in ``hooks.json`` beside it
  (``"version": 1``, camelCase events): ``sessionStart`` answers ``{"additional_context": ...}`` (Cursor
  treats it as best-effort), ``preCompact`` and ``sessionEnd`` capture. Cursor also runs Claude Code's hooks:
  a Claude Code hook that finds itself in Cursor (``cursor_version`` in its input) while Cursor's own
  memlane hooks are installed does nothing, so nothing runs twice.
- ``claude-desktop``: MCP servers in ``claude_desktop_config.json`` (user scope only; it has no hooks).
- ``codex``: MCP servers in ``$CODEX_HOME/config.toml`` (``~/.codex``), ``[mcp_servers.memlane]``; hooks in
  ``$CODEX_HOME/hooks.json`` (Claude Code's shape): ``SessionStart`` (answered as Codex's JSON,
  ``hookSpecificOutput.additionalContext``), ``PreCompact`` and ``SessionEnd``. Codex clamps ``SessionEnd`` hooks
  to 3 s (it runs them during its own shutdown, and warns at every start about a longer timeout), so that entry
  says 3 s: the hook hands the capture to a process of its own and returns in about 0.1 s (§47). Codex runs a
  new hook only once the user trusts it in ``/hooks``.
- ``openclaw``: ``mcp.servers.memlane`` in ``openclaw.json`` (``$OPENCLAW_CONFIG_PATH``, else the state
  folder's). OpenClaw has no shell-command hooks: it reads the same Markdown memory itself. A file with
  JSON5 syntax (comments, unquoted keys) is not rewritten, since that would lose them: the error gives the
  ``openclaw mcp set`` command instead.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import openclaw_config
from ..errors import MemlaneError, UsageError
from ..files.outside import ChangedOnDisk, preflight, remove_file, write_file
from .host_files import SERVER, FileChange, json_change, toml_change
from .host_names import HOSTS

HOOK_TIMEOUT_S = 120
CODEX_SESSION_END_TIMEOUT_S = 3  # Codex's ceiling for SessionEnd hooks (codex-rs hooks: SESSION_END_MAX_TIMEOUT_SEC)


@dataclass
class InstallPlan:
    host: str
    scope: str
    action: str  # install | uninstall
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[FileChange]:
        return [c for c in self.changes if c.changed]

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changed)

    def apply(self, now: dt.datetime | None = None) -> None:
        """Write the changed files, each after a backup of what it held (``<name>.memlane-backup-<time>``,
        with the file's own mode), through :mod:`memlane.files.outside`. Every file is checked first: one
        that changed since :func:`plan` read it (:class:`ChangedOnDisk`), or is read-only, stops the whole
        plan before anything is written."""
        stamp = (now or dt.datetime.now()).strftime("%Y%m%d-%H%M%S-%f")
        changed = self.changed
        for c in changed:
            preflight(c.path, c.read)
        for c in changed:
            if c.read is not None:  # a link is backed up beside the file it names, which is what changes
                backup = c.read.path.with_name(f"{c.read.path.name}.memlane-backup-{stamp}")
                write_file(backup, c.read.data, expect=None, mode=c.read.mode)
                self.backups.append(str(backup))
            if c.after is None:
                remove_file(c.path, expect=c.read)
            else:
                write_file(c.path, c.after.encode("utf-8"), expect=c.read)

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "scope": self.scope,
            "action": self.action,
            "changed": [str(c.path) for c in self.changed],
            "unchanged": [str(c.path) for c in self.changes if not c.changed],
            "backups": self.backups,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class Where:
    """Where a host's files are: the user's home, the project folder, the workspace memlane serves."""

    home: Path
    project: Path
    workspace: Path
    config: Path | None = None  # a --config given to memlane: the entries pass it on
    agent: str | None = None  # an --agent given to memlane: the entries pass it on
    python: str = sys.executable
    platform: str = sys.platform

    def memlane(self, *args: str) -> list[str]:
        head = [self.python, "-m", "memlane", "--workspace", str(self.workspace)]
        if self.config is not None:
            head += ["--config", str(self.config)]
        if self.agent is not None:
            head += ["--agent", self.agent]
        return [*head, *args]


def plan(host: str, scope: str, where: Where, action: str = "install") -> InstallPlan:
    """The changes ``action`` (install or uninstall) makes to ``host``'s files for ``scope`` (user or project)."""
    if host not in HOSTS:
        raise UsageError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
    if scope not in ("user", "project"):
        raise UsageError(f"scope is user or project, not {scope!r}")
    out = InstallPlan(host, scope, action)
    server = where.memlane("mcp")
    adding = action == "install"
    if host == "claude-code":
        mcp = where.home / ".claude.json" if scope == "user" else where.project / ".mcp.json"
        settings = (where.home if scope == "user" else where.project) / ".claude" / "settings.json"
        entry = {"type": "stdio", "command": server[0], "args": server[1:]}
        out.changes.append(json_change(mcp, lambda d, add: _server(d, "mcpServers", entry, add), adding))
        hooks = {
            "SessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "claude-code")),
            "PreCompact": shlex.join(where.memlane("hook", "capture", "--host", "claude-code", "--background")),
            "SessionEnd": shlex.join(where.memlane("hook", "capture", "--host", "claude-code", "--background")),
        }
        out.changes.append(json_change(settings, lambda d, add: _claude_hooks(d, hooks, add), adding))
        if adding and scope == "project":
            out.notes.append(
                "Claude Code asks before it starts a project's .mcp.json server and runs a project's hooks only "
                "in a trusted folder: run claude in the project once and approve memlane"
            )
    elif host == "cursor":
        folder = (where.home if scope == "user" else where.project) / ".cursor"
        entry = {"command": server[0], "args": server[1:]}
        out.changes.append(
            json_change(folder / "mcp.json", lambda d, add: _server(d, "mcpServers", entry, add), adding)
        )
        cursor_hooks = {
            "sessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "cursor")),
            "preCompact": shlex.join(where.memlane("hook", "capture", "--host", "cursor", "--background")),
            "sessionEnd": shlex.join(where.memlane("hook", "capture", "--host", "cursor", "--background")),
        }
        out.changes.append(
            json_change(folder / "hooks.json", lambda d, add: _cursor_hooks(d, cursor_hooks, add), adding)
        )
    elif host == "claude-desktop":
        if scope != "user":
            raise UsageError("Claude Desktop has one config for the user: --scope user")
        entry = {"command": server[0], "args": server[1:]}
        out.changes.append(
            json_change(claude_desktop_config(where), lambda d, add: _server(d, "mcpServers", entry, add), adding)
        )
        out.notes.append("Claude Desktop has no hooks: restart it to load the server")
    elif host == "openclaw":
        if scope != "user":
            raise UsageError("OpenClaw has one config (openclaw.json): --scope user")
        path = openclaw_config(where.home).path
        entry = {"command": server[0], "args": server[1:]}
        hint = (
            f"run openclaw mcp set {SERVER} {shlex.quote(json.dumps(entry))}"
            if adding
            else f"remove mcp.servers.{SERVER} from it by hand"
        )
        # an openclaw.json that only held memlane's server (install made it) goes with it, as the other hosts' files
        change = json_change(path, lambda d, add: _openclaw_server(d, entry, add), adding, json5_hint=hint)
        out.changes.append(change)
        out.notes.append("OpenClaw reads the Markdown memory itself; it has no shell hooks to wire")
    else:  # codex
        if scope != "user":
            raise UsageError("Codex reads MCP servers from $CODEX_HOME/config.toml only: --scope user")
        raw = os.environ.get("CODEX_HOME")
        codex = Path(raw).expanduser() if raw else where.home / ".codex"
        out.changes.append(toml_change(codex / "config.toml", server, adding))
        capture = shlex.join(where.memlane("hook", "capture", "--host", "codex", "--background"))
        hooks = {
            "SessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "codex")),
            "PreCompact": capture,
            "SessionEnd": capture,
        }
        timeouts = {"SessionEnd": CODEX_SESSION_END_TIMEOUT_S}
        out.changes.append(
            json_change(codex / "hooks.json", lambda d, add: _claude_hooks(d, hooks, add, timeouts), adding)
        )
        if adding:
            out.notes.append("Codex runs new hooks once you trust them: type /hooks in Codex and trust memlane's")
    return out


def carry_out(host: str, scope: str, where: Where, action: str = "install", attempts: int = 3) -> InstallPlan:
    """Plan and apply; when a file changed between the two (the host saved it), plan again on what it
    holds now, so the host's save and memlane's entry both stay. After ``attempts`` plans, give up."""
    for attempt in range(attempts):
        out = plan(host, scope, where, action)
        try:
            out.apply()
        except ChangedOnDisk:
            if attempt == attempts - 1:
                raise
            continue
        return out
    raise AssertionError("unreachable")


def _openclaw_server(data: dict[str, Any], entry: dict[str, Any], adding: bool) -> None:
    mcp = data.get("mcp")
    if mcp is not None and not isinstance(mcp, dict):
        raise MemlaneError("mcp is not an object: fix it first; nothing was changed")
    if adding and mcp is None:
        data["mcp"] = {}
    elif mcp is None:
        return
    _server(data["mcp"], "servers", entry, adding)
    if not adding and not data["mcp"]:
        del data["mcp"]


def claude_desktop_config(where: Where) -> Path:
    if where.platform == "darwin":
        return where.home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if where.platform.startswith("win"):
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else where.home / "AppData" / "Roaming"
        return base / "Claude" / "claude_desktop_config.json"
    return where.home / ".config" / "Claude" / "claude_desktop_config.json"


def _server(data: dict[str, Any], key: str, entry: dict[str, Any], adding: bool) -> None:
    servers = data.get(key)
    if servers is not None and not isinstance(servers, dict):
        raise MemlaneError(f"{key} is not an object: fix it first; nothing was changed")
    if adding:
        if servers is None:
            servers = data[key] = {}
        old = servers.get(SERVER)
        # what the user added to memlane's entry (env, timeouts) stays; the command is install's
        servers[SERVER] = {**old, **entry} if isinstance(old, dict) else entry
        return
    if servers and SERVER in servers:
        del servers[SERVER]
        if not servers:
            del data[key]


_OUR_COMMAND = re.compile(r"\s-m\s+memlane\s(?:.*\s)?hook\s+(?:session-start|capture)(?:\s|$)")


def _ours(handler: Any) -> bool:
    """A hook handler install wrote: ``<python> -m memlane ... hook session-start|capture ...``."""
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and bool(_OUR_COMMAND.search(command))


def _hook_table(data: dict[str, Any], adding: bool) -> dict[str, Any] | None:
    table = data.get("hooks")
    if table is not None and not isinstance(table, dict):
        raise MemlaneError("hooks is not an object: fix it first; nothing was changed")
    if table is None and adding:
        table = data["hooks"] = {}
    return table


def _claude_hooks(
    data: dict[str, Any], hooks: dict[str, str], adding: bool, timeouts: Mapping[str, int] | None = None
) -> None:
    """Claude Code's (and Codex's) shape: event -> [{matcher?, hooks: [{type, command, timeout?}]}]; each
    handler's timeout is ``HOOK_TIMEOUT_S`` unless ``timeouts`` names its event."""
    table = _hook_table(data, adding)
    if table is None:
        return
    removed = False
    for event, command in hooks.items():
        groups = table.get(event)
        if groups is not None and not isinstance(groups, list):
            raise MemlaneError(f"hooks.{event} is not a list: fix it first; nothing was changed")
        kept: list[Any] = []
        emptied = False  # a group held only install's handlers
        for group in groups or []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            rest = [h for h in handlers if not _ours(h)] if isinstance(handlers, list) else None
            if rest is None or len(rest) == len(handlers or []):
                kept.append(group)
            elif rest:
                kept.append({**group, "hooks": rest})
            else:
                emptied = True
        removed = removed or emptied or kept != (groups or [])
        if adding:
            # SessionEnd hooks get 1.5 s unless they say otherwise: capturing a long session needs more
            timeout = (timeouts or {}).get(event, HOOK_TIMEOUT_S)
            kept.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
        if kept or groups is None:
            if kept:
                table[event] = kept
        elif emptied:
            del table[event]  # it held only install's handlers
    if not adding and removed and not table:
        del data["hooks"]


def _cursor_hooks(data: dict[str, Any], hooks: dict[str, str], adding: bool) -> None:
    """Cursor's shape: {version: 1, hooks: {event: [{command, timeout?}]}}."""
    table = _hook_table(data, adding)
    if table is None:
        return
    removed = False
    for event, command in hooks.items():
        handlers = table.get(event)
        if handlers is not None and not isinstance(handlers, list):
            raise MemlaneError(f"hooks.{event} is not a list: fix it first; nothing was changed")
        kept = [h for h in handlers or [] if not _ours(h)]
        ours = len(handlers or []) - len(kept)
        removed = removed or ours > 0
        if adding:
            kept.append({"command": command, "timeout": HOOK_TIMEOUT_S})
        if kept:
            table[event] = kept
        elif ours:
            del table[event]  # it held only install's handlers
    if adding:
        data.setdefault("version", 1)
    elif removed and not table:
        del data["hooks"]
        if data.get("version") == 1 and len(data) == 1:
            del data["version"]  # only what install added is left


def cursor_hooks_installed(home: Path, project: Path) -> bool:
    """Whether Cursor's own memlane hooks are installed (user or this project)."""
    for path in (home / ".cursor" / "hooks.json", project / ".cursor" / "hooks.json"):
        try:
            table = json.loads(path.read_text(encoding="utf-8")).get("hooks") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(table, dict) and any(isinstance(hs, list) and any(_ours(h) for h in hs) for hs in table.values()):
            return True
    return False
