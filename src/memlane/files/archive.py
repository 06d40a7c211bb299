"""``memlane archive``: daily logs older than N days move to ``memory/archive/YYYY/`` (spec 002's
archive recommendation), so ``memory/`` stays short while nothing is lost.

Archived logs are still memory files: indexed, searchable (``query.archiveWeight`` can rank them lower),
readable with ``memory_get`` at their new path. The index follows without re-embedding anything: the
text is the same, so every vector comes from the embedding cache. Files move with ``os.rename`` under the
workspace's exclusive write lock: nothing moves while a writer holds it, and nothing is copied.

Every folder on the way to ``memory/archive/YYYY/`` must be a real folder inside the workspace: a symlink
(or anything that resolves elsewhere) is refused before anything moves, so an archive never carries logs
out of the workspace, and a file where a folder belongs is one clear error rather than a traceback.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import PathError, UsageError, quoted
from ..workspace import ARCHIVE_PREFIX, day_of, list_memory_files
from .writer import workspace_lock

ARCHIVE_DIR = ARCHIVE_PREFIX.rstrip("/")
# --older-than is validated, not clamped: no log is older than a century, so a larger number is a slip (seconds
# for days, a digit too many) that should be said, and a cutoff some 700,000 days back leaves ``datetime.date``.
MAX_DAYS = 36500


@dataclass(frozen=True)
class Move:
    source: str  # workspace-relative
    target: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target}


def archive_days(value: int | str) -> int:
    """``90``, ``"90"`` or ``"90d"`` -> 90 (0 to :data:`MAX_DAYS`); anything else is a clear error."""
    text = str(value).strip().lower().removesuffix("d")
    shown = quoted(value, 24, 20)
    # ASCII digits only: str.isdigit() also takes "²", which int() then refuses with a traceback
    if not re.fullmatch(r"[0-9]+", text):
        raise UsageError(f"--older-than takes a number of days such as 90 or 90d, got {shown}")
    # the length test first: int() of thousands of digits is refused by Python itself (sys.int_max_str_digits)
    if len(text.lstrip("0")) > len(str(MAX_DAYS)) or int(text) > MAX_DAYS:
        raise UsageError(f"--older-than must be between 0 and {MAX_DAYS} days (100 years), got {shown}")
    return int(text)


def check_archive_folders(workspace: Path, folders: set[str]) -> None:
    """Refuse (:class:`PathError`) when a move into one of ``folders`` (workspace-relative, such as
    ``memory/archive/2025``) could leave the workspace or could not be made: each part of the way that
    exists must be a real folder, not a symlink, and resolve inside the workspace."""
    root = workspace.resolve()
    for folder in sorted(folders):
        parts = PurePosixPath(folder).parts
        for depth in range(1, len(parts) + 1):
            rel = PurePosixPath(*parts[:depth]).as_posix()
            path = root / rel
            if path.is_symlink():
                raise PathError(
                    f"{rel} is a symlink: memlane archive moves logs only into real folders inside the workspace; "
                    f"replace {rel} with a folder (move its contents in), then run it again"
                )
            if not path.exists():
                break  # made by the move itself, as a real folder
            if not path.is_dir():
                raise PathError(
                    f"{rel} is a file, not a folder: memlane archive needs {rel}/ for old logs; "
                    "rename or move that file, then run it again"
                )
            # not a symlink yet elsewhere: a Windows junction or a link further up that resolve() follows
            if not path.resolve().is_relative_to(root):
                raise PathError(
                    f"{rel} resolves to {path.resolve()}, outside the workspace: memlane archive refuses to move "
                    f"logs there; make {rel} a real folder inside the workspace, then run it again"
                )


def plan_archive(workspace: Path, older_than_days: int, today: dt.date) -> tuple[list[Move], list[str]]:
    """The moves an archive would make, and the logs it must leave (a file already at the target).
    :class:`PathError` when the archive folder is a symlink, a file or outside the workspace."""
    cutoff = today - dt.timedelta(days=older_than_days)
    wanted = []
    for f in list_memory_files(workspace):
        day = day_of(f.path)
        if day is None or day >= cutoff or f.path.startswith(ARCHIVE_DIR + "/"):
            continue
        wanted.append(Move(f.path, f"{ARCHIVE_DIR}/{day.year}/{PurePosixPath(f.path).name}"))
    # before the targets are looked at: through a symlinked folder even exists() would look outside
    check_archive_folders(workspace, {PurePosixPath(m.target).parent.as_posix() for m in wanted})
    moves, skipped = [], []
    for move in wanted:
        if os.path.lexists(workspace / move.target):  # lexists: a dangling symlink is in the way too
            skipped.append(f"{move.source}: {move.target} exists already; left in place")
            continue
        moves.append(move)
    return moves, skipped


def archive(workspace: Path, moves: list[Move]) -> list[Move]:
    """Make the moves (each an ``os.rename`` on one file system), under the exclusive write lock; returns
    those made (a file that vanished or gained a twin at the target meanwhile is left). :class:`PathError`,
    with nothing moved, when a target folder is a symlink, a file or outside the workspace."""
    done = []
    with workspace_lock(workspace, exclusive=True):
        # again under the lock, all before the first move: the folders may have changed since the plan
        check_archive_folders(workspace, {PurePosixPath(m.target).parent.as_posix() for m in moves})
        for move in moves:
            source, target = workspace / move.source, workspace / move.target
            if not source.is_file() or source.is_symlink() or os.path.lexists(target):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            # each destination once more, right before its move (only a process outside memlane's lock
            # could have swapped a folder for a link by now)
            check_archive_folders(workspace, {PurePosixPath(move.target).parent.as_posix()})
            os.rename(source, target)
            done.append(move)
    return done
