"""memlane: memory for AI agents, as plain Markdown with a rebuildable hybrid search index.

import memlane
with memlane.open("path/to/workspace") as mem:
    mem.sync()
    for r in mem.search("what did we decide about the API keys?").results:
        print(r.path, r.start_line, r.end_line, r.score)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, IndexError_, MemlaneError, PathError, ProviderError

if TYPE_CHECKING:
    from .capture import CaptureReport, Turn
    from .config import AgentConfig, MemorySearchSettings
    from .index.sync import SyncReport
    from .memory import Memory
    from .memory import open_memory as open
    from .search.ranking import SearchResponse, SearchResult
    from .surface.tools import run_tool, tool_definitions

# Loaded on first use (PEP 562): `import memlane` and the CLI's start cost only what they touch, so a host's
# hook that hands its work to a process of its own returns before the model, numpy and the index code load
# (docs/design/capture.md §47).
_LAZY = {
    "CaptureReport": ("capture", "CaptureReport"),
    "Turn": ("capture", "Turn"),
    "AgentConfig": ("config", "AgentConfig"),
    "MemorySearchSettings": ("config", "MemorySearchSettings"),
    "SyncReport": ("index.sync", "SyncReport"),
    "Memory": ("memory", "Memory"),
    "open": ("memory", "open_memory"),
    "SearchResponse": ("search.ranking", "SearchResponse"),
    "SearchResult": ("search.ranking", "SearchResult"),
    "run_tool": ("surface.tools", "run_tool"),
    "tool_definitions": ("surface.tools", "tool_definitions"),
}


if not TYPE_CHECKING:  # mypy reads the imports above: a misspelt name stays an error

    def __getattr__(name: str) -> Any:
        if name in _LAZY:
            module, attr = _LAZY[name]
            value = getattr(import_module(f".{module}", __name__), attr)
        elif not name.startswith("_") and name.isidentifier():
            try:  # a subpackage, as `import memlane` made every one an attribute before it was lazy
                value = import_module(f".{name}", __name__)
            except ModuleNotFoundError as exc:
                if exc.name != f"{__name__}.{name}":
                    raise
                raise AttributeError(f"module 'memlane' has no attribute {name!r}") from None
        else:
            raise AttributeError(f"module 'memlane' has no attribute {name!r}")
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AgentConfig",
    "CaptureReport",
    "ConfigError",
    "IndexError_",
    "MemlaneError",
    "Memory",
    "MemorySearchSettings",
    "PathError",
    "ProviderError",
    "SearchResponse",
    "SearchResult",
    "SyncReport",
    "Turn",
    "open",
    "run_tool",
    "tool_definitions",
]
__version__ = "0.1.0"
