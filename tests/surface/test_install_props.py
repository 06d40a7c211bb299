"""Install and uninstall on generated host files: whatever the layout (dotted keys, inline tables, arrays of
tables, comments, CRLF, unicode, big numbers, lone surrogates), install either refuses with one clear error
and leaves the file as it was, or the file reads back as the old data plus exactly memlane's entry; a second
install changes nothing; uninstall gives the old data back (issue 40: the round-trip rule)."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlane.errors import MemlaneError
from memlane.surface.host_files import load_json
from memlane.surface.install import Where, claude_desktop_config, plan

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
KEYS = st.sampled_from(["model", "approval_policy", "ключ", "名前", "a b", "x-y", "env", "args", "command", "n"])


@contextlib.contextmanager
def _home() -> Iterator[Where]:
    with tempfile.TemporaryDirectory() as raw:
        root = Path(raw)
        ws = root / "ws"
        ws.mkdir()
        old = os.environ.get("CODEX_HOME")
        os.environ["CODEX_HOME"] = str(root / "home" / ".codex")
        try:
            yield Where(root / "home", root / "proj", ws, python="/usr/bin/python3")
        finally:
            if old is None:
                del os.environ["CODEX_HOME"]
            else:
                os.environ["CODEX_HOME"] = old


# -- TOML (Codex's config.toml)


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else tomlkit.string(name).as_string()


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return tomlkit.item(value).as_string()


TOML_VALUES = st.recursive(
    st.one_of(
        st.booleans(),
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=False, allow_infinity=False),
        TEXT,
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=6,
)
COMMENT_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs", "Cc")), max_size=12)
COMMENTS = st.lists(COMMENT_TEXT.map(lambda t: "# " + t), max_size=2)
STYLES = ("none", "dotted", "tables", "super", "inline", "ours", "ours-dotted")


@st.composite
def toml_files(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    """(text, how mcp_servers is written, the comment lines in it)."""
    style = draw(st.sampled_from(STYLES))
    comments = draw(COMMENTS)
    root = [f"{_key(k)} = {_toml_value(v)}" for k, v in draw(st.dictionaries(KEYS, TOML_VALUES, max_size=4)).items()]
    root += [
        f"tool.{_key(k)} = {_toml_value(v)}" for k, v in draw(st.dictionaries(KEYS, TOML_VALUES, max_size=2)).items()
    ]
    servers = draw(st.lists(st.sampled_from(["github", "docs", "файлы"]), unique=True, min_size=1, max_size=2))
    tables: list[str] = []
    for name in servers:
        command, args = draw(TEXT), draw(st.lists(TEXT, max_size=2))
        if style == "dotted":
            root += [f"mcp_servers.{_key(name)}.command = {_toml_value(command)}"]
            root += [f"mcp_servers.{_key(name)}.args = {_toml_value(args)}"]
        elif style == "tables":
            tables += [
                f"[mcp_servers.{_key(name)}]",
                f"command = {_toml_value(command)}",
                f"args = {_toml_value(args)}",
            ]
        elif style == "super":
            tables += ["[mcp_servers]"] if name == servers[0] else []
            tables += [f"{_key(name)}.command = {_toml_value(command)}"]
    if style == "inline":
        root += [f"mcp_servers = {{ {_key(servers[0])} = {{ command = {_toml_value(draw(TEXT))} }} }}"]
    if style == "ours":  # memlane's entry is there with the user's own keys
        tables += ["[mcp_servers.memlane]", 'command = "old-python"', "startup_timeout_sec = 60"]
        tables += [f"env = {_toml_value(draw(st.dictionaries(KEYS, TEXT, max_size=2)))}"]
    if style == "ours-dotted":  # the same, in dotted keys among the user's other keys
        root += ['mcp_servers.memlane.command = "old-python"', "mcp_servers.memlane.startup_timeout_sec = 60"]
    root = draw(st.permutations(root))  # dotted mcp_servers keys among the user's other keys
    for name in draw(st.lists(st.sampled_from(["profiles.fast", "tui", "ünï"]), unique=True, max_size=2)):
        tables += ["", f"[{'.'.join(_key(p) for p in name.split('.'))}]"]
        tables += [
            f"{_key(k)} = {_toml_value(v)}" for k, v in draw(st.dictionaries(KEYS, TOML_VALUES, max_size=2)).items()
        ]
    for _ in range(draw(st.integers(0, 2))):
        tables += ["[[projects]]", f"path = {_toml_value(draw(TEXT))}"]
    lines = [*comments[:1], *root, "", *tables, *comments[1:]]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return text, style, comments


def _with_entry(data: dict[str, Any], server: list[str]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    servers = out.setdefault("mcp_servers", {})
    servers["memlane"] = {**servers.get("memlane", {}), "command": server[0], "args": server[1:]}
    return out


@SETTINGS
@given(toml_files())
def test_codex_config_round_trip(generated: tuple[str, str, list[str]]) -> None:
    text, style, comments = generated
    data = tomllib.loads(text)  # the generator writes valid TOML
    with _home() as where:
        path = Path(os.environ["CODEX_HOME"]) / "config.toml"
        path.parent.mkdir(parents=True)
        path.write_bytes(text.encode())
        try:
            first = plan("codex", "user", where)
        except MemlaneError as exc:
            # only an inline mcp_servers table cannot take a [mcp_servers.memlane] table
            assert style == "inline" and "nothing was changed" in str(exc) and "\n" not in str(exc)
            assert path.read_bytes() == text.encode()
            return
        assert style != "inline"
        first.apply()
        raw = path.read_bytes()
        after = raw.decode()
        assert tomllib.loads(after) == _with_entry(data, where.memlane("mcp"))
        assert all(c in after for c in comments)
        if "\r\n" in text:
            assert raw.count(b"\n") == raw.count(b"\r\n")
        assert not plan("codex", "user", where).changed
        plan("codex", "user", where, "uninstall").apply()
        expected = copy.deepcopy(data)
        if style.startswith("ours"):
            del expected["mcp_servers"]["memlane"]
            if not expected["mcp_servers"]:
                del expected["mcp_servers"]
        final = path.read_bytes() if path.exists() else b""
        assert tomllib.loads(final.decode()) == expected
        if not style.startswith("ours") and text.endswith("\n") and not text.endswith(("\n\n", "\n\r\n")):
            assert final == text.encode()  # byte for byte (blank lines at the very end become one newline)


# -- JSON (Claude Desktop's file stands for every JSON host: one code path)


NUMBERS = st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?", fullmatch=True)
STRINGS = st.one_of(
    st.builds(json.dumps, TEXT, ensure_ascii=st.booleans()),
    st.sampled_from(['"\\ud800"', '"x\\udfffy"', '"\\ud83d\\ude00"', '"\\u0000"']),
)


def _object(members: list[tuple[str, str]], newline: str, depth: int) -> str:
    if not members:
        return "{}"
    pad = newline + "  " * (depth + 1) if newline else " "
    inner = ("," + pad).join(f"{json.dumps(k, ensure_ascii=False)}: {v}" for k, v in members)
    return "{" + pad + inner + (newline + "  " * depth if newline else " ") + "}"


def _json_values(newline: str) -> st.SearchStrategy[str]:
    leaves = st.one_of(NUMBERS, STRINGS, st.sampled_from(["true", "false", "null"]))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.lists(st.tuples(KEYS, inner), max_size=3, unique_by=lambda kv: kv[0]).map(lambda kv: _object(kv, "", 0)),
        ),
        max_leaves=8,
    )


@st.composite
def json_files(draw: st.DrawFn) -> str:
    newline = draw(st.sampled_from(["\n", "\r\n", ""]))
    members = draw(st.lists(st.tuples(KEYS, _json_values(newline)), max_size=5, unique_by=lambda kv: kv[0]))
    servers = draw(
        st.one_of(
            st.none(),
            st.just("null"),
            st.lists(
                st.tuples(st.sampled_from(["github", "postgres", "memlane"]), st.just('{"command": "npx", "env": {}}')),
                unique_by=lambda kv: kv[0],
                max_size=2,
            ).map(lambda kv: _object(kv, "", 0)),
        )
    )
    if servers is not None:
        members.insert(draw(st.integers(0, len(members))), ("mcpServers", servers))
    return _object(members, newline, 0) + (newline or "")


def _json_with_entry(data: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    servers = out.get("mcpServers") or {}
    out["mcpServers"] = {**servers, "memlane": {**servers.get("memlane", {}), **entry}}
    return out


@SETTINGS
@given(json_files())
def test_json_host_file_round_trip(text: str) -> None:
    data = load_json(text)
    numbers = re.findall(
        r"(?<![\w.\\])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])", re.sub(r'"(?:[^"\\]|\\.)*"', "", text)
    )
    with _home() as where:
        path = claude_desktop_config(where)
        path.parent.mkdir(parents=True)
        path.write_bytes(text.encode())
        first = plan("claude-desktop", "user", where)
        first.apply()
        raw = path.read_bytes()
        after = raw.decode()  # UTF-8: a lone surrogate is written as its escape
        server = where.memlane("mcp")
        assert load_json(after) == _json_with_entry(data, {"command": server[0], "args": server[1:]})
        for number in numbers:  # 1e400 stays 1e400, 0.1000...1 is not rounded
            assert re.search(r"(?<![\w.])" + re.escape(number) + r"(?![\w.])", after), number
        if "\r\n" in text:
            assert raw.count(b"\n") == raw.count(b"\r\n")
        assert not plan("claude-desktop", "user", where).changed
        plan("claude-desktop", "user", where, "uninstall").apply()
        expected = copy.deepcopy(data)
        servers = expected.get("mcpServers")
        if isinstance(servers, dict):
            servers.pop("memlane", None)
        if "mcpServers" in expected and not expected["mcpServers"]:
            del expected["mcpServers"]  # install's container, emptied, goes (null or {} meant no servers)
        final = path.read_text() if path.exists() else "{}"
        assert load_json(final) == expected
        assert not [p for p in path.parent.iterdir() if "memlane-tmp" in p.name]


# -- hooks (Claude Code's settings.json, Codex's hooks.json shape; Cursor's hooks.json)

COMMANDS = st.sampled_from(["echo hi", "~/scripts/memlane-backup.sh hook", "notify-send 'done'", "/usr/bin/audit"])
EVENTS = st.sampled_from(["SessionStart", "PreCompact", "SessionEnd", "Stop", "PreToolUse"])
CLAUDE_HANDLERS = st.lists(
    st.fixed_dictionaries({"type": st.just("command"), "command": COMMANDS}, optional={"timeout": st.integers(1, 600)}),
    max_size=2,
)
CLAUDE_GROUPS = st.lists(
    st.fixed_dictionaries({"hooks": CLAUDE_HANDLERS}, optional={"matcher": st.sampled_from(["startup", "Bash", ""])}),
    max_size=2,
)
CURSOR_HANDLERS = st.lists(st.fixed_dictionaries({"command": COMMANDS}, optional={"timeout": st.integers(1, 60)}))


def _settings(hooks: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    table = st.one_of(st.none(), st.dictionaries(EVENTS.map(str), hooks, max_size=4))
    return st.fixed_dictionaries(
        {}, optional={"hooks": table, "model": st.just("opus"), "version": st.sampled_from([1, 2]), "n": NUMBERS}
    )


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and " -m memlane " in str(handler.get("command"))


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _without_ours(data: dict[str, Any], cursor: bool) -> Any:
    out = copy.deepcopy(data)
    for event, entries in list((out.get("hooks") or {}).items()):
        if cursor:
            out["hooks"][event] = [h for h in entries if not _ours(h)]
        else:
            groups = [{**g, "hooks": [h for h in g["hooks"] if not _ours(h)]} for g in entries]
            out["hooks"][event] = [g for g, old in zip(groups, entries, strict=True) if g["hooks"] or not old["hooks"]]
    return out


@SETTINGS
@given(st.booleans(), st.data())
def test_hook_files_round_trip(cursor: bool, data: st.DataObject) -> None:
    """Install adds memlane's handlers and changes nothing else; uninstall takes exactly those out."""
    before = data.draw(_settings(CURSOR_HANDLERS if cursor else CLAUDE_GROUPS))
    host = "cursor" if cursor else "claude-code"
    text = json.dumps(before, indent=data.draw(st.sampled_from([None, 2])))
    with _home() as where:
        path = where.home / (".cursor/hooks.json" if cursor else ".claude/settings.json")
        path.parent.mkdir(parents=True)
        numbers = {k: v for k, v in before.items() if k == "n"}
        path.write_text(text.replace(json.dumps(before.get("n")), before["n"]) if numbers else text)
        original = load_json(path.read_text())
        plan(host, "user", where).apply()
        installed = load_json(path.read_text())
        ours = [h for entries in installed["hooks"].values() for x in entries for h in (x.get("hooks") or [x])]
        assert sum(_ours(h) for h in ours) == 3  # sessionStart, preCompact, sessionEnd
        extra = {"version"} if cursor and "version" not in original else set()
        assert _pruned(_without_ours(installed, cursor)) == _pruned({**original, **{k: 1 for k in extra}})
        assert not plan(host, "user", where).changed
        plan(host, "user", where, "uninstall").apply()
        final = load_json(path.read_text()) if path.exists() else {}
        if cursor:  # Cursor's schema "version": 1 is install's to add and uninstall's to drop (noted, harmless)
            final, original = ({k: v for k, v in d.items() if (k, v) != ("version", 1)} for d in (final, original))
        assert _pruned(final) == _pruned(original)
