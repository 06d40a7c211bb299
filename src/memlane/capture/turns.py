"""A conversation turn as capture reads it, whatever the host's transcript looked like."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a conversation: who spoke (``role``, and a ``name`` when the transcript gives the
    speaker's name), the text they wrote (tool calls, tool results and thinking already left out by the
    reader) and when, if the transcript says."""

    role: str  # "user" | "assistant"
    content: str
    timestamp: dt.datetime | None = None
    name: str | None = None
