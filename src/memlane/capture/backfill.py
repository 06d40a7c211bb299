"""Backfill: the history a user already has, captured as if it had been captured live.

``memlane import claude-code|codex|openclaw|aider PATH`` captures every transcript under a folder (or one file);
for ``openclaw`` also every session of OpenClaw 2026.9's per-agent SQLite store (``openclaw-agent.sqlite``)
under it, or that store given itself;
``memlane import chatgpt|claude-ai PATH`` every conversation of a vendor's export (its zip, folder or
``conversations.json``). Each turn is dated by its own timestamp, so it lands in the log of the day it was
said. An interrupted import resumes where it stopped: transcripts by their read offsets, conversations by
the turns capture has already seen (a conversation captured before costs a hash per turn).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import NotFoundError, UsageError
from .exports import EXPORT_MAX_DEFAULT, EXPORTS, read_export
from .formats import FORMATS, Conversation, transcript_files
from .openclaw_store import read_store, store_files
from .turns import SPEAKERS, Turn

if TYPE_CHECKING:
    from .pipeline import CaptureReport

KINDS = ("claude-code", "codex", "openclaw", "aider", "chatgpt", "claude-ai")


@dataclass(frozen=True)
class ImportItem:
    """One unit of an import: a transcript file, or one conversation of an export."""

    name: str
    path: Path | None = None  # a transcript
    conversation: Conversation | None = None
    turns: int = 0  # known up front for an export's conversation, 0 for a transcript


def plan_import(
    kind: str, path: Path, since: dt.date | None = None, export_limit: int = EXPORT_MAX_DEFAULT
) -> Iterator[ImportItem]:
    """What an import of ``path`` as ``kind`` will capture, oldest first. ``since``: leave out transcripts
    last written before that day, and conversations whose last turn is before it. ``export_limit``: the
    most bytes an export's ``conversations.json`` may hold (``capture.maxExportBytes``)."""
    if kind not in KINDS:
        raise UsageError(f"unknown import kind {kind!r}; one of {', '.join(KINDS)}")
    if not path.exists():
        raise NotFoundError(f"nothing to import at {path}")
    if kind == "openclaw":
        for store in store_files(path):
            for conv in read_store(store):
                if since is None or _said_since(conv.turns, since, conv.started):
                    yield ImportItem(conv.title or conv.id, conversation=conv, turns=_spoken(conv))
        if path.is_file() and path.name.endswith(".sqlite"):
            return
    if kind in FORMATS:
        for f in transcript_files(kind, path):
            if since is not None and dt.date.fromtimestamp(f.stat().st_mtime) < since:
                continue
            yield ImportItem(f.name, path=f)
        return
    assert kind in EXPORTS
    for conv in read_export(kind, path, export_limit):
        if since is not None and not _said_since(conv.turns, since, conv.started):
            continue
        yield ImportItem(conv.title or conv.id, conversation=conv, turns=_spoken(conv))


def _spoken(conv: Conversation) -> int:
    """The turns the person and the agent said (outside text, role "tool", is not a turn said)."""
    return sum(t.role in SPEAKERS for t in conv.turns)


def _said_since(turns: list[Turn], since: dt.date, started: dt.datetime | None) -> bool:
    stamps = [t.timestamp for t in turns if t.timestamp is not None]
    last = max(stamps) if stamps else started
    return last is None or last.date() >= since


def run_import(
    kind: str,
    items: list[ImportItem],
    capture: Callable[[list[Turn], str], CaptureReport],
    transcript: Callable[[Path, str], CaptureReport],
    progress: Callable[[ImportItem, CaptureReport], None] | None = None,
) -> CaptureReport:
    """Capture each item (``capture(turns, session)`` for a conversation, ``transcript(path, format)`` for a
    file) and add up the reports."""
    from .pipeline import CaptureReport  # the pipeline loads when an import runs, not when the CLI starts

    total = CaptureReport()
    for item in items:
        if item.path is not None:
            report = transcript(item.path, kind)
        else:
            assert item.conversation is not None
            report = capture(item.conversation.turns, f"{kind}-{item.conversation.id}")
            report.unreadable_lines += item.conversation.unreadable
        _add(total, report)
        if progress is not None:
            progress(item, report)
    return total


def _add(total: CaptureReport, report: CaptureReport) -> None:
    for name in (
        "turns_read",
        "turns_seen_before",
        "turns_excluded",
        "facts_drafted",
        "facts_written",
        "skipped_as_known",
        "secrets_redacted",
        "digest_lines",
        "unreadable_lines",
        "tool_turns",
    ):
        setattr(total, name, getattr(total, name) + getattr(report, name))
    total.seconds += report.seconds
    total.sections += report.sections
    total.notes += report.notes
