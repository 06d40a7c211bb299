"""memlane: memory for AI agents, as plain Markdown with a rebuildable hybrid search index.

import memlane
with memlane.open("path/to/workspace") as mem:
    mem.sync()
    for r in mem.search("what did we decide about the API keys?").results:
        print(r.path, r.start_line, r.end_line, r.score)
"""

from .capture import CaptureReport, Turn
from .config import AgentConfig, MemorySearchSettings
from .errors import ConfigError, IndexError_, MemlaneError, PathError, ProviderError
from .index.sync import SyncReport
from .memory import Memory
from .memory import open_memory as open
from .search.ranking import SearchResponse, SearchResult
from .surface.tools import run_tool, tool_definitions

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
