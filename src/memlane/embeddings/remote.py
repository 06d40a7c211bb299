"""What the remote providers share: token estimates, request splitting, answer checks, batch jobs.

Token counts for chunking and request limits use the bundled WordPiece tokenizer (offline; the
vendors' own tokenizers would have to be downloaded). For English prose it counts within ~15% of
OpenAI's cl100k; request limits keep a 25% margin on top.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from ..errors import ProviderError
from .base import QueryCache, Vectors, normalize_rows
from .http import HttpClient

BatchState = Literal["running", "completed", "failed", "expired", "cancelled"]
TOKEN_MARGIN = 1.25  # request limits are checked against estimated tokens x this


@lru_cache(maxsize=1)
def _counter() -> Any:
    from .local import _BUNDLED_TOKENIZER, _load_tokenizer

    tok = _load_tokenizer(_BUNDLED_TOKENIZER)
    tok.no_padding()
    tok.no_truncation()
    return tok


def estimate_tokens(texts: Sequence[str]) -> list[int]:
    """Tokens per text, counted with the bundled WordPiece tokenizer (special tokens excluded)."""
    if not texts:
        return []
    return [len(e.ids) for e in _counter().encode_batch_fast(list(texts), add_special_tokens=False)]


@dataclass(frozen=True)
class BatchStatus:
    state: BatchState
    detail: str = ""


@runtime_checkable
class BatchProvider(Protocol):
    """A provider with an asynchronous batch API. ``custom_id``s come back with the results."""

    batch_max_requests: int

    def batch_submit(self, items: Sequence[tuple[str, str]]) -> str:
        """Start a job embedding ``(custom_id, text)`` items; returns the job id."""
        ...

    def batch_status(self, job_id: str) -> BatchStatus: ...

    def batch_cancel(self, job_id: str) -> None: ...

    def batch_results(self, job_id: str) -> tuple[dict[str, Vectors], dict[str, str]]:
        """Vectors by custom_id, and an error message by custom_id for the items that failed."""
        ...


def check_vectors(rows: Any, expected: int, dims: int | None, who: str) -> Vectors:
    """A provider's answer as a unit-length float32 matrix, or a ProviderError saying what is wrong."""
    if not isinstance(rows, list) or len(rows) != expected:
        got = len(rows) if isinstance(rows, list) else type(rows).__name__
        raise ProviderError(f"{who} returned {got} vectors for {expected} texts")
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError):
        raise ProviderError(f"{who} returned vectors that are not lists of numbers") from None
    if matrix.ndim != 2 or (expected and matrix.shape[1] == 0):
        raise ProviderError(f"{who} returned vectors of unequal or zero length")
    if dims is not None and expected and matrix.shape[1] != dims:
        raise ProviderError(f"{who} returned {matrix.shape[1]}-d vectors, expected {dims}")
    if not np.isfinite(matrix).all():
        raise ProviderError(f"{who} returned vectors with NaN or infinite values")
    return normalize_rows(matrix)


class RemoteEmbedder:
    """Common behaviour; subclasses send the vendor's requests (``_embed_request``)."""

    provider_id = "remote"
    max_inputs_per_request = 100
    max_tokens_per_request = 100_000
    # Texts per embed_batch call from a sync (and per cache commit): fewer, larger requests than the
    # local model's 64, which matters against rate limits; a killed sync loses at most this many.
    sync_batch = 256

    def __init__(
        self,
        client: HttpClient,
        model: str,
        dimensions: int | None,
        known_dims: int | None,
        max_tokens: int,
        query_timeout: float,
    ) -> None:
        self.client = client
        self.model = model
        self.dimensions = dimensions  # the output size asked of the vendor; None: the model's own
        self.max_tokens = max_tokens
        self.query_timeout = query_timeout
        self._dims = dimensions or known_dims
        self._lock = threading.Lock()
        self._queries = QueryCache(self._embed_one_query)

    # -- identity
    @property
    def dims(self) -> int:
        if self._dims is None:  # an unknown model: ask once
            with self._lock:
                if self._dims is None:
                    self._dims = int(self._embed_request(["dimension probe"], "document", None)[0].shape[0])
        return self._dims

    def fingerprint(self) -> str:
        return self.client.endpoint.fingerprint(self.provider_id, self.model, self.dimensions)

    # -- tokens
    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return estimate_tokens(texts)

    def _requests(self, texts: Sequence[str]) -> Iterator[list[int]]:
        """Indices of ``texts`` grouped so each request stays under the input and token limits."""
        tokens = self.count_tokens(texts)
        group: list[int] = []
        total = 0.0
        for i, n in enumerate(tokens):
            cost = n * TOKEN_MARGIN
            if group and (len(group) >= self.max_inputs_per_request or total + cost > self.max_tokens_per_request):
                yield group
                group, total = [], 0.0
            group.append(i)
            total += cost
        if group:
            yield group

    # -- vectors
    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        dims = self.dims
        out = np.zeros((len(texts), dims), dtype=np.float32)
        # Empty or blank texts are never sent: their vector is zero (they match nothing).
        real = [i for i, t in enumerate(texts) if t.strip()]
        sendable = [texts[i] for i in real]
        for group in self._requests(sendable):
            out[[real[i] for i in group]] = self._embed_request([sendable[i] for i in group], "document", None)
        return out

    def embed_query(self, text: str) -> Vectors:
        if not text.strip():
            raise ProviderError("cannot embed an empty query")
        return self._queries(text)

    def _embed_one_query(self, text: str) -> Vectors:
        vec: Vectors = self._embed_request([text], "query", self.query_timeout)[0]
        return vec

    def _embed_request(self, texts: list[str], task: Literal["query", "document"], timeout: float | None) -> Vectors:
        raise NotImplementedError

    def close(self) -> None:
        self.client.close()
