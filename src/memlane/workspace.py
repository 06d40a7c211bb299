"""Which files are memory files, and the path checks that keep reads inside them.

Memory files are ``MEMORY.md``, ``memory.md``, ``memory/**/*.md`` and ``bank/**/*.md`` (spec 004's
typed pages: ``bank/world.md``, ``bank/opinions.md``, ``bank/entities/<Name>.md``) of the workspace.
Symlinks, hidden path components and anything that resolves outside the workspace are
never listed and never read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import PathError

ROOT_FILES = ("MEMORY.md", "memory.md")
MEMORY_DIR = "memory"
BANK_DIR = "bank"
MEMORY_DIRS = (MEMORY_DIR, BANK_DIR)


@dataclass(frozen=True, slots=True)
class FileInfo:
    """A memory file as found on disk: workspace-relative POSIX path, mtime (ns) and size."""

    path: str
    abs: str  # absolute path as a string: listing runs on every search, Path objects cost too much
    mtime_ns: int
    size: int

    @property
    def abs_path(self) -> Path:
        return Path(self.abs)


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def is_memory_path(rel: str) -> bool:
    """True when a workspace-relative POSIX path names a memory file (by shape only)."""
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or any(_is_hidden(part) for part in p.parts):
        return False
    if rel in ROOT_FILES:
        return True
    return len(p.parts) >= 2 and p.parts[0] in MEMORY_DIRS and p.suffix == ".md"


def list_memory_files(workspace: Path) -> list[FileInfo]:
    """Every memory file of ``workspace``, sorted by path. Missing workspace: no files."""
    root = workspace.resolve()
    found: list[FileInfo] = []
    for name in ROOT_FILES:
        info = _regular_file(root, name)
        if info is not None:
            found.append(info)
    for name in MEMORY_DIRS:
        try:
            if stat.S_ISDIR(os.lstat(root / name).st_mode):
                _walk(str(root / name), name, found)
        except FileNotFoundError:
            pass
    found.sort(key=lambda f: f.path)
    if len(found) > 1 and found[0].path == "MEMORY.md" and found[1].path == "memory.md":
        # One file on case-insensitive file systems: list it once.
        a, b = os.stat(found[0].abs), os.stat(found[1].abs)
        if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
            del found[1]
    return found


def _regular_file(root: Path, rel: str) -> FileInfo | None:
    path = root / rel
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):  # symlinks and other kinds are skipped
        return None
    return FileInfo(rel, str(path), st.st_mtime_ns, st.st_size)


def _walk(directory: str, rel_dir: str, out: list[FileInfo]) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if _is_hidden(entry.name) or entry.is_symlink():
            continue
        rel = f"{rel_dir}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, rel, out)
        elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            out.append(FileInfo(rel, entry.path, st.st_mtime_ns, st.st_size))


def resolve_memory_path(workspace: Path, rel: str) -> Path:
    """The absolute path of memory file ``rel``, or :class:`PathError` if it is not one.

    Refuses absolute paths, ``..``, hidden components, non-``.md`` files, files outside
    ``MEMORY.md``/``memory.md``/``memory/``/``bank/``, and any symlink on the way.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise PathError("path must be a non-empty workspace-relative path such as 'memory/2026-01-05.md'")
    cleaned = rel.strip().replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    if cleaned.startswith("/") or PurePosixPath(cleaned).is_absolute() or (len(cleaned) > 1 and cleaned[1] == ":"):
        raise PathError(f"absolute paths are refused: {rel!r}; give a path relative to the workspace")
    if ".." in PurePosixPath(cleaned).parts:
        raise PathError(f"'..' is not allowed in memory paths: {rel!r}")
    if not is_memory_path(cleaned):
        raise PathError(
            f"not a memory file: {rel!r}; only MEMORY.md, memory.md, memory/**/*.md and bank/**/*.md can be read"
        )
    root = workspace.resolve()
    current = root
    for part in PurePosixPath(cleaned).parts:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            raise PathError(f"memory file not found: {cleaned}") from None
        except NotADirectoryError:
            raise PathError(f"memory file not found: {cleaned}") from None
        if stat.S_ISLNK(st.st_mode):
            raise PathError(f"symlinks are refused: {cleaned}")
    if not stat.S_ISREG(os.lstat(current).st_mode):
        raise PathError(f"not a regular file: {cleaned}")
    if root not in current.resolve().parents:
        raise PathError(f"path resolves outside the workspace: {cleaned}")
    return current


def read_lines(path: Path, from_line: int | None = None, lines: int | None = None) -> str:
    """Lines ``from_line`` (1-based) .. ``from_line + lines - 1`` of a text file."""
    if from_line is not None and from_line < 1:
        raise PathError(f"from must be 1 or greater, got {from_line}")
    if lines is not None and lines < 1:
        raise PathError(f"lines must be 1 or greater, got {lines}")
    text = path.read_text(encoding="utf-8", errors="replace")
    if from_line is None and lines is None:
        return text
    all_lines = text.splitlines(keepends=True)
    start = (from_line or 1) - 1
    end = len(all_lines) if lines is None else start + lines
    return "".join(all_lines[start:end])
