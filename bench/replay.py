"""Replay the fusion: every question's candidates with their signals, saved once, re-ranked by variants in seconds.

    .venv/bin/python bench/replay.py dump     # after bench/locomo.py built the stores of its suites
    .venv/bin/python bench/replay.py run      # the variants below: LoCoMo halves, LongMemEval turn level and pooled

``dump`` runs the real ranking (``search._score``, then the priors) over the indexes ``bench/locomo.py`` left
under ``.bench/`` and records, per candidate chunk, the signals the fusion combines: the chunk's own cosine,
its keys' cosines (an assistant's already weighted), the fused vector and text scores (the text score is both
BM25 legs, each scaled by its best) and the priors' bonus. ``run`` re-ranks those lists
with each variant, widens them to result windows as ``search._widen`` does and scores R@5 / MRR@10 /
full-evidence recall@10 on the Markdown evidence lines. Its first row, the defaults, reproduces
``bench/locomo.py``'s figures exactly (checked when this was written: LoCoMo 0.924 / 0.812, LongMemEval turn
level 0.950 / 0.801, pooled 0.750 / 0.606), so a variant that moves nothing here would move nothing there.
Only the order of the ~80 candidates is replayed: a variant that would bring new candidates needs the real
bench. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import memlane
import memlane.search.ranking as search
from memlane.search.priors import apply_priors

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import question_date

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / ".bench"
OUT = BENCH / "replay"
TUNE = {"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}  # bench/locomo.py's locomo-tune half
SUITES = {  # name: (workspaces, stores)
    "locomo": (BENCH / "locomo" / "workspaces", BENCH / "locomo" / "stores"),
    "lme": (BENCH / "lme" / "turns" / "workspaces", BENCH / "lme" / "turns" / "stores"),
    "lme-pooled": (BENCH / "lme" / "pooled" / "workspaces", BENCH / "lme" / "pooled" / "stores"),
}
WINDOW = 11
TOP = 10


@contextlib.contextmanager
def recording(signals: dict[int, dict[str, Any]]) -> Iterator[None]:
    """While open, ``search`` records each candidate's own cosine and its keys' cosines in ``signals``."""
    score_keys = search._score_keys

    def keys(candidates: dict[int, Any], scorer: Any, query_vec: Any, weight: float, assistant_weight: float) -> None:
        owners, assistant, embedded, cosines = scorer(list(candidates), query_vec)
        sims = np.where(assistant, assistant_weight, 1.0) * cosines
        for owner, sim, ready in zip(owners.tolist(), sims.tolist(), embedded.tolist(), strict=True):
            if ready:
                signals.setdefault(owner, {}).setdefault("keys", []).append(round(sim, 5))
        for seq, c in candidates.items():
            signals.setdefault(seq, {})["own"] = c.vector
        score_keys(candidates, scorer, query_vec, weight, assistant_weight)

    search._score_keys = keys  # type: ignore[assignment]
    try:
        yield
    finally:
        search._score_keys = score_keys


def dump_workspace(ws: Path, store: Path, out: Any) -> int:
    queries = [json.loads(line) for line in (ws / "queries.jsonl").read_text().splitlines() if line.strip()]
    written = 0
    with memlane.open(ws, agent=ws.name, store={"path": str(store)}) as mem:
        mem.sync()
        settings, provider = mem.settings.query, mem.choice.provider
        assert provider is not None, "the benchmarks rank with the bundled model"
        vectors = mem._vector_index()
        for q in queries:
            if str(q.get("category")) == "5" or not q.get("expected"):
                continue
            signals: dict[int, dict[str, Any]] = {}
            qvec = provider.embed_query(q["question"])
            with recording(signals):
                ranked, _ = search._score(
                    mem.store, q["question"], qvec, vectors, settings.hybrid, TOP * settings.hybrid.candidate_multiplier
                )
            rows = mem.store.chunks_by_seq(c.seq for c in ranked)
            fused = {c.seq: (c.vector, c.text, c.score) for c in ranked}
            ranked = apply_priors(
                ranked, {s: r.path for s, r in rows.items()}, settings.priors, q["question"], question_date(q)
            )
            cands = []
            for c in ranked:
                row = rows.get(c.seq)
                if row is None:
                    continue
                vec, text, score = fused[c.seq]
                sig = signals.get(c.seq, {})
                cands.append(
                    {
                        "path": row.path,
                        "start": row.start_line,
                        "end": row.end_line,
                        "vec": vec,
                        "text": text,
                        "prior": c.score - score,
                        "own": sig.get("own", vec),
                        "keys": sorted(sig.get("keys", []), reverse=True),
                    }
                )
            last = {p: mem.store.last_line(p) for p in {c["path"] for c in cands}}
            record = {
                "ws": ws.name,
                "qid": q["qid"],
                "cat": str(q.get("category")),
                "question": q["question"],
                "expected": [e for e in q["expected"] if not e["path"].startswith("sessions/")],
                "last": last,
                "cands": cands,
            }
            out.write(json.dumps(record) + "\n")
            written += 1
    return written


def dump() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (workspaces, stores) in SUITES.items():
        if not workspaces.is_dir():
            print(f"{name}: no workspaces under {workspaces} (run bench/locomo.py first)")
            continue
        with (OUT / f"{name}.jsonl").open("w") as out:
            n = sum(
                dump_workspace(ws, stores / f"{ws.name}.sqlite", out)
                for ws in sorted(p for p in workspaces.iterdir() if (p / "queries.jsonl").exists())
            )
        print(f"{name}: {n} questions")


@dataclass
class Figures:
    r5: float
    mrr: float
    evr: float
    multi_hop_evr: float | None  # LoCoMo category 1 (multi-hop): the full-evidence target
    counts: tuple[int, int, int, int] = (0, 0, 0, 0)  # evidence found, in all, and the same for multi-hop


def windows(rec: dict[str, Any], order: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """The top result windows of ``order``, as ``search._widen`` makes them (less its trimming of blank edges)."""
    taken: list[tuple[str, int, int]] = []
    for c in order:
        path, s, e = c["path"], c["start"], c["end"]
        middle = (s + e) // 2
        if any(p == path and a <= middle <= z for p, a, z in taken):
            continue
        shown = [(a, z) for p, a, z in taken if p == path]
        taken.append((path, *search.widen_span(s, e, rec["last"][path], WINDOW, shown)))
        if len(taken) == TOP:
            break
    return taken


Score = Callable[[dict[str, Any], dict[str, Any]], float]  # (candidate, its question) -> score
Variant = Callable[[list[dict[str, Any]]], Figures]  # questions -> their figures


def _covers(path: str, start: int, end: int, evidence: dict[str, Any]) -> bool:
    return path == evidence["path"] and start <= evidence.get("endLine", evidence["line"]) and end >= evidence["line"]


def evaluate(records: list[dict[str, Any]], score: Score) -> Figures:
    n = hits5 = 0
    mrr = 0.0
    found = total = mh_found = mh_total = 0
    for rec in records:
        if not rec["expected"]:
            continue
        shown = windows(rec, sorted(rec["cands"], key=lambda c: -score(c, rec)))
        rank = next((i + 1 for i, w in enumerate(shown) if any(_covers(*w, e) for e in rec["expected"])), None)
        n += 1
        hits5 += rank is not None and rank <= 5
        mrr += 1 / rank if rank else 0.0
        covered = sum(any(_covers(*w, e) for w in shown) for e in rec["expected"])
        found += covered
        total += len(rec["expected"])
        if rec["cat"] == "1":
            mh_found += covered
            mh_total += len(rec["expected"])
    mh = mh_found / mh_total if mh_total else None
    return Figures(hits5 / n, mrr / n, found / total, mh, (found, total, mh_found, mh_total))


def fused(
    wv: float = 0.7,
    key_weight: float = 0.7,
    second_key: float = 0.0,
    text_power: float = 1.0,
    vector_power: float = 1.0,
) -> Score:
    """The fusion with other weights: vector = (1 - key_weight) x own + key_weight x (best key + second_key x
    the next); score = wv x vector^vector_power + (1 - wv) x text^text_power + priors."""

    def score(c: dict[str, Any], rec: dict[str, Any]) -> float:
        keys = c["keys"]
        if keys:
            best = keys[0] + second_key * (keys[1] if len(keys) > 1 else 0.0)
            vec = max((1 - key_weight) * c["own"] + key_weight * best, 0.0)
        else:
            vec = c["vec"]  # no key, or an index without keys: as ranked
        return float(wv * vec**vector_power + (1 - wv) * c["text"] ** text_power + c["prior"])

    return score


DEFAULTS = fused()
WEIGHTS = [fused(wv=w / 10) for w in range(11)]


def gold_first(c: dict[str, Any], rec: dict[str, Any]) -> float:
    """The ceiling of any reordering: candidates holding evidence first, the rest in the default order."""
    held = any(_covers(c["path"], c["start"], c["end"], e) for e in rec["expected"])
    return DEFAULTS(c, rec) + (10.0 if held else 0.0)


def best_weight_each(records: list[dict[str, Any]]) -> Figures:
    """The ceiling of a fusion weight chosen per question (0, 0.1, ... 1: the one with the best reciprocal rank)."""
    best = [max((evaluate([rec], w) for w in WEIGHTS), key=lambda f: (f.mrr, f.evr)) for rec in records]
    n = len(best)
    found, total, mh_found, mh_total = (sum(f.counts[i] for f in best) for i in range(4))
    mh = mh_found / mh_total if mh_total else None
    return Figures(sum(f.r5 for f in best) / n, sum(f.mrr for f in best) / n, found / total, mh)


def per_query(records: list[dict[str, Any]], how: str) -> list[dict[str, Any]]:
    """The records with each candidate's vector score rescaled within its query: by the best ("max") or
    between the worst and the best ("minmax"), the way the BM25 score already is."""
    out = []
    for rec in records:
        vs = [c["vec"] for c in rec["cands"]] or [0.0]
        hi, lo = max(vs), min(vs)
        cands = []
        for c in rec["cands"]:
            v = c["vec"] / hi if how == "max" and hi > 0 else (c["vec"] - lo) / (hi - lo) if hi > lo else 0.0
            cands.append({**c, "vec": v, "keys": []})
        out.append({**rec, "cands": cands})
    return out


def run() -> None:
    sets: dict[str, list[dict[str, Any]]] = {}
    for name in SUITES:
        path = OUT / f"{name}.jsonl"
        if path.exists():
            sets[name] = [json.loads(line) for line in path.read_text().splitlines()]
    if "locomo" in sets:
        sets = {
            "tune": [r for r in sets["locomo"] if r["ws"] in TUNE],
            "confirm": [r for r in sets["locomo"] if r["ws"] not in TUNE],
            **sets,
        }

    def ranked_by(score: Score) -> Variant:
        return lambda records: evaluate(records, score)

    def rescaled(how: str, wv: float) -> Variant:
        return lambda records: evaluate(per_query(records, how), fused(wv=wv))

    variants: list[tuple[str, Variant]] = [("defaults (0.7 / 0.3, keyWeight 0.7)", ranked_by(DEFAULTS))]
    variants += [(f"second key x{a}", ranked_by(fused(second_key=a))) for a in (0.1, 0.3)]
    variants += [(f"text^{p}", ranked_by(fused(text_power=p))) for p in (0.5, 1.5)]
    variants += [(f"vector^{p}", ranked_by(fused(vector_power=p))) for p in (2.0, 3.0)]
    variants += [(f"vector / query's best, wv {wv}", rescaled("max", wv)) for wv in (0.5, 0.7)]
    variants += [(f"vector min-max per query, wv {wv}", rescaled("minmax", wv)) for wv in (0.5, 0.7)]
    variants += [("ceiling: evidence first (no real ranking)", ranked_by(gold_first))]
    variants += [("ceiling: each question's best vector weight", best_weight_each)]
    print("R@5 / MRR@10 / full-evidence recall@10 (LoCoMo multi-hop's in brackets)")
    print("variant".ljust(44) + "".join(f"{name:>30}" for name in sets))
    for label, variant in variants:
        cells = []
        for records in sets.values():
            f = variant(records)
            mh = f" ({f.multi_hop_evr:.3f})" if f.multi_hop_evr is not None else ""
            cells.append(f"{f.r5:.3f} / {f.mrr:.3f} / {f.evr:.3f}{mh}")
        print(label.ljust(44) + "".join(f"{c:>30}" for c in cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["dump", "run"])
    args = parser.parse_args()
    if args.step == "dump":
        dump()
    else:
        run()


if __name__ == "__main__":
    main()
