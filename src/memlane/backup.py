"""``memlane backup``: the memory files committed to the workspace's git repository (spec 002, "Git
Backup Flow"), the one copy of what cannot be rebuilt.

Only memory files are committed (``MEMORY.md``, ``memory.md``, ``memory/**/*.md``, ``bank/**/*.md``, as
:mod:`memlane.workspace` defines them): never the index, never other files of the repository, and a
person's own staged changes stay staged (``git commit --only``). Nothing changed: no commit. History is
never rewritten (no amend, no force push). The commit runs under the workspace's exclusive write lock, so
no memory file is half-written while it is taken. The workspace may be a folder inside a larger
repository.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .config import GitBackupSettings
from .errors import MemlaneError
from .workspace import is_memory_path, list_memory_files
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
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
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
    prefix = workspace.relative_to(root).as_posix()

    def in_repo(rel: str) -> str:
        return rel if prefix in ("", ".") else f"{prefix}/{rel}"

    def in_workspace(path: str) -> str:
        return path if prefix in ("", ".") else path.removeprefix(prefix + "/")

    with workspace_lock(workspace, exclusive=True):
        present = {in_repo(f.path) for f in list_memory_files(workspace)}
        scopes = [in_repo(p) for p in ("MEMORY.md", "memory.md", "memory", "bank")]
        tracked = _git(["ls-files", "-z", "--", *scopes], root).stdout.split("\0")
        gone = {p for p in tracked if p and p not in present and is_memory_path(in_workspace(p))}
        paths = sorted(present | gone)
        if paths:
            _git(["add", "-A", "--", *paths], root)
            changed = _git(["diff", "--cached", "--name-only", "-z", "--", *paths], root).stdout.split("\0")
            result.files = [p for p in changed if p]
        if result.files:
            day = (today or dt.date.today()).isoformat()
            _git(
                [*_identity(root), "commit", "--quiet", "--only", "-m", MESSAGE.format(day=day), "--", *result.files],
                root,
            )
            result.committed = True
            result.commit = _git(["rev-parse", "HEAD"], root).stdout.strip()
            result.message = f"committed {len(result.files)} memory file(s): {MESSAGE.format(day=day)}"
        else:
            result.message = "nothing to back up: the memory files are as last committed"
    if push:
        _push(root, settings, result)
    return result


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
    """Memory files that differ from the last commit (what a backup would commit)."""
    workspace = workspace.resolve()
    root = repository(workspace)
    if root is None:
        return []
    prefix = workspace.relative_to(root).as_posix()
    out = _git(["status", "--porcelain", "-z", "--untracked-files=all", "--", "."], workspace, check=False).stdout
    changed = []
    for entry in out.split("\0"):
        if len(entry) > 3:
            rel = entry[3:] if prefix in ("", ".") else entry[3:].removeprefix(prefix + "/")
            if is_memory_path(rel):
                changed.append(rel)
    return sorted(changed)
