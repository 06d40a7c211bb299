"""Writing memory: append a note to today's ``memory/YYYY-MM-DD.md`` or to ``MEMORY.md``, and the
edit tools' exact replace and insert.

The only place memlane changes Markdown. Writers in any process take an exclusive ``flock`` on a
lock file under ``$MEMLANE_HOME/locks`` (never in the workspace), so two memlane writers never
interleave. A plain append uses ``O_APPEND`` (the kernel places it at the end, after whatever an
editor saved). Every other change (an insert under a heading or at a line, a replace) rewrites the
file through a temporary file and ``os.replace``, and only if the file is byte-for-byte what was read:
if an editor saved meanwhile, the change is redone on the new content. An edit that would grow
MEMORY.md past ``core.maxChars`` is refused.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import os
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..config import memlane_home
from ..errors import MemlaneError, NotFoundError, PathError, UsageError
from ..text.markdown import Document, parse
from ..workspace import resolve_memory_path, resolve_writable_path
from .markers import set_block

MAX_NOTE_CHARS = 20_000


@dataclass(frozen=True)
class WriteResult:
    path: str  # workspace-relative
    start_line: int
    end_line: int

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "startLine": self.start_line, "endLine": self.end_line}


@contextlib.contextmanager
def exclusive_lock(lock_file: Path, shared: bool = False) -> Iterator[None]:
    """Hold an ``flock`` on ``lock_file`` (created if missing): one holder at a time across processes,
    or with ``shared`` any number of shared holders and no exclusive one."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _locked(target: Path) -> contextlib.AbstractContextManager[None]:
    """The lock of one memory file, kept under $MEMLANE_HOME/locks (never in the workspace)."""
    name = hashlib.sha256(str(target).encode()).hexdigest()[:24] + ".lock"
    return exclusive_lock(memlane_home() / "locks" / name)


def workspace_lock(workspace: Path, exclusive: bool = True) -> contextlib.AbstractContextManager[None]:
    """The whole workspace's lock: every write holds it shared (writers of different files still run side
    by side), backup and archive hold it exclusively (no file is half-written while they run)."""
    name = "ws-" + hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:24] + ".lock"
    return exclusive_lock(memlane_home() / "locks" / name, shared=not exclusive)


@contextlib.contextmanager
def _writing(workspace: Path, target: Path) -> Iterator[None]:
    with workspace_lock(workspace, exclusive=False), _locked(target):
        yield


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise UsageError("text must be a string")
    body = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    if not body.strip():
        raise UsageError("nothing to write: the text is empty")
    if "\x00" in body:
        raise UsageError("the text contains a NUL character")
    if len(body) > MAX_NOTE_CHARS:
        raise UsageError(f"the text is {len(body)} characters; at most {MAX_NOTE_CHARS} per write")
    return body


def target_path(workspace: Path, long_term: bool, today: dt.date | None = None) -> Path:
    if long_term:
        return workspace / "MEMORY.md"
    day = today or dt.date.today()
    return workspace / "memory" / f"{day.isoformat()}.md"


def _check_target(workspace: Path, target: Path) -> None:
    for part in (target.parent, target):
        if part.is_symlink():
            raise PathError(f"refusing to write through a symlink: {part.relative_to(workspace)}")
    if target.exists() and not target.is_file():
        raise PathError(f"not a regular file: {target.relative_to(workspace)}")


def _separator(existing: bytes) -> bytes:
    """Newlines that leave one blank line between what is there and the new paragraph."""
    if not existing:
        return b""
    if existing.endswith(b"\n\n"):
        return b""
    return b"\n" if existing.endswith(b"\n") else b"\n\n"


def _append(target: Path, body: str) -> tuple[int, int]:
    """Append ``body`` as a paragraph. All or nothing: a write the disk cut short (disk full, a file-size
    limit) is truncated back to the file's size before it, and reported."""
    data = body.encode() + b"\n"
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)  # less the umask
    try:
        with open(target, "rb") as reader:
            existing = reader.read()
        chunk = _separator(existing) + data
        try:
            written = os.write(fd, chunk)
        except OSError as exc:
            written, problem = -1, exc.strerror or str(exc)
        else:
            problem = "the disk took only part of it"
        if written != len(chunk):
            os.ftruncate(fd, len(existing))
            raise MemlaneError(f"nothing was written to {target.name}: {problem} (disk full?)")
        os.fsync(fd)
    finally:
        os.close(fd)
    first = (existing + _separator(existing)).count(b"\n") + 1
    return first, first + body.count("\n")


def _insert_under(text: str, heading: str, body: str) -> tuple[str, int]:
    """New text with ``body`` at the end of the ``heading`` section (created if missing); its first line.
    Sections are read by :mod:`memlane.text.markdown`: a ``#`` line inside a code block is no heading."""
    doc = parse(text)
    lines = _raw_lines(text)
    wanted = heading.strip().lstrip("#").strip()
    found = doc.sections(wanted)
    new = body.split("\n")
    if not found:
        _refuse_open_fence(doc, len(lines))
        block = ([""] if lines else []) + [f"## {wanted}", "", *new]
        out = lines + block
        return "\n".join(out) + "\n", len(lines) + len(block) - len(new) + 1
    at, end = found[0]
    last = end
    while last > at and not lines[last - 1].strip():
        last -= 1
    _refuse_open_fence(doc, last)
    block = ["", *new]
    tail = lines[end:]
    out = lines[:last] + block + ([""] if tail else []) + tail
    return "\n".join(out) + "\n", last + 2


def _raw_lines(text: str) -> list[str]:
    """The file's lines as :func:`memlane.text.markdown.split_lines` numbers them, each with its ``\\r`` if it
    had one: joined with ``\\n`` they give the file back byte for byte (less a missing final newline)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _refuse_open_fence(doc: Document, at: int) -> None:
    """Refuse to put text at line index ``at`` when that is inside a code block: the note would become
    part of the person's code (a fence left open runs to the end of the file)."""
    block = doc.code_at(at - 1) if at > 0 else None
    if block is not None and (not block.closed or at < block.end):
        where = f"the code block at lines {block.start + 1}-{block.end}"
        why = " is never closed" if not block.closed else ""
        raise UsageError(
            f"refusing to write inside a code block: {where}{why}; close the fence, or pick a line outside it"
        )


CORE_FILES = ("MEMORY.md", "memory.md")


def check_core_size(rel: str, before: str, after: str, max_chars: int | None) -> None:
    """Refuse an edit that grows MEMORY.md past ``core.maxChars``: the core block goes into every prompt,
    so a limit nobody enforces grows every prompt. Edits that shrink an oversized file are allowed."""
    if max_chars is None or rel not in CORE_FILES:
        return
    if len(after) > max_chars and len(after) > len(before):
        raise UsageError(
            f"{rel} would be {len(after):,} characters, over the core limit of {max_chars:,} (core.maxChars); "
            f"it is {len(before):,} now. Shorten it with memory_replace, or write to the daily log instead"
        )


def _new_temp(target: Path) -> tuple[int, str]:
    """A new temporary file beside ``target``, created with mode 0666 less the umask: the mode a new file
    gets from the user's editor (``mkstemp``'s 0600 would hide a new log from the user's other tools)."""
    for _ in range(100):
        path = target.parent / f".memlane-{secrets.token_hex(6)}.tmp"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(path)
        except FileExistsError:
            continue
    raise MemlaneError(f"could not create a temporary file in {target.parent}")


def _rewrite(
    workspace: Path,
    target: Path,
    change: Callable[[str], tuple[str, int, int]],
    max_core_chars: int | None = None,
) -> WriteResult:
    """Apply ``change`` (old text -> new text, first and last line of what changed) to ``target`` under
    its lock, through a temporary file and ``os.replace``. If an editor saved meanwhile, the change is
    redone on the editor's text; a change that raises leaves the file untouched."""
    rel = target.relative_to(workspace).as_posix()
    target.parent.mkdir(parents=True, exist_ok=True)
    _check_target(workspace, target)
    with _writing(workspace, target):
        for _ in range(10):
            try:
                before = target.read_bytes()
            except FileNotFoundError:
                before = b""
            old_text = before.decode("utf-8", errors="surrogateescape")
            new_text, first, last = change(old_text)
            if new_text == old_text:
                return WriteResult(rel, first, last)  # nothing to change: the file is not touched (nor made)
            check_core_size(rel, old_text, new_text, max_core_chars)
            tmp = ""
            try:
                fd, tmp = _new_temp(target)
                with os.fdopen(fd, "wb") as out:
                    out.write(new_text.encode("utf-8", errors="surrogateescape"))
                    out.flush()
                    os.fsync(out.fileno())
                with contextlib.suppress(FileNotFoundError):  # a replaced file keeps its mode
                    os.chmod(tmp, target.stat().st_mode & 0o7777)
                now = target.read_bytes() if target.exists() else b""
                if now != before:  # an editor saved in between: redo on its content
                    continue
                os.replace(tmp, target)
                tmp = ""
                return WriteResult(rel, first, last)
            except OSError as exc:  # disk full, a file-size limit, a read-only folder: the file is as it was
                raise MemlaneError(f"nothing was written to {rel}: {exc.strerror or exc} (disk full?)") from None
            finally:
                if tmp:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
        raise MemlaneError(f"{rel} kept changing while writing; nothing was written, try again")


def write_note(
    workspace: Path,
    text: str,
    heading: str | None = None,
    long_term: bool = False,
    today: dt.date | None = None,
    max_core_chars: int | None = None,
) -> WriteResult:
    """Append ``text`` to today's daily file (or MEMORY.md), optionally under ``heading``."""
    body = _clean(text)
    if heading is not None and (not heading.strip() or "\n" in heading):
        raise UsageError("heading must be one non-empty line")
    target = target_path(workspace, long_term, today)
    if heading is not None:

        def under(old: str) -> tuple[str, int, int]:
            new_text, first = _insert_under(old, heading, body)
            return new_text, first, first + body.count("\n")

        return _rewrite(workspace, target, under, max_core_chars)
    rel = target.relative_to(workspace).as_posix()
    target.parent.mkdir(parents=True, exist_ok=True)
    _check_target(workspace, target)
    with _writing(workspace, target):
        existing = target.read_bytes().decode("utf-8", errors="replace") if target.exists() else ""
        _refuse_open_fence(parse(existing), len(_raw_lines(existing)))
        if max_core_chars is not None and rel in CORE_FILES:
            sep = _separator(existing.encode()).decode()
            check_core_size(rel, existing, existing + sep + body + "\n", max_core_chars)
        first, last = _append(target, body)
        return WriteResult(rel, first, last)


def replace_passage(
    workspace: Path, rel: str, old: str, new: str, max_core_chars: int | None = None
) -> tuple[WriteResult, str]:
    """Replace the one occurrence of ``old`` in memory file ``rel`` with ``new``. Refused when ``old`` is
    missing or occurs more than once. Returns where the new passage stands and its whole lines."""
    if not isinstance(old, str) or not old:
        raise UsageError("old must be the exact, non-empty passage to replace")
    if not isinstance(new, str):
        raise UsageError("new must be a string (empty to delete the passage)")
    if "\x00" in new:
        raise UsageError("the text contains a NUL character")
    target = resolve_memory_path(workspace, rel)
    new = new.replace("\r\n", "\n")

    def swap(text: str) -> tuple[str, int, int]:
        count = text.count(old)
        if count == 0:
            hint = " (it does occur with other spacing or case)" if _loose(old) in _loose(text) else ""
            raise NotFoundError(f"the passage to replace is not in {rel}{hint}; read it with memory_get and copy it")
        if count > 1:
            raise UsageError(
                f"the passage occurs {count} times in {rel}; include more of the text around it so it occurs once"
            )
        at = text.index(old)
        first = text.count("\n", 0, at) + 1
        return text[:at] + new + text[at + len(old) :], first, first + new.count("\n")

    result = _rewrite(workspace, target, swap, max_core_chars)
    return result, _lines_of(target, result)


def insert_text(
    workspace: Path,
    rel: str,
    text: str,
    line: int | None = None,
    heading: str | None = None,
    max_core_chars: int | None = None,
) -> tuple[WriteResult, str]:
    """Insert ``text`` into memory file ``rel`` (created if missing): after line ``line`` (0 = at the top,
    -1 = at the end, the default) or at the end of the ``heading`` section (created if missing)."""
    body = _clean(text)
    if line is not None and heading is not None:
        raise UsageError("give line or heading, not both")
    if heading is not None and (not heading.strip() or "\n" in heading):
        raise UsageError("heading must be one non-empty line")
    if line is not None and line < -1:
        raise UsageError(f"line must be -1 (the end), 0 (the top) or a line number, got {line}")
    target = resolve_writable_path(workspace, rel)

    def put(old: str) -> tuple[str, int, int]:
        if heading is not None:
            new_text, first = _insert_under(old, heading, body)
            return new_text, first, first + body.count("\n")
        lines = _raw_lines(old)
        at = len(lines) if line is None or line == -1 else line
        if at > len(lines):
            raise UsageError(f"line {line} is past the end of {rel} ({len(lines)} lines); use -1 for the end")
        _refuse_open_fence(parse(old), at)
        new_lines = body.split("\n")
        out = lines[:at] + new_lines + lines[at:]
        return "\n".join(out) + "\n", at + 1, at + len(new_lines)

    result = _rewrite(workspace, target, put, max_core_chars)
    return result, _lines_of(target, result)


def write_block(workspace: Path, rel: str, name: str, body: str, title: str) -> tuple[WriteResult, bool]:
    """Set the generated block ``name`` of bank page ``rel`` (created with ``# title`` if missing); the
    text around the block is whatever is on disk at the moment of writing, kept byte for byte. Returns
    where the block stands and whether the file changed."""
    target = resolve_writable_path(workspace, rel)
    changed = False

    def put(old: str) -> tuple[str, int, int]:
        nonlocal changed
        new = set_block(old or f"# {title}\n", name, body)
        changed = new != old
        first = new.index(body) if body in new else 0
        start = new.count("\n", 0, first) + 1
        return new, start, start + body.count("\n") - 1

    return _rewrite(workspace, target, put), changed


def read_core(workspace: Path, max_chars: int) -> dict[str, object]:
    """The core block: MEMORY.md (else memory.md) with its size, and a warning above ``max_chars``."""
    rel = next((n for n in CORE_FILES if (workspace / n).is_file()), CORE_FILES[0])
    out: dict[str, object] = {"path": rel, "text": "", "chars": 0, "maxChars": max_chars}
    if not (workspace / rel).exists() and not (workspace / rel).is_symlink():
        out["note"] = f"{rel} does not exist yet: memory_write with longTerm (or memory_insert) creates it"
        return out
    try:  # there but unreadable (a symlink, a folder, no permission): say so, never "does not exist"
        text = resolve_memory_path(workspace, rel).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise MemlaneError(f"cannot read {rel}: {exc.strerror or exc}") from None
    out.update(text=text, chars=len(text))
    if len(text) > max_chars:
        out["warning"] = (
            f"{rel} is {len(text):,} characters, over core.maxChars {max_chars:,}: it is in every prompt; "
            "move detail to bank/ pages or the daily log (memory_replace), keep the durable essentials"
        )
    return out


def _loose(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _lines_of(target: Path, result: WriteResult) -> str:
    lines = target.read_text(encoding="utf-8", errors="replace").split("\n")
    return "\n".join(lines[result.start_line - 1 : max(result.end_line, result.start_line)])


def edit_file(workspace: Path, rel: str, change: Callable[[str], tuple[str, int, int]]) -> WriteResult:
    """Apply ``change`` (old text -> new text, first and last line it changed) to memory file ``rel``
    (created if missing) under its locks, atomically; redone on an editor's save in between."""
    return _rewrite(workspace, resolve_writable_path(workspace, rel), change)
