"""``memlane import`` as a user runs it: its progress covers the indexing that follows the capture, and an
interrupt (a real SIGINT to the real CLI) says what was written, which the files and a second run bear out."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import memlane

CONVERSATIONS = 400


def _chatgpt_export(path: Path, conversations: int, turns: int = 6) -> None:
    """A ChatGPT export of ``conversations`` conversations, each on its own day (2024 onwards)."""
    out = []
    for c in range(conversations):
        mapping: dict[str, Any] = {}
        parent = None
        start = 1_704_103_200 + c * 86_400  # noon, day by day
        for k in range(turns):
            node = f"c{c}-{k}"
            role = "user" if k % 2 == 0 else "assistant"
            text = (
                f"My neighbour Ines{c} moved to Porto on day {c} and I decided to visit her in spring {2024 + k}."
                if role == "user"
                else f"Noted: Ines{c} lives in Porto now; a spring {2024 + k} visit sounds lovely."
            )
            message = {
                "id": node,
                "author": {"role": role},
                "create_time": start + 60 * k,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {},
                "recipient": "all",
            }
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": message}
            parent = node
        out.append(
            {"id": f"conv-{c}", "title": f"Porto {c}", "create_time": start, "current_node": parent, "mapping": mapping}
        )
    path.write_text(json.dumps(out))


def _args(ws: Path, export: Path, *more: str) -> list[str]:
    cfg = ws.parent / "cfg.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    return [
        sys.executable,
        "-m",
        "memlane",
        "--workspace",
        str(ws),
        "-c",
        str(cfg),
        "import",
        "chatgpt",
        str(export),
        *more,
    ]


def _memory_files(ws: Path) -> set[str]:
    return {p.relative_to(ws).as_posix() for p in (ws / "memory").rglob("*.md")}


def test_import_progress_covers_indexing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    export = tmp_path / "conversations.json"
    _chatgpt_export(export, 3)
    done = subprocess.run(_args(ws, export), capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.replace("\r", "\n").splitlines()
    assert any(ln.startswith("capture:") for ln in lines), done.stderr
    assert any(ln.startswith("index:") for ln in lines), done.stderr  # the indexing is shown, after the capture
    assert "Traceback" not in done.stderr


def test_an_interrupted_import_says_what_it_wrote(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    export = tmp_path / "conversations.json"
    _chatgpt_export(export, CONVERSATIONS)
    proc = subprocess.Popen(
        _args(ws, export), stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not any((ws / "memory").glob("*.md")):
        time.sleep(0.05)  # capture has begun: the first conversation is written
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 1, (out, err)
    assert "Traceback" not in err, err
    message = next(ln for ln in err.splitlines() if ln.startswith("memlane: error: interrupted"))
    # "interrupted: K of N conversations captured (T turns), F memory file(s) written: a, b, ...; ..."
    head, _, rest = message.partition(" memory file(s) written: ")
    done, total = (int(x) for x in head.split("interrupted: ")[1].split(" conversations")[0].split(" of "))
    turns = int(head.split("captured (")[1].split(" turns")[0])
    listed, _, more = rest.split("; ")[0].partition(" and ")
    named = set(listed.split(", "))
    assert total == CONVERSATIONS and 1 <= done < CONVERSATIONS
    assert turns == 6 * done
    assert int(head.rsplit(", ", 1)[1]) == done == len(_memory_files(ws))  # one day per conversation
    if more:  # past 20 files: the first 20 named, the others counted
        assert named < _memory_files(ws) and len(named) + int(more.split()[0]) == done
    else:
        assert named == _memory_files(ws)  # the files it names are the files there are
    assert "in part" not in message  # it stopped between conversations
    # What it says was captured was recorded as such: the next run goes on from there.
    again = subprocess.run(
        _args(ws, export, "--json"), capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["turnsSeenBefore"] == turns and report["turnsRead"] == 6 * CONVERSATIONS
    assert len(_memory_files(ws)) == CONVERSATIONS


def _dana_workspace(ws: Path, facts: int) -> None:
    """``facts`` Retain bullets about Dana, a hundred per daily log."""
    for day in range(0, facts, 100):
        date = dt.date(2020, 1, 1) + dt.timedelta(days=day // 100)
        bullets = "".join(
            f"- W @Dana: Dana visited the town of Brook{k} on trip number {k}.\n"
            for k in range(day, min(day + 100, facts))
        )
        (ws / "memory").mkdir(parents=True, exist_ok=True)
        (ws / "memory" / f"{date.isoformat()}.md").write_text(f"# {date.isoformat()}\n\n## Retain\n{bullets}")


def _facts_read_by_a_capture(tmp_path: Path, facts: int, fake: Any) -> tuple[int, int]:
    """Facts the store hands to one 10-turn capture about Dana, in a workspace of ``facts`` facts about her,
    and the restatements it recognised."""
    ws = tmp_path / f"ws-{facts}"
    _dana_workspace(ws, facts)
    turns = [
        {"role": "user", "name": "Kim", "content": text, "timestamp": f"2026-05-01T10:{k:02d}:00"}
        for k, text in enumerate(
            [f"Dana visited the town of Brook{k} on trip number {k}." for k in range(5)]  # known, word for word
            + [f"Dana bought a red kayak for the lake number {k}." for k in range(5)]  # new
        )
    ]
    with memlane.open(ws, provider=fake, store={"path": str(tmp_path / f"idx-{facts}.sqlite")}) as mem:
        mem.sync()
        read = [0]
        by_seq = mem.store.facts.by_seq

        def counting(seqs: Any) -> Any:
            found = by_seq(seqs)
            read[0] += len(found)
            return found

        mem.store.facts.by_seq = counting  # type: ignore[method-assign]
        report = mem.capture(turns, session=f"cost-{facts}", now=dt.datetime(2026, 5, 2))
    return read[0], report.skipped_as_known


def test_a_capture_reads_what_its_drafts_need_not_every_fact_about_their_entities(tmp_path: Path, fake: Any) -> None:
    small, known_small = _facts_read_by_a_capture(tmp_path, 200, fake)
    large, known_large = _facts_read_by_a_capture(tmp_path, 2000, fake)
    assert known_small == known_large == 5  # the restatements are still recognised
    assert large <= 1.5 * max(small, 1), (small, large)  # ten times the facts, not ten times the reading


def test_restatements_are_found_on_either_store(tmp_path: Path, fake: Any, store_driver: str) -> None:
    """The restatement check's full-text lookup is an expression both stores read (PostgreSQL's reader takes
    only phrases): on either, the known statements are skipped and the capture goes through."""
    ws = tmp_path / "ws"
    _dana_workspace(ws, 100)
    turns = [
        {"role": "user", "name": "Kim", "content": text, "timestamp": f"2026-05-01T10:{k:02d}:00"}
        for k, text in enumerate(
            [f"Dana visited the town of Brook{k} on trip number {k}." for k in range(3)]
            + ["Dana bought a red kayak for the lake."]
        )
    ]
    with memlane.open(ws, provider=fake) as mem:
        mem.sync()
        assert mem.store.driver == store_driver
        report = mem.capture(turns, session="either-store", now=dt.datetime(2026, 5, 2))
    assert report.skipped_as_known == 3, report


def test_a_ctrl_c_meant_for_memlane_does_not_reach_git(tmp_path: Path) -> None:
    """Import's first Ctrl-C only asks memlane to stop after the conversation; git, run meanwhile for the
    graph's record times, must finish: killed, it would leave an empty history cached for this HEAD."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_git = bin_dir / "git"
    fake_git.write_text("#!/bin/sh\nsleep 1\necho finished\n")
    fake_git.chmod(0o755)
    script = (
        "import signal, sys\n"
        "from pathlib import Path\n"
        "from memlane.facts.graph import history\n"
        "signal.signal(signal.SIGINT, lambda *_: None)  # as import's handler: note it, go on\n"
        "print('ready', flush=True)\n"
        "done = history._run(['log'], Path('.'))\n"
        "print(done.returncode if done else None, done.stdout.strip() if done else '', flush=True)\n"
    )
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    time.sleep(0.4)  # git is sleeping now
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: the whole foreground group
    out, _ = proc.communicate(timeout=30)
    assert out.strip() == "0 finished"
