"""Readers of the hosts' transcripts and the vendors' exports: each record -> what the person and the agent
said, and the outside text the conversation carried, nothing else.

The person's and the agent's turns (role "user" / "assistant") keep only what they wrote: tool calls,
thinking, system and developer messages and what a host injects (:mod:`memlane.capture.hosts`, one table)
are dropped. Tool results, pages fetched and files read are kept apart as role "tool" turns (outside text,
at most :data:`~memlane.capture.turns.TOOL_TEXT_MAX` characters each): never drafted, only there so the
drafter can recognise an agent restating them. Text from tools, files or web pages must never become memory
a later session trusts.

The fields each reader depends on (a host that renames one of them fails here, loudly, in one place):

``claude-code`` (``~/.claude/projects/<project>/<session>.jsonl``)
    ``type`` ("user" | "assistant"; ``permission-mode``, ``file-history-snapshot``, ``attachment``,
    ``last-prompt``, ``queue-operation``, ``system``, ``progress``, titles and the rest give no turn),
    ``message.role``, ``message.content`` (a string, or blocks: ``text`` read, ``tool_result`` outside
    text), ``timestamp``, ``sessionId``, ``cwd``; a record with ``isSidechain``, ``isMeta``,
    ``isCompactSummary`` or ``isVisibleInTranscriptOnly`` true is skipped.
``codex`` (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``)
    The current layout ``{timestamp, type, payload}``: ``session_meta.payload.id``/``cwd``, and
    ``response_item`` records whose ``payload.type`` is "message" with ``payload.role`` user | assistant
    and ``payload.content`` blocks ``input_text`` | ``output_text``; ``function_call_output`` /
    ``custom_tool_call_output`` are outside text. ``event_msg`` records repeat the same words and are not
    read. An assistant message whose ``payload.phase`` is "commentary" (rollouts from early 2026 on) is the
    agent's running narration while it works, which its ``final_answer`` then reports: a
    :attr:`~memlane.capture.turns.Turn.narration` turn. The older layout (Sept 2025): a first record ``{id,
    timestamp, instructions, git}``, then bare ``message`` / ``reasoning`` / ``function_call`` items without a
    ``payload``, and ``{"record_type": "state"}`` lines.
``openclaw`` (``~/.openclaw/agents/<id>/sessions/*.jsonl``; pi's session format)
    ``{type: "session", id, cwd}`` first, then ``{type: "message", timestamp, message: {role, content}}``
    with ``role`` user | assistant read, ``toolResult`` outside text, and ``text`` blocks (``toolCall``
    and ``thinking`` skipped); ``model_change``, ``custom``, ``compaction`` and the rest give no turn.
``aider`` (``.aider.chat.history.md``, told by its ``# aider chat started at`` header, not its name)
    See :func:`read_aider`.
``jsonl`` (anything else that writes one message per line)
    ``{role, content, timestamp?, name?}`` with ``content`` a string or ``text`` blocks and ``timestamp``
    ISO 8601 or epoch seconds (or milliseconds); role "tool" is outside text.

Exports (ChatGPT, claude.ai) are read by :mod:`memlane.capture.exports`, with the turn helpers here.

A record that is not what its reader expects gives no turn (never an exception): a transcript is
read as it is being written, and one odd line must not stop capture. A record that cannot be read (not
JSON, nested deeper than the parser goes, a time that is no time) gives no turn and is counted
(``unreadableLines``). An export that is not the kind asked for is a :class:`FormatError` that says which
kind it looks like; one over ``capture.maxExportBytes`` or packed in a way zipfile cannot unpack is one too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import MemlaneError
from . import hosts
from .turns import SPEAKERS, TOOL_TEXT_MAX, Turn, normalize_breaks

FORMATS = ("claude-code", "codex", "openclaw", "aider", "jsonl")


class FormatError(MemlaneError):
    """A transcript or export is not in the format asked for, or in none memlane reads."""


@dataclass
class RecordInfo:
    """What one transcript record holds for capture: its turns (often none), and the session id and
    working directory when the record names them."""

    turns: list[Turn] = field(default_factory=list)
    session: str | None = None
    cwd: str | None = None
    unreadable: bool = False  # a record that cannot be read: no turn, counted


@dataclass
class Conversation:
    """One conversation of a vendor's export, its turns oldest first."""

    id: str
    title: str
    turns: list[Turn]
    started: dt.datetime | None = None
    unreadable: int = 0  # messages (or whole conversations) that could not be read: left out, counted


# --- turns: what a person or the agent said, and the outside text the conversation carried --------------


class Unreadable(Exception):
    """A record that is a record but cannot be read (a time that is no time): no turn, counted."""


def strip_injected(text: str) -> str:
    """``text`` as the person wrote it: the hosts' injected text taken away (:func:`hosts.clean`)."""
    return hosts.clean("user", text)


def blocks_text(content: Any, kinds: Sequence[str] = ("text",)) -> str:
    """The text of a message's content: a string, or the ``text`` of its blocks of ``kinds``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") in kinds]
    return "\n".join(p for p in parts if isinstance(p, str))


def _within_range(stamp: dt.datetime) -> dt.datetime | None:
    """``stamp`` when it can be told in UTC and in local time (capture files a turn by its local day)."""
    try:
        stamp.astimezone(dt.UTC)
        stamp.astimezone()
    except (OverflowError, ValueError, OSError):
        return None
    return stamp


def parse_timestamp(value: Any) -> dt.datetime | None:
    """ISO 8601 (``Z`` or an offset: aware; none: local) or epoch seconds / milliseconds (aware, UTC); None
    for anything else, and for a time that cannot be told in UTC or local time (year 1 at +01:00)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return _within_range(dt.datetime.fromtimestamp(seconds, dt.UTC))
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and 0 < len(value) <= 64:
        try:
            return _within_range(dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _stamp(value: Any) -> dt.datetime | None:
    """A turn's time: none when the record gives none; a record whose time is not a time is unreadable (dated
    "now" it would land in the wrong day's log)."""
    if value is None or value == "":
        return None
    stamp = parse_timestamp(value)
    if stamp is None:
        raise Unreadable
    return stamp


def spoken_turn(role: Any, text: str, stamp: Any, name: Any = None, *, narration: bool = False) -> list[Turn]:
    if role not in SPEAKERS:
        return []
    text = hosts.clean(role, normalize_breaks(text))
    if not text:
        return []
    name = name if isinstance(name, str) and name.strip() else None
    return [Turn(role, text, _stamp(stamp), name, narration=narration and role == "assistant")]


def tool_turn(text: Any, stamp: Any) -> list[Turn]:
    """Outside text (a tool's result, a page, a file read): kept as a "tool" turn, at most
    :data:`TOOL_TEXT_MAX` characters, so the drafter can tell an agent's restatement of it; never drafted."""
    if not isinstance(text, str) or not text.strip():
        return []
    return [Turn("tool", text[:TOOL_TEXT_MAX].strip(), _stamp(stamp))]


def tool_text(content: Any) -> str:
    """A tool result's text: a string, text blocks, or blocks nesting either (Claude Code's ``tool_result``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for b in content:
        if isinstance(b, str):
            parts.append(b)
        elif isinstance(b, dict) and isinstance(b.get("text"), str):
            parts.append(b["text"])
        elif isinstance(b, dict) and isinstance(b.get("content"), str | list) and b.get("type") == "tool_result":
            parts.append(tool_text(b["content"]) if isinstance(b["content"], list) else b["content"])
    return "\n".join(parts)


def nonempty(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --- transcripts: one record at a time ----------------------------------------------------------------


_CC_SKIP = ("isSidechain", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly")


def _claude_code(record: Mapping[str, Any]) -> RecordInfo:
    info = RecordInfo(session=nonempty(record.get("sessionId")), cwd=nonempty(record.get("cwd")))
    if record.get("type") not in SPEAKERS or any(record.get(k) for k in _CC_SKIP):
        return info
    message = record.get("message")
    if not isinstance(message, dict):
        return info
    content, stamp = message.get("content"), record.get("timestamp")
    if isinstance(content, list):
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        for b in results:
            info.turns += tool_turn(tool_text(b.get("content")), stamp)
    info.turns += spoken_turn(message.get("role"), blocks_text(content), stamp)
    return info


_CODEX_TEXT = ("input_text", "output_text", "text")
_CODEX_OUTPUT = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def _codex_output(output: Any) -> Any:
    """A tool call's output: a string, or (custom tools) JSON holding ``{"output": ...}``."""
    if isinstance(output, dict):
        output = output.get("output", output.get("content"))
    if isinstance(output, str) and output.startswith('{"output"'):
        try:
            inner = json.loads(output)
        except (ValueError, RecursionError):
            return output
        return inner.get("output") if isinstance(inner, dict) else output
    return output


def _codex(record: Mapping[str, Any]) -> RecordInfo:
    kind = record.get("type")
    payload = record.get("payload")
    if kind == "session_meta" and isinstance(payload, dict):
        return RecordInfo(session=nonempty(payload.get("id")), cwd=nonempty(payload.get("cwd")))
    if kind == "response_item" and isinstance(payload, dict):
        item, stamp = payload, record.get("timestamp")
    elif kind in ("message", *_CODEX_OUTPUT) and "payload" not in record:  # the older layout: bare items
        item, stamp = dict(record), record.get("timestamp")
    elif "instructions" in record and isinstance(record.get("id"), str):  # the older layout's first record
        return RecordInfo(session=record["id"])
    else:
        return RecordInfo()
    if item.get("type") in _CODEX_OUTPUT:
        return RecordInfo(tool_turn(_codex_output(item.get("output")), stamp))
    if item.get("type") != "message":
        return RecordInfo()
    text = blocks_text(item.get("content"), _CODEX_TEXT)
    return RecordInfo(spoken_turn(item.get("role"), text, stamp, narration=item.get("phase") == "commentary"))


def _openclaw(record: Mapping[str, Any]) -> RecordInfo:
    kind = record.get("type")
    if kind == "session":
        return RecordInfo(session=nonempty(record.get("id")), cwd=nonempty(record.get("cwd")))
    message = record.get("message")
    if kind != "message" or not isinstance(message, dict):
        return RecordInfo()
    stamp = record.get("timestamp") or message.get("timestamp")
    if message.get("role") == "toolResult":
        return RecordInfo(tool_turn(tool_text(message.get("content")), stamp))
    return RecordInfo(spoken_turn(message.get("role"), blocks_text(message.get("content")), stamp))


def _generic(record: Mapping[str, Any]) -> RecordInfo:
    inner = record.get("message")
    msg: Mapping[str, Any] = inner if isinstance(inner, dict) and "role" not in record else record
    stamp = record.get("timestamp", msg.get("timestamp"))
    if msg.get("role") == "tool":
        return RecordInfo(tool_turn(tool_text(msg.get("content")), stamp))
    return RecordInfo(spoken_turn(msg.get("role"), blocks_text(msg.get("content")), stamp, msg.get("name")))


_READERS = {"claude-code": _claude_code, "codex": _codex, "openclaw": _openclaw, "jsonl": _generic}


def read_record(fmt: str, record: Any) -> RecordInfo:
    """The turns (and session id, working directory) of one transcript record in ``fmt``. Never raises
    on a record's content: anything unexpected gives no turn, and a record that cannot be read (a time
    that is no time, nesting past the interpreter's depth) is marked ``unreadable``."""
    reader = _READERS.get(fmt)
    if reader is None:
        raise FormatError(f"unknown transcript format {fmt!r}; one of {', '.join(FORMATS)}")
    if not isinstance(record, dict):
        return RecordInfo()
    try:
        return reader(record)
    except (Unreadable, RecursionError):
        return RecordInfo(unreadable=True)


def load_record(line: bytes) -> Any:
    """One JSONL line parsed; raises ValueError for a line that is not JSON or nests too deep to parse."""
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("nested too deep") from None


_AIDER_HEAD = re.compile(rb"^# aider chat started at \d{4}-\d\d-\d\d", re.M)


def sniff(head: bytes) -> str | None:
    """A format told by its text rather than its records: Aider's chat history (Markdown, whatever its name)."""
    return "aider" if _AIDER_HEAD.search(head[: 1 << 16]) else None


def detect_format(records: Sequence[Any]) -> str:
    """The format of a transcript from its first records."""
    for r in records:
        if not isinstance(r, dict):
            continue
        kind = r.get("type")
        if kind in ("session_meta", "response_item", "event_msg", "turn_context") and "payload" in r:
            return "codex"
        if kind == "session" and "id" in r and "message" not in r:
            return "openclaw"
        if kind == "message" and isinstance(r.get("message"), dict):
            return "openclaw"
        if kind in _CC_TYPES and ("sessionId" in r or "uuid" in r or "leafUuid" in r or "messageId" in r):
            return "claude-code"
        if "payload" not in r and (
            kind in ("reasoning", "function_call", "function_call_output")
            or (kind == "message" and "role" in r and isinstance(r.get("content"), list))
        ):
            return "codex"  # the older rollout layout: bare items
        if "instructions" in r and "id" in r and "role" not in r:
            return "codex"
        if isinstance(r.get("role"), str) and "content" in r:
            return "jsonl"
    raise FormatError(
        "cannot tell this transcript's format from its first records; "
        f"pass --format (one of {', '.join(FORMATS)}), or write one JSON object per line with role and content"
    )


# Claude Code's record types (SOURCE.md of the development set): all but user/assistant give no turn.
_CC_TYPES = (
    "user",
    "assistant",
    "summary",
    "system",
    "file-history-snapshot",
    "permission-mode",
    "attachment",
    "last-prompt",
    "queue-operation",
    "progress",
    "ai-title",
    "custom-title",
    "agent-name",
    "mode",
)


# --- Aider: a Markdown chat history ------------------------------------------------------------------------

_AIDER_START = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
# y/n questions Aider writes as the person's "####" lines: its own question and the key pressed, not words.
_AIDER_PROMPT = re.compile(r"\(Y\)es/\(N\)o\b[^\n]{0,200}\[[^\]\n]{0,40}\]:")


def read_aider(text: str) -> list[Turn]:
    """The turns of ``.aider.chat.history.md``: ``# aider chat started at`` opens a session (its time dates the
    session's turns: Aider writes no per-turn times), ``#### `` lines are the person's, ``> `` lines are Aider's
    tool output (outside text), the rest is the model's answer, less its ``<thinking-content-...>`` blocks."""
    turns: list[Turn] = []
    role: str | None = None
    lines: list[str] = []
    stamp: dt.datetime | None = None

    def flush() -> None:
        if role == "tool":
            turns.extend(tool_turn("\n".join(lines), None))
        elif role is not None:
            for t in spoken_turn(role, "\n".join(lines), None):
                turns.append(Turn(t.role, t.content, stamp))
        lines.clear()

    for raw in normalize_breaks(text).split("\n"):
        line = raw.rstrip()
        start = _AIDER_START.match(line)
        if start is not None:
            flush()
            role, stamp = None, _within_range(dt.datetime.fromisoformat(start.group(1)))
            continue
        if line.startswith("####"):
            kind, body = "user", line[5:] if line.startswith("#### ") else line[4:]
            if _AIDER_PROMPT.search(body):
                continue
        elif line.startswith(">"):
            kind, body = "tool", line[2:] if line.startswith("> ") else line[1:]
        elif role is None and not line:
            continue
        else:
            kind, body = "assistant", raw
        if kind != role:
            flush()
            role = kind
        lines.append(body)
    flush()
    return turns


def transcript_files(kind: str, path: Path) -> list[Path]:
    """The transcripts (``*.jsonl``; for Aider ``*.aider.chat.history.md``) at ``path`` (a file, or a folder
    searched recursively), oldest first. Symbolic links are not followed: an import reads what is under the
    folder it was given."""
    if kind not in FORMATS:
        raise FormatError(f"{kind!r} is not a transcript format; one of {', '.join(FORMATS)}")
    if path.is_file():
        return [path]
    suffix = ".aider.chat.history.md" if kind == "aider" else ".jsonl"
    found: list[Path] = []
    for root, dirs, files in os.walk(path, followlinks=False):
        dirs.sort()
        for name in files:
            p = Path(root) / name
            if name.endswith(suffix) and not p.is_symlink() and p.is_file():
                found.append(p)
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))
