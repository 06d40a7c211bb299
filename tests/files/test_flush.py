"""The pre-compaction memory flush decision."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import memlane
from memlane.config import resolve
from memlane.files.flush import plan_flush


def test_flush_threshold_prompts_and_one_flush_per_cycle(tmp_path: Path) -> None:
    cfg = resolve(
        {
            "agents": {
                "defaults": {"compaction": {"reserveTokensFloor": 20000, "memoryFlush": {"softThresholdTokens": 4000}}}
            }
        }
    )
    state = tmp_path / "sessions.json"
    day = dt.date(2026, 5, 2)
    below = plan_flush(cfg, state, "s1", 75_999, 100_000, today=day)
    assert not below.flush and below.threshold == 76_000 and not state.exists()
    due = plan_flush(cfg, state, "s1", 76_000, 100_000, compaction_count=0, today=day)
    assert due.flush and "NO_REPLY" in (due.prompt or "") and "memory/2026-05-02.md" in (due.prompt or "")
    assert due.system_prompt == "Session nearing compaction. Store durable memories now."
    again = plan_flush(cfg, state, "s1", 90_000, 100_000, compaction_count=0, today=day)
    assert not again.flush and "already flushed" in again.reason
    assert plan_flush(cfg, state, "s2", 90_000, 100_000, today=day).flush  # another session
    assert plan_flush(cfg, state, "s1", 90_000, 100_000, compaction_count=1, today=day).flush  # next cycle
    assert json.loads(state.read_text())["s1"]["memoryFlushCompactionCount"] == 1


def test_flush_disabled_or_not_recorded(tmp_path: Path) -> None:
    off = resolve({"agents": {"defaults": {"compaction": {"memoryFlush": {"enabled": False}}}}})
    assert not plan_flush(off, tmp_path / "s.json", "s", 10**6, 10**5).flush
    on = resolve({})
    assert plan_flush(on, tmp_path / "s.json", "s", 10**6, 10**5, record=False).flush
    assert plan_flush(on, tmp_path / "s.json", "s", 10**6, 10**5, record=False).flush  # nothing was recorded


def test_memory_flush_uses_the_agents_sessions_state_file(tmp_path: Path, memlane_home: Path) -> None:
    with memlane.open(tmp_path, provider="none") as mem:
        assert mem.memory_flush("abc", 500_000, 200_000).flush
        assert not mem.memory_flush("abc", 500_000, 200_000).flush
    assert (memlane_home / "agents" / "main" / "sessions" / "sessions.json").exists()


def test_a_window_smaller_than_the_reserve_never_flushes_at_zero_tokens(tmp_path: Path) -> None:
    # 16k window, 20k reserve + 4k soft threshold: the old threshold was -8,000, so a flush was due at 0 tokens
    cfg = resolve({})
    decision = plan_flush(cfg, tmp_path / "s.json", "s", 0, 16_000)
    assert not decision.flush and decision.threshold == 0
    assert "leaves no room" in decision.reason and "reserveTokensFloor" in decision.reason
    assert not plan_flush(cfg, tmp_path / "s.json", "s", 15_999, 16_000).flush
    assert not (tmp_path / "s.json").exists()
    assert plan_flush(cfg, tmp_path / "s.json", "s", 1, 24_001).flush  # one token of room: due from there
