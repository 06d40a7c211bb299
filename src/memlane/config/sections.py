"""The agent-level sections beside ``memorySearch``: compaction (memory flush), core, reflect, backup, mcp, llm
and capture, and the workspace access an agent has."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .base import SettingsModel

WorkspaceAccess = Literal["rw", "ro", "none"]

DEFAULT_FLUSH_SYSTEM_PROMPT = "Session nearing compaction. Store durable memories now."
DEFAULT_FLUSH_PROMPT = (
    "Write any lasting notes to memory/YYYY-MM-DD.md (use memory_write); reply with NO_REPLY if nothing to store."
)


class MemoryFlushSettings(SettingsModel):
    enabled: bool = True
    soft_threshold_tokens: int = Field(4000, ge=0)
    system_prompt: str = DEFAULT_FLUSH_SYSTEM_PROMPT
    prompt: str = DEFAULT_FLUSH_PROMPT


class CoreSettings(SettingsModel):
    """MEMORY.md as the core block an agent keeps in context every session."""

    # Above this the core block warns, and an edit that would grow MEMORY.md past it is refused.
    max_chars: int = Field(5000, ge=1)


_SCHEDULE = re.compile(r"^(?:off|hourly|daily|\d+(?:\.\d+)?\s*[mhd])$")


def schedule_seconds(value: str) -> float | None:
    """A schedule setting's period in seconds: off, hourly, daily, or N minutes/hours/days ("30m", "6h",
    "1d"); None when off. Raises ValueError for anything else."""
    text = value.strip().lower()
    if not _SCHEDULE.match(text):
        raise ValueError("must be off, hourly, daily, or a period such as 30m, 6h, 1d")
    if text == "off":
        return None
    if text in ("hourly", "daily"):
        return 3600.0 if text == "hourly" else 86400.0
    return float(text[:-1].strip()) * {"m": 60, "h": 3600, "d": 86400}[text[-1]]


def _readable_schedule(value: str) -> str:
    schedule_seconds(value)
    return value


Schedule = Annotated[str, AfterValidator(_readable_schedule)]  # read with schedule_seconds()


class ReflectSettings(SettingsModel):
    """``memlane reflect``: entity pages, opinions and MEMORY.md proposals from the facts."""

    # off, hourly, daily, or every N minutes / hours / days ("30m", "6h", "1d"): run by `memlane watch` and start()
    schedule: Schedule = "off"
    since: str = "7d"  # entities with facts this recent get their pages updated
    stale_days: int = Field(30, ge=1)  # an opinion with no evidence for this long is "stale"
    trend_days: int = Field(30, ge=1)  # strengthening / weakening: its confidence now against this long ago
    propose_min_days: int = Field(3, ge=2)  # a fact said on this many different days is proposed for MEMORY.md
    proposal_days: int = Field(90, ge=1)  # ... when its latest statement is this recent


class GitBackupSettings(SettingsModel):
    """``memlane backup``: the memory files committed to the workspace's git repository."""

    schedule: Schedule = "off"  # as reflect.schedule: run by `memlane watch` and start()
    push: bool = False  # push after each scheduled backup
    remote: str = "origin"
    branch: str | None = None  # push HEAD to this branch; default the branch checked out
    after_flush: bool = False  # back up when a memory flush was recorded since the last backup


class BackupSettings(SettingsModel):
    git: GitBackupSettings = GitBackupSettings()


# The hosts an HTTP server (MCP, the web view) may bind without a token, and the token's environment variable.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN_ENV = "MEMLANE_MCP_TOKEN"


class McpHttpSettings(SettingsModel):
    # A bearer token every HTTP request must carry (or MEMLANE_MCP_TOKEN); required to bind beyond loopback.
    token: str | None = None


class McpSettings(SettingsModel):
    http: McpHttpSettings = McpHttpSettings()


class LlmSettings(SettingsModel):
    """The optional LLM that drafts Retain bullets (``memlane retain --llm``): any OpenAI-compatible
    chat-completions endpoint. Key and base URL resolve as the embedding remote's: these settings, then
    ``models.providers.openai``, then OPENAI_API_KEY / OPENAI_BASE_URL."""

    base_url: str | None = None
    api_key: str | None = None
    model: str = "gpt-4o-mini"
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(120, gt=0)
    max_retries: int = Field(3, ge=0)


def _patterns(value: list[str]) -> list[str]:
    for pattern in value:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {pattern!r} ({exc})") from None
    return value


class CaptureSettings(SettingsModel):
    """``memlane capture``: conversation turns -> a session section with Retain bullets in the daily log."""

    llm: bool = False  # draft each capture batch with one call to the `llm` endpoint instead of the offline rules
    exclude: Annotated[list[str], AfterValidator(_patterns)] = Field(default_factory=list)  # a matching turn is skipped
    user_name: str = Field("User", min_length=1, max_length=60)  # who "I" is in an unnamed user's turns
    # a drafted fact whose vector is this close to a fact memory holds about the same entity is a restatement
    duplicate_cosine: float = Field(0.9, gt=0, le=1)
    # at most 3 + 0.37 bullets a turn in one capture, the likeliest to be asked for; false keeps every draft that
    # passes the rules (a person who wants all of it, or a test of durability whose batches kills move)
    budget: bool = True
    # what one capture reads of a transcript, and an export's conversations.json unpacked: past it, a clear error
    max_transcript_bytes: int = Field(256 * 2**20, ge=2**16)
    max_export_bytes: int = Field(256 * 2**20, ge=2**16)


class CompactionSettings(SettingsModel):
    # OpenClaw's compaction has keys of its own (mode, ...): memlane reads memoryFlush and this floor only.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)

    reserve_tokens_floor: int = Field(20_000, ge=0)
    memory_flush: MemoryFlushSettings = MemoryFlushSettings()
