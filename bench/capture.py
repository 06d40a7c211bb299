"""Capture measured on LoCoMo's raw conversations, replayed as a live agent would see them.

    .venv/bin/python bench/capture.py                  # replay, recall, score (both halves), duplicates
    .venv/bin/python bench/capture.py --batch 20       # turns per capture call (default 10)
    .venv/bin/python bench/capture.py --data other.json  # any file in LoCoMo's (or REALTALK's) layout

Each conversation gets an empty workspace. Its sessions are replayed in order, in batches of turns, through
``mem.capture(batch, session=..., now=...)`` (every turn a named user speaker, timestamped at its session's
time): nothing else is written to the workspace. Then every question is asked as ``mem.recall(question,
k=10)`` on the day after the last session, and scored with the shared score_recall.py: a question expects
the captured bullets drawn from one of its evidence turns, and a question that no captured bullet covers
counts as a miss (it is given an expected fact nowhere). Conversations 1-5 (tuned on) and 6-10 (held out)
are scored apart. Also: words written per 100 turns, and the duplicate checks (the same conversations
captured again, and again in overlapping batches: new bullets must be 0). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

import locomo_data
import memlane

ROOT = Path(__file__).resolve().parents[1]
SHARED = locomo_data.SHARED
sys.path.insert(0, str(SHARED))
from to_workspace import (  # type: ignore[import-not-found]  # noqa: E402
    load_samples,
    normalize_evidence,
    parse_locomo_datetime,
    session_numbers,
    turn_text,
    turn_time,
)

NOWHERE = {"path": "memory/none.md", "line": 0}  # an expected fact no result can hit: an uncovered question


def sessions_of(sample: dict[str, Any]) -> list[tuple[int, dt.datetime, list[dict[str, Any]]]]:
    conv = sample["conversation"]
    out = []
    for n in session_numbers(conv):
        start = parse_locomo_datetime(conv.get(f"session_{n}_date_time", ""))
        out.append((n, start, conv[f"session_{n}"]))
    return out


def turn_of(turn: dict[str, Any], start: dt.datetime, k: int) -> dict[str, Any]:
    text = " ".join(turn_text(turn).split())
    if turn.get("blip_caption"):
        text += f" (image: {' '.join(str(turn['blip_caption']).split())})"
    when = turn_time(turn, start)
    if when == start:
        when = start + dt.timedelta(minutes=k)  # turns a minute apart within their session
    return {"role": "user", "name": turn.get("speaker") or "User", "content": text, "timestamp": when.isoformat()}


def replay(mem: Any, sample: dict[str, Any], batch: int, stride: int) -> dict[str, Any]:
    """Capture every session of ``sample`` in windows of ``batch`` turns every ``stride`` turns."""
    by_dia: dict[str, list[dict[str, Any]]] = {}
    totals = {"turns": 0, "written": 0, "drafted": 0, "known": 0, "secrets": 0, "calls": 0}
    lat = []
    for n, start, turns in sessions_of(sample):
        items = [turn_of(t, start, k) for k, t in enumerate(turns)]
        totals["turns"] += len(items)
        for lo in range(0, len(items), stride):
            window = items[lo : lo + batch]
            t = time.perf_counter()
            rep = mem.capture(window, session=f"{sample['sample_id']}-s{n}", now=start)
            lat.append(time.perf_counter() - t)
            totals["calls"] += 1
            totals["written"] += rep.facts_written
            totals["drafted"] += rep.facts_drafted
            totals["known"] += rep.skipped_as_known
            totals["secrets"] += rep.secrets_redacted
            for w in rep.written:
                if w["turn"] is not None:
                    dia = turns[lo + w["turn"]].get("dia_id")
                    by_dia.setdefault(str(dia), []).append({"path": w["path"], "bullet": w["bullet"]})
            if lo + batch >= len(items):
                break
    return {"by_dia": by_dia, "totals": totals, "latency": lat}


def final_lines(ws: Path, by_dia: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Each captured bullet's line in the files as they are at the end (later captures insert lines above)."""
    where: dict[tuple[str, str], int] = {}
    for p in (ws / "memory").glob("*.md"):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            where.setdefault((f"memory/{p.name}", line), n)
    return {
        dia: [
            {"path": b["path"], "line": where[(b["path"], b["bullet"])]}
            for b in items
            if (b["path"], b["bullet"]) in where
        ]
        for dia, items in by_dia.items()
    }


def write_queries(ws: Path, sample: dict[str, Any], by_dia: dict[str, list[dict[str, Any]]]) -> int:
    by_dia = final_lines(ws, by_dia)
    covered = 0
    with (ws / "recall_queries.jsonl").open("w") as out:
        for i, qa in enumerate(sample.get("qa", [])):
            expected: list[dict[str, Any]] = []
            for dia in normalize_evidence(qa.get("evidence") or []):
                for loc in by_dia.get(dia, []):
                    if loc not in expected:
                        expected.append(loc)
            covered += bool(expected) and qa.get("category") != 5
            q = {
                "qid": f"{sample['sample_id']}:{i}",
                "question": qa["question"],
                "category": qa.get("category"),
                "expected_facts": expected or [NOWHERE],
            }
            out.write(json.dumps(q) + "\n")
    return covered


def words_written(ws: Path) -> int:
    return sum(len(p.read_text().split()) for p in (ws / "memory").glob("*.md"))


def latency(args: argparse.Namespace, facts_wanted: int = 10_000, delta: int = 50) -> None:
    """A hook's call as a host waits on it: ``delta`` new turns captured into a workspace that holds
    ``facts_wanted`` facts (the replayed LoCoMo logs, copied under other years until there are enough),
    the bundled model embedding the drafts and the index following the write."""
    source = sorted((args.work / "tune").glob("*/memory/*.md")) + sorted((args.work / "confirm").glob("*/memory/*.md"))
    if not source:
        raise SystemExit("run bench/capture.py first: the latency workspace is made of its captured logs")
    work = ROOT / ".bench" / "capture-latency"
    ws = work / "ws"
    if not ws.exists():
        (ws / "memory").mkdir(parents=True)
        per_copy = sum(p.read_text().count("\n- ") for p in source)
        for copy in range(-(-facts_wanted // max(per_copy, 1))):
            for p in source:
                day = dt.date.fromisoformat(p.stem[:10])
                moved = day.replace(year=day.year - 10 * (copy + 1))
                (ws / "memory" / f"{moved.isoformat()}.md").write_text(p.read_text())
    samples = load_samples(str(args.data))
    settings = {"store": {"path": str(work / "index.sqlite")}, "sessions": {"dir": str(work / "sessions")}}
    lat = []
    with memlane.open(ws, agent="latency", **settings) as mem:
        t = time.perf_counter()
        mem.sync()
        print(f"index ready in {time.perf_counter() - t:.0f}s: {mem.status()['facts']} facts")
        turns = [turn_of(x, start, k) for _, start, ts in sessions_of(samples[0]) for k, x in enumerate(ts)]
        for k, x in enumerate(turns):  # a new year of the same talk: new days, new sections
            x["timestamp"] = (dt.datetime.fromisoformat(x["timestamp"]).replace(year=2031)).isoformat()
            x["content"] += f" (take {k})"
        for lo in range(0, min(len(turns), 12 * delta), delta):
            t = time.perf_counter()
            rep = mem.capture(turns[lo : lo + delta], session=f"latency-{lo}", now=dt.datetime(2031, 12, 1))
            lat.append(time.perf_counter() - t)
            print(f"  {delta} turns: {lat[-1] * 1000:.0f} ms, {rep.facts_written} facts written", flush=True)
    print(
        f"hook call, {delta}-turn delta: p50 {median(lat) * 1000:.0f} ms, "
        f"max {max(lat) * 1000:.0f} ms ({len(lat)} calls)"
    )


def threshold(args: argparse.Namespace) -> None:
    """How close a reworded same fact and a different fact about the same person are, with the bundled
    model. A second writer's wording of a turn's facts is LoCoMo's own observation of that turn (written
    by a large model, not here); a captured bullet drawn from the same turn and about the same speaker is
    a pair that may say the same thing (a turn often says several), and a captured bullet about the same
    speaker from another session is a pair that should not merge. For each cosine threshold: the share of
    each kind of pair that would count as a restatement, by cosine alone and with the specifics rule."""
    import numpy as np

    from memlane.capture.known import specifics
    from memlane.embeddings.local import LocalEmbedder
    from memlane.facts.retain import PROVENANCE, parse_retain

    embedder = LocalEmbedder()
    samples = {s["sample_id"]: s for s in load_samples(str(args.data))}
    grid = [0.80, 0.85, 0.88, 0.90, 0.92, 0.94, 0.96]
    for half in ("tune", "confirm"):
        same: list[tuple[float, bool]] = []
        other: list[tuple[float, bool]] = []
        for ws in sorted((args.work / half).iterdir()):
            if not (ws / "captured.json").exists():
                continue
            sample = samples[ws.name]
            by_dia = json.loads((ws / "captured.json").read_text())
            bullets: dict[str, list[tuple[str, str]]] = {}  # dia -> (speaker, content)
            for dia, items in by_dia.items():
                for b in items:
                    facts, _ = parse_retain("## Retain\n" + b["bullet"] + "\n")
                    if facts:
                        who = PROVENANCE.search(facts[0].content)
                        bullets.setdefault(dia, []).append((who.group("who") if who else "", facts[0].content))
            session_of = {dia: dia.split(":")[0] for dia in bullets}
            obs = [
                (speaker, text, dia)
                for key, per in sample["observation"].items()
                for speaker, rows in per.items()
                for text, dias in rows
                for dia in normalize_evidence(dias if isinstance(dias, list) else [dias])
            ]
            by_speaker: dict[str, list[tuple[str, str]]] = {}
            for dia, items in bullets.items():
                for who, content in items:
                    by_speaker.setdefault(who, []).append((dia, content))
            pairs: list[tuple[str, str, bool]] = []
            for speaker, text, dia in obs:
                for who, content in bullets.get(dia, []):
                    if who == speaker:
                        pairs.append((text, content, True))
                others = [c for d, c in by_speaker.get(speaker, []) if session_of[d] != dia.split(":")[0]]
                for c in others[:: max(1, len(others) // 10)][:10]:
                    pairs.append((text, c, False))
            texts = sorted({t for a, b, _ in pairs for t in (a, PROVENANCE.sub("", b))})
            at = {t: i for i, t in enumerate(texts)}
            vecs = np.asarray(embedder.embed_batch(texts), dtype=np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-12
            for a, b, is_same in pairs:
                cos = float(vecs[at[a]] @ vecs[at[PROVENANCE.sub("", b)]])
                guard = specifics(b) <= specifics(a)
                (same if is_same else other).append((cos, guard))
        print(f"== {half}: {len(same)} same-turn pairs, {len(other)} other-session pairs (same speaker)")
        print("threshold  same-turn merged (cosine / +specifics)  other-session merged (cosine / +specifics)")
        for t in grid:
            s1 = sum(c >= t for c, _ in same) / max(len(same), 1)
            s2 = sum(c >= t and g for c, g in same) / max(len(same), 1)
            o1 = sum(c >= t for c, _ in other) / max(len(other), 1)
            o2 = sum(c >= t and g for c, g in other) / max(len(other), 1)
            print(f"  {t:.2f}     {s1:6.1%} / {s2:6.1%}                      {o1:7.2%} / {o2:7.2%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED / "locomo10.json")
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "capture")
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--no-duplicates", action="store_true", help="skip the capture-again checks")
    ap.add_argument("--latency", action="store_true", help="time 50-turn hook calls on a workspace of 10k facts")
    ap.add_argument("--threshold", action="store_true", help="cosine of reworded vs different facts (after a run)")
    args = ap.parse_args()
    if args.threshold:
        threshold(args)
        return
    if args.latency:
        latency(args)
        return
    samples = load_samples(str(args.data))
    if args.work.exists():
        shutil.rmtree(args.work)
    results: dict[str, list[dict[str, Any]]] = {"tune": [], "confirm": []}
    lat: list[float] = []
    turns = words = calls = 0
    dup = {"again": 0, "overlap": 0}
    covered = questions = 0
    started = time.perf_counter()
    for i, sample in enumerate(samples):
        half = "tune" if i < 5 else "confirm"
        ws = args.work / half / sample["sample_id"]
        (ws / "memory").mkdir(parents=True)
        store = args.work / "stores" / f"{sample['sample_id']}.sqlite"
        sessions = {"dir": str(args.work / "sessions" / sample["sample_id"])}  # capture's state: fresh each run
        with memlane.open(ws, agent=sample["sample_id"], store={"path": str(store)}, sessions=sessions) as mem:
            run = replay(mem, sample, args.batch, args.batch)
            lat += run["latency"]
            turns += run["totals"]["turns"]
            calls += run["totals"]["calls"]
            words += words_written(ws)
            covered += write_queries(ws, sample, run["by_dia"])
            (ws / "captured.json").write_text(json.dumps(run["by_dia"]))  # for --threshold
            questions += sum(1 for qa in sample.get("qa", []) if qa.get("category") != 5)
            if not args.no_duplicates:
                snapshot = {p.name: p.read_bytes() for p in (ws / "memory").glob("*.md")}
                dup["again"] += replay(mem, sample, args.batch, args.batch)["totals"]["written"]
                dup["overlap"] += replay(mem, sample, args.batch, max(1, args.batch // 2))["totals"]["written"]
                changed = [n for n, b in snapshot.items() if (ws / "memory" / n).read_bytes() != b]
                if changed:
                    print(f"  {sample['sample_id']}: capturing again changed {len(changed)} file(s)")
            last = max(start for _, start, _ in sessions_of(sample)).date()
            now = dt.datetime.combine(last + dt.timedelta(days=1), dt.time(12))
            mem.sync()
            for line in (ws / "recall_queries.jsonl").read_text().splitlines():
                q = json.loads(line)
                resp = mem.recall(q["question"], k=args.k, now=now)
                results[half].append(
                    {"qid": q["qid"], "facts": [{"source": f.source, "content": f.content} for f in resp.facts]}
                )
        print(f"  {sample['sample_id']}: {run['totals']}", flush=True)
    print(
        f"replayed {turns} turns in {calls} capture calls ({time.perf_counter() - started:.0f}s with recall); "
        f"capture call p50 {median(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms"
    )
    print(f"questions (categories 1-4) with a captured fact drawn from an evidence turn: {covered} of {questions}")
    print(f"words written per 100 turns: {100 * words / max(turns, 1):.0f} (sections, digests and bullets)")
    if not args.no_duplicates:
        print(f"captured again: {dup['again']} new bullets; again in overlapping batches: {dup['overlap']}")
    for half in ("tune", "confirm"):
        out = args.work / f"results-{half}.jsonl"
        out.write_text("".join(json.dumps(r) + "\n" for r in results[half]))
        score = subprocess.run(
            [sys.executable, str(SHARED / "score_recall.py"), str(args.work / half), str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(f"== {half} (conversations {'1-5' if half == 'tune' else '6-10'}); uncovered questions count as misses")
        print(score.stdout)


if __name__ == "__main__":
    main()
