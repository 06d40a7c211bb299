"""The Memory object: one agent's workspace, settings, provider and index, tied together.

The library's table of contents. Each method checks what the call may do (``memorySearch.enabled``,
``workspaceAccess``, counts, dates: in that order, before any sync) and hands over to its stage:

- the index kept fresh: :mod:`memlane.index.keeper`, :mod:`memlane.index.background`
- search and recall: :mod:`memlane.index.reads` over :mod:`memlane.search` and :mod:`memlane.facts.recall`
- entities and relations: :mod:`memlane.report.entities`, :mod:`memlane.facts.graph.agents` (other agents' beside)
- writes, flush, archive, backup: :mod:`memlane.files`
- reflect, beliefs, Retain drafts: :mod:`memlane.reflect.run`
- capture and import: :mod:`memlane.capture.run`
- status, doctor, the session-start pack: :mod:`memlane.report`
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .capture import Capturer, CaptureReport, parse_turns
from .capture.backfill import ImportItem, plan_import
from .capture.run import capturing, import_items
from .capture.turns import Turn
from .config import AgentConfig, schedule_seconds
from .config import resolve as resolve_config
from .embeddings import EmbeddingProvider, ProviderChoice
from .errors import AccessError, PathError, UsageError, check_count
from .facts.graph import agents
from .facts.graph.agents import shared_graphs
from .facts.recall import RecallResponse, date_bound, parse_kinds
from .files.archive import archive as archive_files
from .files.archive import archive_days, plan_archive
from .files.backup import BackupResult
from .files.backup import backup as backup_files
from .files.flush import STATE_FILE, FlushDecision, flush_times, plan_flush
from .files.writer import insert_text, read_core, replace_passage, write_note
from .index.background import Background
from .index.batching import BatchRun
from .index.keeper import IndexKeeper
from .index.reads import Reads
from .index.sync import PlanHook, Progress, SyncReport
from .reflect import ReflectReport, apply_changes
from .reflect.extract import LogDraft, append_drafts
from .reflect.run import beliefs_of, draft_retain, reflect_index
from .report import entities as report_entities
from .report.context import ContextPack, session_pack
from .report.doctor import Check, diagnose_read_only
from .report.status import background_status, index_status
from .search.live import SearchVectors
from .search.ranking import SearchResponse
from .store import IndexStore

log = logging.getLogger("memlane")


class Memory:
    """Recall over one agent's Markdown memory. Use :func:`memlane.open` to make one."""

    def __init__(self, workspace: Path, cfg: AgentConfig, choice: ProviderChoice | None = None) -> None:
        self.workspace = workspace
        self.config = cfg
        self.settings = cfg.memory_search
        self.agent_id = cfg.agent_id
        self.index = IndexKeeper(workspace, cfg, choice)
        self._lock = self.index.lock  # held while a read ranks; a sync takes it only to swap providers
        self._background: Background | None = None
        self._backed_up = time.time()  # when this Memory last backed up (started: a flush before it is not its)
        self._reads = Reads(self.index)  # search and recall, with the reranker and other agents' indexes

    # -- lifecycle: background freshness (memlane.index.background)
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
        self._reads.close()

    def _refresh_in_background(self) -> None:
        self._ensure_background().request()

    def _ensure_background(self) -> Background:
        """The running worker; one is started (without watchers) if there is none."""
        with self._lock:
            if self._background is None or not self._background.running:
                self._background = Background(self)
                self._background.start()
            return self._background

    # -- the index (kept by memlane.index.keeper) and reports on it (memlane.report)
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

    def status(self, deep: bool = False) -> dict[str, Any]:
        """What the index holds and how it is set up; ``deep`` also embeds a probe text."""
        return index_status(self.index, self._background, deep)

    def background_status(self) -> dict[str, Any]:
        """The background worker's state: running, syncs done, watcher events, last sync and error."""
        return background_status(self._background)

    def doctor(self) -> list[Check]:
        """Problems of this memory and its index, each with the command that fixes it. Reads only: the index
        is opened here to be looked at (never this Memory's store, whose opening creates, migrates or moves
        aside an index)."""
        return diagnose_read_only(self.config, self.workspace, self.index.fingerprint())

    def _vector_index(self) -> SearchVectors:
        """The live chunk vectors (benches rank with them directly)."""
        return self.index.chunk_vectors()

    # -- reads: search and recall (memlane.index.reads), a file, the core block, the session-start pack
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
        self._require_readable()
        if not isinstance(query, str) or not query.strip():
            raise UsageError("query must be a non-empty string")
        q = self.settings.query
        n = max_results if max_results is not None else q.max_results
        threshold = min_score if min_score is not None else q.min_score
        check_count("maxResults", n)
        notes, stale = self._freshen(fresh)
        return self._reads.search(query, n, threshold, now, notes, stale)

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
        self._require_readable()
        if not isinstance(query, str) or not query.strip():
            raise UsageError("query must be a non-empty string")
        if k is not None:
            check_count("k", k)
        if budget is not None:
            check_count("budget", budget)
        when = now or dt.datetime.now()
        lower = date_bound(since, when.date(), "since")
        upper = date_bound(until, when.date(), "until", end=True)
        on_day = date_bound(as_of, when.date(), "as_of", end=True)
        known_day = date_bound(known_at, when.date(), "known_at", end=True)
        kind_names = parse_kinds(kinds)
        notes, _stale = self._freshen(fresh)
        return self._reads.recall(
            query, when, k, lower, upper, kind_names, entity, budget, explain, on_day, known_day, notes
        )

    def get(self, path: str, from_line: int | None = None, lines: int | None = None) -> str:
        """Text of a memory file, optionally ``lines`` lines starting at 1-based ``from_line``."""
        self._require_readable()
        return self.index.read_source(path, from_line, lines)

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
        """What an agent should see at the start of a session (:mod:`memlane.report.context`): the core block,
        the facts most relevant to ``query`` (else to the name of the folder ``cwd``), then recent ones, within
        ``budget`` tokens, each with its source."""
        self._require_readable()
        check_count("budget", budget)
        when = now or dt.datetime.now()
        recall = functools.partial(self.recall, k=10, budget=budget, now=when)
        return session_pack(self.index, self.core(), recall, budget, query, cwd, when, recent_days)

    # -- entities and relations (memlane.report.entities, memlane.facts.graph.agents)
    def entities(self, fresh: bool = False) -> list[dict[str, Any]]:
        """Every entity of the index: its name, page, how many facts mention it and the latest day of one."""
        self._require_readable()
        self._freshen(fresh)
        return report_entities.entities(self.index)

    def entity(self, name: str, limit: int = 200, fresh: bool = False) -> dict[str, Any]:
        """One entity: its page, the facts that mention it (latest first, at most ``limit``), the entities
        mentioned beside it with how many facts they share, and its relations now (empty without any)."""
        self._require_readable()
        check_count("limit", limit)
        self._freshen(fresh)
        return report_entities.entity(self.index, name, limit)

    def facts_since(self, since: dt.date, limit: int = 500, fresh: bool = False) -> list[dict[str, Any]]:
        """The facts of the logs dated ``since`` or later, latest day first (at most ``limit``)."""
        self._require_readable()
        check_count("limit", limit)
        self._freshen(fresh)
        return report_entities.facts_since(self.index, since, limit)

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
            raise UsageError("entity must be a non-empty string")
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 4:
            raise UsageError(f"depth must be 1 to 4, got {depth!r}")
        today = (now or dt.datetime.now()).date()
        day = date_bound(as_of, today, "as_of", end=True)
        notes, _stale = self._freshen(fresh)
        own = self.index.graph()
        others, more = shared_graphs(self._reads.shared(), self.index.predicates)
        iso = day.isoformat() if day else None
        return agents.neighbourhood(
            own, self.agent_id, others, entity, depth, iso, to, self.settings.graph, notes + more
        )

    def timeline(self, entity: str, fresh: bool = False) -> dict[str, Any]:
        """Every relation of ``entity`` in valid-time order, with when each ended and what ended it."""
        self._require_readable()
        if not isinstance(entity, str) or not entity.strip():
            raise UsageError("entity must be a non-empty string")
        notes, _stale = self._freshen(fresh)
        own = self.index.graph()
        others, more = shared_graphs(self._reads.shared(), self.index.predicates)
        updates = functools.partial(report_entities.updates, self.index)
        return agents.timeline(own, self.agent_id, others, entity, updates, notes + more)

    # -- writes (memlane.files: writer, flush, archive, backup)
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

    def memory_flush(
        self, session_id: str, session_tokens: int, context_window: int, compaction_count: int = 0, record: bool = True
    ) -> FlushDecision:
        """Pre-compaction flush: whether to run the silent 'write your notes' turn now, and its prompts."""
        state = self.sessions_dir / STATE_FILE
        return plan_flush(self.config, state, session_id, session_tokens, context_window, compaction_count, record)

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

    # -- reflect: entity pages, opinions, proposals, Retain drafts (memlane.reflect.run)
    def reflect(
        self, since: dt.date | str | None = None, dry_run: bool = False, now: dt.datetime | None = None
    ) -> ReflectReport:
        """Update entity pages, bank/opinions.md and bank/proposals.md from the facts (see
        :mod:`memlane.reflect`). ``dry_run`` computes the changes (``report.diff()``) and writes nothing."""
        self._require_readable() if dry_run else self._require_writable()
        today = (now or dt.datetime.now()).date()
        report = reflect_index(self.index, self.config, since, today, lambda: self._freshen(fresh=True))
        if not dry_run and apply_changes(self.workspace, report):
            self._index_after_write({})
        return report

    def reflect_scheduled(self) -> None:
        """What the ``reflect.schedule`` timer runs: a reflect, unless the workspace is not writable."""
        if self.config.workspace_access == "rw":
            report = self.reflect()
            log.info("memlane reflect: %d pages written", len(report.written))

    def beliefs(self, now: dt.datetime | None = None, fresh: bool = False) -> dict[str, Any]:
        """Each opinion's confidence step by step with the evidence for and against, and the proposals for
        MEMORY.md: what reflect would write, by the same rule, computed without writing."""
        self._require_readable()
        self._freshen(fresh)
        return beliefs_of(self.index, self.config, (now or dt.datetime.now()).date())

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
        drafts = draft_retain(self.index, self.config, day, since, llm, (now or dt.datetime.now()).date())
        if apply and append_drafts(self.workspace, drafts):
            self._index_after_write({})
        return drafts

    # -- capture and import of conversations (memlane.capture.run)
    def capture(
        self,
        turns: Iterable[Turn | Mapping[str, Any]],
        session: str | None = None,
        now: dt.datetime | None = None,
        *,
        chat: bool = False,
    ) -> CaptureReport:
        """Turn conversation turns (``{role, content, timestamp?, name?}``) into memory: a section per session
        in the daily log of each turn's date, with a digest and Retain bullets (see :mod:`memlane.capture`).
        Turns captured before are recognised; facts memory holds are counted as restatements, not written.
        ``chat``: a chat app's conversation, whose agent ran no tool in the person's environment (then only what
        it says it did, "I drafted ...", is its outcome, never a bare report or a finding about "your" setup)."""
        self._require_writable()
        items = parse_turns(turns)
        with self._capturer() as capturer:
            report = capturer.capture(items, session, now or dt.datetime.now(), chat=chat)
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
            total = import_items(capturer, kind, items, now, progress)
        return items, self._after_capture(total, index_progress)

    def _capturer(self) -> contextlib.AbstractContextManager[Capturer]:
        return capturing(self.index, self.config, lambda: self._freshen(fresh=True))

    def _after_capture(
        self, report: CaptureReport, progress: Callable[[int, int], None] | None = None
    ) -> CaptureReport:
        if report.facts_written or report.digest_lines:
            done = self._index_after_write({}, progress)
            if "note" in done:
                report.notes.append(str(done["note"]))
        return report

    # -- guards and the index after a read or write
    def _require_enabled(self) -> None:
        if not self.settings.enabled:
            raise AccessError(f"memory search is disabled for agent {self.agent_id!r} (memorySearch.enabled = false)")

    def _require_readable(self) -> None:
        self._require_enabled()
        if self.config.workspace_access == "none":
            raise AccessError("memory is disabled for this agent (workspaceAccess: none)")

    def _require_writable(self) -> None:
        self._require_enabled()
        access = self.config.workspace_access
        if access != "rw":
            raise AccessError(f"writing memory is not allowed: the workspace is {access!r} (workspaceAccess)")

    def _freshen(self, fresh: bool) -> tuple[list[str], bool]:
        return self.index.freshen(fresh, self._refresh_in_background)

    def _index_after_write(
        self, payload: dict[str, Any], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Index a write now, unless another sync (a long reindex) is running: then do not make the caller
        wait, a background sync picks it up."""
        return self.index.after_write(payload, self._refresh_in_background, progress)


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
