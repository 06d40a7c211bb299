"""LoCoMo retrieval quality through the memlane library: keyword-only, vector-only and hybrid.

    .venv/bin/python bench/locomo.py                       # all 10 conversations, categories 1-4
    .venv/bin/python bench/locomo.py --convs conv-26 conv-30 --modes hybrid
    # LongMemEval: convert with ../shared/bench/longmemeval/lme_to_workspace.py into .bench/lme/workspaces, then
    .venv/bin/python bench/locomo.py --work .bench/lme

Converts ../shared/bench/locomo/locomo10.json into workspaces (once, under .bench/), indexes
each with the configured provider (default: the bundled local model), ranks every question
with min_score 0 in each mode over the same index, and scores the results with the shared
score.py (R@k, MRR@10, full-evidence recall, lines per result). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import memlane
from memlane.search.ranking import rank
from memlane.search.rerank import make_reranker

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "bench" / "locomo"
LME = ROOT.parent / "shared" / "bench" / "longmemeval"


def convert(data: Path, out: Path) -> None:
    if (out / "summary.json").exists() or any(out.glob("*/queries.jsonl")):
        return
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(SHARED / "to_workspace.py"), str(data), str(out)], check=True, stdout=subprocess.DEVNULL
    )


def on_postgres(ws: Path, sqlite_path: Path, pg_url: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Store settings for ``ws`` on PostgreSQL: its SQLite index (built or refreshed first) copied into the
    ``bench`` schema, so the vectors come along and nothing is embedded again."""
    from memlane.store.migrate import copy_index
    from memlane.store.postgres import PostgresStore

    with memlane.open(ws, agent=ws.name, **{"store": {"path": str(sqlite_path)}, **overrides}) as mem:
        mem.sync()
        source = mem.store
        target = PostgresStore(pg_url, ws.name, "bench")
        try:
            assert isinstance(source, memlane.store.SQLiteStore)
            copy_index(source, target, replace=True)
        finally:
            target.close()
    return {"driver": "postgres", "url": pg_url, "schema": "bench"}


def run_conv(
    ws: Path,
    store_dir: Path,
    modes: list[str],
    topk: int,
    overrides: dict[str, Any],
    lat: dict[str, list[float]],
    pg_url: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    queries = [json.loads(line) for line in (ws / "queries.jsonl").read_text().splitlines() if line.strip()]
    sqlite_path = store_dir / f"{ws.name}.sqlite"
    store = on_postgres(ws, sqlite_path, pg_url, overrides) if pg_url else {"path": str(sqlite_path)}
    settings = {"store": store, **overrides}
    out: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    with memlane.open(ws, agent=ws.name, **settings) as mem:
        mem.sync()
        q_settings = mem.settings.query
        provider = mem.choice.provider
        vectors = mem._vector_index() if provider else None
        reranker = make_reranker(q_settings.rerank, ws)  # query.rerank (--set), None by default
        for q in queries:
            qvec = provider.embed_query(q["question"]) if provider else None
            now = question_date(q)
            for mode in modes:
                t = time.perf_counter()
                settings = q_settings
                if mode == "vector":
                    settings = q_settings.model_copy(
                        update={"hybrid": q_settings.hybrid.model_copy(update={"enabled": False})}
                    )
                keyword = mode == "keyword"
                results, _ = rank(
                    mem.store,
                    q["question"],
                    None if keyword else qvec,
                    None if keyword else vectors,
                    settings,
                    topk,
                    0.0,
                    now,
                    reranker,
                )
                lat[mode].append((time.perf_counter() - t) * 1000)
                out[mode].append({"qid": q["qid"], "results": [r.to_dict() for r in results]})
    return out


def convert_lme(data: Path, out: Path, pooled: bool) -> None:
    """LongMemEval as memlane workspaces under ``out`` (once): a workspace per question, or one for all."""
    if out.exists():
        return
    cmd = [sys.executable, str(LME / "lme_to_workspace.py"), str(data), str(out), *(["--pooled"] if pooled else [])]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def question_date(q: dict[str, Any]) -> dt.datetime | None:
    """LongMemEval's ``question_date`` ("2023/05/30 (Tue) 22:42"): the present of the question."""
    m = re.match(r"(\d{4})/(\d{1,2})/(\d{1,2})\D+(\d{1,2}):(\d{2})", q.get("question_date") or "")
    return dt.datetime(*(int(g) for g in m.groups())) if m else None  # type: ignore[arg-type]


def score(queries_dir: Path, results: Path, extra: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(SHARED / "score.py"), str(queries_dir), str(results), "--json", *extra],
        check=True,
        capture_output=True,
        text=True,
    )
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


# LoCoMo's ten conversations in two halves: levers are tuned on the first and confirmed on the second.
TUNE = ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
SUITES = ("locomo-tune", "locomo-confirm", "locomo-pooled", "lme", "lme-pooled")


def pool_locomo(workspaces: list[Path], out: Path) -> None:
    """All conversations in one workspace (memory/<conv>/<day>.md), their questions pointed at the new paths:
    ~7,500 chunks, past the size where the keyword query drops common terms (search.PRUNE_MIN_CHUNKS)."""
    if (out / "queries.jsonl").exists():
        return
    lines = []
    for ws in workspaces:
        for log in sorted((ws / "memory").glob("*.md")):
            target = out / "memory" / ws.name / log.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(log.read_text())
        for line in (ws / "queries.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            q = json.loads(line)
            for e in q.get("expected", []):
                e["path"] = e["path"].replace("memory/", f"memory/{ws.name}/", 1)
            q.pop("expected_transcript", None)
            lines.append(json.dumps(q))
    (out / "queries.jsonl").write_text("\n".join(lines) + "\n")


def suite_workspaces(name: str, args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """The work folder of a suite and its workspaces, converted on first use."""
    if name.startswith("locomo"):
        work = args.work
        convert(args.data, work / "workspaces")
        convs = sorted(p for p in (work / "workspaces").iterdir() if (p / "queries.jsonl").exists())
        if name == "locomo-pooled":
            pooled = work / "pooled" / "locomo-pooled"
            pool_locomo(convs, pooled)
            return work, [pooled]
        convs = [p for p in convs if (p.name in TUNE) == (name == "locomo-tune")]
        if args.convs:
            convs = [p for p in convs if p.name in args.convs]
        return work, convs
    pooled = name == "lme-pooled"
    work = args.lme_work / ("pooled" if pooled else "turns")
    convert_lme(args.lme_data, work / "workspaces", pooled)
    wss = sorted(p for p in (work / "workspaces").iterdir() if (p / "queries.jsonl").exists())
    if args.lme_every > 1 and not pooled:
        wss = wss[:: args.lme_every]
    return work, wss


def run_suite(name: str, args: argparse.Namespace, overrides: dict[str, Any]) -> None:
    work, wss = suite_workspaces(name, args)
    store_dir = work / "stores"
    store_dir.mkdir(parents=True, exist_ok=True)
    lat: dict[str, list[float]] = {m: [] for m in args.modes}
    per_mode: dict[str, list[dict[str, Any]]] = {m: [] for m in args.modes}
    t0 = time.perf_counter()
    for ws in wss:
        for mode, rows in run_conv(ws, store_dir, args.modes, args.topk, overrides, lat, args.pg_url).items():
            per_mode[mode].extend(rows)
    qdir = work / "queries" / name
    qdir.mkdir(parents=True, exist_ok=True)
    for old in qdir.iterdir():
        (old / "queries.jsonl").unlink(missing_ok=True)
    for ws in wss:  # score only the selected workspaces
        (qdir / ws.name).mkdir(exist_ok=True)
        (qdir / ws.name / "queries.jsonl").write_text((ws / "queries.jsonl").read_text())
    n = len(per_mode[args.modes[0]])
    print(f"\n{name}: {len(wss)} workspaces, {n} questions, {time.perf_counter() - t0:.1f}s")
    print(
        f"{'mode':8} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'EvR@10':>7} {'mh R@5':>7} {'mh EvR@10':>9} "
        f"{'lines/res':>9} {'p50 ms':>7}"
    )
    extra = ["--md-only"] if args.md_only else []
    for mode in args.modes:
        path = work / f"results-{name}-{mode}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in per_mode[mode]))
        rep = score(qdir, path, extra)
        o = rep["overall"]
        mh = next((v for k, v in rep["by_category"].items() if "multi" in k), None) or {}
        print(
            f"{mode:8} {o['R@1']:6.3f} {o['R@5']:6.3f} {o['R@10']:6.3f} {o['MRR']:6.3f} {o['EvR@10']:7.3f} "
            f"{mh.get('R@5', float('nan')):7.3f} {mh.get('EvR@10', float('nan')):9.3f} {o['lines/res@10']:9.1f} "
            f"{median(lat[mode]):7.2f}"
        )
        if args.by_category:
            for cat, v in rep["by_category"].items():
                n = v.get("n", "?")
                print(f"  {cat:28} n={n:<4} R@5 {v['R@5']:.3f}  MRR {v['MRR']:.3f}  EvR@10 {v['EvR@10']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED / "locomo10.json")
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "locomo")
    ap.add_argument("--lme-data", type=Path, default=LME / "longmemeval_s_cleaned.subset60.json")
    ap.add_argument("--lme-work", type=Path, default=ROOT / ".bench" / "lme")
    ap.add_argument("--lme-every", type=int, default=1, help="every Nth LongMemEval question (a quick subset)")
    ap.add_argument("--suites", nargs="*", default=["locomo-tune", "locomo-confirm", "lme"], choices=SUITES)
    ap.add_argument("--convs", nargs="*", default=[])
    ap.add_argument("--modes", nargs="*", default=["keyword", "vector", "hybrid"])
    ap.add_argument("--topk", type=int, default=10)
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        help='memorySearch override as JSON, e.g. \'{"query": {"hybrid": {"fusion": "rrf"}}}\'',
    )
    ap.add_argument("--md-only", action="store_true", help="count only Markdown evidence lines")
    ap.add_argument(
        "--pg-url", help="rank on PostgreSQL at this URL (each SQLite index copied into schema 'bench' first)"
    )
    ap.add_argument("--by-category", action="store_true", help="also print a row per question category")
    args = ap.parse_args()

    overrides: dict[str, Any] = {}
    for s in args.sets:
        _merge(overrides, json.loads(s))
    for name in args.suites:
        run_suite(name, args, overrides)


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


if __name__ == "__main__":
    main()
