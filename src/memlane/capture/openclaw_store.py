"""OpenClaw's own session store: since 2026.9 an agent's transcripts live in
``<state dir>/agents/<agentId>/agent/openclaw-agent.sqlite`` rather than in ``sessions/*.jsonl``.

Read-only, as recorded from a store OpenClaw 2026.9.6 wrote itself (``openclaw doctor --session-sqlite
import``, schema version 23; ``tests/data``): table ``transcript_events`` has one row per line of the old
JSONL transcript (``session_id``, ``seq`` from 0 for the session header, ``event_json`` the record as JSON).
A record of 1 KiB or more may instead be a zstd frame in ``event_zstd`` of ``event_utf8_bytes`` bytes (schema
23; older stores lack the column). ``session_nodes`` names a session (``agent:main:main``). Each record goes
through the same reader as the JSONL transcripts, so a turn means the same in both; a record that does not
unpack or parse gives no turn, as a damaged JSONL line gives none.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from .formats import Conversation, FormatError, read_record

STORE_NAME = "openclaw-agent.sqlite"
MAX_EVENT_BYTES = 4 * 1024 * 1024  # OpenClaw's own bound on one stored event


def store_files(path: Path) -> list[Path]:
    """``path`` itself when it is a store, else every ``openclaw-agent.sqlite`` below it (no symlinks)."""
    if path.is_file():
        return [path] if path.name.endswith(".sqlite") else []
    return sorted(p for p in path.rglob(STORE_NAME) if p.is_file() and not p.is_symlink())


def read_store(path: Path) -> Iterator[Conversation]:
    """Every session of one store, oldest first, its turns in the order OpenClaw keeps them (``seq``)."""
    conn = _open(path)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(transcript_events)")}
        if not {"session_id", "seq", "event_json"} <= columns:
            raise FormatError(f"{path} has no transcript_events table: not an OpenClaw agent store")
        names: dict[str, str] = {}
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'session_nodes'").fetchone():
            names = {sid: key for key, sid in conn.execute("SELECT session_key, current_session_id FROM session_nodes")}
        packed = "event_zstd, event_utf8_bytes" if {"event_zstd", "event_utf8_bytes"} <= columns else "NULL, NULL"
        rows = conn.execute(f"SELECT session_id, event_json, {packed} FROM transcript_events ORDER BY session_id, seq")
        sessions: dict[str, Conversation] = {}
        for sid, text, blob, size in rows:
            conv = sessions.get(sid)
            if conv is None:
                conv = sessions[sid] = Conversation(str(sid), names.get(sid, ""), [])
            record = _record(text, blob, size)
            info = read_record("openclaw", record)
            conv.unreadable += info.unreadable or (record is None and (text is not None or blob is not None))
            for turn in info.turns:
                conv.turns.append(turn)
                if conv.started is None and turn.timestamp is not None:
                    conv.started = turn.timestamp
    except sqlite3.Error as exc:
        raise FormatError(f"cannot read the OpenClaw store {path}: {exc}") from None
    finally:
        conn.close()
    found = [c for c in sessions.values() if c.turns]
    yield from sorted(found, key=lambda c: (c.started.isoformat() if c.started else "", c.id))


def _open(path: Path) -> sqlite3.Connection:
    """Read-only; a store OpenClaw has open in WAL mode needs its ``-shm`` file writable, so a store that
    cannot be opened so is read as immutable (what was checkpointed)."""
    base = f"file:{quote(str(path.resolve()))}"
    for mode in ("mode=ro", "immutable=1"):
        conn = sqlite3.connect(f"{base}?{mode}", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            conn.close()
            failure = exc
    raise FormatError(f"cannot open the OpenClaw store {path}: {failure}")


def _record(text: str | None, blob: bytes | None, size: int | None) -> object:
    """One event as parsed JSON; None (no turn, as a damaged JSONL line gives none) when it does not unpack
    to at most its recorded size, is not UTF-8 or not JSON. Unpacking stops at that size whatever the frame
    claims, so a hostile frame cannot grow past it."""
    if text is None and blob is not None:
        import zstandard

        if not isinstance(size, int) or not 0 < size <= MAX_EVENT_BYTES:
            return None
        try:
            with zstandard.ZstdDecompressor().stream_reader(blob) as reader:
                raw = reader.read(size + 1)
            text = raw.decode("utf-8") if len(raw) == size else None
        except (zstandard.ZstdError, UnicodeDecodeError):
            return None
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return None
