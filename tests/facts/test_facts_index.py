"""The fact index through the sync pipeline: derivation, incremental updates, problems, migration, kills."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, kill_during_reindex, write
from memlane.facts.derive import derive_file

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def facts_of(mem: memlane.Memory, path: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    return [(f.start_line, f.kind, f.day, f.t_start, f.t_end) for f in mem.store.facts.of_path(path)]


def test_sync_derives_facts_with_day_time_anchors_and_sources(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        report = mem.sync()
        assert report.facts_written == 7 and report.fact_problems == 0
        assert facts_of(mem, "memory/2025-11-27.md") == [
            (7, "world", "2025-11-27", "2025-11-27", "2025-12-01"),
            (8, "experience", "2025-11-27", None, None),
            (10, "opinion", "2025-11-27", None, None),
            (11, "world", "2025-11-27", None, None),
        ]
        crash = mem.store.facts.of_path("memory/2025-11-27.md")[1]
        assert crash.source == "memory/2025-11-27.md#L8-L9"  # a continued bullet cites its whole range
        assert crash.anchors == (3,)  # the log line it was drawn from
        assert facts_of(mem, "MEMORY.md") == [(4, "opinion", None, None, None)]  # undated file: no day
        status = mem.status()["facts"]
        assert status["facts"] == 7 and status["pages"] == 2 and status["problems"] == 0
        # Pete has no page and no alias yet: a hint, never a silent merge into Peter
        assert any("@Pete (memory/2025-11-27.md:11)" in h and "did you mean Peter?" in h for h in status["hints"])


def test_malformed_bullets_are_reported_and_the_sync_goes_on(fact_workspace: Path, fake: FakeEmbedder) -> None:
    write(fact_workspace, "memory/2025-11-28.md", "## Retain\n- Q @Peter: no such kind\n- W @Peter: fine\n")
    with memlane.open(fact_workspace, provider=fake) as mem:
        report = mem.sync()
        assert report.fact_problems == 1 and report.facts_written == 8
        assert any(n.startswith("memory/2025-11-28.md:2: unknown fact kind 'Q'") for n in report.notes)
        assert mem.status()["facts"]["problemLines"][0].startswith("memory/2025-11-28.md:2: ")
        assert mem.search("fine", min_score=0).results  # the file is indexed as usual


def test_editing_one_bullet_re_derives_and_re_embeds_only_that_bullet(fact_workspace: Path, fake: FakeEmbedder) -> None:
    log = fact_workspace / "memory" / "2025-11-27.md"
    old_keys = {
        f.key
        for p in fact_workspace.rglob("*.md")
        for f in derive_file(p.relative_to(fact_workspace).as_posix(), p.read_text()).facts
    }
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        calls = len(fake.batches)
        log.write_text(log.read_text().replace("reviewed the warelay reconnect patch", "merged the reconnect patch"))
        report = mem.sync()
        new_texts = [t for batch in fake.batches[calls:] for t in batch]
        assert report.files_changed == 1 and report.facts_written == 4
        assert "@Pete @warelay: Pete merged the reconnect patch." not in new_texts  # the key is the content
        assert (
            "Pete merged the reconnect patch." in new_texts or "warelay: Pete merged the reconnect patch." in new_texts
        )
        assert not set(new_texts) & old_keys  # no unchanged fact was embedded again
        fact_texts = [t for t in new_texts if "\n" not in t and not t.startswith("#")]
        assert len(fact_texts) == 1
        # and the edited fact is found by its new words
        assert mem.recall("who merged the patch", k=1).facts[0].content == "Pete merged the reconnect patch."


def test_an_alias_on_a_page_applies_to_existing_facts_without_re_embedding(
    fact_workspace: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        before = {f.content for f in mem.recall("patch", entity="Peter", k=10).facts}
        assert "Pete reviewed the warelay reconnect patch." not in before
        texts = fake.embedded_texts
        write(fact_workspace, "bank/entities/Peter.md", "---\naliases: [Pete]\n---\n# Peter\n\nFounder.\n")
        report = mem.sync()
        assert report.facts_written == 0 and fake.embedded_texts - texts == report.embedded <= 1  # the page chunk
        after = mem.recall("patch", entity="Peter", k=10)
        assert "Pete reviewed the warelay reconnect patch." in {f.content for f in after.facts}
        assert all(f.entities[0] == "Peter" for f in after.facts if "Pete" in f.content)
        assert not mem.status()["facts"]["hints"]


def test_removed_files_take_their_facts_and_names_with_them(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        (fact_workspace / "memory" / "2025-11-27.md").unlink()
        (fact_workspace / "bank" / "entities" / "warelay.md").unlink()
        mem.sync()
        assert mem.status()["facts"]["facts"] == 3 and mem.status()["facts"]["pages"] == 1
        assert not mem.recall("Marrakech birthday", k=5).facts or all(
            "Marrakech" not in f.content for f in mem.recall("Marrakech birthday", k=5).facts
        )


@pytest.mark.sqlite_only
def test_a_version_1_index_is_migrated_and_facts_derived_from_the_cache(
    fact_workspace: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        db = mem.store.path
        chunks = mem.status()["chunks"]
    conn = sqlite3.connect(db)  # make it what memlane 0.1 wrote: no fact tables, schema 1
    for stmt in (
        "DROP TRIGGER facts_ai",
        "DROP TRIGGER facts_ad",
        "DROP TABLE facts_fts",
        "DROP TABLE facts",
        "DROP TABLE fact_mentions",
        "DROP TABLE entity_names",
        "DROP TABLE fact_problems",
        "DROP TABLE chunk_keys",
        "DROP TABLE chunks_said_fts",
        "UPDATE meta SET value = '1' WHERE key = 'schema_version'",
    ):
        conn.execute(stmt)
    conn.commit()
    conn.close()
    fresh = FakeEmbedder()
    with memlane.open(fact_workspace, provider=fresh) as mem:
        steps = [
            "index schema 1 -> 2",
            "index schema 2 -> 3",
            "index schema 3 -> 4",
            "index schema 4 -> 5",
            "index schema 5 -> 6",
            "index schema 6 -> 7",
        ]
        assert mem.store.migrated == steps and mem.store.recovered is None
        report = mem.sync()
        assert report.full_reindex and report.facts_written == 7 and mem.status()["chunks"] == chunks
        assert fresh.embedded_texts == 0  # every vector, facts' included, came from the cache
    assert not list(db.parent.glob("*.broken-*"))


def test_a_killed_reindex_keeps_the_old_facts(fact_workspace: Path, tmp_path: Path, memlane_home: Path) -> None:
    for i in range(30):
        write(
            fact_workspace, f"memory/2025-10-{i + 1:02d}.md", f"# Day {i}\n\n## Retain\n- W @Peter: fact number {i}\n"
        )
    with memlane.open(fact_workspace, provider=FakeEmbedder()) as mem:
        mem.sync()
        old = mem.status()["facts"]["facts"]
    kill_during_reindex(fact_workspace, tmp_path, memlane_home)
    with memlane.open(fact_workspace, provider=FakeEmbedder()) as mem:
        assert not mem.is_dirty() and mem.status()["facts"]["facts"] == old
        assert mem.recall("fact number 17", k=1).facts[0].source == "memory/2025-10-18.md#L4"


def test_sync_and_recall_never_change_the_workspace(fact_workspace: Path, fake: FakeEmbedder) -> None:
    def tree() -> dict[str, tuple[bytes, int]]:
        return {
            p.relative_to(fact_workspace).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in fact_workspace.rglob("*")
            if p.is_file()
        }

    before = tree()
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        mem.recall("Peter")
        mem.sync(force=True)
        mem.status()
    assert tree() == before  # nothing changed, and nothing (an index, a lock, a temp file) was added


CAPTURED = (
    "# 2025-11-29\n\n## Session 09:00–09:30 · the relay\n<!-- memlane:capture session=s1 -->\n\n### Retain\n"
    "- W @Peter: Peter wants the relay moved to Frankfurt. (Peter, 09:05)\n"
    "- W @User: User prefers short answers. (User, 09:06)\n"
    "- B @warelay: I moved the relay config to Frankfurt. (assistant, 09:20)\n"
    "- W @warelay: The relay runs in Frankfurt (since Monday).\n"
)


def test_each_fact_keeps_where_it_comes_from(fact_workspace: Path, fake: FakeEmbedder) -> None:
    write(fact_workspace, "memory/2025-11-29.md", CAPTURED)
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        got = [(f.start_line, f.origin) for f in mem.store.facts.of_path("memory/2025-11-29.md")]
        assert got == [(7, "person"), (8, "person"), (9, "agent"), (10, "file")]
        assert {f.origin for f in mem.store.facts.of_path("MEMORY.md")} == {"file"}
        # a person who takes the stamp off a captured bullet makes it theirs: the next sync says so
        write(fact_workspace, "memory/2025-11-29.md", CAPTURED.replace(" (assistant, 09:20)", ""))
        mem.sync()
        assert [f.origin for f in mem.store.facts.of_path("memory/2025-11-29.md")][2] == "file"
        assert mem.entity("warelay")["facts"][0]["origin"] == "file"


@pytest.mark.sqlite_only
def test_a_version_6_index_gains_origins_from_one_reindex(fact_workspace: Path, fake: FakeEmbedder) -> None:
    write(fact_workspace, "memory/2025-11-29.md", CAPTURED)
    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        db = mem.store.path
    conn = sqlite3.connect(db)  # what memlane wrote before origins: no facts.origin column, schema 6
    conn.execute("ALTER TABLE facts DROP COLUMN origin")
    conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    fresh = FakeEmbedder()
    with memlane.open(fact_workspace, provider=fresh) as mem:
        assert mem.store.migrated == ["index schema 6 -> 7"]
        report = mem.sync()
        assert report.full_reindex and fresh.embedded_texts == 0  # every vector came from the cache
        got = [f.origin for f in mem.store.facts.of_path("memory/2025-11-29.md")]
        assert got == ["person", "person", "agent", "file"]
