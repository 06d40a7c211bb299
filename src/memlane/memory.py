"""The Memory object: one agent's workspace, settings, provider and index, tied together."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .capture import Capturer, CaptureReport, locked_state, parse_turns
from .capture.backfill import ImportItem, plan_import, run_import
from .capture.known import known_facts
from .capture.llm import CaptureLlm
from .capture.turns import Turn
from .config import AgentConfig, schedule_seconds
from .config import resolve as resolve_config
from .embeddings import EmbeddingProvider, ProviderChoice, Vectors
from .embeddings.remote import estimate_tokens
from .errors import MemlaneError, PathError, ProviderError, quoted
from .facts import supersede
from .facts.derive import day_of
from .facts.entities import suggest
from .facts.recall import RecallResponse, date_bound, embedded_text, parse_kinds, recall
from .facts.retain import normalize_name
from .files.archive import archive as archive_files
from .files.archive import archive_days, plan_archive
from .files.backup import BackupResult
from .files.backup import backup as backup_files
from .files.flush import STATE_FILE, FlushDecision, flush_times, plan_flush
from .files.writer import insert_text, read_core, replace_passage, write_note
from .graph import directory_of
from .graph.query import Edge, Graph, describe_path
from .index.background import Background
from .index.batching import BatchRun
from .index.keeper import IndexKeeper
from .index.sessions import PREFIX as SESSIONS_PREFIX
from .index.sessions import read_session
from .index.sync import (
    PlanHook,
    Progress,
    SyncReport,
)
from .index.workspace import read_lines, resolve_extra_path, resolve_memory_path
from .reflect import EntityState, ReflectReport, apply_changes, reflected_before
from .reflect import beliefs as reflect_beliefs
from .reflect import plan as reflect_plan
from .reflect.extract import LogDraft, append_drafts, daily_logs, draft_logs
from .reflect.llm import LlmDrafter
from .search.live import SearchVectors
from .search.ranking import SearchResponse, SearchResult, chunk_scores, rank
from .search.rerank import Reranker, make_reranker
from .search.shared import SharedIndexes
from .store import IndexStore
from .store.facts import StoredFact
from .surface.context import ContextPack, assemble
from .surface.context import Line as ContextLine
from .surface.doctor import Check, diagnose_read_only
from .surface.status import background_status, index_status

log = logging.getLogger("memlane")


class Memory:
    """Recall over one agent's Markdown memory. Use :func:`memlane.open` to make one."""

    def __init__(
        self,
        workspace: Path,
        cfg: AgentConfig,
        choice: ProviderChoice | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = cfg
        self.settings = cfg.memory_search
        self.agent_id = cfg.agent_id
        self.index = IndexKeeper(workspace, cfg, choice)
        self._lock = self.index.lock  # held while a read ranks; a sync takes it only to swap providers
        self._background: Background | None = None
        self._backed_up = time.time()  # when this Memory last backed up (started: a flush before it is not its)
        self._shared: SharedIndexes | None = None  # other agents' indexes (memorySearch.shared), opened on use
        self._reranker: Reranker | None = None  # query.rerank's, loaded by the first search

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
            background.schedule("reflect", schedule_seconds(self.config.reflect.schedule), self.reflect_scheduled)
            git = self.config.backup.git
            background.schedule("backup", schedule_seconds(git.schedule), lambda: self.backup(push=git.push))
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
        self.index.close()
        if self._shared is not None:
            self._shared.close()
        if self._reranker is not None:
            self._reranker.close()
            self._reranker = None

    # -- the index (kept by memlane.index.keeper)
    @property
    def choice(self) -> ProviderChoice:
        return self.index.choice

    @property
    def store(self) -> IndexStore:
        return self.index.store

    @property
    def batch(self) -> BatchRun:
        return self.index.batch

    @property
    def sessions_dir(self) -> Path:
        return self.index.sessions_dir

    def _require_enabled(self) -> None:
        if not self.settings.enabled:
            raise MemlaneError(f"memory search is disabled for agent {self.agent_id!r} (memorySearch.enabled = false)")

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
        return self.index.sync(force, progress, on_plan, include_sessions, all_sessions)

    def is_dirty(self) -> bool:
        """True when the index is missing, built for other settings, or behind the files on disk."""
        return self.index.is_dirty()

    def _freshen(self, fresh: bool) -> tuple[list[str], bool]:
        return self.index.freshen(fresh, self._refresh_in_background)

    def search(
        self,
        query: str,
        max_results: int | None = None,
        min_score: float | None = None,
        fresh: bool = False,
        now: dt.datetime | None = None,
    ) -> SearchResponse:
        """Hybrid search. With ``sync.onSearch``, an index never built is built first; one that is behind
        answers at once (``stale``) and refreshes in the background, or, with ``fresh``, syncs the
        memory files first (what a one-shot command wants: it would wait for the refresh anyway).
        ``now`` is the present the query's time words are read against ("last week"), default the clock."""
        self._require_enabled()
        self._require_readable()
        if not isinstance(query, str) or not query.strip():
            raise MemlaneError("query must be a non-empty string")
        q = self.settings.query
        n = max_results if max_results is not None else q.max_results
        threshold = min_score if min_score is not None else q.min_score
        _check_count("maxResults", n)
        notes, stale = self._freshen(fresh)
        provider, query_vec, failure = self._embed_query(query)
        with self._lock:
            fallback = self.choice.fallback
            vectors = None
            if failure is not None and provider is not None:
                fallback = {"from": provider.provider_id, "reason": failure}
                notes.append(f"query embedding failed, keyword search only: {failure}")
            elif query_vec is not None:
                try:
                    vectors = self._vector_index()
                except ProviderError as exc:
                    query_vec = None
                    notes.append(f"vector index unavailable, keyword search only: {exc}")
            if q.rerank.enabled and self._reranker is None:
                self._reranker = make_reranker(q.rerank, self.workspace)
            results, mode = rank(self.store, query, query_vec, vectors, q, n, threshold, now, self._reranker, notes)
            results = self._current_first(results, query, now)
            if self.settings.shared:
                if self._shared is None:
                    self._shared = SharedIndexes(self.settings, self.agent_id)
                results, more = self._shared.merge(results, query, query_vec, provider, n, threshold, now)
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

    def _current_first(self, results: list[SearchResult], query: str, now: dt.datetime | None) -> list[SearchResult]:
        """``results`` less the daily logs of days after ``now`` (what was said later is no answer), with a
        passage whose facts were all superseded by another passage's moved after the rest (for a question about
        the present: :func:`memlane.facts.supersede.stale_passages`)."""
        if now is not None:
            results = [r for r in results if (day_of(r.path) or dt.date.min) <= now.date()]
        files = {r.path: self.store.facts.of_path(r.path) for r in results if r.agent is None}
        passages = [
            [f for f in files.get(r.path, ()) if r.start_line <= f.start_line <= r.end_line] if r.agent is None else []
            for r in results
        ]
        stale = supersede.stale_passages(passages, query)
        if not stale:
            return results
        return [r for i, r in enumerate(results) if i not in stale] + [r for i, r in enumerate(results) if i in stale]

    def _embed_query(self, text: str) -> tuple[EmbeddingProvider | None, Vectors | None, str | None]:
        """The provider and ``text``'s vector (or why it failed), embedded outside the lock: a remote call
        that hangs and retries must not hold up every other read. A sync that swapped to its fallback
        meanwhile makes the vector useless (another model), so the query is embedded again."""
        for _ in range(3):
            with self._lock:
                provider = self.choice.provider
            if provider is None:
                return None, None, None
            try:
                vec = provider.embed_query(text)
                failure = None
            except ProviderError as exc:
                vec, failure = None, str(exc)
            with self._lock:
                if self.choice.provider is provider:
                    return provider, vec, failure
        return provider, None, "the embedding provider changed while the query was embedded"

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
        as_of: dt.date | str | None = None,
        known_at: dt.date | str | None = None,
    ) -> RecallResponse:
        """Facts from the ``## Retain`` sections that answer ``query``, best first, each citing its source
        line (see :mod:`memlane.facts.recall`). ``since``/``until`` take dates, ``30d``-style spans or
        ``YYYY-MM-DD``; ``kinds`` world/experience/opinion/observation; ``budget`` a token limit. Current facts
        come first; ``as_of`` answers from what was true on that day, ``known_at`` from what memory knew then."""
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise MemlaneError("memory is disabled for this agent (workspaceAccess: none)")
        if not isinstance(query, str) or not query.strip():
            raise MemlaneError("query must be a non-empty string")
        if k is not None:
            _check_count("k", k)
        if budget is not None:
            _check_count("budget", budget)
        when = now or dt.datetime.now()
        lower = date_bound(since, when.date(), "since")
        upper = date_bound(until, when.date(), "until", end=True)
        on_day = date_bound(as_of, when.date(), "as_of", end=True)
        known_day = date_bound(known_at, when.date(), "known_at", end=True)
        kind_names = parse_kinds(kinds)
        notes, _stale = self._freshen(fresh)
        settings = self.settings
        provider, query_vec, failure = self._embed_query(embedded_text(query, when.date()))
        if failure is not None:
            notes.append(f"query embedding failed, words only: {failure}")
        with self._lock:
            fact_vectors = chunk_vectors = None
            if provider is not None:
                fact_vectors, chunk_vectors = self.index.fact_vectors(), self.index.chunk_vectors()
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
                query_vec=query_vec,
                vectors=fact_vectors,
                context=context,
                count_tokens=provider.count_tokens if provider is not None else None,
                explain=explain,
                directory=self.index.entity_directory(),
                as_of=on_day,
                known_at=known_day,
                predicates=self.index.predicates,
            )
        if on_day is not None:
            notes.append(f"as of {on_day}: what was true then")
        if known_day is not None:
            notes.append(f"known at {known_day}: what memory held then")
        resp.notes[:0] = notes
        return resp

    def _graph(self) -> Graph:
        return Graph(self.store.facts, self.index.entity_directory(), self.index.predicates)

    def graph(
        self,
        entity: str,
        depth: int = 2,
        as_of: dt.date | str | None = None,
        to: str | None = None,
        now: dt.datetime | None = None,
        fresh: bool = False,
    ) -> dict[str, Any]:
        """The entities within ``depth`` relations of ``entity`` and the relations between them, true on
        ``as_of`` (today when None), each with its source; with ``to``, the shortest path between the two."""
        self._require_readable()
        if not isinstance(entity, str) or not entity.strip():
            raise MemlaneError("entity must be a non-empty string")
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 4:
            raise MemlaneError(f"depth must be 1 to 4, got {depth!r}")
        today = (now or dt.datetime.now()).date()
        day = date_bound(as_of, today, "as_of", end=True)
        notes, _stale = self._freshen(fresh)
        g = self._graph()
        others, more = self._shared_graphs()
        notes += more
        if g.resolve(entity) is None and not any(o.resolve(entity) for _, o in others):
            hint = g.directory.suggest(entity)
            raise MemlaneError(f"no entity {entity!r} in the index" + (f": did you mean {hint}?" if hint else ""))
        cfg = self.settings.graph
        iso = day.isoformat() if day else None
        if to is not None:
            if g.resolve(entity) is None:
                raise MemlaneError(f"no entity {entity!r} in this agent's index (paths are walked in it alone)")
            if g.resolve(to) is None:
                raise MemlaneError(f"no entity {to!r} in the index")
            found = g.paths(entity, to, depth, iso, cfg.fanout, cfg.max_nodes)
            return {
                "from": g.name(str(g.resolve(entity))),
                "to": g.name(str(g.resolve(to))),
                "as_of": iso,
                "paths": [{"text": describe_path(p), "edges": [e.to_dict() for e in p]} for p in found],
                "notes": notes + ([] if found else [f"no path of at most {depth} relations"]),
            }
        hood = g.neighbourhood(entity, depth, iso, cfg.fanout, cfg.max_nodes)
        if others:  # other agents' relations beside this one's, each edge naming its agent
            hood.edges = [dataclasses.replace(e, agent=self.agent_id) for e in hood.edges]
            seen = {n["key"] for n in hood.nodes}
            for agent, other in others:
                if other.resolve(entity) is None:
                    continue
                theirs = other.neighbourhood(entity, depth, iso, cfg.fanout, cfg.max_nodes)
                hood.nodes += [dict(n, agent=agent) for n in theirs.nodes if n["key"] not in seen]
                seen |= {n["key"] for n in theirs.nodes}
                hood.edges += [dataclasses.replace(e, agent=agent) for e in theirs.edges]
                hood.notes += [f"{agent}: {n}" for n in theirs.notes]
        return {**hood.to_dict(), "as_of": iso, "notes": notes + hood.notes}

    def _shared_graphs(self) -> tuple[list[tuple[str, Graph]], list[str]]:
        """The graphs of the agents ``memorySearch.shared`` names, read-only; and notes on those unreadable."""
        if not self.settings.shared:
            return [], []
        with self._lock:
            if self._shared is None:
                self._shared = SharedIndexes(self.settings, self.agent_id)
        stores, notes = self._shared.stores()
        graphs = [(a, Graph(s.facts, directory_of(s.facts), self.index.predicates)) for a, s in stores]
        return graphs, notes

    def timeline(self, entity: str, fresh: bool = False) -> dict[str, Any]:
        """Every relation of ``entity`` in valid-time order, with when each ended and what ended it."""
        self._require_readable()
        if not isinstance(entity, str) or not entity.strip():
            raise MemlaneError("entity must be a non-empty string")
        notes, _stale = self._freshen(fresh)
        g = self._graph()
        others, more = self._shared_graphs()
        notes += more
        if g.resolve(entity) is None and not any(o.resolve(entity) for _, o in others):
            raise MemlaneError(f"no entity {entity!r} in the index")
        name, edges, now = entity, list[Edge](), dict[str, list[str]]()
        if g.resolve(entity) is not None:
            name, edges = g.timeline(entity)
            now = {p: [e.object for e in es] for p, es in g.now(str(g.resolve(entity))).items()}
        out: dict[str, Any] = {"entity": name, "now": now, "updates": self._updates(entity)}
        if others:  # other agents' timelines beside this one's, read-only, each edge naming its agent
            edges = [dataclasses.replace(e, agent=self.agent_id) for e in edges]
            shared_now: dict[str, dict[str, list[str]]] = {}
            for agent, other in others:
                key = other.resolve(entity)
                if key is None:
                    continue
                edges += [dataclasses.replace(e, agent=agent) for e in other.timeline(entity)[1]]
                shared_now[agent] = {p: [e.object for e in es] for p, es in other.now(key).items()}
            edges.sort(key=lambda e: (e.valid_from or "", e.agent or ""))
            out["shared_now"] = shared_now
        return {**out, "relations": [e.to_dict() for e in edges], "notes": notes}

    def _updates(self, entity: str) -> list[dict[str, Any]]:
        """Which of ``entity``'s latest facts a later one superseded (:func:`memlane.facts.supersede.updates`)."""
        ent = self.index.entity_directory().resolve(entity)
        if ent is None:
            return []
        with self._lock:
            seqs = self.store.facts.mentioning(sorted(ent.norms), supersede.UPDATES_READ)
            facts = self.store.facts.by_seq(seqs)
        return supersede.updates(facts.values())

    def reflect(
        self, since: dt.date | str | None = None, dry_run: bool = False, now: dt.datetime | None = None
    ) -> ReflectReport:
        """Update entity pages, bank/opinions.md and bank/proposals.md from the facts (see
        :mod:`memlane.reflect`). ``dry_run`` computes the changes (``report.diff()``) and writes nothing."""
        self._require_readable() if dry_run else self._require_writable()
        today = (now or dt.datetime.now()).date()
        # The first reflect of a workspace covers every fact (its logs may all be older than reflect.since);
        # later ones only the entities with recent facts.
        first = since is None and not reflected_before(self.workspace)
        lower = None if first else date_bound(since if since is not None else self.config.reflect.since, today, "since")
        self._freshen(fresh=True)  # reflect from the files as they are now
        with self._lock:
            facts, matrix = self.index.facts_and_vectors()
            graph = self._graph()
            single = self.index.predicates.single

            def state_of(key: str) -> EntityState:
                now = {p: edges for p, edges in graph.now(key).items() if single(p)}
                return EntityState(now, graph.changes(key))

            report = reflect_plan(
                self.workspace,
                facts,
                matrix,
                self.index.entity_directory(),
                self.config.reflect,
                lower,
                today,
                state_of,
            )
        if first:
            report.notes.append(
                f"first reflect of this workspace: every fact is covered; later runs cover reflect.since "
                f"({self.config.reflect.since})"
            )
        if not dry_run and apply_changes(self.workspace, report):
            self._index_after_write({})
        return report

    def entities(self, fresh: bool = False) -> list[dict[str, Any]]:
        """Every entity of the index: its name, page, how many facts mention it and the latest day of one."""
        self._require_readable()
        self._freshen(fresh)
        with self._lock:
            directory = self.index.entity_directory()
            last: dict[str, str] = {}
            for norm, day in self.store.facts.last_days().items():
                ent = directory.of_norm(norm)
                if ent is not None and day > last.get(ent.key, ""):
                    last[ent.key] = day
            return [
                {"name": e.name, "page": e.page, "facts": directory.counts.get(e.key, 0), "last": last.get(e.key)}
                for e in directory.entities()
            ]

    def entity(self, name: str, limit: int = 200, fresh: bool = False) -> dict[str, Any]:
        """One entity: its page, the facts that mention it (latest first, at most ``limit``), the entities
        mentioned beside it with how many facts they share, and its relations now (empty without any)."""
        self._require_readable()
        _check_count("limit", limit)
        self._freshen(fresh)
        with self._lock:
            directory = self.index.entity_directory()
            ent = directory.resolve(name) if isinstance(name, str) and name.strip() else None
            if ent is not None:
                facts_of = self.store.facts
                norms = sorted(ent.norms)
                seqs = facts_of.mentioning(norms, limit)
                found = facts_of.by_seq(seqs)
                related: dict[str, int] = {}
                for norm, n in facts_of.co_mentions(norms):
                    other = directory.of_norm(norm)
                    label = other.name if other is not None else norm
                    related[label] = related.get(label, 0) + n
                now = {p: [e.to_dict() for e in es] for p, es in self._graph().now(ent.key).items()}
        if ent is None:
            # the hint compares the name with every entity's: only for a name of a name's length, and unlocked
            short = isinstance(name, str) and len(name) <= 100
            hint = suggest(normalize_name(name), {e.key: e.name for e in directory.entities()}) if short else None
            raise MemlaneError(f"no entity {quoted(name)} in the index" + (f": did you mean {hint}?" if hint else ""))
        return {
            "name": ent.name,
            "page": ent.page,
            "count": directory.counts.get(ent.key, 0),
            "facts": [_fact_dict(found[s]) for s in seqs if s in found],
            "related": sorted(related.items(), key=lambda kv: (-kv[1], kv[0].lower())),
            "now": now,
        }

    def facts_since(self, since: dt.date, limit: int = 500, fresh: bool = False) -> list[dict[str, Any]]:
        """The facts of the logs dated ``since`` or later, latest day first (at most ``limit``)."""
        self._require_readable()
        _check_count("limit", limit)
        self._freshen(fresh)
        facts_of = self.store.facts
        seqs = facts_of.latest_since(since.isoformat(), limit)
        found = facts_of.by_seq(seqs)
        return [_fact_dict(found[s]) for s in seqs if s in found]

    def beliefs(self, now: dt.datetime | None = None, fresh: bool = False) -> dict[str, Any]:
        """Each opinion's confidence step by step with the evidence for and against, and the proposals for
        MEMORY.md: what reflect would write, by the same rule, computed without writing."""
        self._require_readable()
        self._freshen(fresh)
        with self._lock:
            facts, matrix = self.index.facts_and_vectors()
            return reflect_beliefs(
                self.workspace,
                facts,
                matrix,
                self.index.entity_directory(),
                self.config.reflect,
                (now or dt.datetime.now()).date(),
            )

    def retain(
        self,
        day: dt.date | str | None = None,
        since: dt.date | str | None = None,
        apply: bool = False,
        llm: bool = False,
        now: dt.datetime | None = None,
    ) -> list[LogDraft]:
        """Draft ``## Retain`` bullets for daily logs (``day``, or every log since ``since``; default today's)
        with the offline rules of :mod:`memlane.reflect.extract`, or an OpenAI-compatible LLM with ``llm``. With
        ``apply`` they are appended to each log under ``## Retain`` (bullets already there are never
        written twice) and indexed."""
        self._require_writable() if apply else self._require_readable()
        today = (now or dt.datetime.now()).date()
        first = date_bound(since, today, "since") if since is not None else None
        only = date_bound(day, today, "day") if day is not None else (None if first else today)
        directory = self.index.entity_directory()
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

    def capture(
        self,
        turns: Iterable[Turn | Mapping[str, Any]],
        session: str | None = None,
        now: dt.datetime | None = None,
    ) -> CaptureReport:
        """Turn conversation turns (``{role, content, timestamp?, name?}``) into memory: a section per session
        in the daily log of each turn's date, with a digest and Retain bullets (see :mod:`memlane.capture`).
        Turns captured before are recognised; facts memory holds are counted as restatements, not written."""
        self._require_writable()
        items = parse_turns(turns)
        with self._capturer() as capturer:
            report = capturer.capture(items, session, now or dt.datetime.now())
        return self._after_capture(report)

    def capture_transcript(
        self, path: str | os.PathLike[str], format: str = "auto", now: dt.datetime | None = None
    ) -> CaptureReport:
        """Capture what is new in a transcript file (Claude Code, Codex, OpenClaw or generic JSONL; ``auto``
        tells them apart) since its last capture."""
        self._require_writable()
        with self._capturer() as capturer:
            report = capturer.transcript(Path(path), format, now)
        return self._after_capture(report)

    def capture_stream(self, data: bytes, format: str = "auto", now: dt.datetime | None = None) -> CaptureReport:
        """Capture a transcript read whole from a stream (``memlane capture --transcript -``)."""
        self._require_writable()
        with self._capturer() as capturer:
            report = capturer.stream(data, format, now or dt.datetime.now())
        return self._after_capture(report)

    def import_history(
        self,
        kind: str,
        path: str | os.PathLike[str],
        since: dt.date | str | None = None,
        dry_run: bool = False,
        progress: Callable[[ImportItem, CaptureReport], None] | None = None,
        now: dt.datetime | None = None,
        index_progress: Callable[[int, int], None] | None = None,
    ) -> tuple[list[ImportItem], CaptureReport]:
        """Capture a history the user already has: ``claude-code``, ``codex`` or ``openclaw`` transcripts
        under ``path``, or a ``chatgpt`` / ``claude-ai`` export (see :mod:`memlane.capture.backfill`).
        ``dry_run`` lists what would be captured. Resumes after an interruption; indexed once, at the end
        (``index_progress(embedded, to_embed)`` follows that indexing)."""
        self._require_readable() if dry_run else self._require_writable()
        now = now or dt.datetime.now()
        lower = date_bound(since, now.date(), "since") if since is not None else None
        items = list(plan_import(kind, Path(path), lower, self.config.capture.max_export_bytes))
        if dry_run:
            return items, CaptureReport(turns_read=sum(i.turns for i in items))
        with self._capturer() as capturer:

            def done(item: ImportItem, report: CaptureReport) -> None:
                capturer.state.save()  # an interrupted import resumes after the last item done
                if progress is not None:
                    progress(item, report)

            total = run_import(
                kind,
                items,
                lambda turns, session: capturer.capture(turns, session, now),
                lambda file, fmt: capturer.transcript(file, fmt, now),
                done,
            )
        return items, self._after_capture(total, index_progress)

    @contextlib.contextmanager
    def _capturer(self) -> Iterator[Capturer]:
        self._freshen(fresh=True)  # what memory holds now decides what is a restatement
        directory = self.index.entity_directory()
        names = sorted(set(directory.page_names.values()) | {n for n, _ in self.store.facts.mentioned().values()})
        provider = self.choice.provider
        known = known_facts(
            self.store,
            self.config.capture.duplicate_cosine,
            provider.embed_batch if provider is not None else None,
            self.index.fact_vectors if provider is not None else None,
        )
        llm = CaptureLlm(self.config) if self.config.capture.llm else None
        try:
            with locked_state(self.sessions_dir) as state:
                yield Capturer(self.workspace, self.config.capture, state, names, known, llm)
                state.save()  # after the Markdown: a capture killed before this reads its turns again
        finally:
            if llm is not None:
                llm.close()

    def _after_capture(
        self, report: CaptureReport, progress: Callable[[int, int], None] | None = None
    ) -> CaptureReport:
        if report.facts_written or report.digest_lines:
            done = self._index_after_write({}, progress)
            if "note" in done:
                report.notes.append(str(done["note"]))
        return report

    def backup(self, push: bool | None = None, init: bool = False) -> BackupResult:
        """Commit the memory files that changed to the workspace's git repository (see
        :mod:`memlane.files.backup`); ``push`` (default ``backup.git.push``) pushes to ``backup.git.remote``."""
        self._require_writable()
        git = self.config.backup.git
        result = backup_files(self.workspace, git, push=git.push if push is None else push, init=init)
        self._backed_up = time.time()
        return result

    def after_sync(self) -> None:
        """The background worker's hook after each sync: with ``backup.git.afterFlush``, a backup once a memory
        flush was recorded since the last backup (the flush's notes have been synced by then)."""
        git = self.config.backup.git
        if git.after_flush and self.config.workspace_access == "rw":
            flushed = flush_times(self.sessions_dir / STATE_FILE)
            if flushed and max(flushed) > self._backed_up:
                self.backup(push=git.push)

    def archive(
        self, older_than: int | str = 90, dry_run: bool = False, now: dt.datetime | None = None
    ) -> dict[str, Any]:
        """Move daily logs older than ``older_than`` days (or "90d") to ``memory/archive/YYYY/`` (see
        :mod:`memlane.files.archive`); the index follows without re-embedding. ``dry_run`` only lists the moves."""
        self._require_readable() if dry_run else self._require_writable()
        moves, skipped = plan_archive(self.workspace, archive_days(older_than), (now or dt.datetime.now()).date())
        done = moves if dry_run else archive_files(self.workspace, moves)
        out: dict[str, Any] = {"moves": [m.to_dict() for m in done], "skipped": skipped, "dryRun": dry_run}
        if done and not dry_run:
            out.update(self._index_after_write({}))
        return out

    def doctor(self) -> list[Check]:
        """Problems of this memory and its index, each with the command that fixes it. Reads only: the index
        is opened here to be looked at (never this Memory's store, whose opening creates, migrates or moves
        aside an index)."""
        return diagnose_read_only(self.config, self.workspace, self.index.fingerprint())

    def reflect_scheduled(self) -> None:
        """What the ``reflect.schedule`` timer runs: a reflect, unless the workspace is not writable."""
        if self.config.workspace_access == "rw":
            report = self.reflect()
            log.info("memlane reflect: %d pages written", len(report.written))

    def _vector_index(self) -> SearchVectors:
        """The live chunk vectors (benches rank with them directly)."""
        return self.index.chunk_vectors()

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

    def context(
        self,
        budget: int = 2000,
        query: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        now: dt.datetime | None = None,
        recent_days: int = 30,
    ) -> ContextPack:
        """What an agent should see at the start of a session (:mod:`memlane.surface.context`): the core block,
        the facts most relevant to ``query`` (else to the name of the folder ``cwd``), then recent ones, within
        ``budget`` tokens, each with its source."""
        self._require_readable()
        _check_count("budget", budget)
        when = now or dt.datetime.now()
        core = self.core()
        topic = (query or "").strip()
        if not topic and cwd is not None:
            folder = Path(cwd).expanduser().name
            topic = folder.replace("-", " ").replace("_", " ").strip()
        relevant: list[ContextLine] = []
        if topic:
            resp = self.recall(topic, k=10, budget=budget, now=when)
            relevant = [ContextLine(f.content, f.source, f.kind, f.day, f.origin, f.valid_to) for f in resp.facts]
        lower = when.date() - dt.timedelta(days=recent_days)
        with self._lock:
            seqs = self.store.facts.in_window(lower, when.date(), 20)
            facts = self.store.facts.by_seq(seqs)
        later = supersede.of_facts([facts[s] for s in seqs if s in facts])
        recent = [
            ContextLine(f.content, f.source, f.kind, f.day, f.origin, later[s].day if s in later else None)
            for s, f in ((s, facts[s]) for s in seqs if s in facts)
        ]
        provider = self.choice.provider
        # without a provider, the bundled tokenizer (words alone undercount text without spaces: CJK, URLs)
        count = provider.count_tokens if provider is not None else estimate_tokens
        return assemble(budget, str(core["path"]), str(core["text"]), topic, relevant, recent, count)

    def _require_readable(self) -> None:
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise MemlaneError("memory is disabled for this agent (workspaceAccess: none)")

    def _require_writable(self) -> None:
        self._require_enabled()
        access = self.config.workspace_access
        if access != "rw":
            raise MemlaneError(f"writing memory is not allowed: the workspace is {access!r} (workspaceAccess)")

    def _index_after_write(
        self, payload: dict[str, Any], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Index a write now, unless another sync (a long reindex) is running: then do not make the caller
        wait, a background sync picks it up."""
        payload = {**payload, "indexed": False}
        if not self.index.sync_lock.acquire(blocking=False):
            self._refresh_in_background()
            payload["note"] = "written; another sync is running, it is indexed in the background"
            return payload
        try:
            self.index.sync_memory(force=False, progress=progress, on_plan=None)
            payload["indexed"] = True
        except MemlaneError as exc:  # the note is on disk; a later sync indexes it
            payload["note"] = f"written, not indexed yet: {exc}"
        finally:
            self.index.sync_lock.release()
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


# The most results, facts or budget tokens one call may ask for: more is a slip (and SQLite's integers end
# at 2**63, which a candidate pool of k x the multiplier would pass).
MAX_COUNT = 1_000_000


def _fact_dict(f: StoredFact) -> dict[str, Any]:
    return {
        "kind": f.kind,
        "content": f.content,
        "day": f.day,
        "confidence": f.confidence,
        "source": f.source,
        "origin": f.origin,
        "entities": sorted({name for _, name in f.mentions}),
    }


def _check_count(name: str, value: int) -> None:
    if not 1 <= value <= MAX_COUNT:
        raise MemlaneError(f"{name} must be between 1 and {MAX_COUNT:,}, got {str(value)[:40]}")


def open_memory(
    workspace: str | os.PathLike[str] | None = None,
    agent: str | None = None,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    provider: EmbeddingProvider | str | None = None,
    **overrides: Any,
) -> Memory:
    """Open an agent's memory. ``workspace`` defaults to the config's, else the current directory; ``agent``
    to the config's default agent (``agents.list`` entry with ``default: true``), else ``main``.

    ``provider`` is a provider name (``"local"``, ``"none"``, ...: the ``memorySearch.provider``
    setting) or any object meeting the :class:`EmbeddingProvider` protocol, used instead of the
    configured one. Keyword ``overrides`` are ``memorySearch`` keys (e.g. ``provider="none"``),
    applied last.
    """
    if isinstance(provider, str):
        overrides = {**overrides, "provider": provider}
        provider = None
    cfg = resolve_config(config, agent, overrides or None)
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
