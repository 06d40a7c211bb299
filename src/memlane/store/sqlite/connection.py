"""Opening a SQLite index, its transactions and its meta: the part of :class:`~.SQLiteStore` every other
part (chunks, vectors, cache) stands on.

An index of an unknown version, or a corrupt one, is moved aside and rebuilt from the Markdown. An index that is
only locked, read-only or out of reach is left where it is (moving it aside would throw away its embedding cache).

All writes go through :meth:`SQLiteConnection.write`: one ``BEGIN IMMEDIATE`` transaction, so a
reader never sees half of a change and a killed writer leaves the previous state.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Self

from ...errors import IndexError_
from ..facts import FACT_SCHEMA, SQLiteFacts
from ..rows import BUSY_TIMEOUT_MS
from .schema import BASE_SCHEMA, CHUNK_SCHEMA, INDEX_ID, MIGRATIONS, SCHEMA_VERSION, TABLES

PAGE_SIZE = 16384
# SQLite's result codes (and their extended forms) of a file that is damaged or not a database at all.
_CORRUPT_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def _writable(folder: Path) -> bool:
    """Whether files can be made in ``folder`` (root ignores permission bits, not an immutable folder)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".memlane-probe-")
    except OSError:
        return False
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return True


class _NotAnIndex(sqlite3.DatabaseError):
    """A readable SQLite file that is no memlane index of a known schema: moved aside like a corrupt one."""


class UnusableIndex(IndexError_):
    """An index that cannot be used as it is (``memlane doctor``'s view); ``fix``: the command that fixes it."""

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the file itself is damaged, the one case where moving it aside helps."""
    code = getattr(exc, "sqlite_errorname", None) or ""
    return isinstance(exc, _NotAnIndex) or code.startswith(_CORRUPT_CODES)


def _quiet(path: Path) -> bool:
    """No -wal or -shm beside the file: no connection has it open (each one keeps them until the last closes)."""
    return not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm"))


def _uri(path: Path, immutable: bool) -> str:
    """A read-only URI of ``path`` (percent-encoded, so a '?' or '#' in a folder name cannot change it)."""
    return path.absolute().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced (the base class cannot) and says when it is in use:
    ``busy`` is held by the thread reading through it, so closing waits for the read to end."""

    busy: threading.RLock


class SQLiteConnection:
    """One agent's index in one SQLite file (WAL mode, one writer at a time): opened, checked, migrated or
    moved aside, and written one transaction at a time."""

    @property
    def location(self) -> str:
        return str(self.path)

    def _fields(self, path: Path, busy_timeout_ms: int) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()  # the writer connection
        self._readers = threading.local()  # one reader connection per thread: reads run side by side
        # Weak: a thread that ends drops its connection (closed when collected); close() closes the rest.
        self._all_readers: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._readers_lock = threading.Lock()
        self.recovered: str | None = None  # why a broken file was moved aside, if it was
        self.read_only: str | None = None  # why the index can only be read (its folder refuses writes)
        self.migrated: list[str] = []  # migrations applied on open
        self._immutable = False  # read-only connections assume no one writes the file (no locks, no -shm)
        self.facts = SQLiteFacts(lambda: self._conn, self._reading)

    def __init__(self, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self._fields(path, busy_timeout_ms)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if not path.exists():
                raise IndexError_(f"cannot create the index folder {path.parent}: {exc.strerror or exc}") from None
        try:
            self._conn = self._connect()
            self._check()
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            if path.exists() and not _writable(path.parent):
                self._open_read_only(f"its folder {path.parent} refuses writes ({exc})")
                return
            if not _corrupt(exc):
                # Locked, read-only or out of reach: the file is fine, and moving it aside would cost a
                # full re-embedding (its embedding cache goes with it).
                raise self._open_error(exc) from None
            self._quarantine(str(exc))
            self._conn = self._connect()
            self._check()

    @classmethod
    def open_shared(cls, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Self:
        """Another agent's index, to read only (``memorySearch.shared``): never created, migrated, recovered
        or written here, and opened plainly read-only (not immutable), since its owner may be writing it."""
        if not path.is_file():
            raise IndexError_(f"no index at {path}")
        store = cls.__new__(cls)
        store._fields(path, busy_timeout_ms)
        store.read_only = "another agent's index, shared to read"
        try:
            store._conn = store._open()
            store._check(migrate=False)
        except sqlite3.DatabaseError as exc:
            raise IndexError_(f"cannot read the index {path}: {exc}") from None
        return store

    @classmethod
    def inspect(cls, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Self:
        """The index as it is, to look at (``memlane doctor``): read-only, never created, migrated or moved
        aside. :class:`UnusableIndex` says why it cannot be read and what fixes that."""
        if not path.is_file():
            raise UnusableIndex(f"no index at {path} yet", "memlane index")
        store = cls.__new__(cls)
        store._fields(path, busy_timeout_ms)
        store.read_only = "opened to be looked at (memlane doctor)"
        # Not in use by anyone: immutable, so that not even a -wal or -shm is left beside it. In use: plain
        # read-only, which shares the writer's WAL.
        store._immutable = _quiet(path)
        try:
            store._conn = store._open()
            store._check(migrate=False)
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                store.close()
            if isinstance(exc, _NotAnIndex):
                raise UnusableIndex(
                    f"{path} is not a memlane index this version can read ({exc}); `memlane index` moves it aside "
                    "and rebuilds the index from the memory files",
                    "memlane index",
                ) from None
            if _corrupt(exc):
                raise UnusableIndex(
                    f"the index {path} is unreadable ({exc}); `memlane index` moves it aside and rebuilds it from "
                    "the memory files",
                    "memlane index",
                ) from None
            raise UnusableIndex(str(store._open_error(exc))) from None
        except BaseException:
            with contextlib.suppress(Exception):
                store.close()
            raise
        return store

    def _open_read_only(self, why: str) -> None:
        """Use the index as it is: searches answer from it, every write fails with ``why``."""
        self.read_only = why
        self._immutable = True  # no one can write it either: no -wal or -shm can be made beside it
        self._conn = self._open()
        try:
            self._check()
        except sqlite3.DatabaseError as exc:
            raise IndexError_(f"the index {self.path} is unreadable and its folder refuses writes: {exc}") from None

    def _open(self) -> _Connection:
        target = _uri(self.path, self._immutable) if self.read_only else str(self.path)
        conn: _Connection = sqlite3.connect(
            target,
            uri=bool(self.read_only),
            timeout=self.busy_timeout_ms / 1000,
            check_same_thread=False,
            isolation_level=None,
            factory=_Connection,
        )
        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        return conn

    def _connect(self) -> sqlite3.Connection:
        conn = self._open()
        # 16 KiB pages hold ten 1.6 KB vector rows; 4 KiB pages held two (2 KB a vector). Only takes effect
        # on a new file, so it must come before WAL mode initialises it.
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _check(self, migrate: bool = True) -> None:
        """Make the schema of an empty file, apply migrations, and read every table once; ``migrate`` false:
        only read, and raise :class:`UnusableIndex` for an empty file or an older schema."""
        conn = self._conn
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
        if not tables:
            if not migrate:
                raise UnusableIndex(f"the index {self.path} is empty: it was never built", "memlane index")
            with self.write():
                for stmt in BASE_SCHEMA + CHUNK_SCHEMA + FACT_SCHEMA:
                    conn.execute(stmt)
                self._set_meta("schema_version", str(SCHEMA_VERSION))
                self._set_meta(INDEX_ID, secrets.token_hex(16))
            return
        version = None
        if "meta" in tables:
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            version = row[0] if row else None
        if not migrate and version in {str(old) for old, _, _ in MIGRATIONS}:
            raise UnusableIndex(
                f"the index {self.path} is of schema {version}, this memlane's is {SCHEMA_VERSION}; `memlane index` "
                "migrates it and reindexes (the vectors come from its cache)",
                "memlane index",
            )
        for old, new, step in MIGRATIONS:
            if version == str(old):
                with self.write():
                    step(conn)
                    self._set_meta("schema_version", str(new))
                version = str(new)
                self.migrated.append(f"index schema {old} -> {new}")
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
        if not tables >= TABLES or version != str(SCHEMA_VERSION):
            raise _NotAnIndex(
                f"index schema {version!r} does not match this memlane's ({SCHEMA_VERSION}) or tables are missing"
            )
        # Touch every table once: a truncated or garbled file fails here, not mid-search.
        conn.execute("SELECT count(*) FROM chunks").fetchone()
        conn.execute("SELECT count(*) FROM files").fetchone()
        conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'a' LIMIT 1").fetchall()
        conn.execute("SELECT count(*) FROM facts").fetchone()
        conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'a' LIMIT 1").fetchall()
        if (
            migrate
            and not self.read_only
            and conn.execute("SELECT 1 FROM meta WHERE key = ?", (INDEX_ID,)).fetchone() is None
        ):
            # An index made before identities: given one now (its old graph file then no longer matches).
            # Not worth failing the open for: a lock held elsewhere leaves it to the next open.
            with contextlib.suppress(IndexError_), self.write(changes_index=False):
                self._set_meta(INDEX_ID, secrets.token_hex(16))

    def _open_error(self, exc: sqlite3.DatabaseError) -> IndexError_:
        """Why an index that is not corrupt could not be opened, said plainly; the file is left as it is."""
        code = getattr(exc, "sqlite_errorname", None) or ""
        if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            why = (
                f"another program holds the index for more than {self.busy_timeout_ms / 1000:g} s "
                "(memorySearch.store.busyTimeoutMs); try again once it is done"
            )
        elif code.startswith("SQLITE_READONLY"):
            why = f"the index file is read-only ({exc}): make it writable again (its owner or mode, or chattr -i)"
        elif code.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")):
            why = f"{exc}: check that memlane may read and write it and its folder"
        elif code.startswith(("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_NOMEM")):
            why = f"{exc}: the disk, or the memory, failed"
        else:
            why = str(exc)
        return IndexError_(
            f"the index {self.path} could not be opened: {why}. It was left as it is (only a corrupt index is "
            "moved aside and rebuilt)"
        )

    def _quarantine(self, reason: str) -> None:
        """Move a broken index aside (never delete it) and start empty; the files rebuild it."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                try:
                    os.replace(src, Path(f"{self.path}.broken-{stamp}{suffix}"))
                except OSError as exc:
                    raise IndexError_(
                        f"the index {self.path} is unreadable ({reason}) and cannot be moved aside: "
                        f"{exc.strerror or exc}"
                    ) from None
        # The ANN graph (ann.py) and its temporary files are a cache of the index moved aside: never of the next.
        for derived in self.path.parent.glob(self.path.name + ".usearch*"):
            with contextlib.suppress(OSError):
                derived.unlink()
        self.recovered = f"the index at {self.path} could not be used ({reason}); it was moved aside and rebuilt"

    def close(self) -> None:
        with self._lock, self._readers_lock:
            self._conn.close()
            for conn in list(self._all_readers):
                with conn.busy:  # another thread may be mid-read: closing under it would crash SQLite
                    conn.close()
            self._all_readers = weakref.WeakSet()
            self._readers = threading.local()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """This thread's reader connection. In WAL mode it sees the last committed index while a write
        transaction (a background sync's swap) is open on the writer, so searches never wait for one; and
        one per thread lets a search read chunks and facts side by side (SQLite releases the GIL)."""
        conn: _Connection | None = getattr(self._readers, "conn", None)
        if conn is None:
            conn = self._open()
            conn.busy = threading.RLock()
            with self._readers_lock:
                self._all_readers.add(conn)
            self._readers.conn = conn
        with conn.busy:
            yield conn

    @contextlib.contextmanager
    def write(self, changes_index: bool = True) -> Iterator[None]:
        """One write transaction. When it changes the index (files, chunks, meta) it bumps ``generation``
        so readers refresh what they hold; cache-only writes (``changes_index=False``) leave readers be."""
        with self._lock:
            if self.read_only:
                raise IndexError_(f"the index cannot be updated: {self.read_only}; searches use it as it is")
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise self._write_error(exc) from None
            try:
                yield
                if changes_index:
                    self._conn.execute(
                        "INSERT INTO meta(key, value) VALUES('generation', '1') "
                        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                    )
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already (disk full)
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise self._write_error(exc) from None
                raise

    def _write_error(self, exc: sqlite3.OperationalError) -> IndexError_:
        """What a failed index write means, said plainly; the transaction was rolled back."""
        text = str(exc)
        if "locked" in text or "busy" in text:
            why = (
                f"another program holds the index for more than {self.busy_timeout_ms / 1000:g} s "
                "(memorySearch.store.busyTimeoutMs)"
            )
        elif "full" in text or "too large" in text:
            why = "the disk is full"
        elif "disk I/O error" in text:
            why = "a write to the disk failed: disk full, a file-size limit or a failing disk"
        elif "readonly" in text or "read-only" in text:
            why = "the index is read-only"
        else:
            why = text
        return IndexError_(f"the index could not be written ({why}); the previous index is unchanged: {self.path}")

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def set_meta(self, values: dict[str, str]) -> None:
        """Set meta keys; call inside :meth:`write`."""
        for key, value in values.items():
            self._set_meta(key, value)

    def meta(self) -> dict[str, str]:
        with self._reading() as conn:
            return dict(conn.execute("SELECT key, value FROM meta").fetchall())

    def generation(self) -> tuple[int, int]:
        """(epoch, generation): generation moves with every write, epoch with every full reset."""
        with self._reading() as conn:
            rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'epoch')"))
        return int(rows.get("epoch", 0)), int(rows.get("generation", 0))

    def bump_epoch(self) -> None:
        """Make readers reload every vector (vectors arrived for chunks already indexed); inside :meth:`write`."""
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES('epoch', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def counts(self) -> dict[str, int]:
        with self._reading() as c:
            return {
                "files": c.execute("SELECT count(*) FROM files").fetchone()[0],
                "chunks": c.execute("SELECT count(*) FROM chunks").fetchone()[0],
                "chunk_keys": c.execute("SELECT count(*) FROM chunk_keys").fetchone()[0],
                "cache_entries": c.execute("SELECT count(*) FROM embedding_cache").fetchone()[0],
            }

    def check_integrity(self) -> tuple[bool, str]:
        """(ok, what was found): SQLite's quick_check over a separate read-only connection."""
        try:
            conn = sqlite3.connect(_uri(self.path, self._immutable or _quiet(self.path)), uri=True, timeout=5)
            try:
                result = conn.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.Error as exc:
            return False, f"cannot check the index: {exc}"
        return result == "ok", f"SQLite quick_check: {result}"

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(FileNotFoundError):
                total += os.path.getsize(str(self.path) + suffix)
        return total

    def checkpoint(self) -> None:
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
