"""Keeping one agent's index: its store and embedding provider (with fallback), syncs, the freshness rules
reads follow, and what the live index holds in memory (vector matrices, the entity directory).

:class:`~memlane.memory.Memory` holds one keeper and wires it to the operations (search, recall, writes,
reflect); the background worker syncs through it.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import AgentConfig
from ..embeddings import EmbeddingProvider, ProviderChoice, Vectors, embedding_key, make_fallback, resolve_provider
from ..embeddings.remote import BatchProvider
from ..errors import MemlaneError, PathError, ProviderError
from ..facts.entities import EntityDirectory
from ..facts.graph import Predicates
from ..facts.graph.query import Graph
from ..facts.recall import entity_directory
from ..search.live import LiveVectors, SearchVectors
from ..search.vectors import VectorIndex
from ..store import FactFilter, IndexStore, StoredFact, open_store
from ..workspace import read_lines, resolve_extra_path, resolve_memory_path
from .batching import BatchRun
from .first import FirstIndex
from .sessions import PREFIX as SESSIONS_PREFIX
from .sessions import list_sessions, read_session, sync_sessions
from .sync import PlanHook, Progress, SyncReport, effective_chunking, files_differ, index_fingerprint
from .sync_pass import sync_workspace

# (generation, indexed fingerprint, memory files' states, first-index marker) of an index
_Indexed = tuple[tuple[int, int], str | None, dict[str, tuple[int, int]], FirstIndex | None]


class IndexKeeper:
    """One agent's index, kept up to date. Parts are made on first use, so keyword-only use never loads a
    model. ``lock`` guards the provider: a read holds it while it ranks, a sync takes it only to swap to
    the fallback (never for a whole sync)."""

    def __init__(self, workspace: Path, cfg: AgentConfig, choice: ProviderChoice | None = None) -> None:
        self.workspace = workspace
        self.config = cfg
        self.settings = cfg.memory_search
        self.lock = threading.RLock()
        self.sync_lock = threading.Lock()  # one sync at a time in this process (SQLite serialises processes)
        self.batch = BatchRun(self.settings.remote.batch)  # batch failures count across this index's syncs
        self._choice = choice
        self.predicates = Predicates.of(self.settings.graph)  # settings are frozen: made once, not per check
        self._store: IndexStore | None = None
        self._chunk_vectors = LiveVectors("chunks", self.settings.store.approximate_from())
        self._fact_vectors = LiveVectors("facts")
        self._entities: tuple[tuple[int, int], EntityDirectory] | None = None  # per index generation
        # re-read only after a write
        self._indexed: _Indexed | None = None
        self._batch_polled = 0.0
        self._sessions_seen: dict[str, tuple[int, int]] = {}  # transcript -> (mtime, size) last handed to a sync

    # -- parts
    @property
    def choice(self) -> ProviderChoice:
        if self._choice is None:
            self._choice = resolve_provider(self.config)
        return self._choice

    @property
    def store(self) -> IndexStore:
        with self.lock:
            if self._store is None:
                self._store = open_store(self.settings, self.config.agent_id)
            return self._store

    @property
    def sessions_dir(self) -> Path:
        return self.settings.sessions_dir(self.config.agent_id)

    def fingerprint(self) -> dict[str, object]:
        provider = self.choice.provider
        return index_fingerprint(
            provider,
            effective_chunking(self.settings.chunking, provider),
            self.workspace,
            self.predicates,
        )

    def close(self) -> None:
        with self.lock:
            self._chunk_vectors.close()
            close_provider(self._choice.provider if self._choice is not None else None)
            if self._store is not None:
                self._store.close()
                self._store = None

    # -- syncs
    def sync(
        self,
        force: bool = False,
        progress: Progress | None = None,
        on_plan: PlanHook | None = None,
        include_sessions: bool = True,
        all_sessions: bool = False,
    ) -> SyncReport:
        """See :meth:`memlane.memory.Memory.sync`."""
        with self.sync_lock:
            report = self.sync_memory(force, progress, on_plan)
            if include_sessions:
                self._sync_sessions(report, all_sessions or force)
            return report

    def _sync_sessions(self, report: SyncReport, everything: bool) -> None:
        provider = self.choice.provider
        try:
            sync_sessions(
                self.store,
                provider,
                self.sessions_dir,
                effective_chunking(self.settings.chunking, provider),
                self.settings.sync.sessions,
                report,
                everything=everything,
                enabled=self.settings.sessions_enabled,
            )
        except ProviderError as exc:  # transcripts are a secondary source: the memory files are indexed
            report.notes.append(f"session transcripts not indexed: {exc}")

    def sync_memory(self, force: bool, progress: Progress | None, on_plan: PlanHook | None) -> SyncReport:
        """The memory files only; call with ``sync_lock`` held. On a provider failure with a ``fallback``
        configured, the index is rebuilt with the fallback (the old one serves until that commits)."""
        try:
            report = self._sync_once(force, progress, on_plan)
        except ProviderError as exc:
            provider = self.choice.provider
            switched = make_fallback(self.config, provider.provider_id, str(exc)) if provider else None
            if switched is None or switched.provider is None or self.choice.fallback is not None:
                raise ProviderError(f"indexing stopped, {self._left_as()}: {exc}") from None
            with self.lock:
                close_provider(provider)
                self._choice = switched
                self._chunk_vectors.clear()
                self._fact_vectors.clear()
            try:
                report = self._sync_once(force, progress, on_plan)
            except ProviderError as exc2:
                raise ProviderError(
                    f"indexing stopped, {self._left_as()}: {exc}; "
                    f"fallback {switched.provider.provider_id!r} failed too: {exc2}"
                ) from None
            report.notes.append(f"switched to fallback provider after: {exc}")
        if self.store.recovered:
            report.notes.append(self.store.recovered)
        return report

    def _left_as(self) -> str:
        """What a failed sync left: the index as it was, or a first index searchable by keywords (first.py)."""
        first = FirstIndex.read(self.store.meta())
        if first is None:
            return "the previous index is unchanged"
        done = f"{first.done:,} of {first.todo:,} texts embedded"
        return f"the index is searchable by keywords with {done}; the next sync goes on"

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
            predicates=self.predicates,
            extra_paths=self.settings.extra_paths,
        )
        self._batch_polled = time.monotonic()
        return report

    # -- freshness
    def is_dirty(self) -> bool:
        """True when the index is missing, built for other settings, or behind the files on disk."""
        _, fingerprint, states, first = self._indexed_now()
        if files_differ(fingerprint, states, self.workspace, self.fingerprint(), self.settings.extra_paths):
            return True
        return (first is not None and first.due) or self._batch_due()  # an interrupted first index

    def _built_for_other_workspace(self, fingerprint: str | None) -> str | None:
        """The workspace an index was built for, when it is not this one (the fingerprint records it)."""
        try:
            built = json.loads(fingerprint or "{}").get("workspace")
        except (ValueError, AttributeError):
            return None  # an unreadable fingerprint differs anyway: :meth:`is_dirty` rebuilds it
        return built if isinstance(built, str) and built != str(self.workspace.resolve()) else None

    def _indexed_now(self) -> _Indexed:
        """(generation, fingerprint, memory files' states, first-index marker) of the index, read again only
        after a write."""
        gen = self.store.generation()
        if self._indexed is None or self._indexed[0] != gen:
            meta = self.store.meta()
            states = {p: (s.mtime, s.size) for p, s in self.store.file_states().items() if s.source == "memory"}
            self._indexed = (gen, meta.get("fingerprint"), states, FirstIndex.read(meta))
        return self._indexed

    def _sessions_changed(self) -> bool:
        """A transcript changed since it was last handed to a sync (cheap: one stat per transcript)."""
        if not self.settings.sessions_enabled:
            return False
        seen = {}
        for rel, path in list_sessions(self.sessions_dir).items():
            with contextlib.suppress(OSError):
                st = path.stat()
                seen[rel] = (st.st_mtime_ns, st.st_size)
        changed = seen != self._sessions_seen
        self._sessions_seen = seen
        return changed

    def _batch_due(self) -> bool:
        """Batch jobs of an earlier sync are uncollected and a poll interval has passed since the last look."""
        provider = self.choice.provider
        if provider is None or not isinstance(provider, BatchProvider):
            return False
        if time.monotonic() - self._batch_polled < self.settings.remote.batch.poll_interval_ms / 1000:
            return False
        return bool(self.store.batch_jobs(embedding_key(provider)))

    def freshen(self, fresh: bool, refresh: Callable[[], None]) -> tuple[list[str], bool]:
        """Before a read: with ``sync.onSearch``, an index never built is built now; one behind the files
        is used as it is (``stale``) while ``refresh`` (a background sync) catches up, or with ``fresh``
        synced first."""
        notes: list[str] = []
        stale = False
        on_search = self.settings.sync.on_search
        if self.store.read_only:
            notes.append(f"the index is used as it is: it cannot be updated ({self.store.read_only})")
            return notes, self.is_dirty()
        meta = self.store.meta()
        other = self._built_for_other_workspace(meta.get("fingerprint"))
        if "fingerprint" not in meta or other:
            if on_search or other:  # never built, or for another workspace's files: the first search builds it
                # (memory files only); another workspace's memory is no answer of this one, whatever sync.onSearch
                if other:
                    notes.append(f"the index was built for another workspace ({other}): rebuilt for this one")
                notes.extend(self.sync(include_sessions=False).notes)
                if self.settings.sessions_enabled:
                    refresh()
            else:
                notes.append("the index has not been built yet: run `memlane index`")
        elif fresh and on_search and self.is_dirty():
            notes.extend(self.sync(include_sessions=False).notes)
        elif on_search and self.is_dirty():
            refresh()  # answer now from what is indexed; catch up in the background
            stale = True
            notes.append("the index may be stale: files changed since the last sync; refreshing in the background")
        elif on_search and self._sessions_changed():
            # transcripts grow with every message and are indexed in deltas: refresh, but not "stale"
            refresh()
        first = self._indexed_now()[3]
        if first is not None:
            notes.append(first.note())
        return notes, stale

    def after_write(
        self, payload: dict[str, Any], refresh: Callable[[], None], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Index a write now, unless another sync (a long reindex) is running: then do not make the caller
        wait, ``refresh`` (a background sync) picks it up."""
        payload = {**payload, "indexed": False}
        if not self.sync_lock.acquire(blocking=False):
            refresh()
            payload["note"] = "written; another sync is running, it is indexed in the background"
            return payload
        try:
            self.sync_memory(force=False, progress=progress, on_plan=None)
            payload["indexed"] = True
        except MemlaneError as exc:  # the note is on disk; a later sync indexes it
            payload["note"] = f"written, not indexed yet: {exc}"
        finally:
            self.sync_lock.release()
        return payload

    # -- reads
    def embed_query(self, text: str) -> tuple[EmbeddingProvider | None, Vectors | None, str | None]:
        """The provider and ``text``'s vector (or why it failed), embedded outside the lock: a remote call
        that hangs and retries must not hold up every other read. A sync that swapped to its fallback
        meanwhile makes the vector useless (another model), so the query is embedded again."""
        for _ in range(3):
            with self.lock:
                provider = self.choice.provider
            if provider is None:
                return None, None, None
            try:
                vec = provider.embed_query(text)
                failure = None
            except ProviderError as exc:
                vec, failure = None, str(exc)
            with self.lock:
                if self.choice.provider is provider:
                    return provider, vec, failure
        return provider, None, "the embedding provider changed while the query was embedded"

    def read_source(self, path: str, from_line: int | None, lines: int | None) -> str:
        """Text of a memory file, a file of ``memorySearch.extraPaths`` (read-only) or an indexed session
        transcript, optionally ``lines`` lines starting at 1-based ``from_line``."""
        if isinstance(path, str) and path.startswith(SESSIONS_PREFIX):
            if not self.settings.sessions_enabled:
                raise PathError("session transcripts are not a memory source for this agent (sources, experimental)")
            try:
                return read_session(self.sessions_dir, path, from_line, lines)
            except OSError as exc:
                raise PathError(f"cannot read {path}: {exc.strerror}") from None
        try:
            target = resolve_memory_path(self.workspace, path)
        except PathError:
            extra = resolve_extra_path(self.workspace, self.settings.extra_paths, path)
            if extra is None:
                raise
            target = extra  # a file of memorySearch.extraPaths: read-only
        try:
            return read_lines(target, from_line, lines)
        except OSError as exc:
            raise PathError(f"cannot read {path}: {exc.strerror}") from None

    # -- the live index in memory
    def chunk_vectors(self) -> SearchVectors:
        """The live chunk vectors (reloaded only by delta after a write, or searched on the server of a big
        PostgreSQL index); a provider must be in use."""
        provider = self.choice.provider
        assert provider is not None
        return self._chunk_vectors.searchable(self.store, embedding_key(provider), provider.dims)

    def fact_vectors(self) -> VectorIndex:
        provider = self.choice.provider
        assert provider is not None
        return self._fact_vectors.get(self.store, embedding_key(provider), provider.dims)

    def entity_directory(self) -> EntityDirectory:
        """The index's entities, re-read only after a write."""
        gen = self.store.generation()
        if self._entities is None or self._entities[0] != gen:
            self._entities = (gen, entity_directory(self.store))
        return self._entities[1]

    def known_names(self) -> list[str]:
        """Every entity name memory knows, sorted: the entity pages' and the @mentions'."""
        directory = self.entity_directory()
        return sorted(set(directory.page_names.values()) | {n for n, _ in self.store.facts.mentioned().values()})

    def graph(self) -> Graph:
        """The relations of this index, read through its entity directory."""
        return Graph(self.store.facts, self.entity_directory(), self.predicates)

    def facts_and_vectors(self) -> tuple[list[StoredFact], npt.NDArray[np.float32] | None]:
        """Every fact of the index, and its vector row by row (zeros where a fact has none yet; None for a
        keyword-only index)."""
        store = self.store
        facts = list(store.facts.by_seq(store.facts.seqs(FactFilter())).values())
        if self.choice.provider is None or not facts:
            return facts, None
        index = self.fact_vectors()
        rows = index.rows_of([f.seq for f in facts])
        return facts, np.where((rows >= 0)[:, None], index.matrix[np.maximum(rows, 0)], 0.0).astype(np.float32)


def close_provider(provider: EmbeddingProvider | None) -> None:
    closer = getattr(provider, "close", None)  # remote providers hold an HTTP connection pool
    if callable(closer):
        closer()
