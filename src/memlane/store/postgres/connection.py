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
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

import numpy as np
import numpy.typing as npt

from ...errors import ConfigError, IndexError_
from ..rows import BUSY_TIMEOUT_MS, ChunkRow, EmbeddingKey, FileState, StoredChunk, lines_from_chunks
from .facts import PostgresFacts
from .text import MatchTerm, df_cap, fold, idf, parse_match

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]

PG_SCHEMA_VERSION = 1
VECTOR_TABLES = ("chunks", "facts")
# Below this many vectors in a table an agent's vectors are searched exactly in process (as in SQLite);
# from it on, by the HNSW index on the server (memorySearch.store.annMinRows).
ANN_MIN_ROWS = 50_000
HNSW_EF_SEARCH = 100
DF_CACHE_MAX = 50_000  # document frequencies kept for one generation (a few MB), then counted afresh
# Keyword candidates on big indexes (selective()): terms in at most this share of the rows, the 3 rarest at least.
SELECTIVE_MIN_ROWS = 5_000
SELECTIVE_SHARE = 0.01
SELECTIVE_KEEP = 3
HNSW_BUILD_MAX_MB = 2048  # the most maintenance_work_mem one HNSW build asks of the server
CONNECT_RETRIES = 3
# A write that adds this many rows refreshes the planner's statistics of the tables it grew.
ANALYZE_AFTER_ROWS = 500
MARK_EVERY = 20_000  # hashes a write marks searched at a time (a first index of 1M chunks would hold them all)
T = TypeVar("T")
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _ddl(s: str) -> list[str]:
    """The tables of schema ``s``, idempotent."""
    return [
        f"CREATE SCHEMA IF NOT EXISTS {s}",
        "CREATE EXTENSION IF NOT EXISTS vector",
        f"CREATE TABLE IF NOT EXISTS {s}.schema_info (version integer NOT NULL)",
        f"""DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'memlane' AND cfgnamespace = '{s}'::regnamespace)
          THEN
            CREATE TEXT SEARCH DICTIONARY {s}.memlane_stem (TEMPLATE = snowball, Language = english);
            CREATE TEXT SEARCH CONFIGURATION {s}.memlane (COPY = pg_catalog.english);
            ALTER TEXT SEARCH CONFIGURATION {s}.memlane
              ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
              WITH {s}.memlane_stem;
          END IF;
        END $$""",
        f"""CREATE TABLE IF NOT EXISTS {s}.meta (
          agent text NOT NULL, key text NOT NULL, value text NOT NULL, PRIMARY KEY (agent, key))""",
        f"""CREATE TABLE IF NOT EXISTS {s}.files (
          agent text NOT NULL, path text NOT NULL, source text NOT NULL, hash text NOT NULL,
          mtime bigint NOT NULL, size bigint NOT NULL, PRIMARY KEY (agent, path))""",
        f"""CREATE TABLE IF NOT EXISTS {s}.chunks (
          agent text NOT NULL, seq bigint GENERATED BY DEFAULT AS IDENTITY, id text NOT NULL,
          path text NOT NULL, source text NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL,
          hash text NOT NULL, model text NOT NULL, text text NOT NULL, cjk text NOT NULL,
          updated_at bigint NOT NULL, tsv tsvector NOT NULL, tsv_cjk tsvector NOT NULL,
          PRIMARY KEY (agent, seq))""",
        f"CREATE INDEX IF NOT EXISTS chunks_path ON {s}.chunks (agent, path, start_line)",
        f"CREATE INDEX IF NOT EXISTS chunks_hash ON {s}.chunks (agent, hash)",
        f"CREATE INDEX IF NOT EXISTS chunks_tsv ON {s}.chunks USING gin (tsv) WITH (fastupdate = off)",
        f"CREATE INDEX IF NOT EXISTS chunks_tsv_cjk ON {s}.chunks USING gin (tsv_cjk) WITH (fastupdate = off)",
        # The text less an assistant's words (keys.said_text), for the user-text keyword leg. Added in place to
        # a schema made before it (rows get theirs at the full reindex the chunker version asks for), and only
        # then: ALTER TABLE locks the table against every agent's searches even when the column is there.
        f"""DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = '{s}'
                         AND table_name = 'chunks' AND column_name = 'said_tsv')
          THEN
            ALTER TABLE {s}.chunks ADD COLUMN said_tsv tsvector NOT NULL DEFAULT ''::tsvector,
              ADD COLUMN said_tsv_cjk tsvector NOT NULL DEFAULT ''::tsvector;
          END IF;
        END $$""",
        f"CREATE INDEX IF NOT EXISTS chunks_said_tsv ON {s}.chunks USING gin (said_tsv) WITH (fastupdate = off)",
        f"CREATE INDEX IF NOT EXISTS chunks_said_tsv_cjk ON {s}.chunks USING gin (said_tsv_cjk) "
        "WITH (fastupdate = off)",
        f"""CREATE TABLE IF NOT EXISTS {s}.chunk_keys (
          agent text NOT NULL, seq bigint GENERATED BY DEFAULT AS IDENTITY, chunk_seq bigint NOT NULL,
          hash text NOT NULL, assistant boolean NOT NULL, PRIMARY KEY (agent, seq))""",
        f"CREATE INDEX IF NOT EXISTS chunk_keys_chunk ON {s}.chunk_keys (agent, chunk_seq)",
        f"CREATE INDEX IF NOT EXISTS chunk_keys_hash ON {s}.chunk_keys (agent, hash)",
        f"""CREATE TABLE IF NOT EXISTS {s}.embedding_cache (
          agent text NOT NULL, provider text NOT NULL, model text NOT NULL, provider_key text NOT NULL,
          hash text NOT NULL, dims integer NOT NULL, embedding vector NOT NULL, updated_at bigint NOT NULL,
          searched boolean NOT NULL DEFAULT false,
          PRIMARY KEY (agent, provider, model, provider_key, hash))""",
        f"""CREATE TABLE IF NOT EXISTS {s}.batch_jobs (
          agent text NOT NULL, job_id text NOT NULL, provider text NOT NULL, model text NOT NULL,
          provider_key text NOT NULL, hashes text NOT NULL, created_at bigint NOT NULL,
          PRIMARY KEY (agent, job_id))""",
        f"""CREATE TABLE IF NOT EXISTS {s}.facts (
          agent text NOT NULL, seq bigint GENERATED BY DEFAULT AS IDENTITY, id text NOT NULL,
          path text NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL, kind text NOT NULL,
          content text NOT NULL, day text, t_start text, t_end text, confidence double precision,
          hash text NOT NULL, context text NOT NULL, anchors text NOT NULL, cjk text NOT NULL,
          updated_at bigint NOT NULL, tsv tsvector NOT NULL, tsv_cjk tsvector NOT NULL,
          PRIMARY KEY (agent, seq))""",
        f"CREATE INDEX IF NOT EXISTS facts_path ON {s}.facts (agent, path, start_line)",
        f"CREATE INDEX IF NOT EXISTS facts_hash ON {s}.facts (agent, hash)",
        f"CREATE INDEX IF NOT EXISTS facts_tsv ON {s}.facts USING gin (tsv) WITH (fastupdate = off)",
        f"CREATE INDEX IF NOT EXISTS facts_tsv_cjk ON {s}.facts USING gin (tsv_cjk) WITH (fastupdate = off)",
        f"""CREATE TABLE IF NOT EXISTS {s}.fact_mentions (
          agent text NOT NULL, fact bigint NOT NULL, norm text NOT NULL, name text NOT NULL,
          PRIMARY KEY (agent, fact, norm))""",
        f"CREATE INDEX IF NOT EXISTS fact_mentions_norm ON {s}.fact_mentions (agent, norm)",
        f"""CREATE TABLE IF NOT EXISTS {s}.entity_names (
          agent text NOT NULL, path text NOT NULL, norm text NOT NULL, slug text NOT NULL, how text NOT NULL,
          PRIMARY KEY (agent, path, norm))""",
        f"CREATE INDEX IF NOT EXISTS entity_names_norm ON {s}.entity_names (agent, norm)",
        f"""CREATE TABLE IF NOT EXISTS {s}.fact_problems (
          agent text NOT NULL, path text NOT NULL, line integer NOT NULL, message text NOT NULL)""",
        f"CREATE INDEX IF NOT EXISTS fact_problems_path ON {s}.fact_problems (agent, path)",
    ]


_URL = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)
_UNREADABLE = "(a PostgreSQL connection string memlane cannot read, not shown)"


def _secret_key(key: str) -> bool:
    """Whether a connection option holds a secret: password, sslpassword, and misspellings of them."""
    key = key.strip().lower()
    return key != "passfile" and any(word in key for word in ("pas", "pw", "secret"))


def redact(dsn: str) -> str:
    """``dsn`` for messages, every password replaced by ``***``: ``user:password@`` and ``?password=`` of a
    ``postgresql://`` URL, ``password=`` (quoted or not) of a ``key=value`` string. The one place a connection
    string is made printable; a string that cannot be read is not shown at all (its password could be anywhere)."""
    if _URL.match(dsn):
        return _redact_url(dsn)[0]
    if psycopg is not None:  # libpq's own reading of the string, when the extra is installed
        try:
            options = conninfo_to_dict(dsn)
        except psycopg.Error:
            pass  # not one libpq reads either: the careful parse below, else nothing is shown
        else:
            return make_conninfo("", **{k: "***" if _secret_key(k) else v for k, v in options.items()})
    parsed = _redact_keywords(dsn)
    return parsed[0] if parsed is not None else _UNREADABLE


def scrub(text: str, dsn: str) -> str:
    """``text`` (a driver's error message about ``dsn``) with any password of ``dsn`` in it replaced by ``***``."""
    found: list[str] = []
    if _URL.match(dsn):
        found += _redact_url(dsn)[1]
    else:
        parsed = _redact_keywords(dsn)
        found += parsed[1] if parsed is not None else []
    if psycopg is not None:
        with contextlib.suppress(psycopg.Error):
            found += [str(v) for k, v in conninfo_to_dict(dsn).items() if _secret_key(k)]
    for secret in sorted({f for s in found for f in (s, unquote(s)) if f}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _redact_url(url: str) -> tuple[str, list[str]]:
    """(``url`` with its passwords as ``***``, the passwords). The user info ends at the last '@' before the
    query, so that a '/' or '@' left unencoded in a password is still taken for part of it."""
    scheme, rest = url.split("://", 1)
    query_at = rest.find("?")
    head, tail = (rest, "") if query_at < 0 else (rest[:query_at], rest[query_at:])
    secrets: list[str] = []
    if "@" in head:
        userinfo, hosts = head.rsplit("@", 1)
        user, colon, password = userinfo.partition(":")
        if colon:
            secrets.append(password)
            head = f"{user}:***@{hosts}"
    if tail:
        params = []
        for param in tail[1:].split("&"):
            key, eq, value = param.partition("=")
            if eq and _secret_key(unquote(key)):
                secrets.append(value)
                param = f"{key}=***"
            params.append(param)
        tail = "?" + "&".join(params)
    return f"{scheme}://{head}{tail}", secrets


def _redact_keywords(dsn: str) -> tuple[str, list[str]] | None:
    """(``dsn`` with the values of its secret options as ``***``, those values), read by libpq's rules for
    ``key = value`` strings (a value unquoted up to a space, or single-quoted; a backslash escapes the next
    character); None when the string does not follow them."""
    out: list[str] = []
    secrets: list[str] = []
    i, n = 0, len(dsn)
    while i < n:
        if dsn[i].isspace():
            out.append(dsn[i])
            i += 1
            continue
        start = i
        while i < n and dsn[i] != "=" and not dsn[i].isspace():
            i += 1
        key = dsn[start:i]
        while i < n and dsn[i].isspace():
            i += 1
        if i == n or dsn[i] != "=" or not key:
            return None
        i += 1
        while i < n and dsn[i].isspace():
            i += 1
        value_at = i
        if i < n and dsn[i] == "'":
            i += 1
            while i < n and dsn[i] != "'":
                i += 2 if dsn[i] == "\\" else 1
            if i >= n:
                return None  # an unterminated quote
            i += 1
        else:
            while i < n and not dsn[i].isspace():
                i += 2 if dsn[i] == "\\" else 1
            i = min(i, n)
        value = dsn[value_at:i]
        if _secret_key(key):
            quoted = value[1:-1] if value.startswith("'") else value
            secrets += [quoted, re.sub(r"\\(.)", r"\1", quoted)]  # as written, and as libpq reads it
            value = "***"
        out.append(dsn[start:value_at] + value)
    return "".join(out), secrets


def _now_ms() -> int:
    return int(time.time() * 1000)


def _vec(value: Any) -> npt.NDArray[np.float32]:
    return np.asarray(value.to_numpy(), dtype=np.float32)


class PostgresStore:
    """One agent's index in a shared PostgreSQL database (``agent`` column in every table)."""

    driver = "postgres"
    text_search = "tsvector 'memlane' (english parser, Snowball English stems, no stop words, diacritics folded)"

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
        if not _SCHEMA_NAME.match(schema):
            raise ConfigError(f"memorySearch.store.schema must be a lower-case SQL name, not {schema!r}")
        self.url = url
        self.agent = agent
        self.schema = schema
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
        self.facts = PostgresFacts(self)
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

    # -- connections
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
        return f"{self.schema}.{table}"

    def _init_schema(self) -> None:
        with self._lock, self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('memlane:schema', 0))")
            for stmt in _ddl(self.schema):
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

    # -- transactions
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

    # -- meta
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

    # -- files and chunks
    def file_states(self) -> dict[str, FileState]:
        rows = self._rows(
            f"SELECT path, hash, mtime, size, source FROM {self._t('files')} WHERE agent = %s", (self.agent,)
        )
        return {p: FileState(h, m, s, src) for p, h, m, s, src in rows}

    def indexed_state(self, path: str) -> FileState | None:
        row = self._x(
            f"SELECT hash, mtime, size, source FROM {self._t('files')} WHERE agent = %s AND path = %s",
            (self.agent, path),
        ).fetchone()
        return FileState(*row) if row else None

    def set_file_state(self, path: str, state: FileState) -> None:
        self._x(
            f"INSERT INTO {self._t('files')} VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (agent, path) DO UPDATE "
            "SET source = excluded.source, hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
            (self.agent, path, state.source, state.hash, state.mtime, state.size),
        )

    def _delete_chunks(self, path: str) -> None:
        """A file's chunks and their keys. No foreign key does it: a key's check against a chunks table
        filled in the same transaction was planned as a scan (11 ms a key at 100k chunks)."""
        self._x(
            f"DELETE FROM {self._t('chunk_keys')} WHERE agent = %s AND chunk_seq IN "
            f"(SELECT seq FROM {self._t('chunks')} WHERE agent = %s AND path = %s)",
            (self.agent, self.agent, path),
        )
        self._x(f"DELETE FROM {self._t('chunks')} WHERE agent = %s AND path = %s", (self.agent, path))

    def replace_chunks(self, path: str, rows: Sequence[ChunkRow], model: str) -> None:
        self._delete_chunks(path)
        self.add_chunks(rows, model)

    def add_chunks(self, rows: Sequence[ChunkRow], model: str) -> None:
        if not rows:
            return
        now = _now_ms()
        cfg = f"{self.schema}.memlane"
        with self._conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self._t('chunks')} (agent, id, path, source, start_line, end_line, hash, model, text, "
                f"cjk, updated_at, tsv, tsv_cjk, said_tsv, said_tsv_cjk) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, "
                f"%s, %s, to_tsvector('{cfg}', %s), to_tsvector('simple', %s), to_tsvector('{cfg}', %s), "
                "to_tsvector('simple', %s)) RETURNING seq",
                [
                    (
                        *(self.agent, r.id, r.path, r.source, r.start_line, r.end_line, r.hash, model, r.text, r.cjk),
                        *(now, fold(r.text), r.cjk, fold(r.said), r.said_cjk),
                    )
                    for r in rows
                ],
                returning=True,
            )
            seqs: list[int] = []
            while True:
                row = cur.fetchone()
                if row is not None:
                    seqs.append(int(row[0]))
                if not cur.nextset():
                    break
        keys = [(self.agent, seq, h, bool(a)) for r, seq in zip(rows, seqs, strict=True) for h, _, a in r.keys]
        self._written += len(rows) + len(keys)
        self._touch(r.hash for r in rows)
        if keys:
            with self._conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {self._t('chunk_keys')} (agent, chunk_seq, hash, assistant) VALUES (%s, %s, %s, %s)",
                    keys,
                )

    def delete_file(self, path: str) -> None:
        self._delete_chunks(path)
        self._x(f"DELETE FROM {self._t('files')} WHERE agent = %s AND path = %s", (self.agent, path))
        self.facts.delete_file(path)

    def reset(self) -> None:
        """Empty the agent's files, chunks, keys and facts (inside :meth:`write`: atomic); bumps ``epoch``."""
        self.bump_epoch()
        for table in ("files", "chunks", "chunk_keys", "facts", "fact_mentions", "entity_names", "fact_problems"):
            self._x(f"DELETE FROM {self._t(table)} WHERE agent = %s", (self.agent,))

    def chunks_by_seq(self, seqs: Iterable[int]) -> dict[int, StoredChunk]:
        ids = [int(s) for s in seqs]
        if not ids:
            return {}
        rows = self._rows(
            f"SELECT seq, id, path, source, start_line, end_line, text FROM {self._t('chunks')} "
            "WHERE agent = %s AND seq = ANY(%s)",
            (self.agent, ids),
        )
        return {r[0]: StoredChunk(*r) for r in rows}

    def last_line(self, path: str) -> int:
        rows = self._rows(
            f"SELECT max(end_line) FROM {self._t('chunks')} WHERE agent = %s AND path = %s", (self.agent, path)
        )
        return int(rows[0][0] or 0)

    def lines_of(self, path: str, start: int, end: int) -> list[str]:
        rows = self._rows(
            f"SELECT start_line, end_line, text FROM {self._t('chunks')} WHERE agent = %s AND path = %s "
            "AND end_line >= %s AND start_line <= %s ORDER BY start_line, seq",
            (self.agent, path, start, end),
        )
        return lines_from_chunks(rows, start, end)

    # -- full text
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

    def vector_rows(self, table: str = "chunks") -> int:
        return self.doc_count(table)

    def tsquery(self, term: MatchTerm) -> str:
        """The SQL of one phrase's tsquery (its text is a parameter)."""
        cfg = "simple" if term.columns == ("cjk",) else f"{self.schema}.memlane"
        return f"phraseto_tsquery('{cfg}', %s)"

    def _doc_frequencies(
        self, conn: Any, table: str, terms: Sequence[MatchTerm], cap: int, gen: int, prefix: str = ""
    ) -> list[int]:
        """Every term's document frequency, each counted up to ``cap``, in one round trip for those not counted
        yet in generation ``gen``. Counting is most of a keyword search on PostgreSQL (a common term is ~10k
        rows to visit at 100k chunks), and an agent's queries repeat their words; docs/DESIGN.md §24."""
        at, known = self._dfs
        if at != gen or len(known) > DF_CACHE_MAX:
            known = {}
            self._dfs = (gen, known)

        def cached(term: MatchTerm) -> int | None:
            hit = known.get((table, prefix, term.columns, term.phrase))
            if hit is None or (hit[0] >= hit[1] and hit[1] < cap):  # counted to a lower cap, and reached it
                return None
            return min(hit[0], cap)

        todo = list({term: None for term in terms if cached(term) is None})
        if todo:
            counts = ", ".join(
                f"(SELECT count(*) FROM (SELECT 1 FROM {self._t(table)} t WHERE t.agent = %s AND "
                f"{_column(term, prefix)} @@ {self.tsquery(term)} LIMIT %s) x)"
                for term in todo
            )
            row = conn.execute(f"SELECT {counts}", [x for term in todo for x in (self.agent, term.phrase, cap)])
            for term, df in zip(todo, row.fetchone(), strict=True):
                known[(table, prefix, term.columns, term.phrase)] = (int(df), cap)
        return [int(cached(term) or 0) for term in terms]

    def ranked(
        self,
        table: str,
        match: str,
        limit: int,
        where: str = "TRUE",
        where_params: Sequence[Any] = (),
        rank_weights: str | None = None,
        prefix: str = "",
    ) -> list[tuple[int, float]]:
        """(seq, relevance) of rows of ``table`` matching ``match``: the sum over its terms of BM25 IDF times
        ``ts_rank`` (length-normalised), best first; ``where`` narrows the rows (alias ``t``); ``prefix`` picks
        the tsvector columns (``said_``: the text less an assistant's words)."""
        try:
            terms = parse_match(match)
        except ValueError as exc:
            raise IndexError_(f"keyword search failed for {match!r}: {exc}") from None
        _, gen = self.generation()
        total = self.doc_count(table, gen)
        t = self._t(table)

        def run(conn: Any) -> list[tuple[int, float]]:
            dfs = self._doc_frequencies(conn, table, terms, df_cap(total), gen, prefix)
            found = [(term, df) for term, df in zip(terms, dfs, strict=True) if df]
            live = [(term, idf(max(total, df), df), df) for term, df in found]
            if not live:
                return []
            # Which rows are ranked: those with a selective term (on a big index). Every term still scores.
            chosen = selective([(term, df) for term, _, df in live], total)
            weighted = f"{rank_weights}, " if rank_weights else ""
            score = " + ".join(
                f"%s * ts_rank({weighted if term.columns != ('cjk',) else ''}{_column(term, prefix)}, "
                f"{self.tsquery(term)}, 1)"
                for term, _, _ in live
            )
            match_sql = " OR ".join(f"{_column(term, prefix)} @@ {self.tsquery(term)}" for term in chosen)
            params: list[Any] = [x for term, w, _ in live for x in (w, term.phrase)]
            params += [self.agent, *(term.phrase for term in chosen), *where_params, limit]
            rows = conn.execute(
                f"SELECT t.seq, {score} AS score FROM {t} t WHERE t.agent = %s AND ({match_sql}) AND {where} "
                "ORDER BY score DESC, t.seq LIMIT %s",
                params,
            ).fetchall()
            return [(int(seq), float(s)) for seq, s in rows]

        return self._read(run)

    def term_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        _, gen = self.generation()
        total = self.doc_count("chunks", gen)
        phrases = [MatchTerm(("text",), fold(term)) for term in terms]
        dfs = self._read(lambda conn: self._doc_frequencies(conn, "chunks", phrases, max(total, 1), gen))
        return total, dict(zip(terms, dfs, strict=True))

    def keyword_search(self, match: str, limit: int, said: bool = False) -> list[tuple[int, float]]:
        return self.ranked("chunks", match, limit, prefix="said_" if said else "")

    # -- vectors
    def live_seqs(self, table: str = "chunks") -> npt.NDArray[np.int64]:
        assert table in VECTOR_TABLES
        rows = self._rows(f"SELECT seq FROM {self._t(table)} WHERE agent = %s ORDER BY seq", (self.agent,))
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def _vector_rows(self, table: str, key: EmbeddingKey, extra: str, params: Sequence[Any]) -> list[Any]:
        return self._rows(
            f"SELECT c.seq, e.embedding FROM {self._t(table)} c JOIN {self._t('embedding_cache')} e "
            "ON e.agent = c.agent AND e.hash = c.hash AND e.provider = %s AND e.model = %s AND e.provider_key = %s "
            f"WHERE c.agent = %s {extra} ORDER BY c.seq",
            (key.provider, key.model, key.provider_key, self.agent, *params),
            binary=True,
        )

    @staticmethod
    def _matrix(rows: list[Any], dims: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.empty((len(rows), dims), dtype=np.float32)
        for i, (_, v) in enumerate(rows):
            matrix[i] = _vec(v)
        return seqs, matrix

    def vectors_for(
        self, key: EmbeddingKey, seqs: npt.NDArray[np.int64], dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        assert table in VECTOR_TABLES
        return self._matrix(self._vector_rows(table, key, "AND c.seq = ANY(%s)", ([int(s) for s in seqs],)), dims)

    def load_vectors(
        self, key: EmbeddingKey, dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        assert table in VECTOR_TABLES
        return self._matrix(self._vector_rows(table, key, "", ()), dims)

    def key_similarities(
        self, key: EmbeddingKey, chunk_seqs: Sequence[int], query_vec: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
        """The keys' cosines computed by the server: a search reads a number per key instead of its vector
        (2.2 -> 1.8 ms for ~150 keys at 100k chunks, docs/DESIGN.md §24)."""
        dims = int(query_vec.shape[0])
        rows = self._rows(
            f"SELECT k.chunk_seq, k.assistant, 1 - (e.embedding::vector({dims}) <=> %b::vector({dims})) "
            f"FROM {self._t('chunk_keys')} k LEFT JOIN {self._t('embedding_cache')} e ON e.agent = k.agent "
            "AND e.hash = k.hash AND e.provider = %s AND e.model = %s AND e.provider_key = %s AND e.dims = %s "
            "WHERE k.agent = %s AND k.chunk_seq = ANY(%s) ORDER BY k.seq",
            (
                query_vec.astype(np.float32),
                key.provider,
                key.model,
                key.provider_key,
                dims,
                self.agent,
                [int(s) for s in chunk_seqs],
            ),
        )
        owners = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        assistant = np.fromiter((bool(r[1]) for r in rows), dtype=np.bool_, count=len(rows))
        embedded = np.fromiter((r[2] is not None for r in rows), dtype=np.bool_, count=len(rows))
        cosines = np.fromiter((r[2] or 0.0 for r in rows), dtype=np.float32, count=len(rows))
        return owners, assistant, embedded, cosines

    def keys_without_vectors(self, key: EmbeddingKey) -> int:
        rows = self._rows(
            f"SELECT count(*) FROM {self._t('chunk_keys')} k WHERE k.agent = %s AND NOT EXISTS (SELECT 1 FROM "
            f"{self._t('embedding_cache')} e WHERE e.agent = k.agent AND e.provider = %s AND e.model = %s "
            "AND e.provider_key = %s AND e.hash = k.hash)",
            (self.agent, key.provider, key.model, key.provider_key),
        )
        return int(rows[0][0])

    def cached_hashes(self, key: EmbeddingKey, hashes: Sequence[str]) -> set[str]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return set()
        rows = self._rows(
            f"SELECT hash FROM {self._t('embedding_cache')} WHERE agent = %s AND provider = %s AND model = %s "
            "AND provider_key = %s AND hash = ANY(%s)",
            (self.agent, key.provider, key.model, key.provider_key, unique),
        )
        return {h for (h,) in rows}

    def put_vectors(self, key: EmbeddingKey, vectors: dict[str, npt.NDArray[np.float32]]) -> None:
        if not vectors:
            return
        now = _now_ms()
        self._written += len(vectors)
        with self._conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self._t('embedding_cache')} VALUES (%s, %s, %s, %s, %s, %s, %b, %s) "
                "ON CONFLICT (agent, provider, model, provider_key, hash) "
                "DO UPDATE SET updated_at = excluded.updated_at",
                [
                    (self.agent, key.provider, key.model, key.provider_key, h, v.shape[0], v.astype(np.float32), now)
                    for h, v in vectors.items()
                ],
            )
        self._touch(vectors)

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

    def hnsw_memory(self) -> tuple[int, int]:
        """(bytes of this schema's HNSW indexes, bytes of the server's shared_buffers). A search walks the
        graph's pages in shared buffers; a graph bigger than them is read again from the OS cache on every
        search: p50 24 ms instead of 16 at 100k chunks (docs/DESIGN.md §24)."""
        rows = self._rows(
            "SELECT coalesce(sum(pg_relation_size(c.oid)), 0), (SELECT setting::bigint * 8192 FROM pg_settings "
            "WHERE name = 'shared_buffers') FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace "
            "WHERE s.nspname = %s AND c.relname LIKE 'embedding_cache_hnsw_%%'",
            (self.schema,),
        )
        return int(rows[0][0]), int(rows[0][1])

    def nearest(
        self, key: EmbeddingKey, query_vec: npt.NDArray[np.float32], limit: int, table: str = "chunks"
    ) -> list[tuple[int, float]]:
        """(seq, cosine) of the ``limit`` chunks nearest to ``query_vec``, by the server's HNSW index of chunk
        vectors (iterative scan, so the agent and live-row filters still fill ``limit``)."""
        assert table == "chunks", "only chunk vectors are in the HNSW index (facts are searched in process)"
        dims = int(query_vec.shape[0])
        t = self._t(table)
        distance = f"e.embedding::vector({dims}) <=> %b::vector({dims})"

        def run(conn: Any) -> list[tuple[int, float]]:
            with conn.transaction():
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                conn.execute(f"SET LOCAL hnsw.ef_search = {max(HNSW_EF_SEARCH, limit)}")
                rows = conn.execute(
                    f"SELECT h.seq, 1 - h.d FROM (SELECT c.seq, {distance} AS d FROM {self._t('embedding_cache')} e "
                    f"JOIN {t} c ON c.agent = e.agent AND c.hash = e.hash WHERE e.agent = %s AND e.dims = {dims} "
                    "AND e.searched "
                    "AND e.provider = %s AND e.model = %s AND e.provider_key = %s ORDER BY d LIMIT %s) h "
                    "ORDER BY h.d",
                    (query_vec.astype(np.float32), self.agent, key.provider, key.model, key.provider_key, limit),
                ).fetchall()
            return [(int(s), float(c)) for s, c in rows]

        return self._read(run)

    def similarities(
        self, key: EmbeddingKey, query_vec: npt.NDArray[np.float32], seqs: Sequence[int], table: str = "chunks"
    ) -> dict[int, float]:
        """Exact cosine of ``query_vec`` to the vectors of ``seqs`` (those that have one)."""
        if not seqs:
            return {}
        dims = int(query_vec.shape[0])
        rows = self._rows(
            f"SELECT c.seq, 1 - (e.embedding::vector({dims}) <=> %b::vector({dims})) FROM {self._t(table)} c "
            f"JOIN {self._t('embedding_cache')} e ON e.agent = c.agent AND e.hash = c.hash AND e.provider = %s "
            "AND e.model = %s AND e.provider_key = %s AND e.dims = %s WHERE c.agent = %s AND c.seq = ANY(%s)",
            (query_vec.astype(np.float32), key.provider, key.model, key.provider_key, dims, self.agent, list(seqs)),
        )
        return {int(s): float(c) for s, c in rows}

    def touch_vectors(self, key: EmbeddingKey, hashes: Sequence[str]) -> None:
        if hashes:
            self._x(
                f"UPDATE {self._t('embedding_cache')} SET updated_at = %s WHERE agent = %s AND provider = %s "
                "AND model = %s AND provider_key = %s AND hash = ANY(%s)",
                (_now_ms(), self.agent, key.provider, key.model, key.provider_key, list(hashes)),
            )

    def prune_cache(self, live: EmbeddingKey | None, max_entries: int) -> int:
        params: list[Any] = [self.agent]
        live_clause = ""
        if live is not None:
            live_clause = (
                "AND NOT (provider = %s AND model = %s AND provider_key = %s AND hash IN ("
                f"SELECT hash FROM {self._t('chunks')} WHERE agent = %s UNION "
                f"SELECT hash FROM {self._t('chunk_keys')} WHERE agent = %s UNION "
                f"SELECT hash FROM {self._t('facts')} WHERE agent = %s))"
            )
            params += [live.provider, live.model, live.provider_key, self.agent, self.agent, self.agent]
        cache = self._t("embedding_cache")
        spare = self._x(f"SELECT count(*) FROM {cache} WHERE agent = %s {live_clause}", params).fetchone()[0]
        excess = int(spare) - max_entries
        if excess <= 0:
            return 0
        self._x(
            f"DELETE FROM {cache} WHERE (agent, provider, model, provider_key, hash) IN (SELECT agent, provider, "
            f"model, provider_key, hash FROM {cache} WHERE agent = %s {live_clause} ORDER BY updated_at LIMIT %s)",
            [*params, excess],
        )
        return excess

    # -- vendor batch jobs
    def add_batch_job(self, key: EmbeddingKey, job_id: str, hashes: Sequence[str]) -> None:
        self._x(
            f"INSERT INTO {self._t('batch_jobs')} VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (agent, job_id) "
            "DO UPDATE SET hashes = excluded.hashes, created_at = excluded.created_at",
            (self.agent, job_id, key.provider, key.model, key.provider_key, json.dumps(list(hashes)), _now_ms()),
        )

    def batch_jobs(self, key: EmbeddingKey) -> dict[str, list[str]]:
        rows = self._rows(
            f"SELECT job_id, hashes FROM {self._t('batch_jobs')} WHERE agent = %s AND provider = %s AND model = %s "
            "AND provider_key = %s ORDER BY created_at",
            (self.agent, key.provider, key.model, key.provider_key),
        )
        return {job: json.loads(h) for job, h in rows}

    def drop_batch_job(self, job_id: str) -> None:
        self._x(f"DELETE FROM {self._t('batch_jobs')} WHERE agent = %s AND job_id = %s", (self.agent, job_id))


def _column(term: MatchTerm, prefix: str = "") -> str:
    """The tsvector column a term is matched in (alias ``t``); ``prefix`` "said_": the user-text columns."""
    return f"t.{prefix}tsv_cjk" if term.columns == ("cjk",) else f"t.{prefix}tsv"


def selective(terms: list[tuple[MatchTerm, int]], total: int) -> list[MatchTerm]:
    """The terms whose rows are ranked. ``ts_rank`` costs a call per term per matching row, and a question's
    common words match most of a big index: on 34.5k chunks of real chat, ranking every row that shares a
    word took 110 ms at p50 (SQLite's bm25 runs inside the index). From ``SELECTIVE_MIN_ROWS`` rows on, the
    candidates are the rows with a term found in at most ``SELECTIVE_SHARE`` of them, at least the
    ``SELECTIVE_KEEP`` rarest terms; each candidate is still scored on every term."""
    if total < SELECTIVE_MIN_ROWS:
        return [term for term, _ in terms]
    rare = [term for term, df in terms if df <= SELECTIVE_SHARE * total]
    if len(rare) >= SELECTIVE_KEEP:
        return rare
    return [term for term, _ in sorted(terms, key=lambda t: t[1])[:SELECTIVE_KEEP]]


def agents_in(url: str, schema: str = "memlane") -> list[str]:
    """Every agent with an index in the schema (``memorySearch.shared: "*"``)."""
    if psycopg is None or not _SCHEMA_NAME.match(schema):
        return []
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            rows = conn.execute(
                f"SELECT DISTINCT agent FROM {schema}.meta WHERE key = 'schema_version' ORDER BY agent"
            ).fetchall()
    except psycopg.Error as exc:
        raise IndexError_(f"cannot list the agents in {redact(url)}: {scrub(str(exc).strip(), url)}") from None
    return [r[0] for r in rows]
