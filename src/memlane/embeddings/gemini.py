"""The native Gemini embeddings API.

Queries go to ``models/{model}:embedContent`` with task type ``RETRIEVAL_QUERY``, documents to
``models/{model}:batchEmbedContents`` (up to 100 per request) with ``RETRIEVAL_DOCUMENT``. Large
(re)indexes can use the async batch API: ``models/{model}:asyncBatchEmbedContent`` with inlined
requests (each carries its text hash as ``metadata.key``), polled at ``batches/{id}``. The key goes
in the ``x-goog-api-key`` header, never in a URL.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from ..errors import ProviderError
from .base import Vectors
from .http import HttpClient
from .remote import BatchState, BatchStatus, RemoteEmbedder, check_vectors

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
DEFAULT_MODEL = "gemini-embedding-001"
KNOWN_DIMS = {"gemini-embedding-001": 3072, "text-embedding-004": 768, "embedding-001": 768}
MAX_INPUT_TOKENS = {"gemini-embedding-001": 2048, "text-embedding-004": 2048, "embedding-001": 2048}
_TASK = {"query": "RETRIEVAL_QUERY", "document": "RETRIEVAL_DOCUMENT"}
_STATES: dict[str, BatchState] = {
    "PENDING": "running",
    "RUNNING": "running",
    "SUCCEEDED": "completed",
    "FAILED": "failed",
    "CANCELLED": "cancelled",
    "EXPIRED": "expired",
}


class GeminiEmbedder(RemoteEmbedder):
    provider_id = "gemini"
    max_inputs_per_request = 100  # batchEmbedContents' limit
    sync_batch = 300  # a multiple of the limit: no short requests in the middle of a sync
    max_tokens_per_request = 200_000
    batch_max_requests = 2_000  # inlined requests per async job (keeps the body far below 20 MB)

    def __init__(
        self,
        client: HttpClient,
        model: str = DEFAULT_MODEL,
        dimensions: int | None = None,
        query_timeout: float = 60.0,
    ) -> None:
        self.model_path = model if model.startswith("models/") else f"models/{model}"
        name = self.model_path.removeprefix("models/")
        super().__init__(
            client, name, dimensions, KNOWN_DIMS.get(name), MAX_INPUT_TOKENS.get(name, 2048), query_timeout
        )

    def _request_body(self, text: str, task: Literal["query", "document"]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_path,
            "content": {"parts": [{"text": text}]},
            "taskType": _TASK[task],
        }
        if self.dimensions is not None:
            body["outputDimensionality"] = self.dimensions
        return body

    def _embed_request(self, texts: list[str], task: Literal["query", "document"], timeout: float | None) -> Vectors:
        if task == "query" and len(texts) == 1:
            answer = self.client.request(
                "POST",
                f"{self.model_path}:embedContent",
                kind="embedContent",
                json_body=self._request_body(texts[0], task),
                timeout=timeout,
            )
            embedding = answer.get("embedding") if isinstance(answer, dict) else None
            rows = [embedding.get("values")] if isinstance(embedding, dict) else None
            return check_vectors(rows, 1, self._dims, "gemini embedContent")
        answer = self.client.request(
            "POST",
            f"{self.model_path}:batchEmbedContents",
            kind="batchEmbedContents",
            json_body={"requests": [self._request_body(t, task) for t in texts]},
            timeout=timeout,
        )
        return check_vectors(
            _values(answer, "gemini batchEmbedContents"), len(texts), self._dims, "gemini batchEmbedContents"
        )

    # -- async batch API
    def batch_submit(self, items: Sequence[tuple[str, str]]) -> str:
        requests = [
            {"request": self._request_body(text, "document"), "metadata": {"key": cid}}
            for cid, text in items
            if text.strip()
        ]
        if not requests:
            raise ProviderError("gemini batch: nothing to embed")
        answer = self.client.request(
            "POST",
            f"{self.model_path}:asyncBatchEmbedContent",
            kind="asyncBatchEmbedContent",
            json_body={
                "batch": {
                    "displayName": f"memlane-{uuid.uuid4().hex[:12]}",
                    "inputConfig": {"requests": {"requests": requests}},
                }
            },
        )
        name = answer.get("name") if isinstance(answer, dict) else None
        if not isinstance(name, str) or not name.startswith("batches/"):
            raise ProviderError("gemini asyncBatchEmbedContent: the answer has no batch name")
        return name

    def _operation(self, job_id: str) -> dict[str, Any]:
        answer = self.client.request("GET", job_id, kind="batches.get")
        if not isinstance(answer, dict):
            raise ProviderError(f"gemini batches.get: unexpected answer for {job_id}")
        return answer

    def batch_status(self, job_id: str) -> BatchStatus:
        op = self._operation(job_id)
        raw = str((op.get("metadata") or {}).get("state") or op.get("state") or "")
        state = _STATES.get(raw.rsplit("_", 1)[-1], "running" if not op.get("done") else "completed")
        if op.get("error"):
            return BatchStatus("failed", str((op["error"] or {}).get("message", op["error"])))
        return BatchStatus(state, raw)

    def batch_cancel(self, job_id: str) -> None:
        self.client.request("POST", f"{job_id}:cancel", kind="batches.cancel")

    def batch_results(self, job_id: str) -> tuple[dict[str, Vectors], dict[str, str]]:
        op = self._operation(job_id)
        output = (op.get("response") or {}) or ((op.get("metadata") or {}).get("output") or {})
        if "output" in output and isinstance(output["output"], dict):
            output = output["output"]
        inlined = (output.get("inlinedResponses") or {}).get("inlinedResponses")
        if not isinstance(inlined, list):
            if output.get("responsesFile"):
                raise ProviderError(f"gemini batch {job_id}: file output is not supported, only inlined responses")
            raise ProviderError(f"gemini batch {job_id}: no inlined responses in the finished batch")
        vectors: dict[str, Vectors] = {}
        failed: dict[str, str] = {}
        for item in inlined:
            cid = ((item or {}).get("metadata") or {}).get("key")
            if not isinstance(cid, str):
                raise ProviderError(f"gemini batch {job_id}: a response has no metadata.key")
            if item.get("error"):
                failed[cid] = str(item["error"].get("message", item["error"]))
                continue
            embedding = (item.get("response") or {}).get("embedding")
            try:
                rows = [embedding.get("values")] if isinstance(embedding, dict) else None
                vectors[cid] = check_vectors(rows, 1, self._dims, f"gemini batch {job_id}")[0]
            except ProviderError as exc:
                failed[cid] = str(exc)
        return vectors, failed


def _values(answer: Any, who: str) -> list[Any]:
    embeddings = answer.get("embeddings") if isinstance(answer, dict) else None
    if not isinstance(embeddings, list):
        raise ProviderError(f"{who}: the answer has no 'embeddings' list")
    try:
        return [e["values"] for e in embeddings]
    except (KeyError, TypeError):
        raise ProviderError(f"{who}: malformed 'embeddings' items") from None
