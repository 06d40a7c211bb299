"""Other agents' memory, searched read-only (``memorySearch.shared``).

An agent sees nothing of another unless its settings name it: ``shared: ["ops", "research"]``, or ``"*"``
for every agent whose index lies where this agent's ``store.path`` template puts one (with PostgreSQL,
every agent with an index in the same schema). Each of those indexes is opened read-only
(``open_store(..., shared=True)``: never created, migrated or written, and read while its owner may be
writing it; with PostgreSQL, the other agent's rows of the same tables) and ranked with the same query and
query vector; every hit carries the agent it came from. An index built with another embedding model has
no vectors of this one: it is searched by keywords alone, and a note says so.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading

import numpy as np
import numpy.typing as npt

from ..config import MemorySearchSettings
from ..embeddings import EmbeddingKey, EmbeddingProvider, embedding_key
from ..errors import IndexError_
from ..store import IndexStore, open_store
from .live import LiveVectors
from .ranking import SearchResult, rank


class SharedIndexes:
    """The other agents' indexes this agent may read, opened on first use and kept open."""

    def __init__(self, settings: MemorySearchSettings, agent_id: str) -> None:
        self._settings = settings
        self._agent = agent_id
        self._lock = threading.Lock()
        self._open: dict[str, tuple[IndexStore, LiveVectors]] = {}

    def agents(self) -> list[str]:
        """The agents named by ``memorySearch.shared`` (``"*"``: every index beside this agent's), not itself."""
        shared = self._settings.shared
        if shared == "*" and self._settings.store.driver == "postgres":
            from ..store.postgres import agents_in

            names = agents_in(self._settings.store.database_url(), self._settings.store.schema_)
        elif shared == "*":
            template = self._settings.store_path("{agentId}")
            if "{agentId}" not in template.name:
                return []  # one fixed path for every agent: there are no others to find
            prefix, _, suffix = template.name.partition("{agentId}")
            found = sorted(
                p.name[len(prefix) : len(p.name) - len(suffix)] for p in template.parent.glob(f"{prefix}*{suffix}")
            )
            names = [n for n in found if n]
        else:
            names = list(shared)
        return [n for n in dict.fromkeys(names) if n != self._agent]

    def merge(
        self,
        own: list[SearchResult],
        query: str,
        query_vec: npt.NDArray[np.float32] | None,
        provider: EmbeddingProvider | None,
        max_results: int,
        min_score: float,
        now: dt.datetime | None,
    ) -> tuple[list[SearchResult], list[str]]:
        """``own`` (this agent's hits) and each shared agent's, every hit tagged with its agent, the best
        ``max_results`` of them; and notes on what could not be read."""
        key = embedding_key(provider) if provider is not None and query_vec is not None else None
        dims = provider.dims if provider is not None else 0
        others, notes = self._search(query, query_vec, key, dims, max_results, min_score, now)
        mine = [dataclasses.replace(r, agent=self._agent) for r in own]
        return sorted(mine + others, key=lambda r: -r.score)[:max_results], notes

    def _search(
        self,
        query: str,
        query_vec: npt.NDArray[np.float32] | None,
        key: EmbeddingKey | None,
        dims: int,
        max_results: int,
        min_score: float,
        now: dt.datetime | None,
    ) -> tuple[list[SearchResult], list[str]]:
        """The best ``max_results`` hits of each shared agent, tagged with it, and notes on what could not be read."""
        results: list[SearchResult] = []
        notes: list[str] = []
        for agent in self.agents():
            try:
                store, live = self._store(agent)
            except IndexError_ as exc:
                notes.append(f"shared agent {agent!r} skipped: {exc}")
                continue
            vectors = None
            if query_vec is not None and key is not None:
                vectors = live.searchable(store, key, dims)
                if not len(vectors):
                    vectors = None
                    if store.counts()["chunks"]:
                        notes.append(f"shared agent {agent!r} has no vectors of this model: keyword search there")
            hits, _ = rank(
                store,
                query,
                query_vec if vectors is not None else None,
                vectors,
                self._settings.query,
                max_results,
                min_score,
                now,
            )
            results.extend(dataclasses.replace(hit, agent=agent) for hit in hits)
        return results, notes

    def stores(self) -> tuple[list[tuple[str, IndexStore]], list[str]]:
        """Each shared agent's index, opened read-only, and notes on those that could not be."""
        out: list[tuple[str, IndexStore]] = []
        notes: list[str] = []
        for agent in self.agents():
            try:
                out.append((agent, self._store(agent)[0]))
            except IndexError_ as exc:
                notes.append(f"shared agent {agent!r} skipped: {exc}")
        return out, notes

    def _store(self, agent: str) -> tuple[IndexStore, LiveVectors]:
        with self._lock:
            if agent not in self._open:
                self._open[agent] = (open_store(self._settings, agent, shared=True), LiveVectors("chunks"))
            return self._open[agent]

    def close(self) -> None:
        with self._lock:
            for store, _ in self._open.values():
                store.close()
            self._open.clear()
