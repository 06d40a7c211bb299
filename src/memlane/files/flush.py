"""The pre-compaction memory flush, for agent runtimes.

When a session's token estimate crosses ``contextWindow - reserveTokensFloor - softThresholdTokens``
the runtime should run one silent turn asking the model to write durable notes before the context
is compacted. :func:`plan_flush` decides, returns the two prompts, and records the flush in the
sessions state file (``sessions.json`` in the agent's sessions directory) so that it happens once
per compaction cycle. It is skipped when the workspace is not writable (``workspaceAccess``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..config import AgentConfig
from ..errors import MemlaneError, UsageError
from .writer import exclusive_lock

STATE_FILE = "sessions.json"


@dataclass(frozen=True)
class FlushDecision:
    flush: bool
    reason: str
    threshold: int  # the token count at which a flush is due
    system_prompt: str | None = None  # append to the system prompt for the flush turn
    prompt: str | None = None  # the user-side message of the flush turn

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def flush_threshold(context_window: int, cfg: AgentConfig) -> int:
    """The token count at which a flush is due; 0 when the reserve and the soft threshold leave no room in
    the window (a flush is then never due, as in OpenClaw, rather than due before the first token)."""
    c = cfg.compaction
    return max(0, context_window - c.reserve_tokens_floor - c.memory_flush.soft_threshold_tokens)


def _read_state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise MemlaneError(f"cannot read the sessions state file {path}: {exc}") from None
    return data if isinstance(data, dict) else {}


def plan_flush(
    cfg: AgentConfig,
    state_path: Path,
    session_id: str,
    session_tokens: int,
    context_window: int,
    compaction_count: int = 0,
    record: bool = True,
    today: dt.date | None = None,
) -> FlushDecision:
    """Whether this session should flush memory now; with ``record``, a 'yes' is remembered so the
    same compaction cycle (``compaction_count``) never flushes twice."""
    if not session_id:
        raise UsageError("session_id must be a non-empty string")
    if context_window <= 0 or session_tokens < 0:
        raise UsageError("context_window must be positive and session_tokens not negative")
    settings = cfg.compaction.memory_flush
    threshold = flush_threshold(context_window, cfg)
    if not settings.enabled:
        return FlushDecision(False, "compaction.memoryFlush.enabled is false", threshold)
    if cfg.workspace_access != "rw":
        return FlushDecision(
            False, f"the workspace is not writable (workspaceAccess: {cfg.workspace_access})", threshold
        )
    if threshold == 0:
        c = cfg.compaction
        room = c.reserve_tokens_floor + c.memory_flush.soft_threshold_tokens
        return FlushDecision(
            False,
            f"the context window ({context_window} tokens) leaves no room before compaction: "
            f"compaction.reserveTokensFloor + memoryFlush.softThresholdTokens = {room}; lower them for this model",
            threshold,
        )
    if session_tokens < threshold:
        return FlushDecision(False, f"{session_tokens} tokens, below the flush threshold {threshold}", threshold)
    with exclusive_lock(state_path.with_name("." + state_path.name + ".lock")):
        state = _read_state(state_path)
        found = state.get(session_id)
        entry: dict[str, Any] = found if isinstance(found, dict) else {}
        if entry.get("memoryFlushCompactionCount") == compaction_count:
            return FlushDecision(False, f"already flushed in compaction cycle {compaction_count}", threshold)
        if record:
            state[session_id] = {**entry, "memoryFlushCompactionCount": compaction_count, "memoryFlushAt": time.time()}
            fd, tmp = tempfile.mkstemp(dir=state_path.parent, prefix=".sessions-", suffix=".tmp")
            with os.fdopen(fd, "w") as out:
                json.dump(state, out, indent=2)
            os.replace(tmp, state_path)
    day = (today or dt.date.today()).isoformat()
    return FlushDecision(
        True,
        f"{session_tokens} tokens reached the flush threshold {threshold}",
        threshold,
        settings.system_prompt.replace("YYYY-MM-DD", day),
        settings.prompt.replace("YYYY-MM-DD", day),
    )


def flush_times(state_path: Path) -> list[float]:
    """When memory flushes were recorded (``memoryFlushAt`` of every session in the state file)."""
    try:
        state = _read_state(state_path)
    except MemlaneError:
        return []
    return [
        float(entry["memoryFlushAt"])
        for entry in state.values()
        if isinstance(entry, dict) and isinstance(entry.get("memoryFlushAt"), int | float)
    ]
