"""A kill harness: SIGKILL at random points of sync, full reindex, remember, replace, insert and reflect.

``python tests/kills.py OP WORKSPACE`` runs one operation in a child (and prints ``go`` when it starts);
:func:`run_kills` starts children and kills each a random time after ``go``. After each kill:

- every memory file is what it was before, or what the operation would have made of it (never half);
- the index opens without being moved aside and answers a search;
- a sync then leaves the same chunks and facts as a clean rebuild from the files.

A child that finished before its kill is not counted as a kill; the run goes on until it has ``kills``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

OPS = ("sync", "reindex", "remember", "replace", "insert", "reflect", "capture")
NOTE = "A note written during the kill test."


def child(op: str, workspace: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import memlane
    import memlane.index.sync_embed as sync_mod
    from conftest import FakeEmbedder

    class Slow(FakeEmbedder):  # a slow provider: the kill can land inside an embedding pass
        def embed_batch(self, texts: Any) -> Any:
            time.sleep(0.01)
            return super().embed_batch(texts)

    sync_mod.EMBED_BATCH = 4
    model = "fake-2" if op == "reindex" else "fake-1"  # another model: a full reindex
    # Kills move capture's batch boundaries, and its budget's choice depends on them: the kill test asks that
    # kills lose nothing of what capture writes, so every turn's fact is written (capture.budget off).
    config = {"agents": {"defaults": {"capture": {"budget": False}}}}
    with memlane.open(workspace, provider=Slow(model=model), config=config) as mem:
        if op == "reflect":
            mem.sync()  # the sync is the sync's kill test; here the kill lands in reflect's own work
        print("go", flush=True)
        started = time.perf_counter()
        if op in ("sync", "reindex"):
            mem.sync()
        elif op == "remember":
            mem.write(NOTE)
        elif op == "replace":
            mem.replace("MEMORY.md", "kill test count: ", "kill test count: I")
        elif op == "insert":
            mem.insert("memory/2026-01-05.md", "- inserted by the kill test", heading="Kill test")
        elif op == "reflect":
            mem.reflect(since="3650d")
        elif op == "capture":
            mem.capture_transcript(transcript_of(Path(workspace)), "jsonl")
        print(f"done {time.perf_counter() - started:.4f}", flush=True)


def transcript_of(workspace: Path) -> Path:
    return workspace.parent / "kill-transcript.jsonl"


def talk(workspace: Path, n: int) -> None:
    """Thirty more turns of a conversation over two days, each with one fact of its own (pet{n}-{k})."""
    import json

    with transcript_of(workspace).open("a") as f:
        for k in range(30):
            day = 10 + k % 2
            text = f"I adopted a cat named pet{n}x{k} from the shelter in Graz."
            stamp = f"2026-02-{day}T{9 + k // 4:02d}:{k % 60:02d}:00"
            f.write(json.dumps({"role": "user", "content": text, "timestamp": stamp}) + "\n")


def captured_once(workspace: Path) -> list[str]:
    """What is wrong with the captured pets once a capture has run to its end: each turn's fact is in
    the logs exactly once, and every section is whole."""
    import re

    from memlane.facts.retain import parse_retain

    problems = []
    said = re.findall(r"pet\d+x\d+", transcript_of(workspace).read_text())
    found: dict[str, int] = {}
    for path, data in _files(workspace).items():
        text = data.decode()
        if "memlane:capture" not in text:
            continue
        facts, bad = parse_retain(text)
        problems += [f"capture: {path}: {p.message}" for p in bad]
        if text.count("<!-- memlane:capture session=") != text.count("## Session "):
            problems.append(f"capture: {path} has a section without its marker or a marker without its heading")
        for f in facts:
            for pet in re.findall(r"pet\d+x\d+", f.content):
                found[pet] = found.get(pet, 0) + 1
    problems += [f"capture: {pet} was lost" for pet in said if pet not in found]
    problems += [f"capture: {pet} was written {n} times" for pet, n in found.items() if n != 1]
    return problems


def _files(workspace: Path) -> dict[str, bytes]:
    import memlane.workspace as ws

    return {f.path: Path(f.abs).read_bytes() for f in ws.list_memory_files(workspace)}


def _allowed(op: str, path: str, before: bytes | None, after: bytes, today: str) -> bool:
    """Whether ``after`` is ``before`` or what ``op`` makes of it as a whole."""
    if before == after:
        return True
    text = after.decode("utf-8")
    old = (before or b"").decode("utf-8")
    if op == "remember" and path == f"memory/{today}.md":
        return text.startswith(old) and text[len(old) :].strip() == NOTE
    if op == "replace" and path == "MEMORY.md":
        return text == old.replace("kill test count: ", "kill test count: I", 1)
    if op == "insert" and path == "memory/2026-01-05.md":
        return text.startswith(old.rstrip("\n")) and text.rstrip().endswith("- inserted by the kill test")
    if op == "capture" and path.startswith("memory/2026-02-1"):
        from memlane.facts.retain import parse_retain

        old_facts = {f.content for f in parse_retain(old)[0]}
        new_facts, bad = parse_retain(text)
        whole = text.count("<!-- memlane:capture session=") == text.count("## Session ")
        return not bad and whole and old_facts <= {f.content for f in new_facts}
    if op == "reflect" and path.startswith("bank/"):
        from memlane.files.markers import find_block

        return text.count("<!-- memlane:begin ") == text.count("<!-- memlane:end ") and all(
            find_block(text, name) is not None or f"memlane:begin {name}" not in text
            for name in ("entity", "opinions", "proposed-for-memory")
        )
    return False


def _index_rows(workspace: Path, store: Path | None) -> tuple[list[Any], list[Any]]:
    import memlane
    from conftest import FakeEmbedder

    settings = {} if store is None else {"store": {"path": str(store)}}
    with memlane.open(workspace, provider=FakeEmbedder(), **settings) as mem:
        mem.sync()
        s = mem.store
        chunks = sorted(
            (c.path, c.start_line, c.end_line, c.text) for c in s.chunks_by_seq(s.live_seqs().tolist()).values()
        )
        facts = sorted(
            (f.path, f.start_line, f.kind, f.content) for f in s.facts.by_seq(s.live_seqs("facts").tolist()).values()
        )
    return chunks, facts


def check_after_kill(op: str, workspace: Path, before: dict[str, bytes], scratch: Path) -> list[str]:
    """What is wrong after a kill (empty: nothing)."""
    import datetime as dt

    import memlane
    from conftest import FakeEmbedder

    problems = []
    today = dt.date.today().isoformat()
    after = _files(workspace)
    for path, content in after.items():
        if not _allowed(op, path, before.get(path), content, today):
            problems.append(f"{op}: {path} is neither as it was nor as {op} makes it")
    problems += [f"{op}: {p} disappeared" for p in before if p not in after]
    with memlane.open(workspace, provider=FakeEmbedder(), sync={"onSearch": False}) as mem:
        if mem.store.recovered:
            problems.append(f"{op}: the index had to be moved aside: {mem.store.recovered}")
        if not mem.search("Kubernetes", min_score=0).results:
            problems.append(f"{op}: the index does not answer")
    clean = scratch / f"clean-{time.monotonic_ns()}.sqlite"
    if _index_rows(workspace, None) != _index_rows(workspace, clean):
        problems.append(f"{op}: after a sync the index differs from a clean rebuild")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{clean}{suffix}").unlink(missing_ok=True)
    return problems


def prepare(workspace: Path) -> None:
    """A workspace with enough files that a sync takes a while, and the passages the edits need."""
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\n- kill test count: \n- The database is PostgreSQL.\n")
    (workspace / "memory" / "2026-01-05.md").write_text("# 2026-01-05\n\n- Marco upgraded Kubernetes to 1.31.\n")
    for i in range(40):
        (workspace / "memory" / f"2025-10-{i % 28 + 1:02d}-{i}.md").write_text(
            f"# Day {i}\n\n- routine entry {i} about topic{i}\n\n## Retain\n- W @Peter: Peter worked on topic{i}.\n"
            + ("- O(c=0.7) @Peter: Peter prefers short standups.\n" if i % 5 == 0 else "")
        )


def _edit(workspace: Path, n: int) -> None:
    """Append a Retain bullet to a dozen daily logs, as a person editing between syncs would."""
    for i in range(0, 40, 3):
        path = workspace / "memory" / f"2025-10-{i % 28 + 1:02d}-{i}.md"
        with path.open("a") as f:
            f.write(f"- W @Peter: Peter reviewed topic{i} in pass {n}.\n")


def run_kills(workspace: Path, kills: int, seed: int = 1, max_delay: float = 0.15) -> dict[str, Any]:
    """Kill children until ``kills`` kills landed (spread over OPS); returns counts and problems."""
    rng = random.Random(seed)
    scratch = workspace.parent / "kill-scratch"
    scratch.mkdir(exist_ok=True)
    _index_rows(workspace, None)  # an index to break: the checks ask that it survives
    counts = dict.fromkeys(OPS, 0)
    finished = dict.fromkeys(OPS, 0)
    window = dict.fromkeys(OPS, max_delay)  # kills land uniformly in [0, window] after "go"
    landed_after_a_write = dict.fromkeys(OPS, 0)  # kills after which some memory file had changed
    problems: list[str] = []
    attempts = 0
    while sum(counts.values()) < kills and attempts < kills * 4:
        attempts += 1
        op = min(OPS, key=lambda o: (counts[o], rng.random()))
        if op in ("sync", "reflect"):
            _edit(workspace, attempts)  # new facts: the sync has files to re-index, reflect pages to update
        if op == "capture":
            talk(workspace, attempts)  # new turns: the capture has facts to write
        before = _files(workspace)
        proc = subprocess.Popen(
            [sys.executable, __file__, op, str(workspace)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "go":
            proc.kill()
            _, err = proc.communicate()
            problems.append(f"{op}: the child did not start: {err[-500:]}")
            continue
        time.sleep(rng.uniform(0, window[op]))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        if proc.returncode == -signal.SIGKILL and "done" not in out:
            counts[op] += 1
            landed_after_a_write[op] += _files(workspace) != before
            if not finished[op]:  # never seen to finish: widen the window until the kills reach its end
                window[op] = min(window[op] * 1.25, 5.0)
        else:  # aim inside the operation from now on: a fast edit takes milliseconds
            finished[op] += 1
            window[op] = 1.2 * max([float(w) for w in out.split()[1:2]] or [window[op]])
        problems += check_after_kill(op, workspace, before, scratch)
    if "capture" in OPS and transcript_of(workspace).exists():  # after the kills, a capture run to its end
        done = subprocess.run([sys.executable, __file__, "capture", str(workspace)], capture_output=True, text=True)
        if done.returncode != 0:
            problems.append(f"capture: the last capture failed: {done.stderr[-500:]}")
        problems += captured_once(workspace)
    return {
        "kills": counts,
        "finished_before_the_kill": finished,
        "landed_after_a_write": landed_after_a_write,
        "problems": problems,
    }


if __name__ == "__main__":
    os.environ.setdefault("MEMLANE_HOME", str(Path(sys.argv[2]).parent / "home"))
    child(sys.argv[1], sys.argv[2])
