"""Priors on fused scores (priors.py): the file, the query's time window read against ``now``, recency."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import memlane
from conftest import FakeEmbedder, write
from memlane.config import PriorSettings
from memlane.search.priors import QueryPriors, apply_priors
from memlane.surface.tools import run_tool
from memlane.text.timeparse import TimeRange
from memlane.workspace import day_of


@dataclass
class C:
    seq: int
    score: float


NOW = dt.datetime(2024, 3, 8, 12, 0)


def test_the_day_of_a_daily_log_archived_or_not() -> None:
    assert day_of("memory/2024-03-02.md") == dt.date(2024, 3, 2)
    assert day_of("memory/archive/2023/2023-01-31.md") == dt.date(2023, 1, 31)
    assert day_of("MEMORY.md") is None and day_of("bank/people/ana.md") is None
    assert day_of("memory/2024-02-31.md") is None  # not a day


def test_what_a_query_asks_of_time() -> None:
    last_week = QueryPriors.of("what did Ana do last week?", NOW)
    assert last_week.window == TimeRange(dt.date(2024, 2, 26), dt.date(2024, 3, 3)) and not last_week.present
    assert QueryPriors.of("what did we decide in May 2023", NOW).window == TimeRange(
        dt.date(2023, 5, 1), dt.date(2023, 5, 31)
    )
    current = QueryPriors.of("what is my current job?", NOW)
    assert current.window is None and current.present
    assert QueryPriors.of("tell me about Ana", NOW) == QueryPriors(None, False)


def test_a_chunk_takes_part_of_its_files_best_score() -> None:
    ranked = [C(1, 0.9), C(2, 0.3), C(3, 0.5)]
    paths = {1: "memory/2024-03-01.md", 2: "memory/2024-03-01.md", 3: "memory/2024-03-02.md"}
    apply_priors(ranked, paths, PriorSettings(file=0.5, time=0), "anything", NOW)
    assert [round(c.score, 2) for c in ranked] == [0.9, 0.6, 0.5]  # chunk 2 rises past chunk 3


def test_the_time_window_lifts_its_days_and_partly_the_days_just_after() -> None:
    ranked = [C(1, 0.5), C(2, 0.5), C(3, 0.5), C(4, 0.5), C(5, 0.5)]
    paths = {
        1: "memory/2024-02-28.md",  # inside last week
        2: "memory/2024-03-05.md",  # two days after it
        3: "memory/2024-02-20.md",  # before it
        4: "MEMORY.md",  # undated
        5: "memory/2024-03-20.md",  # beyond the slack
    }
    apply_priors(ranked, paths, PriorSettings(time=0.2), "what happened last week", NOW)
    score = {c.seq: c.score for c in ranked}
    assert score[1] == 0.7 and 0.5 < score[2] < 0.7 and score[3] == score[4] == score[5] == 0.5
    untouched = [C(1, 0.5)]
    apply_priors(untouched, paths, PriorSettings(time=0.2), "what happened with Ana", NOW)
    assert untouched[0].score == 0.5  # no time words, no window


def test_a_question_about_the_present_favours_the_newest_log() -> None:
    ranked = [C(1, 0.5), C(2, 0.5), C(3, 0.5)]
    paths = {1: "memory/2024-01-01.md", 2: "memory/2024-02-01.md", 3: "memory/2024-03-01.md"}
    apply_priors(ranked, paths, PriorSettings(time=0, recency=0.1), "where do I currently work?", NOW)
    assert [round(c.score, 3) for c in ranked] == [0.5, 0.55, 0.6]
    apply_priors(ranked, paths, PriorSettings(time=0, recency=0.1), "where did I work?", NOW)
    assert [round(c.score, 3) for c in ranked] == [0.5, 0.55, 0.6]  # not about the present: unchanged


def test_search_reads_time_words_against_now(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", "# 2024-03-02\n\n- Ana went hiking in the hills with Mel.\n")
    write(ws, "memory/2024-05-10.md", "# 2024-05-10\n\n- Ana went hiking in the hills with Tom.\n")
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        query = "where did Ana go hiking last week"
        assert mem.search(query, now=dt.datetime(2024, 3, 8)).results[0].path == "memory/2024-03-02.md"
        assert mem.search(query, now=dt.datetime(2024, 5, 15)).results[0].path == "memory/2024-05-10.md"
        payload = run_tool(mem, "memory_search", {"query": query, "now": "2024-03-08"})
        assert payload["results"][0]["path"] == "memory/2024-03-02.md"
        bad = run_tool(mem, "memory_search", {"query": query, "now": "next tuesday"})
        assert "now must be an ISO date" in str(bad["error"])
