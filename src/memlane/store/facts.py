"""The fact tables of the SQLite index: spec 004's derived store, rebuilt from the Markdown like chunks.

- ``facts(seq, id, path, start_line, end_line, kind, content, day, t_start, t_end, confidence, hash,
  context, cjk, updated_at, origin)``: one row per Retain bullet. ``day`` is the daily log's date, ``t_start`` /
  ``t_end`` the event time the bullet names (ISO dates, so text comparison orders them). ``hash`` is the
  hash of the text embedded for the fact: its vector is the embedding cache entry of that hash, as for
  chunks. ``anchors`` are the lines of the same file's log the fact was most likely drawn from (space-
  separated numbers) and ``context`` their text, for the word index only. ``origin`` is where the fact
  comes from (:mod:`memlane.text.origin`): ``person``, ``agent`` or ``file``.
- ``fact_mentions(fact, norm, name)``: the ``@entities`` a fact names, by normalized key.
- ``entity_names(norm, slug, path, how)``: the names entity pages give (slug, title, aliases).
  Mentions resolve to entities through it at query time, so a new alias on a page applies to every
  fact at once, with nothing re-derived.
- ``fact_problems(path, line, message)``: Retain bullets that could not be read.
- ``facts_fts``: FTS5 over ``facts(text, context, cjk)``, the same tokenizer as chunks.

Writes happen inside :meth:`SQLiteStore.write`, in the same transaction as the file's chunks.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..errors import IndexError_
from .dialect import SQLITE, Dialect
from .relations import SQLITE_SCHEMA as RELATION_SCHEMA
from .relations import RelationRow, RelationTable
from .rows import now_ms
from .slices import in_slices

FACT_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS facts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      path TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      kind TEXT NOT NULL,
      content TEXT NOT NULL,
      day TEXT,
      t_start TEXT,
      t_end TEXT,
      confidence REAL,
      hash TEXT NOT NULL,
      context TEXT NOT NULL DEFAULT '',
      anchors TEXT NOT NULL DEFAULT '',
      cjk TEXT NOT NULL DEFAULT '',
      updated_at INTEGER NOT NULL,
      origin TEXT NOT NULL DEFAULT 'file')""",
    "CREATE INDEX IF NOT EXISTS idx_facts_path ON facts(path, start_line)",
    """CREATE TABLE IF NOT EXISTS fact_mentions (
      fact INTEGER NOT NULL,
      norm TEXT NOT NULL,
      name TEXT NOT NULL,
      PRIMARY KEY (fact, norm)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS idx_fact_mentions_norm ON fact_mentions(norm)",
    """CREATE TABLE IF NOT EXISTS entity_names (
      path TEXT NOT NULL,
      norm TEXT NOT NULL,
      slug TEXT NOT NULL,
      how TEXT NOT NULL,
      PRIMARY KEY (path, norm)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS idx_entity_names_norm ON entity_names(norm)",
    "CREATE TABLE IF NOT EXISTS fact_problems (path TEXT NOT NULL, line INTEGER NOT NULL, message TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idx_fact_problems_path ON fact_problems(path)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
      text, context, cjk, content='facts', content_rowid='seq',
      tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
      INSERT INTO facts_fts(rowid, text, context, cjk) VALUES (new.seq, new.content, new.context, new.cjk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
      INSERT INTO facts_fts(facts_fts, rowid, text, context, cjk)
      VALUES ('delete', old.seq, old.content, old.context, old.cjk);
    END""",
    *RELATION_SCHEMA,
]
FACT_DROP = [
    "DROP TRIGGER IF EXISTS facts_ai",
    "DROP TRIGGER IF EXISTS facts_ad",
    "DROP TABLE IF EXISTS facts_fts",
    "DROP TABLE IF EXISTS facts",
    "DROP TABLE IF EXISTS fact_mentions",
    "DROP TABLE IF EXISTS entity_names",
    "DROP TABLE IF EXISTS fact_problems",
    "DROP TABLE IF EXISTS relations",
]
FACT_TABLES = {"facts", "fact_mentions", "entity_names", "fact_problems", "facts_fts", "relations"}


@dataclass(frozen=True, slots=True)
class FactRow:
    """A fact ready to be written."""

    id: str  # stable across line moves: hash of path, kind, content and confidence
    path: str
    start_line: int
    end_line: int
    kind: str
    content: str
    day: str | None
    t_start: str | None
    t_end: str | None
    confidence: float | None
    hash: str  # of ``key``, the text embedded
    key: str
    anchors: tuple[int, ...]  # log lines the fact was drawn from
    context: str
    cjk: str
    mentions: tuple[tuple[str, str], ...]  # (norm, name as written)
    relations: tuple[RelationRow, ...] = ()  # the relations the bullet states (memlane.facts.graph)
    origin: str = "file"  # "person" | "agent" | "file" (memlane.text.origin)

    def values(self) -> tuple[Any, ...]:
        """The stored columns id, path, start_line, end_line, kind, content, day, t_start, t_end, confidence,
        hash, context, anchors, cjk, origin, in that order (``INSERT_COLUMNS``)."""
        anchors = " ".join(map(str, self.anchors))
        head = (self.id, self.path, self.start_line, self.end_line, self.kind, self.content, self.day)
        tail = (self.hash, self.context, anchors, self.cjk, self.origin)
        return (*head, self.t_start, self.t_end, self.confidence, *tail)


# The columns FactRow.values() gives, in order.
INSERT_COLUMNS = (
    "id, path, start_line, end_line, kind, content, day, t_start, t_end, confidence, hash, context, anchors, cjk, "
    "origin"
)


@dataclass(frozen=True, slots=True)
class StoredFact:
    seq: int
    id: str
    path: str
    start_line: int
    end_line: int
    kind: str
    content: str
    day: str | None
    t_start: str | None
    t_end: str | None
    confidence: float | None
    anchors: tuple[int, ...]
    mentions: tuple[tuple[str, str], ...]
    origin: str = "file"  # "person" | "agent" | "file"

    @property
    def source(self) -> str:
        """``path#L12``, or ``path#L12-L14`` for a bullet continued on more lines."""
        lines = f"L{self.start_line}" if self.start_line == self.end_line else f"L{self.start_line}-L{self.end_line}"
        return f"{self.path}#{lines}"


# The columns of a facts row that make a StoredFact, in order (mentions come from fact_mentions).
STORED_FACT_COLUMNS = (
    "seq, id, path, start_line, end_line, kind, content, day, t_start, t_end, confidence, anchors, origin"
)


def stored_fact(row: Sequence[Any], mentions: Iterable[tuple[str, str]]) -> StoredFact:
    """A StoredFact from a row of ``STORED_FACT_COLUMNS`` and the fact's mentions."""
    seq, ident, path, start, end, kind, content, day, t_start, t_end, confidence, anchors, origin = row
    return StoredFact(
        seq,
        ident,
        path,
        start,
        end,
        kind,
        content,
        day,
        t_start,
        t_end,
        confidence,
        tuple(int(a) for a in anchors.split()),
        tuple(mentions),
        origin,
    )


@dataclass(frozen=True, slots=True)
class EntityName:
    norm: str
    slug: str
    path: str
    how: str  # "slug" | "title" | "alias"


@dataclass(frozen=True, slots=True)
class FactFilter:
    """Hard limits on which facts a query may return (``--kind``, ``--since``, ``--until``, ``--entity``)."""

    kinds: tuple[str, ...] | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    norms: tuple[str, ...] | None = None  # facts mentioning any of these entity keys

    def sql(self, alias: str = "f", dialect: Dialect = SQLITE) -> tuple[str, list[Any]]:
        """A WHERE clause (``1=1`` when empty) over ``facts AS alias`` and its parameters, in either driver's
        SQL: :meth:`Dialect.fact_filter` says what passes."""
        return dialect.fact_filter(alias, self.kinds, self.since, self.until, self.norms)

    @property
    def empty(self) -> bool:
        return not self.kinds and self.since is None and self.until is None and self.norms is None


class SQLiteFacts:
    """Fact reads and writes over one SQLite index, through its connections: ``writer`` gives the connection
    of the open write (writes are called inside the store's ``write()``), ``reading`` this thread's reader.
    It takes those two, not the store, so that the store can make it without a circle of imports."""

    def __init__(
        self,
        writer: Callable[[], sqlite3.Connection],
        reading: Callable[[], AbstractContextManager[sqlite3.Connection]],
    ) -> None:
        self._writer = writer
        self._reading = reading
        self.relations = RelationTable(
            SQLITE,
            lambda sql, params: self._writer().execute(sql, params),
            lambda sql, rows: self._writer().executemany(sql, rows),
            self._rows,
            lambda sql, params: self._writer().execute(sql, params).fetchall(),
        )

    # -- writes: call inside store.write()
    def replace_file(
        self,
        path: str,
        facts: Sequence[FactRow],
        problems: Sequence[tuple[int, str]],
        names: Sequence[EntityName],
        relations: Sequence[RelationRow] = (),
    ) -> None:
        """Make these the facts, problems, entity names and relations of ``path`` (``relations``: those of
        no fact, an entity page's lines; a fact's own come with it)."""
        self.delete_file(path)
        conn = self._writer()
        now = now_ms()
        stated: list[tuple[int | None, RelationRow]] = [(None, r) for r in relations]
        for f in facts:
            cur = conn.execute(
                f"INSERT INTO facts({INSERT_COLUMNS}, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (*f.values(), now),
            )
            if f.mentions:
                conn.executemany(
                    "INSERT OR IGNORE INTO fact_mentions(fact, norm, name) VALUES(?,?,?)",
                    [(cur.lastrowid, norm, name) for norm, name in f.mentions],
                )
            stated += [(cur.lastrowid, r) for r in f.relations]
        self.relations.insert(path, stated)
        conn.executemany("INSERT INTO fact_problems(path, line, message) VALUES(?,?,?)", [(path, *p) for p in problems])
        conn.executemany(
            "INSERT OR IGNORE INTO entity_names(path, norm, slug, how) VALUES(?,?,?,?)",
            [(n.path, n.norm, n.slug, n.how) for n in names],
        )

    def delete_file(self, path: str) -> None:
        conn = self._writer()
        conn.execute("DELETE FROM fact_mentions WHERE fact IN (SELECT seq FROM facts WHERE path = ?)", (path,))
        conn.execute("DELETE FROM facts WHERE path = ?", (path,))
        conn.execute("DELETE FROM fact_problems WHERE path = ?", (path,))
        conn.execute("DELETE FROM entity_names WHERE path = ?", (path,))
        self.relations.delete_path(path)

    # -- reads
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._reading() as conn:
            return conn.execute(sql, params).fetchall()

    def counts(self) -> dict[str, int]:
        return {
            "facts": self._rows("SELECT count(*) FROM facts")[0][0],
            "entities": self._rows(
                "SELECT count(*) FROM (SELECT slug FROM entity_names UNION SELECT norm FROM fact_mentions "
                "WHERE norm NOT IN (SELECT norm FROM entity_names))"
            )[0][0],
            "pages": self._rows("SELECT count(DISTINCT path) FROM entity_names")[0][0],
            "problems": self._rows("SELECT count(*) FROM fact_problems")[0][0],
        }

    def problems(self, limit: int = 50) -> list[tuple[str, int, str]]:
        return [
            tuple(r)
            for r in self._rows("SELECT path, line, message FROM fact_problems ORDER BY path, line LIMIT ?", (limit,))
        ]

    def keyword_search(self, match: str, limit: int, where: FactFilter | None = None) -> list[tuple[int, float]]:
        """(seq, bm25 relevance >= 0) for an FTS5 MATCH expression, within ``where``."""
        clause, params = (where or FactFilter()).sql()
        sql = (
            "SELECT facts_fts.rowid, -bm25(facts_fts, 1.0, 0.7, 1.0) FROM facts_fts JOIN facts f "
            f"ON f.seq = facts_fts.rowid WHERE facts_fts MATCH ? AND {clause} ORDER BY rank LIMIT ?"
        )
        with self._reading() as conn:
            try:
                rows = conn.execute(sql, (match, *params, limit)).fetchall()
            except Exception as exc:  # sqlite3.OperationalError: a malformed MATCH expression
                raise IndexError_(f"fact keyword search failed for {match!r}: {exc}") from None
        return [(int(seq), float(score)) for seq, score in rows]

    def seqs(self, where: FactFilter) -> list[int]:
        clause, params = where.sql()
        return [r[0] for r in self._rows(f"SELECT f.seq FROM facts f WHERE {clause} ORDER BY f.seq", params)]

    def in_window(self, start: dt.date, end: dt.date, limit: int) -> list[int]:
        """Facts whose event time (else day) overlaps [start, end], latest first."""
        return [
            r[0]
            for r in self._rows(
                "SELECT seq FROM facts WHERE COALESCE(t_end, day) >= ? AND COALESCE(t_start, day) <= ? "
                "ORDER BY COALESCE(t_start, day) DESC, seq DESC LIMIT ?",
                (start.isoformat(), end.isoformat(), limit),
            )
        ]

    def by_seq(self, seqs: Iterable[int]) -> dict[int, StoredFact]:
        ids = list(seqs)
        found: dict[int, StoredFact] = {}
        mentions: dict[int, list[tuple[str, str]]] = {}
        with self._reading() as conn:
            for part, marks in in_slices(ids):
                for seq, norm, name in conn.execute(
                    f"SELECT fact, norm, name FROM fact_mentions WHERE fact IN ({marks})", part
                ):
                    mentions.setdefault(seq, []).append((norm, name))
                rows = conn.execute(f"SELECT {STORED_FACT_COLUMNS} FROM facts WHERE seq IN ({marks})", part).fetchall()
                for row in rows:
                    found[row[0]] = stored_fact(row, mentions.get(row[0], ()))
        return found

    def of_path(self, path: str) -> list[StoredFact]:
        seqs = [r[0] for r in self._rows("SELECT seq FROM facts WHERE path = ? ORDER BY start_line", (path,))]
        by = self.by_seq(seqs)
        return [by[s] for s in seqs if s in by]

    def entity_names(self) -> list[EntityName]:
        return [EntityName(*r) for r in self._rows("SELECT norm, slug, path, how FROM entity_names ORDER BY path")]

    def mentioned(self) -> dict[str, tuple[str, int]]:
        """Every mentioned key: (a spelling as written, how many facts mention it)."""
        rows = self._rows("SELECT norm, min(name), count(*) FROM fact_mentions GROUP BY norm")
        return {norm: (name, n) for norm, name, n in rows}

    def latest_since(self, day: str, limit: int) -> list[int]:
        """Facts of logs dated ``day`` or later, latest day first."""
        rows = self._rows("SELECT seq FROM facts WHERE day >= ? ORDER BY day DESC, seq DESC LIMIT ?", (day, limit))
        return [r[0] for r in rows]

    def last_days(self) -> dict[str, str]:
        """Every mentioned key: the latest day of a fact that mentions it (keys of undated facts only: none)."""
        rows = self._rows(
            "SELECT m.norm, max(f.day) FROM fact_mentions m JOIN facts f ON f.seq = m.fact "
            "WHERE f.day IS NOT NULL GROUP BY m.norm"
        )
        return {norm: day for norm, day in rows}

    def mentioning(self, norms: Sequence[str], limit: int) -> list[int]:
        """Facts that mention any of ``norms``, latest first."""
        if not norms:
            return []
        marks = ",".join("?" * len(norms))
        return [
            r[0]
            for r in self._rows(
                f"SELECT DISTINCT f.seq FROM fact_mentions m JOIN facts f ON f.seq = m.fact WHERE m.norm IN ({marks}) "
                "ORDER BY COALESCE(f.day, '') DESC, f.seq DESC LIMIT ?",
                (*norms, limit),
            )
        ]

    def co_mentions(self, norms: Sequence[str]) -> list[tuple[str, int]]:
        """Keys mentioned in the same facts as any of ``norms``, with how many facts they share, most first."""
        if not norms:
            return []
        marks = ",".join("?" * len(norms))
        rows = self._rows(
            f"SELECT o.norm, count(DISTINCT o.fact) FROM fact_mentions m JOIN fact_mentions o ON o.fact = m.fact "
            f"WHERE m.norm IN ({marks}) AND o.norm NOT IN ({marks}) GROUP BY o.norm ORDER BY 2 DESC, 1",
            (*norms, *norms),
        )
        return [(n, c) for n, c in rows]

    def unresolved_mentions(self) -> list[tuple[str, str, str, int]]:
        """Mentions no entity page names: (norm, name, path, line) of their first use."""
        rows = self._rows(
            "SELECT m.norm, m.name, f.path, min(f.start_line) FROM fact_mentions m JOIN facts f ON f.seq = m.fact "
            "WHERE m.norm NOT IN (SELECT norm FROM entity_names) GROUP BY m.norm ORDER BY f.path"
        )
        return [tuple(r) for r in rows]
