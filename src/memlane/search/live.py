"""The live vectors a search ranks with: one table's matrix in RAM, reloaded by delta; past
``annMinRows`` the server's own index (PostgreSQL) or the int8 graph of :mod:`.ann` (SQLite).

Apart from :mod:`.vectors` (the matrices and scorers) so that the graph, built on those, is chosen here
rather than imported back into them.
"""

from __future__ import annotations

import threading
from typing import TypeAlias

import numpy as np

from ..embeddings import EmbeddingKey
from ..store import IndexStore, ServerVectorSearch
from .ann import AnnVectors
from .vectors import ServerVectors, VectorIndex, key_scorer


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
SearchVectors: TypeAlias = VectorIndex | ServerVectors | AnnVectors
