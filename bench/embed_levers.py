"""Issue 29's embedding levers, each measured on the texts a real first index of a workspace embeds.

    .venv/bin/python bench/embed_levers.py --workspace DIR [--sample 1500]

First a sync of a copy of DIR runs with the real tokenizer but a model that only records what it is asked
(so the texts, their order and their chunk keys are exactly the sync's). Then a random sample of those texts
(fixed seed) goes through each way of running the int8 graph, with nothing else running, and each is
reported in texts/s, wordpieces/s and, where a way changes the vectors, the cosine to one text per call:

- ``one session, 2 threads, 1 text/call``: what sync does today;
- ``two sessions, 1 thread each, 1 text/call``: ``LocalEmbedder.embed_batch`` as the sync runs it (one queue);
- ``int8 batched by length``: 8 / 32 texts of similar length per call; activations share one scale per call,
  so a text's vector depends on its batch-mates (the cosine column says how much);
- ``fp32 batched 8``: the graph as shipped, for reference;
- each of the first two again beside a second CPU-bound process (a busy loop), as a user's machine has.

Then the texts themselves: the length distribution, how many are keys and of which kind, and what each kind
costs in wordpieces. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from multiprocessing.synchronize import Event
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


class Tap:
    """The real tokenizer, a model that records the texts and answers with random unit vectors."""

    provider_id = "local"

    def __init__(self, real: object) -> None:
        self.real = real
        self.model = "tap"
        self.dims = 384
        self.max_tokens = 256
        self.texts: list[str] = []
        self.rng = np.random.default_rng(0)

    def fingerprint(self) -> str:
        return "tap"

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.real.count_tokens(texts)  # type: ignore[attr-defined,no-any-return]

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        v = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]


def planned_texts(workspace: Path, work: Path) -> tuple[list[str], list[str], int]:
    """Every text a first index of ``workspace`` embeds, and the chunk texts among them."""
    import memlane
    from memlane.embeddings.local import LocalEmbedder

    shutil.copytree(workspace, work / "ws")
    tap = Tap(LocalEmbedder(cache_dir=str(work / "models")))
    with memlane.open(work / "ws", agent="levers", provider=tap, store={"path": str(work / "idx.sqlite")}) as mem:  # type: ignore[arg-type]
        mem.sync()
    import sqlite3

    with sqlite3.connect(work / "idx.sqlite") as db:
        chunk_texts = [r[0] for r in db.execute("SELECT text FROM chunks")]
    return tap.texts, chunk_texts, len(chunk_texts)


def busy(stop: Event) -> None:
    x = 0
    while not stop.is_set():
        for i in range(100_000):
            x += i * i


def timed(run: Callable[[list[str]], np.ndarray], sample: list[str]) -> tuple[float, np.ndarray]:
    run(sample[:16])
    t = time.perf_counter()
    out = run(sample)
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", type=Path, required=True)
    ap.add_argument("--sample", type=int, default=1500)
    ap.add_argument("--texts", type=Path, help="reuse the texts a previous run saved (JSON)")
    args = ap.parse_args()

    import onnxruntime as ort

    from memlane.embeddings.local import LocalEmbedder

    work = Path(tempfile.mkdtemp(prefix="memlane-levers-"))
    if args.texts and args.texts.exists():
        saved = json.loads(args.texts.read_text())
        texts, chunk_texts, chunks = saved["texts"], saved["chunks"], saved["n_chunks"]
    else:
        t = time.perf_counter()
        texts, chunk_texts, chunks = planned_texts(args.workspace.expanduser(), work)
        print(f"planned in {time.perf_counter() - t:.0f} s (a sync with a recording model)")
        if args.texts:
            args.texts.write_text(json.dumps({"texts": texts, "chunks": chunk_texts, "n_chunks": chunks}))
    emb = LocalEmbedder(cache_dir=str(work / "models"))
    lengths = np.array([min(n + 2, 256) for n in emb.count_tokens(texts)])
    chunk_set = set(chunk_texts)
    is_chunk = np.array([t in chunk_set for t in texts])
    print(f"\n{len(texts):,} texts ({chunks:,} chunks, {int(is_chunk.sum()):,} chunk texts, the rest keys)")
    run, in_chunks = int(lengths.sum()), int(lengths[is_chunk].sum())
    print(f"wordpieces run: {run:,} (chunks {in_chunks:,}, keys {run - in_chunks:,})")
    for lo, hi in ((0, 16), (16, 32), (32, 64), (64, 128), (128, 256), (256, 257)):
        sel = (lengths >= lo) & (lengths < hi)
        print(
            f"  {lo:>3}-{hi - 1:<3} wordpieces: {int(sel.sum()):>6} texts ({sel.mean():.0%}), "
            f"{int(lengths[sel].sum()):>10,} wordpieces"
        )
    said = [t for t in texts if t not in chunk_set]
    assistant = sum(1 for t in said if t.lower().startswith("assistant:"))
    print(f"keys starting 'assistant:' {assistant:,} of {len(said):,}")

    rng = random.Random(29)
    sample = rng.sample(texts, min(args.sample, len(texts)))
    pieces = sum(min(n + 2, 256) for n in emb.count_tokens(sample))
    from memlane.embeddings.prepare import prepared_graph

    int8 = str(prepared_graph(emb._onnx, work / "models"))
    fp32 = str(emb._onnx)

    def session(path: str, threads: int) -> object:
        o = ort.SessionOptions()
        o.intra_op_num_threads = threads
        o.log_severity_level = 3
        return ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])

    emb.embed_query("load the graph: the sessions below are run through the embedder's own _run")

    def run_with(sess: object, batch: list[str]) -> np.ndarray:
        return emb._run(batch, sess)

    def batched(sess: object, size: int) -> Callable[[list[str]], np.ndarray]:
        def run(data: list[str]) -> np.ndarray:
            order = sorted(range(len(data)), key=lambda i: len(data[i]))
            out = np.zeros((len(data), 384), dtype=np.float32)
            for i in range(0, len(order), size):
                idx = order[i : i + size]
                out[idx] = run_with(sess, [data[j] for j in idx])
            return out

        return run

    one = batched(session(int8, 2), 1)
    pair = LocalEmbedder(threads=2, cache_dir=str(work / "models"))  # what the sync runs
    ways: list[tuple[str, Callable[[list[str]], np.ndarray]]] = [
        ("one session, 2 threads, 1 text/call", one),
        ("two sessions, 1 thread each, 1 text/call", pair.embed_batch),
        ("int8 batched by length, 8/call", batched(session(int8, 2), 8)),
        ("int8 batched by length, 32/call", batched(session(int8, 2), 32)),
        ("fp32 batched by length, 8/call", batched(session(fp32, 2), 8)),
    ]
    print(f"\nsample: {len(sample)} texts, {pieces:,} wordpieces; each way once, nothing else running")
    first_secs, base = timed(one, sample)
    for name, run in ways:
        secs, vecs = (first_secs, base) if run is one else timed(run, sample)
        cos = np.sum(vecs * base, axis=1)
        print(
            f"  {name:<42} {len(sample) / secs:7.1f} texts/s {pieces / secs:8,.0f} wordpieces/s  "
            f"x{first_secs / secs:.2f}  cosine to 1/call: median {np.median(cos):.4f} min {cos.min():.4f}"
        )
    stop = multiprocessing.Event()
    hog = multiprocessing.Process(target=busy, args=(stop,), daemon=True)
    hog.start()
    try:
        print("beside a busy second process:")
        for name, run in ways[:2]:
            secs, _ = timed(run, sample)
            print(f"  {name:<42} {len(sample) / secs:7.1f} texts/s {pieces / secs:8,.0f} wordpieces/s")
    finally:
        stop.set()
        hog.join()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
