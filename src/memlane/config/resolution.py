"""Resolution of one agent's settings: the file's outer shape (OpenClaw's older and current), near-miss key
hints, the OpenClaw keys memlane accepts and ignores, and the merge built-in defaults <- ``agents.defaults`` <- the
agent's entry <- call arguments."""

from __future__ import annotations

import copy
import difflib
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from ..errors import ConfigError
from . import files
from .base import SettingsModel, memlane_home
from .files import deep_merge
from .memory_search import MemorySearchSettings
from .sections import (
    BackupSettings,
    CaptureSettings,
    CompactionSettings,
    CoreSettings,
    LlmSettings,
    McpSettings,
    ReflectSettings,
    WorkspaceAccess,
)


# -- the file's outer shape: only validated loosely here, memorySearch is validated after merging. Keys memlane
# does not own (OpenClaw's model, channels, gateway, heartbeat, ...) are ignored; inside a section memlane owns,
# a mistake is an error naming its key.
class _Outer(SettingsModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class _AgentEntry(_Outer):
    id: str
    default: bool = False
    workspace: str | None = None
    workspace_access: WorkspaceAccess | None = None
    compaction: dict[str, Any] | None = None
    core: dict[str, Any] | None = None
    reflect: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    llm: dict[str, Any] | None = None
    backup: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    memory_search: dict[str, Any] | None = None


class _AgentDefaults(_Outer):
    workspace: str | None = None
    workspace_access: WorkspaceAccess = "rw"
    compaction: dict[str, Any] | None = None
    core: dict[str, Any] | None = None
    reflect: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    llm: dict[str, Any] | None = None
    backup: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    memory_search: dict[str, Any] | None = None


class _Agents(_Outer):
    defaults: _AgentDefaults = _AgentDefaults()
    entries: list[_AgentEntry] = Field(default_factory=list, alias="list")


class _ProviderEntry(_Outer):
    api_key: str | None = None
    base_url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class _Models(_Outer):
    providers: dict[str, _ProviderEntry] = Field(default_factory=dict)


class ConfigFile(_Outer):
    agents: _Agents = _Agents()
    models: _Models = _Models()


class AgentConfig(BaseModel):
    """Everything memlane needs for one agent, after merging."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    workspace: Path | None
    memory_search: MemorySearchSettings
    workspace_access: WorkspaceAccess = "rw"  # ro: reads only (no writes, no flush); none: tools disabled
    compaction: CompactionSettings = CompactionSettings()
    core: CoreSettings = CoreSettings()
    reflect: ReflectSettings = ReflectSettings()
    llm: LlmSettings = LlmSettings()
    capture: CaptureSettings = CaptureSettings()
    backup: BackupSettings = BackupSettings()
    mcp: McpSettings = McpSettings()
    providers: dict[str, _ProviderEntry] = Field(default_factory=dict)


def _format_validation(err: ValidationError, prefix: str) -> str:
    parts = []
    for item in err.errors():
        loc = ".".join(str(p) for p in item["loc"] if p != "__root__")
        where = f"{prefix}.{loc}" if loc else prefix
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


_S = TypeVar("_S", bound=BaseModel)


def _section(model: type[_S], name: str, defaults: Mapping[str, Any] | None, agent: Mapping[str, Any] | None) -> _S:
    """An agent-level settings section: defaults <- the agent's entry, validated with errors naming the key."""
    try:
        return model.model_validate(deep_merge(defaults or {}, agent or {}))
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, name)}") from None


def _keys(model: type[BaseModel]) -> set[str]:
    return {f.alias or name for name, f in model.model_fields.items()}


def _near_misses(data: Mapping[str, Any]) -> None:
    """Keys memlane does not own are ignored (an OpenClaw config has many), except one spelled almost like a
    key memlane reads at the same place (``agents.default``, ``memorySerach``): that is a mistake, named."""

    def check(obj: Any, known: set[str], where: str) -> None:
        if not isinstance(obj, Mapping):
            return
        for key in obj:
            if key in known or not isinstance(key, str):
                continue
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.8)
            if close:
                raise ConfigError(f"invalid config: {where}.{key}: not a key memlane reads; did you mean {close[0]!r}?")

    check(data, _keys(ConfigFile), "config")
    agents = data.get("agents")
    check(agents, _keys(_Agents), "config.agents")
    if isinstance(agents, Mapping):
        check(agents.get("defaults"), _keys(_AgentDefaults), "config.agents.defaults")
        listed = agents.get("list")
        for i, entry in enumerate(listed if isinstance(listed, list) else []):
            check(entry, _keys(_AgentEntry), f"config.agents.list[{i}]")


# memorySearch keys OpenClaw has gained since the spec that memlane accepts and does not act on (README,
# "Configuration"): each is named once per process in a warning.
IGNORED_KEYS = (
    "rememberAcrossConversations",
    "qmd",
    "multimodal",
    "inputType",
    "queryInputType",
    "documentInputType",
    "remote.nonBatchConcurrency",
    "store.fts",
    "sync.embeddingBatchTimeoutSeconds",
    "sync.sessions.postCompactionForce",
    "query.hybrid.temporalDecay",
)
_warned: set[str] = set()
log = logging.getLogger("memlane")


def _openclaw_keys(ms: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw's newer memorySearch keys: ``outputDimensionality`` is ``remote.dimensions``; the keys of
    :data:`IGNORED_KEYS` are dropped with a warning, once per process."""
    ms = copy.deepcopy(dict(ms))  # popped from below: never the parsed config's own dicts
    if "outputDimensionality" in ms and isinstance(ms.get("remote") or {}, Mapping):
        ms["remote"] = deep_merge(ms.get("remote") or {}, {"dimensions": ms.pop("outputDimensionality")})
    for dotted in IGNORED_KEYS:
        *parents, last = dotted.split(".")
        node: Any = ms
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            node.pop(last)
            _warn_once(f"memorySearch.{dotted}")
    return ms


def _warn_once(key: str) -> None:
    if key not in _warned:
        _warned.add(key)
        log.warning("config: %s is an OpenClaw setting memlane accepts and ignores", key)


def _current_shape(data: Mapping[str, Any]) -> dict[str, Any]:
    """OpenClaw 2026.8+ keeps memory search at top-level ``memory.search`` and agents in ``agents.entries`` (an
    object keyed by id, ``default`` retired: a single agent is the default); older configs have
    ``agents.defaults.memorySearch`` (or a top-level ``memorySearch``) and ``agents.list[]``. Both are read as
    the older shape. With both ``entries`` and ``list``, ``entries`` wins, as OpenClaw's own migration does."""
    out = dict(data)
    agents = out.get("agents")
    agents = dict(agents) if isinstance(agents, Mapping) else {}
    memory = out.get("memory")
    search = memory.get("search") if isinstance(memory, Mapping) else None
    top = out.pop("memorySearch", None)
    if (isinstance(search, Mapping) or isinstance(top, Mapping)) and isinstance(agents.get("defaults") or {}, Mapping):
        defaults = dict(agents.get("defaults") or {})
        ms = deep_merge(defaults.get("memorySearch") or {}, top if isinstance(top, Mapping) else {})
        defaults["memorySearch"] = deep_merge(ms, search if isinstance(search, Mapping) else {})
        agents["defaults"] = defaults
    entries = agents.pop("entries", None)
    if isinstance(entries, Mapping):
        listed: list[dict[str, Any]] = []
        for agent_id, entry in entries.items():
            if not isinstance(entry, Mapping):
                raise ConfigError(f"invalid config: config.agents.entries.{agent_id}: not an object")
            e = dict(entry)
            e["id"] = agent_id
            own = e.pop("memory", None)
            if isinstance(own, Mapping) and isinstance(own.get("search"), Mapping):
                e["memorySearch"] = deep_merge(e.get("memorySearch") or {}, own["search"])
            listed.append(e)
        if len(listed) == 1 and "default" not in listed[0]:
            listed[0]["default"] = True
        agents["list"] = listed
    if agents or "agents" in out:
        out["agents"] = agents
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    """A config file: JSON5 (JSON included) or TOML, ``$include`` followed, ``${VAR}`` substituted."""
    return files.read(path)


def resolve(
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    agent: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> AgentConfig:
    """Resolve one agent's settings from a config file path, a mapping, or the one discovered
    (:func:`memlane.config.files.discover`: memlane's own, else OpenClaw's).

    ``agent`` None: the ``agents.list`` entry with ``default: true``, else ``main``. ``overrides`` is a
    ``memorySearch``-shaped mapping applied last (call arguments).
    """
    found: files.Found | None
    if config is None:
        found = files.discover(memlane_home())
        data = read_config_file(found.path) if found is not None and found.path.exists() else {}
    elif isinstance(config, Mapping):
        found, data = None, dict(config)
    else:
        found = files.kind_of(Path(config).expanduser())
        data = read_config_file(found.path)

    data = _current_shape(data)
    _near_misses(data)
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, 'config')}") from None

    if agent is None:
        agent = next((e.id for e in parsed.agents.entries if e.default), "main")
    entry = next((e for e in parsed.agents.entries if e.id == agent), None)
    merged: dict[str, Any] = {}
    if found is not None and found.openclaw and found.state_dir is not None:
        # OpenClaw keeps each agent's session transcripts in its state folder
        merged = {"sessions": {"dir": str(found.state_dir / "agents" / "{agentId}" / "sessions")}}
    merged = deep_merge(merged, parsed.agents.defaults.memory_search or {})
    if entry is not None:
        merged = deep_merge(merged, entry.memory_search or {})
    merged = deep_merge(merged, overrides or {})
    merged = _openclaw_keys(merged)
    try:
        settings = MemorySearchSettings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, 'memorySearch')}") from None

    workspace = (entry.workspace if entry and entry.workspace else None) or parsed.agents.defaults.workspace
    compaction = _section(
        CompactionSettings, "compaction", parsed.agents.defaults.compaction, entry.compaction if entry else None
    )
    core = _section(CoreSettings, "core", parsed.agents.defaults.core, entry.core if entry else None)
    reflect = _section(ReflectSettings, "reflect", parsed.agents.defaults.reflect, entry.reflect if entry else None)
    llm = _section(LlmSettings, "llm", parsed.agents.defaults.llm, entry.llm if entry else None)
    capture = _section(CaptureSettings, "capture", parsed.agents.defaults.capture, entry.capture if entry else None)
    backup = _section(BackupSettings, "backup", parsed.agents.defaults.backup, entry.backup if entry else None)
    mcp = _section(McpSettings, "mcp", parsed.agents.defaults.mcp, entry.mcp if entry else None)
    access = (entry.workspace_access if entry else None) or parsed.agents.defaults.workspace_access
    return AgentConfig(
        agent_id=agent,
        workspace=Path(workspace).expanduser() if workspace else None,
        memory_search=settings,
        workspace_access=access,
        compaction=compaction,
        core=core,
        reflect=reflect,
        llm=llm,
        capture=capture,
        backup=backup,
        mcp=mcp,
        providers=dict(parsed.models.providers),
    )
