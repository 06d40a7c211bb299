"""Pseudo-relevance feedback on the keyword leg (feedback.py): words of the best hits find what the query's
own words do not; off by default."""

from __future__ import annotations

from pathlib import Path

import memlane
from conftest import write
from memlane.search.feedback import expansion_terms
from memlane.text.keywords import STOPWORDS, match_expression


def _workspace(root: Path) -> Path:
    ws = root / "ws"
    write(ws, "memory/2024-05-01.md", "- Ana practises the violin every Tuesday with her teacher Boris.\n")
    write(ws, "memory/2024-05-02.md", "- Boris, the teacher, praised the recital at the conservatory.\n")
    write(ws, "memory/2024-05-03.md", "- The kubernetes cluster ran out of memory during the night.\n")
    for day in range(4, 12):  # other logs, so that the words above are rare
        write(ws, f"memory/2024-05-{day:02d}.md", f"- Day {day}: groceries, laundry and a walk in the park.\n")
    return ws


def test_the_best_hits_words_bring_a_chunk_without_the_querys_words(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        plain = {r.path for r in mem.search("violin lessons", min_score=0).results}
        assert plain == {"memory/2024-05-01.md"}
    with memlane.open(ws, provider="none", query={"hybrid": {"feedback": {"weight": 0.3}}}) as mem:
        found = [r.path for r in mem.search("violin lessons", min_score=0).results]
        assert found[0] == "memory/2024-05-01.md"  # the query's own match stays first
        assert "memory/2024-05-02.md" in found  # Boris and the teacher, from the first hit
        assert "memory/2024-05-03.md" not in found


def test_expansion_words_are_neither_the_querys_nor_stopwords(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        match = match_expression("violin lessons")
        assert match is not None
        hits = mem.store.keyword_search(match, 10)
        words = expansion_terms(mem.store, "violin lessons", hits, docs=5, terms=6)
        assert {"boris", "teacher", "tuesday"} <= set(words)
        assert not set(words) & ({"violin", "lessons"} | STOPWORDS)
        # the rarer words first: "boris" and "teacher" are in two chunks, the others in one
        assert not {"boris", "teacher"} & set(expansion_terms(mem.store, "violin lessons", hits, docs=5, terms=3))
        assert expansion_terms(mem.store, "violin lessons", [], docs=5, terms=4) == []
