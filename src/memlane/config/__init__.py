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

from .base import ENV_DATABASE_URL, ENV_HOME, memlane_home
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
