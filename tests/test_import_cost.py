"""``memlane import`` as a user runs it: its progress covers the indexing that follows the capture, and an
interrupt (a real SIGINT to the real CLI) says what was written, which the files and a second run bear out."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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
    named = set(rest.split("; ")[0].split(", "))
    assert total == CONVERSATIONS and 1 <= done < CONVERSATIONS
    assert turns == 6 * done
    assert named == _memory_files(ws)  # the files it names are the files there are
    assert len(named) == int(head.rsplit(", ", 1)[1]) == done  # one day per conversation
    # What it says was captured was recorded as such: the next run goes on from there.
    again = subprocess.run(
        _args(ws, export, "--json"), capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["turnsSeenBefore"] == turns and report["turnsRead"] == 6 * CONVERSATIONS
    assert len(_memory_files(ws)) == CONVERSATIONS
