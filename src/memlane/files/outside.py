"""Writing files that are not memory: a host's config (``memlane install``), its backups, capture's state.

These files belong to other programs (or sit in folders a cloned repository filled), so every write here
follows one rule, and this module is the only code that carries it out:

- The new content goes to a temporary file with a random name, created with ``O_CREAT|O_EXCL|O_NOFOLLOW``
  in the target's folder (a link planted at a name memlane would use is never followed), written, fsynced,
  then renamed over the target, and the folder is fsynced. No temporary file is left behind, whatever fails.
- ``expect`` is what the caller read (:func:`snapshot`): if the target no longer holds it when the rename is
  due, nothing is written and :class:`ChangedOnDisk` says so (another program saved meanwhile; its save is
  kept). ``expect=None`` means "must not exist", ``"any"`` skips the check.
- The target's mode is kept; a new file gets 0600 (``mode`` to say otherwise). A target without its
  owner's write bit is refused (:class:`ReadOnlyTarget`): the bits are checked, not ``os.access``, which
  says yes to root whatever they are.
- ``str`` data is written as UTF-8 with the line endings of the file it replaces (CRLF stays CRLF).
- A target that is a symlink (a config kept in a dotfiles folder) is written where the link points, and
  the link stays a link; a link to nothing, or to something that is not a regular file, is refused
  (:class:`UnsafeTarget`), so a link planted in a repository cannot make memlane create a file elsewhere.
- memlane processes writing the same target take turns (an ``flock`` under ``$MEMLANE_HOME/locks``).

The check and the rename cannot be one step for a program that takes no lock: the window left is the
time between a re-read of the target and ``rename``, microseconds instead of a whole ``plan``/``apply``.

Exceptions (all :class:`~memlane.errors.MemlaneError`, one line each):

OutsideWriteError      nothing was written (the disk or the folder refused)
 ├── ChangedOnDisk     the target is not what was read
 ├── ReadOnlyTarget    the target has no write bit for its owner
 └── UnsafeTarget      a link to nothing, or not a regular file
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config import memlane_home
from ..errors import MemlaneError
from .writer import exclusive_lock

NEW_FILE_MODE = 0o600


class OutsideWriteError(MemlaneError):
    """A file that is not memory could not be written; it is as it was."""


class ChangedOnDisk(OutsideWriteError):
    """The target changed since it was read: writing now would lose what another program saved."""


class ReadOnlyTarget(OutsideWriteError):
    """The target has no write bit for its owner: the user made it read-only on purpose."""


class UnsafeTarget(OutsideWriteError):
    """The target is a link to nothing, or not a regular file."""


@dataclass(frozen=True)
class Snapshot:
    """A file as it was read: its bytes and identity. ``path`` is the file itself (a link resolved)."""

    path: Path
    data: bytes
    mode: int  # the permission bits (st_mode & 0o7777)

    def same_content(self, other: Snapshot | None) -> bool:
        return other is not None and other.data == self.data


Expect = Snapshot | None | Literal["any"]


def target_of(path: Path) -> Path:
    """The file a write to ``path`` changes: ``path``, or the regular file a link at ``path`` names."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise OutsideWriteError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # a link to nothing, a loop
            raise UnsafeTarget(
                f"{path} is a link to {os.readlink(path)!s}, which is not there: memlane does not create files "
                "through a link; remove the link or create its target first"
            ) from None
        if not real.is_file():
            raise UnsafeTarget(f"{path} links to {real}, which is not a regular file; nothing was written")
        return real
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeTarget(f"{path} is not a regular file; nothing was written")
    return path


def snapshot(path: Path) -> Snapshot | None:
    """What ``path`` holds now (through a link to a regular file), or None when it does not exist."""
    target = target_of(path)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutsideWriteError(f"cannot read {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeTarget(f"{path} is not a regular file; nothing was written")
        data = fh.read()
    return Snapshot(target, data, st.st_mode & 0o7777)


def uses_crlf(data: bytes | str) -> bool:
    """Whether a file's lines end in CRLF (its first line ending decides)."""
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    at = text.find(b"\n")
    return at > 0 and text[at - 1 : at] == b"\r"


_LONE_LF = re.compile(r"(?<!\r)\n")


def match_line_endings(text: str, like: bytes | str | None) -> str:
    """``text`` with the line endings of ``like`` (the file it replaces): LF becomes CRLF in a CRLF file."""
    if like is None or not uses_crlf(like):
        return text
    return _LONE_LF.sub("\r\n", text)


def _lock(target: Path) -> contextlib.AbstractContextManager[None]:
    name = "outside-" + hashlib.sha256(str(target.absolute()).encode()).hexdigest()[:24] + ".lock"
    return exclusive_lock(memlane_home() / "locks" / name)


def _check(path: Path, now: Snapshot | None, expect: Expect) -> None:
    if isinstance(expect, str):  # "any"
        return
    if expect is None:
        if now is not None:
            raise ChangedOnDisk(f"{path} appeared since memlane looked (another program wrote it); nothing was written")
        return
    if now is None:
        raise ChangedOnDisk(f"{path} was removed since memlane read it; nothing was written: run the command again")
    if not expect.same_content(now):
        raise ChangedOnDisk(
            f"{path} changed since memlane read it (another program saved it meanwhile); nothing was written, "
            "its save is kept: run the command again"
        )


def _refuse_read_only(path: Path, now: Snapshot | None) -> None:
    if now is not None and not now.mode & stat.S_IWUSR:
        raise ReadOnlyTarget(
            f"{path} is read-only (mode {now.mode:04o}); nothing was written: make it writable "
            f"(chmod u+w) if memlane may change it"
        )


def preflight(path: Path, expect: Expect = "any") -> None:
    """Raise what :func:`write_file` would raise before writing (changed, read-only, unsafe), writing nothing:
    a caller about to write several files checks them all first, so a refusal leaves none half-done."""
    now = snapshot(path)
    _check(path, now, expect)
    _refuse_read_only(path, now)


def _new_temp(folder: Path, name: str) -> tuple[int, Path]:
    for _ in range(100):
        tmp = folder / f".{name}.{secrets.token_hex(8)}.memlane-tmp"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
            return os.open(tmp, flags, NEW_FILE_MODE), tmp
        except FileExistsError:
            continue
    raise OutsideWriteError(f"could not create a temporary file in {folder}")


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems cannot open or sync a folder
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _nothing_written(path: Path) -> Iterator[None]:
    try:
        yield
    except OSError as exc:  # disk full, a read-only folder, a file-size limit: the target is as it was
        raise OutsideWriteError(f"nothing was written to {path}: {exc.strerror or exc}") from None


def write_file(path: Path, data: bytes | str, *, expect: Expect = "any", mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically (see the module's rule). ``expect``: what the caller read
    (a :func:`snapshot`), None for "must not exist yet", ``"any"`` for no check. ``mode``: a new file's
    permission bits (default 0600); an existing file keeps its own."""
    target = target_of(path)
    if isinstance(data, str):
        like = expect.data if isinstance(expect, Snapshot) else None
        if like is None and isinstance(expect, str):
            current = snapshot(path)
            like = current.data if current is not None else None
        try:  # before anything is created: text that cannot be UTF-8 (a lone surrogate) leaves nothing behind
            data = match_line_endings(data, like).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise OutsideWriteError(
                f"nothing was written to {path}: the text holds a character UTF-8 cannot encode ({exc.reason})"
            ) from None
    with _nothing_written(path), _lock(target):
        now = snapshot(path)
        _check(path, now, expect)
        _refuse_read_only(path, now)
        final_mode = now.mode if now is not None else (NEW_FILE_MODE if mode is None else mode)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _new_temp(target.parent, target.name)
        placed = False
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fchmod(out.fileno(), final_mode)
                os.fsync(out.fileno())
            if not isinstance(expect, str):  # again, at the last moment ("any" checks nothing: no second read)
                _check(path, snapshot(path), expect)
            if expect is None:
                placed = _link_new(tmp, target, path)
            if not placed:
                os.replace(tmp, target)
                placed = True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        _fsync_folder(target.parent)


def _link_new(tmp: Path, target: Path, shown: Path) -> bool:
    """Put ``tmp`` at ``target`` only if nothing is there (``link`` never replaces): True when done, False
    when the file system has no hard links (the caller renames after its check)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise ChangedOnDisk(
            f"{shown} appeared since memlane looked (another program wrote it); nothing was written"
        ) from None
    except OSError:
        return False
    return True


def remove_file(path: Path, *, expect: Expect = "any") -> None:
    """Remove ``path`` (a link itself, not what it names) if it still holds ``expect``; a read-only file
    is refused as :func:`write_file` refuses it."""
    target = target_of(path)
    with _nothing_written(path), _lock(target):
        now = snapshot(path)
        _check(path, now, expect)
        _refuse_read_only(path, now)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        _fsync_folder(path.parent)
