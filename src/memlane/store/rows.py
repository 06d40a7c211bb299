"""The rows both drivers take and give (chunks, files), and what both read off them."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


def now_ms() -> int:
    """A row's ``updated_at``: milliseconds since the epoch."""
    return int(time.time() * 1000)


# How long a write waits for another writer of the same index (memorySearch.store.busyTimeoutMs).
BUSY_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk ready to be written."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    hash: str
    text: str
    cjk: str = ""
    # (hash, text, said by an assistant) of the texts whose vectors also stand for this chunk (keys.py)
    keys: tuple[tuple[str, str, bool], ...] = ()
    # the text in anyone's words but an assistant's (keys.said_text), and its CJK terms: the user-text leg
    said: str = ""
    said_cjk: str = ""


@dataclass(frozen=True, slots=True)
class StoredChunk:
    seq: int
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class FileState:
    hash: str
    mtime: int
    size: int
    source: str


def lines_from_chunks(rows: Iterable[tuple[int, int, str]], start: int, end: int) -> list[str]:
    """Lines ``start..end`` rebuilt from (start line, end line, text) of the chunks covering them, in
    order ('' where none covers a line; the pieces of an over-long line joined)."""
    lines: dict[int, str] = {}
    pieces: dict[int, list[str]] = {}
    for s, e, text in rows:
        if s == e and "\n" not in text:
            pieces.setdefault(s, [])
            if text not in pieces[s]:
                pieces[s].append(text)  # a piece of an over-long line
            continue
        for offset, line in enumerate(text.split("\n")):
            lines.setdefault(s + offset, line)
    for n, parts in pieces.items():
        lines.setdefault(n, " ".join(parts))
    return [lines.get(n, "") for n in range(start, end + 1)]


def fingerprint_json(values: dict[str, Any]) -> str:
    return json.dumps(values, sort_keys=True, separators=(",", ":"))
