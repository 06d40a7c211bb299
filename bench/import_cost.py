"""Cost of capture against the size of memory (issue 42, item 5): ``memlane import`` of 10,000 turns into a
workspace that already holds 10,000 facts, and a 50-turn ``memlane hook capture`` call there.

    .venv/bin/python bench/import_cost.py                          # 10,000 facts, 10,000 turns (~10 min here)
    .venv/bin/python bench/import_cost.py --facts 2000 --turns 2000 --hook-runs 3   # a quick look
    .venv/bin/python bench/import_cost.py --json                   # the result as one JSON line too

Everything lives under a temp dir (``--keep`` prints it and leaves it). The workspace holds the Retain sections of
LoCoMo's daily logs (../shared/bench/locomo, converted by its own to_workspace.py + to_retain.py: its observations
as bullets), copied under earlier years until it holds ``--facts`` facts, indexed with the bundled model by
``memlane index`` (not timed).
Then, like a user, in subprocesses of the real CLI:

- hook: ``--hook-runs`` times, a new 50-turn Claude Code transcript (LoCoMo turns, speaker A as the person,
  speaker B as the agent, dated in 2031 so each lands in a new section) piped to ``memlane hook capture --host
  claude-code --background``, the command ``memlane install`` wires for Claude Code's session end: its wall time
  (what the host waits), and the time until the capture it started in the background wrote its result to
  ``$MEMLANE_HOME/logs/capture.log`` (process start, model load, capture and index update included; the next
  run starts after it). Measured first, at ``--facts`` facts.
- import: LoCoMo's sessions as one ChatGPT export (``conversations.json``, one conversation per session), cycled
  until it holds ``--turns`` turns, each cycle moved 40 years on (new days; turns capture has not seen), its last
  thousand turns the first thousand again (the same text, compared), imported with ``memlane import chatgpt``.
  Its progress bar (stderr) is read as it is written: the time per 1,000 turns of the first and the last thousand
  come from it (interpolated between the bar's updates, which fall between conversations); the total is the
  process's wall time, index update included.

Targets (issue 42): import <= 180 s on 2 cores, last/first thousand <= 1.5x, hook p50 <= 1 s. Prints numbers
and the targets beside them; asserts nothing. The data is read from ../shared, never written into the repository.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median
from typing import Any

import locomo_data
from capture import load_samples, sessions_of, turn_of
from memlane.capture.hook_log import wait_ended

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "memlane"]
YEARS_PER_CYCLE = 40  # LoCoMo spans 2022-2023 and the facts' copies go back a year each: never the same day
TARGETS = {"import_s": 180.0, "ratio": 1.5, "hook_p50_s": 1.0}
_BAR = re.compile(r"(capture|index)[^:\r\n]*:\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")


def facts_workspace(work: Path, ws: Path, facts_wanted: int) -> None:
    """``ws/memory`` holding ``facts_wanted`` facts: the ``## Retain`` sections of LoCoMo's converted daily logs
    (their conversation lines left out: the facts are what is measured, and embedding the turns too would
    double the untimed set-up), copied under earlier years until there are enough, the last copy cut short."""
    logs = sorted(locomo_data.workspaces(work / "locomo-retain").glob("*/memory/*.md"))
    (ws / "memory").mkdir(parents=True)
    left, copy = facts_wanted, 0
    while left > 0:
        for p in logs:
            text = p.read_text()
            at = text.find("\n## Retain\n")
            if at < 0:
                continue
            head, _, rest = text[at + 1 :].partition("\n")
            bullets = [b for b in rest.split("\n") if b.startswith("- ")][:left]
            if not bullets:
                break
            left -= len(bullets)
            day = f"{int(p.stem[:4]) - copy}{p.stem[4:10]}"
            body = f"# {day}\n\n{head}\n" + "\n".join(bullets) + "\n"
            (ws / "memory" / f"{day}-{p.parent.parent.name}.md").write_text(body)
        copy += 1


def run_cli(args: list[str], env: dict[str, str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(CLI + args, env=env, input=stdin, capture_output=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"memlane {' '.join(args)} failed:\n{proc.stderr.decode(errors='replace')}")
    return proc


def locomo_turns(cycle_limit: int, first_cycle: int = 0) -> list[tuple[str, list[dict[str, Any]]]]:
    """(conversation id, turns) per LoCoMo session, the turns in ``mem.capture``'s shape, every session of the
    ten conversations in order, cycled (``cycle_limit`` cycles), each cycle moved YEARS_PER_CYCLE on."""
    samples = load_samples(str(locomo_data.SHARED / "locomo10.json"))
    out = []
    for cycle in range(first_cycle, first_cycle + cycle_limit):
        for sample in samples:
            for n, start, turns in sessions_of(sample):
                items = [turn_of(t, start, k) for k, t in enumerate(turns)]
                speakers = list(dict.fromkeys(t["name"] for t in items))
                for t in items:
                    stamp = dt.datetime.fromisoformat(t["timestamp"])
                    t["timestamp"] = stamp.replace(year=stamp.year + YEARS_PER_CYCLE * (cycle + 1)).isoformat()
                    t["role"] = "user" if t["name"] == speakers[0] else "assistant"
                out.append((f"{sample['sample_id']}-s{n}-c{cycle}", items))
    return out


def _first_turns(sessions: list[tuple[str, list[dict[str, Any]]]], n: int) -> list[tuple[str, list[dict[str, Any]]]]:
    out, total = [], 0
    for ident, items in sessions:
        if total >= n:
            break
        out.append((ident, items[: n - total]))
        total += len(out[-1][1])
    return out


def chatgpt_export(path: Path, turns_wanted: int) -> int:
    """A ChatGPT ``conversations.json`` of LoCoMo sessions holding ``turns_wanted`` turns; returns the turns. Its
    last thousand turns are its first thousand again (a later cycle: new days, new conversation ids), so the two
    thousands compared read the same text and differ only in what was imported before them."""
    span = min(1000, turns_wanted // 2)
    cycles = 1 + turns_wanted // 5000
    sessions = _first_turns(locomo_turns(cycles), turns_wanted - span)
    sessions += _first_turns(locomo_turns(1, first_cycle=cycles), span)
    convs, total = [], 0
    for ident, items in sessions:
        mapping: dict[str, Any] = {}
        parent = None
        for k, t in enumerate(items):
            node = f"{ident}-{k}"
            stamp = dt.datetime.fromisoformat(t["timestamp"]).replace(tzinfo=dt.UTC).timestamp()
            message = {
                "id": node,
                "author": {"role": t["role"]},
                "create_time": stamp,
                "content": {"content_type": "text", "parts": [t["content"]]},
                "metadata": {},
                "recipient": "all",
            }
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": message}
            if parent is not None:
                mapping[parent]["children"].append(node)
            parent = node
        first = mapping[f"{ident}-0"]["message"]["create_time"]
        convs.append({"id": ident, "title": ident, "create_time": first, "current_node": parent, "mapping": mapping})
        total += len(items)
    path.write_text(json.dumps(convs))
    return total


def claude_code_transcript(path: Path, items: list[dict[str, Any]], session: str, cwd: Path) -> None:
    lines = []
    for t in items:
        content: Any = t["content"] if t["role"] == "user" else [{"type": "text", "text": t["content"]}]
        lines.append(
            {
                "type": t["role"],
                "message": {"role": t["role"], "content": content},
                "timestamp": t["timestamp"],
                "sessionId": session,
                "cwd": str(cwd),
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have ended: on a shared machine the wall
    time waits on other work too, the CPU time much less."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def hook_runs(
    work: Path, ws: Path, env: dict[str, str], runs: int, delta: int = 50
) -> tuple[list[float], list[float], list[float]]:
    """``runs`` hook calls, each on a new ``delta``-turn transcript: the wall and CPU time of each call, and the
    time from its start until the background capture it handed the work to logged its result."""
    pool = [t for _, items in locomo_turns(cycle_limit=1) for t in items]
    log = Path(env["MEMLANE_HOME"]) / "logs" / "capture.log"
    times, cpu, done = [], [], []
    for r in range(runs):
        items = [dict(t) for t in pool[r * delta : (r + 1) * delta]]
        for t in items:  # 2031 onwards: days nothing else was written on
            stamp = dt.datetime.fromisoformat(t["timestamp"])
            t["timestamp"] = stamp.replace(year=2031 + stamp.year % 10).isoformat()
        path = work / "hook" / f"session-{r}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        claude_code_transcript(path, items, f"hook-{r}", ws)
        payload = json.dumps({"session_id": f"hook-{r}", "transcript_path": str(path), "cwd": str(ws)})
        command = ["--workspace", str(ws), "hook", "capture", "--host", "claude-code", "--background"]
        t0, c0 = time.perf_counter(), children_cpu()
        proc = run_cli(command, env, payload.encode())
        times.append(time.perf_counter() - t0)
        cpu.append(children_cpu() - c0)
        result = wait_ended(log, str(path), 600.0, every_s=0.01)
        if result is None:
            raise SystemExit(f"no result for {path} in {log} after 600 s")
        done.append(time.perf_counter() - t0)
        print(f"  hook {r + 1}: {times[-1]:.2f}s ({cpu[-1]:.2f}s CPU), captured {done[-1]:.2f}s after: {result}")
        if not result.startswith("captured"):
            raise SystemExit(f"the background capture failed: {result} ({proc.stdout.decode().strip()})")
    return times, cpu, done


def timed_import(ws: Path, export: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run ``memlane import chatgpt`` and read its progress bars as they are written: (seconds, bar, done)."""
    t0, c0 = time.perf_counter(), children_cpu()
    proc = subprocess.Popen(
        [*CLI, "--workspace", str(ws), "import", "chatgpt", str(export)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    marks: list[tuple[float, str, int, int]] = []
    tail: list[str] = []

    def read_bar() -> None:
        assert proc.stderr is not None
        buf = ""
        while chunk := os.read(proc.stderr.fileno(), 65536):
            now = time.perf_counter() - t0
            buf += chunk.decode(errors="replace")
            *done, buf = re.split(r"[\r\n]", buf)
            for line in done:
                m = _BAR.search(line)
                if m:
                    marks.append((now, m.group(1), int(m.group(2)), int(m.group(3))))
                elif line.startswith("index:"):  # the bar of the indexing that follows (no total until known)
                    marks.append((now, "index", 0, 0))
                elif line.strip():
                    tail.append(line)

    reader = threading.Thread(target=read_bar)
    reader.start()
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.wait()
    reader.join()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"memlane import failed ({proc.returncode}):\n" + "\n".join(tail))
    return {"wall": wall, "cpu": children_cpu() - c0, "marks": marks, "stdout": out.strip(), "notes": tail}


def time_at(marks: list[tuple[float, int]], n: float) -> float:
    """When the bar reached ``n`` turns, interpolated linearly between the updates around it."""
    for (t0, n0), (t1, n1) in itertools.pairwise(marks):
        if n0 <= n <= n1 and n1 > n0:
            return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
    return marks[-1][0] if n >= marks[-1][1] else marks[0][0]


def per_thousand(marks: list[tuple[float, int]], total: int) -> tuple[float, float]:
    """Seconds per 1,000 turns for the first and the last thousand (the first span starts at the bar's 0)."""
    span = min(1000, total // 2)
    first = time_at(marks, span) - time_at(marks, 0)
    last = time_at(marks, total) - time_at(marks, total - span)
    return first * 1000 / span, last * 1000 / span


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=10_000, help="facts the workspace holds before (default 10,000)")
    ap.add_argument("--turns", type=int, default=10_000, help="turns imported (default 10,000)")
    ap.add_argument("--hook-runs", type=int, default=7, help="50-turn hook calls timed (0: none)")
    ap.add_argument("--keep", action="store_true", help="leave the temp dir (its path is printed)")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON line too")
    args = ap.parse_args()
    if not locomo_data.available():
        raise SystemExit(f"no LoCoMo data at {locomo_data.SHARED}")
    work = Path(tempfile.mkdtemp(prefix="memlane-import-cost-"))
    ws = work / "ws"
    env = {**os.environ, "MEMLANE_HOME": str(work / "home"), "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("MEMLANE_CONFIG", None)
    try:
        facts_workspace(work, ws, args.facts)
        t = time.perf_counter()
        run_cli(["--workspace", str(ws), "index"], env)
        status = json.loads(run_cli(["--workspace", str(ws), "status", "--json"], env).stdout)
        facts = int(status["facts"]["facts"])
        print(f"workspace: {facts} facts, {status['chunks']} chunks, indexed in {time.perf_counter() - t:.0f}s")
        hooks, hooks_cpu, hooks_done = hook_runs(work, ws, env, args.hook_runs) if args.hook_runs else ([], [], [])
        export = work / "export" / "conversations.json"
        export.parent.mkdir()
        turns = chatgpt_export(export, args.turns)
        print(f"importing {turns} turns ({export.stat().st_size / 1e6:.1f} MB ChatGPT export) ...", flush=True)
        run = timed_import(ws, export, env)
        capture_marks = [(t, n) for t, bar, n, _ in run["marks"] if bar == "capture"]
        first, last = per_thousand(capture_marks, turns) if capture_marks else (float("nan"), float("nan"))
        captured_at = capture_marks[-1][0] if capture_marks else float("nan")
        index_bar = [m for m in run["marks"] if m[1] == "index"]
        after = json.loads(run_cli(["--workspace", str(ws), "status", "--json"], env).stdout)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    result = {
        "facts_before": facts,
        "facts_after": int(after["facts"]["facts"]),
        "turns": turns,
        "import_s": round(run["wall"], 1),
        "import_cpu_s": round(run["cpu"], 1),
        "captured_s": round(captured_at, 1),
        "index_bar": bool(index_bar),
        "first_1k_s": round(first, 2),
        "last_1k_s": round(last, 2),
        "ratio": round(last / first, 2),
        "hook_p50_s": round(median(hooks), 2) if hooks else None,
        "hook_max_s": round(max(hooks), 2) if hooks else None,
        "hook_cpu_p50_s": round(median(hooks_cpu), 2) if hooks else None,
        "hook_captured_p50_s": round(median(hooks_done), 2) if hooks else None,
        "hook_runs": len(hooks),
        "cpus": os.cpu_count(),
    }
    print(run["stdout"])
    print(f"{'measure':<34} {'figure':>10} {'target':>10}")
    print(f"{'import wall time, s':<34} {result['import_s']:>10} {'<= 180':>10}")
    print(f"{'  of which capture (bar at end), s':<34} {result['captured_s']:>10} {'':>10}")
    print(f"{'  its CPU time (user + sys), s':<34} {result['import_cpu_s']:>10} {'':>10}")
    print(f"{'first 1,000 turns, s':<34} {result['first_1k_s']:>10} {'':>10}")
    print(f"{'last 1,000 turns, s':<34} {result['last_1k_s']:>10} {'':>10}")
    print(f"{'last / first':<34} {result['ratio']:>10} {'<= 1.5':>10}")
    print(f"{'hook call (host waits), 50 turns, p50 s':<34} {result['hook_p50_s']!s:>10} {'<= 1':>10}")
    print(f"{'  its CPU time p50, s':<34} {result['hook_cpu_p50_s']!s:>10} {'':>10}")
    print(f"{'  captured and indexed, p50 s':<34} {result['hook_captured_p50_s']!s:>10} {'':>10}")
    print(f"facts {facts} -> {result['facts_after']}; {turns} turns; index progress shown: {result['index_bar']}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
