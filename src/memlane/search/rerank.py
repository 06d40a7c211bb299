"""Optional reranking: a cross-encoder reads the query beside each of the best candidates and reorders them.

Off unless configured (``memorySearch.query.rerank``): no weights ship with memlane. Two ways in, behind one
:class:`Reranker` protocol:

- ``modelPath``: a cross-encoder exported to ONNX (inputs ``input_ids``, ``attention_mask`` and optionally
  ``token_type_ids``; output one logit per pair, or two classes) with its Hugging Face ``tokenizer.json``
  (``tokenizerPath``, default beside the model), run by onnxruntime like the embedding model;
- ``remote``: a ``POST {baseUrl}/rerank`` endpoint in the wire format Jina and Cohere share
  (``{"model", "query", "documents", "top_n"}`` -> ``{"results": [{"index", "relevance_score"}]}``).

The reranker's order is blended with the fused order by rank position (:func:`blend`), so a reranker never
has the last word alone: ``weight`` is its share. A reranker that fails (a server down, a timeout) leaves the
fused order as it was and says so in the response's notes; it never fails the search.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..config import RerankSettings
from ..embeddings.http import Endpoint, HttpClient, RetryPolicy
from ..errors import MemlaneError, ProviderError

RANK_K = 10  # position smoothing of the blend: rank r (0 = first) counts (K + 1) / (K + 1 + r)


class Reranker(Protocol):
    name: str

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance per text, higher is better (only the order matters)."""
        ...

    def close(self) -> None: ...


def blend(fused: Sequence[float], relevance: Sequence[float], weight: float) -> list[tuple[int, float]]:
    """(index, score) of ``fused`` (scores, best first) reordered by mixing each item's two rank positions:
    ``(1 - weight)`` of its fused position and ``weight`` of its reranker position. A score is the blend times
    the best fused score, so an item first on both keeps that score."""
    if not fused:
        return []
    by_relevance = sorted(range(len(relevance)), key=lambda i: (-relevance[i], i))
    position = {i: r for r, i in enumerate(by_relevance)}
    top = fused[0]
    mixed = [
        (i, top * ((1 - weight) * (RANK_K + 1) / (RANK_K + 1 + i) + weight * (RANK_K + 1) / (RANK_K + 1 + position[i])))
        for i in range(len(fused))
    ]
    return sorted(mixed, key=lambda x: (-x[1], x[0]))


class OnnxReranker:
    """A cross-encoder ONNX graph and its tokenizer, both given by path."""

    def __init__(self, model_path: Path, tokenizer_path: Path, max_tokens: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        for what, path in (("modelPath", model_path), ("tokenizerPath", tokenizer_path)):
            if not path.is_file():
                raise MemlaneError(f"memorySearch.query.rerank.{what}: no such file: {path}")
        self.name = f"onnx:{model_path.name}"
        options = ort.SessionOptions()
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # a search, not a batch job
        try:
            self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
            self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise MemlaneError(f"memorySearch.query.rerank: cannot load {model_path.name}: {exc}") from None
        self.tokenizer.enable_truncation(max_tokens, strategy="only_second")
        self.tokenizer.enable_padding()
        self.inputs = {i.name for i in self.session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self.inputs
        if missing:
            raise MemlaneError(f"memorySearch.query.rerank.modelPath: the graph has no input {sorted(missing)}")
        self._lock = threading.Lock()  # one run at a time: searches from several threads share the session

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        encodings = self.tokenizer.encode_batch([(query, t) for t in texts])
        feed: dict[str, Any] = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        }
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        try:
            with self._lock:
                logits = np.asarray(self.session.run(None, feed)[0], dtype=np.float32).reshape(len(texts), -1)
        except Exception as exc:  # onnxruntime's own errors: a graph that does not fit these inputs
            raise ProviderError(f"rerank: {self.name} failed: {str(exc)[:200]}") from None
        column = logits[:, -1] if logits.shape[1] <= 2 else logits.max(axis=1)  # two classes: "relevant"'s
        return [float(x) for x in column]

    def close(self) -> None:
        pass


class RemoteReranker:
    """A ``/rerank`` endpoint (Jina and Cohere's shared wire format)."""

    def __init__(self, settings: RerankSettings) -> None:
        remote = settings.remote
        assert remote is not None
        self.name = f"remote:{remote.model or 'rerank'}"
        self.model = remote.model
        endpoint = Endpoint(remote.base_url, remote.api_key or "", remote.headers)
        auth = {"authorization": f"Bearer {remote.api_key}"} if remote.api_key else {}
        retry = RetryPolicy(max_retries=remote.max_retries, base=0.2, max_wait=2.0)
        self.client = HttpClient(endpoint, auth, "rerank", retry, remote.timeout_seconds)

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        body: dict[str, Any] = {"query": query, "documents": list(texts), "top_n": len(texts)}
        if self.model:
            body["model"] = self.model
        answer = self.client.request("POST", "rerank", kind="rerank", json_body=body)
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise ProviderError("rerank: the answer has no results list")
        relevance = [float("-inf")] * len(texts)  # a text the server left out ranks last
        for item in results:
            try:
                index, score = int(item["index"]), float(item["relevance_score"])
            except (KeyError, TypeError, ValueError):
                raise ProviderError(f"rerank: unreadable result {str(item)[:80]}") from None
            if not 0 <= index < len(texts):
                raise ProviderError(f"rerank: result index {index} out of range")
            relevance[index] = score
        return relevance

    def close(self) -> None:
        self.client.close()


def make_reranker(settings: RerankSettings, base: Path) -> Reranker | None:
    """The configured reranker (paths relative to ``base``, the workspace), or None when none is."""
    if settings.remote is not None:
        return RemoteReranker(settings)
    if settings.model_path is None:
        return None
    model = (base / Path(settings.model_path).expanduser()).resolve()
    tokenizer = (
        (base / Path(settings.tokenizer_path).expanduser()).resolve()
        if settings.tokenizer_path
        else model.parent / "tokenizer.json"
    )
    return OnnxReranker(model, tokenizer, settings.max_tokens)
