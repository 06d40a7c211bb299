"""Keyword search in PostgreSQL: BM25 IDF times ``ts_rank``, with document frequencies counted once a
generation (:mod:`.text` reads the query the SQLite index takes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import IndexError_
from .connection import PostgresConnection
from .text import MatchTerm, df_cap, fold, idf, parse_match

DF_CACHE_MAX = 50_000  # document frequencies kept for one generation (a few MB), then counted afresh
# Keyword candidates on big indexes (selective()): terms in at most this share of the rows, the 3 rarest at least.
SELECTIVE_MIN_ROWS = 5_000
SELECTIVE_SHARE = 0.01
SELECTIVE_KEEP = 3


class KeywordSearch(PostgresConnection):
    """Ranked full-text search over chunks (and, through :class:`~.facts.PostgresFacts`, facts)."""

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
