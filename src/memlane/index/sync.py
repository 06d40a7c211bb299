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
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import functools
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..config import ChunkingSettings, ExtraPath, Price
from ..embeddings import EmbeddingKey, EmbeddingProvider, embedding_key
from ..embeddings.remote import BatchProvider
from ..errors import ProviderError
from ..facts.derive import FACTS_VERSION, FileFacts, derive_file
from ..facts.entities import entity_hints, is_entity_page
from ..facts.graph import GRAPH_VERSION, Predicates, settle_index
from ..facts.graph import history as git_history
from ..facts.graph.record import record_index
from ..store import ChunkRow, FileState, IndexStore, fingerprint_json
from ..text.hashing import text_hash
from ..text.keywords import cjk_terms
from ..text.markdown import split_lines
from ..workspace import FileInfo, differs_from, list_memory_files
from .batching import BatchRun, collect_jobs, run_batches
from .chunking import Chunk, chunk_markdown, whitespace_token_counter
from .first import EARLY_TEXTS, FirstIndex, Showing, cleared
from .keys import KEYS_VERSION, chunk_keys, lead_line, said_text

# Bump when chunking changes in a way that must rebuild existing indexes.
CHUNKER_VERSION = 2  # 2: rows carry their text less an assistant's words (keys.said_text)
CATCH_UP_PASSES = 3  # extra incremental passes when files changed while a sync ran
EMBED_BATCH = 64  # texts per provider call and per cache commit
COUNT_SLICE = 1000  # texts per token count of what is about to be embedded
COUNT_AHEAD = 4  # files whose lines are counted on a thread ahead of the one being chunked
PRUNE_EVERY = 500  # new vectors between two cache prunings (or 1% of cache.maxEntries)
TRIM_AFTER_CHUNKS = 5_000  # a sync that wrote this many chunks hands its freed heap back (release_freed_memory)
STREAM_CHUNKS = 50_000  # chunks of changed files held at once; a bigger sync reads its files again per step

Progress = Callable[[int, int], None]  # (texts embedded so far, texts to embed)


@dataclass(frozen=True)
class EmbedPlan:
    """What a sync is about to embed, told before it starts (the CLI prints it before a paid run)."""

    provider: str
    model: str
    texts: int
    tokens: int
    batch: bool  # whether the texts go through a batch API
    usd: float | None  # estimated price; None when free (local) or not in the price table


PlanHook = Callable[[EmbedPlan], None]


@dataclass
class SyncReport:
    files_added: int = 0
    files_changed: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    chunks_written: int = 0
    chunks_removed: int = 0
    embedded: int = 0  # texts the provider embedded (ordinary requests and batch jobs)
    cached: int = 0  # chunk texts whose vector came from the cache
    batch_jobs: int = 0  # batch jobs this sync submitted
    batch_embedded: int = 0  # texts whose vector came from a batch job
    batch_pending: int = 0  # texts in batch jobs still running (collected by a later sync)
    tokens: int = 0  # estimated tokens of the texts to embed
    estimated_usd: float | None = None  # their estimated price (None: free or unknown)
    sessions_indexed: int = 0  # transcripts that got new chunks
    facts_written: int = 0  # Retain facts derived from changed files
    fact_problems: int = 0  # Retain bullets in changed files that could not be read
    full_reindex: bool = False
    reason: str = ""
    seconds: float = 0.0
    left_be: bool = False  # another process is embedding the first index: this sync did nothing (first.py)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def absorb(self, later: SyncReport) -> None:
        """Add a later pass of the same sync to this report."""
        for name, value in asdict(later).items():
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, name, getattr(self, name) + value)
        if later.estimated_usd is not None:
            self.estimated_usd = (self.estimated_usd or 0.0) + later.estimated_usd
        self.full_reindex = self.full_reindex or later.full_reindex
        self.notes.extend(later.notes)


@dataclass(frozen=True)
class ChunkPlan:
    """How chunk size follows the model: the cap and overlap actually used."""

    tokens: int
    overlap: int
    keys: bool = False  # chunks carry keys (keys.py): only with a provider to embed them
    assistant_keys: bool = False  # an assistant's items are keyed too


def effective_chunking(settings: ChunkingSettings, provider: EmbeddingProvider | None) -> ChunkPlan:
    """Cap chunks at what the model embeds (its limit less [CLS]/[SEP]); overlap keeps its ratio; keys with
    the local model unless set."""
    if provider is None:
        return ChunkPlan(settings.tokens, settings.overlap)
    keys = provider.provider_id == "local" if settings.keys == "auto" else settings.keys
    limit = max(provider.max_tokens - 2, 8)
    assistant = keys and settings.assistant_keys
    if settings.tokens <= limit:
        return ChunkPlan(settings.tokens, settings.overlap, keys, assistant)
    return ChunkPlan(limit, round(settings.overlap * limit / settings.tokens), keys, assistant)


def index_fingerprint(
    provider: EmbeddingProvider | None, plan: ChunkPlan, workspace: Path, predicates: Predicates | None = None
) -> dict[str, object]:
    return {
        "provider": provider.provider_id if provider else "none",
        "model": provider.model if provider else "",
        "providerKey": provider.fingerprint() if provider else "",
        "dims": provider.dims if provider else 0,
        "chunkTokens": plan.tokens,
        "chunkOverlap": plan.overlap,
        "chunker": CHUNKER_VERSION,
        # an index keyed before assistant keys could be left out had them all: it keeps its number
        "keys": (KEYS_VERSION if plan.assistant_keys else f"{KEYS_VERSION}-user") if plan.keys else 0,
        "facts": FACTS_VERSION,
        # which predicates hold one value at a time decides every relation's validity
        "relations": f"{GRAPH_VERSION}:{text_hash((predicates or Predicates()).fingerprint())[:12]}",
        "workspace": str(workspace.resolve()),
    }


def _read(info: FileInfo) -> str:
    return info.abs_path.read_bytes().decode("utf-8", errors="replace")


def chunk_rows(
    path: str, source: str, lines: list[str], chunks: list[Chunk], plan: ChunkPlan, base: int = 0
) -> list[ChunkRow]:
    """The rows of a file's chunks (numbered ``base`` lines further down), with the keys ``plan`` asks for;
    ``lines`` are the text the chunks were cut from."""
    rows = []
    for c in chunks:
        s, e = c.start_line + base, c.end_line + base
        cid = text_hash(f"{source}:{path}:{s}:{e}:{c.hash}")
        keys: tuple[tuple[str, str, bool], ...] = ()
        lead = lead_line(lines, c.start_line - 1)
        if plan.keys:
            found = chunk_keys(c.text, lead)
            keys = tuple(
                (text_hash(k.text), k.text, k.assistant) for k in found if plan.assistant_keys or not k.assistant
            )
        said = said_text(c.text, lead)
        rows.append(ChunkRow(cid, path, source, s, e, c.hash, c.text, cjk_terms(c.text), keys, said, cjk_terms(said)))
    return rows


def texts_to_embed(rows: Iterable[ChunkRow]) -> dict[str, str]:
    """hash -> text of every chunk and key of ``rows``."""
    texts: dict[str, str] = {}
    for r in rows:
        texts[r.hash] = r.text
        texts.update((h, t) for h, t, _ in r.keys)
    return texts


def files_differ(
    indexed_fingerprint: str | None,
    states: Mapping[str, tuple[int, int]],
    workspace: Path,
    fingerprint: dict[str, object],
    extra_paths: Sequence[str | ExtraPath] = (),
) -> bool:
    """True when the index (its fingerprint and file states, path -> (mtime_ns, size)) does not match the
    settings and the files."""
    if indexed_fingerprint != fingerprint_json(fingerprint):
        return True
    return differs_from(workspace, states, extra_paths)


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
    run = functools.partial(
        _sync_pass,
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
        extra_paths=extra_paths,
    )
    report = run(force, on_plan)
    for _ in range(CATCH_UP_PASSES if not report.left_be else 0):
        indexed = {p: (st.mtime, st.size) for p, st in store.file_states().items() if st.source == "memory"}
        if not differs_from(workspace, indexed, extra_paths):
            break
        report.absorb(run(False, None))  # the plan was told once
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
class _Prepared:
    """A changed file read, cut into chunk rows (with their keys) and its Retain facts derived."""

    rows: list[ChunkRow]
    derived: FileFacts
    counted: dict[str, int] = field(default_factory=dict)  # hash -> tokens of the chunks the chunker counted

    @functools.cached_property
    def texts(self) -> dict[str, str]:
        """hash -> text of everything of this file that is embedded: chunks, keys, facts."""
        texts = texts_to_embed(self.rows)
        texts.update((f.hash, f.key) for f in self.derived.facts)
        return texts


@dataclass
class _Changed:
    info: FileInfo
    state: FileState  # as listed: every step must find this content again, or leaves the file to the next pass
    prepared: _Prepared | None = None  # kept while the whole pass fits STREAM_CHUNKS
    missing: bool = True  # some text of the file had no vector when the pass planned
    gone: bool = False  # changed or vanished since it was listed


class _ChangedFiles:
    """The files one pass (re)indexes, walked once per step: plan, embed, write.

    While their chunks fit ``STREAM_CHUNKS`` each file is read and chunked once and kept. A bigger pass (a
    first index of a million chunks) keeps none: every step reads and chunks the files again, one group at a
    time, so the rows held at once are one group's, not the whole index's (2.2 GB at 1M chunks otherwise).
    A file whose content no longer matches what was listed is left out of every later step and noted; the
    sync's catch-up pass indexes it as it is then.
    """

    def __init__(self, plan: ChunkPlan, count: Callable[[Sequence[str]], list[int]], report: SyncReport) -> None:
        self.plan, self.count, self.report = plan, count, report
        self.files: list[_Changed] = []
        self.keep = True
        self.kept_chunks = 0

    def __bool__(self) -> bool:
        return bool(self.files)

    def add(self, info: FileInfo, state: FileState, text: str, line_tokens: Sequence[int] | None = None) -> None:
        """A changed file, with the text it was listed with (and its lines' token counts, if counted ahead)."""
        changed = _Changed(info, state)
        self.files.append(changed)
        if self.keep:
            self._prepare(changed, text, line_tokens)

    def each(self, only_missing: bool = False) -> Iterator[tuple[_Changed, _Prepared]]:
        for changed in self.files:
            if changed.gone or (only_missing and not changed.missing):
                continue
            prepared = changed.prepared or self._read(changed)
            if prepared is not None:
                yield changed, prepared

    def groups(self, only_missing: bool = False) -> Iterator[list[tuple[_Changed, _Prepared]]]:
        """:meth:`each` in groups of about ``STREAM_CHUNKS`` chunks."""
        group: list[tuple[_Changed, _Prepared]] = []
        size = 0
        for item in self.each(only_missing):
            group.append(item)
            size += len(item[1].rows)
            if size >= STREAM_CHUNKS:
                yield group
                group, size = [], 0
        if group:
            yield group

    def _read(self, changed: _Changed) -> _Prepared | None:
        try:
            text = _read(changed.info)
        except OSError as exc:
            why = exc.strerror or "unreadable"
        else:
            if text_hash(text) == changed.state.hash:
                return self._prepare(changed, text)
            why = "changed while the sync ran"
        changed.gone = True
        self.report.notes.append(f"{changed.info.path}: {why}; left to the next pass")
        return None

    def _prepare(self, changed: _Changed, text: str, line_tokens: Sequence[int] | None = None) -> _Prepared:
        chunks = chunk_markdown(text, self.plan.tokens, self.plan.overlap, self.count, line_tokens)
        rows = chunk_rows(changed.info.path, "memory", split_lines(text), chunks, self.plan)
        counted = {c.hash: c.tokens for c in chunks if c.tokens is not None}
        prepared = _Prepared(rows, derive_file(changed.info.path, text), counted)
        if self.keep:
            self.kept_chunks += len(rows)
            if self.kept_chunks > STREAM_CHUNKS:  # too big to hold: from now on every step reads again
                self.keep = False
                for f in self.files:
                    f.prepared = None
            else:
                changed.prepared = prepared
        return prepared


def _sync_pass(
    store: IndexStore,
    provider: EmbeddingProvider | None,
    workspace: Path,
    chunking: ChunkingSettings,
    cache_enabled: bool,
    cache_max_entries: int,
    progress: Progress | None,
    batch: BatchRun | None,
    price: Price | None,
    predicates: Predicates,
    force: bool,
    on_plan: PlanHook | None,
    extra_paths: Sequence[str | ExtraPath] = (),
) -> SyncReport:
    """One pass of :func:`sync_workspace`."""
    report = SyncReport()
    plan = effective_chunking(chunking, provider)
    fingerprint = index_fingerprint(provider, plan, workspace, predicates)
    fp_json = fingerprint_json(fingerprint)
    meta = store.meta()
    first = FirstIndex.read(meta)
    if first is not None and first.running and not force:
        report.notes.append(
            f"another sync (process {first.pid}) is embedding the first index ({first.done:,} of {first.todo:,} "
            "texts): this one leaves it be"
        )
        report.left_be = True
        return report
    if force:
        report.full_reindex, report.reason = True, "forced"
    elif "fingerprint" not in meta:
        report.full_reindex, report.reason = True, "new index"
    elif meta["fingerprint"] != fp_json:
        report.full_reindex, report.reason = True, _changed_keys(meta["fingerprint"], fingerprint)
    elif first is not None:
        report.full_reindex, report.reason = True, "the first index was interrupted"

    known = {} if report.full_reindex else {p: s for p, s in store.file_states().items() if s.source == "memory"}
    files = list_memory_files(workspace, extra_paths)
    listed = {f.path for f in files}
    changed = _ChangedFiles(plan, provider.count_tokens if provider else whitespace_token_counter, report)
    touched: list[tuple[str, FileState]] = []  # content unchanged, mtime moved
    # The next files' lines are counted on a thread while this one is chunked: the tokenizer releases the GIL,
    # and counting was a third of a first index's time before its rows could be committed (docs/DESIGN.md §39).
    # Only while the pass keeps what it chunks: past STREAM_CHUNKS each step reads and counts its files again.
    ahead: collections.deque[tuple[FileInfo, bool, FileState, str, Future[list[int]] | None]] = collections.deque()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlane-count") as counting:

        def add_oldest() -> None:
            info, new, state, text, counted = ahead.popleft()
            changed.add(info, state, text, counted.result() if counted is not None and changed.keep else None)
            if new:
                report.files_added += 1
            else:
                report.files_changed += 1

        for info in files:
            old = known.get(info.path)
            if old is not None and old.mtime == info.mtime_ns and old.size == info.size:
                report.files_unchanged += 1
                continue
            try:
                text = _read(info)
            except OSError as exc:  # vanished or unreadable since listing: keep what the index has
                report.notes.append(f"skipped {info.path}: {exc.strerror}")
                continue
            state = FileState(text_hash(text), info.mtime_ns, info.size, "memory")
            if old is not None and old.hash == state.hash:
                touched.append((info.path, state))
                report.files_unchanged += 1
                continue
            counted = counting.submit(changed.count, split_lines(text)) if changed.keep else None
            ahead.append((info, old is None, state, text, counted))
            if len(ahead) > COUNT_AHEAD:
                add_oldest()
        while ahead:
            add_oldest()
    removed = [p for p in known if p not in listed]
    report.files_removed = len(removed)
    # Record time from git (memlane.graph.record): every statement again when HEAD moved (or left git).
    at = git_history.head(workspace)
    history_moved = (at[0] if at else "") != meta.get("git_head", "") or (report.full_reindex and at is not None)

    key = embedding_key(provider) if provider else None

    def commit_rows(extra_meta: dict[str, str]) -> None:
        """Write the pass's rows, facts and meta (with ``extra_meta``) in one transaction."""
        facts_changed = False
        subjects: set[str] | None = None if report.full_reindex else set()  # whose relations to settle again
        with store.write():
            if report.full_reindex:
                store.reset()
            for item, prepared in changed.each():
                path, derived = item.info.path, prepared.derived
                if not report.full_reindex and _superseded(store, workspace, path, known.get(path)):
                    report.notes.append(f"{path}: a newer sync indexed it meanwhile; kept its rows")
                    continue
                report.chunks_written += len(prepared.rows)
                if subjects is not None:
                    if derived.names or is_entity_page(path):
                        subjects = None  # an entity's names changed: every subject may resolve otherwise
                    else:
                        subjects |= store.facts.relations.through_write().subjects_of(path)
                        subjects |= {r.subject for f in derived.facts for r in f.relations}
                store.replace_chunks(path, prepared.rows, provider.model if provider else "")
                store.facts.replace_file(path, derived.facts, derived.problems, derived.names, derived.relations)
                store.set_file_state(path, item.state)
                if key is not None:
                    store.touch_vectors(key, list(prepared.texts))
                facts_changed = facts_changed or bool(derived.facts or derived.names)
                report.facts_written += len(derived.facts)
                report.fact_problems += len(derived.problems)
                report.notes.extend(f"{path}:{line}: {message}" for line, message in derived.problems)
            for path, state in touched:
                if not _superseded(store, workspace, path, known.get(path)):
                    store.set_file_state(path, state)
            for path in removed:
                if not _superseded(store, workspace, path, known.get(path)):
                    if subjects is not None:
                        subjects = (
                            None
                            if is_entity_page(path)
                            else subjects | store.facts.relations.through_write().subjects_of(path)
                        )
                    store.delete_file(path)
            if subjects is None or subjects:
                settle_index(store.facts, subjects, predicates)
            if at is not None or history_moved:
                history = git_history.read(workspace, at) if at else git_history.History({})
                if history is not None and history.note:
                    report.notes.append(history.note)
                if history is not None:
                    paths = None if history_moved else [item.info.path for item in changed.files]
                    record_index(store.facts, history, paths)
                store.set_meta({"git_head": at[0] if at else ""})
            store.set_meta(
                {
                    "fingerprint": fp_json,
                    "provider": str(fingerprint["provider"]),
                    "model": str(fingerprint["model"]),
                    "provider_key": str(fingerprint["providerKey"]),
                    "dims": str(fingerprint["dims"]),
                    "indexed_at": str(int(time.time())),
                    **extra_meta,
                }
            )
            # Pruning scans the whole cache: run it only once enough new vectors arrived to matter.
            added = int(meta.get("cache_added_since_prune", "0")) + report.embedded
            limit = cache_max_entries if cache_enabled else 0
            if report.full_reindex or removed or limit == 0 or added >= max(PRUNE_EVERY, limit // 100):
                store.prune_cache(key, limit)
                added = 0
            store.set_meta({"cache_added_since_prune": str(added)})
        if facts_changed:
            only = None if report.full_reindex else {item.info.path for item in changed.files}
            names = [(n.norm, n.slug, n.path, n.how) for n in store.facts.entity_names()]
            report.notes.extend(entity_hints(store.facts.unresolved_mentions(), names, only))

    # A first index of many texts commits its rows before it embeds (first.py): searchable at once.
    first_index = first is not None or (not force and "fingerprint" not in meta)
    showing: Showing | None = None

    def rows_first(todo: int) -> Showing | None:
        nonlocal showing
        if first_index and todo >= EARLY_TEXTS:
            marker = FirstIndex.start(todo)
            commit_rows(marker.to_meta())
            showing = Showing(marker)
        return showing

    if provider is not None and key is not None:
        pending: set[str] = set()
        # Jobs an earlier (maybe killed) sync started: collect them before embedding anything again.
        if isinstance(provider, BatchProvider) and batch is not None:
            pending = collect_jobs(store, provider, key, batch, report, wait=batch.settings.wait)
        if changed:
            try:
                _embed_missing(
                    store, provider, key, changed, pending, report, progress, batch, price, on_plan, rows_first
                )
            except BaseException:
                if showing is not None:  # the next sync goes on from what the cache holds
                    with contextlib.suppress(Exception), store.write():
                        store.set_meta(showing.marker.stopped().to_meta())
                raise
    if showing is not None:
        with store.write():  # the last vectors shown, the marker gone
            store.set_meta(cleared())
    elif changed or removed or touched or report.full_reindex or history_moved:
        commit_rows(cleared() if first is not None else {})
    return report


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


def _missing_in(
    store: IndexStore, key: EmbeddingKey, group: list[tuple[_Changed, _Prepared]], pending: set[str]
) -> tuple[dict[str, str], list[str], set[str]]:
    """A group's texts (hash -> text), those with no vector and none on the way, and those cached."""
    texts: dict[str, str] = {}
    for _, prepared in group:
        texts.update(prepared.texts)
    cached = store.cached_hashes(key, list(texts))
    return texts, [h for h in texts if h not in cached and h not in pending], cached


def _embed_missing(
    store: IndexStore,
    provider: EmbeddingProvider,
    key: EmbeddingKey,
    changed: _ChangedFiles,
    pending: set[str],
    report: SyncReport,
    progress: Progress | None,
    batch: BatchRun | None,
    price: Price | None,
    on_plan: PlanHook | None,
    rows_first: Callable[[int], Showing | None] | None = None,
) -> None:
    """Plan (what is missing and its tokens, told to ``on_plan``), then embed it into the cache, group by
    group. ``rows_first``, told how many texts the plan holds, may commit the rows before any is embedded and
    answer how the vectors are then shown as they arrive: the chunks' own first, then their keys."""
    # A text missing in two groups is counted once: by the first 64 bits of its hash, in arrays, not a set.
    prefixes: list[npt.NDArray[np.uint64]] = []
    token_counts: list[npt.NDArray[np.int64]] = []
    for group in changed.groups():
        texts, missing, cached = _missing_in(store, key, group, pending)
        report.cached += sum(1 for _, p in group for r in p.rows if r.hash in cached)
        lacking = set(missing)
        for item, prepared in group:
            item.missing = any(h in lacking for h in prepared.texts)
        # The chunks' own counts come from the chunker (the same counter); the rest are counted here, in
        # slices: a tokenizer's batch holds every encoding at once (~350 MB more at 40k texts).
        known = {h: n for _, prepared in group for h, n in prepared.counted.items()}
        uncounted = [h for h in missing if h not in known]
        counted = [
            n
            for i in range(0, len(uncounted), COUNT_SLICE)
            for n in provider.count_tokens([texts[h] for h in uncounted[i : i + COUNT_SLICE]])
        ]
        known.update(zip(uncounted, counted, strict=True))
        counts = [known[h] for h in missing]
        prefixes.append(np.array([int(h[:16], 16) for h in missing], dtype=np.uint64))
        token_counts.append(np.array(counts, dtype=np.int64))
    if not prefixes:
        return
    _, first = np.unique(np.concatenate(prefixes), return_index=True)
    todo = len(first)
    if not todo:
        return
    report.tokens = int(np.concatenate(token_counts)[first].sum())
    use_batch = (
        batch is not None and batch.active and isinstance(provider, BatchProvider) and todo >= batch.settings.min_texts
    )
    if price is not None:
        rate = price.batch_input if use_batch and price.batch_input is not None else price.input
        report.estimated_usd = report.tokens / 1e6 * rate
    if on_plan:
        on_plan(EmbedPlan(provider.provider_id, provider.model, todo, report.tokens, use_batch, report.estimated_usd))
    showing = rows_first(todo) if rows_first is not None and not use_batch else None
    done = 0
    if progress:
        progress(0, todo)

    def step(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, todo)

    for chunks_only in (True, False) if showing is not None else (False,):
        for group in changed.groups(only_missing=True):
            texts, missing, _ = _missing_in(store, key, group, pending)
            if chunks_only:
                own = {r.hash for _, prepared in group for r in prepared.rows}
                missing = [h for h in missing if h in own]
            if use_batch and missing:
                assert batch is not None and isinstance(provider, BatchProvider)
                before = done
                left = run_batches(store, provider, key, {h: texts[h] for h in missing}, batch, report, step)
                todo -= len(missing) - (done - before) - len(left)  # submitted, not waited for: a later sync's
                missing = left
            embed_into_cache(store, provider, key, missing, texts, report, step, showing)


def embed_into_cache(
    store: IndexStore,
    provider: EmbeddingProvider,
    key: EmbeddingKey,
    hashes: list[str],
    texts_by_hash: dict[str, str],
    report: SyncReport,
    advance: Callable[[int], None] | None = None,
    showing: Showing | None = None,
) -> None:
    """Embed ``hashes``' texts with ordinary provider calls, each call's vectors committed to the cache
    (so a killed sync does not pay for them again). Readers' view of the index is unchanged by those commits,
    but for a first index being ``showing`` its vectors: every so often one of them moves the generation."""
    size = getattr(provider, "sync_batch", EMBED_BATCH)
    for i in range(0, len(hashes), size):
        part = hashes[i : i + size]
        vectors = provider.embed_batch([texts_by_hash[h] for h in part])
        _check_vectors(vectors, len(part), provider)
        show = showing is not None and (showing.due() or i + size >= len(hashes))
        with store.write(changes_index=show):
            store.put_vectors(key, dict(zip(part, vectors, strict=True)))
            if show and showing is not None:
                store.set_meta(showing.shown(report.embedded + len(part)))
        report.embedded += len(part)
        if advance:
            advance(len(part))


def _check_vectors(vectors: object, expected: int, provider: EmbeddingProvider) -> None:
    arr = np.asarray(vectors)
    if arr.ndim != 2 or arr.shape[0] != expected:
        raise ProviderError(
            f"{provider.provider_id} returned {arr.shape[0] if arr.ndim else 0} vectors for {expected} texts"
        )
    if arr.shape[1] != provider.dims:
        raise ProviderError(f"{provider.provider_id} returned {arr.shape[1]}-d vectors, expected {provider.dims}")
    if not np.isfinite(arr).all():
        raise ProviderError(f"{provider.provider_id} returned vectors with NaN or infinite values")


def _changed_keys(old_json: str, new: dict[str, object]) -> str:
    import json

    try:
        old = json.loads(old_json)
    except ValueError:
        return "fingerprint unreadable"
    changed = sorted(k for k in new if old.get(k) != new[k])
    return "changed: " + ", ".join(changed) if changed else "fingerprint changed"
