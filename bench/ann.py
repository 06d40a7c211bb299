"""Approximate nearest neighbours on real vectors: which library, which settings (issue 10).

    .venv/bin/pip install hnswlib usearch      # candidates, not memlane dependencies (yet)
    .venv/bin/python bench/ann.py [--store .bench/lme/pooled/stores/pooled.sqlite]

Reads every vector of an index built with the real model (default: the pooled LongMemEval index that
``bench/locomo.py --suites lme-pooled`` builds, ~92k chunk and key vectors), embeds 500 real questions and
user turns as queries, and reports recall@10 against exact cosine, per-query latency, build time and
memory for each library and setting. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memlane.embeddings.local import LocalEmbedder

ROOT = Path(__file__).resolve().parents[1]
LME = ROOT.parent / "shared" / "bench" / "longmemeval" / "longmemeval_s_cleaned.subset60.json"
K = 10


def queries(pooled: Path, n: int = 500) -> list[str]:
    """The 60 real questions, then real user turns (20-300 characters) up to ``n``."""
    out = [json.loads(x)["question"] for x in (pooled / "queries.jsonl").read_text().splitlines() if x.strip()]
    for item in json.loads(LME.read_text()):
        for session in item["haystack_sessions"][:3]:
            out += [t["content"] for t in session if t["role"] == "user" and 20 < len(t["content"]) < 300]
    return out[:n]


def recall(found: list[npt.NDArray[np.int64]], exact: npt.NDArray[np.int64]) -> float:
    return float(np.mean([len(set(f.tolist()) & set(g.tolist())) / K for f, g in zip(found, exact, strict=True)]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, default=ROOT / ".bench" / "lme" / "pooled" / "stores" / "pooled.sqlite")
    ap.add_argument("--workspace", type=Path, default=ROOT / ".bench" / "lme" / "pooled" / "workspaces" / "pooled")
    args = ap.parse_args()
    conn = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    blobs = [r[0] for r in conn.execute("SELECT embedding FROM embedding_cache")]
    x = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1).copy()
    n, dims = x.shape
    emb = LocalEmbedder()
    q = np.stack([emb.embed_query(t) for t in queries(args.workspace)])
    t = time.perf_counter()
    exact = np.argsort(-(q @ x.T), axis=1)[:, :K]
    exact_ms = (time.perf_counter() - t) / len(q) * 1000
    print(
        f"{n} real vectors ({dims}-d), {len(q)} real queries; exact numpy: {exact_ms:.2f} ms/query, "
        f"{x.nbytes / 1e6:.0f} MB of float32"
    )
    try:
        import hnswlib
        from usearch.index import Index
    except ImportError as exc:
        print(f"not installed: {exc.name} (pip install hnswlib usearch)")
        return
    for m in (16, 32):
        index = hnswlib.Index(space="ip", dim=dims)
        t = time.perf_counter()
        index.init_index(max_elements=n, ef_construction=200, M=m)
        index.add_items(x, np.arange(n))
        build = time.perf_counter() - t
        for ef in (50, 100, 200):
            index.set_ef(ef)
            lat, found = [], []
            for row in q:
                t = time.perf_counter()
                labels, _ = index.knn_query(row, k=K)
                lat.append((time.perf_counter() - t) * 1000)
                found.append(labels[0])
            print(
                f"hnswlib M={m} efC=200 ef={ef}: build {build:.1f}s, recall@10 {recall(found, exact):.4f}, "
                f"p50 {statistics.median(lat):.3f} ms"
            )
    for dtype in ("f32", "i8"):
        uindex = Index(ndim=dims, metric="ip", dtype=dtype, connectivity=16, expansion_add=128)
        t = time.perf_counter()
        uindex.add(np.arange(n), x)
        build = time.perf_counter() - t
        for ef in (64, 128, 256):
            uindex.expansion_search = ef
            lat, found = [], []
            for row in q:
                t = time.perf_counter()
                hits = uindex.search(row, K)
                lat.append((time.perf_counter() - t) * 1000)
                found.append(np.asarray(hits.keys))
            print(
                f"usearch {dtype} M=16 ef={ef}: build {build:.1f}s, recall@10 {recall(found, exact):.4f}, "
                f"p50 {statistics.median(lat):.3f} ms, index {uindex.memory_usage / 1e6:.0f} MB"
            )
        if dtype == "i8":  # the int8 graph finds candidates; exact float cosine ranks 4 x K of them
            uindex.expansion_search = 128
            lat, found = [], []
            for row in q:
                t = time.perf_counter()
                cand = np.asarray(uindex.search(row, 4 * K).keys)
                found.append(cand[np.argsort(-(x[cand] @ row))[:K]])
                lat.append((time.perf_counter() - t) * 1000)
            print(
                f"usearch i8 ef=128, top {4 * K} rescored exactly: recall@10 {recall(found, exact):.4f}, "
                f"p50 {statistics.median(lat):.3f} ms (float rows from RAM here; from the index file in a product)"
            )


if __name__ == "__main__":
    main()
