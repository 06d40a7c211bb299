"""The background captures' log as doctor and the benchmark read it (memlane.capture.hook_log)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memlane.capture import hook_log
from memlane.capture.hook_log import ERROR_PREFIX, ended, header, read_log, rotate

WHEN = dt.datetime(2026, 3, 2, 9, 0, 5)


def test_each_capture_ends_with_its_last_line_notes_aside(tmp_path: Path) -> None:
    log = tmp_path / "capture.log"
    log.write_text(
        "\n".join(
            [
                header("/t/a: one.jsonl", WHEN),  # a colon in the path is the path's
                "note: the index may be stale",
                "captured 4 turns: 2 facts written",
                header("/t/b.jsonl", WHEN),
                f"{ERROR_PREFIX} writing memory is not allowed",
                header("/t/a: one.jsonl", WHEN),  # handed off, not ended yet
            ]
        )
        + "\n"
    )
    logged = read_log(log)
    assert [(e.transcript, e.result, e.failed) for e in logged] == [
        ("/t/a: one.jsonl", "captured 4 turns: 2 facts written", False),
        ("/t/b.jsonl", f"{ERROR_PREFIX} writing memory is not allowed", True),
        ("/t/a: one.jsonl", None, False),
    ]
    assert ended(log, "/t/a: one.jsonl") is None  # its latest capture has not ended
    assert str(ended(log, "/t/b.jsonl")).startswith(ERROR_PREFIX)
    assert read_log(tmp_path / "none.log") == [] and ended(tmp_path / "none.log", "/t/b.jsonl") is None


def test_the_log_is_read_from_its_tail_and_moved_aside_when_large(tmp_path: Path) -> None:
    log = tmp_path / "capture.log"
    old = "".join(f"{header(f'/t/{n}.jsonl', WHEN)}\ncaptured 1 turns: 0 facts written\n" for n in range(20_000))
    log.write_text(old)
    logged = read_log(log)
    assert logged[-1].transcript == "/t/19999.jsonl" and len(logged) < 20_000  # the tail only
    assert all(e.result for e in logged[1:])
    rotate(log)
    assert not log.exists() and (tmp_path / "capture.log.1").read_text() == old
    assert len(old) > hook_log.LOG_MAX_BYTES
