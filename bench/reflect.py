"""Reflect at scale: 1,000 daily logs of ~20 facts each, full run and incremental after one new day.

    .venv/bin/python bench/reflect.py                 # 1,000 days x 20 facts, the bundled model
    .venv/bin/python bench/reflect.py --days 200      # smaller

Real text: every day samples 20 of LoCoMo's 2,541 observations (../shared/bench/locomo, written as
Retain bullets by to_retain.py), so a fact recurs on several days as a person's facts do; observations
with a preference verb ("likes", "enjoys", "prefers", "loves") become opinions with a confidence. The
index is built with the bundled model (only the distinct texts are embedded). Times: the first,
full reflect (every entity), then one new day added, synced, and reflected with --since that day.
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import shutil
import time
from pathlib import Path

import locomo_data
import memlane

ROOT = Path(__file__).resolve().parents[1]
_PREFERENCE = re.compile(r"\b(likes|loves|enjoys|prefers)\b")


def observations(work: Path) -> list[str]:
    src = locomo_data.workspaces(work / "locomo-retain")
    bullets = []
    for log in sorted(src.glob("*/memory/*.md")):
        bullets += [ln for ln in log.read_text().splitlines() if ln.startswith("- W @")]
    return bullets


def day_log(day: dt.date, bullets: list[str]) -> str:
    lines = [f"# {day.isoformat()}", "", "## Retain"]
    for b in bullets:
        lines.append(re.sub(r"^- W ", "- O(c=0.7) ", b) if _PREFERENCE.search(b) else b)
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=1000)
    ap.add_argument("--facts", type=int, default=20, help="facts per day")
    ap.add_argument("--work", type=Path, default=ROOT / ".bench" / "reflect")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    pool = observations(args.work)
    rng = random.Random(11)
    ws = args.work / f"ws-{args.days}"
    if ws.exists():
        shutil.rmtree(ws)
    (ws / "memory").mkdir(parents=True)
    first = dt.date(2023, 1, 1)
    for i in range(args.days):
        day = first + dt.timedelta(days=i)
        (ws / "memory" / f"{day.isoformat()}.md").write_text(day_log(day, rng.sample(pool, args.facts)))
    store = args.work / f"idx-{args.days}.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(str(store) + suffix).unlink(missing_ok=True)
    store.unlink(missing_ok=True)
    new_day = first + dt.timedelta(days=args.days)
    now = dt.datetime.combine(new_day, dt.time(12))
    with memlane.open(ws, agent="benchreflect", store={"path": str(store)}) as mem:
        t = time.perf_counter()
        mem.sync()
        index_s = time.perf_counter() - t
        facts = mem.status()["facts"]
        t = time.perf_counter()
        full = mem.reflect(since=first.isoformat(), now=now)
        full_s = time.perf_counter() - t
        (ws / "memory" / f"{new_day.isoformat()}.md").write_text(day_log(new_day, rng.sample(pool, args.facts)))
        t = time.perf_counter()
        mem.sync()
        sync_s = time.perf_counter() - t
        t = time.perf_counter()
        inc = mem.reflect(since=new_day.isoformat(), now=now)
        inc_s = time.perf_counter() - t
        t = time.perf_counter()
        again = mem.reflect(since=new_day.isoformat(), now=now)
        again_s = time.perf_counter() - t
    print(
        json.dumps(
            {
                "days": args.days,
                "facts": facts["facts"],
                "entities": facts["entities"],
                "opinions": len(full.opinions),
                "proposals": len(full.proposals),
                "index_s": round(index_s, 1),
                "full_reflect_s": round(full_s, 2),
                "full_pages_written": len(full.written),
                "new_day_sync_s": round(sync_s, 2),
                "incremental_reflect_s": round(inc_s, 2),
                "incremental_pages_written": len(inc.written),
                "rerun_s": round(again_s, 2),
                "rerun_pages_written": len(again.written),
            }
        )
    )


if __name__ == "__main__":
    main()
