"""Vectors in memory and how they are scored: one float32 matrix per table (chunks, facts), the
handle on a server's own vector index, and the key scorers. :mod:`.live` keeps them fresh by delta.

A write bumps the index ``generation``; the next search reads only the vectors of rows it has not
seen (``seq`` only grows within an ``epoch``; a full reset bumps the epoch and forces a full load).
A full load of 100k vectors takes over a second; the delta after a one-file change, milliseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..embeddings import EmbeddingKey, similarities
from ..store import IndexStore, ServerVectorSearch

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
        sims = similarities(self.matrix, query_vec)
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
