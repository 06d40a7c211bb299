"""The embedding provider seam.

A provider turns texts into unit-length float32 vectors. Its ``provider_id``, ``model`` and
``fingerprint()`` go into the index fingerprint: when any of them changes, the index is
rebuilt, so vectors of different models are never compared.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class EmbeddingProvider(Protocol):
    provider_id: str  # "local", "openai", "gemini", ...
    model: str
    max_tokens: int  # the most tokens one input may have, special tokens included

    @property
    def dims(self) -> int:
        """Vector length (a remote provider of an unknown model may ask its endpoint once)."""
        ...

    def fingerprint(self) -> str:
        """Non-secret identity of the endpoint/weights (hashed into the index fingerprint)."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens each text costs, special tokens excluded."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """One vector, shape (dims,)."""
        ...

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """One vector per text, shape (len(texts), dims)."""
        ...


class QueryCache:
    """Query vectors of one provider, the most recent ``size`` kept (a thread-safe dict, oldest out first).

    Per instance on purpose: a class-level ``lru_cache`` keyed on the provider kept every provider (and a
    local model's ~100 MB ONNX session) alive after its Memory was closed."""

    def __init__(self, embed: Callable[[str], Vectors], size: int = 256) -> None:
        self._embed = embed
        self._size = size
        self._lock = threading.Lock()
        self._vectors: dict[str, Vectors] = {}

    def __call__(self, text: str) -> Vectors:
        with self._lock:
            hit = self._vectors.get(text)
        if hit is not None:
            return hit
        vec = self._embed(text)
        vec.setflags(write=False)
        with self._lock:
            if len(self._vectors) >= self._size:
                self._vectors.pop(next(iter(self._vectors)))
            self._vectors[text] = vec
        return vec


def similarities(matrix: npt.NDArray[np.float32], vec: npt.NDArray[np.float32]) -> Vectors:
    """Each row of ``matrix`` times ``vec`` (cosines, rows and vector being unit length), on the calling thread.

    Not ``matrix @ vec``: numpy hands that to OpenBLAS, which runs it on a thread per core whose threads spin
    after each call. On a busy machine its second thread is descheduled and the product waits for it: at 10,164
    x 384 it took 8 ms instead of 0.3, and recall at 10,000 facts 55 ms instead of 25 (docs/design/index.md §48).
    ``einsum`` runs numpy's own loop, on this thread, with no state shared with the rest of the process (a
    thread limit set around each read would be; threadpoolctl lets one thread hold it at a time)."""
    out: Vectors = np.einsum("ij,j->i", matrix, vec)
    return out


def normalize_rows(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (m / norms).astype(np.float32, copy=False)
    return out
