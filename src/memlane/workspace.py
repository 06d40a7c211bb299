"""Which files are memory files, and the path checks that keep reads inside them.

Memory files are ``MEMORY.md``, ``memory.md``, ``memory/**/*.md`` and ``bank/**/*.md`` (spec 004's
typed pages: ``bank/world.md``, ``bank/opinions.md``, ``bank/entities/<Name>.md``) of the workspace.
Symlinks, hidden path components and anything that resolves outside the workspace are
never listed and never read.

``memorySearch.extraPaths`` adds further Markdown files or folders to index, read-only: a path inside the
workspace is listed by its workspace-relative path, one outside by its absolute path. The same rules hold
there (``.md`` files only, no symlinks, no hidden components), and nothing memlane writes goes to them:
writes take memory paths only (:func:`resolve_writable_path`). An entry ``{path, pattern}`` lists only the
folder's files whose path below it the glob matches (:func:`glob_matcher`).

A path's shape says more: the day a daily log is of (:func:`day_of`) and whether it was archived
(``ARCHIVE_PREFIX``). Search, facts, reflect and the writers all ask it, so it sits below them.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .config import ExtraPath, glob_alternatives
from .errors import PathError
from .text.markdown import split_lines

ROOT_FILES = ("MEMORY.md", "memory.md")
MEMORY_DIR = "memory"
BANK_DIR = "bank"
MEMORY_DIRS = (MEMORY_DIR, BANK_DIR)
ARCHIVE_PREFIX = "memory/archive/"  # where `memlane archive` moves old daily logs
_DAY_FILE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\b|_)")


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


@functools.lru_cache(maxsize=65_536)
def day_of(path: str) -> dt.date | None:
    """The date of a daily log (``memory/2025-11-27.md``, ``memory/archive/2025/2025-11-27-trip.md``); kept
    per path, since every search asks it of each candidate's file."""
    p = PurePosixPath(path)
    if p.parts[:1] != ("memory",):
        return None
    m = _DAY_FILE.match(p.name)
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def list_memory_files(workspace: Path, extra: Sequence[str | ExtraPath] = ()) -> list[FileInfo]:
    """Every memory file of ``workspace`` (and of the ``extra`` paths), sorted by path. Missing workspace:
    no files."""
    found = [FileInfo(rel, path, mtime, size) for rel, path, mtime, size in _scan(workspace.resolve(), extra)]
    found.sort(key=lambda f: f.path)
    return found


def differs_from(workspace: Path, known: Mapping[str, tuple[int, int]], extra: Sequence[str | ExtraPath] = ()) -> bool:
    """Whether the memory files on disk are not exactly ``known`` (path -> (mtime_ns, size)): the dirty
    check of every search, so it compares while it scans and stops at the first difference."""
    seen = 0
    for rel, _path, mtime, size in _scan(workspace.resolve(), extra):
        if known.get(rel) != (mtime, size):
            return True
        seen += 1
    return seen != len(known)


def _scan(root: Path, extra: Sequence[str | ExtraPath] = ()) -> Iterator[tuple[str, str, int, int]]:
    """(relative path, absolute path, mtime_ns, size) of each memory file, in no particular order; then of
    each file of the ``extra`` paths not listed already."""
    roots: list[tuple[str, str, os.stat_result]] = []
    for name in ROOT_FILES:
        path = str(root / name)
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISREG(st.st_mode):  # symlinks and other kinds are skipped
            roots.append((name, path, st))
    if len(roots) == 2 and (roots[0][2].st_dev, roots[0][2].st_ino) == (roots[1][2].st_dev, roots[1][2].st_ino):
        del roots[1]  # MEMORY.md and memory.md are one file on case-insensitive file systems: list it once
    for name, abs_path, st in roots:
        yield name, abs_path, st.st_mtime_ns, st.st_size
    for name in MEMORY_DIRS:
        try:
            if stat.S_ISDIR(os.lstat(root / name).st_mode):
                yield from _walk(str(root / name), name)
        except FileNotFoundError:
            pass
    if extra:
        seen: set[str] = set()
        for rel_base, abs_base, chosen in extra_roots(root, extra):
            try:
                st = os.lstat(abs_base)
            except OSError:
                continue  # a path that is not there (yet) lists nothing
            if stat.S_ISDIR(st.st_mode):
                found: Iterator[tuple[str, str, int, int]] = _walk(abs_base, rel_base)
                if chosen is not None:
                    cut = len(rel_base) + 1
                    found = (item for item in found if chosen(item[0][cut:]))
            elif stat.S_ISREG(st.st_mode) and abs_base.endswith(".md"):
                found = iter([(rel_base, abs_base, st.st_mtime_ns, st.st_size)])
            else:
                continue  # symlinks and other kinds are skipped, as in the workspace
            for item in found:
                if item[0] not in seen and not is_memory_path(item[0]):  # memory files are listed already
                    seen.add(item[0])
                    yield item


def extra_roots(root: Path, extra: Sequence[str | ExtraPath]) -> list[tuple[str, str, Callable[[str], bool] | None]]:
    """(name in the index, absolute path, the pattern's matcher or None) of each ``extraPaths`` entry: named
    workspace-relative inside the workspace, absolute outside it. Entries with a hidden component are left out."""
    out: list[tuple[str, str, Callable[[str], bool] | None]] = []
    for entry in extra:
        raw, chosen = (entry, None) if isinstance(entry, str) else (entry.path, glob_matcher(entry.pattern))
        p = Path(raw).expanduser()
        absolute = os.path.normpath(p if p.is_absolute() else root / p)
        inside = absolute == str(root) or absolute.startswith(str(root) + os.sep)
        # hidden folders below the workspace stay out, as in it (the workspace itself may sit in ~/.openclaw);
        # an absolute path outside it is where the user said to look
        below = Path(os.path.relpath(absolute, root)).parts if inside else ()
        if any(_is_hidden(part) for part in below):
            continue
        name = Path(os.path.relpath(absolute, root)).as_posix() if inside else Path(absolute).as_posix()
        if name != ".":  # the workspace itself is not an extra path: its memory files are listed
            out.append((name, absolute, chosen))
    return out


@functools.lru_cache(maxsize=64)
def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test of a POSIX path relative to an extra folder against a glob as Node's globbers read it:
    ``**`` as a whole segment matches any number of folders, ``*``, ``?`` and ``[...]`` (``[!a]`` or
    ``[^a]`` negated) stay within one segment, ``{a,b}`` alternates (at most 64 alternatives in all).
    Linear in the path's segments; each segment's pattern is compiled once."""
    compiled = []
    for alt in glob_alternatives(pattern):
        segments = [seg for seg in alt.split("/") if seg not in ("", ".")]
        compiled.append(tuple(None if seg == "**" else _segment(seg) for seg in segments))

    def matches(rel: str) -> bool:
        parts = rel.split("/")
        return any(_segments_match(segments, parts) for segments in compiled)

    return matches


def _segment(glob: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(glob.replace("[^", "[!")))


def _segments_match(pattern: tuple[re.Pattern[str] | None, ...], parts: list[str]) -> bool:
    """Whether ``parts`` match ``pattern`` (None: ``**``), tracking the set of pattern positions reached."""

    def closure(states: set[int]) -> set[int]:
        out = set(states)
        for j in sorted(states):
            while j < len(pattern) and pattern[j] is None:
                j += 1
                out.add(j)
        return out

    states = closure({0})
    for part in parts:
        step = set()
        for j in states:
            if j < len(pattern):
                seg = pattern[j]
                if seg is None:
                    step.add(j)
                elif seg.match(part):
                    step.add(j + 1)
        if not step:
            return False
        states = closure(step)
    return len(pattern) in states


def resolve_extra_path(workspace: Path, extra: Sequence[str | ExtraPath], name: str) -> Path | None:
    """The file an index name of an ``extraPaths`` file stands for, checked as the listing checks it (no
    symlink from the extra path down, a regular ``.md`` file); None when ``name`` is under no extra path."""
    if not isinstance(name, str) or not name.endswith(".md") or ".." in PurePosixPath(name).parts:
        return None
    if "\\" in name or "\x00" in name or ":" in name.replace("\\", "/").split("/", 1)[-1]:
        return None  # a Windows separator or drive inside the name would step out of the extra root
    root = workspace.resolve()
    for rel_base, abs_base, chosen in extra_roots(root, extra):
        if name != rel_base and not name.startswith(rel_base.rstrip("/") + "/"):
            continue
        if chosen is not None and name != rel_base and not chosen(name[len(rel_base) + 1 :]):
            continue  # not among this entry's files; another entry may list it
        current = Path(abs_base)
        rest = PurePosixPath(name[len(rel_base) :].lstrip("/")).parts
        try:
            for part in ("", *rest):
                current = current / part if part else current
                st = os.lstat(current)
                if stat.S_ISLNK(st.st_mode) or (part and _is_hidden(part)):
                    return None
        except OSError:
            return None
        return current if stat.S_ISREG(st.st_mode) else None
    return None


def _walk(directory: str, rel_dir: str) -> Iterator[tuple[str, str, int, int]]:
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(entry.path, f"{rel_dir}/{name}")
        elif name.endswith(".md") and entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            yield f"{rel_dir}/{name}", entry.path, st.st_mtime_ns, st.st_size


def _checked_rel(rel: str, verb: str) -> str:
    """``rel`` cleaned (``./`` and backslashes), or :class:`PathError` unless it has a memory file's shape."""
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
            f"not a memory file: {rel!r}; only MEMORY.md, memory.md, memory/**/*.md and bank/**/*.md can be {verb}"
        )
    return cleaned


def resolve_memory_path(workspace: Path, rel: str) -> Path:
    """The absolute path of memory file ``rel``, or :class:`PathError` if it is not one.

    Refuses absolute paths, ``..``, hidden components, non-``.md`` files, files outside
    ``MEMORY.md``/``memory.md``/``memory/``/``bank/``, and any symlink on the way.
    """
    cleaned = _checked_rel(rel, "read")
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
        except OSError as exc:  # a name too long for the file system, a folder it may not enter, ...
            raise PathError(f"cannot read {cleaned}: {exc.strerror or exc}") from None
        if stat.S_ISLNK(st.st_mode):
            raise PathError(f"symlinks are refused: {cleaned}")
    if not stat.S_ISREG(os.lstat(current).st_mode):
        raise PathError(f"not a regular file: {cleaned}")
    if root not in current.resolve().parents:
        raise PathError(f"path resolves outside the workspace: {cleaned}")
    return current


def resolve_writable_path(workspace: Path, rel: str) -> Path:
    """Like :func:`resolve_memory_path`, but the file (and its folders) may not exist yet: where an edit
    may write. Existing parts of the path must be folders (the file a regular file), never symlinks."""
    cleaned = _checked_rel(rel, "edited")
    root = workspace.resolve()
    current = root
    parts = PurePosixPath(cleaned).parts
    for i, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            break
        if stat.S_ISLNK(st.st_mode):
            raise PathError(f"symlinks are refused: {cleaned}")
        last = i == len(parts) - 1
        if (last and not stat.S_ISREG(st.st_mode)) or (not last and not stat.S_ISDIR(st.st_mode)):
            raise PathError(f"not a regular file: {cleaned}")
    return root / cleaned


def read_lines(path: Path, from_line: int | None = None, lines: int | None = None) -> str:
    """Lines ``from_line`` (1-based) .. ``from_line + lines - 1`` of a text file."""
    if from_line is not None and from_line < 1:
        raise PathError(f"from must be 1 or greater, got {from_line}")
    if lines is not None and lines < 1:
        raise PathError(f"lines must be 1 or greater, got {lines}")
    text = path.read_text(encoding="utf-8", errors="replace")
    if from_line is None and lines is None:
        return text
    all_lines = split_lines(text, keepends=True)
    start = (from_line or 1) - 1
    end = len(all_lines) if lines is None else start + lines
    return "".join(all_lines[start:end])
