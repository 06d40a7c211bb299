"""The SQLite store: schema, writes, keyword search and the vectors of the live index.

Tables (the spec's, with two deliberate changes recorded in docs/DESIGN.md):

- ``meta(key, value)``: schema version, index fingerprint, provider/model, generation.
- ``files(path, source, hash, mtime, size)``: what was indexed, to skip unchanged files.
- ``chunks(seq, id, path, source, start_line, end_line, hash, model, text, cjk, updated_at)``:
  ``seq`` is a stable integer key for FTS; ``cjk`` holds CJK bigrams for the word index.
- ``embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at)``:
  every vector, float32 BLOB, stored once. A chunk's vector is the entry with the index's
  provider/model/key and the chunk's text hash, so unchanged text is never embedded twice
  and the live index costs no second copy. Entries a live chunk uses are never pruned.
- ``chunks_fts``: FTS5 over ``chunks(text, cjk)`` (external content, kept by triggers),
  ``porter unicode61 remove_diacritics 2``.
- the fact tables (``facts``, ``fact_mentions``, ``entity_names``, ``fact_problems``, ``facts_fts``):
  see :mod:`memlane.store.facts`.

Schema changes are ordered migrations applied on open (``MIGRATIONS``); an index of an unknown
version, or a corrupt one, is moved aside and rebuilt from the Markdown. An index that is only locked,
read-only or out of reach is left where it is (moving it aside would throw away its embedding cache).

All writes go through :meth:`SQLiteStore.write`: one ``BEGIN IMMEDIATE`` transaction, so a
reader never sees half of a change and a killed writer leaves the previous state.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import IndexError_
from ..facts import FACT_DROP, FACT_SCHEMA, FACT_TABLES, SQLiteFacts
from ..slices import in_slices

# The chunks' full-text tokenizer; query terms are tokenized the same way to look up their frequencies.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

SCHEMA_VERSION = 4
PAGE_SIZE = 16384
BUSY_TIMEOUT_MS = 30_000
# meta key of a random id given to each index when it is made or reset: files derived from one index (the
# ANN graph of ann.py) name it, so that they are never taken for those of another index at the same path.
INDEX_ID = "index_id"
# SQLite's result codes (and their extended forms) of a file that is damaged or not a database at all.
_CORRUPT_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")

_BASE_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS files (
      path TEXT PRIMARY KEY,
      source TEXT NOT NULL DEFAULT 'memory',
      hash TEXT NOT NULL,
      mtime INTEGER NOT NULL,
      size INTEGER NOT NULL)""",
    # WITHOUT ROWID: the key is stored once, not again in a separate index (~90 bytes a vector).
    """CREATE TABLE IF NOT EXISTS embedding_cache (
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      provider_key TEXT NOT NULL,
      hash TEXT NOT NULL,
      embedding BLOB NOT NULL,
      dims INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (provider, model, provider_key, hash)) WITHOUT ROWID""",
    # Vendor batch jobs started and not yet collected: a sync after a restart resumes them.
    """CREATE TABLE IF NOT EXISTS batch_jobs (
      job_id TEXT PRIMARY KEY,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      provider_key TEXT NOT NULL,
      hashes TEXT NOT NULL,
      created_at INTEGER NOT NULL)""",
]
# A chunk's keys (keys.py): one vector per item of the chunk, found through the embedding cache by hash.
_KEY_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS chunk_keys (
      seq INTEGER PRIMARY KEY,
      chunk_seq INTEGER NOT NULL,
      hash TEXT NOT NULL,
      assistant INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS idx_chunk_keys_chunk ON chunk_keys(chunk_seq)",
]
# A chunk's text in anyone's words but an assistant's (keys.said_text), with its own content: the user-text
# keyword leg (query.hybrid.userTextWeight). Same columns as chunks_fts, so one MATCH expression serves both.
_SAID_SCHEMA = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_said_fts USING fts5(text, cjk, tokenize='{FTS_TOKENIZER}')""",
]
# Recreated as a unit by reset(): plain statements, no executescript (it would commit).
_CHUNK_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS chunks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      path TEXT NOT NULL,
      source TEXT NOT NULL DEFAULT 'memory',
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      hash TEXT NOT NULL,
      model TEXT NOT NULL,
      text TEXT NOT NULL,
      cjk TEXT NOT NULL DEFAULT '',
      updated_at INTEGER NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path, start_line)",
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
      text, cjk, content='chunks', content_rowid='seq',
      tokenize='{FTS_TOKENIZER}')""",
    """CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, text, cjk) VALUES (new.seq, new.text, new.cjk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, text, cjk) VALUES ('delete', old.seq, old.text, old.cjk);
      DELETE FROM chunk_keys WHERE chunk_seq = old.seq;
      DELETE FROM chunks_said_fts WHERE rowid = old.seq;
    END""",
    *_KEY_SCHEMA,
    *_SAID_SCHEMA,
]

_TABLES = {"meta", "files", "chunks", "chunk_keys", "embedding_cache", "chunks_fts", "chunks_said_fts"} | FACT_TABLES
# Tables that hold rows with a vector (``seq`` and ``hash`` columns): what vector loads may name.
VECTOR_TABLES = {"chunks": "idx_chunks_path", "facts": "idx_facts_path"}


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Version 2 adds the fact tables. Forgetting the fingerprint makes the next sync a full reindex,
    so facts are derived from files the index already holds (their vectors come from the cache)."""
    for stmt in FACT_SCHEMA:
        conn.execute(stmt)
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


def _renew_chunk_schema(conn: sqlite3.Connection) -> None:
    """Versions 3 and 4 add a table beside the chunks (3: chunk keys; 4: the user-text index
    ``chunks_said_fts``) that the chunk delete trigger empties too: the trigger is made again with the rest of
    the chunk schema. The next sync is a full reindex (the fingerprint is forgotten) that fills the new table;
    chunk and fact vectors come from the cache, only keys new in version 3 are embedded."""
    conn.execute("DROP TRIGGER IF EXISTS chunks_ad")
    for stmt in _CHUNK_SCHEMA:
        conn.execute(stmt)
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


# (from version, to version, step): applied in order on open, each in its own transaction.
MIGRATIONS = [(1, 2, _migrate_1_to_2), (2, 3, _renew_chunk_schema), (3, 4, _renew_chunk_schema)]


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk ready to be written."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    hash: str
    text: str
    cjk: str = ""
    # (hash, text, said by an assistant) of the texts whose vectors also stand for this chunk (keys.py)
    keys: tuple[tuple[str, str, bool], ...] = ()
    # the text in anyone's words but an assistant's (keys.said_text), and its CJK terms: the user-text leg
    said: str = ""
    said_cjk: str = ""


@dataclass(frozen=True, slots=True)
class StoredChunk:
    seq: int
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class FileState:
    hash: str
    mtime: int
    size: int
    source: str


@dataclass(frozen=True, slots=True)
class EmbeddingKey:
    """Which model's vectors: (provider, model, provider_key)."""

    provider: str
    model: str
    provider_key: str


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


def _now_ms() -> int:
    return int(time.time() * 1000)


def _blob(vec: npt.NDArray[np.float32]) -> bytes:
    return np.asarray(vec, dtype="<f4").tobytes()


# Per connection, in TEMP: a scratch table that tokenizes query terms, its tokens, and the chunks' vocabulary.
_QUERY_VOCAB = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5(text, tokenize='{FTS_TOKENIZER}')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_token_list USING fts5vocab(temp, query_tokens, 'instance')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_vocab USING fts5vocab(main, chunks_fts, 'row')",
)


class SQLiteStore:
    """One agent's index in one SQLite file (WAL mode, one writer at a time)."""

    driver = "sqlite"
    text_search = f"FTS5 {FTS_TOKENIZER}"

    @property
    def location(self) -> str:
        return str(self.path)

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

    @classmethod
    def open_shared(cls, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> SQLiteStore:
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
    def inspect(cls, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> SQLiteStore:
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

    # -- opening, checking, recovering
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
                for stmt in _BASE_SCHEMA + _CHUNK_SCHEMA + FACT_SCHEMA:
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
        if not tables >= _TABLES or version != str(SCHEMA_VERSION):
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

    # -- transactions
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

    # -- meta
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

    def vector_rows(self, table: str = "chunks") -> int:
        """Rows of ``table`` (chunks or facts): one count, where :meth:`counts` makes four."""
        assert table in VECTOR_TABLES
        with self._reading() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def live_seqs(self, table: str = "chunks") -> npt.NDArray[np.int64]:
        """Every seq of ``table`` (chunks or facts), ascending."""
        index = VECTOR_TABLES[table]
        with self._reading() as conn:
            rows = conn.execute(f"SELECT seq FROM {table} INDEXED BY {index}").fetchall()
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        seqs.sort()
        return seqs

    def vectors_for(
        self, key: EmbeddingKey, seqs: npt.NDArray[np.int64], dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """(seqs, matrix) for those of ``seqs`` of ``table`` that have a vector, ascending."""
        assert table in VECTOR_TABLES
        found_seqs: list[int] = []
        blobs: list[bytes] = []
        ids = [int(x) for x in seqs]
        with self._reading() as conn:
            for part, marks in in_slices(ids):
                rows = conn.execute(
                    f"SELECT c.seq, e.embedding FROM {table} c JOIN embedding_cache e ON e.hash = c.hash "
                    "AND e.provider=? AND e.model=? AND e.provider_key=? "
                    f"WHERE c.seq IN ({marks}) ORDER BY c.seq",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                for seq, blob in rows:
                    found_seqs.append(seq)
                    blobs.append(blob)
        matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dims).copy()
        return np.asarray(found_seqs, dtype=np.int64), matrix

    # -- files and chunks
    def file_states(self) -> dict[str, FileState]:
        with self._reading() as conn:
            rows = conn.execute("SELECT path, hash, mtime, size, source FROM files").fetchall()
        return {p: FileState(h, m, s, src) for p, h, m, s, src in rows}

    def indexed_state(self, path: str) -> FileState | None:
        """What the index records for ``path`` as this write transaction sees it; call inside :meth:`write`."""
        row = self._conn.execute("SELECT hash, mtime, size, source FROM files WHERE path = ?", (path,)).fetchone()
        return FileState(*row) if row else None

    def set_file_state(self, path: str, state: FileState) -> None:
        """Record a file as indexed; call inside :meth:`write`."""
        self._conn.execute(
            "INSERT INTO files(path, source, hash, mtime, size) VALUES(?,?,?,?,?) "
            "ON CONFLICT(path) DO UPDATE SET source=excluded.source, hash=excluded.hash, "
            "mtime=excluded.mtime, size=excluded.size",
            (path, state.source, state.hash, state.mtime, state.size),
        )

    def replace_chunks(self, path: str, rows: Sequence[ChunkRow], model: str) -> None:
        """Make ``rows`` the chunks of ``path``; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self.add_chunks(rows, model)

    def add_chunks(self, rows: Sequence[ChunkRow], model: str) -> None:
        """Add chunks, keeping those already there (a transcript's new tail); call inside :meth:`write`."""
        now = _now_ms()
        for r in rows:
            cur = self._conn.execute(
                "INSERT INTO chunks(id, path, source, start_line, end_line, hash, model, text, cjk, updated_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?)",
                (r.id, r.path, r.source, r.start_line, r.end_line, r.hash, model, r.text, r.cjk, now),
            )
            if r.keys:
                self._conn.executemany(
                    "INSERT INTO chunk_keys(chunk_seq, hash, assistant) VALUES(?, ?, ?)",
                    [(cur.lastrowid, h, int(a)) for h, _, a in r.keys],
                )
            self._conn.execute(
                "INSERT INTO chunks_said_fts(rowid, text, cjk) VALUES(?, ?, ?)", (cur.lastrowid, r.said, r.said_cjk)
            )

    def delete_file(self, path: str) -> None:
        """Forget a file, its chunks and its facts; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self._conn.execute("DELETE FROM files WHERE path = ?", (path,))
        self.facts.delete_file(path)

    def reset(self) -> None:
        """Empty files, chunks, facts and the word indexes; call inside :meth:`write` (so it is atomic).

        Bumps ``epoch``: chunk numbers start again after a reset, so readers must reload all vectors; and
        gives the index a new identity, so nothing derived from the old one (ann.py's graph) is taken for it.
        """
        self.bump_epoch()
        self._set_meta(INDEX_ID, secrets.token_hex(16))
        self._conn.execute("DELETE FROM files")
        # Dropping and recreating is much faster than deleting row by row through the FTS triggers.
        for stmt in (
            "DROP TRIGGER chunks_ai",
            "DROP TRIGGER chunks_ad",
            "DROP TABLE chunks_fts",
            "DROP TABLE chunks",
            "DROP TABLE chunk_keys",
            "DROP TABLE chunks_said_fts",
        ):
            self._conn.execute(stmt)
        for stmt in FACT_DROP:
            self._conn.execute(stmt)
        for stmt in _CHUNK_SCHEMA + FACT_SCHEMA:
            self._conn.execute(stmt)

    def key_similarities(
        self, key: EmbeddingKey, chunk_seqs: Sequence[int], query_vec: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
        """(owner chunk seq, said by an assistant, embedded yet, cosine to ``query_vec``), a row per key of
        ``chunk_seqs`` (0 where not embedded yet: a batch job may still be running), read on demand: keys are
        several per chunk, so they stay on disk instead of in RAM beside the chunk matrix."""
        owners: list[int] = []
        assistant: list[bool] = []
        blobs: list[bytes | None] = []
        with self._reading() as conn:
            for part, marks in in_slices([int(x) for x in chunk_seqs]):
                rows = conn.execute(
                    "SELECT k.chunk_seq, k.assistant, e.embedding FROM chunk_keys k LEFT JOIN embedding_cache e "
                    "ON e.provider=? AND e.model=? AND e.provider_key=? AND e.hash = k.hash "
                    f"WHERE k.chunk_seq IN ({marks})",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                for seq, said, blob in rows:
                    owners.append(seq)
                    assistant.append(bool(said))
                    blobs.append(blob)
        zero = bytes(4 * len(query_vec))
        matrix = np.frombuffer(b"".join(b or zero for b in blobs), dtype="<f4").reshape(len(blobs), len(query_vec))
        embedded = np.asarray([b is not None for b in blobs], dtype=np.bool_)
        return np.asarray(owners, dtype=np.int64), np.asarray(assistant, dtype=np.bool_), embedded, matrix @ query_vec

    def keys_without_vectors(self, key: EmbeddingKey) -> int:
        """Chunk keys with no vector for ``key`` yet (a batch job still out, or another model's index)."""
        with self._reading() as conn:
            row = conn.execute(
                "SELECT count(*) FROM chunk_keys k WHERE NOT EXISTS (SELECT 1 FROM embedding_cache e "
                "WHERE e.provider=? AND e.model=? AND e.provider_key=? AND e.hash = k.hash)",
                (key.provider, key.model, key.provider_key),
            ).fetchone()
        return int(row[0])

    def chunks_by_seq(self, seqs: Iterable[int]) -> dict[int, StoredChunk]:
        ids = list(seqs)
        found: dict[int, StoredChunk] = {}
        with self._reading() as conn:
            for part, marks in in_slices(ids):
                rows = conn.execute(
                    f"SELECT seq, id, path, source, start_line, end_line, text FROM chunks WHERE seq IN ({marks})",
                    part,
                ).fetchall()
                found.update((r[0], StoredChunk(*r)) for r in rows)
        return found

    def last_line(self, path: str) -> int:
        """The last line of ``path`` that a chunk covers (0 if none)."""
        with self._reading() as conn:
            row = conn.execute("SELECT max(end_line) FROM chunks WHERE path = ?", (path,)).fetchone()
        return int(row[0] or 0)

    def lines_of(self, path: str, start: int, end: int) -> list[str]:
        """Lines ``start..end`` of an indexed file, rebuilt from its chunks ('' where none covers a line)."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT start_line, end_line, text FROM chunks WHERE path = ? AND end_line >= ? AND start_line <= ? "
                "ORDER BY start_line, seq",
                (path, start, end),
            ).fetchall()
        return lines_from_chunks(rows, start, end)

    def term_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(chunks indexed, {term: chunks containing it}) for query terms, read off the FTS vocabulary.

        Each term goes through FTS5's own tokenizer (a scratch table in this connection's TEMP schema), so
        "projects" is looked up as the stem "project"; a term of several tokens ("well-being") counts as its
        rarest token, an upper bound of the phrase."""
        with self._reading() as conn:
            for ddl in _QUERY_VOCAB:
                conn.execute(ddl)
            conn.execute("DELETE FROM temp.query_tokens")
            conn.executemany("INSERT INTO temp.query_tokens(rowid, text) VALUES(?, ?)", enumerate(terms, 1))
            tokens: dict[int, list[str]] = {}
            for doc, token in conn.execute("SELECT doc, term FROM temp.query_token_list"):
                tokens.setdefault(int(doc), []).append(token)
            unique = sorted({t for ts in tokens.values() for t in ts})
            counts: dict[str, int] = {}
            for part, marks in in_slices(unique):
                counts.update(conn.execute(f"SELECT term, doc FROM temp.chunk_vocab WHERE term IN ({marks})", part))
            (total,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
        return int(total), {
            term: min((counts.get(t, 0) for t in tokens.get(i, [])), default=0) for i, term in enumerate(terms, 1)
        }

    def keyword_search(self, match: str, limit: int, said: bool = False) -> list[tuple[int, float]]:
        """(seq, bm25 relevance >= 0, higher is better) for an FTS5 MATCH expression; ``said``: matched in the
        chunks' text in anyone's words but an assistant's (keys.said_text) instead of their whole text."""
        fts = "chunks_said_fts" if said else "chunks_fts"
        sql = f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ? ORDER BY rank LIMIT ?"
        with self._reading() as conn:
            try:
                rows = conn.execute(sql, (match, limit)).fetchall()
            except sqlite3.OperationalError as exc:
                raise IndexError_(f"keyword search failed for {match!r}: {exc}") from None
        return [(int(seq), float(score)) for seq, score in rows]

    # -- vectors
    def cached_hashes(self, key: EmbeddingKey, hashes: Sequence[str]) -> set[str]:
        """Which of ``hashes`` already have a vector for ``key`` (the vectors themselves are not read)."""
        found: set[str] = set()
        unique = list(dict.fromkeys(hashes))
        with self._reading() as conn:
            for part, marks in in_slices(unique):
                rows = conn.execute(
                    "SELECT hash FROM embedding_cache WHERE provider=? AND model=? AND provider_key=? "
                    f"AND hash IN ({marks})",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                found.update(h for (h,) in rows)
        return found

    def put_vectors(self, key: EmbeddingKey, vectors: dict[str, npt.NDArray[np.float32]]) -> None:
        """Store vectors by text hash; call inside :meth:`write`."""
        now = _now_ms()
        self._conn.executemany(
            "INSERT INTO embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at) "
            "VALUES(?,?,?,?,?,?,?) ON CONFLICT DO UPDATE SET updated_at=excluded.updated_at",
            [
                (key.provider, key.model, key.provider_key, h, _blob(v), int(v.shape[0]), now)
                for h, v in vectors.items()
            ],
        )

    def touch_vectors(self, key: EmbeddingKey, hashes: Sequence[str]) -> None:
        """Mark cache entries as recently used (LRU); call inside :meth:`write`."""
        now = _now_ms()
        self._conn.executemany(
            "UPDATE embedding_cache SET updated_at=? WHERE provider=? AND model=? AND provider_key=? AND hash=?",
            [(now, key.provider, key.model, key.provider_key, h) for h in hashes],
        )

    def load_vectors(
        self, key: EmbeddingKey, dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The live index's (seqs, matrix): one unit vector per row of ``table`` (chunks or facts) that has one.

        Rows are streamed into a preallocated matrix: holding them all as Python bytes first would
        double the peak memory (170 MB more at 100k chunks).
        """
        with self._reading() as conn:
            assert table in VECTOR_TABLES
            total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            seqs = np.empty(total, dtype=np.int64)
            matrix = np.empty((total, dims), dtype=np.float32)
            cursor = conn.execute(
                f"SELECT c.seq, e.embedding FROM {table} c JOIN embedding_cache e "
                "ON e.hash = c.hash AND e.provider=? AND e.model=? AND e.provider_key=? ORDER BY c.seq",
                (key.provider, key.model, key.provider_key),
            )
            n = 0
            while rows := cursor.fetchmany(2048):
                for seq, blob in rows:
                    if n == total:  # a chunk was added since the count: the next generation will load it
                        break
                    seqs[n] = seq
                    matrix[n] = np.frombuffer(blob, dtype="<f4")
                    n += 1
        if n < total:
            return seqs[:n].copy(), matrix[:n].copy()
        return seqs, matrix

    def prune_cache(self, live: EmbeddingKey | None, max_entries: int) -> int:
        """Drop least-recently-used entries beyond ``max_entries`` that no live chunk uses.

        Call inside :meth:`write`. Returns how many were dropped.
        """
        params: list[Any] = []
        live_clause = ""
        if live is not None:
            live_clause = (
                "AND NOT (provider=? AND model=? AND provider_key=? "
                "AND hash IN (SELECT hash FROM chunks UNION SELECT hash FROM chunk_keys UNION SELECT hash FROM facts))"
            )
            params = [live.provider, live.model, live.provider_key]
        spare = self._conn.execute(f"SELECT count(*) FROM embedding_cache WHERE 1=1 {live_clause}", params).fetchone()[
            0
        ]
        excess = spare - max_entries
        if excess <= 0:
            return 0
        self._conn.execute(
            "DELETE FROM embedding_cache WHERE (provider, model, provider_key, hash) IN "
            "(SELECT provider, model, provider_key, hash FROM embedding_cache "
            f"WHERE 1=1 {live_clause} ORDER BY updated_at LIMIT ?)",
            [*params, excess],
        )
        return int(excess)

    # -- vendor batch jobs
    def add_batch_job(self, key: EmbeddingKey, job_id: str, hashes: Sequence[str]) -> None:
        """Remember a submitted job and the text hashes it embeds; call inside :meth:`write`."""
        self._conn.execute(
            "INSERT OR REPLACE INTO batch_jobs(job_id, provider, model, provider_key, hashes, created_at) "
            "VALUES(?,?,?,?,?,?)",
            (job_id, key.provider, key.model, key.provider_key, json.dumps(list(hashes)), _now_ms()),
        )

    def batch_jobs(self, key: EmbeddingKey) -> dict[str, list[str]]:
        """Uncollected jobs of ``key``: job id -> text hashes, oldest first."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT job_id, hashes FROM batch_jobs WHERE provider=? AND model=? AND provider_key=? "
                "ORDER BY created_at",
                (key.provider, key.model, key.provider_key),
            ).fetchall()
        return {job: json.loads(hashes) for job, hashes in rows}

    def drop_batch_job(self, job_id: str) -> None:
        """Forget a job; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM batch_jobs WHERE job_id = ?", (job_id,))

    def bump_epoch(self) -> None:
        """Make readers reload every vector (vectors arrived for chunks already indexed); inside :meth:`write`."""
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES('epoch', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # -- status
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


def lines_from_chunks(rows: Iterable[tuple[int, int, str]], start: int, end: int) -> list[str]:
    """Lines ``start..end`` rebuilt from (start line, end line, text) of the chunks covering them, in
    order ('' where none covers a line; the pieces of an over-long line joined)."""
    lines: dict[int, str] = {}
    pieces: dict[int, list[str]] = {}
    for s, e, text in rows:
        if s == e and "\n" not in text:
            pieces.setdefault(s, [])
            if text not in pieces[s]:
                pieces[s].append(text)  # a piece of an over-long line
            continue
        for offset, line in enumerate(text.split("\n")):
            lines.setdefault(s + offset, line)
    for n, parts in pieces.items():
        lines.setdefault(n, " ".join(parts))
    return [lines.get(n, "") for n in range(start, end + 1)]


def fingerprint_json(values: dict[str, Any]) -> str:
    return json.dumps(values, sort_keys=True, separators=(",", ":"))
