"""When memory came to hold each Retain bullet, and when it let one go, read from the workspace's git history.

Record time (issue 26): a bullet is known from the commit that first held it, and stops being known at the
commit that removed or changed it. ``memlane backup`` makes the repository; any repository the workspace is in
will do. Nothing here writes to git or to the files.

A bullet is the (kind, content) pair :func:`memlane.facts.retain.parse_retain` reads, wherever it sits among
the memory files: moving a log into ``memory/archive/`` or a bullet from one log to another keeps it held. The
history is read once per ``HEAD`` with two git processes (``git log`` for the commits and the memory paths
each changed, ``git cat-file --batch`` for those files' texts), so its cost is the size of the memory files'
history, not the number of bullets.

Bullets that the repository's first commit already holds are an import: the history cannot say when memory
learned them, so their record time stays their daily log's day (:attr:`Held.imported`).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ...workspace import MEMORY_DIRS, ROOT_FILES, is_memory_path
from ..retain import RetainFact, parse_retain

GIT_TIMEOUT = 120  # seconds for one git call: a history too big to read in that is left unread (noted)


@dataclass(frozen=True, slots=True)
class Held:
    """One bullet's span in the history."""

    kind: str
    content: str
    first: dt.date  # the day of the commit that first held it
    imported: bool  # the repository's first commit already held it
    removed: dt.date | None = None  # the day of the commit after which no memory file held it
    removed_by: str | None = None
    fact: RetainFact | None = None  # the bullet as last held (for a removed one: where it was)
    path: str = ""  # its file then, relative to the workspace


@dataclass
class History:
    bullets: dict[tuple[str, str], Held]  # (kind, content) -> span; a bullet held again after removal: last span
    note: str = ""

    def removed(self) -> list[Held]:
        """Bullets no commit up to ``HEAD`` holds any more."""
        return [h for h in self.bullets.values() if h.removed is not None]


def _run(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str] | None:
    if shutil.which("git") is None:
        return None
    env = {**os.environ, "GIT_LITERAL_PATHSPECS": "1", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.run(  # its own session: a Ctrl-C meant for memlane (import's "stop after this
            # conversation") must not kill git and leave an empty history cached for this HEAD
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            env=env,
            input=stdin,
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _inside_repository(workspace: Path) -> bool:
    """A ``.git`` above the workspace: looked for without a process, so a workspace outside git costs nothing."""
    here = workspace.resolve()
    return any((p / ".git").exists() for p in (here, *here.parents))


def head(workspace: Path) -> tuple[str, str] | None:
    """(commit of ``HEAD``, the workspace's path inside the repository, "" at its top), or None outside git or
    before a first commit."""
    if not _inside_repository(workspace):
        return None
    proc = _run(["rev-parse", "--show-prefix", "--verify", "-q", "HEAD"], workspace)
    if proc is None or proc.returncode != 0:
        return None
    lines = proc.stdout.split("\n")
    if len(lines) < 2:
        return None
    return lines[1].strip(), lines[0].strip()  # --show-prefix prints first (an empty line at the top)


_CACHE: dict[tuple[str, str], History] = {}  # (workspace, HEAD) -> its history: a sync reads it once per HEAD


def read(workspace: Path, at: tuple[str, str] | None = None) -> History | None:
    """The span of every bullet the workspace's memory files held in the history up to ``HEAD`` (``at``: what
    :func:`head` said, when the caller asked already)."""
    at = at or head(workspace)
    if at is None:
        return None
    key = (str(workspace.resolve()), at[0])
    if key not in _CACHE:
        if len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _read(workspace, at[1])
    return _CACHE[key]


def _read(workspace: Path, prefix: str) -> History:
    specs = [prefix + n for n in ROOT_FILES] + [prefix + d for d in MEMORY_DIRS]
    log = _run(
        ["log", "--reverse", "--no-renames", "--format=%x01%H %cs %P", "--name-only", "-z", "HEAD", "--", *specs],
        workspace,
    )
    if log is None or log.returncode != 0:
        return History({}, "git log failed: record time is the logs' days")
    commits: list[tuple[str, dt.date, list[str]]] = []
    for block in log.stdout.split("\x01")[1:]:
        header, _, names = block.partition("\n")
        parts = header.split()
        paths = [n.strip("\n") for n in names.split("\x00") if n.strip("\n")]
        mine = [p[len(prefix) :] for p in paths if p.startswith(prefix) and is_memory_path(p[len(prefix) :])]
        commits.append((parts[0], dt.date.fromisoformat(parts[1]), mine))
    wanted = [(c, p) for c, _, paths in commits for p in paths]
    texts = _blobs(workspace, [f"{c}:{prefix}{p}" for c, p in wanted])
    if texts is None:
        return History({}, "git cat-file failed: record time is the logs' days")
    held: dict[str, dict[tuple[str, str], RetainFact]] = {}  # path -> its bullets now
    count: Counter[tuple[str, str]] = Counter()
    spans: dict[tuple[str, str], Held] = {}
    i = 0
    first_commit = commits[0][0] if commits else ""
    for commit, day, paths in commits:
        for path in paths:
            text = texts[i]
            i += 1
            before = held.pop(path, {})
            after = _bullets(text) if text is not None else {}
            held[path] = after
            for key in before.keys() - after.keys():
                count[key] -= 1
                if count[key] == 0:
                    old = spans[key]
                    spans[key] = Held(old.kind, old.content, old.first, old.imported, day, commit, before[key], path)
            for key, fact in after.items():
                if key in before:
                    continue
                count[key] += 1
                if count[key] == 1:
                    old_span = spans.get(key)
                    if old_span is None or old_span.removed is not None:  # new, or held again after removal
                        first = old_span.first if old_span is not None else day
                        imported = old_span.imported if old_span is not None else commit == first_commit
                        spans[key] = Held(key[0], key[1], first, imported, fact=fact, path=path)
    return History(spans)


def _bullets(text: str) -> dict[tuple[str, str], RetainFact]:
    facts, _ = parse_retain(text)
    return {(f.kind, f.content): f for f in facts}


def _blobs(workspace: Path, specs: list[str]) -> list[str | None] | None:
    """The text of each ``commit:path`` (None where the commit deleted it), by one ``git cat-file --batch``."""
    if not specs:
        return []
    if any("\n" in s for s in specs):
        return None
    if shutil.which("git") is None:
        return None
    try:
        proc = subprocess.run(
            ["git", "cat-file", "--batch"],
            cwd=workspace,
            input="".join(s + "\n" for s in specs).encode("utf-8"),
            capture_output=True,
            timeout=GIT_TIMEOUT,
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    out: list[str | None] = []
    data, pos = proc.stdout, 0
    for _ in specs:
        end = data.index(b"\n", pos)
        header = data[pos:end].decode("utf-8", "replace")
        pos = end + 1
        if header.endswith(" missing") or header.endswith(" ambiguous"):
            out.append(None)
            continue
        size = int(header.rsplit(" ", 1)[1])
        out.append(data[pos : pos + size].decode("utf-8", "replace"))
        pos += size + 1
    return out
