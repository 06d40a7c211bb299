"""Capture: an agent that just talks still remembers (spec 003's "Mnemonic" direction).

Conversation turns become a section per session in the daily log of their date, with a short digest
and ``## Retain`` bullets a person can read and edit, each saying whose words it came from. Offline
by default; one LLM call per capture batch when ``capture.llm`` is set. ``Memory.capture`` and
``Memory.capture_transcript`` wire it; :class:`Capturer` is the stage's one entry point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..errors import UsageError, quoted
from .exports import EXPORTS
from .formats import FORMATS, detect_format, read_record
from .turns import SPEAKERS, Turn

if TYPE_CHECKING:
    from .pipeline import Capturer, CaptureReport
    from .state import locked_state

__all__ = ["EXPORTS", "FORMATS", "CaptureReport", "Capturer", "Turn", "detect_format", "locked_state", "parse_turns"]


def parse_turns(items: Iterable[Turn | Mapping[str, Any]]) -> list[Turn]:
    """Turns given by a caller (``{role, content, timestamp?, name?}`` objects, or :class:`Turn`), checked:
    a turn without a role or content is a clear error naming it, not a silent skip. A caller gives what the
    person and the agent said ("user" | "assistant"); role "tool" (outside text, which the transcript readers
    keep apart for the drafter's restatement check) is refused here, as ``memory_capture``'s schema says:
    a caller that has tool output leaves it out."""
    out: list[Turn] = []
    for n, item in enumerate(items, 1):
        if isinstance(item, Turn):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise UsageError(f"turn {n}: expected an object with role and content, got {type(item).__name__}")
        role, content = item.get("role"), item.get("content")
        if role not in SPEAKERS:
            raise UsageError(
                f"turn {n}: 'role' must be 'user' or 'assistant', got {quoted(role)} "
                "(tool output and system text are never captured: leave them out)"
            )
        if not isinstance(content, str | list):
            raise UsageError(f"turn {n}: 'content' must be a string or a list of text blocks")
        stamp = item.get("timestamp")
        if stamp is not None and not isinstance(stamp, str | int | float):
            raise UsageError(f"turn {n}: 'timestamp' must be an ISO 8601 string or epoch seconds")
        out.extend(read_record("jsonl", dict(item)).turns)
    return out


_LAZY = {"Capturer": ".pipeline", "CaptureReport": ".pipeline", "locked_state": ".state"}


if not TYPE_CHECKING:  # mypy reads the imports above: a misspelt name stays an error

    def __getattr__(name: str) -> Any:
        """The pipeline (drafting, secrets, the model's callers) and the state (the writer, the config) load on
        first use: the CLI names the formats without them (PEP 562)."""
        if name in _LAZY:
            value = getattr(import_module(_LAZY[name], __name__), name)
            globals()[name] = value
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
