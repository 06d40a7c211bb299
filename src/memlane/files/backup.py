"""``memlane backup``: the memory files committed to the workspace's git repository (spec 002, "Git
Backup Flow"), the one copy of what cannot be rebuilt.

Only memory files are committed (``MEMORY.md``, ``memory.md``, ``memory/**/*.md``, ``bank/**/*.md``, as
:mod:`memlane.workspace` defines them): never the index, never other files of the repository, and a
person's own staged changes stay staged (``git commit --only``). Nothing changed: no commit. History is
never rewritten (no amend, no force push). The commit runs under the workspace's exclusive write lock, so
no memory file is half-written while it is taken. The workspace may be a folder inside a larger
repository.

The files a backup owns are the memory files on disk plus every memory path git still knows (in the index
or in ``HEAD``) that is gone from disk: so a deleted, archived or ``git mv``-ed log is committed as deleted,
both sides of a move land in one commit, and "nothing to back up" is said only when ``git status`` shows
none of those paths changed. :func:`pending` (what ``memlane doctor`` reports) uses the same scope.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..config import GitBackupSettings
from ..errors import MemlaneError
from ..workspace import MEMORY_DIRS, ROOT_FILES, is_memory_path, list_memory_files
from .writer import workspace_lock

MESSAGE = "Daily backup: {day}"


class BackupError(MemlaneError):
    """A backup could not be made or pushed; what was committed stays committed."""


@dataclass
class BackupResult:
    repository: str
    committed: bool = False
    commit: str | None = None
    files: list[str] = field(default_factory=list)  # memory files in the commit (relative to the repository)
    pushed: bool = False
    message: str = ""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _git(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    if shutil.which("git") is None:
        raise BackupError("git is not installed: memlane backup needs it on PATH")
    # literal pathspecs: a memory file may be named "memory/[draft].md" or "memory/*.md", not a pattern
    env = {**os.environ, "GIT_LITERAL_PATHSPECS": "1"}
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise BackupError(f"git {args[0]} failed: {detail[-1] if detail else f'exit {proc.returncode}'}")
    return proc


def repository(workspace: Path) -> Path | None:
    """The top of the git repository the workspace is in, or None."""
    proc = _git(["rev-parse", "--show-toplevel"], workspace, check=False)
    return Path(proc.stdout.strip()).resolve() if proc.returncode == 0 else None


def backup(
    workspace: Path, settings: GitBackupSettings, push: bool = False, init: bool = False, today: dt.date | None = None
) -> BackupResult:
    """Commit the memory files that changed (``Daily backup: YYYY-MM-DD``); with ``push``, push to
    ``settings.remote``. ``init`` makes the workspace a repository first when it is not one."""
    workspace = workspace.resolve()
    root = repository(workspace)
    if root is None:
        if not init:
            raise BackupError(f"{workspace} is not a git repository: run `memlane backup --init` to make it one")
        _git(["init", "--quiet"], workspace)
        root = workspace
    result = BackupResult(str(root))
    with workspace_lock(workspace, exclusive=True):
        scope = _Scope(workspace, root)
        if scope.present or scope.indexed:
            # the index's gone paths are staged as deletions; those only in HEAD are deleted in the index already
            _git(["add", "-A", "--", *sorted(scope.present | scope.indexed)], root)
        staged = _git(["diff", "--cached", "--no-renames", "--name-only", "-z", "--", *scope.folders], root).stdout
        # --no-renames: with rename detection --name-only lists only a move's new path, and its old one stayed
        result.files = sorted(p for p in staged.split("\0") if p in scope.owned)
        day = (today or dt.date.today()).isoformat()
        if result.files:
            _git(
                [*_identity(root), "commit", "--quiet", "--only", "-m", MESSAGE.format(day=day), "--", *result.files],
                root,
            )
            result.committed = True
            result.commit = _git(["rev-parse", "HEAD"], root).stdout.strip()
        left = scope.changed()
        if left:  # never "nothing to back up" (nor a clean success) while a memory file still differs
            done = "; the rest is committed" if result.committed else ""
            raise BackupError(
                f"{len(left)} memory file(s) still differ from the last commit after the backup "
                f"({', '.join(left[:3])}){done}: see `git status` in {root}"
            )
        if result.committed:
            result.message = f"committed {len(result.files)} memory file(s): {MESSAGE.format(day=day)}"
        else:
            result.message = "nothing to back up: the memory files are as last committed"
    if push:
        _push(root, settings, result)
    return result


class _Scope:
    """The memory paths a backup owns, relative to the repository: ``present`` (the memory files on disk),
    ``indexed`` (gone from disk, still in git's index) and ``headed`` (gone from disk and the index, still
    in ``HEAD``: a deletion someone staged). Never another file of the repository. ``check=False`` (for
    doctor, which reports rather than fails) takes a failed git command as no output."""

    def __init__(self, workspace: Path, root: Path, check: bool = True) -> None:
        self.root, self.check = root, check
        self.prefix = workspace.relative_to(root).as_posix()
        self.folders = [self.in_repo(p) for p in (*ROOT_FILES, *MEMORY_DIRS)]
        self.present = {self.in_repo(f.path) for f in list_memory_files(workspace)}
        index = set(_git(["ls-files", "-z", "--", *self.folders], root, check).stdout.split("\0"))
        head: set[str] = set()
        # a new repository has no HEAD to list
        if _git(["rev-parse", "--verify", "--quiet", "HEAD"], root, check=False).returncode == 0:
            tree = _git(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *self.folders], root, check).stdout
            head = set(tree.split("\0"))
        self.indexed = {p for p in index if self._gone(p)}
        self.headed = {p for p in head - index if self._gone(p)}
        self.owned = self.present | self.indexed | self.headed

    def in_repo(self, rel: str) -> str:
        return rel if self.prefix in ("", ".") else f"{self.prefix}/{rel}"

    def in_workspace(self, path: str) -> str:
        return path if self.prefix in ("", ".") else path.removeprefix(self.prefix + "/")

    def _gone(self, path: str) -> bool:
        return bool(path) and path not in self.present and is_memory_path(self.in_workspace(path))

    def changed(self) -> list[str]:
        """The owned paths ``git status`` shows as differing from ``HEAD`` (staged or not), workspace-relative."""
        out = _git(
            ["status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--", *self.folders],
            self.root,
            self.check,
        ).stdout
        # porcelain v1 paths are relative to the repository's top; --no-renames: one path per entry
        return sorted(self.in_workspace(e[3:]) for e in out.split("\0") if len(e) > 3 and e[3:] in self.owned)


def _identity(root: Path) -> list[str]:
    """A committer identity when git has none configured (a fresh machine, CI)."""
    name = _git(["config", "user.name"], root, check=False).stdout.strip()
    email = _git(["config", "user.email"], root, check=False).stdout.strip()
    extra = []
    if not name:
        extra += ["-c", "user.name=memlane"]
    if not email:
        extra += ["-c", "user.email=memlane@localhost"]
    return extra


def _push(root: Path, settings: GitBackupSettings, result: BackupResult) -> None:
    if _git(["remote", "get-url", settings.remote], root, check=False).returncode != 0:
        raise BackupError(
            f"no git remote {settings.remote!r} to push to: add one with `git remote add {settings.remote} URL` "
            "(or set backup.git.remote); the backup itself is committed"
        )
    branch = settings.branch or _git(["symbolic-ref", "--short", "-q", "HEAD"], root, check=False).stdout.strip()
    if not branch:
        raise BackupError("HEAD is detached: check out a branch or set backup.git.branch; the backup is committed")
    proc = _git(["push", "--quiet", settings.remote, f"HEAD:refs/heads/{branch}"], root, check=False)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise BackupError(
            f"git push to {settings.remote} {branch} failed ({detail[-1] if detail else proc.returncode}); "
            "the backup is committed locally, nothing was forced"
        )
    result.pushed = True
    result.message += f"; pushed to {settings.remote} {branch}"


def last_backup(workspace: Path) -> str | None:
    """The date of the latest backup commit, or None (no repository, or none yet)."""
    root = repository(workspace)
    if root is None:
        return None
    proc = _git(["log", "-1", "--format=%cs", "--grep=^Daily backup: "], root, check=False)
    return proc.stdout.strip() or None


def pending(workspace: Path) -> list[str]:
    """Memory files that differ from the last commit (what a backup would commit, deletions and both sides
    of a move included), workspace-relative."""
    workspace = workspace.resolve()
    root = repository(workspace)
    if root is None:
        return []
    return _Scope(workspace, root, check=False).changed()
