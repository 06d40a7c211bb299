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

import numpy as np
import numpy.typing as npt

from .store import EmbeddingKey, IndexStore

# chunk seqs -> (owner chunk seq, said by an assistant, embedded yet, vector), a row per key
KeyReader = Callable[
    [Sequence[int]],
    tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]],
]


@dataclass(frozen=True)
class VectorIndex:
    """Vectors of one table: ``seqs`` ascending, one row of ``matrix`` per seq."""

    seqs: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    keys: KeyReader | None = None  # chunk keys (keys.py), read on demand

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

    def __init__(self, table: str) -> None:
        self.table = table
        self._lock = threading.Lock()
        self._cached: tuple[tuple[int, int], EmbeddingKey, VectorIndex] | None = None

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
                    # seqs only grow (AUTOINCREMENT) within an epoch, so appending keeps them sorted.
                    seqs = np.concatenate([old.seqs[keep], new_seqs])
                    matrix = np.concatenate([old.matrix[keep], new_matrix])
            keys = None
            if self.table == "chunks":
                keys = functools.partial(store.key_vectors, key, dims=dims)
            index = VectorIndex(seqs, matrix, keys)
            self._cached = ((epoch, gen), key, index)
            return index
