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
from memlane.surface.install import Where, claude_desktop_config, load_json, plan

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
