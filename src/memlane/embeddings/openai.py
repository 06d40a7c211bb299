"""OpenAI embeddings and any OpenAI-compatible endpoint (vLLM, OpenRouter, LiteLLM, a proxy).

Ordinary requests go to ``POST {base}/embeddings``. Large (re)indexes can use the Batch API:
a JSONL file of ``/v1/embeddings`` requests is uploaded (``POST /files``, purpose ``batch``), a batch
is created (``POST /batches``), polled (``GET /batches/{id}``), and its output and error files are
downloaded (``GET /files/{id}/content``). Each request's ``custom_id`` is the chunk text's hash, so
results map back without any other state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from ..errors import ProviderError
from .base import Vectors
from .http import HttpClient
from .remote import BatchStatus, RemoteEmbedder, check_vectors

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"
KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
SHORTENABLE = ("text-embedding-3-",)  # models that accept the ``dimensions`` parameter
_STATES: dict[str, Any] = {
    "validating": "running",
    "in_progress": "running",
    "finalizing": "running",
    "cancelling": "running",
    "completed": "completed",
    "failed": "failed",
    "expired": "expired",
    "cancelled": "cancelled",
}


class OpenAIEmbedder(RemoteEmbedder):
    provider_id = "openai"
    max_inputs_per_request = 2048  # the API's limit on inputs per request
    max_tokens_per_request = 300_000  # ... and on tokens summed over a request
    batch_max_requests = 50_000  # requests per batch job

    def __init__(
        self,
        client: HttpClient,
        model: str = DEFAULT_MODEL,
        dimensions: int | None = None,
        query_timeout: float = 60.0,
    ) -> None:
        if dimensions is not None and not model.startswith(SHORTENABLE) and model in KNOWN_DIMS:
            raise ProviderError(f"openai model {model!r} does not take remote.dimensions")
        super().__init__(client, model, dimensions, KNOWN_DIMS.get(model), 8191, query_timeout)

    def _body(self, inputs: str | list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "input": inputs, "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        return body

    def _embed_request(self, texts: list[str], task: Literal["query", "document"], timeout: float | None) -> Vectors:
        answer = self.client.request(
            "POST", "embeddings", kind="embeddings", json_body=self._body(texts), timeout=timeout
        )
        return _vectors_of(answer, len(texts), self._dims, "openai embeddings")

    # -- Batch API
    def batch_submit(self, items: Sequence[tuple[str, str]]) -> str:
        lines = [
            json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/embeddings", "body": self._body(text)})
            for cid, text in items
            if text.strip()
        ]
        if not lines:
            raise ProviderError("openai batch: nothing to embed")
        upload = self.client.request(
            "POST",
            "files",
            kind="files.create",
            data={"purpose": "batch"},
            files={"file": ("memlane-embeddings.jsonl", "\n".join(lines).encode(), "application/jsonl")},
        )
        file_id = upload.get("id") if isinstance(upload, dict) else None
        if not isinstance(file_id, str):
            raise ProviderError("openai files: the upload answer has no file id")
        created = self.client.request(
            "POST",
            "batches",
            kind="batches.create",
            json_body={
                "input_file_id": file_id,
                "endpoint": "/v1/embeddings",
                "completion_window": "24h",
                "metadata": {"source": "memlane"},
            },
        )
        batch_id = created.get("id") if isinstance(created, dict) else None
        if not isinstance(batch_id, str):
            raise ProviderError("openai batches: the create answer has no batch id")
        return batch_id

    def _batch(self, job_id: str) -> dict[str, Any]:
        answer = self.client.request("GET", f"batches/{job_id}", kind="batches.retrieve")
        if not isinstance(answer, dict) or not isinstance(answer.get("status"), str):
            raise ProviderError(f"openai batches: no status for batch {job_id}")
        return answer

    def batch_status(self, job_id: str) -> BatchStatus:
        batch = self._batch(job_id)
        state = _STATES.get(batch["status"], "failed")
        errors = (batch.get("errors") or {}).get("data") or []
        detail = "; ".join(str(e.get("message", e)) for e in errors[:3] if isinstance(e, dict))
        return BatchStatus(state, detail or batch["status"])

    def batch_cancel(self, job_id: str) -> None:
        self.client.request("POST", f"batches/{job_id}/cancel", kind="batches.cancel")

    def batch_results(self, job_id: str) -> tuple[dict[str, Vectors], dict[str, str]]:
        batch = self._batch(job_id)
        vectors: dict[str, Vectors] = {}
        failed: dict[str, str] = {}
        for file_key in ("output_file_id", "error_file_id"):
            file_id = batch.get(file_key)
            if not file_id:
                continue
            text = self.client.request("GET", f"files/{file_id}/content", kind="files.content", raw=True)
            for n, line in enumerate(str(text).splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    cid = record["custom_id"]
                except (ValueError, KeyError, TypeError):
                    raise ProviderError(f"openai batch {job_id}: line {n} of {file_key} is malformed") from None
                response = record.get("response") or {}
                if record.get("error") or response.get("status_code") != 200:
                    err = record.get("error") or (response.get("body") or {}).get("error") or {}
                    failed[cid] = str(err.get("message", err) if isinstance(err, dict) else err) or "failed"
                    continue
                try:
                    vectors[cid] = _vectors_of(response.get("body"), 1, self._dims, f"openai batch {job_id}")[0]
                except ProviderError as exc:
                    failed[cid] = str(exc)
        return vectors, failed


def _vectors_of(answer: Any, expected: int, dims: int | None, who: str) -> Vectors:
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        raise ProviderError(f"{who}: the answer has no 'data' list")
    try:
        ordered = sorted(data, key=lambda d: int(d.get("index", 0)))
        rows = [d["embedding"] for d in ordered]
    except (AttributeError, KeyError, TypeError, ValueError):
        raise ProviderError(f"{who}: malformed 'data' items") from None
    return check_vectors(rows, expected, dims, who)
