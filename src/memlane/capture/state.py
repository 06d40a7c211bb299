"""How far capture has read: per transcript file (offset, head hash) and per session (the turns seen).

Kept in ``capture.json`` in the agent's sessions folder (beside the flush state), written atomically
after the Markdown it describes, under ``.capture.lock``, which also serialises captures of one agent.
So a capture killed before its state was saved reads its turns again, and the daily log's own
bullets keep them from being written twice; a capture killed before its Markdown was written loses
no turn. The file is a cache of work done, never the memory: deleting it costs one re-read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import MemlaneError
from ..files.writer import exclusive_lock
from .turns import Turn

STATE_FILE = "capture.json"
HEAD_BYTES = 4096
MAX_TURNS_PER_SESSION = 20_000  # hashes kept per session (16 hex characters each)
MAX_SESSIONS = 5_000  # the least recently captured sessions are forgotten first


def turn_hash(turn: Turn) -> str:
    stamp = turn.timestamp.isoformat() if turn.timestamp else ""
    raw = "\x1f".join((turn.role, turn.name or "", stamp, turn.content))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def head_hash(data: bytes) -> str:
    return hashlib.sha256(data[:HEAD_BYTES]).hexdigest()[:32]


@dataclass
class FileMark:
    offset: int  # bytes consumed (complete lines only)
    head: str  # hash of the file's first min(offset, HEAD_BYTES) bytes when it was read
    session: str
    format: str


@dataclass
class CaptureState:
    path: Path
    files: dict[str, FileMark] = field(default_factory=dict)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {"turns": [...], "at": time}

    @classmethod
    def load(cls, path: Path) -> CaptureState:
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError) as exc:
            raise MemlaneError(
                f"cannot read the capture state {path}: {exc}; delete it to read every transcript again"
            ) from None
        state = cls(path)
        if not isinstance(data, dict):
            return state
        for name, mark in (data.get("files") or {}).items():
            with contextlib.suppress(KeyError, TypeError, ValueError):
                state.files[name] = FileMark(
                    int(mark["offset"]), str(mark["head"]), str(mark["session"]), str(mark["format"])
                )
        for sid, entry in (data.get("sessions") or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("turns"), list):
                state.sessions[str(sid)] = {"turns": [str(h) for h in entry["turns"]], "at": entry.get("at", 0)}
        return state

    def seen(self, session: str) -> set[str]:
        return set(self.sessions.get(session, {}).get("turns", []))

    def add_turns(self, session: str, hashes: list[str]) -> None:
        entry = self.sessions.setdefault(session, {"turns": [], "at": 0})
        known = set(entry["turns"])
        entry["turns"] = [*entry["turns"], *(h for h in hashes if h not in known)][-MAX_TURNS_PER_SESSION:]
        entry["at"] = time.time()
        if len(self.sessions) > MAX_SESSIONS:
            for sid in sorted(self.sessions, key=lambda s: self.sessions[s]["at"])[: len(self.sessions) - MAX_SESSIONS]:
                del self.sessions[sid]

    def save(self) -> None:
        data = {
            "version": 1,
            "files": {k: vars(v) for k, v in self.files.items()},
            "sessions": self.sessions,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".capture-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(data, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def locked_state(directory: Path) -> Iterator[CaptureState]:
    """The capture state of the agent whose sessions folder is ``directory``, held exclusively: one
    capture at a time, so a hook that fires twice at once still writes each turn once."""
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(directory / ".capture.lock"):
        yield CaptureState.load(directory / STATE_FILE)
