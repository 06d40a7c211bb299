"""The log of background captures (``memlane hook capture --background``, docs/design/capture.md §47).

``$MEMLANE_HOME/logs/capture.log`` (0600, in a 0700 folder), one JSON object per line, joined by the capture's id:

- ``{"capture": ID, "event": "start", "at": ..., "transcript": ..., "workspace": ..., "agent": ..., "config": ...,
  "pid": ...}``, written by the hook once the process that captures has started (``pid`` is that process);
- ``{"capture": ID, "event": "end", "at": ..., "ok": true|false, "result": ...}``, written by that process when
  the capture it ran has exited: its last line (``captured N turns: M facts written``, or the one-line error),
  or how it ended (a signal, a traceback's last line).

The capture's own output (a traceback, notes) goes between, as plain lines a reader skips. A start without an end
is running while its process lives, and died once it is gone (killed, or never started the capture). Written by
the hook and its runner, read by ``memlane doctor`` and the benchmark. Standard library only: the hook that writes
it starts without the library."""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.home import memlane_home

LOG_NAME = "capture.log"
LOG_MAX_BYTES = 1_000_000  # past this, the log is moved to capture.log.1 (one generation kept)
READ_TAIL_BYTES = 256_000  # what a reader takes of each file: the latest captures
RESULT_MAX = 500  # characters of a result line kept in its record
STALE_AFTER = dt.timedelta(hours=6)  # a start without an end this old is not running, whatever its pid now is


def capture_log() -> Path:
    return memlane_home() / "logs" / LOG_NAME


def _now() -> str:
    return dt.datetime.now().isoformat(timespec="seconds")


def append(log: Path, record: dict[str, Any]) -> None:
    """One record, as one write to a file opened for appending (0600): records of processes writing at once do
    not interleave."""
    line = json.dumps({"at": _now(), **record}, ensure_ascii=True) + "\n"  # no line break inside, whatever a path holds
    fd = open_for_output(log)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def open_for_output(log: Path) -> int:
    """A file descriptor appending to ``log`` (made 0600 if new): where a capture's own output goes."""
    return os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)


def group_options(workspace: str | None, agent: str | None, config: str | None) -> list[str]:
    """``--workspace``, ``--agent``, ``--config`` as a hook was given them: the capture it starts, and the
    command doctor gives to capture its transcript again, run where the hook ran."""
    given = (("--workspace", workspace), ("--agent", agent), ("--config", config))
    return [part for flag, value in given if value is not None for part in (flag, value)]


@contextlib.contextmanager
def rotated(log: Path) -> Iterator[None]:
    """Held while a capture is started: the log's folder made (0700), the log moved to ``capture.log.1`` when past
    :data:`LOG_MAX_BYTES`, under a lock so that two hooks at once do not both move it (the second would move the
    first one's new log over the history)."""
    log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(log.with_name(LOG_NAME + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if log.stat().st_size > LOG_MAX_BYTES:
                os.replace(log, log.with_name(LOG_NAME + ".1"))
        yield
    finally:
        os.close(fd)  # the lock goes with it


@dataclass(frozen=True)
class Logged:
    """One background capture: when it was handed off, what it was to capture where, and how it ended (``ok``
    None: no end yet)."""

    capture: str
    started: str
    transcript: str
    workspace: str | None
    agent: str | None
    config: str | None
    pid: int | None
    ok: bool | None
    result: str | None

    def state(self, now: dt.datetime | None = None) -> str:
        """``ok``, ``failed``, ``running`` or ``died`` (no end, and its process gone or too old to be it)."""
        if self.ok is not None:
            return "ok" if self.ok else "failed"
        try:
            old = (now or dt.datetime.now()) - dt.datetime.fromisoformat(self.started) > STALE_AFTER
        except ValueError:
            old = True
        return "died" if old or not _alive(self.pid) else "running"


def _alive(pid: int | None) -> bool:
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process holds that number now
        return True
    return True


def read_log(log: Path) -> list[Logged]:
    """The captures whose start is in the last :data:`READ_TAIL_BYTES` of ``capture.log.1`` and ``capture.log``,
    in the order they started (one pass over the lines; a line that is not a record is skipped). A file that
    cannot be read raises OSError."""
    starts: dict[str, dict[str, Any]] = {}
    ends: dict[str, dict[str, Any]] = {}
    for path in (log.with_name(LOG_NAME + ".1"), log):
        for line in _tail(path).split("\n"):
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("capture"), str):
                continue
            if record.get("event") == "start" and isinstance(record.get("transcript"), str):
                starts.setdefault(record["capture"], record)
            elif record.get("event") == "end":
                ends.setdefault(record["capture"], record)
    out = []
    for ident, start in starts.items():
        end = ends.get(ident, {})
        out.append(
            Logged(
                ident,
                str(start.get("at", "")),
                start["transcript"],
                _text(start.get("workspace")),
                _text(start.get("agent")),
                _text(start.get("config")),
                start["pid"] if isinstance(start.get("pid"), int) else None,
                bool(end["ok"]) if "ok" in end else None,
                _text(end.get("result")),
            )
        )
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - READ_TAIL_BYTES))
            return handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def ended(log: Path, transcript: str) -> str | None:
    """The result of the latest logged capture of ``transcript``; None while it runs (or if none is logged)."""
    mine = [entry for entry in read_log(log) if entry.transcript == transcript]
    return mine[-1].result if mine and mine[-1].ok is not None else None


def wait_ended(log: Path, transcript: str, timeout_s: float, every_s: float = 0.05) -> str | None:
    """:func:`ended`, waited for up to ``timeout_s`` (None if the capture has not ended by then)."""
    deadline = time.monotonic() + timeout_s
    while (result := ended(log, transcript)) is None and time.monotonic() < deadline:
        time.sleep(every_s)
    return result
