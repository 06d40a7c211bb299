"""The live index's vectors in memory: one float32 matrix per table (chunks, facts), refreshed by delta.

A write bumps the index ``generation``; the next search reads only the vectors of rows it has not
seen (``seq`` only grows within an ``epoch``; a full reset bumps the epoch and forces a full load).
A full load of 100k vectors takes over a second; the delta after a one-file change, milliseconds.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt

from ..store import EmbeddingKey, IndexStore, ServerVectorSearch

if TYPE_CHECKING:
    from .ann import AnnVectors

# (chunk seqs, query vector) -> (owner chunk seq, said by an assistant, embedded yet, cosine to the query),
# a row per key of those chunks
KeyScorer = Callable[
    [Sequence[int], npt.NDArray[np.float32]],
    tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]],
]


def key_scorer(store: IndexStore, key: EmbeddingKey) -> KeyScorer:
    """How a search scores the keys of its candidates (keys.py), by the store: SQLite reads the keys'
    vectors and multiplies them here; PostgreSQL computes the cosines where the vectors are."""
    return functools.partial(store.key_similarities, key)


def stored_in_order(
    store: IndexStore | ServerVectorSearch, key: EmbeddingKey, seqs: Sequence[int], dims: int, table: str = "chunks"
) -> npt.NDArray[np.float32]:
    """A row per one of ``seqs``, read from the store's cache (each distinct seq once); zeros where a seq
    has no vector."""
    found, matrix = store.vectors_for(key, np.asarray(sorted(set(seqs)), np.int64), dims, table)
    row = {int(s): i for i, s in enumerate(found)}
    out = np.zeros((len(seqs), dims), dtype=np.float32)
    for i, s in enumerate(seqs):
        if s in row:
            out[i] = matrix[row[s]]
    return out


@dataclass(frozen=True)
class VectorScores:
    """One query's vector leg: the nearest rows best first, and the cosine of any row asked for."""

    order: list[int]
    cosines: Callable[[list[int]], dict[int, float]]


@dataclass(frozen=True)
class ServerVectors:
    """Vectors searched where they are stored (PostgreSQL's HNSW index): nothing is loaded into RAM."""

    store: ServerVectorSearch
    key: EmbeddingKey
    dims: int
    rows: int
    table: str = "chunks"
    keys: KeyScorer | None = None

    def __len__(self) -> int:
        return self.rows

    def scores(self, query_vec: npt.NDArray[np.float32], k: int) -> VectorScores:
        hits = dict(self.store.nearest(self.key, query_vec, k, self.table))

        def cosines(seqs: list[int]) -> dict[int, float]:
            missing = [s for s in seqs if s not in hits]
            return {**{s: hits[s] for s in seqs if s in hits}, **self.store.similarities(self.key, query_vec, missing)}

        return VectorScores(list(hits), cosines)

    def vectors_of(self, seqs: list[int]) -> npt.NDArray[np.float32]:
        return stored_in_order(self.store, self.key, seqs, self.dims, self.table)


@dataclass(frozen=True)
class VectorIndex:
    """Vectors of one table: ``seqs`` ascending, one row of ``matrix`` per seq."""

    seqs: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    keys: KeyScorer | None = None  # chunk keys (keys.py), scored on demand

    def __len__(self) -> int:
        return len(self.seqs)

    def scores(self, query_vec: npt.NDArray[np.float32], k: int) -> VectorScores:
        """Exact cosine of every row; the ``k`` best first."""
        sims = self.matrix @ query_vec
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k] if 0 < k < len(sims) else np.arange(len(sims))
        top = top[np.argsort(-sims[top], kind="stable")]

        def cosines(seqs: list[int]) -> dict[int, float]:
            rows = self.rows_of(seqs)
            return {s: float(sims[r]) for s, r in zip(seqs, rows, strict=True) if r >= 0}

        return VectorScores([int(self.seqs[i]) for i in top], cosines)

    def vectors_of(self, seqs: list[int]) -> npt.NDArray[np.float32]:
        """A row per seq (zeros where it has no vector)."""
        rows = self.rows_of(seqs)
        return np.where((rows >= 0)[:, None], self.matrix[np.maximum(rows, 0)], 0.0).astype(np.float32)

    def rows_of(self, seqs: list[int]) -> npt.NDArray[np.int64]:
        """Row of each seq, -1 where it has no vector."""
        wanted = np.asarray(seqs, dtype=np.int64)
        pos = np.searchsorted(self.seqs, wanted)
        if not len(self.seqs):
            return np.full(len(wanted), -1, dtype=np.int64)
        pos = np.minimum(pos, len(self.seqs) - 1)
        return np.where(self.seqs[pos] == wanted, pos, -1)


class LiveVectors:
    """The vectors of one table of the live index for one embedding key, reloaded only by delta."""

    def __init__(self, table: str, ann_min_rows: int | None = None) -> None:
        self.table = table
        self.ann_min_rows = ann_min_rows  # chunks from which a SQLite index is searched through ann.py
        self._lock = threading.Lock()
        self._cached: tuple[tuple[int, int], EmbeddingKey, VectorIndex] | None = None
        self._ann: AnnVectors | None = None
        self._rows: tuple[tuple[int, int], int] | None = None  # chunks counted at (epoch, generation)

    def searchable(self, store: IndexStore, key: EmbeddingKey, dims: int) -> SearchVectors:
        """What a search ranks with: the vectors in RAM; past ``ann_min_rows`` chunks, a handle on the
        server's index (a store that searches its own vectors) or the int8 graph of ann.py (SQLite)."""
        if self.table != "chunks":
            return self.get(store, key, dims)
        if isinstance(store, ServerVectorSearch):
            rows = store.vector_rows(self.table)
            if rows >= store.ann_min_rows:
                self.clear()  # the matrix is not needed while the server searches
                return ServerVectors(store, key, dims, rows, self.table, key_scorer(store, key))
        elif self.ann_min_rows is not None:
            with self._lock:
                at = store.generation()
                if self._rows is None or self._rows[0] != at:
                    self._rows = (at, store.vector_rows(self.table))
                if self._rows[1] >= self.ann_min_rows:
                    from .ann import AnnVectors

                    ann = self._ann
                    if ann is None or (ann.key, ann.dims) != (key, dims) or ann.store is not store:
                        ann = self._ann = AnnVectors(store, key, dims)
                        ann.keys = key_scorer(store, key)
                    ann.refresh(*at)
                    self._cached = None  # the float matrix is not kept beside the graph
                    return ann
        return self.get(store, key, dims)

    def close(self) -> None:
        """Save the graph's unsaved delta (the next process then applies less)."""
        with self._lock:
            if self._ann is not None and self._ann.unsaved:
                self._ann.save()
            self._ann = None

    def clear(self) -> None:
        with self._lock:
            self._cached = None

    def get(self, store: IndexStore, key: EmbeddingKey, dims: int) -> VectorIndex:
        with self._lock:
            epoch, gen = store.generation()
            cached = self._cached
            if cached is not None and cached[1] != key:
                cached = None  # another model's vectors are never compared with this one's
            if cached is not None and cached[0] == (epoch, gen):
                return cached[2]
            if cached is None or cached[0][0] != epoch:
                seqs, matrix = store.load_vectors(key, dims, self.table)
            else:
                old = cached[2]
                live = store.live_seqs(self.table)
                keep = np.isin(old.seqs, live, assume_unique=True)
                new_seqs, new_matrix = store.vectors_for(
                    key, np.setdiff1d(live, old.seqs, assume_unique=True), dims, self.table
                )
                if keep.all() and not len(new_seqs):
                    seqs, matrix = old.seqs, old.matrix  # a write that touched no row (an mtime, meta)
                else:
                    seqs = np.concatenate([old.seqs[keep], new_seqs])
                    matrix = np.concatenate([old.matrix[keep], new_matrix])
                    if len(seqs) > 1 and not (seqs[1:] > seqs[:-1]).all():
                        # seqs only grow within an epoch, so appending keeps them sorted; if a driver ever
                        # committed them out of order, sort rather than break rows_of's binary search.
                        order = np.argsort(seqs, kind="stable")
                        seqs, matrix = seqs[order], matrix[order]
            index = VectorIndex(seqs, matrix, key_scorer(store, key) if self.table == "chunks" else None)
            self._cached = ((epoch, gen), key, index)
            return index


# What a chunk search ranks with.
SearchVectors: TypeAlias = "VectorIndex | ServerVectors | AnnVectors"
