"""memorySearch.shared: another agent's memory, searched read-only, each hit naming its agent."""

from __future__ import annotations

from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, index_sql, write
from memlane.surface.tools import run_tool

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def _index_files(home: Path, agent: str) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in (home / "memory").glob(f"{agent}.sqlite*")}


OPS = ("memory/2026-01-05.md", "# Ops\n\n- The zebra migration moves the billing cluster on Friday.\n")
RESEARCH = ("memory/2026-01-05.md", "# Research\n\n- Lunch with the team about the survey results.\n")


def _agents(
    tmp_path: Path, fake: FakeEmbedder, logs: tuple[tuple[str, str], tuple[str, str]] = (OPS, RESEARCH)
) -> tuple[Path, Path]:
    """Workspaces of agents "a" and "b", one log each, indexed."""
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, *logs[0])
    write(b, *logs[1])
    for ws, agent in ((a, "a"), (b, "b")):
        with memlane.open(ws, agent=agent, provider=fake) as mem:
            mem.sync()
    return a, b


def test_nothing_of_another_agent_is_visible_unless_configured(
    tmp_path: Path, fake: FakeEmbedder, memlane_home: Path
) -> None:
    _, b = _agents(tmp_path, fake)
    with memlane.open(b, agent="b", provider=fake) as mem:
        resp = mem.search("zebra migration billing cluster", min_score=0)
        assert all(r.agent is None and r.path.startswith("memory/") for r in resp.results)
        assert not any("zebra" in r.snippet for r in resp.results)


def _agent_rows(mem: memlane.Memory, agent: str) -> list[tuple[object, ...]]:
    """Every row of ``agent`` in the PostgreSQL tables that a write would touch."""
    return [
        row
        for table in ("meta", "files", "chunks", "embedding_cache")
        for row in index_sql(mem, f"SELECT * FROM {table} WHERE agent = ? ORDER BY 2, 3", (agent,))
    ]


def test_shared_agent_hits_carry_their_agent_and_leave_its_index_untouched(
    tmp_path: Path, fake: FakeEmbedder, memlane_home: Path, store_driver: str
) -> None:
    _, b = _agents(tmp_path, fake)
    before = _index_files(memlane_home, "a")
    rows_before: list[tuple[object, ...]] = []
    with memlane.open(b, agent="b", provider=fake, shared=["a", "ghost"]) as mem:
        if store_driver == "postgres":
            rows_before = _agent_rows(mem, "a")
        resp = mem.search("zebra migration billing cluster")
        top = resp.results[0]
        assert top.agent == "a" and "zebra migration" in top.snippet and top.path == "memory/2026-01-05.md"
        assert any("'ghost' skipped: no index" in n for n in resp.notes)
        assert resp.mode == "hybrid"
        lunch = mem.search("lunch survey results")
        assert lunch.results[0].agent == "b"  # its own hits are tagged too
        payload = run_tool(mem, "memory_search", {"query": "zebra migration"})
        assert payload["results"][0]["agent"] == "a"
        if store_driver == "postgres":  # one database: a's rows are unchanged (PostgresStore shared=True)
            assert rows_before and _agent_rows(mem, "a") == rows_before
            return
    after = _index_files(memlane_home, "a")
    assert after["a.sqlite"] == before["a.sqlite"]  # opened read-only: the database is not written
    # a WAL reader needs the -shm (SQLite makes it, and an empty -wal, when no one has the file open)
    assert after.get("a.sqlite-wal", (0, 0))[0] == 0


def test_shared_index_is_read_live_while_its_owner_writes(
    tmp_path: Path, fake: FakeEmbedder, memlane_home: Path
) -> None:
    a, b = _agents(tmp_path, fake)
    with memlane.open(b, agent="b", provider=fake, shared="*") as reader:
        assert reader.search("zebra migration").results[0].agent == "a"  # "*" found a's index beside b's
        write(a, "memory/2026-01-06.md", "# Ops\n\n- The quokka rollout starts on Monday.\n")
        with memlane.open(a, agent="a", provider=fake) as owner:
            owner.sync()
        hit = reader.search("quokka rollout").results[0]
        assert hit.agent == "a" and "quokka" in hit.snippet


def test_an_index_of_another_model_is_searched_by_keywords_and_says_so(
    tmp_path: Path, fake: FakeEmbedder, memlane_home: Path
) -> None:
    _, b = _agents(tmp_path, fake)
    other = FakeEmbedder(model="fake-2", dims=32)
    with memlane.open(b, agent="b", provider=other, shared=["a"]) as mem:
        mem.sync()
        resp = mem.search("zebra migration billing cluster")
        assert resp.results[0].agent == "a" and resp.results[0].vector_score is None
        assert any("'a' has no vectors of this model" in n for n in resp.notes)


def test_other_agents_relations_are_visible_read_only_with_their_agent(
    tmp_path: Path, fake: FakeEmbedder, memlane_home: Path, store_driver: str
) -> None:
    a, b = _agents(
        tmp_path,
        fake,
        (
            ("memory/2025-05-10.md", "# 2025-05-10\n## Retain\n- W @Peter: Moved to Lisbon.\n"),
            ("memory/2025-06-01.md", "# 2025-06-01\n## Retain\n- W @Peter: Joined @Acme as a chef.\n"),
        ),
    )
    with memlane.open(b, agent="b", provider=fake) as mem:  # nothing of a's unless configured
        alone = mem.graph("Peter", depth=1)
        assert {(e["object"], e.get("agent")) for e in alone["edges"]} == {("Acme", None)}
    before = _index_files(memlane_home, "a")
    with memlane.open(b, agent="b", provider=fake, shared=["a"]) as mem:
        hood = mem.graph("Peter", depth=1)
        edges = {(e["predicate"], e["object"], e["agent"]) for e in hood["edges"]}
        assert edges == {("works_at", "Acme", "b"), ("lives_in", "Lisbon", "a")}
        timeline = mem.timeline("Peter")
        relations = [(r["object"], r["agent"]) for r in timeline["relations"]]
        assert relations == [("Lisbon", "a"), ("Acme", "b"), ("chef", "b")]
        assert timeline["shared_now"] == {"a": {"lives_in": ["Lisbon"]}}
        assert timeline["now"] == {"works_at": ["Acme"], "role": ["chef"]}
    with memlane.open(a, agent="a", provider=fake) as mem:  # a still knows nothing of b's statements
        assert mem.timeline("Peter")["now"] == {"lives_in": ["Lisbon"]}
    if store_driver == "sqlite":
        assert _index_files(memlane_home, "a")["a.sqlite"] == before["a.sqlite"]
