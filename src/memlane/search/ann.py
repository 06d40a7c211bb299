"""An approximate index of a SQLite index's chunk vectors, for corpora past ``store.annMinRows`` chunks.

Exact search holds every vector as float32 in RAM (1.5 GB at 1M chunks) and multiplies them all per query.
Past ``annMinRows`` the chunk vectors go into a usearch HNSW graph of int8 vectors instead (about 0.85 kB a
vector with its links), which finds ``RESCORE_FACTOR`` times the wanted candidates; those are rescored
with their exact float32 vectors read from SQLite, so the ranking sees exact cosines (docs/DESIGN.md §18,
§21: recall@10 0.994 against exact on real vectors, where the int8 graph alone gave 0.967).

The graph is saved beside the SQLite file (``<index>.usearch``, with ``.usearch.json`` naming the index
identity, epoch, generation and embedding key it reflects, and ``.usearch.npy`` the chunk numbers in it). A
process that opens it applies only the delta since: chunks added since are added, chunks gone are removed.
A full reindex (a new epoch), another embedding key or another index at the same path (a new identity: a
rebuilt index numbers its chunks from 1 again, so epoch and chunk numbers alone would match) rebuilds it.
It is a cache: deleting it costs one rebuild, and a file that cannot be read is rebuilt, never trusted. A
graph that cannot be saved is logged and shown by ``memlane status`` (:func:`save_error`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..embeddings import EmbeddingKey, similarities
from ..store import IndexStore
from ..store.sqlite import INDEX_ID
from .vectors import KeyScorer, VectorScores, stored_in_order

log = logging.getLogger("memlane")

RESCORE_FACTOR = 4  # graph candidates per wanted result, rescored exactly
MIN_CANDIDATES = 40
CONNECTIVITY = 16
LOAD_SLICE = 20_000  # vectors read from SQLite at a time while building: RAM stays bounded
SAVE_AFTER_CHANGES = 2_000  # a delta this big is saved at once; smaller ones when the memory closes

# The last failed save of each graph (by its path), until one succeeds: what `memlane status` shows.
_save_errors: dict[str, str] = {}
_save_errors_lock = threading.Lock()


def save_error(index_path: Path) -> str | None:
    """Why the graph beside the index at ``index_path`` could not be saved by this process, if it could not."""
    with _save_errors_lock:
        return _save_errors.get(str(index_path) + ".usearch")


@dataclass
class _State:
    identity: str | None  # the index's INDEX_ID meta value
    epoch: int
    generation: int
    key: EmbeddingKey
    dims: int


class AnnVectors:
    """The chunk vectors of one SQLite index behind an int8 HNSW graph, kept in step by delta."""

    def __init__(self, store: IndexStore, key: EmbeddingKey, dims: int) -> None:
        # onnxruntime first: imported after usearch 2.26 (its numkong kernels), it crashes the process on load
        # (a segmentation fault, tests/search/test_ann.py pins the order).
        import onnxruntime  # noqa: F401
        from usearch.index import Index

        self._index_cls = Index
        self.store = store
        self.key = key
        self.dims = dims
        self.path = Path(str(store.path) + ".usearch")
        self.index = self._new_index()
        self.seqs = np.zeros(0, dtype=np.int64)
        self.state: _State | None = None
        self.unsaved = 0
        self.keys: KeyScorer | None = None
        self._identity: tuple[int, str | None] | None = None  # (epoch, the index's identity then)

    # -- keeping in step
    def identity(self, epoch: int) -> str | None:
        """The index's identity, read again whenever the epoch moves (a reset gives it a new one)."""
        if self._identity is None or self._identity[0] != epoch:
            self._identity = (epoch, self.store.meta().get(INDEX_ID))
        return self._identity[1]

    def refresh(self, epoch: int, generation: int) -> None:
        """Bring the graph to the index's (epoch, generation): from the saved file if it is of this index,
        epoch and key, then by delta; from nothing otherwise."""
        identity = self.identity(epoch)
        if self.state is None:
            self._load(identity)
        wanted = (identity, epoch, self.key, self.dims)
        if self.state is None or (self.state.identity, self.state.epoch, self.state.key, self.state.dims) != wanted:
            self._build(identity, epoch, generation)
            return
        if self.state.generation == generation:
            return
        live = self.store.live_seqs("chunks")
        gone = np.setdiff1d(self.seqs, live, assume_unique=True)
        new = np.setdiff1d(live, self.seqs, assume_unique=True)
        if len(gone):
            self.index.remove(gone)
        added = self._add(new)
        self.seqs = np.union1d(np.setdiff1d(self.seqs, gone, assume_unique=True), added)
        self.state = _State(identity, epoch, generation, self.key, self.dims)
        self.unsaved += len(gone) + len(added)  # not len(new): a first index's rows wait for their vectors
        if self.unsaved >= SAVE_AFTER_CHANGES:
            self.save()

    def _add(self, seqs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Add the vectors of ``seqs`` (those that have one), a slice at a time; the seqs added."""
        added: list[npt.NDArray[np.int64]] = []
        for i in range(0, len(seqs), LOAD_SLICE):
            found, matrix = self.store.vectors_for(self.key, seqs[i : i + LOAD_SLICE], self.dims)
            if len(found):
                self.index.add(found, matrix)
                added.append(found)
        return np.concatenate(added) if added else np.zeros(0, dtype=np.int64)

    def _new_index(self) -> Any:
        return self._index_cls(ndim=self.dims, metric="cos", dtype="i8", connectivity=CONNECTIVITY)

    def _build(self, identity: str | None, epoch: int, generation: int) -> None:
        self.index = self._new_index()
        self.seqs = np.sort(self._add(self.store.live_seqs("chunks")))
        self.state = _State(identity, epoch, generation, self.key, self.dims)
        self.save()

    def _files(self) -> tuple[Path, Path, Path]:
        return self.path, Path(str(self.path) + ".json"), Path(str(self.path) + ".npy")

    def _load(self, identity: str | None) -> None:
        """The saved graph, if it names ``identity``: a file of another index (or of an index that had no
        identity yet) is never trusted, whatever its epoch and chunk numbers say."""
        graph, meta, seqs = self._files()
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
            if identity is None or info.get("index") != identity:
                return  # rebuilt
            saved = np.load(seqs)
            index = self._index_cls.restore(str(graph))
            state = _State(identity, info["epoch"], info["generation"], EmbeddingKey(*info["key"]), info["dims"])
        except (OSError, ValueError, RuntimeError, KeyError, TypeError):
            return  # nothing saved, or unreadable: rebuilt
        if index is None or len(index) != len(saved):
            return
        self.index, self.seqs, self.state = index, saved.astype(np.int64), state

    def save(self) -> None:
        """Write the graph and what it reflects, each file replaced whole (a reader never sees half)."""
        if self.state is None or self.store.read_only:
            return
        graph, meta, seqs = self._files()
        info = {
            "index": self.state.identity,
            "epoch": self.state.epoch,
            "generation": self.state.generation,
            "key": [self.key.provider, self.key.model, self.key.provider_key],
            "dims": self.dims,
        }
        tmp: Path | None = None  # the file being written when a write fails
        try:
            with contextlib.suppress(OSError):
                meta.unlink()  # first: a graph half replaced is never loaded with the description of the last
            for target, write in (
                (graph, lambda p: self.index.save(str(p))),
                (seqs, lambda p: np.save(p, self.seqs)),
                (meta, lambda p: p.write_text(json.dumps(info), encoding="utf-8")),
            ):
                tmp = target.with_name(target.name + ".tmp" + (".npy" if target.suffix == ".npy" else ""))
                write(tmp)
                os.replace(tmp, target)
        except (OSError, RuntimeError) as exc:  # usearch reports a file it cannot write as RuntimeError
            with contextlib.suppress(OSError):
                meta.unlink()  # a graph without its description is never loaded
            if tmp is not None and tmp.is_file():
                with contextlib.suppress(OSError):
                    tmp.unlink()
            self._save_failed(graph, exc)
            return
        with _save_errors_lock:
            _save_errors.pop(str(graph), None)
        self.unsaved = 0

    def _save_failed(self, graph: Path, exc: Exception) -> None:
        """Said in the log and in `memlane status`: a graph that is never saved is rebuilt by every process
        (minutes on a big index), which must not go unexplained. Searches go on with the graph in memory."""
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        message = (
            f"the ANN graph {graph} could not be saved ({why}); searches use it from memory, and the next process "
            "builds it again"
        )
        with _save_errors_lock:
            first = _save_errors.get(str(graph)) != message
            _save_errors[str(graph)] = message
        if first:  # once per distinct failure, not at every save of a long-running process
            log.warning("memlane: %s", message)

    # -- what search asks (the same as VectorIndex / ServerVectors)
    def __len__(self) -> int:
        return len(self.seqs)

    def scores(self, query_vec: npt.NDArray[np.float32], k: int) -> VectorScores:
        wanted = max(RESCORE_FACTOR * k, MIN_CANDIDATES)
        found = self.index.search(query_vec, min(wanted, max(len(self.index), 1)))
        candidates = np.sort(np.asarray(found.keys, dtype=np.int64))
        seqs, matrix = self.store.vectors_for(self.key, candidates, self.dims)
        sims = similarities(matrix, query_vec)
        exact = {int(s): float(c) for s, c in zip(seqs, sims, strict=True)}
        order = sorted(exact, key=lambda s: -exact[s])[:k]

        def cosines(wanted_seqs: list[int]) -> dict[int, float]:
            missing = np.asarray(sorted(s for s in wanted_seqs if s not in exact), dtype=np.int64)
            more: dict[int, float] = {}
            if len(missing):
                got, m = self.store.vectors_for(self.key, missing, self.dims)
                more = {int(s): float(c) for s, c in zip(got, similarities(m, query_vec), strict=True)}
            return {**{s: exact[s] for s in wanted_seqs if s in exact}, **more}

        return VectorScores(order, cosines)

    def vectors_of(self, seqs: Sequence[int]) -> npt.NDArray[np.float32]:
        return stored_in_order(self.store, self.key, seqs, self.dims)
