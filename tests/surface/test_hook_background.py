"""`memlane hook capture --background`: the host's hook returns after checking its input; a process of its own
captures, and its result goes to $MEMLANE_HOME/logs/capture.log. And what makes that return fast: the CLI starts
without loading the library (numpy, the model's runtime, pydantic, the capture pipeline)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conftest import background_result
from memlane.capture import hook_log


def _transcript(path: Path, said: str, session: str = "s1", extra: Sequence[tuple[str, str]] = ()) -> Path:
    records = [
        {"type": "user", "sessionId": session, "uuid": "u1", "parentUuid": None,
         "timestamp": "2026-03-02T09:00:00Z", "message": {"role": "user", "content": said}},
        {"type": "assistant", "sessionId": session, "uuid": "u2", "parentUuid": "u1",
         "timestamp": "2026-03-02T09:00:04Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}},
    ]  # fmt: skip
    for n, (role, text) in enumerate(extra):
        content = text if role == "user" else [{"type": "text", "text": text}]
        records.append({"type": role, "sessionId": session, "uuid": f"x{n}", "parentUuid": None,
                        "timestamp": f"2026-03-02T10:{n // 60:02d}:{n % 60:02d}Z",
                        "message": {"role": role, "content": content}})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _hook(ws: Path, payload: dict[str, Any], *flags: str, config: dict[str, Any] | None = None) -> Any:
    cfg = ws.parent / "cfg.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}, **(config or {})}}}))
    return subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "-c", str(cfg), "hook", "capture", *flags],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ),
        timeout=120,
    )


def _log(done: Any) -> Path:
    out = done.stdout.decode()
    assert done.returncode == 0 and "in the background" in out, (out, done.stderr)
    return Path(out.rsplit("its result goes to ", 1)[1].strip())


def test_a_background_capture_writes_the_memory_and_its_result_to_the_log(tmp_path: Path, memlane_home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    transcript = _transcript(tmp_path / "t.jsonl", "I moved to Porto last week.")
    done = _hook(ws, {"session_id": "s1", "transcript_path": str(transcript)}, "--background")
    log = _log(done)
    assert log == memlane_home / "logs" / "capture.log"
    assert background_result(log, transcript).startswith("captured 2 turns")
    assert "Porto" in (ws / "memory" / "2026-03-02.md").read_text()
    # the background capture recorded what it read, as a capture in the hook's own process does
    again = _hook(ws, {"session_id": "s1", "transcript_path": str(transcript)})
    assert again.returncode == 0 and b"captured 0 turns" in again.stdout, again.stdout


def test_a_background_capture_that_fails_says_why_in_the_log(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    transcript = _transcript(tmp_path / "t.jsonl", "I moved to Porto last week.")
    done = _hook(ws, {"transcript_path": str(transcript)}, "--background", config={"workspaceAccess": "ro"})
    result = background_result(_log(done), transcript)
    assert result.startswith("memlane: error:") and "workspaceAccess" in result, result
    assert not (ws / "memory").exists()
    # no host shows it: doctor does, with the command that captures the transcript again
    check = _captures_check(ws)
    assert not check["ok"] and "1 of the last 1 background captures failed" in check["detail"], check
    cfg = ws.parent / "cfg.json"  # the command captures where the hook did: its workspace and config
    assert check["fix"] == shlex.join(
        ["memlane", "--workspace", str(ws), "--config", str(cfg), "capture", "--transcript", str(transcript)]
    )
    # a later capture of the same transcript that succeeds takes what the failed one would have written
    done = _hook(ws, {"transcript_path": str(transcript)}, "--background")
    assert background_result(_log(done), transcript).startswith("captured 2 turns")
    check = _captures_check(ws)
    assert check["ok"] and "the last 2 background capture(s) ended without error" in check["detail"], check


def _captures_check(ws: Path) -> dict[str, Any]:
    cfg = ws.parent / "cfg.json"
    args = [sys.executable, "-m", "memlane", "--workspace", str(ws), "-c", str(cfg), "doctor", "--json"]
    done = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ), timeout=120)
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    check: dict[str, Any] = checks["captures"]
    return check


def test_a_background_hook_checks_its_input_before_it_returns(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for payload, said in (
        ({"transcript_path": str(folder)}, "not a regular file"),  # there, and not a file the capture could read
        ({"transcript_path": str(fifo)}, "not a regular file"),  # opening it would wait for a writer forever
        ({}, "no transcript_path"),
    ):
        done = _hook(ws, payload, "--background")
        err = done.stderr.decode()
        assert done.returncode == 1 and said in err and "Traceback" not in err, err
    quiet = _hook(ws, {"transcript_path": str(tmp_path / "never-written.jsonl")}, "--background")
    assert quiet.returncode == 0 and b"nothing to capture" in quiet.stdout


HEAVY = ("numpy", "onnxruntime", "pydantic", "tokenizers", "memlane.memory", "memlane.capture.pipeline")


def test_the_cli_starts_without_loading_the_library() -> None:
    """What lets a hook return in about 0.1 s: the CLI and `import memlane` load none of the heavy modules until a
    command needs them (an import added at the top of a CLI module, or of memlane/__init__, fails this)."""
    probe = "import json, sys, memlane, memlane.surface.cli; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    loaded = {m if m.startswith("memlane") else m.split(".")[0] for m in json.loads(done.stdout)}
    assert done.returncode == 0 and not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    # and the library is all there when used: the lazy names resolve
    use = "import memlane; print(memlane.Memory.__name__, memlane.open.__name__, memlane.CaptureReport.__name__)"
    done = subprocess.run([sys.executable, "-c", use], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["Memory", "open_memory", "CaptureReport"], done.stderr


def test_overlapping_captures_each_get_their_own_result(tmp_path: Path) -> None:
    """A long capture in one workspace and a failing one in another, started while the first runs: each result
    goes to its own capture, and doctor in each workspace reports only its own."""
    long_ws, bad_ws = tmp_path / "a" / "ws", tmp_path / "b" / "ws"
    long_ws.mkdir(parents=True)
    bad_ws.mkdir(parents=True)
    turns = [("user", f"I planted {n} tomato seedlings in the north bed on day {n}.") for n in range(300)]
    long_t = _transcript(tmp_path / "long.jsonl", "I moved to Porto last week.", extra=turns)
    bad_t = _transcript(tmp_path / "bad.jsonl", "I moved to Braga last week.")
    first = _hook(long_ws, {"transcript_path": str(long_t)}, "--background")
    second = _hook(bad_ws, {"transcript_path": str(bad_t)}, "--background", config={"workspaceAccess": "ro"})
    log = _log(first)
    assert _log(second) == log
    assert background_result(log, bad_t).startswith("memlane: error:")
    assert background_result(log, long_t).startswith("captured 302 turns")
    assert not _captures_check(bad_ws)["ok"]
    assert _captures_check(long_ws)["ok"]


def test_a_capture_whose_process_died_is_reported(tmp_path: Path, memlane_home: Path) -> None:
    """No end record, and its process is gone (killed, or the interpreter could not load memlane): doctor says
    so, with the command that captures the transcript again."""
    ws = tmp_path / "ws"
    ws.mkdir()
    _hook(ws, {"transcript_path": str(tmp_path / "never-written.jsonl")})  # writes cfg.json
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    log = memlane_home / "logs" / "capture.log"
    log.parent.mkdir(parents=True)
    transcript = str(tmp_path / "t.jsonl")
    hook_log.append(log, {"capture": "x1", "event": "start", "transcript": transcript, "workspace": str(ws.resolve()),
                          "agent": None, "config": None, "pid": int(gone.stdout)})  # fmt: skip
    check = _captures_check(ws)
    assert not check["ok"] and "ended without a result" in check["detail"], check
    assert check["fix"] == shlex.join(
        ["memlane", "--workspace", str(ws.resolve()), "capture", "--transcript", transcript]
    )
