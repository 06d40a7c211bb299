"""A host's config file as install reads, edits and checks it: JSON whose numbers keep their text, Codex's
TOML edited where the entry is, every edit read back before :mod:`memlane.surface.install` writes it."""

from __future__ import annotations

import copy
import difflib
import json
import re
import secrets
import tomllib
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from ..errors import MemlaneError
from ..files.outside import Snapshot, match_line_endings, snapshot

SERVER = "memlane"  # memlane's entry in a host's MCP servers


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


# -- JSON files


Edit = Callable[[dict[str, Any], bool], None]  # (data, adding): install's or uninstall's change, in place


def json_change(path: Path, edit: Edit, adding: bool, json5_hint: str | None = None) -> FileChange:
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


# -- TOML (Codex)


def toml_change(path: Path, server: list[str], adding: bool) -> FileChange:
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
