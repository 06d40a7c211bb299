"""The log of background captures (``memlane hook capture --background``, docs/design/capture.md §47).

``$MEMLANE_HOME/logs/capture.log``: per capture, a line ``<time> capture of <transcript>:`` written when it is
handed off, then what that capture printed (its result, ``captured N turns: M facts written``, or its one-line
error, ``memlane: error: ...``; ``note:`` lines between). Written by the hook, read by ``memlane doctor``.
Standard library only: the hook that writes it starts without the library."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..config.home import memlane_home

LOG_NAME = "capture.log"
LOG_MAX_BYTES = 1_000_000  # past this, the log is moved to capture.log.1 (one generation kept)
READ_TAIL_BYTES = 256_000  # what doctor reads of it: the latest captures
_HEADER = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) capture of (.+):$")
ERROR_PREFIX = "memlane: error:"


def capture_log() -> Path:
    return memlane_home() / "logs" / LOG_NAME


def header(transcript: str, when: dt.datetime) -> str:
    return f"{when:%Y-%m-%dT%H:%M:%S} capture of {transcript}:"


def rotate(log: Path) -> None:
    """Past :data:`LOG_MAX_BYTES`, the log becomes ``capture.log.1`` (the one before that goes)."""
    if log.exists() and log.stat().st_size > LOG_MAX_BYTES:
        os.replace(log, log.with_name(LOG_NAME + ".1"))


@dataclass(frozen=True)
class Logged:
    """One background capture: when it was handed off, its transcript, and the line it ended with (None: it
    has not ended yet, or its process died before it could say)."""

    started: str
    transcript: str
    result: str | None

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result.startswith(ERROR_PREFIX)


def ended(log: Path, transcript: str) -> str | None:
    """The line the latest logged capture of ``transcript`` ended with; None while it runs (or if none is logged)."""
    mine = [entry for entry in read_log(log) if entry.transcript == transcript]
    return mine[-1].result if mine else None


def wait_ended(log: Path, transcript: str, timeout_s: float, every_s: float = 0.05) -> str | None:
    """:func:`ended`, waited for up to ``timeout_s`` (None if the capture has not ended by then)."""
    deadline = time.monotonic() + timeout_s
    while (result := ended(log, transcript)) is None and time.monotonic() < deadline:
        time.sleep(every_s)
    return result


def read_log(log: Path) -> list[Logged]:
    """The captures in the log's last :data:`READ_TAIL_BYTES`, oldest first (one pass over its lines)."""
    try:
        with open(log, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - READ_TAIL_BYTES))
            text = handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    out: list[Logged] = []
    started = transcript = None
    result: str | None = None
    for line in text.splitlines():
        m = _HEADER.match(line) if line.endswith(":") else None
        if m:
            if started is not None and transcript is not None:
                out.append(Logged(started, transcript, result))
            started, transcript, result = m.group(1), m.group(2), None
        elif started is not None and line.strip() and not line.startswith("note:"):
            result = line
    if started is not None and transcript is not None:
        out.append(Logged(started, transcript, result))
    return out
