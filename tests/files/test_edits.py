"""memory_replace, memory_insert and memory_core: exact edits, the core limit, paths, immediate indexing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, write

DAY = "# 2026-01-05\n\n## Standup\n- Billing migration blocked.\n- Marco upgraded staging.\n\n## Notes\n- Tax idea.\n"


@pytest.fixture
def mem(tmp_path: Path, fake: FakeEmbedder) -> memlane.Memory:
    write(tmp_path, "MEMORY.md", "# Memory\n\n- Dana owns billing.\n- The database is PostgreSQL.\n")
    write(tmp_path, "memory/2026-01-05.md", DAY)
    m = memlane.open(tmp_path, provider=fake, config={"agents": {"defaults": {"core": {"maxChars": 200}}}})
    m.sync()
    return m


def test_replace_an_exact_passage(mem: memlane.Memory) -> None:
    out = mem.replace(
        "memory/2026-01-05.md", "- Marco upgraded staging.", "- Marco upgraded staging to 1.31.\n- And prod."
    )
    assert (out["startLine"], out["endLine"]) == (5, 6) and out["indexed"] is True
    assert out["text"] == "- Marco upgraded staging to 1.31.\n- And prod."
    assert (mem.workspace / "memory/2026-01-05.md").read_text() == DAY.replace(
        "- Marco upgraded staging.", "- Marco upgraded staging to 1.31.\n- And prod."
    )
    assert mem.search("prod", min_score=0).results[0].path == "memory/2026-01-05.md"  # indexed at once
    deleted = mem.replace("memory/2026-01-05.md", "- And prod.\n", "")
    assert deleted["startLine"] == 6 and "And prod" not in (mem.workspace / "memory/2026-01-05.md").read_text()


def test_replace_is_refused_unless_the_passage_occurs_exactly_once(mem: memlane.Memory) -> None:
    path = mem.workspace / "memory/2026-01-05.md"
    with pytest.raises(memlane.MemlaneError, match="occurs 2 times"):
        mem.replace("memory/2026-01-05.md", "## ", "### ")
    with pytest.raises(memlane.MemlaneError, match=r"not in memory/2026-01-05\.md \(it does occur with other spacing"):
        mem.replace("memory/2026-01-05.md", "billing  MIGRATION", "x")
    with pytest.raises(memlane.MemlaneError, match="non-empty"):
        mem.replace("memory/2026-01-05.md", "", "x")
    assert path.read_text() == DAY


@pytest.mark.parametrize(
    ("line", "expected_start", "expected"),
    [
        (0, 1, "NEW\n" + DAY),
        (-1, 9, DAY + "NEW\n"),
        (4, 5, DAY.replace("blocked.\n", "blocked.\nNEW\n")),
        (None, 9, DAY + "NEW\n"),
    ],
)
def test_insert_at_a_line(mem: memlane.Memory, line: int | None, expected_start: int, expected: str) -> None:
    out = mem.insert("memory/2026-01-05.md", "NEW", line=line)
    assert out["startLine"] == out["endLine"] == expected_start and out["text"] == "NEW"
    assert (mem.workspace / "memory/2026-01-05.md").read_text() == expected


def test_insert_under_a_heading_and_into_a_new_file(mem: memlane.Memory) -> None:
    out = mem.insert("memory/2026-01-05.md", "- Ship the fix.", heading="Standup")
    assert (
        out["startLine"] == 7
        and "- Marco upgraded staging.\n\n- Ship the fix.\n\n## Notes"
        in (mem.workspace / "memory/2026-01-05.md").read_text()
    )
    page = mem.insert("bank/entities/Dana.md", "# Dana\n\naliases: DW", line=0)
    assert (page["startLine"], page["endLine"]) == (1, 3)
    assert (mem.workspace / "bank/entities/Dana.md").read_text() == "# Dana\n\naliases: DW\n"
    assert mem.status()["facts"]["pages"] == 1  # indexed at once, as an entity page


def test_insert_mistakes(mem: memlane.Memory) -> None:
    with pytest.raises(memlane.MemlaneError, match="past the end"):
        mem.insert("memory/2026-01-05.md", "x", line=50)
    with pytest.raises(memlane.MemlaneError, match="not both"):
        mem.insert("memory/2026-01-05.md", "x", line=1, heading="Notes")
    with pytest.raises(memlane.MemlaneError, match="empty"):
        mem.insert("memory/2026-01-05.md", "  \n")


@pytest.mark.parametrize(
    "rel", ["../outside.md", "/etc/passwd", "notes/x.md", "memory/x.txt", "memory/.hidden.md", "sessions/a.jsonl"]
)
def test_edits_outside_the_memory_files_are_refused(mem: memlane.Memory, rel: str) -> None:
    with pytest.raises(memlane.PathError):
        mem.insert(rel, "x")
    with pytest.raises(memlane.PathError):
        mem.replace(rel, "a", "b")
    assert not (mem.workspace.parent / "outside.md").exists()


def test_edits_through_a_symlink_are_refused(mem: memlane.Memory, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, mem.workspace / "bank")
    with pytest.raises(memlane.PathError, match="symlink"):
        mem.insert("bank/entities/X.md", "x")
    assert not list(outside.rglob("*"))


def test_core_block_size_and_warning(mem: memlane.Memory) -> None:
    core = mem.core()
    assert core["path"] == "MEMORY.md" and core["chars"] == len(core["text"]) == 61 and core["maxChars"] == 200
    assert "warning" not in core
    (mem.workspace / "MEMORY.md").write_text("x" * 250)  # edited by hand past the limit
    assert "over core.maxChars 200" in mem.core()["warning"]


def test_edits_that_grow_memory_md_past_the_limit_are_refused(mem: memlane.Memory) -> None:
    path = mem.workspace / "MEMORY.md"
    before = path.read_text()
    long = "- " + "word " * 40
    for attempt in (
        lambda: mem.insert("MEMORY.md", long),
        lambda: mem.replace("MEMORY.md", "Dana owns billing.", long),
        lambda: mem.write(long, long_term=True),
        lambda: mem.write(long, long_term=True, heading="People"),
    ):
        with pytest.raises(
            memlane.MemlaneError, match=r"would be \d+ characters, over the core limit of 200.*it is 61 now"
        ):
            attempt()
    assert path.read_text() == before
    assert mem.write("- Short.", long_term=True)["path"] == "MEMORY.md"  # within the limit: fine
    path.write_text("y" * 300)
    mem.replace("MEMORY.md", "y" * 300, "y" * 250)  # over the limit but shrinking: allowed
    assert len(path.read_text()) == 250
    # daily logs have no such limit
    mem.insert("memory/2026-01-05.md", long * 3)


def test_core_without_memory_md(tmp_path: Path, fake: FakeEmbedder) -> None:
    with memlane.open(tmp_path, provider=fake) as mem:
        core = mem.core()
        assert core["text"] == "" and core["chars"] == 0 and "does not exist yet" in core["note"]
