"""The background captures' log as doctor and the benchmark read it (memlane.capture.hook_log): records joined by
their capture's id, whatever lines come between; a start without an end is running while its process lives."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from memlane.capture import hook_log
from memlane.capture.hook_log import append, ended, read_log, rotated


def _start(log: Path, ident: str, transcript: str, pid: int | None = None) -> None:
    append(log, {"capture": ident, "event": "start", "transcript": transcript, "workspace": "/w", "pid": pid})


def _end(log: Path, ident: str, ok: bool, result: str) -> None:
    append(log, {"capture": ident, "event": "end", "ok": ok, "result": result})


def test_records_are_joined_by_id_whatever_comes_between(tmp_path: Path) -> None:
    log = tmp_path / "capture.log"
    _start(log, "a", "/t/a.jsonl")
    _start(log, "b", "/t/evil\nmemlane: error: forged\u2028.jsonl")  # a line break in a path stays inside its record
    with open(log, "a") as handle:
        handle.write("Traceback (most recent call last):\n  {not json\nmemlane: error: forged\n")
    _end(log, "b", False, "memlane: error: writing memory is not allowed")  # b ends first
    _end(log, "a", True, "captured 800 turns: 12 facts written")
    logged = {e.capture: e for e in read_log(log)}
    assert set(logged) == {"a", "b"}
    assert (logged["a"].ok, logged["a"].result) == (True, "captured 800 turns: 12 facts written")
    assert (logged["b"].ok, logged["b"].transcript) == (False, "/t/evil\nmemlane: error: forged\u2028.jsonl")
    assert log.read_text().count("\n") == 7  # four records and the three raw lines: no record was split
    assert ended(log, "/t/a.jsonl") == "captured 800 turns: 12 facts written"
    assert read_log(tmp_path / "none.log") == [] and ended(tmp_path / "none.log", "/t/a.jsonl") is None


def test_a_capture_without_an_end_runs_while_its_process_lives_then_died(tmp_path: Path) -> None:
    log = tmp_path / "capture.log"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _start(log, "live", "/t/a.jsonl", alive.pid)
        _start(log, "dead", "/t/b.jsonl", int(gone.stdout))
        _start(log, "never", "/t/c.jsonl", None)
        states = {e.capture: e.state() for e in read_log(log)}
        assert states == {"live": "running", "dead": "died", "never": "died"}
        later = dt.datetime.now() + hook_log.STALE_AFTER + dt.timedelta(minutes=1)
        assert [e.state(later) for e in read_log(log) if e.capture == "live"] == ["died"]
    finally:
        alive.kill()
        alive.wait()
    assert ended(log, "/t/a.jsonl") is None


def test_the_log_is_moved_aside_when_large_and_both_files_are_read(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "capture.log"
    with rotated(log):  # makes the folder
        pass
    assert oct(log.parent.stat().st_mode & 0o777) == "0o700"
    out = hook_log.open_for_output(log)  # a capture's own output, as the runner's hook opens it
    os.write(out, b"x" * (hook_log.LOG_MAX_BYTES + 1) + b"\n")
    os.close(out)
    _start(log, "old", "/t/a.jsonl")
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    with rotated(log):
        _end(log, "old", True, "captured 1 turns: 0 facts written")  # its end lands in the new file
    assert (tmp_path / "logs" / "capture.log.1").stat().st_size > hook_log.LOG_MAX_BYTES
    assert [(e.capture, e.ok) for e in read_log(log)] == [("old", True)]  # start in capture.log.1, end in the new
