"""The embedding of what a sync pass is missing (sync_plan.py tells what): in batch jobs when the plan says so, else
with ordinary provider calls, each call's vectors committed to the cache so a killed sync does not pay for them
again. A first index that commits its rows first (first.py) embeds its chunks' own texts before their keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..config import Price
from ..embeddings import EmbeddingKey, EmbeddingProvider
from ..embeddings.remote import BatchProvider
from ..errors import ProviderError
from ..store import IndexStore
from .batching import BatchRun, run_batches
from .first import Showing
from .sync import PlanHook, Progress, SyncReport
from .sync_plan import ChangedFiles, Group, missing_in, plan_embedding

EMBED_BATCH = 64  # texts per provider call and per cache commit


def embed_missing(
    store: IndexStore,
    provider: EmbeddingProvider,
    key: EmbeddingKey,
    changed: ChangedFiles,
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
    plan = plan_embedding(store, provider, key, changed, pending, report, batch, price)
    if plan is None:
        return
    if on_plan:
        on_plan(plan)
    showing = rows_first(plan.texts) if rows_first is not None and not plan.batch else None
    run = _Embedding(
        store, provider, key, pending, report, batch if plan.batch else None, showing, progress, plan.texts
    )
    if progress:
        progress(0, plan.texts)
    for chunks_only in (True, False) if showing is not None else (False,):
        for group in changed.groups(only_missing=True):
            run.embed(group, chunks_only)


@dataclass
class _Embedding:
    """A pass's embedding of what it is missing, group by group, and its progress: ``done`` of ``todo`` texts
    (texts submitted to batch jobs that a later sync collects leave ``todo``)."""

    store: IndexStore
    provider: EmbeddingProvider
    key: EmbeddingKey
    pending: set[str]  # hashes in batch jobs an earlier sync started
    report: SyncReport
    batch: BatchRun | None  # set when the plan sends the texts to batch jobs
    showing: Showing | None  # a first index's vectors shown as they arrive
    progress: Progress | None
    todo: int
    done: int = 0

    def step(self, n: int) -> None:
        self.done += n
        if self.progress:
            self.progress(self.done, self.todo)

    def embed(self, group: Group, chunks_only: bool) -> None:
        """Embed what ``group`` is missing (``chunks_only``: the chunks' own texts, not their keys)."""
        texts, missing, _ = missing_in(self.store, self.key, group, self.pending)
        if chunks_only:
            own = {r.hash for _, prepared in group for r in prepared.rows}
            missing = [h for h in missing if h in own]
        if self.batch is not None and missing:
            assert isinstance(self.provider, BatchProvider)
            before = self.done
            left = run_batches(
                self.store, self.provider, self.key, {h: texts[h] for h in missing}, self.batch, self.report, self.step
            )
            self.todo -= len(missing) - (self.done - before) - len(left)  # submitted, not waited for: a later sync's
            missing = left
        embed_into_cache(self.store, self.provider, self.key, missing, texts, self.report, self.step, self.showing)


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
