"""A real HTTP server on 127.0.0.1 speaking the OpenAI and Gemini embedding wire protocols.

OpenAI: ``POST /v1/embeddings``, ``POST /v1/chat/completions`` (scripted replies), ``POST /v1/rerank`` (Jina
and Cohere's format; relevance from ``rerank_boost``), ``POST /v1/files``
(multipart), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``.
Gemini: ``POST /v1beta/models/{m}:embedContent``, ``:batchEmbedContents``, ``:asyncBatchEmbedContent``,
``GET /v1beta/batches/{id}``, ``POST /v1beta/batches/{id}:cancel``.

Vectors are deterministic bags of hashed words, so search over them behaves sensibly. Every request
is recorded; ``faults`` injects failures per request kind; batch jobs advance one state per poll
and end as ``batch_outcomes`` says (``complete``, ``fail``, ``expire``). Texts containing
``FAIL_ITEM`` fail inside a batch job.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def vector(text: str, dims: int) -> list[float]:
    v = np.zeros(dims, dtype=np.float64)
    for word in re.findall(r"\w+", text.lower()):
        v[int(hashlib.md5(word.encode()).hexdigest(), 16) % dims] += 1.0
    norm = float(np.linalg.norm(v)) or 1.0
    return [round(float(x) / norm, 6) for x in v]


@dataclass
class Fault:
    kind: str  # request kind, e.g. "embeddings", "batchEmbedContents", "batches.retrieve", "*"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # raw body to send instead of the real answer
    delay: float = 0.0  # seconds to sleep before answering
    wrong_dims: bool = False
    too_few: bool = False
    nan: bool = False


@dataclass
class Seen:
    method: str
    path: str
    kind: str
    headers: dict[str, str]
    body: Any


class VendorState:
    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.faults: list[Fault] = []
        self.batch_outcomes: list[str] = []  # consumed per batch job created; default "complete"
        self.chat_replies: list[str] = []  # chat completions answer these, in order
        self.rerank_boost: dict[str, float] = {}  # /rerank: a document's relevance is the sum of its words' boosts
        self.polls_to_finish = 2
        self.files: dict[str, str] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def take_fault(self, kind: str) -> Fault | None:
        with self.lock:
            for i, f in enumerate(self.faults):
                if f.kind in (kind, "*"):
                    return self.faults.pop(i)
        return None

    def count(self, kind: str) -> int:
        return sum(1 for r in self.requests if r.kind == kind)

    def texts_sent(self, kind: str) -> list[str]:
        out: list[str] = []
        for r in self.requests:
            if r.kind != kind or not isinstance(r.body, dict):
                continue
            if kind == "embeddings":
                inp = r.body.get("input")
                out.extend(inp if isinstance(inp, list) else [inp])
            elif kind == "batchEmbedContents":
                out.extend(q["content"]["parts"][0]["text"] for q in r.body["requests"])
            elif kind == "embedContent":
                out.append(r.body["content"]["parts"][0]["text"])
        return out


def _openai_dims(body: dict[str, Any]) -> int:
    return int(body.get("dimensions") or {"text-embedding-3-large": 3072}.get(body.get("model", ""), 1536))


class Handler(BaseHTTPRequestHandler):
    server: VendorServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- plumbing
    def _read(self) -> tuple[bytes, Any]:
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        ctype = self.headers.get("content-type", "")
        if ctype.startswith("multipart/form-data"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"content-type: " + ctype.encode() + b"\r\n\r\n" + raw
            )
            parts = {}
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                parts[name] = part.get_payload(decode=True).decode()
            return raw, parts
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, raw.decode(errors="replace")

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None, raw: str | None = None) -> None:
        data = (raw if raw is not None else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _kind(self, method: str, path: str) -> str:
        if path.startswith("/v1/"):
            rest = path[4:]
            if rest == "embeddings":
                return "embeddings"
            if rest == "chat/completions":
                return "chat.completions"
            if rest == "rerank":
                return "rerank"
            if rest == "files":
                return "files.create"
            if rest.startswith("files/") and rest.endswith("/content"):
                return "files.content"
            if rest == "batches":
                return "batches.create"
            if rest.startswith("batches/") and rest.endswith("/cancel"):
                return "batches.cancel"
            if rest.startswith("batches/"):
                return "batches.retrieve"
        if path.startswith("/v1beta/"):
            rest = path[8:]
            for suffix in ("embedContent", "batchEmbedContents", "asyncBatchEmbedContent"):
                if rest.endswith(":" + suffix):
                    return suffix
            if rest.endswith(":cancel"):
                return "batches.cancel"
            if rest.startswith("batches/"):
                return "batches.get"
        return "unknown"

    def _handle(self, method: str) -> None:
        state = self.server.state
        path = self.path.split("?", 1)[0]
        _raw, body = self._read()
        kind = self._kind(method, path)
        with state.lock:
            state.requests.append(Seen(method, self.path, kind, {k.lower(): v for k, v in self.headers.items()}, body))
        fault = state.take_fault(kind)
        if fault and fault.delay:
            time.sleep(fault.delay)
        if fault and (fault.status != 200 or fault.body is not None):
            self._send(fault.status, {"error": {"message": f"injected {fault.status}"}}, fault.headers, fault.body)
            return
        try:
            status, payload, rawtext = self._route(method, path, kind, body, fault)
        except KeyError as exc:
            status, payload, rawtext = 404, {"error": {"message": f"not found: {exc}"}}, None
        self._send(status, payload, raw=rawtext)

    def do_POST(self) -> None:
        self._handle("POST")

    def do_GET(self) -> None:
        self._handle("GET")

    # -- the vendors
    def _route(self, method: str, path: str, kind: str, body: Any, fault: Fault | None) -> tuple[int, Any, str | None]:
        state = self.server.state
        if kind == "chat.completions":  # answers with the next scripted reply
            content = state.chat_replies.pop(0) if state.chat_replies else ""
            message = {"role": "assistant", "content": content}
            return 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                         "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}, None  # fmt: skip
        if kind == "rerank":  # Jina's and Cohere's shared format
            docs = body["documents"]
            relevance = [sum(state.rerank_boost.get(w, 0.0) for w in re.findall(r"\w+", d.lower())) for d in docs]
            order = sorted(range(len(docs)), key=lambda i: -relevance[i])[: body.get("top_n", len(docs))]
            return 200, {"id": "rr-1", "results": [{"index": i, "relevance_score": relevance[i]} for i in order]}, None
        if kind == "embeddings":
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            if any(not t for t in inputs):
                return 400, {"error": {"message": "'$.input' is invalid: empty string"}}, None
            dims = _openai_dims(body)
            vecs = [vector(t, dims) for t in inputs]
            vecs = _damage(vecs, fault)
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)]
            return 200, {"object": "list", "data": data, "model": body["model"], "usage": {}}, _nan(data, fault)
        if kind == "files.create":
            fid = f"file-{next(state.ids)}"
            state.files[fid] = body["file"]
            return 200, {"id": fid, "object": "file", "purpose": body.get("purpose")}, None
        if kind == "files.content":
            return 200, None, state.files[path.split("/")[3]]
        if kind == "batches.create":
            bid = f"batch_{next(state.ids)}"
            outcome = state.batch_outcomes.pop(0) if state.batch_outcomes else "complete"
            state.batches[bid] = {"id": bid, "status": "validating", "polls": 0, "outcome": outcome, "req": body}
            return 200, self._openai_batch(bid), None
        if kind == "batches.retrieve":
            bid = path.split("/")[3]
            self._advance_openai(bid)
            return 200, self._openai_batch(bid), None
        if kind == "batches.cancel" and path.startswith("/v1/"):
            bid = path.split("/")[3]
            state.batches[bid]["status"] = "cancelled"
            return 200, self._openai_batch(bid), None
        if kind == "embedContent":
            dims = int(body.get("outputDimensionality") or 3072)
            vecs = _damage([vector(body["content"]["parts"][0]["text"], dims)], fault)
            return 200, {"embedding": {"values": vecs[0]}}, None
        if kind == "batchEmbedContents":
            reqs = body["requests"]
            if len(reqs) > 100:
                return 400, {"error": {"message": "at most 100 requests can be in one batch"}}, None
            vecs = [vector(r["content"]["parts"][0]["text"], int(r.get("outputDimensionality") or 3072)) for r in reqs]
            vecs = _damage(vecs, fault)
            return 200, {"embeddings": [{"values": v} for v in vecs]}, None
        if kind == "asyncBatchEmbedContent":
            bid = f"batches/{next(state.ids)}"
            outcome = state.batch_outcomes.pop(0) if state.batch_outcomes else "complete"
            state.batches[bid] = {
                "name": bid,
                "state": "BATCH_STATE_PENDING",
                "polls": 0,
                "outcome": outcome,
                "req": body,
            }
            return 200, self._gemini_op(bid), None
        if kind == "batches.get":
            bid = path[len("/v1beta/") :]
            self._advance_gemini(bid)
            return 200, self._gemini_op(bid), None
        if kind == "batches.cancel":
            bid = path[len("/v1beta/") :].removesuffix(":cancel")
            state.batches[bid]["state"] = "BATCH_STATE_CANCELLED"
            return 200, {}, None
        return 404, {"error": {"message": f"no route for {method} {path}"}}, None

    # OpenAI batches
    def _openai_batch(self, bid: str) -> dict[str, Any]:
        b = self.server.state.batches[bid]
        out = {k: v for k, v in b.items() if k not in ("polls", "outcome", "req")}
        out.update(object="batch", endpoint="/v1/embeddings", input_file_id=b["req"]["input_file_id"])
        return out

    def _advance_openai(self, bid: str) -> None:
        state = self.server.state
        b = state.batches[bid]
        if b["status"] not in ("validating", "in_progress", "finalizing"):
            return
        b["polls"] += 1
        if b["polls"] < state.polls_to_finish:
            b["status"] = "in_progress"
            return
        lines = [json.loads(line) for line in state.files[b["req"]["input_file_id"]].splitlines() if line.strip()]
        if b["outcome"] == "fail":
            b["status"] = "failed"
            b["errors"] = {"data": [{"code": "invalid_request", "message": "injected batch failure"}]}
            return
        if b["outcome"] == "expire":
            b["status"] = "expired"
            lines = lines[: len(lines) // 2]  # only half finished before the window closed
        else:
            b["status"] = "completed"
        ok, bad = [], []
        for line in lines:
            text = line["body"]["input"]
            if "FAIL_ITEM" in text:
                bad.append(
                    {
                        "id": "r",
                        "custom_id": line["custom_id"],
                        "response": {"status_code": 400, "body": {"error": {"message": "injected item failure"}}},
                        "error": None,
                    }
                )
                continue
            emb = {"object": "list", "data": [{"index": 0, "embedding": vector(text, _openai_dims(line["body"]))}]}
            ok.append(
                {
                    "id": "r",
                    "custom_id": line["custom_id"],
                    "response": {"status_code": 200, "body": emb},
                    "error": None,
                }
            )
        if ok:
            fid = f"file-{next(state.ids)}"
            state.files[fid] = "\n".join(json.dumps(x) for x in ok) + "\n"
            b["output_file_id"] = fid
        if bad:
            fid = f"file-{next(state.ids)}"
            state.files[fid] = "\n".join(json.dumps(x) for x in bad) + "\n"
            b["error_file_id"] = fid

    # Gemini batches
    def _gemini_op(self, bid: str) -> dict[str, Any]:
        b = self.server.state.batches[bid]
        done = b["state"] not in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING")
        op: dict[str, Any] = {
            "name": bid,
            "metadata": {"@type": "EmbedContentBatch", "state": b["state"]},
            "done": done,
        }
        if "output" in b:
            op["response"] = {"@type": "EmbedContentBatch", "output": b["output"]}
        if b["state"] == "BATCH_STATE_FAILED":
            op["error"] = {"code": 13, "message": "injected batch failure"}
        return op

    def _advance_gemini(self, bid: str) -> None:
        state = self.server.state
        b = state.batches[bid]
        if b["state"] not in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"):
            return
        b["polls"] += 1
        if b["polls"] < state.polls_to_finish:
            b["state"] = "BATCH_STATE_RUNNING"
            return
        if b["outcome"] == "fail":
            b["state"] = "BATCH_STATE_FAILED"
            return
        b["state"] = "BATCH_STATE_EXPIRED" if b["outcome"] == "expire" else "BATCH_STATE_SUCCEEDED"
        responses = []
        for item in b["req"]["batch"]["inputConfig"]["requests"]["requests"]:
            req = item["request"]
            text = req["content"]["parts"][0]["text"]
            if "FAIL_ITEM" in text:
                responses.append(
                    {"error": {"code": 3, "message": "injected item failure"}, "metadata": item["metadata"]}
                )
            else:
                dims = int(req.get("outputDimensionality") or 3072)
                responses.append(
                    {"response": {"embedding": {"values": vector(text, dims)}}, "metadata": item["metadata"]}
                )
        if b["outcome"] != "expire":
            b["output"] = {"inlinedResponses": {"inlinedResponses": responses}}


def _damage(vecs: list[list[float]], fault: Fault | None) -> list[list[float]]:
    if fault is None:
        return vecs
    if fault.wrong_dims:
        return [v[: len(v) // 2] for v in vecs]
    if fault.too_few:
        return vecs[:-1]
    return vecs


def _nan(data: list[dict[str, Any]], fault: Fault | None) -> str | None:
    if fault is None or not fault.nan:
        return None
    data[0]["embedding"][0] = float("nan")
    return json.dumps({"object": "list", "data": data})  # Python writes NaN, as a broken server might


class VendorServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.state = VendorState()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> VendorServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
