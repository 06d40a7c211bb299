"""memlane's exceptions.

MemlaneError           anything else memlane refuses on purpose: a file it cannot read or write, a host's config
 │                      it will not edit (the message says what to do)
 ├── UsageError         an argument is missing, malformed or out of range: the caller fixes the call
 ├── NotFoundError      what was asked for is not there: an entity, a passage to replace, a history to import
 ├── AccessError        this agent's configuration refuses it (workspaceAccess, memorySearch.enabled)
 ├── ConfigError        a config file or value is wrong (names the key)
 ├── PathError          a path is not a memory file of the workspace, or does not exist
 ├── ProviderError      an embedding provider could not be set up or failed
 └── IndexError_        the index could not be opened, built or read: rebuild it (`memlane index --force`)

Every message says what went wrong and, where there is one, what to do about it.
The CLI turns these into one line on stderr and a non-zero exit; the agent tools
turn them into ``{"error": ...}`` payloads.
"""

from __future__ import annotations


def quoted(value: object, width: int = 40, keep: int = 30) -> str:
    """A user's ``value`` for an error line: its repr, or when longer than ``width`` characters its first
    ``keep`` and how long it was (a pasted file must not become a thousand-line message)."""
    text = str(value)
    return repr(value) if len(text) <= width else f"{text[:keep]!r}... ({len(text)} characters)"


class MemlaneError(Exception):
    """Base class for every error memlane raises on purpose."""


class UsageError(MemlaneError):
    """An argument is missing, malformed or out of range (the CLI's usage mistakes and a tool call's bad input)."""


class NotFoundError(MemlaneError):
    """What was asked for is not there: an entity, a passage to replace, something to import."""


class AccessError(MemlaneError):
    """This agent's configuration refuses the operation (``workspaceAccess``, ``memorySearch.enabled``)."""


class ConfigError(MemlaneError):
    """A configuration value is missing, unknown or of the wrong type."""


class PathError(MemlaneError):
    """A path is outside the memory files, unsafe, or missing."""


class ProviderError(MemlaneError):
    """An embedding provider could not be loaded or did not answer correctly."""


class IndexError_(MemlaneError):
    """The index could not be opened, built or read."""


# The most results, facts or budget tokens one call may ask for: more is a slip (and SQLite's integers end
# at 2**63, which a candidate pool of k x the multiplier would pass). Here, on the lowest floor, because the
# CLI's options name it too, and the CLI starts without loading the library (docs/design/capture.md §47).
MAX_COUNT = 1_000_000


def check_count(name: str, value: int) -> None:
    if not 1 <= value <= MAX_COUNT:
        raise UsageError(f"{name} must be between 1 and {MAX_COUNT:,}, got {str(value)[:40]}")
