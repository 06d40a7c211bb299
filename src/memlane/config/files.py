"""Reading a config file as OpenClaw writes one, and finding it when no ``--config`` is given.

OpenClaw's ``openclaw.json`` is JSON5 (comments, trailing commas, unquoted keys), substitutes ``${VAR}`` from
the environment in string values (``$${VAR}`` is a literal ``${VAR}``; names are upper case) and splits
itself with ``$include``: an object holding ``"$include": "path"`` (or a list of paths, relative to the file
that includes them, and inside the top-level config's folder or ``$OPENCLAW_INCLUDE_ROOTS``) is the included
files merged in order, with the object's own keys over them; as in OpenClaw, objects merge key by key and
arrays are concatenated.
memlane reads its own ``config.json`` the same way (JSON is JSON5) and ``config.toml`` with ``tomllib``.

An unset variable is an error only where memlane reads the value (:func:`owned`): an OpenClaw config full of
``${TELEGRAM_TOKEN}`` for channels memlane never reads still opens.

Discovery (:func:`discover`): memlane's own config (``$MEMLANE_HOME/config.json`` or ``.toml``), else
``$OPENCLAW_CONFIG_PATH``, else ``openclaw.json`` in OpenClaw's state folder (``$OPENCLAW_STATE_DIR``, else
``~/.openclaw``).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import json5

from ..errors import ConfigError

MAX_INCLUDE_DEPTH = 10
MAX_CONFIG_BYTES = 2 * 1024 * 1024  # OpenClaw's limit per file; a bigger one is a mistake, not a config
_VAR = re.compile(r"\$(\$?)\{([A-Z_][A-Z0-9_]*)\}")
# The values memlane reads: an unset ${VAR} there is an error; anywhere else it is left as written.
_OWNED = re.compile(
    r"^config\.(?:agents\.(?:defaults|list\[\d+\]|entries\.[^.\[]+)\.(?:memorySearch|memory\.search|"
    r"compaction\.memoryFlush|workspace|workspaceAccess|core|reflect|capture|llm|backup|mcp)|memorySearch|memory\.search|"
    r"models\.providers\.[^.]+\.(?:apiKey|baseUrl|headers))(?:[.\[]|$)"
)
MAX_INCLUDES = 200  # files one config may load in all: includes fanning out are refused, not followed for ever


@dataclass(frozen=True)
class Found:
    """A config file and what kind: memlane's own, or OpenClaw's (whose state folder holds its agents' sessions)."""

    path: Path
    openclaw: bool = False
    state_dir: Path | None = None


def openclaw_config(home: Path | None = None) -> Found:
    """OpenClaw's config file: ``$OPENCLAW_CONFIG_PATH`` (set: that file, never a guess elsewhere), else
    ``openclaw.json`` in ``$OPENCLAW_STATE_DIR``, else in ``<home>/.openclaw``."""
    raw = os.environ.get("OPENCLAW_CONFIG_PATH")
    path = Path(raw).expanduser() if raw else _state_dir(home) / "openclaw.json"
    return _openclaw(path)


def _state_dir(home: Path | None) -> Path:
    raw = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(raw).expanduser() if raw else (home or Path.home()) / ".openclaw"


def _openclaw(path: Path) -> Found:
    """``path`` as OpenClaw's config: its state folder is ``$OPENCLAW_STATE_DIR``, else the file's folder."""
    return Found(path, True, _state_dir(None) if os.environ.get("OPENCLAW_STATE_DIR") else path.parent)


def discover(memlane_home: Path) -> Found | None:
    """The config to read when none is given (see the module docstring); None when there is none."""
    for name in ("config.json", "config.toml"):
        if (memlane_home / name).exists():
            return Found(memlane_home / name)
    found = openclaw_config()
    return found if os.environ.get("OPENCLAW_CONFIG_PATH") or found.path.exists() else None


def kind_of(path: Path) -> Found:
    """A config file given by path: OpenClaw's when it is named like one (``openclaw.json``, ``.json5``)."""
    return _openclaw(path) if path.name.lower() in ("openclaw.json", "openclaw.json5") else Found(path)


def read(path: Path, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The config at ``path``, includes followed and variables substituted."""
    env = os.environ if env is None else env
    data = _load(path)
    missing: list[tuple[str, str]] = []
    extra = env.get("OPENCLAW_INCLUDE_ROOTS", "").split(os.pathsep)
    roots = [path.resolve().parent] + [Path(p).expanduser().resolve() for p in extra if p]
    loads = [0]
    try:
        out = _expand(data, path, env, (path.resolve(),), "config", missing, roots, loads)
    except RecursionError:
        raise ConfigError(f"config file {path} nests too deep") from None
    for where, name in missing:
        if owned(where):
            raise ConfigError(f"invalid config: {where}: environment variable {name} is not set ({path})")
    if not isinstance(out, dict):
        raise ConfigError(f"config file {path}: the top level must be an object")
    return out


def owned(where: str) -> bool:
    """Whether memlane reads the value at ``where`` (``config.agents.defaults.memorySearch.remote.apiKey``)."""
    return bool(_OWNED.match(where))


def _load(path: Path) -> Any:
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {path} is over {MAX_CONFIG_BYTES // (1024 * 1024)} MB")
    try:
        text = raw.decode("utf-8-sig")
        if path.suffix == ".toml":
            return tomllib.loads(text)
        return json5.loads(text) if text.strip() else {}
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        kind = "TOML" if path.suffix == ".toml" else "JSON5"
        raise ConfigError(f"config file {path} is not valid {kind}: {exc}") from None


def _expand(
    node: Any,
    path: Path,
    env: Mapping[str, str],
    stack: tuple[Path, ...],
    where: str,
    missing: list[tuple[str, str]],
    roots: list[Path],
    loads: list[int],
) -> Any:
    if isinstance(node, dict):
        own = {
            k: _expand(v, path, env, stack, f"{where}.{k}", missing, roots, loads)
            for k, v in node.items()
            if k != "$include"
        }
        if "$include" not in node:
            return own
        merged: dict[str, Any] = {}
        for target in _targets(node["$include"], where, path):
            included = (path.parent / target).expanduser().resolve()
            if not any(included == r or r in included.parents for r in roots):
                raise ConfigError(
                    f"config {where}.$include: {target} escapes the config's folder (add its folder to "
                    "OPENCLAW_INCLUDE_ROOTS to allow it)"
                )
            if included in stack:
                chain = " -> ".join(str(p) for p in (*stack, included))
                raise ConfigError(f"config {where}.$include: circular include: {chain}")
            if len(stack) > MAX_INCLUDE_DEPTH:
                raise ConfigError(f"config {where}.$include: includes nest deeper than {MAX_INCLUDE_DEPTH}")
            loads[0] += 1
            if loads[0] > MAX_INCLUDES:
                raise ConfigError(f"config {where}.$include: more than {MAX_INCLUDES} files included in all")
            sub = _expand(_load(included), included, env, (*stack, included), where, missing, roots, loads)
            if not isinstance(sub, dict):
                raise ConfigError(f"config {where}.$include: {included} must hold an object")
            merged = include_merge(merged, sub)
        return include_merge(merged, own)
    if isinstance(node, list):
        return [_expand(v, path, env, stack, f"{where}[{i}]", missing, roots, loads) for i, v in enumerate(node)]
    if isinstance(node, str) and "${" in node:

        def sub(m: re.Match[str]) -> str:
            name = m.group(2)
            if m.group(1):  # $${VAR}: the text ${VAR} itself
                return "${" + name + "}"
            value = env.get(name)
            if not value:
                missing.append((where, name))
                return m.group(0)
            return value

        return _VAR.sub(sub, node)
    return node


def _targets(value: Any, where: str, path: Path) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"config {where}.$include ({path}): a path or a list of paths")


def include_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """OpenClaw's merge of included files: objects key by key, arrays concatenated, anything else replaced."""
    merged = dict(base)
    for key, value in over.items():
        old = merged.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            merged[key] = include_merge(old, value)
        elif isinstance(value, list) and isinstance(old, list):
            merged[key] = [*old, *value]
        else:
            merged[key] = value
    return merged


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on ``base``: objects merge key by key, anything else (arrays too) is replaced."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged
