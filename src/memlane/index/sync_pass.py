"""The index pipeline: list files -> chunk and derive facts -> embed what is new -> write.

An incremental sync reads only files whose mtime or size changed, re-chunks only files
whose content hash changed, and embeds only chunk texts with no vector in the cache.
When the fingerprint (provider, model, endpoint, chunking, workspace) changes, the whole
index is rebuilt; vectors are computed first (each batch committed to the cache, so a
killed run does not pay twice) and the swap is one transaction, so until it commits the
previous index stays complete and searchable. A first index (no previous one) of ``EARLY_TEXTS`` texts or
more commits its rows first instead and is searchable by keywords while its vectors arrive (first.py). A pass
bigger than ``STREAM_CHUNKS`` chunks reads its files again for each step instead of holding every row, so its
memory is bounded.

A pass is three steps over its changed files: the plan (sync_plan.py: which files changed, what of theirs has no
vector and its tokens), the embedding of what is missing (sync_embed.py), and the write (here, one transaction).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..config import ChunkingSettings, ExtraPath, Price
from ..embeddings import EmbeddingKey, EmbeddingProvider, embedding_key
from ..embeddings.remote import BatchProvider
from ..facts.entities import entity_hints, is_entity_page
from ..facts.graph import Predicates, settle_index
from ..facts.graph import history as git_history
from ..facts.graph.record import record_index
from ..store import FileState, IndexStore, fingerprint_json
from ..workspace import differs_from
from .batching import BatchRun, collect_jobs
from .chunking import whitespace_token_counter
from .first import EARLY_TEXTS, FirstIndex, Showing, cleared
from .sync import PlanHook, Progress, SyncReport, effective_chunking, index_fingerprint
from .sync_embed import embed_missing
from .sync_plan import Listing, list_changes

CATCH_UP_PASSES = 3  # extra incremental passes when files changed while a sync ran
PRUNE_EVERY = 500  # new vectors between two cache prunings (or 1% of cache.maxEntries)
TRIM_AFTER_CHUNKS = 5_000  # a sync that wrote this many chunks hands its freed heap back (release_freed_memory)


@dataclass(frozen=True)
class _Sync:
    """What every pass of one sync works with."""

    store: IndexStore
    provider: EmbeddingProvider | None
    workspace: Path
    chunking: ChunkingSettings
    cache_enabled: bool
    cache_max_entries: int
    progress: Progress | None
    batch: BatchRun | None
    price: Price | None
    predicates: Predicates
    extra_paths: Sequence[str | ExtraPath]


def sync_workspace(
    store: IndexStore,
    provider: EmbeddingProvider | None,
    workspace: Path,
    chunking: ChunkingSettings,
    cache_enabled: bool = True,
    cache_max_entries: int = 50_000,
    force: bool = False,
    progress: Progress | None = None,
    batch: BatchRun | None = None,
    price: Price | None = None,
    on_plan: PlanHook | None = None,
    predicates: Predicates | None = None,
    extra_paths: Sequence[str | ExtraPath] = (),
) -> SyncReport:
    """Bring the index up to date with the memory files (and ``extra_paths``: memorySearch.extraPaths). If
    files changed while it ran (another writer, an editor), it makes up to ``CATCH_UP_PASSES`` more
    incremental passes: when it returns, the index is at least as new as the files were when it started,
    whoever else was syncing at the same time."""
    started = time.perf_counter()
    sync = _Sync(
        store,
        provider,
        workspace,
        chunking,
        cache_enabled,
        cache_max_entries,
        progress,
        batch,
        price,
        predicates or Predicates(),
        extra_paths,
    )
    report = _sync_pass(sync, force, on_plan)
    for _ in range(CATCH_UP_PASSES if not report.left_be else 0):
        indexed = {p: (st.mtime, st.size) for p, st in store.file_states().items() if st.source == "memory"}
        if not differs_from(workspace, indexed, extra_paths):
            break
        report.absorb(_sync_pass(sync, False, None))  # the plan was told once
    report.seconds = time.perf_counter() - started
    if report.chunks_written >= TRIM_AFTER_CHUNKS:
        release_freed_memory()
    return report


def release_freed_memory() -> None:
    """Hand the heap a big sync freed back to the system (glibc's ``malloc_trim``; nothing elsewhere).
    Python and numpy free the pass's rows, but the C heap keeps the pages: a search process that has just
    indexed 100k chunks held 30 MB more than it needed (docs/DESIGN.md §24)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc (macOS, musl, Windows): nothing to do
        ctypes.CDLL(None).malloc_trim(0)


@dataclass
class _Pass:
    """One pass: what it compared the files with, what it found, and (a first index that commits its rows
    before it embeds) how the vectors are shown as they arrive."""

    sync: _Sync
    report: SyncReport
    fingerprint: dict[str, object]
    meta: dict[str, str]  # the index's meta when the pass began
    known: dict[str, FileState]  # path -> state the index holds (none on a full reindex)
    listing: Listing
    at: tuple[str, str] | None  # git HEAD (memlane.facts.graph.record)
    history_moved: bool  # HEAD moved (or left git): every statement's record time again
    key: EmbeddingKey | None
    rows_early: bool  # a first index: its rows may be committed before it embeds (first.py)
    showing: Showing | None = None

    def rows_first(self, todo: int) -> Showing | None:
        """Told how many texts the plan holds: a first index of many commits its rows now, searchable at once."""
        if self.rows_early and todo >= EARLY_TEXTS:
            marker = FirstIndex.start(todo)
            commit_rows(self, marker.to_meta())
            self.showing = Showing(marker)
        return self.showing


def _sync_pass(sync: _Sync, force: bool, on_plan: PlanHook | None) -> SyncReport:
    """One pass of :func:`sync_workspace`."""
    store, provider, workspace = sync.store, sync.provider, sync.workspace
    report = SyncReport()
    plan = effective_chunking(sync.chunking, provider)
    fingerprint = index_fingerprint(provider, plan, workspace, sync.predicates)
    meta = store.meta()
    first = FirstIndex.read(meta)
    if first is not None and first.running and not force:
        report.notes.append(
            f"another sync (process {first.pid}) is embedding the first index ({first.done:,} of {first.todo:,} "
            "texts): this one leaves it be"
        )
        report.left_be = True
        return report
    _why_full(report, force, meta, fingerprint, first)
    known = {} if report.full_reindex else {p: s for p, s in store.file_states().items() if s.source == "memory"}
    count = provider.count_tokens if provider else whitespace_token_counter
    listing = list_changes(workspace, sync.extra_paths, known, plan, count, report)
    # Record time from git (memlane.facts.graph.record): every statement again when HEAD moved (or left git).
    at = git_history.head(workspace)
    history_moved = (at[0] if at else "") != meta.get("git_head", "") or (report.full_reindex and at is not None)
    key = embedding_key(provider) if provider else None
    # A first index of many texts commits its rows before it embeds (first.py): searchable at once.
    rows_early = first is not None or (not force and "fingerprint" not in meta)
    run = _Pass(sync, report, fingerprint, meta, known, listing, at, history_moved, key, rows_early)
    _embed(run, on_plan)
    if run.showing is not None:
        with store.write():  # the last vectors shown, the marker gone
            store.set_meta(cleared())
    elif listing.changed or listing.removed or listing.touched or report.full_reindex or history_moved:
        commit_rows(run, cleared() if first is not None else {})
    return report


def _why_full(
    report: SyncReport, force: bool, meta: dict[str, str], fingerprint: dict[str, object], first: FirstIndex | None
) -> None:
    """Whether the pass rebuilds the whole index, and why (in ``report``)."""
    if force:
        report.full_reindex, report.reason = True, "forced"
    elif "fingerprint" not in meta:
        report.full_reindex, report.reason = True, "new index"
    elif meta["fingerprint"] != fingerprint_json(fingerprint):
        report.full_reindex, report.reason = True, _changed_keys(meta["fingerprint"], fingerprint)
    elif first is not None:
        report.full_reindex, report.reason = True, "the first index was interrupted"


def _embed(run: _Pass, on_plan: PlanHook | None) -> None:
    """Collect the batch jobs an earlier sync started, then embed what the changed files are missing."""
    sync, report = run.sync, run.report
    store, provider, key = sync.store, sync.provider, run.key
    if provider is None or key is None:
        return
    pending: set[str] = set()
    # Jobs an earlier (maybe killed) sync started: collect them before embedding anything again.
    if isinstance(provider, BatchProvider) and sync.batch is not None:
        pending = collect_jobs(store, provider, key, sync.batch, report, wait=sync.batch.settings.wait)
    if not run.listing.changed:
        return
    try:
        embed_missing(
            store,
            provider,
            key,
            run.listing.changed,
            pending,
            report,
            sync.progress,
            sync.batch,
            sync.price,
            on_plan,
            run.rows_first,
        )
    except BaseException:
        if run.showing is not None:  # the next sync goes on from what the cache holds
            with contextlib.suppress(Exception), store.write():
                store.set_meta(run.showing.marker.stopped().to_meta())
        raise


def commit_rows(run: _Pass, extra_meta: dict[str, str]) -> None:
    """Write the pass's rows, facts and meta (with ``extra_meta``) in one transaction."""
    store = run.sync.store
    with store.write():
        if run.report.full_reindex:
            store.reset()
        facts_changed, subjects = _write_changed(run)
        subjects = _write_touched_and_removed(run, subjects)
        if subjects is None or subjects:
            settle_index(store.facts, subjects, run.sync.predicates)
        _record_history(run)
        _write_meta(run, extra_meta)
    if facts_changed:
        _hint_entities(run)


def _write_changed(run: _Pass) -> tuple[bool, set[str] | None]:
    """Each changed file's rows, facts and state, unless a newer sync indexed it meanwhile: whether any facts or
    entity names were written, and whose relations to settle again (None: everyone's)."""
    sync, report = run.sync, run.report
    store = sync.store
    facts_changed = False
    subjects: set[str] | None = None if report.full_reindex else set()  # whose relations to settle again
    for item, prepared in run.listing.changed.each():
        path, derived = item.info.path, prepared.derived
        if not report.full_reindex and _superseded(store, sync.workspace, path, run.known.get(path)):
            report.notes.append(f"{path}: a newer sync indexed it meanwhile; kept its rows")
            continue
        report.chunks_written += len(prepared.rows)
        if subjects is not None:
            if derived.names or is_entity_page(path):
                subjects = None  # an entity's names changed: every subject may resolve otherwise
            else:
                subjects |= store.facts.relations.through_write().subjects_of(path)
                subjects |= {r.subject for f in derived.facts for r in f.relations}
        store.replace_chunks(path, prepared.rows, sync.provider.model if sync.provider else "")
        store.facts.replace_file(path, derived.facts, derived.problems, derived.names, derived.relations)
        store.set_file_state(path, item.state)
        if run.key is not None:
            store.touch_vectors(run.key, list(prepared.texts))
        facts_changed = facts_changed or bool(derived.facts or derived.names)
        report.facts_written += len(derived.facts)
        report.fact_problems += len(derived.problems)
        report.notes.extend(f"{path}:{line}: {message}" for line, message in derived.problems)
    return facts_changed, subjects


def _write_touched_and_removed(run: _Pass, subjects: set[str] | None) -> set[str] | None:
    """The touched files' new states and the removed files gone (unless a newer sync indexed them meanwhile);
    ``subjects`` with the removed files' own added."""
    store, workspace = run.sync.store, run.sync.workspace
    for path, state in run.listing.touched:
        if not _superseded(store, workspace, path, run.known.get(path)):
            store.set_file_state(path, state)
    for path in run.listing.removed:
        if not _superseded(store, workspace, path, run.known.get(path)):
            if subjects is not None:
                subjects = (
                    None if is_entity_page(path) else subjects | store.facts.relations.through_write().subjects_of(path)
                )
            store.delete_file(path)
    return subjects


def _record_history(run: _Pass) -> None:
    """When the workspace is under git, or just left it: the record time of the statements from its history."""
    store, at = run.sync.store, run.at
    if at is not None or run.history_moved:
        history = git_history.read(run.sync.workspace, at) if at else git_history.History({})
        if history is not None and history.note:
            run.report.notes.append(history.note)
        if history is not None:
            paths = None if run.history_moved else [item.info.path for item in run.listing.changed.files]
            record_index(store.facts, history, paths)
        store.set_meta({"git_head": at[0] if at else ""})


def _write_meta(run: _Pass, extra_meta: dict[str, str]) -> None:
    """The index's fingerprint and meta, and the cache pruned when enough new vectors arrived."""
    sync, report, fingerprint = run.sync, run.report, run.fingerprint
    store = sync.store
    store.set_meta(
        {
            "fingerprint": fingerprint_json(fingerprint),
            "provider": str(fingerprint["provider"]),
            "model": str(fingerprint["model"]),
            "provider_key": str(fingerprint["providerKey"]),
            "dims": str(fingerprint["dims"]),
            "indexed_at": str(int(time.time())),
            **extra_meta,
        }
    )
    # Pruning scans the whole cache: run it only once enough new vectors arrived to matter.
    added = int(run.meta.get("cache_added_since_prune", "0")) + report.embedded
    limit = sync.cache_max_entries if sync.cache_enabled else 0
    if report.full_reindex or run.listing.removed or limit == 0 or added >= max(PRUNE_EVERY, limit // 100):
        store.prune_cache(run.key, limit)
        added = 0
    store.set_meta({"cache_added_since_prune": str(added)})


def _hint_entities(run: _Pass) -> None:
    """Mentions no entity resolves that one nearly names, as notes (of the changed files, unless a full reindex)."""
    store, report = run.sync.store, run.report
    only = None if report.full_reindex else {item.info.path for item in run.listing.changed.files}
    names = [(n.norm, n.slug, n.path, n.how) for n in store.facts.entity_names()]
    report.notes.extend(entity_hints(store.facts.unresolved_mentions(), names, only))


def _superseded(store: IndexStore, workspace: Path, path: str, listed: FileState | None) -> bool:
    """Whether another sync committed ``path`` after this one listed it, recording exactly what is on disk
    now: then this sync's rows are the older ones and must not overwrite that. Call inside ``write()``."""
    now = store.indexed_state(path)
    if now is None or now == listed:
        return False
    try:
        st = os.stat(workspace / path)
    except OSError:
        return False
    return (st.st_mtime_ns, st.st_size) == (now.mtime, now.size)


def _changed_keys(old_json: str, new: dict[str, object]) -> str:
    import json

    try:
        old = json.loads(old_json)
    except ValueError:
        return "fingerprint unreadable"
    changed = sorted(k for k in new if old.get(k) != new[k])
    return "changed: " + ", ".join(changed) if changed else "fingerprint changed"
