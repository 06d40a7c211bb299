"""The PostgreSQL store: every agent's index in one database, keyed by agent (``memorySearch.store.driver:
"postgres"``). Needs ``pip install memlane[postgres]`` (psycopg 3 and pgvector) and a server with the
``vector`` extension.

Tables live in one schema (``memorySearch.store.schema``, default ``memlane``) and mirror the SQLite
index, each with ``agent`` first in its primary key (no foreign keys: deletes name the rows they take), the
distribution column a Citus-style deployment
shards on (docs/DESIGN.md §20). ``seq`` numbers come from one identity per table, so they only grow.

- ``chunks`` / ``facts`` carry their ``tsvector`` (the ``memlane`` config, :mod:`.text`) under a GIN index
  without a pending list (``fastupdate = off``): with one, a first index left thousands of rows that
  every search scanned one by one until a vacuum merged them (keyword p50 47 ms instead of 6 at 10k).
- ``embedding_cache`` holds every vector once per agent as ``vector``; a chunk's vector is the entry with
  the live key and the chunk's hash, as in SQLite. Below ``ann_min_rows`` vectors an agent's are searched
  exactly in process, as with SQLite; once an agent holds that many of one dimension count, the write that
  crossed it builds an HNSW expression index (``embedding::vector(d)``, ``vector_cosine_ops``) in one bulk
  pass, and searches ask the server (:meth:`PostgresStore.nearest`).

Writes: :meth:`PostgresStore.write` is one transaction that first takes the agent's advisory lock, so
syncs of one agent from many processes run one after another (a full reindex included) and never
interleave rows; other agents write side by side. Readers use their own autocommit connections and see
only committed states. A lost connection is reconnected and the read retried once; a write that loses its
connection is rolled back by the server and reported (``IndexError_``), never dropped silently.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import ConfigError, IndexError_
from ..dialect import postgres
from ..rows import BUSY_TIMEOUT_MS
from .dsn import redact, scrub
from .schema import PG_SCHEMA_VERSION, SCHEMA_NAME, ddl

try:
    import psycopg
    from pgvector.psycopg import register_vector
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from .facts import PostgresFacts

# Below this many vectors in a table an agent's vectors are searched exactly in process (as in SQLite);
# from it on, by the HNSW index on the server (memorySearch.store.annMinRows).
ANN_MIN_ROWS = 50_000
HNSW_BUILD_MAX_MB = 2048  # the most maintenance_work_mem one HNSW build asks of the server
CONNECT_RETRIES = 3
# A write that adds this many rows refreshes the planner's statistics of the tables it grew.
ANALYZE_AFTER_ROWS = 500
MARK_EVERY = 20_000  # hashes a write marks searched at a time (a first index of 1M chunks would hold them all)
T = TypeVar("T")


class PostgresConnection:
    """One agent's index in a shared PostgreSQL database: connections, the schema, transactions and meta, the
    part of :class:`~.PostgresStore` every other part (chunks, keywords, vectors, cache) stands on."""

    facts: PostgresFacts  # made by PostgresStore, which has all that its facts use of it

    def __init__(
        self,
        url: str,
        agent: str,
        schema: str = "memlane",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        ann_min_rows: int = ANN_MIN_ROWS,
        shared: bool = False,
    ) -> None:
        if psycopg is None:
            raise ConfigError(
                "memorySearch.store.driver is 'postgres' but psycopg is not installed: pip install 'memlane[postgres]'"
            )
        if not SCHEMA_NAME.match(schema):
            raise ConfigError(f"memorySearch.store.schema must be a lower-case SQL name, not {schema!r}")
        self.url = url
        self.agent = agent
        self.schema = schema
        self.dialect = postgres(schema, agent)  # how this store's SQL names tables and its rows (dialect.py)
        self.busy_timeout_ms = busy_timeout_ms
        self.ann_min_rows = ann_min_rows
        self.path = Path(f"postgresql/{schema}/{agent}")  # no file: a name for messages
        self.recovered: str | None = None
        self.read_only: str | None = "another agent's index, shared to read" if shared else None
        self.migrated: list[str] = []
        self._lock = threading.RLock()
        self._readers = threading.local()
        self._all: list[Any] = []
        self._all_lock = threading.Lock()
        self._hnsw_dims: set[int] = set()
        self._closed = False
        self._written = 0  # rows added by the open write
        self._touched: set[str] = set()  # hashes of the chunks and vectors it added, not yet marked searched
        self._new_dims: set[int] = set()  # dimension counts of the vectors the open write marked searched
        self._doc_counts: dict[str, tuple[int, int]] = {}  # table -> (generation, rows)
        # Document frequencies of one generation: (table, columns, phrase) -> (count, the cap it was counted to)
        self._dfs: tuple[int, dict[tuple[str, str, tuple[str, ...], str], tuple[int, int]]] = (-1, {})
        self._conn = self._connect()
        try:
            if shared:
                self._check_shared()
            else:
                self._init_schema()
        except BaseException:
            self.close()
            raise

    @property
    def location(self) -> str:
        return f"{redact(self.url)} (schema {self.schema}, agent {self.agent})"

    def _connect(self) -> Any:
        last: Exception | None = None
        conn = None
        for attempt in range(CONNECT_RETRIES):
            try:
                conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
                break
            except psycopg.OperationalError as exc:
                last = exc
                time.sleep(0.2 * 2**attempt)
            except psycopg.Error as exc:  # a connection string libpq cannot read: no use retrying
                last = exc
                break
        if conn is None:
            why = scrub(str(last).strip(), self.url)  # libpq may quote a part of the string it refused
            raise IndexError_(f"cannot connect to PostgreSQL at {redact(self.url)}: {why}") from None
        with contextlib.suppress(psycopg.ProgrammingError):
            register_vector(conn)  # no extension yet: _init_schema creates it and registers again
        with self._all_lock:
            self._all.append(conn)
        return conn

    def _reader(self) -> Any:
        if self._closed:
            raise IndexError_(f"the index was closed: {self.location}")
        conn = getattr(self._readers, "conn", None)
        if conn is None or conn.closed or conn.broken:
            conn = self._connect()
            self._readers.conn = conn
        return conn

    def _read(self, fn: Callable[[Any], T]) -> T:
        """``fn(connection)`` on this thread's reader; retried once on a fresh connection if it was lost."""
        for attempt in (0, 1):
            conn = self._reader()
            try:
                return fn(conn)
            except psycopg.OperationalError as exc:
                if attempt or not (conn.closed or conn.broken):
                    raise IndexError_(f"a read from PostgreSQL failed: {str(exc).strip()}") from None
                self._readers.conn = None
        raise AssertionError("unreachable")

    def _rows(self, sql: str, params: Sequence[Any] = (), binary: bool = False) -> list[Any]:
        return self._read(lambda c: c.execute(sql, params, binary=binary).fetchall())

    def _t(self, table: str) -> str:
        return self.dialect.table(table)

    def _init_schema(self) -> None:
        with self._lock, self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('memlane:schema', 0))")
            for stmt in ddl(self.schema):
                self._conn.execute(stmt)
            row = self._conn.execute(f"SELECT version FROM {self._t('schema_info')}").fetchone()
            if row is None:
                self._conn.execute(f"INSERT INTO {self._t('schema_info')} VALUES (%s)", (PG_SCHEMA_VERSION,))
            elif row[0] != PG_SCHEMA_VERSION:
                # A team's database is never dropped or rebuilt behind its back: say so and stop.
                raise IndexError_(
                    f"the PostgreSQL schema {self.schema} is version {row[0]}, this memlane uses {PG_SCHEMA_VERSION}"
                )
            self._conn.execute(
                f"INSERT INTO {self._t('meta')} VALUES (%s, 'schema_version', %s) ON CONFLICT DO NOTHING",
                (self.agent, str(PG_SCHEMA_VERSION)),
            )
            self._ensure_ann()  # an index that grew past annMinRows under another setting
        register_vector(self._conn)

    def _check_shared(self) -> None:
        try:
            row = self._conn.execute(
                f"SELECT 1 FROM {self._t('meta')} WHERE agent = %s AND key = 'schema_version'", (self.agent,)
            ).fetchone()
        except psycopg.Error as exc:
            raise IndexError_(f"no memlane index in {self.location}: {str(exc).strip()}") from None
        if row is None:
            raise IndexError_(f"no index of agent {self.agent!r} in {redact(self.url)}")

    def close(self) -> None:
        self._closed = True
        with self._lock, self._all_lock:
            for conn in self._all:
                with contextlib.suppress(Exception):
                    conn.close()
            self._all.clear()
            self._readers = threading.local()

    @contextlib.contextmanager
    def write(self, changes_index: bool = True) -> Iterator[None]:
        """One transaction under the agent's advisory lock; bumps ``generation`` when it changes the index."""
        with self._lock:
            if self.read_only:
                raise IndexError_(f"the index cannot be updated: {self.read_only}; searches use it as it is")
            if self._closed:
                raise IndexError_(f"the index was closed: {self.location}")
            if self._conn.closed or self._conn.broken:
                self._conn = self._connect()
            try:
                with self._conn.transaction():
                    self._conn.execute(f"SET LOCAL lock_timeout = {int(self.busy_timeout_ms)}")
                    lock = f"memlane:{self.schema}:{self.agent}"
                    self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (lock,))
                    self._written = 0
                    self._touched, self._new_dims = set(), set()
                    yield
                    self._mark_searched()
                    if changes_index:
                        self._bump("generation")
                    if changes_index and self._new_dims - self._hnsw_dims:  # only new vectors cross annMinRows
                        self._ensure_ann()
                if self._written >= ANALYZE_AFTER_ROWS:
                    self._analyze_grown()
            except psycopg.errors.LockNotAvailable:
                raise IndexError_(
                    f"the index could not be written (another program holds the index for more than "
                    f"{self.busy_timeout_ms / 1000:g} s (memorySearch.store.busyTimeoutMs): agent {self.agent!r}'s "
                    f"advisory lock); the previous index is unchanged: {self.location}"
                ) from None
            except psycopg.OperationalError as exc:
                raise IndexError_(
                    f"the index could not be written (the connection to PostgreSQL failed: {str(exc).strip()}); "
                    f"the transaction was rolled back and the previous index is unchanged: {self.location}"
                ) from None

    def _analyze_grown(self) -> None:
        """Fresh planner statistics for the tables this write at least doubled. Right after a first index
        the planner believed the cache held one row and joined keys to vectors by scanning it per key (80 ms
        a search at 1k chunks); past that, autovacuum's own analyze (10% of a table changed) keeps up, and
        analyzing big tables after every small write cost a one-file sync ~0.9 s at 100k chunks."""
        tables = [self._t(t) for t in ("chunks", "chunk_keys", "embedding_cache", "facts")]
        stale = [
            name
            for name, tuples in self._conn.execute(
                "SELECT c.oid::regclass::text, c.reltuples FROM pg_class c WHERE c.oid = ANY(%s::regclass[])",
                (tables,),
            ).fetchall()
            if tuples < self._written
        ]
        if stale:
            self._conn.execute("ANALYZE " + ", ".join(stale))

    def _x(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """A statement of the open write transaction."""
        return self._conn.execute(sql, params)

    def _bump(self, key: str) -> None:
        self._x(
            f"INSERT INTO {self._t('meta')} VALUES (%s, %s, '1') ON CONFLICT (agent, key) "
            "DO UPDATE SET value = (meta.value::bigint + 1)::text",
            (self.agent, key),
        )

    def set_meta(self, values: dict[str, str]) -> None:
        for key, value in values.items():
            self._x(
                f"INSERT INTO {self._t('meta')} VALUES (%s, %s, %s) ON CONFLICT (agent, key) "
                "DO UPDATE SET value = excluded.value",
                (self.agent, key, value),
            )

    def meta(self) -> dict[str, str]:
        return dict(self._rows(f"SELECT key, value FROM {self._t('meta')} WHERE agent = %s", (self.agent,)))

    def generation(self) -> tuple[int, int]:
        rows = dict(
            self._rows(
                f"SELECT key, value FROM {self._t('meta')} WHERE agent = %s AND key IN ('generation', 'epoch')",
                (self.agent,),
            )
        )
        return int(rows.get("epoch", 0)), int(rows.get("generation", 0))

    def bump_epoch(self) -> None:
        self._bump("epoch")

    def counts(self) -> dict[str, int]:
        def count(table: str) -> int:
            return int(self._rows(f"SELECT count(*) FROM {self._t(table)} WHERE agent = %s", (self.agent,))[0][0])

        return {
            "files": count("files"),
            "chunks": count("chunks"),
            "chunk_keys": count("chunk_keys"),
            "cache_entries": count("embedding_cache"),
        }

    def doc_count(self, table: str, gen: int | None = None) -> int:
        """Rows of ``table`` for this agent, counted once per index generation (``gen``: already read)."""
        if gen is None:
            _, gen = self.generation()
        cached = self._doc_counts.get(table)
        if cached is not None and cached[0] == gen:
            return cached[1]
        n = int(self._rows(f"SELECT count(*) FROM {self._t(table)} WHERE agent = %s", (self.agent,))[0][0])
        self._doc_counts[table] = (gen, n)
        return n

    def size_bytes(self) -> int:
        """The whole schema on disk, tables and indexes (every agent's: rows are not sized one by one)."""
        rows = self._rows(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (self.schema,),
        )
        return int(rows[0][0])

    def check_integrity(self) -> tuple[bool, str]:
        try:
            version = self._rows(f"SELECT version FROM {self._t('schema_info')}")[0][0]
            self._rows(f"SELECT seq FROM {self._t('chunks')} WHERE agent = %s LIMIT 1", (self.agent,))
            server = self._rows("SHOW server_version")[0][0]
        except (IndexError_, psycopg.Error) as exc:
            return False, f"cannot read the index: {exc}"
        return version == PG_SCHEMA_VERSION, f"PostgreSQL {server}, schema {self.schema} version {version}"

    def checkpoint(self) -> None:
        """Nothing to do: the server manages its write-ahead log."""

    def _touch(self, hashes: Iterable[str]) -> None:
        """Hashes whose chunk or vector the open write just inserted, to be marked searched. Whichever of
        the two is written second marks the pair, so call it after the insert."""
        self._touched.update(hashes)
        if len(self._touched) >= MARK_EVERY:
            self._mark_searched()

    def _mark_searched(self) -> None:
        """Mark the cache entries that are a chunk's vector (``searched``): only those go into the HNSW
        index. Keys (three vectors in four on chat logs) are read by their chunk, never searched by nearness,
        and left out of it the graph builds about four times faster. Runs every ``MARK_EVERY`` hashes, so
        a first index of a million chunks does not hold them all."""
        if not self._touched:
            return
        cache, chunks = self._t("embedding_cache"), self._t("chunks")
        # Driven from the hashes: written as "hash = ANY(array) AND EXISTS (...)" the planner probed the
        # whole array once per chunk (5,000 chunks: 9 s; 100k: did not finish).
        marked = self._x(
            f"WITH m AS (UPDATE {cache} e SET searched = true FROM unnest(%s::text[]) AS u(hash) "
            f"WHERE e.agent = %s AND e.hash = u.hash AND NOT e.searched "
            f"AND EXISTS (SELECT 1 FROM {chunks} c WHERE c.agent = %s AND c.hash = u.hash) "
            "RETURNING e.dims) SELECT DISTINCT dims FROM m",
            (list(self._touched), self.agent, self.agent),
        ).fetchall()
        self._new_dims.update(int(d) for (d,) in marked)
        self._touched = set()

    def _ensure_ann(self) -> None:
        """Build the HNSW index of each dimension count once the agent holds ``ann_min_rows`` vectors of it
        (in the open write; one bulk build is much faster than growing the graph row by row, so small
        indexes never pay for it). One expression index per dimension count: one column holds every
        model's vectors, and pgvector indexes only a fixed ``vector(d)``."""
        cache = self._t("embedding_cache")
        for dims, n in self._x(
            f"SELECT dims, count(*) FROM {cache} WHERE agent = %s AND searched GROUP BY dims", (self.agent,)
        ).fetchall():
            name = f"embedding_cache_hnsw_{int(dims)}"
            if dims in self._hnsw_dims or n < self.ann_min_rows or dims > 2000:  # pgvector: up to 2,000
                continue
            exists = self._x(
                "SELECT 1 FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = %s "
                "AND c.relname = %s",
                (self.schema, name),
            ).fetchone()
            if exists is None:
                # The graph builds fast only while it fits in maintenance_work_mem (~1.7 kB a 384-d vector
                # with its links): at 64 MB, the default, 400k vectors took over 25 minutes.
                memory_mb = min(HNSW_BUILD_MAX_MB, max(64, int(n * (4 * dims + 300) * 1.3 / 1e6)))
                self._x(f"SET LOCAL maintenance_work_mem = '{memory_mb}MB'")
                self._x(
                    f"CREATE INDEX IF NOT EXISTS {name} ON {cache} USING hnsw "
                    f"((embedding::vector({int(dims)})) vector_cosine_ops) WHERE dims = {int(dims)} AND searched"
                )
            self._hnsw_dims.add(int(dims))


def agents_in(url: str, schema: str = "memlane") -> list[str]:
    """Every agent with an index in the schema (``memorySearch.shared: "*"``)."""
    if psycopg is None or not SCHEMA_NAME.match(schema):
        return []
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            rows = conn.execute(
                f"SELECT DISTINCT agent FROM {schema}.meta WHERE key = 'schema_version' ORDER BY agent"
            ).fetchall()
    except psycopg.Error as exc:
        raise IndexError_(f"cannot list the agents in {redact(url)}: {scrub(str(exc).strip(), url)}") from None
    return [r[0] for r in rows]
