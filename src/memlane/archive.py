"""``memlane archive``: daily logs older than N days move to ``memory/archive/YYYY/`` (spec 002's
archive recommendation), so ``memory/`` stays short while nothing is lost.

Archived logs are still memory files: indexed, searchable (``query.archiveWeight`` can rank them lower),
readable with ``memory_get`` at their new path. The index follows without re-embedding anything: the
text is the same, so every vector comes from the embedding cache. Files move with ``os.rename`` under the
workspace's exclusive write lock: nothing moves while a writer holds it, and nothing is copied.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import MemlaneError
from .facts.derive import day_of
from .priors import ARCHIVE_PREFIX
from .workspace import list_memory_files
from .writer import workspace_lock

ARCHIVE_DIR = ARCHIVE_PREFIX.rstrip("/")


@dataclass(frozen=True)
class Move:
    source: str  # workspace-relative
    target: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target}


def archive_days(value: int | str) -> int:
    """``90``, ``"90"`` or ``"90d"`` -> 90; anything else is a clear error."""
    text = str(value).strip().lower().removesuffix("d")
    if not text.isdigit():
        raise MemlaneError(f"--older-than takes a number of days such as 90 or 90d, got {value!r}")
    return int(text)


def plan_archive(workspace: Path, older_than_days: int, today: dt.date) -> tuple[list[Move], list[str]]:
    """The moves an archive would make, and the logs it must leave (a file already at the target)."""
    cutoff = today - dt.timedelta(days=older_than_days)
    moves, skipped = [], []
    for f in list_memory_files(workspace):
        day = day_of(f.path)
        if day is None or day >= cutoff or f.path.startswith(ARCHIVE_DIR + "/"):
            continue
        target = f"{ARCHIVE_DIR}/{day.year}/{PurePosixPath(f.path).name}"
        if (workspace / target).exists():
            skipped.append(f"{f.path}: {target} exists already; left in place")
            continue
        moves.append(Move(f.path, target))
    return moves, skipped


def archive(workspace: Path, moves: list[Move]) -> list[Move]:
    """Make the moves (each an ``os.rename`` on one file system), under the exclusive write lock; returns
    those made (a file that vanished or gained a twin at the target meanwhile is left)."""
    done = []
    with workspace_lock(workspace, exclusive=True):
        for move in moves:
            source, target = workspace / move.source, workspace / move.target
            if not source.is_file() or source.is_symlink() or target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(source, target)
            done.append(move)
    return done
