"""The Memory object: one agent's workspace, settings, provider and index, tied together."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import config as config_mod
from .batching import BatchRun
from .embeddings import EmbeddingProvider, ProviderChoice, make_fallback, resolve_provider
from .embeddings.remote import BatchProvider
from .errors import MemlaneError, PathError, ProviderError
from .search import SearchResponse, VectorIndex, rank
from .store import FileState, SQLiteStore
from .sync import (
    PlanHook,
    Progress,
    SyncReport,
    effective_chunking,
    embedding_key,
    files_differ,
    index_fingerprint,
    sync_workspace,
)
from .workspace import read_lines, resolve_memory_path


class Memory:
    """Recall over one agent's Markdown memory. Use :func:`memlane.open` to make one."""

    def __init__(
        self,
        workspace: Path,
        cfg: config_mod.AgentConfig,
        choice: ProviderChoice | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = cfg
        self.settings = cfg.memory_search
        self.agent_id = cfg.agent_id
        self._choice = choice
        self._store: SQLiteStore | None = None
        self._vectors: tuple[tuple[int, int], VectorIndex] | None = None
        # (generation, indexed fingerprint, file states): re-read only after a write
        self._indexed: tuple[tuple[int, int], str | None, dict[str, FileState]] | None = None
        self._lock = threading.RLock()
        self.batch = BatchRun(self.settings.remote.batch)  # batch failures count across this Memory's syncs
        self._batch_polled = 0.0

    # -- lifecycle
    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            _close_provider(self._choice.provider if self._choice is not None else None)
            if self._store is not None:
                self._store.close()
                self._store = None

    # -- parts, made on first use so that keyword-only use never loads the model
    @property
    def choice(self) -> ProviderChoice:
        if self._choice is None:
            self._choice = resolve_provider(self.config)
        return self._choice

    @property
    def store(self) -> SQLiteStore:
        with self._lock:
            if self._store is None:
                self._store = SQLiteStore(self.settings.store_path(self.agent_id))
            return self._store

    def _fingerprint(self) -> dict[str, object]:
        provider = self.choice.provider
        return index_fingerprint(provider, effective_chunking(self.settings.chunking, provider), self.workspace)

    def _require_enabled(self) -> None:
        if not self.settings.enabled:
            raise MemlaneError(f"memory search is disabled for agent {self.agent_id!r} (memorySearch.enabled = false)")

    # -- operations
    def sync(
        self, force: bool = False, progress: Progress | None = None, on_plan: PlanHook | None = None
    ) -> SyncReport:
        """Bring the index up to date with the memory files.

        If the provider fails and ``fallback`` names another, the index is rebuilt with that one (the
        switch is recorded in :meth:`status` and every search response); until that rebuild commits,
        the previous index stays in place."""
        self._require_enabled()
        with self._lock:
            try:
                report = self._sync_once(force, progress, on_plan)
            except ProviderError as exc:
                provider = self.choice.provider
                switched = make_fallback(self.config, provider.provider_id, str(exc)) if provider else None
                if switched is None or self.choice.fallback is not None:
                    raise ProviderError(f"indexing stopped, the previous index is unchanged: {exc}") from None
                _close_provider(provider)
                self._choice = switched
                self._vectors = None
                try:
                    report = self._sync_once(force, progress, on_plan)
                except ProviderError as exc2:
                    raise ProviderError(
                        f"indexing stopped, the previous index is unchanged: {exc}; "
                        f"fallback {switched.provider.provider_id if switched.provider else None!r} failed too: {exc2}"
                    ) from None
                report.notes.append(f"switched to fallback provider after: {exc}")
            if self.store.recovered:
                report.notes.append(self.store.recovered)
            return report

    def _sync_once(self, force: bool, progress: Progress | None, on_plan: PlanHook | None) -> SyncReport:
        provider = self.choice.provider
        report = sync_workspace(
            self.store,
            provider,
            self.workspace,
            self.settings.chunking,
            cache_enabled=self.settings.cache.enabled,
            cache_max_entries=self.settings.cache.max_entries,
            force=force,
            progress=progress,
            batch=self.batch,
            price=self.settings.price(provider.model) if provider is not None else None,
            on_plan=on_plan,
        )
        self._batch_polled = time.monotonic()
        return report

    def is_dirty(self) -> bool:
        """True when the index is missing, built for other settings, or behind the files on disk."""
        gen = self.store.generation()
        if self._indexed is None or self._indexed[0] != gen:
            states = {p: s for p, s in self.store.file_states().items() if s.source == "memory"}
            self._indexed = (gen, self.store.meta().get("fingerprint"), states)
        if files_differ(self._indexed[1], self._indexed[2], self.workspace, self._fingerprint()):
            return True
        return self._batch_due()

    def _batch_due(self) -> bool:
        """Batch jobs of an earlier sync are uncollected and a poll interval has passed since the last look."""
        provider = self.choice.provider
        if provider is None or not isinstance(provider, BatchProvider):
            return False
        if time.monotonic() - self._batch_polled < self.settings.remote.batch.poll_interval_ms / 1000:
            return False
        return bool(self.store.batch_jobs(embedding_key(provider)))

    def search(self, query: str, max_results: int | None = None, min_score: float | None = None) -> SearchResponse:
        """Hybrid search over the memory files; syncs first when the index is behind."""
        self._require_enabled()
        if not isinstance(query, str) or not query.strip():
            raise MemlaneError("query must be a non-empty string")
        q = self.settings.query
        n = max_results if max_results is not None else q.max_results
        threshold = min_score if min_score is not None else q.min_score
        if n < 1:
            raise MemlaneError(f"maxResults must be 1 or greater, got {n}")
        notes: list[str] = []
        with self._lock:
            if self.settings.sync.on_search and self.is_dirty():
                report = self.sync()
                notes.extend(report.notes)
            elif "fingerprint" not in self.store.meta():
                notes.append("the index has not been built yet: run `memlane index`")
            choice = self.choice
            provider = choice.provider
            fallback = choice.fallback
            query_vec = None
            vectors = None
            if provider is not None:
                try:
                    query_vec = provider.embed_query(query)
                    vectors = self._vector_index()
                except ProviderError as exc:
                    fallback = {"from": provider.provider_id, "reason": str(exc)}
                    notes.append(f"query embedding failed, keyword search only: {exc}")
            results, mode = rank(self.store, query, query_vec, vectors, q.hybrid, n, threshold, q.window)
        if provider is None:
            notes.append("no embedding provider: keyword search only")
        return SearchResponse(
            results=results,
            provider=provider.provider_id if provider else None,
            model=provider.model if provider else None,
            fallback=fallback,
            mode=mode,
            notes=notes,
        )

    def _vector_index(self) -> VectorIndex:
        """The live vectors. After a write only the new chunks' vectors are read (a full load of
        100k vectors takes over a second; a one-file change, milliseconds)."""
        provider = self.choice.provider
        assert provider is not None
        epoch, gen = self.store.generation()
        key = embedding_key(provider)
        cached = self._vectors
        if cached is not None and cached[0] == (epoch, gen):
            return cached[1]
        if cached is None or cached[0][0] != epoch:
            seqs, matrix = self.store.load_vectors(key, provider.dims)
        else:
            old = cached[1]
            live = self.store.live_seqs()
            keep = np.isin(old.seqs, live, assume_unique=True)
            new_seqs, new_matrix = self.store.vectors_for(
                key, np.setdiff1d(live, old.seqs, assume_unique=True), provider.dims
            )
            if keep.all() and not len(new_seqs):
                seqs, matrix = old.seqs, old.matrix  # a write that touched no chunk (an mtime, meta)
            else:
                # seqs only grow (AUTOINCREMENT) within an epoch, so appending keeps them sorted.
                seqs = np.concatenate([old.seqs[keep], new_seqs])
                matrix = np.concatenate([old.matrix[keep], new_matrix])
        self._vectors = ((epoch, gen), VectorIndex(seqs, matrix))
        return self._vectors[1]

    def get(self, path: str, from_line: int | None = None, lines: int | None = None) -> str:
        """Text of a memory file, optionally ``lines`` lines starting at 1-based ``from_line``."""
        self._require_enabled()
        target = resolve_memory_path(self.workspace, path)
        try:
            return read_lines(target, from_line, lines)
        except OSError as exc:
            raise PathError(f"cannot read {path}: {exc.strerror}") from None

    def status(self, deep: bool = False) -> dict[str, Any]:
        """What the index holds and how it is set up; ``deep`` also embeds a probe text."""
        store = self.store
        counts = store.counts()
        meta = store.meta()
        choice = self.choice
        provider = choice.provider
        plan = effective_chunking(self.settings.chunking, provider)
        info: dict[str, Any] = {
            "agent": self.agent_id,
            "workspace": str(self.workspace),
            "enabled": self.settings.enabled,
            "files": counts["files"],
            "chunks": counts["chunks"],
            "provider": provider.provider_id if provider else None,
            "model": provider.model if provider else None,
            "dims": provider.dims if provider else None,
            "providerReason": choice.reason,
            "fallback": choice.fallback,
            "store": {"path": str(store.path), "bytes": store.size_bytes()},
            "indexed": "fingerprint" in meta,
            "dirty": self.is_dirty(),
            "cacheEntries": counts["cache_entries"],
            "cache": {"enabled": self.settings.cache.enabled, "maxEntries": self.settings.cache.max_entries},
            "vector": {
                "backend": "numpy (in-process exact cosine)" if provider else "none",
                "why": "faster than sqlite-vec's scan on this hardware (docs/DESIGN.md)",
            },
            "batch": self._batch_status(provider),
            "fts": {"enabled": True, "tokenizer": "porter unicode61 remove_diacritics 2", "cjk": "bigrams"},
            "chunking": {
                "tokens": plan.tokens,
                "overlap": plan.overlap,
                "configured": self.settings.chunking.model_dump(by_alias=True),
            },
        }
        if store.recovered:
            info["recovered"] = store.recovered
        if deep:
            info["probe"] = self._probe()
        return info

    def _batch_status(self, provider: EmbeddingProvider | None) -> dict[str, Any]:
        if provider is None or not isinstance(provider, BatchProvider):
            return {"available": False}
        jobs = self.store.batch_jobs(embedding_key(provider))
        return {
            "available": True,
            "enabled": self.settings.remote.batch.enabled,
            "active": self.batch.active,
            "failures": self.batch.failures,
            "disabled": self.batch.disabled,
            "pendingJobs": list(jobs),
            "pendingTexts": sum(len(h) for h in jobs.values()),
        }

    def _probe(self) -> dict[str, Any]:
        provider = self.choice.provider
        if provider is None:
            return {"ok": False, "error": "no embedding provider"}
        t = time.perf_counter()
        try:
            vec = provider.embed_batch(["memlane probe"])
        except ProviderError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "dims": int(vec.shape[1]), "ms": round((time.perf_counter() - t) * 1000, 1)}


def _close_provider(provider: EmbeddingProvider | None) -> None:
    closer = getattr(provider, "close", None)  # remote providers hold an HTTP connection pool
    if callable(closer):
        closer()


def open_memory(
    workspace: str | os.PathLike[str] | None = None,
    agent: str = "main",
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    provider: EmbeddingProvider | str | None = None,
    **overrides: Any,
) -> Memory:
    """Open an agent's memory. ``workspace`` defaults to the config's, else the current directory.

    ``provider`` is a provider name (``"local"``, ``"none"``, ...: the ``memorySearch.provider``
    setting) or any object meeting the :class:`EmbeddingProvider` protocol, used instead of the
    configured one. Keyword ``overrides`` are ``memorySearch`` keys (e.g. ``provider="none"``),
    applied last.
    """
    if isinstance(provider, str):
        overrides = {**overrides, "provider": provider}
        provider = None
    cfg = config_mod.resolve(config, agent, overrides or None)
    if workspace is not None:
        ws = Path(workspace).expanduser()
    elif cfg.workspace is not None:
        ws = cfg.workspace
    else:
        ws = Path.cwd()
    if not ws.is_dir():
        raise PathError(f"workspace is not a directory: {ws}")
    choice = ProviderChoice(provider, "provider object given by the caller") if provider is not None else None
    return Memory(ws.resolve(), cfg, choice)
