"""The plan of a sync pass: the memory files it indexes again (read, cut into chunk rows, their Retain facts
derived), those it only touches or removes, and what of theirs has no vector yet, with its tokens and price (the
``EmbedPlan`` a paid run shows first, and the progress total).

The changed files are walked once per step of the pass: plan, embed (sync_embed.py), write (sync_pass.py). While
their chunks fit ``STREAM_CHUNKS`` each file is read and chunked once and kept; a bigger pass reads them again in each
step, one group at a time, so its memory is bounded (docs/DESIGN.md §22).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..config import ExtraPath, Price
from ..embeddings import EmbeddingKey, EmbeddingProvider
from ..embeddings.remote import BatchProvider
from ..facts.derive import FileFacts, derive_file
from ..store import ChunkRow, FileState, IndexStore
from ..text.hashing import text_hash
from ..text.markdown import split_lines
from ..workspace import FileInfo, list_memory_files
from .batching import BatchRun
from .chunking import chunk_markdown
from .sync import ChunkPlan, EmbedPlan, SyncReport, chunk_rows, texts_to_embed

COUNT_SLICE = 1000  # texts per token count of what is about to be embedded
COUNT_AHEAD = 4  # files whose lines are counted on a thread ahead of the one being chunked
STREAM_CHUNKS = 50_000  # chunks of changed files held at once; a bigger sync reads its files again per step


def _read(info: FileInfo) -> str:
    return info.abs_path.read_bytes().decode("utf-8", errors="replace")


@dataclass
class Prepared:
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
class Changed:
    info: FileInfo
    state: FileState  # as listed: every step must find this content again, or leaves the file to the next pass
    prepared: Prepared | None = None  # kept while the whole pass fits STREAM_CHUNKS
    missing: bool = True  # some text of the file had no vector when the pass planned
    gone: bool = False  # changed or vanished since it was listed


class ChangedFiles:
    """The files one pass (re)indexes, walked once per step: plan, embed, write.

    While their chunks fit ``STREAM_CHUNKS`` each file is read and chunked once and kept. A bigger pass (a
    first index of a million chunks) keeps none: every step reads and chunks the files again, one group at a
    time, so the rows held at once are one group's, not the whole index's (2.2 GB at 1M chunks otherwise).
    A file whose content no longer matches what was listed is left out of every later step and noted; the
    sync's catch-up pass indexes it as it is then.
    """

    def __init__(self, plan: ChunkPlan, count: Callable[[Sequence[str]], list[int]], report: SyncReport) -> None:
        self.plan, self.count, self.report = plan, count, report
        self.files: list[Changed] = []
        self.keep = True
        self.kept_chunks = 0

    def __bool__(self) -> bool:
        return bool(self.files)

    def add(self, info: FileInfo, state: FileState, text: str, line_tokens: Sequence[int] | None = None) -> None:
        """A changed file, with the text it was listed with (and its lines' token counts, if counted ahead)."""
        changed = Changed(info, state)
        self.files.append(changed)
        if self.keep:
            self._prepare(changed, text, line_tokens)

    def each(self, only_missing: bool = False) -> Iterator[tuple[Changed, Prepared]]:
        for changed in self.files:
            if changed.gone or (only_missing and not changed.missing):
                continue
            prepared = changed.prepared or self._read(changed)
            if prepared is not None:
                yield changed, prepared

    def groups(self, only_missing: bool = False) -> Iterator[list[tuple[Changed, Prepared]]]:
        """:meth:`each` in groups of about ``STREAM_CHUNKS`` chunks."""
        group: list[tuple[Changed, Prepared]] = []
        size = 0
        for item in self.each(only_missing):
            group.append(item)
            size += len(item[1].rows)
            if size >= STREAM_CHUNKS:
                yield group
                group, size = [], 0
        if group:
            yield group

    def _read(self, changed: Changed) -> Prepared | None:
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

    def _prepare(self, changed: Changed, text: str, line_tokens: Sequence[int] | None = None) -> Prepared:
        chunks = chunk_markdown(text, self.plan.tokens, self.plan.overlap, self.count, line_tokens)
        rows = chunk_rows(changed.info.path, "memory", split_lines(text), chunks, self.plan)
        counted = {c.hash: c.tokens for c in chunks if c.tokens is not None}
        prepared = Prepared(rows, derive_file(changed.info.path, text), counted)
        if self.keep:
            self.kept_chunks += len(rows)
            if self.kept_chunks > STREAM_CHUNKS:  # too big to hold: from now on every step reads again
                self.keep = False
                for f in self.files:
                    f.prepared = None
            else:
                changed.prepared = prepared
        return prepared


Group = list[tuple[Changed, Prepared]]  # changed files walked together, about STREAM_CHUNKS chunks
# A changed file as listed, ahead of its chunking: (file, new, state, text, its lines' token counts on the way)
_Ahead = tuple[FileInfo, bool, FileState, str, Future[list[int]] | None]


@dataclass
class Listing:
    """What a pass found, against what the index holds: the files to index again, those whose content is the same
    but whose mtime moved, and those gone."""

    changed: ChangedFiles
    touched: list[tuple[str, FileState]]
    removed: list[str]


def list_changes(
    workspace: Path,
    extra_paths: Sequence[str | ExtraPath],
    known: Mapping[str, FileState],
    plan: ChunkPlan,
    count: Callable[[Sequence[str]], list[int]],
    report: SyncReport,
) -> Listing:
    """The memory files against ``known`` (path -> state the index holds): each changed one read and, while the
    pass keeps what it chunks, chunked with its lines counted on a thread ahead."""
    files = list_memory_files(workspace, extra_paths)
    listed = {f.path for f in files}
    changed = ChangedFiles(plan, count, report)
    touched: list[tuple[str, FileState]] = []  # content unchanged, mtime moved
    # The next files' lines are counted on a thread while this one is chunked: the tokenizer releases the GIL,
    # and counting was a third of a first index's time before its rows could be committed (docs/DESIGN.md §39).
    # Only while the pass keeps what it chunks: past STREAM_CHUNKS each step reads and counts its files again.
    ahead: collections.deque[_Ahead] = collections.deque()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlane-count") as counting:
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
                _add_oldest(ahead, changed, report)
        while ahead:
            _add_oldest(ahead, changed, report)
    removed = [p for p in known if p not in listed]
    report.files_removed = len(removed)
    return Listing(changed, touched, removed)


def _add_oldest(ahead: collections.deque[_Ahead], changed: ChangedFiles, report: SyncReport) -> None:
    info, new, state, text, counted = ahead.popleft()
    changed.add(info, state, text, counted.result() if counted is not None and changed.keep else None)
    if new:
        report.files_added += 1
    else:
        report.files_changed += 1


def missing_in(
    store: IndexStore, key: EmbeddingKey, group: Group, pending: set[str]
) -> tuple[dict[str, str], list[str], set[str]]:
    """A group's texts (hash -> text), those with no vector and none on the way, and those cached."""
    texts: dict[str, str] = {}
    for _, prepared in group:
        texts.update(prepared.texts)
    cached = store.cached_hashes(key, list(texts))
    return texts, [h for h in texts if h not in cached and h not in pending], cached


def plan_embedding(
    store: IndexStore,
    provider: EmbeddingProvider,
    key: EmbeddingKey,
    changed: ChangedFiles,
    pending: set[str],
    report: SyncReport,
    batch: BatchRun | None,
    price: Price | None,
) -> EmbedPlan | None:
    """What of ``changed`` has no vector and none on the way (each file marked ``missing`` or not), its tokens
    and price, with the cached chunks counted in ``report``; None when nothing is missing."""
    # A text missing in two groups is counted once: by the first 64 bits of its hash, in arrays, not a set.
    prefixes: list[npt.NDArray[np.uint64]] = []
    token_counts: list[npt.NDArray[np.int64]] = []
    for group in changed.groups():
        texts, missing, cached = missing_in(store, key, group, pending)
        report.cached += sum(1 for _, p in group for r in p.rows if r.hash in cached)
        lacking = set(missing)
        for item, prepared in group:
            item.missing = any(h in lacking for h in prepared.texts)
        prefixes.append(np.array([int(h[:16], 16) for h in missing], dtype=np.uint64))
        token_counts.append(np.array(_token_counts(provider, group, texts, missing), dtype=np.int64))
    if not prefixes:
        return None
    _, first = np.unique(np.concatenate(prefixes), return_index=True)
    todo = len(first)
    if not todo:
        return None
    report.tokens = int(np.concatenate(token_counts)[first].sum())
    use_batch = (
        batch is not None and batch.active and isinstance(provider, BatchProvider) and todo >= batch.settings.min_texts
    )
    if price is not None:
        rate = price.batch_input if use_batch and price.batch_input is not None else price.input
        report.estimated_usd = report.tokens / 1e6 * rate
    return EmbedPlan(provider.provider_id, provider.model, todo, report.tokens, use_batch, report.estimated_usd)


def _token_counts(provider: EmbeddingProvider, group: Group, texts: dict[str, str], missing: list[str]) -> list[int]:
    """The tokens of each ``missing`` text of ``group``."""
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
    return [known[h] for h in missing]
