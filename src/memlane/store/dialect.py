"""The SQL both drivers share, so that its meaning is written once.

A :class:`Dialect` says how a driver writes a parameter, a list of values, a table's name and "this agent's
rows". On it stand the two statements whose meaning must never drift apart between SQLite and PostgreSQL
(they did drift while each driver had its own copy): which facts a :class:`~memlane.store.facts.FactFilter`
lets through (:meth:`Dialect.fact_filter`), and which embedding-cache entries a prune drops
(:func:`prune_cache`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..embeddings import EmbeddingKey


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one driver writes SQL: ``mark`` is its parameter (``?`` for sqlite3, ``%s`` for psycopg); ``arrays``:
    a list is one array parameter (``= ANY(%s)``) rather than a parameter per value; ``schema`` prefixes table
    names; ``agent``: every table holds many agents' rows, and a statement reads only this one's."""

    mark: str
    arrays: bool = False
    schema: str | None = None
    agent: str | None = None

    def table(self, name: str) -> str:
        return f"{self.schema}.{name}" if self.schema else name

    def mine(self, alias: str = "") -> tuple[list[str], list[Any]]:
        """The condition (none, or one) that keeps a statement to this agent's rows, and its parameters."""
        if self.agent is None:
            return [], []
        return [f"{alias + '.' if alias else ''}agent = {self.mark}"], [self.agent]

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``column`` is one of ``values`` (never true for none)."""
        if self.arrays:
            return f"{column} = ANY({self.mark})", [list(values)]
        return f"{column} IN ({','.join([self.mark] * len(values))})", list(values)

    def fact_filter(
        self,
        alias: str,
        kinds: Sequence[str] | None,
        since: dt.date | None,
        until: dt.date | None,
        norms: Sequence[str] | None,
    ) -> tuple[str, list[Any]]:
        """A WHERE clause (``1=1`` when nothing limits) over ``facts AS alias``, and its parameters.

        - ``kinds``: the fact is of one of them (none given, or an empty list: any kind);
        - ``since`` / ``until``: a fact's time is its event range when it names one, else its day; it passes
          ``since`` when that time ends on or after it, ``until`` when it starts on or before it, and a fact
          with neither an event range nor a day fails any time bound;
        - ``norms``: the fact mentions at least one of these entity keys (an empty list: none passes).
        """
        parts: list[str] = []
        params: list[Any] = []
        if kinds:
            clause, values = self.one_of(f"{alias}.kind", kinds)
            parts.append(clause)
            params += values
        if since is not None:
            parts.append(f"COALESCE({alias}.t_end, {alias}.day) >= {self.mark}")
            params.append(since.isoformat())
        if until is not None:
            parts.append(f"COALESCE({alias}.t_start, {alias}.day) <= {self.mark}")
            params.append(until.isoformat())
        if norms is not None:
            mine, agent = self.mine()
            named, values = self.one_of("norm", norms)
            parts.append(
                f"{alias}.seq IN (SELECT fact FROM {self.table('fact_mentions')} WHERE {' AND '.join([*mine, named])})"
            )
            params += [*agent, *values]
        return (" AND ".join(parts) or "1=1"), params


SQLITE = Dialect("?")


def postgres(schema: str, agent: str) -> Dialect:
    return Dialect("%s", arrays=True, schema=schema, agent=agent)


def prune_cache(
    dialect: Dialect, execute: Callable[[str, Sequence[Any]], Any], live: EmbeddingKey | None, max_entries: int
) -> int:
    """Drop the least recently used entries of the embedding cache beyond ``max_entries``, never one the live
    index uses; ``execute`` runs a statement of the open write. Returns how many were dropped.

    An entry is in use when it is of the ``live`` key and its text hash is a chunk's, a chunk key's or a fact's.
    Every other entry (another model's vectors, text no longer indexed) is spare; the spare beyond
    ``max_entries`` go, least recently used (``updated_at``) first. ``live`` None: every entry is spare.
    """
    mark, cache = dialect.mark, dialect.table("embedding_cache")
    mine, agent = dialect.mine()
    conditions, params = list(mine), list(agent)
    if live is not None:
        tables = ("chunks", "chunk_keys", "facts")
        only_mine = "".join(f" WHERE {c}" for c in mine)
        used = " UNION ".join(f"SELECT hash FROM {dialect.table(t)}{only_mine}" for t in tables)
        conditions.append(f"NOT (provider = {mark} AND model = {mark} AND provider_key = {mark} AND hash IN ({used}))")
        params += [live.provider, live.model, live.provider_key, *agent * len(tables)]
    spare_rows = " AND ".join(conditions) or "1=1"
    (spare,) = execute(f"SELECT count(*) FROM {cache} WHERE {spare_rows}", params).fetchone()
    excess = int(spare) - max_entries
    if excess <= 0:
        return 0
    key = ("agent, " if dialect.agent is not None else "") + "provider, model, provider_key, hash"
    execute(
        f"DELETE FROM {cache} WHERE ({key}) IN "
        f"(SELECT {key} FROM {cache} WHERE {spare_rows} ORDER BY updated_at LIMIT {mark})",
        [*params, excess],
    )
    return excess
