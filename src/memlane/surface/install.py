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
  ``PreCompact`` and ``SessionEnd`` capture the session's transcript.
- ``cursor``: MCP servers in ``~/.cursor/mcp.json`` or ``.cursor/mcp.json``; hooks in ``hooks.json`` beside it
  (``"version": 1``, camelCase events): ``sessionStart`` answers ``{"additional_context": ...}`` (Cursor
  treats it as best-effort), ``preCompact`` and ``sessionEnd`` capture. Cursor also runs Claude Code's hooks:
  a Claude Code hook that finds itself in Cursor (``cursor_version`` in its input) while Cursor's own
  memlane hooks are installed does nothing, so nothing runs twice.
- ``claude-desktop``: MCP servers in ``claude_desktop_config.json`` (user scope only; it has no hooks).
- ``codex``: MCP servers in ``$CODEX_HOME/config.toml`` (``~/.codex``), ``[mcp_servers.memlane]``; hooks in
  ``$CODEX_HOME/hooks.json`` (Claude Code's shape): ``SessionStart`` (answered as Codex's JSON,
  ``hookSpecificOutput.additionalContext``) and ``PreCompact``. Codex 0.169 has a ``SessionEnd`` event too, but
  clamps its hooks to 3 s, too short to load the model and capture a session, so it is not wired (a capture
  killed there would be safe, and useless). Codex runs a new hook only once the user trusts it in ``/hooks``.
- ``openclaw``: ``mcp.servers.memlane`` in ``openclaw.json`` (``$OPENCLAW_CONFIG_PATH``, else the state
  folder's). OpenClaw has no shell-command hooks: it reads the same Markdown memory itself. A file with
  JSON5 syntax (comments, unquoted keys) is not rewritten, since that would lose them: the error gives the
  ``openclaw mcp set`` command instead.
"""

from __future__ import annotations

import copy
import datetime as dt
import difflib
import json
import os
import re
import secrets
import shlex
import sys
import tomllib
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from ..config import openclaw_config
from ..errors import MemlaneError
from ..files.outside import ChangedOnDisk, Snapshot, match_line_endings, preflight, remove_file, snapshot, write_file

HOSTS = ("claude-code", "cursor", "claude-desktop", "codex", "openclaw")
SERVER = "memlane"
HOOK_TIMEOUT_S = 120


@dataclass
class FileChange:
    path: Path
    before: str | None  # None: the file is not there
    after: str | None  # None: the file is removed (uninstall emptied a file install made)
    read: Snapshot | None = None  # the file as plan() read it: apply() writes only over that

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                (self.after or "").splitlines(keepends=True),
                fromfile=str(self.path) if self.before is not None else "/dev/null",
                tofile=str(self.path) if self.after is not None else "/dev/null",
            )
        )


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
        raise MemlaneError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
    if scope not in ("user", "project"):
        raise MemlaneError(f"scope is user or project, not {scope!r}")
    out = InstallPlan(host, scope, action)
    server = where.memlane("mcp")
    adding = action == "install"
    if host == "claude-code":
        mcp = where.home / ".claude.json" if scope == "user" else where.project / ".mcp.json"
        settings = (where.home if scope == "user" else where.project) / ".claude" / "settings.json"
        entry = {"type": "stdio", "command": server[0], "args": server[1:]}
        out.changes.append(_json_change(mcp, lambda d, add: _server(d, "mcpServers", entry, add), adding))
        hooks = {
            "SessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "claude-code")),
            "PreCompact": shlex.join(where.memlane("hook", "capture", "--host", "claude-code")),
            "SessionEnd": shlex.join(where.memlane("hook", "capture", "--host", "claude-code")),
        }
        out.changes.append(_json_change(settings, lambda d, add: _claude_hooks(d, hooks, add), adding))
        if adding and scope == "project":
            out.notes.append(
                "Claude Code asks before it starts a project's .mcp.json server and runs a project's hooks only "
                "in a trusted folder: run claude in the project once and approve memlane"
            )
    elif host == "cursor":
        folder = (where.home if scope == "user" else where.project) / ".cursor"
        entry = {"command": server[0], "args": server[1:]}
        out.changes.append(
            _json_change(folder / "mcp.json", lambda d, add: _server(d, "mcpServers", entry, add), adding)
        )
        cursor_hooks = {
            "sessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "cursor")),
            "preCompact": shlex.join(where.memlane("hook", "capture", "--host", "cursor")),
            "sessionEnd": shlex.join(where.memlane("hook", "capture", "--host", "cursor")),
        }
        out.changes.append(
            _json_change(folder / "hooks.json", lambda d, add: _cursor_hooks(d, cursor_hooks, add), adding)
        )
    elif host == "claude-desktop":
        if scope != "user":
            raise MemlaneError("Claude Desktop has one config for the user: --scope user")
        entry = {"command": server[0], "args": server[1:]}
        out.changes.append(
            _json_change(claude_desktop_config(where), lambda d, add: _server(d, "mcpServers", entry, add), adding)
        )
        out.notes.append("Claude Desktop has no hooks: restart it to load the server")
    elif host == "openclaw":
        if scope != "user":
            raise MemlaneError("OpenClaw has one config (openclaw.json): --scope user")
        path = openclaw_config(where.home).path
        entry = {"command": server[0], "args": server[1:]}
        hint = (
            f"run openclaw mcp set {SERVER} {shlex.quote(json.dumps(entry))}"
            if adding
            else f"remove mcp.servers.{SERVER} from it by hand"
        )
        # an openclaw.json that only held memlane's server (install made it) goes with it, as the other hosts' files
        change = _json_change(path, lambda d, add: _openclaw_server(d, entry, add), adding, json5_hint=hint)
        out.changes.append(change)
        out.notes.append("OpenClaw reads the Markdown memory itself; it has no shell hooks to wire")
    else:  # codex
        if scope != "user":
            raise MemlaneError("Codex reads MCP servers from $CODEX_HOME/config.toml only: --scope user")
        raw = os.environ.get("CODEX_HOME")
        codex = Path(raw).expanduser() if raw else where.home / ".codex"
        out.changes.append(_toml_change(codex / "config.toml", server, adding))
        hooks = {
            "SessionStart": shlex.join(where.memlane("hook", "session-start", "--host", "codex")),
            "PreCompact": shlex.join(where.memlane("hook", "capture", "--host", "codex")),
        }
        out.changes.append(_json_change(codex / "hooks.json", lambda d, add: _claude_hooks(d, hooks, add), adding))
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


# -- JSON files


Edit = Callable[[dict[str, Any], bool], None]  # (data, adding): install's or uninstall's change, in place


def _json_change(path: Path, edit: Edit, adding: bool, json5_hint: str | None = None) -> FileChange:
    try:
        return _json_edit(path, edit, adding, json5_hint)
    except RecursionError:  # parsed, but too deep to copy, write or compare
        raise MemlaneError(f"{path} is nested too deeply to edit safely; nothing was changed") from None


def _json_edit(path: Path, edit: Edit, adding: bool, json5_hint: str | None) -> FileChange:
    read, before = _read(path)
    if before is None:
        data: dict[str, Any] = {}
    else:
        try:
            loaded = load_json(before) if before.strip() else {}
        except (ValueError, RecursionError) as exc:
            if json5_hint is not None:  # OpenClaw's JSON5: rewriting would drop its comments
                raise MemlaneError(
                    f"{path} is JSON5 (comments or unquoted keys) that rewriting would lose; nothing was changed: "
                    f"{json5_hint}"
                ) from None
            raise MemlaneError(f"{path} is not valid JSON ({exc}): fix it first; nothing was changed") from None
        if not isinstance(loaded, dict):
            raise MemlaneError(f"{path}: the top level is not an object; nothing was changed")
        data = loaded
    old = load_json(before) if before is not None and before.strip() else {}  # a copy (deepcopy: deep recursion)
    edit(data, adding)
    if before is not None and old == data:
        return FileChange(path, before, before, read)  # nothing to do: the file is left byte for byte
    after: str | None = match_line_endings(dump_json(data), before)
    if not data and (before is None or not adding):
        after = None  # uninstall emptied it: install made it (a file of "{}" means nothing either way)
    else:
        _check_json_round_trip(path, before or "", data, after or "", edit)
    return FileChange(path, before, after, read)


class _Number:
    """A number as the file writes it (``1e400``, ``0.10``, a 5,000-digit integer): written back as it
    was, since ``float`` would turn ``1e400`` into ``Infinity`` (not JSON) and round the rest."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Number) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"_Number({self.text!r})"


def _int(text: str) -> int | _Number:
    try:
        value = int(text)
    except ValueError:  # past Python's 4,300-digit conversion limit
        return _Number(text)
    return value if str(value) == text else _Number(text)  # "-0" stays "-0"


def load_json(text: str) -> Any:
    """JSON as install reads it: every number keeps its text (see :class:`_Number`)."""
    return json.loads(text, parse_float=_Number, parse_int=_int, parse_constant=_Number)


_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_json(data: Any) -> str:
    """``data`` as JSON text (2-space indent, UTF-8 as it is), each :class:`_Number` written as its text
    and a lone surrogate (``"\\ud800"`` in the file) written as the escape it was read from."""
    for _ in range(10):
        text = _dump_with(data, f"memlane-number-{secrets.token_hex(12)}:")
        if text is not None:
            return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
    raise MemlaneError("could not write the JSON back")  # ten 96-bit tokens all in the file: never


def _dump_with(data: Any, token: str) -> str | None:
    """JSON with each number's text put in place of a ``"<token><text>"`` string; None when ``token``
    is in the data's own strings."""
    numbers = 0

    def raw(value: Any) -> str:
        nonlocal numbers
        if not isinstance(value, _Number):
            raise TypeError(f"{type(value).__name__} is not JSON")
        numbers += 1
        return token + value.text

    text = json.dumps(data, indent=2, ensure_ascii=False, default=raw)
    if text.count(token) != numbers:
        return None
    return re.sub('"' + re.escape(token) + '([^"]*)"', lambda m: m.group(1), text)


def _prune(value: Any, levels: int = 3) -> Any:
    """``value`` without empty objects, lists and nulls in its top ``levels`` levels, where install adds
    or fills containers and uninstall drops the ones it emptied (``hooks.<event>``, ``mcp.servers``; a
    null entry is an absent one). Deeper, the user's data is compared as it is."""
    if levels == 0:
        return value
    if isinstance(value, dict):
        kept = {k: _prune(v, levels - 1) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v != {} and v != [] and v is not None}
    if isinstance(value, list):
        return [_prune(v, levels - 1) for v in value]
    return value


def _check_json_round_trip(path: Path, before: str, new: dict[str, Any], after: str, edit: Edit) -> None:
    """Refuse unless ``after`` reads back as ``new``, and ``new`` is the data of ``before`` but for
    memlane's entries: both with memlane's entries taken out (uninstall's edit) are the same, less empty
    containers where install puts its entries."""
    try:
        again = load_json(after)
    except (ValueError, RecursionError):
        again = None
    stripped = []
    for text in (before, after):
        side = load_json(text) if text.strip() else {}  # fresh copies: the edit below changes them
        edit(side, False)
        if side.get("version") == 1 and path.name == "hooks.json" and path.parent.name == ".cursor":
            del side["version"]  # Cursor's schema version: install adds it beside its hooks, uninstall may drop it
        stripped.append(_prune(side))
    if again != new or stripped[0] != stripped[1]:
        raise MemlaneError(
            f"{path}: the edited file would not read back as the old one plus memlane's entry; nothing was "
            "changed (please report this file's layout)"
        )


def _read(path: Path) -> tuple[Snapshot | None, str | None]:
    read = snapshot(path)
    if read is None:
        return None, None
    try:
        return read, read.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemlaneError(f"cannot read {path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


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


def _claude_hooks(data: dict[str, Any], hooks: dict[str, str], adding: bool) -> None:
    """Claude Code's (and Codex's) shape: event -> [{matcher?, hooks: [{type, command, timeout?}]}]."""
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
            kept.append({"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]})
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


# -- TOML (Codex)


def _toml_change(path: Path, server: list[str], adding: bool) -> FileChange:
    try:
        return _toml_file_edit(path, server, adding)
    except RecursionError:
        raise MemlaneError(f"{path} is nested too deeply to edit safely; nothing was changed") from None


def _toml_file_edit(path: Path, server: list[str], adding: bool) -> FileChange:
    read, before = _read(path)
    text = before or ""
    try:
        doc = tomlkit.parse(text)
        data = tomllib.loads(text)
    except Exception as exc:  # tomlkit and tomllib raise their own ParseError families
        raise MemlaneError(f"{path} is not valid TOML ({exc}): fix it first; nothing was changed") from None
    servers = data.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise MemlaneError(f"{path}: mcp_servers is not a table: fix it first; nothing was changed")
    old = (servers or {}).get(SERVER)
    if old is not None and not isinstance(old, dict):
        raise MemlaneError(f"{path}: mcp_servers.{SERVER} is not a table: fix it first; nothing was changed")
    expected = copy.deepcopy(data)
    if adding:
        if old is not None and old.get("command") == server[0] and old.get("args") == server[1:]:
            return FileChange(path, before, before, read)
        # the user's own keys in memlane's entry (env, timeouts) stay; the command is install's
        expected.setdefault("mcp_servers", {})[SERVER] = {**(old or {}), "command": server[0], "args": server[1:]}
    elif old is not None:
        del expected["mcp_servers"][SERVER]
        if not expected["mcp_servers"]:
            del expected["mcp_servers"]
    else:
        return FileChange(path, before, before, read)
    try:
        after = _toml_edit(doc, text, server, adding, old is not None)
    except Exception:  # tomlkit refuses some layouts (a table inside an inline table): the check below says it
        after = None
    after = match_line_endings(after, before) if after is not None else None
    try:
        again = tomllib.loads(after) if after is not None else None
    except tomllib.TOMLDecodeError:
        again = None
    if again != expected:
        raise MemlaneError(
            f"{path}: memlane cannot add [mcp_servers.{SERVER}] to this layout without changing other keys "
            "(an inline mcp_servers table?); nothing was changed: add the entry by hand"
            if adding
            else f"{path}: memlane cannot remove [mcp_servers.{SERVER}] from this layout without changing other "
            "keys; nothing was changed: remove the entry by hand"
        )
    assert after is not None  # tomllib read it back
    return FileChange(path, before, after or None, read)  # empty: uninstall emptied the file install made


def _toml_edit(doc: tomlkit.TOMLDocument, text: str, server: list[str], adding: bool, present: bool) -> str:
    """The document's text after the change. A new entry is a ``[mcp_servers.memlane]`` table appended
    at the end: inserted among the user's keys, a header would take every key below it (``model = ...``
    after a dotted ``mcp_servers.github.command``) into memlane's table. An entry already there is
    edited where it is."""
    if adding and not present:
        entry = tomlkit.table()
        entry["command"] = server[0]
        entry["args"] = server[1:]
        block = tomlkit.document()
        block["mcp_servers"] = tomlkit.table(is_super_table=True)
        block["mcp_servers"][SERVER] = entry
        head = text if not text or text.endswith("\n") else text + "\n"
        return head + ("\n" if head.strip() else "") + tomlkit.dumps(block)
    servers = doc["mcp_servers"]
    assert isinstance(servers, MutableMapping)
    if adding:
        old = servers[SERVER]
        assert isinstance(old, MutableMapping)
        old["command"] = server[0]
        old["args"] = server[1:]
    else:
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]
        after = tomlkit.dumps(doc)
        if after.strip() and not text.endswith(("\n\n", "\r\n\r\n")):
            after = after.rstrip("\r\n") + "\n"  # the blank line install put before its table goes too
        return after
    return tomlkit.dumps(doc)
