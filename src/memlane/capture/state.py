"""How far capture has read: per transcript file (offset, head hash) and per session (the turns seen).

Kept in ``capture.json`` in the agent's sessions folder (beside the flush state), written atomically
after the Markdown it describes, under ``.capture.lock``, which also serialises captures of one agent.
So a capture killed before its state was saved reads its turns again, and the daily log's own
bullets keep them from being written twice; a capture killed before its Markdown was written loses
no turn. The file is a cache of work done, never the memory: deleting it costs one re-read.

**Keyed.** What the file keeps of a turn or of a transcript's head is an HMAC-SHA256 under a key of this
folder's own (``.capture.key``: 32 random bytes, made once, mode 0600, linked into place so that it is whole or
absent, read back after), never a plain hash: a plain hash of a short turn ("my PIN is 4821") is reversed by
trying every PIN, and the redacted sentence beside it in the daily log says what to try. The key sits here,
beside the state and under MEMLANE_HOME, not in the workspace: the workspace's Markdown is committed by
``memlane backup`` and may be pushed, and a key that travels with it would key nothing. Losing the key costs
what deleting the state does (the daily log's own bullets keep turns from being written twice).

**Version 1** files (plain hashes) are read once and rewritten keyed: a turn's tag is the HMAC of its plain
hash (:func:`turn_hash`, which stays in memory only), so every old hash becomes its tag without the turn; a
version-1 file mark is dropped (its head hash cannot be keyed without the file's bytes), so that transcript is
read once more from its start and its turns, known by their tags, are not captured again.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import MemlaneError
from ..files.outside import write_file
from ..files.writer import exclusive_lock
from .turns import Turn

STATE_FILE = "capture.json"
KEY_FILE = ".capture.key"
VERSION = 2  # 1: plain sha256 hashes; 2: HMAC tags under KEY_FILE
KEY_BYTES = 32
HEAD_BYTES = 4096
MAX_TURNS_PER_SESSION = 20_000  # hashes kept per session (16 hex characters each)
MAX_SESSIONS = 5_000  # the least recently captured sessions are forgotten first


def turn_hash(turn: Turn) -> str:
    """A turn's identity in memory (never written: the state keeps its keyed tag, see :class:`SeenTurns`)."""
    stamp = turn.timestamp.isoformat() if turn.timestamp else ""
    raw = "\x1f".join((turn.role, turn.name or "", stamp, turn.content))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def state_key(directory: Path) -> bytes:
    """The folder's HMAC key: read if there, else made (the caller holds the capture lock).

    Made whole or not at all: written and synced to a private temporary file (mode 0600), then linked to its
    name, which fails if the name exists (the ``O_EXCL`` of a link); a capture killed on the way leaves at most
    the temporary file, never a key file that is empty or short."""
    path = directory / KEY_FILE
    if path.exists():
        return _read_key(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".capture-key-", suffix=".tmp")  # 0600, O_EXCL
    key = secrets.token_bytes(KEY_BYTES)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(key.hex() + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.link(tmp, path)
    except FileExistsError:
        return _read_key(path)
    except OSError as exc:
        raise MemlaneError(f"cannot create the capture key {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return key


def _read_key(path: Path) -> bytes:
    try:
        key = bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise MemlaneError(
            f"the capture key {path} is unreadable or not {KEY_BYTES} bytes; delete it and {STATE_FILE} beside it "
            f"to start both again"
        )
    return key


def _tag(key: bytes, data: bytes, length: int) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:length]


class SeenTurns:
    """The turns of a session captured before, asked by :func:`turn_hash` and held as keyed tags."""

    def __init__(self, key: bytes, tags: Iterable[str]) -> None:
        self._key = key
        self._tags = set(tags)

    def __contains__(self, turn: object) -> bool:
        return isinstance(turn, str) and _tag(self._key, turn.encode(), 16) in self._tags

    def add(self, turn: str) -> None:
        self._tags.add(_tag(self._key, turn.encode(), 16))


@dataclass
class FileMark:
    offset: int  # bytes consumed (complete lines only)
    head: str  # hash of the file's first min(offset, HEAD_BYTES) bytes when it was read
    session: str
    format: str


@dataclass
class CaptureState:
    path: Path
    key: bytes
    files: dict[str, FileMark] = field(default_factory=dict)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {"turns": [tags], "at": time}

    @classmethod
    def load(cls, path: Path, key: bytes) -> CaptureState:
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return cls(path, key)
        except (OSError, ValueError) as exc:
            raise MemlaneError(
                f"cannot read the capture state {path}: {exc}; delete it to read every transcript again"
            ) from None
        state = cls(path, key)
        if not isinstance(data, dict):
            return state
        if data.get("version") != VERSION:
            return state._migrated(data)
        for name, mark in (data.get("files") or {}).items():
            with contextlib.suppress(KeyError, TypeError, ValueError):
                state.files[name] = FileMark(
                    int(mark["offset"]), str(mark["head"]), str(mark["session"]), str(mark["format"])
                )
        for sid, entry in (data.get("sessions") or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("turns"), list):
                state.sessions[str(sid)] = {"turns": [str(h) for h in entry["turns"]], "at": entry.get("at", 0)}
        return state

    def _migrated(self, data: dict[str, Any]) -> CaptureState:
        """A version-1 state: each plain turn hash becomes its tag; its file marks are dropped (see above)."""
        for sid, entry in (data.get("sessions") or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("turns"), list):
                tags = [self._turn_tag(str(h)) for h in entry["turns"]]
                self.sessions[str(sid)] = {"turns": tags, "at": entry.get("at", 0)}
        return self

    def _turn_tag(self, turn: str) -> str:
        return _tag(self.key, turn.encode(), 16)

    def head_hash(self, data: bytes) -> str:
        """A keyed hash of a transcript's first bytes: whether it is the file read before."""
        return _tag(self.key, data[:HEAD_BYTES], 32)

    def seen(self, session: str) -> SeenTurns:
        return SeenTurns(self.key, self.sessions.get(session, {}).get("turns", []))

    def add_turns(self, session: str, hashes: list[str]) -> None:
        """Record turns by their :func:`turn_hash`; what is kept is each one's tag."""
        entry = self.sessions.setdefault(session, {"turns": [], "at": 0})
        known = set(entry["turns"])
        tags = [self._turn_tag(h) for h in hashes]
        entry["turns"] = [*entry["turns"], *(t for t in tags if t not in known)][-MAX_TURNS_PER_SESSION:]
        entry["at"] = time.time()
        if len(self.sessions) > MAX_SESSIONS:
            for sid in sorted(self.sessions, key=lambda s: self.sessions[s]["at"])[: len(self.sessions) - MAX_SESSIONS]:
                del self.sessions[sid]

    def save(self) -> None:
        data = {
            "version": VERSION,
            "files": {k: vars(v) for k, v in self.files.items()},
            "sessions": self.sessions,
        }
        write_file(self.path, json.dumps(data).encode("utf-8"))  # a random O_EXCL temp name, fsync, rename


@contextlib.contextmanager
def locked_state(directory: Path) -> Iterator[CaptureState]:
    """The capture state of the agent whose sessions folder is ``directory``, held exclusively: one
    capture at a time, so a hook that fires twice at once still writes each turn once."""
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(directory / ".capture.lock"):
        yield CaptureState.load(directory / STATE_FILE, state_key(directory))
