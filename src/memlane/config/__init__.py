"""Settings: the spec's ``memorySearch`` shape, its defaults, per-agent merging and file loading.

A config file (JSON, or TOML by extension) looks like::

    {"agents": {"defaults": {"workspace": "~/clawd", "memorySearch": {...}},
                "list": [{"id": "peter", "memorySearch": {"provider": "local"}}]}}

Resolution for one agent: built-in defaults <- ``agents.defaults`` <- that agent's entry
in ``agents.list`` <- arguments of the call. Unknown keys and wrong types raise
:class:`~memlane.errors.ConfigError` naming the dotted key.

This module is the package's API: import from ``memlane.config``. Behind it:
``memory_search`` (the ``memorySearch`` models), ``sections`` (compaction, core, reflect, backup, mcp, llm,
capture), ``resolution`` (the file's outer shape, near-miss hints, OpenClaw's keys, the merge), ``files``
(JSON5 / TOML, ``$include``, ``${VAR}``, discovery) and ``base`` (the shared model, ``$MEMLANE_HOME``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .home import ENV_DATABASE_URL, ENV_HOME, memlane_home

if TYPE_CHECKING:
    from .files import openclaw_config
    from .memory_search import (
        DEFAULT_PRICES,
        MAX_ALTERNATIVES,
        BatchSettings,
        CacheSettings,
        ChunkingSettings,
        ExperimentalSettings,
        ExtraPath,
        FeedbackSettings,
        GraphSettings,
        HybridSettings,
        LocalSettings,
        MemorySearchSettings,
        MmrSettings,
        PredicateSpec,
        Price,
        PriorSettings,
        ProviderName,
        QuerySettings,
        RecallSettings,
        RemoteSettings,
        RerankRemoteSettings,
        RerankSettings,
        SessionDeltaSettings,
        SessionSourceSettings,
        StoreSettings,
        SyncSettings,
        VectorSettings,
        glob_alternatives,
    )
    from .resolution import IGNORED_KEYS, AgentConfig, ConfigFile, read_config_file, resolve
    from .resolution import _warned as _warned  # the OpenClaw keys already warned about (tests start from none)
    from .sections import (
        DEFAULT_FLUSH_PROMPT,
        DEFAULT_FLUSH_SYSTEM_PROMPT,
        BackupSettings,
        CaptureSettings,
        CompactionSettings,
        CoreSettings,
        GitBackupSettings,
        LlmSettings,
        McpHttpSettings,
        McpSettings,
        MemoryFlushSettings,
        ReflectSettings,
        Schedule,
        WorkspaceAccess,
        schedule_seconds,
    )

# The settings models (pydantic) load on first use (PEP 562): `memlane_home` is all a starting CLI needs
# (docs/design/capture.md §47).
_LAZY = {
    "openclaw_config": "files",
    "DEFAULT_PRICES": "memory_search",
    "MAX_ALTERNATIVES": "memory_search",
    "BatchSettings": "memory_search",
    "CacheSettings": "memory_search",
    "ChunkingSettings": "memory_search",
    "ExperimentalSettings": "memory_search",
    "ExtraPath": "memory_search",
    "FeedbackSettings": "memory_search",
    "GraphSettings": "memory_search",
    "HybridSettings": "memory_search",
    "LocalSettings": "memory_search",
    "MemorySearchSettings": "memory_search",
    "MmrSettings": "memory_search",
    "PredicateSpec": "memory_search",
    "Price": "memory_search",
    "PriorSettings": "memory_search",
    "ProviderName": "memory_search",
    "QuerySettings": "memory_search",
    "RecallSettings": "memory_search",
    "RemoteSettings": "memory_search",
    "RerankRemoteSettings": "memory_search",
    "RerankSettings": "memory_search",
    "SessionDeltaSettings": "memory_search",
    "SessionSourceSettings": "memory_search",
    "StoreSettings": "memory_search",
    "SyncSettings": "memory_search",
    "VectorSettings": "memory_search",
    "glob_alternatives": "memory_search",
    "IGNORED_KEYS": "resolution",
    "AgentConfig": "resolution",
    "ConfigFile": "resolution",
    "read_config_file": "resolution",
    "resolve": "resolution",
    "_warned": "resolution",
    "DEFAULT_FLUSH_PROMPT": "sections",
    "DEFAULT_FLUSH_SYSTEM_PROMPT": "sections",
    "BackupSettings": "sections",
    "CaptureSettings": "sections",
    "CompactionSettings": "sections",
    "CoreSettings": "sections",
    "GitBackupSettings": "sections",
    "LlmSettings": "sections",
    "McpHttpSettings": "sections",
    "McpSettings": "sections",
    "MemoryFlushSettings": "sections",
    "ReflectSettings": "sections",
    "Schedule": "sections",
    "WorkspaceAccess": "sections",
    "schedule_seconds": "sections",
}


if not TYPE_CHECKING:  # mypy reads the imports above: a misspelt name stays an error

    def __getattr__(name: str) -> Any:
        if name not in _LAZY:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "DEFAULT_FLUSH_PROMPT",
    "DEFAULT_FLUSH_SYSTEM_PROMPT",
    "DEFAULT_PRICES",
    "ENV_DATABASE_URL",
    "ENV_HOME",
    "IGNORED_KEYS",
    "MAX_ALTERNATIVES",
    "AgentConfig",
    "BackupSettings",
    "BatchSettings",
    "CacheSettings",
    "CaptureSettings",
    "ChunkingSettings",
    "CompactionSettings",
    "ConfigFile",
    "CoreSettings",
    "ExperimentalSettings",
    "ExtraPath",
    "FeedbackSettings",
    "GitBackupSettings",
    "GraphSettings",
    "HybridSettings",
    "LlmSettings",
    "LocalSettings",
    "McpHttpSettings",
    "McpSettings",
    "MemoryFlushSettings",
    "MemorySearchSettings",
    "MmrSettings",
    "PredicateSpec",
    "Price",
    "PriorSettings",
    "ProviderName",
    "QuerySettings",
    "RecallSettings",
    "ReflectSettings",
    "RemoteSettings",
    "RerankRemoteSettings",
    "RerankSettings",
    "Schedule",
    "SessionDeltaSettings",
    "SessionSourceSettings",
    "StoreSettings",
    "SyncSettings",
    "VectorSettings",
    "WorkspaceAccess",
    "glob_alternatives",
    "memlane_home",
    "openclaw_config",
    "read_config_file",
    "resolve",
    "schedule_seconds",
]
