"""Session transcripts as a second source: ``<sessions dir>/*.jsonl`` -> rendered text -> chunks.

A transcript is JSON Lines. Records with role ``user`` or ``assistant`` (at the top level or under
``message``) whose content is a string or a list of ``{"type": "text", "text": ...}`` blocks become
text; other records are skipped; a line that is not JSON is skipped and counted. Each message
renders to ``User: ...`` / ``Assistant: ...`` lines followed by a blank line, so a transcript's
rendering is the concatenation of its messages' renderings: appending messages appends lines.

Indexing is incremental: the index keeps, per transcript, the byte offset read so far, the lines and
messages rendered so far and a hash of the file's head (to notice a rewritten or rotated file). A
sync reads only the new complete lines (a half-written last line waits), renders and chunks only
them, and adds their chunks after the existing ones. Result paths are ``sessions/<file>.jsonl``
with line numbers of the rendering, which :func:`read_session` returns.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import SessionDeltaSettings
from ..embeddings import EmbeddingProvider, embedding_key
from ..errors import PathError
from ..store import ChunkRow, FileState, IndexStore
from .chunking import chunk_markdown, whitespace_token_counter
from .sync import ChunkPlan, SyncReport, chunk_rows, texts_to_embed
from .sync_embed import embed_into_cache

PREFIX = "sessions/"
HEAD_BYTES = 4096
_ROLES = {"user": "User", "assistant": "Assistant"}


@dataclass(frozen=True)
class SessionState:
    offset: int  # bytes consumed (complete lines only)
    lines: int  # rendered lines so far
    messages: int
    head: str  # hash of the first HEAD_BYTES at indexing time

    def encode(self) -> str:
        return json.dumps({"lines": self.lines, "messages": self.messages, "head": self.head})

    @classmethod
    def decode(cls, state: FileState) -> SessionState | None:
        try:
            data = json.loads(state.hash)
            return cls(state.size, int(data["lines"]), int(data["messages"]), str(data["head"]))
        except (ValueError, KeyError, TypeError):
            return None


def message_text(record: Any) -> tuple[str, str] | None:
    """(role label, text) of a transcript record, or None when it is not a user/assistant message."""
    if not isinstance(record, dict):
        return None
    inner = record.get("message")
    msg: dict[str, Any] = inner if isinstance(inner, dict) else record
    role = msg.get("role")
    if role not in _ROLES:
        return None
    content = msg.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n".join(p for p in parts if isinstance(p, str))
    else:
        return None
    text = text.replace("\r\n", "\n").strip()
    return (_ROLES[role], text) if text else None


def render(data: bytes) -> tuple[list[str], int, int]:
    """Rendered lines, message count and unreadable-line count of complete JSONL lines."""
    out: list[str] = []
    messages = bad = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            bad += 1
            continue
        got = message_text(record)
        if got is None:
            continue
        role, text = got
        body = text.split("\n")
        out.append(f"{role}: {body[0]}")
        out.extend(body[1:])
        out.append("")
        messages += 1
    return out, messages, bad


def _complete(data: bytes) -> bytes:
    """Up to and including the last newline: a line still being written waits for the next sync."""
    end = data.rfind(b"\n")
    return data[: end + 1] if end >= 0 else b""


def list_sessions(directory: Path) -> dict[str, Path]:
    if not directory.is_dir():
        return {}
    return {
        PREFIX + p.name: p
        for p in sorted(directory.iterdir())
        if p.suffix == ".jsonl" and not p.name.startswith(".") and p.is_file() and not p.is_symlink()
    }


def resolve_session(directory: Path, rel: str) -> Path:
    """The transcript a ``sessions/<name>.jsonl`` path names; anything else is refused."""
    name = rel[len(PREFIX) :]
    if not rel.startswith(PREFIX) or "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".jsonl"):
        raise PathError(f"not a session transcript path: {rel!r} (expected sessions/<name>.jsonl)")
    path = directory / name
    if path.is_symlink() or not path.is_file():
        raise PathError(f"no such session transcript: {rel}")
    return path


def read_session(directory: Path, rel: str, from_line: int | None = None, lines: int | None = None) -> str:
    """The rendered text of a transcript (what the index's line numbers refer to)."""
    rendered, _, _ = render(_complete(resolve_session(directory, rel).read_bytes()))
    start = (from_line or 1) - 1
    chosen = rendered[start : start + lines] if lines is not None else rendered[start:]
    return "\n".join(chosen) + ("\n" if chosen else "")


def _head(data: bytes) -> str:
    return hashlib.sha256(data[:HEAD_BYTES]).hexdigest()[:32]


def sync_sessions(
    store: IndexStore,
    provider: EmbeddingProvider | None,
    directory: Path,
    plan: ChunkPlan,
    deltas: SessionDeltaSettings,
    report: SyncReport,
    everything: bool = False,
    enabled: bool = True,
) -> None:
    """Index new transcript messages. Below the delta thresholds a file waits (unless ``everything``)."""
    known = {p: s for p, s in store.file_states().items() if s.source == "sessions"}
    found = list_sessions(directory) if enabled else {}
    count = provider.count_tokens if provider else whitespace_token_counter
    if not found and not known:
        return
    key = embedding_key(provider) if provider else None
    work: list[tuple[str, FileState, list[ChunkRow], bool]] = []  # path, new state, rows, reset first
    for rel, path in found.items():
        try:
            st = path.stat()
            old = SessionState.decode(known[rel]) if rel in known else None
            with path.open("rb") as fh:
                head_bytes = fh.read(HEAD_BYTES)
                # rewritten or rotated: shorter than what was read, or its start is not what was read
                reset = (
                    old is None
                    or st.st_size < old.offset
                    or _head(head_bytes[: min(old.offset, HEAD_BYTES)]) != old.head
                )
                start = 0 if reset or old is None else old.offset
                fh.seek(start)
                data = _complete(fh.read())
        except OSError as exc:
            report.notes.append(f"skipped {rel}: {exc.strerror}")
            continue
        if not data and not reset:
            continue
        rendered, messages, bad = render(data)
        if bad:
            report.notes.append(f"{rel}: skipped {bad} unreadable line(s)")
        if not reset and not everything and len(data) < deltas.delta_bytes and messages < deltas.delta_messages:
            continue  # not enough new conversation yet
        base = 0 if reset or old is None else old.lines
        prior_messages = 0 if reset or old is None else old.messages
        rows: list[ChunkRow] = []
        if rendered:
            chunks = chunk_markdown("\n".join(rendered), plan.tokens, plan.overlap, count)
            rows = chunk_rows(rel, "sessions", rendered, chunks, plan, base)
        offset = start + len(data)
        state = SessionState(offset, base + len(rendered), prior_messages + messages, _head(head_bytes[:offset]))
        work.append((rel, FileState(state.encode(), st.st_mtime_ns, state.offset, "sessions"), rows, reset))
    removed = [p for p in known if p not in found]
    if provider is not None and key is not None:
        texts = texts_to_embed(r for _, _, rows, _ in work for r in rows)
        cached = store.cached_hashes(key, list(texts))
        embed_into_cache(store, provider, key, [h for h in texts if h not in cached], texts, report)
    if not work and not removed:
        return
    with store.write():
        for rel, fstate, rows, reset in work:
            if reset:
                store.delete_file(rel)
            store.add_chunks(rows, provider.model if provider else "")
            store.set_file_state(rel, fstate)
            report.chunks_written += len(rows)
            report.sessions_indexed += 1
        for rel in removed:
            store.delete_file(rel)
            report.files_removed += 1
