"""Reads over one agent's kept index: a hybrid search of the chunks and a recall of the facts.

The query is embedded outside the index lock (a remote call that hangs and retries must not hold up every
other read: :meth:`IndexKeeper.embed_query`); the live vectors, the entity directory and the ranking are taken
under it. :class:`Reads` keeps what searches keep between calls: the reranker (``query.rerank``) and the other
agents' indexes (``memorySearch.shared``), each made on first use.
"""

from __future__ import annotations

import datetime as dt

from ..embeddings import Vectors
from ..errors import ProviderError
from ..facts.passages import current_first
from ..facts.recall import RecallResponse, embedded_text, recall
from ..search.ranking import SearchResponse, chunk_scores, rank
from ..search.rerank import Reranker, make_reranker
from ..search.shared import SharedIndexes
from .keeper import IndexKeeper


class Reads:
    """Search and recall over ``keeper``'s index; :meth:`close` releases the reranker and shared indexes."""

    def __init__(self, keeper: IndexKeeper) -> None:
        self.keeper = keeper
        self._shared: SharedIndexes | None = None  # other agents' indexes (memorySearch.shared), opened on use
        self._reranker: Reranker | None = None  # query.rerank's, loaded by the first search

    def shared(self) -> SharedIndexes | None:
        """The other agents' indexes ``memorySearch.shared`` names, opened on first use; None when it names none."""
        settings = self.keeper.settings
        if not settings.shared:
            return None
        with self.keeper.lock:
            if self._shared is None:
                self._shared = SharedIndexes(settings, self.keeper.config.agent_id)
            return self._shared

    def search(
        self, query: str, n: int, threshold: float, now: dt.datetime | None, notes: list[str], stale: bool
    ) -> SearchResponse:
        """The best ``n`` chunks for ``query`` scoring ``threshold`` or more (see :meth:`memlane.Memory.search`),
        with this agent's passages that only hold surely superseded facts after the rest, then other agents' hits;
        ``notes`` lead the response's notes."""
        keeper = self.keeper
        q = keeper.settings.query
        provider, query_vec, failure = keeper.embed_query(query)
        with keeper.lock:
            fallback = keeper.choice.fallback
            vectors = None
            if failure is not None and provider is not None:
                fallback = {"from": provider.provider_id, "reason": failure}
                notes.append(f"query embedding failed, keyword search only: {failure}")
            elif query_vec is not None:
                try:
                    vectors = keeper.chunk_vectors()
                except ProviderError as exc:
                    query_vec = None
                    notes.append(f"vector index unavailable, keyword search only: {exc}")
            if q.rerank.enabled and self._reranker is None:
                self._reranker = make_reranker(q.rerank, keeper.workspace)
            results, mode = rank(keeper.store, query, query_vec, vectors, q, n, threshold, now, self._reranker, notes)
            results = current_first(results, keeper.store.facts, query, keeper.store.lines_of, n)
            shared = self.shared()
            if shared is not None:
                results, more = shared.merge(results, query, query_vec, provider, n, threshold, now)
                notes.extend(more)
        if provider is None:
            notes.append("no embedding provider: keyword search only")
        return SearchResponse(
            results=results,
            provider=provider.provider_id if provider else None,
            model=provider.model if provider else None,
            fallback=fallback,
            mode=mode,
            notes=notes,
            stale=stale,
        )

    def recall(
        self,
        query: str,
        when: dt.datetime,
        k: int | None,
        since: dt.date | None,
        until: dt.date | None,
        kinds: tuple[str, ...] | None,
        entity: str | None,
        budget: int | None,
        explain: bool,
        as_of: dt.date | None,
        known_at: dt.date | None,
        notes: list[str],
    ) -> RecallResponse:
        """The facts that answer ``query`` (see :meth:`memlane.Memory.recall` and :mod:`memlane.facts.recall`),
        dates already read; ``notes`` lead the response's notes."""
        keeper = self.keeper
        settings = keeper.settings
        provider, query_vec, failure = keeper.embed_query(embedded_text(query, when.date()))
        if failure is not None:
            notes.append(f"query embedding failed, words only: {failure}")
        with keeper.lock:
            fact_vectors = chunk_vectors = None
            if provider is not None:
                fact_vectors, chunk_vectors = keeper.fact_vectors(), keeper.chunk_vectors()
            pool = (k or settings.recall.k) * settings.recall.candidate_multiplier

            store = keeper.store  # the closure runs on another thread: never through the locked property

            def context(text: str, vec: Vectors | None) -> list[tuple[str, int, int, float]]:
                return chunk_scores(store, text, vec, chunk_vectors, settings.query.hybrid, pool)

            resp = recall(
                store,
                query,
                settings=settings.recall,
                now=when,
                k=k,
                since=since,
                until=until,
                kinds=kinds,
                entity=entity,
                budget=budget,
                query_vec=query_vec,
                vectors=fact_vectors,
                context=context,
                count_tokens=provider.count_tokens if provider is not None else None,
                explain=explain,
                directory=keeper.entity_directory(),
                as_of=as_of,
                known_at=known_at,
                predicates=keeper.predicates,
            )
        if as_of is not None:
            notes.append(f"as of {as_of}: what was true then")
        if known_at is not None:
            notes.append(f"known at {known_at}: what memory held then")
        resp.notes[:0] = notes
        return resp

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()
        if self._reranker is not None:
            self._reranker.close()
            self._reranker = None
