"""The fact tables of the PostgreSQL index: the same reads and writes as :mod:`.facts`, keyed by agent.

A fact's words are one ``tsvector``: its content weighted A and its context (the log lines it was drawn
from) weighted B, ranked with weights 1.0 / 0.7 as SQLite's ``bm25(facts_fts, 1.0, 0.7, 1.0)`` does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..dialect import Dialect
from ..facts import INSERT_COLUMNS, STORED_FACT_COLUMNS, EntityName, FactFilter, FactRow, StoredFact, stored_fact
from ..relations import RelationRow, RelationTable
from ..rows import now_ms
from .text import fold

# ts_rank's weights for D, C, B, A: content (A) 1.0, context (B) 0.7.
_RANK_WEIGHTS = "'{0.1, 0.2, 0.7, 1.0}'"


class FactHost(Protocol):
    """What :class:`PostgresFacts` uses of the PostgreSQL store it belongs to (``postgres.PostgresStore``):
    its schema and agent, the open write's connection and statements, reads, and BM25-style ranking.
    A protocol here, not an import, so that the store can make its facts without a circle of imports."""

    schema: str
    agent: str
    dialect: Dialect
    _conn: Any
    _written: int

    def _x(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def _rows(self, sql: str, params: Sequence[Any] = (), binary: bool = False) -> list[Any]: ...

    def ranked(
        self,
        table: str,
        match: str,
        limit: int,
        where: str = "TRUE",
        where_params: Sequence[Any] = (),
        rank_weights: str | None = None,
        prefix: str = "",
    ) -> list[tuple[int, float]]: ...


class PostgresFacts:
    """Fact reads and writes over one PostgreSQL store (its connections and transactions)."""

    def __init__(self, store: FactHost) -> None:
        self._store = store

        def executemany(sql: str, rows: list[tuple[Any, ...]]) -> None:
            with store._conn.cursor() as cur:
                cur.executemany(sql, rows)

        def written(sql: str, params: Sequence[Any]) -> list[Any]:
            return list(store._conn.execute(sql, params).fetchall())

        self.relations = RelationTable(store.dialect, store._x, executemany, store._rows, written)

    def _t(self, table: str) -> str:
        return self._store.dialect.table(table)

    @property
    def _agent(self) -> str:
        return self._store.agent

    # -- writes: call inside store.write()
    def replace_file(
        self,
        path: str,
        facts: Sequence[FactRow],
        problems: Sequence[tuple[int, str]],
        names: Sequence[EntityName],
        relations: Sequence[RelationRow] = (),
    ) -> None:
        self.delete_file(path)
        conn = self._store._conn
        now = now_ms()
        cfg = f"{self._store.schema}.memlane"
        mentions: list[tuple[Any, ...]] = []
        stated: list[tuple[int | None, RelationRow]] = [(None, r) for r in relations]
        for f in facts:
            (seq,) = conn.execute(
                f"INSERT INTO {self._t('facts')} (agent, {INSERT_COLUMNS}, updated_at, tsv, tsv_cjk) VALUES ("
                + ", ".join(["%s"] * 17)
                + f", setweight(to_tsvector('{cfg}', %s), 'A') || "
                f"setweight(to_tsvector('{cfg}', %s), 'B'), to_tsvector('simple', %s)) RETURNING seq",
                (self._agent, *f.values(), now, fold(f.content), fold(f.context), f.cjk),
            ).fetchone()
            mentions += [(self._agent, seq, norm, name) for norm, name in f.mentions]
            stated += [(seq, r) for r in f.relations]
        self.relations.insert(path, stated)
        self._store._written += len(facts)
        with conn.cursor() as cur:
            if mentions:
                cur.executemany(
                    f"INSERT INTO {self._t('fact_mentions')} VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING", mentions
                )
            if problems:
                cur.executemany(
                    f"INSERT INTO {self._t('fact_problems')} VALUES (%s, %s, %s, %s)",
                    [(self._agent, path, *p) for p in problems],
                )
            if names:
                cur.executemany(
                    f"INSERT INTO {self._t('entity_names')} VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [(self._agent, n.path, n.norm, n.slug, n.how) for n in names],
                )

    def delete_file(self, path: str) -> None:
        self._store._x(
            f"DELETE FROM {self._t('fact_mentions')} WHERE agent = %s AND fact IN "
            f"(SELECT seq FROM {self._t('facts')} WHERE agent = %s AND path = %s)",
            (self._agent, self._agent, path),
        )
        for table in ("facts", "fact_problems", "entity_names", "relations"):
            self._store._x(f"DELETE FROM {self._t(table)} WHERE agent = %s AND path = %s", (self._agent, path))

    # -- reads
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._store._rows(sql, params)

    def counts(self) -> dict[str, int]:
        a = self._agent
        return {
            "facts": self._rows(f"SELECT count(*) FROM {self._t('facts')} WHERE agent = %s", (a,))[0][0],
            "entities": self._rows(
                f"SELECT count(*) FROM (SELECT slug FROM {self._t('entity_names')} WHERE agent = %s UNION "
                f"SELECT norm FROM {self._t('fact_mentions')} m WHERE agent = %s AND NOT EXISTS (SELECT 1 FROM "
                f"{self._t('entity_names')} n WHERE n.agent = m.agent AND n.norm = m.norm)) x",
                (a, a),
            )[0][0],
            "pages": self._rows(f"SELECT count(DISTINCT path) FROM {self._t('entity_names')} WHERE agent = %s", (a,))[
                0
            ][0],
            "problems": self._rows(f"SELECT count(*) FROM {self._t('fact_problems')} WHERE agent = %s", (a,))[0][0],
        }

    def problems(self, limit: int = 50) -> list[tuple[str, int, str]]:
        return [
            tuple(r)
            for r in self._rows(
                f"SELECT path, line, message FROM {self._t('fact_problems')} WHERE agent = %s "
                "ORDER BY path, line LIMIT %s",
                (self._agent, limit),
            )
        ]

    def keyword_search(self, match: str, limit: int, where: FactFilter | None = None) -> list[tuple[int, float]]:
        clause, params = (where or FactFilter()).sql("t", self._store.dialect)
        return self._store.ranked("facts", match, limit, clause, params, rank_weights=_RANK_WEIGHTS)

    def seqs(self, where: FactFilter) -> list[int]:
        clause, params = where.sql("f", self._store.dialect)
        return [
            r[0]
            for r in self._rows(
                f"SELECT f.seq FROM {self._t('facts')} f WHERE f.agent = %s AND {clause} ORDER BY f.seq",
                (self._agent, *params),
            )
        ]

    def in_window(self, start: dt.date, end: dt.date, limit: int) -> list[int]:
        return [
            r[0]
            for r in self._rows(
                f"SELECT seq FROM {self._t('facts')} WHERE agent = %s AND COALESCE(t_end, day) >= %s "
                "AND COALESCE(t_start, day) <= %s ORDER BY COALESCE(t_start, day) DESC, seq DESC LIMIT %s",
                (self._agent, start.isoformat(), end.isoformat(), limit),
            )
        ]

    def by_seq(self, seqs: Iterable[int]) -> dict[int, StoredFact]:
        ids = [int(s) for s in seqs]
        if not ids:
            return {}
        mentions: dict[int, list[tuple[str, str]]] = {}
        for seq, norm, name in self._rows(
            f"SELECT fact, norm, name FROM {self._t('fact_mentions')} WHERE agent = %s AND fact = ANY(%s) "
            "ORDER BY fact, norm",
            (self._agent, ids),
        ):
            mentions.setdefault(seq, []).append((norm, name))
        rows = self._rows(
            f"SELECT {STORED_FACT_COLUMNS} FROM {self._t('facts')} WHERE agent = %s AND seq = ANY(%s)",
            (self._agent, ids),
        )
        return {r[0]: stored_fact(r, mentions.get(r[0], ())) for r in rows}

    def of_path(self, path: str) -> list[StoredFact]:
        seqs = [
            r[0]
            for r in self._rows(
                f"SELECT seq FROM {self._t('facts')} WHERE agent = %s AND path = %s ORDER BY start_line",
                (self._agent, path),
            )
        ]
        by = self.by_seq(seqs)
        return [by[s] for s in seqs if s in by]

    def entity_names(self) -> list[EntityName]:
        return [
            EntityName(*r)
            for r in self._rows(
                f"SELECT norm, slug, path, how FROM {self._t('entity_names')} WHERE agent = %s ORDER BY path",
                (self._agent,),
            )
        ]

    def mentioned(self) -> dict[str, tuple[str, int]]:
        rows = self._rows(
            f"SELECT norm, min(name), count(*) FROM {self._t('fact_mentions')} WHERE agent = %s GROUP BY norm",
            (self._agent,),
        )
        return {norm: (name, int(n)) for norm, name, n in rows}

    def latest_since(self, day: str, limit: int) -> list[int]:
        rows = self._rows(
            f"SELECT seq FROM {self._t('facts')} WHERE agent = %s AND day >= %s ORDER BY day DESC, seq DESC LIMIT %s",
            (self._agent, day, limit),
        )
        return [r[0] for r in rows]

    def last_days(self) -> dict[str, str]:
        rows = self._rows(
            f"SELECT m.norm, max(f.day) FROM {self._t('fact_mentions')} m JOIN {self._t('facts')} f "
            "ON f.agent = m.agent AND f.seq = m.fact WHERE m.agent = %s AND f.day IS NOT NULL GROUP BY m.norm",
            (self._agent,),
        )
        return {norm: day for norm, day in rows}

    def mentioning(self, norms: Sequence[str], limit: int) -> list[int]:
        if not norms:
            return []
        return [
            r[0]
            for r in self._rows(
                f"SELECT f.seq FROM {self._t('facts')} f WHERE f.agent = %s AND f.seq IN (SELECT fact FROM "
                f"{self._t('fact_mentions')} WHERE agent = %s AND norm = ANY(%s)) "
                "ORDER BY COALESCE(f.day, '') DESC, f.seq DESC LIMIT %s",
                (self._agent, self._agent, list(norms), limit),
            )
        ]

    def co_mentions(self, norms: Sequence[str]) -> list[tuple[str, int]]:
        if not norms:
            return []
        rows = self._rows(
            f"SELECT o.norm, count(DISTINCT o.fact) FROM {self._t('fact_mentions')} m JOIN "
            f"{self._t('fact_mentions')} o ON o.agent = m.agent AND o.fact = m.fact WHERE m.agent = %s "
            "AND m.norm = ANY(%s) AND NOT (o.norm = ANY(%s)) GROUP BY o.norm ORDER BY 2 DESC, 1",
            (self._agent, list(norms), list(norms)),
        )
        return [(n, int(c)) for n, c in rows]

    def unresolved_mentions(self) -> list[tuple[str, str, str, int]]:
        rows = self._rows(
            f"SELECT DISTINCT ON (m.norm) m.norm, m.name, f.path, f.start_line FROM {self._t('fact_mentions')} m "
            f"JOIN {self._t('facts')} f ON f.agent = m.agent AND f.seq = m.fact WHERE m.agent = %s AND NOT EXISTS "
            f"(SELECT 1 FROM {self._t('entity_names')} n WHERE n.agent = m.agent AND n.norm = m.norm) "
            "ORDER BY m.norm, f.start_line, f.path",
            (self._agent,),
        )
        return sorted((tuple(r) for r in rows), key=lambda r: r[2])
