from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import memlane
import memlane.index.sync
from conftest import BlockingEmbedder, FakeEmbedder, kill_during_reindex, write
from memlane.embeddings.base import Vectors

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def open_mem(ws: Path, fake: FakeEmbedder, **ms: object) -> memlane.Memory:
    return memlane.open(ws, provider=fake, **ms)


def test_first_sync_embeds_everything_then_nothing(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        r1 = mem.sync()
        assert r1.full_reindex and r1.files_added == 3 and r1.embedded == r1.chunks_written > 0
        calls = len(fake.batches)
        r2 = mem.sync()
        assert not r2.full_reindex and r2.files_unchanged == 3 and r2.embedded == 0
        assert len(fake.batches) == calls  # no provider call at all
        assert not mem.is_dirty()


def test_changing_one_file_embeds_only_its_new_chunks(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
        before = fake.embedded_texts
        path = workspace / "memory" / "2026-01-05.md"
        path.write_text(path.read_text() + "\n## Later\n- Dana approved the invoice schema.\n")
        assert mem.is_dirty()
        r = mem.sync()
        assert r.files_changed == 1 and r.files_unchanged == 2
        assert fake.embedded_texts - before == r.embedded == 1  # the unchanged first section is cached
        assert r.cached >= 1


def test_touch_without_content_change_embeds_nothing(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
        before = fake.embedded_texts
        p = workspace / "MEMORY.md"
        os.utime(p, ns=(time.time_ns(), time.time_ns() + 10**9))
        r = mem.sync()
        assert r.embedded == 0 and r.chunks_written == 0 and fake.embedded_texts == before
        assert not mem.is_dirty()


def test_deleted_and_renamed_files_are_pruned(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
        (workspace / "memory" / "2026-01-05.md").rename(workspace / "memory" / "renamed.md")
        (workspace / "memory" / "2026-01-06.md").unlink()
        before = fake.embedded_texts
        r = mem.sync()
        assert r.files_removed == 2 and r.files_added == 1
        assert fake.embedded_texts == before  # the renamed text's vectors came from the cache
        results = mem.search("BILL-4821", min_score=0).results
        assert results[0].path == "memory/renamed.md"
        assert {r.path for r in results} <= {"MEMORY.md", "memory/renamed.md"}  # nothing of the old paths
        assert mem.status()["files"] == 2


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"chunking": {"tokens": 100, "overlap": 10}}, "chunkTokens"),
        ("model", "model"),
        ("dims", "providerKey"),
    ],
)
def test_fingerprint_change_triggers_full_reindex(
    workspace: Path, fake: FakeEmbedder, change: object, expected: str
) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
    other = fake
    settings: dict[str, object] = {}
    if change == "model":
        other = FakeEmbedder(model="fake-2")
    elif change == "dims":
        other = FakeEmbedder(dims=32)
    else:
        assert isinstance(change, dict)
        settings = change
    with open_mem(workspace, other, **settings) as mem:
        assert mem.is_dirty()
        r = mem.sync()
        assert r.full_reindex and expected in r.reason
        assert mem.search("PostgreSQL billing", min_score=0).results[0].path == "MEMORY.md"


def test_switching_back_reuses_the_cache(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
    with open_mem(workspace, fake, chunking={"tokens": 100, "overlap": 0}) as mem:
        mem.sync()
    before = fake.embedded_texts
    with open_mem(workspace, fake) as mem:
        r = mem.sync()
    assert r.full_reindex and r.embedded == 0 and fake.embedded_texts == before


def test_failed_reindex_leaves_old_index_usable(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
        old = [(r.path, r.start_line) for r in mem.search("Kubernetes staging", min_score=0).results]
    broken = FakeEmbedder(model="fake-2")
    broken.fail_after_batches = 0
    with open_mem(workspace, broken) as mem, pytest.raises(memlane.ProviderError, match="previous index is unchanged"):
        mem.sync()
    with open_mem(workspace, fake) as mem:
        assert not mem.is_dirty()
        assert [(r.path, r.start_line) for r in mem.search("Kubernetes staging", min_score=0).results] == old


def test_killed_reindex_leaves_old_index_usable(workspace: Path, tmp_path: Path, memlane_home: Path) -> None:
    # Enough files that the reindex runs for a while, one slow batch at a time.
    for i in range(40):
        write(workspace, f"memory/2025-01-{i:02d}.md", f"# Day {i}\n\n- note {i} about topic{i}\n")
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:
        mem.sync()
        old_count = mem.status()["chunks"]
    kill_during_reindex(workspace, tmp_path, memlane_home)
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:
        assert not mem.is_dirty()  # still the complete old index
        assert mem.status()["chunks"] == old_count
        assert mem.search("topic7", min_score=0).results[0].path == "memory/2025-01-07.md"


@pytest.mark.sqlite_only
def test_corrupt_index_is_moved_aside_and_rebuilt(workspace: Path, fake: FakeEmbedder, memlane_home: Path) -> None:
    with open_mem(workspace, fake) as mem:
        mem.sync()
        db = mem.store.path
        mem.store.checkpoint()
    db.write_bytes(b"this is not a database" * 100)
    with open_mem(workspace, fake) as mem:
        resp = mem.search("PostgreSQL", min_score=0)
        assert resp.results and resp.results[0].path == "MEMORY.md"
        assert "moved aside" in (mem.store.recovered or "")
    assert list(db.parent.glob("main.sqlite.broken-*"))


@pytest.mark.sqlite_only
def test_an_index_of_a_foreign_schema_is_moved_aside_and_rebuilt(
    workspace: Path, fake: FakeEmbedder, memlane_home: Path
) -> None:
    """A valid SQLite file that is not a memlane index (another program's, or a future schema)."""
    db = memlane_home / "memory" / "main.sqlite"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes(body) VALUES ('someone else''s data')")
    conn.commit()
    conn.close()
    with open_mem(workspace, fake) as mem:
        assert "moved aside" in (mem.store.recovered or "") and "does not match" in (mem.store.recovered or "")
        assert mem.search("PostgreSQL", min_score=0).results[0].path == "MEMORY.md"
    aside = list(db.parent.glob("main.sqlite.broken-*"))
    assert [p for p in aside if not p.name.endswith(("-wal", "-shm"))]
    kept = sqlite3.connect(next(p for p in aside if not p.name.endswith(("-wal", "-shm"))))
    assert kept.execute("SELECT body FROM notes").fetchone() == ("someone else's data",)  # never deleted
    kept.close()


def test_memory_files_are_never_modified(workspace: Path, fake: FakeEmbedder) -> None:
    def tree() -> dict[str, tuple[bytes, int] | None]:
        """Every entry of the workspace (directories too): a file added anywhere shows up here."""
        return {
            p.relative_to(workspace).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
            for p in workspace.rglob("*")
        }

    before = tree()
    with open_mem(workspace, fake) as mem:
        mem.sync()
        mem.search("anything")
        mem.sync(force=True)
        mem.status()
    assert tree() == before


def test_cache_is_pruned_lru_but_keeps_live_vectors(workspace: Path, fake: FakeEmbedder) -> None:
    with open_mem(workspace, fake, cache={"maxEntries": 0}) as mem:
        mem.sync()
        live = mem.status()["cacheEntries"]
        (workspace / "memory" / "2026-01-06.md").write_text("# replaced\n\n- completely new text\n")
        mem.sync()
        # The old file's vectors were dropped (maxEntries 0); live ones stay, so search still has vectors.
        assert mem.status()["cacheEntries"] == mem.status()["chunks"] <= live
        assert mem.search("completely new text", min_score=0).mode == "hybrid"


def test_a_prune_keeps_what_the_index_uses_and_drops_the_oldest_spare_entries_first(
    workspace: Path, fake: FakeEmbedder
) -> None:
    """Pruning has one definition for both drivers (store/dialect.py): the live key's vectors of chunks, keys
    and facts stay; every other entry is spare, and the spare beyond the limit go least recently used first."""
    import time

    import numpy as np

    from memlane.embeddings import EmbeddingKey, embedding_key

    write(
        workspace,
        "memory/2026-02-01.md",
        "# chat\n\n- user: the kiln at the studio reaches 1200 degrees\n- assistant: that is stoneware range\n"
        "- user: my next glaze firing is on Friday\n\n## Retain\n- W @Ana: Ana fires stoneware in the studio kiln.\n",
    )
    with open_mem(workspace, fake, chunking={"keys": True}) as mem:
        mem.sync()
        store, live = mem.store, embedding_key(fake)
        used = mem.status()["cacheEntries"]
        assert store.counts()["chunk_keys"] > 0 and mem.status()["facts"]["facts"] > 0  # all three kinds of use
        other = EmbeddingKey("other", "model-2", "k")
        unit = np.ones(fake.dims, dtype=np.float32) / np.sqrt(fake.dims)
        spare = [(live, "no-longer-indexed")] + [(other, f"old{i}") for i in range(5)]
        for key, text_hash in spare:  # one write each, oldest first
            with store.write(changes_index=False):
                store.put_vectors(key, {text_hash: unit})
            time.sleep(0.01)
        with store.write(changes_index=False):
            dropped = store.prune_cache(live, 2)
        assert dropped == 4
        assert store.cached_hashes(other, [f"old{i}" for i in range(5)]) == {"old3", "old4"}
        assert store.cached_hashes(live, ["no-longer-indexed"]) == set()
        assert mem.status()["cacheEntries"] == used + 2
        with store.write(changes_index=False):
            assert store.prune_cache(live, 2) == 0
            assert store.prune_cache(None, 0) == used + 2  # no live key: every entry is spare


def test_vectors_follow_changes_from_another_writer(workspace: Path, fake: FakeEmbedder) -> None:
    import numpy as np

    from memlane.embeddings import embedding_key

    with open_mem(workspace, fake) as reader, open_mem(workspace, fake) as writer:
        reader.sync()
        before = reader._vector_index()
        write(workspace, "memory/2026-03-01.md", "# new\n\n- the observatory opens in March\n")
        (workspace / "memory" / "2026-01-06.md").unlink()
        p = workspace / "MEMORY.md"
        p.write_text(p.read_text() + "\n## More\n- Dana moved to the platform team.\n")
        writer.sync()
        delta = reader._vector_index()
        assert delta is not before
        full_seqs, full_matrix = reader.store.load_vectors(embedding_key(fake), fake.dims)
        np.testing.assert_array_equal(delta.seqs, full_seqs)
        np.testing.assert_array_equal(delta.matrix, full_matrix)
        writer.sync(force=True)  # a reset renumbers chunks: the reader must reload everything
        after_reset = reader._vector_index()
        full_seqs, full_matrix = reader.store.load_vectors(embedding_key(fake), fake.dims)
        np.testing.assert_array_equal(after_reset.seqs, full_seqs)
        np.testing.assert_array_equal(after_reset.matrix, full_matrix)
        assert reader.search("observatory March", min_score=0).results[0].path == "memory/2026-03-01.md"


def search_while_blocked(mem: memlane.Memory, blocker: Callable[[threading.Event, threading.Event], None]) -> Any:
    """Run ``blocker(started, release)`` in a thread; once it has started, search from another thread.
    Returns the response if the search finished while the blocker still held on (else fails)."""
    started, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=blocker, args=(started, release))
    holder.start()
    assert started.wait(10)
    answers: list[Any] = []
    reader = threading.Thread(target=lambda: answers.append(mem.search("PostgreSQL")))
    reader.start()
    reader.join(10)
    done_while_blocked = not reader.is_alive()
    release.set()
    holder.join(30)
    reader.join(10)
    assert done_while_blocked, "search waited for the blocker"
    return answers[0]


def test_search_answers_while_a_write_transaction_is_open(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()

        def writer(holding: threading.Event, release: threading.Event) -> None:  # a sync's long swap, held open
            with mem.store.write():
                mem.store.delete_file("MEMORY.md")
                holding.set()
                release.wait(30)

        resp = search_while_blocked(mem, writer)
        assert resp.results[0].path == "MEMORY.md"  # the committed index


def test_search_answers_while_a_sync_is_embedding(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        write(workspace, "memory/2026-03-03.md", "A new note about herons.\n")
        real = fake.embed_batch

        def syncing(embedding: threading.Event, release: threading.Event) -> None:
            def slow_embed(texts: list[str]) -> object:  # a slow provider in the middle of a sync
                embedding.set()
                release.wait(30)
                return real(texts)

            fake.embed_batch = slow_embed  # type: ignore[method-assign,assignment]
            mem.sync()

        resp = search_while_blocked(mem, syncing)
        assert resp.results[0].path == "MEMORY.md"


def test_a_slow_sync_never_overwrites_what_a_newer_sync_indexed(workspace: Path) -> None:
    """Sync X lists the files and embeds slowly; meanwhile the file changes and sync Y (another Memory, as
    another process would) indexes the newer text and commits. X must not put its older rows back: the
    race the stress test found (the index kept claiming an old state, and no event was left to fix it)."""
    blocking = BlockingEmbedder()
    log = workspace / "memory" / "2026-01-05.md"
    with open_mem(workspace, FakeEmbedder()) as mem:
        mem.sync()
    log.write_text(log.read_text() + "- First addition: the heron.\n")
    slow = open_mem(workspace, blocking)
    x = threading.Thread(target=slow.sync)
    x.start()
    try:
        assert blocking.inside.wait(30)  # X has listed the files and read the text with the heron only
        log.write_text(log.read_text() + "- Second addition: the kingfisher.\n")
        with open_mem(workspace, FakeEmbedder()) as other:
            other.sync()  # Y commits the newer text
    finally:
        blocking.release.set()
        x.join(30)
        slow.close()
    with open_mem(workspace, FakeEmbedder(), sync={"onSearch": False}) as mem:
        assert not mem.is_dirty()
        assert mem.search("kingfisher", min_score=0).results[0].path == "memory/2026-01-05.md"


def _many_logs(ws: Path, n: int) -> None:
    """``n`` one-chunk daily logs; the last repeats the first word for word, so one text is in two groups."""
    for i in range(n):
        k = 0 if i == n - 1 else i
        write(ws, f"memory/2026-02-{i + 1:02d}.md", f"# Log {k}\n\n- Heron count {k} at pond {k * 7}.\n- Seen again.\n")


def test_a_sync_too_big_to_hold_is_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past STREAM_CHUNKS a pass keeps no rows and reads its files again per step: it must embed each text
    once, tell the plan it then keeps to, and write the index a sync that holds everything writes."""
    ws = tmp_path / "ws"
    _many_logs(ws, 12)
    held, streamed = FakeEmbedder(), FakeEmbedder()
    with memlane.open(ws, agent="held", provider=held, chunking={"keys": True}) as mem:
        whole = mem.sync()
        expected = [(r.path, r.start_line, r.score) for r in mem.search("heron pond 42", min_score=0).results]
    monkeypatch.setattr("memlane.index.sync_plan.STREAM_CHUNKS", 2)
    plans: list[memlane.index.sync.EmbedPlan] = []
    ticks: list[tuple[int, int]] = []
    with memlane.open(ws, agent="streamed", provider=streamed, chunking={"keys": True}) as mem:
        r = mem.sync(progress=lambda done, total: ticks.append((done, total)), on_plan=plans.append)
        got = [(h.path, h.start_line, h.score) for h in mem.search("heron pond 42", min_score=0).results]
        assert mem.status()["files"] == 12 and not mem.is_dirty()
    texts = [t for b in streamed.batches for t in b]
    assert len(texts) == len(set(texts)) == streamed.embedded_texts == held.embedded_texts  # each text once
    assert plans[0].texts == r.embedded == len(texts) and plans[0].tokens == whole.tokens > 0
    assert ticks[-1] == (len(texts), len(texts)) and len(ticks) > 2  # progress reached its total
    assert (r.chunks_written, r.files_added, r.cached) == (whole.chunks_written, 12, whole.cached)
    assert got == expected and got[0][0] == "memory/2026-02-07.md"


def test_a_file_changed_between_the_steps_of_a_big_sync_is_indexed_as_it_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A streamed pass reads each file again for the write: a file edited meanwhile is not written from
    the older listing, nor from text that has no vector; the catch-up pass indexes the new text."""
    ws = tmp_path / "ws"
    _many_logs(ws, 6)
    late = ws / "memory" / "2026-02-05.md"

    class Editing(FakeEmbedder):
        def embed_batch(self, texts: Sequence[str]) -> Vectors:
            if not self.batches:  # while the first group embeds, someone edits a later file
                late.write_text(late.read_text() + "- A kingfisher arrived.\n")
            return super().embed_batch(texts)

    monkeypatch.setattr("memlane.index.sync_plan.STREAM_CHUNKS", 2)
    with memlane.open(ws, provider=Editing(), sync={"onSearch": False}) as mem:
        r = mem.sync()
        assert any(n.startswith("memory/2026-02-05.md: changed while the sync ran") for n in r.notes)
        assert not mem.is_dirty() and mem.status()["files"] == 6
        hit = mem.search("kingfisher", min_score=0).results[0]
        assert hit.path == "memory/2026-02-05.md" and "kingfisher" in hit.snippet
