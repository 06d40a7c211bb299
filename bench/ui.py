"""How fast `memlane ui` answers: each page through its app (HTTP, routing, views, templates) at about
10,000 real facts and 50,000 chunks (issue 28: every page <= 200 ms on these 2 cores).

    .venv/bin/python bench/ui.py                # the 10k-facts / 50k-chunks row
    .venv/bin/python bench/ui.py --facts 2000 --chunks 10000

The facts are LoCoMo's daily logs with their Retain bullets (../shared/bench/locomo), copied year after
year until they hold the wanted number (as bench/latency.py's recall row), and the chunks are filled up
with latency.py's synthetic Markdown. The search page asks LoCoMo's real questions. Document vectors come
from latency.py's hashed bench provider, the query vectors from the real local model. Beliefs are
computed over every fact and kept until the index changes: its first load is reported apart from the
cached ones. Prints medians and p95s; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
import time
from pathlib import Path
from statistics import median, quantiles
from urllib.parse import quote

from starlette.testclient import TestClient

import locomo_data
import memlane
from latency import BenchEmbedder, make_workspace, retain_copies
from memlane.ui import create_app


def build(work: Path, facts_target: int, chunks_target: int) -> tuple[Path, list[str]]:
    ws = work / f"ws-ui-{facts_target}-{chunks_target}"
    if ws.exists():
        shutil.rmtree(ws)
    filler = work / "filler"
    make_workspace(filler, chunks_target)
    shutil.copytree(filler / "memory", ws / "memory" / "notes")
    return ws, retain_copies(work, ws, facts_target)


def timed(client: TestClient, url: str) -> float:
    t = time.perf_counter()
    r = client.get(url)
    ms = (time.perf_counter() - t) * 1000
    assert r.status_code == 200, (url, r.status_code, r.text[:300])
    return ms


def row(name: str, times: list[float]) -> dict[str, object]:
    p95 = quantiles(times, n=20)[18] if len(times) >= 2 else times[0]
    return {"page": name, "n": len(times), "p50_ms": round(median(times), 1), "p95_ms": round(p95, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--chunks", type=int, default=50_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/memlane-bench-ui"))
    ap.add_argument("--repeat", type=int, default=30, help="requests per page kind")
    args = ap.parse_args()
    if not locomo_data.available():
        raise SystemExit("../shared/bench/locomo is not there")
    args.work.mkdir(parents=True, exist_ok=True)
    ws, questions = build(args.work, args.facts, args.chunks)
    store = args.work / "idx-ui.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    rng = random.Random(7)
    with memlane.open(ws, agent="benchui", provider=BenchEmbedder(), store={"path": str(store)}) as mem:
        t = time.perf_counter()
        mem.sync()
        status = mem.status()
        took = time.perf_counter() - t
        print(f"index: {status['facts']['facts']} facts, {status['chunks']} chunks, built in {took:.0f} s")
        client = TestClient(create_app(mem), base_url="http://127.0.0.1:8766")
        timed(client, "/?q=warm+up")  # the query model's first load is not a page's time
        rows = []
        asked = rng.sample(questions, min(args.repeat, len(questions)))
        rows.append(row("search (search + recall)", [timed(client, "/?q=" + quote(q)) for q in asked]))
        files = rng.sample(sorted(mem.store.file_states()), args.repeat)
        rows.append(row("file", [timed(client, "/file?path=" + quote(f) + "&lines=5-6") for f in files]))
        rows.append(row("entities", [timed(client, "/entities") for _ in range(max(3, args.repeat // 6))]))
        names = [e["name"] for e in sorted(mem.entities(), key=lambda e: -int(e["facts"]))]
        picked = names[:10] + rng.sample(names[10:], min(len(names) - 10, args.repeat - 10))
        rows.append(row("entity", [timed(client, "/entity?name=" + quote(n)) for n in picked]))
        first = timed(client, "/beliefs")
        rows.append(row("beliefs (first load)", [first]))
        rows.append(row("beliefs (cached)", [timed(client, "/beliefs") for _ in range(5)]))
        latest = mem.facts_since(dt.date(1900, 1, 1), limit=1)[0]["day"]
        days = (dt.date.today() - dt.date.fromisoformat(latest)).days + 14
        rows.append(row("changes (last 14 days of logs)", [timed(client, f"/changes?days={days}") for _ in range(5)]))
        rows.append(row("health", [timed(client, "/health") for _ in range(5)]))
    for r in rows:
        print(f"{r['page']:<34} n={r['n']:<3} p50 {r['p50_ms']:>7} ms   p95 {r['p95_ms']:>7} ms")
    print(json.dumps({"facts": status["facts"]["facts"], "chunks": status["chunks"], "rows": rows}))


if __name__ == "__main__":
    main()
