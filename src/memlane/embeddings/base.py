"""The embedding provider seam.

A provider turns texts into unit-length float32 vectors. Its ``provider_id``, ``model`` and
``fingerprint()`` go into the index fingerprint: when any of them changes, the index is
rebuilt, so vectors of different models are never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def normalize_rows(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (m / norms).astype(np.float32, copy=False)
    return out
