"""The Memory object: one agent's workspace, settings, provider and index, tied together."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from . import config as config_mod
from .background import Background
from .batching import BatchRun
from .embeddings import EmbeddingProvider, ProviderChoice, Vectors, make_fallback, resolve_provider
from .embeddings.remote import BatchProvider
from .errors import MemlaneError, PathError, ProviderError
from .extract import LogDraft, append_drafts, daily_logs, draft_logs
from .facts.entities import EntityDirectory
from .facts.recall import RecallResponse, date_bound, entity_directory, parse_kinds, recall
from .flush import STATE_FILE, FlushDecision, plan_flush
from .llm import LlmDrafter
from .reflect import ReflectReport, apply_changes
from .reflect import plan as reflect_plan
from .search import SearchResponse, chunk_scores, rank
from .sessions import PREFIX as SESSIONS_PREFIX
from .sessions import list_sessions, read_session, sync_sessions
from .status import background_status, index_status
from .store import FactFilter, SQLiteStore, StoredFact
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
from .vectors import LiveVectors, VectorIndex
from .workspace import read_lines, resolve_memory_path
from .writer import insert_text, read_core, replace_passage, write_note

log = logging.getLogger("memlane")


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
        self._chunk_vectors = LiveVectors("chunks")
        self._fact_vectors = LiveVectors("facts")
        self._entities: tuple[tuple[int, int], EntityDirectory] | None = None  # per index generation
        # (generation, indexed fingerprint, file states): re-read only after a write
        self._indexed: tuple[tuple[int, int], str | None, dict[str, tuple[int, int]]] | None = None
        self._lock = threading.RLock()
        self._sync_lock = threading.Lock()  # one sync at a time in this process (SQLite serialises processes)
        self.batch = BatchRun(self.settings.remote.batch)  # batch failures count across this Memory's syncs
        self._batch_polled = 0.0
        self._background: Background | None = None
        self._sessions_seen: dict[str, tuple[int, int]] = {}  # transcript -> (mtime, size) last handed to a sync

    # -- lifecycle
    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, watch: bool | None = None) -> Memory:
        """Keep the index fresh in the background until :meth:`close`: a file watcher (``sync.watch``),
        a periodic sync (``sync.intervalMinutes``), with ``sync.onSessionStart`` a sync now, and with
        ``reflect.schedule`` a periodic reflect."""
        self._require_enabled()
        background = self._ensure_background()
        if self.settings.sync.watch if watch is None else watch:
            background.watch()
        if self.config.workspace_access == "rw":
            background.schedule_reflect(self.config.reflect.every_seconds)
        if self.settings.sync.on_session_start:
            self.on_session_start()
        return self

    def on_session_start(self) -> None:
        """An agent session began: refresh the index in the background (``sync.onSessionStart``)."""
        if self.settings.sync.on_session_start:
            self._refresh_in_background()

    def _refresh_in_background(self) -> None:
        self._ensure_background().request()

    def _ensure_background(self) -> Background:
        """The running worker; one is started (without watchers) if there is none."""
        with self._lock:
            if self._background is None or not self._background.running:
                self._background = Background(self)
                self._background.start()
            return self._background

    def wait_watching(self, timeout: float | None = None) -> bool:
        """Block until the file watchers :meth:`start` began are in place (changes from now on are seen);
        True at once when nothing is watched, False on timeout."""
        bg = self._background
        return True if bg is None else bg.wait_watching(timeout)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until background syncs are done (True), or ``timeout`` seconds pass (False)."""
        bg = self._background
        return True if bg is None else bg.wait_idle(timeout)

    def close(self) -> None:
        """Stop background work (a running sync finishes first) and release the index and provider."""
        bg = self._background
        if bg is not None:
            bg.stop()
            self._background = None
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
        self,
        force: bool = False,
        progress: Progress | None = None,
        on_plan: PlanHook | None = None,
        include_sessions: bool = True,
        all_sessions: bool = False,
    ) -> SyncReport:
        """Bring the index up to date with the memory files (and session transcripts, when enabled).

        If the provider fails and ``fallback`` names another, the index is rebuilt with that one (the
        switch is recorded in :meth:`status` and every search response); until that rebuild commits,
        the previous index stays in place. Transcripts below the ``sync.sessions`` delta thresholds
        wait for more conversation unless ``all_sessions``."""
        self._require_enabled()
        with self._sync_lock:
            report = self._sync_memory(force, progress, on_plan)
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

    @property
    def sessions_dir(self) -> Path:
        return self.settings.sessions_dir(self.agent_id)

    def _sync_memory(self, force: bool, progress: Progress | None, on_plan: PlanHook | None) -> SyncReport:
        """Call with ``_sync_lock`` held. ``_lock`` is taken only to swap the provider: a search (which
        holds it while it ranks) must never wait for a whole sync."""
        try:
            report = self._sync_once(force, progress, on_plan)
        except ProviderError as exc:
            provider = self.choice.provider
            switched = make_fallback(self.config, provider.provider_id, str(exc)) if provider else None
            if switched is None or switched.provider is None or self.choice.fallback is not None:
                raise ProviderError(f"indexing stopped, the previous index is unchanged: {exc}") from None
            with self._lock:
                _close_provider(provider)
                self._choice = switched
                self._chunk_vectors.clear()
                self._fact_vectors.clear()
            try:
                report = self._sync_once(force, progress, on_plan)
            except ProviderError as exc2:
                raise ProviderError(
                    f"indexing stopped, the previous index is unchanged: {exc}; "
                    f"fallback {switched.provider.provider_id!r} failed too: {exc2}"
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
            states = {p: (s.mtime, s.size) for p, s in self.store.file_states().items() if s.source == "memory"}
            self._indexed = (gen, self.store.meta().get("fingerprint"), states)
        if files_differ(self._indexed[1], self._indexed[2], self.workspace, self._fingerprint()):
            return True
        return self._batch_due()

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

    def _freshen(self, fresh: bool) -> tuple[list[str], bool]:
        """Before a read: with ``sync.onSearch``, an index never built is built now; one behind the files
        is used as it is (``stale``) while a background sync catches up, or with ``fresh`` synced first."""
        notes: list[str] = []
        stale = False
        if "fingerprint" not in self.store.meta():
            if self.settings.sync.on_search:  # never built: the first search builds it (memory files only)
                notes.extend(self.sync(include_sessions=False).notes)
                if self.settings.sessions_enabled:
                    self._refresh_in_background()
            else:
                notes.append("the index has not been built yet: run `memlane index`")
        elif fresh and self.settings.sync.on_search and self.is_dirty():
            notes.extend(self.sync(include_sessions=False).notes)
        elif self.settings.sync.on_search and self.is_dirty():
            # answer now from what is indexed; catch up in the background
            self._refresh_in_background()
            stale = True
            notes.append("the index may be stale: files changed since the last sync; refreshing in the background")
        elif self.settings.sync.on_search and self._sessions_changed():
            # transcripts grow with every message and are indexed in deltas: refresh, but not "stale"
            self._refresh_in_background()
        return notes, stale

    def search(
        self, query: str, max_results: int | None = None, min_score: float | None = None, fresh: bool = False
    ) -> SearchResponse:
        """Hybrid search. With ``sync.onSearch``, an index never built is built first; one that is behind
        answers at once (``stale``) and refreshes in the background, or, with ``fresh``, syncs the
        memory files first (what a one-shot command wants: it would wait for the refresh anyway)."""
        self._require_enabled()
        if not isinstance(query, str) or not query.strip():
            raise MemlaneError("query must be a non-empty string")
        q = self.settings.query
        n = max_results if max_results is not None else q.max_results
        threshold = min_score if min_score is not None else q.min_score
        if n < 1:
            raise MemlaneError(f"maxResults must be 1 or greater, got {n}")
        notes, stale = self._freshen(fresh)
        with self._lock:
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
            stale=stale,
        )

    def recall(
        self,
        query: str,
        k: int | None = None,
        since: dt.date | str | None = None,
        until: dt.date | str | None = None,
        kinds: str | Sequence[str] | None = None,
        entity: str | None = None,
        budget: int | None = None,
        now: dt.datetime | None = None,
        fresh: bool = False,
        explain: bool = False,
    ) -> RecallResponse:
        """Facts from the ``## Retain`` sections that answer ``query``, best first, each citing its source
        line (see :mod:`memlane.facts.recall`). ``since``/``until`` take dates, ``30d``-style spans or
        ``YYYY-MM-DD``; ``kinds`` world/experience/opinion/observation; ``budget`` a token limit."""
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise MemlaneError("memory is disabled for this agent (workspaceAccess: none)")
        if not isinstance(query, str) or not query.strip():
            raise MemlaneError("query must be a non-empty string")
        if k is not None and k < 1:
            raise MemlaneError(f"k must be 1 or greater, got {k}")
        if budget is not None and budget < 1:
            raise MemlaneError(f"budget must be 1 or greater, got {budget}")
        when = now or dt.datetime.now()
        lower = date_bound(since, when.date(), "since")
        upper = date_bound(until, when.date(), "until", end=True)
        kind_names = parse_kinds(kinds)
        notes, _stale = self._freshen(fresh)
        settings = self.settings
        with self._lock:
            provider = self.choice.provider
            fact_vectors = chunk_vectors = None
            if provider is not None:
                key = embedding_key(provider)
                fact_vectors = self._fact_vectors.get(self.store, key, provider.dims)
                chunk_vectors = self._chunk_vectors.get(self.store, key, provider.dims)
            pool = (k or settings.recall.k) * settings.recall.candidate_multiplier

            store = self.store  # the closure runs on another thread: never through the locked property

            def context(text: str, vec: Vectors | None) -> list[tuple[str, int, int, float]]:
                return chunk_scores(store, text, vec, chunk_vectors, settings.query.hybrid, pool)

            resp = recall(
                self.store,
                query,
                settings=settings.recall,
                now=when,
                k=k,
                since=lower,
                until=upper,
                kinds=kind_names,
                entity=entity,
                budget=budget,
                embed=provider.embed_query if provider is not None else None,
                vectors=fact_vectors,
                context=context,
                count_tokens=provider.count_tokens if provider is not None else None,
                explain=explain,
                directory=self._entity_directory(),
            )
        resp.notes[:0] = notes
        return resp

    def reflect(
        self, since: dt.date | str | None = None, dry_run: bool = False, now: dt.datetime | None = None
    ) -> ReflectReport:
        """Update entity pages, bank/opinions.md and bank/proposals.md from the facts (see
        :mod:`memlane.reflect`). ``dry_run`` computes the changes (``report.diff()``) and writes nothing."""
        self._require_readable() if dry_run else self._require_writable()
        today = (now or dt.datetime.now()).date()
        lower = date_bound(since if since is not None else self.config.reflect.since, today, "since")
        assert lower is not None
        self._freshen(fresh=True)  # reflect from the files as they are now
        with self._lock:
            facts, matrix = self._facts_and_vectors()
            report = reflect_plan(
                self.workspace, facts, matrix, self._entity_directory(), self.config.reflect, lower, today
            )
        if not dry_run and apply_changes(self.workspace, report):
            self._index_after_write({})
        return report

    def retain(
        self,
        day: dt.date | str | None = None,
        since: dt.date | str | None = None,
        apply: bool = False,
        llm: bool = False,
        now: dt.datetime | None = None,
    ) -> list[LogDraft]:
        """Draft ``## Retain`` bullets for daily logs (``day``, or every log since ``since``; default today's)
        with the offline rules of :mod:`memlane.extract`, or an OpenAI-compatible LLM with ``llm``. With
        ``apply`` they are appended to each log under ``## Retain`` (bullets already there are never
        written twice) and indexed."""
        self._require_writable() if apply else self._require_readable()
        today = (now or dt.datetime.now()).date()
        first = date_bound(since, today, "since") if since is not None else None
        only = date_bound(day, today, "day") if day is not None else (None if first else today)
        directory = self._entity_directory()
        known = sorted(set(directory.page_names.values()) | {n for n, _ in self.store.facts.mentioned().values()})
        drafter = LlmDrafter(self.config) if llm else None
        try:
            drafts = draft_logs(self.workspace, daily_logs(self.workspace, only, first), known, drafter)
        finally:
            if drafter is not None:
                drafter.close()
        if apply and append_drafts(self.workspace, drafts):
            self._index_after_write({})
        return drafts

    def _facts_and_vectors(self) -> tuple[list[StoredFact], npt.NDArray[np.float32] | None]:
        """Every fact of the index, and its vector row by row (zeros where a fact has none yet; None for a
        keyword-only index)."""
        store = self.store
        facts = list(store.facts.by_seq(store.facts.seqs(FactFilter())).values())
        provider = self.choice.provider
        if provider is None or not facts:
            return facts, None
        index = self._fact_vectors.get(store, embedding_key(provider), provider.dims)
        rows = index.rows_of([f.seq for f in facts])
        return facts, np.where((rows >= 0)[:, None], index.matrix[np.maximum(rows, 0)], 0.0).astype(np.float32)

    def reflect_scheduled(self) -> None:
        """What the ``reflect.schedule`` timer runs: a reflect, unless the workspace is not writable."""
        if self.config.workspace_access == "rw":
            report = self.reflect()
            log.info("memlane reflect: %d pages written", len(report.written))

    def _entity_directory(self) -> EntityDirectory:
        """The index's entities, re-read only after a write."""
        gen = self.store.generation()
        if self._entities is None or self._entities[0] != gen:
            self._entities = (gen, entity_directory(self.store))
        return self._entities[1]

    def _vector_index(self) -> VectorIndex:
        """The live chunk vectors (reloaded only by delta after a write)."""
        provider = self.choice.provider
        assert provider is not None
        return self._chunk_vectors.get(self.store, embedding_key(provider), provider.dims)

    def get(self, path: str, from_line: int | None = None, lines: int | None = None) -> str:
        """Text of a memory file, optionally ``lines`` lines starting at 1-based ``from_line``."""
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise MemlaneError("memory is disabled for this agent (workspaceAccess: none)")
        if isinstance(path, str) and path.startswith(SESSIONS_PREFIX):
            if not self.settings.sessions_enabled:
                raise PathError("session transcripts are not a memory source for this agent (sources, experimental)")
            try:
                return read_session(self.sessions_dir, path, from_line, lines)
            except OSError as exc:
                raise PathError(f"cannot read {path}: {exc.strerror}") from None
        target = resolve_memory_path(self.workspace, path)
        try:
            return read_lines(target, from_line, lines)
        except OSError as exc:
            raise PathError(f"cannot read {path}: {exc.strerror}") from None

    def write(self, text: str, heading: str | None = None, long_term: bool = False) -> dict[str, Any]:
        """Append a note to today's ``memory/YYYY-MM-DD.md`` (or ``MEMORY.md``), under ``heading`` if
        given, and index it at once. Refused unless ``workspaceAccess`` is ``rw``."""
        self._require_writable()
        result = write_note(
            self.workspace, text, heading=heading, long_term=long_term, max_core_chars=self.config.core.max_chars
        )
        return self._index_after_write(result.to_dict())

    def replace(self, path: str, old: str, new: str) -> dict[str, Any]:
        """Replace the one exact occurrence of ``old`` in a memory file with ``new`` (refused when it occurs
        zero or several times); answers with the edited lines and their range, indexed at once."""
        self._require_writable()
        result, lines = replace_passage(self.workspace, path, old, new, self.config.core.max_chars)
        return self._index_after_write({**result.to_dict(), "text": lines})

    def insert(self, path: str, text: str, line: int | None = None, heading: str | None = None) -> dict[str, Any]:
        """Insert ``text`` into a memory file (created if missing) after ``line`` (0 = top, -1 = end) or
        under ``heading`` (created if missing); answers with the inserted lines and their range."""
        self._require_writable()
        result, lines = insert_text(self.workspace, path, text, line, heading, self.config.core.max_chars)
        return self._index_after_write({**result.to_dict(), "text": lines})

    def core(self) -> dict[str, Any]:
        """MEMORY.md as the core block an agent keeps in context every session, with its size and a
        warning above ``core.maxChars``."""
        self._require_readable()
        return read_core(self.workspace, self.config.core.max_chars)

    def _require_readable(self) -> None:
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise MemlaneError("memory is disabled for this agent (workspaceAccess: none)")

    def _require_writable(self) -> None:
        self._require_enabled()
        access = self.config.workspace_access
        if access != "rw":
            raise MemlaneError(f"writing memory is not allowed: the workspace is {access!r} (workspaceAccess)")

    def _index_after_write(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Index a write now, unless another sync (a long reindex) is running: then do not make the caller
        wait, a background sync picks it up."""
        payload = {**payload, "indexed": False}
        if not self._sync_lock.acquire(blocking=False):
            self._refresh_in_background()
            payload["note"] = "written; another sync is running, it is indexed in the background"
            return payload
        try:
            self._sync_memory(force=False, progress=None, on_plan=None)
            payload["indexed"] = True
        except MemlaneError as exc:  # the note is on disk; a later sync indexes it
            payload["note"] = f"written, not indexed yet: {exc}"
        finally:
            self._sync_lock.release()
        return payload

    def memory_flush(
        self, session_id: str, session_tokens: int, context_window: int, compaction_count: int = 0, record: bool = True
    ) -> FlushDecision:
        """Pre-compaction flush: whether to run the silent 'write your notes' turn now, and its prompts."""
        return plan_flush(
            self.config,
            self.sessions_dir / STATE_FILE,
            session_id,
            session_tokens,
            context_window,
            compaction_count,
            record,
        )

    def status(self, deep: bool = False) -> dict[str, Any]:
        """What the index holds and how it is set up; ``deep`` also embeds a probe text."""
        return index_status(
            agent_id=self.agent_id,
            workspace=self.workspace,
            config=self.config,
            store=self.store,
            choice=self.choice,
            dirty=self.is_dirty(),
            background=self._background,
            batch=self.batch,
            sessions_dir=self.sessions_dir,
            deep=deep,
        )

    def background_status(self) -> dict[str, Any]:
        """The background worker's state: running, syncs done, watcher events, last sync and error."""
        return background_status(self._background)


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
