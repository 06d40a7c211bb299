"""Chunk keys (keys.py): each item of a chunk embedded with its neighbours, and search scoring by them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, write
from memlane.embeddings.local import LocalEmbedder
from memlane.keys import NEIGHBOUR_WORDS, chunk_keys, items

FILLER = [
    "- [D1:{i}] Mel: we talked about {w} and {w} again, then the weather, then {w} once more",
]
WORDS = ["gardening", "taxes", "paint", "the bus", "groceries", "a movie", "the dog", "rain"]


def chat(target: str) -> str:
    lines = ["# 2024-03-02", "", "## Session 1 - Mel & Ana", ""]
    for i, w in enumerate(WORDS):
        lines.append(FILLER[0].format(i=i, w=w))
        if i == 4:
            lines.append(target)
    return "\n".join(lines) + "\n"


def test_items_drop_markers_and_tags_keep_speakers_and_join_continuations() -> None:
    text = (
        "## Session 3\n\n- [D1:3] Ana: I went to the support group.\n  It was powerful.\n* [10:32] Mel: wow\n1. third"
    )
    assert items(text) == ["Ana: I went to the support group.\nIt was powerful.", "Mel: wow", "third"]
    assert items("# Only\n\n## Headings\n") == []


def test_a_key_is_the_item_with_the_start_of_each_neighbour() -> None:
    long = "- " + " ".join(f"w{i}" for i in range(100))
    keys = chunk_keys(f"- first\n{long}\n- last")
    assert len(keys) == 3
    assert keys[0].split("\n")[0] == "first" and keys[0].split("\n")[1].endswith("…")
    assert len(keys[0].split("\n")[1].split()) == NEIGHBOUR_WORDS + 1  # cut, with the ellipsis
    assert keys[1] == "first\n" + long[2:] + "\nlast"  # the item itself is never cut
    assert chunk_keys("- alone") == ["alone"] and chunk_keys("# heading\n") == []


def test_sync_stores_keys_embeds_them_once_and_drops_them_with_their_chunk(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- [D1:99] Ana: my violin lessons start on Tuesday"))
    fake = FakeEmbedder()
    with memlane.open(ws, provider=fake, chunking={"keys": True}) as mem:
        report = mem.sync()
        db = mem.store.path
        counts = mem.store.counts()
        assert counts["chunk_keys"] >= 9  # every turn is some chunk's key
        # every chunk and every distinct key text was embedded once, nothing twice
        assert fake.embedded_texts == report.embedded and report.embedded > report.chunks_written
        assert len({t for b in fake.batches for t in b}) == fake.embedded_texts
        write(ws, "memory/2024-03-02.md", "# 2024-03-02\n\n- Ana: short now\n")
        mem.sync()
        conn = sqlite3.connect(db)
        orphans = conn.execute("SELECT count(*) FROM chunk_keys WHERE chunk_seq NOT IN (SELECT seq FROM chunks)")
        assert orphans.fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM chunk_keys").fetchone()[0] == 1
        conn.close()


def test_keys_follow_the_provider_unless_set(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- Ana: hello"))
    with memlane.open(ws, provider=FakeEmbedder()) as mem:  # "auto": only the free local model
        mem.sync()
        assert mem.store.counts()["chunk_keys"] == 0
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}) as mem:
        report = mem.sync()
        assert report.full_reindex and "keys" in (report.reason or "")
        assert mem.store.counts()["chunk_keys"] > 0


def test_a_turn_buried_in_a_long_chunk_scores_by_its_key(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- [D1:99] Ana: my violin lessons start on Tuesday"))
    query = "when do the violin lessons start"
    scores = {}
    for weight in (0.0, 0.7):
        with memlane.open(
            ws, provider=FakeEmbedder(), chunking={"keys": True}, query={"hybrid": {"keyWeight": weight}}
        ) as mem:
            hit = mem.search(query, min_score=0).results[0]
            assert hit.start_line <= 9 <= hit.end_line  # the violin line
            scores[weight] = hit.vector_score
    assert scores[0.7] is not None and scores[0.0] is not None
    assert scores[0.7] > scores[0.0] + 0.05  # the key is about the violin; the chunk is mostly other talk


def test_a_chunk_of_headings_only_gets_no_key_credit(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", "# Violin\n\n## Violin lessons\n")
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}) as mem:
        mem.sync()
        write(ws, "memory/2024-03-03.md", "- Ana: violin lessons\n- Mel: ok\n")
        mem.sync()
        results = mem.search("violin lessons", min_score=0).results
        by_path = {r.path: r.vector_score or 0.0 for r in results}
        assert by_path["memory/2024-03-03.md"] > by_path["memory/2024-03-02.md"]


def test_a_version_2_index_is_migrated_and_only_keys_are_embedded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- Ana: violin on Tuesday"))
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}) as mem:
        mem.sync()
        db = mem.store.path
        chunks, keys = mem.store.counts()["chunks"], mem.store.counts()["chunk_keys"]
    conn = sqlite3.connect(db)  # what memlane wrote before keys: no chunk_keys, the old delete trigger
    conn.execute("DROP TRIGGER chunks_ad")
    conn.execute("DROP TABLE chunk_keys")
    conn.execute(
        "CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN INSERT INTO chunks_fts(chunks_fts, rowid, text, cjk) "
        "VALUES ('delete', old.seq, old.text, old.cjk); END"
    )
    conn.execute("DELETE FROM embedding_cache WHERE hash NOT IN (SELECT hash FROM chunks)")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    fresh = FakeEmbedder()
    with memlane.open(ws, provider=fresh, chunking={"keys": True}) as mem:
        assert mem.store.migrated == ["index schema 2 -> 3"]
        report = mem.sync()
        assert report.full_reindex and mem.store.counts()["chunks"] == chunks
        assert mem.store.counts()["chunk_keys"] == keys
        embedded = {t for b in fresh.batches for t in b}
        assert embedded and embedded <= set(k for c in chunk_texts(db) for k in chunk_keys(c))  # keys, no chunk


def chunk_texts(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT text FROM chunks")]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


def test_the_local_model_keys_chunks_and_a_key_lifts_the_buried_turn(tmp_path: Path, local: LocalEmbedder) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- [D1:99] Ana: I finally signed up for violin lessons, they start Tuesday"))
    query = "When does Ana start learning an instrument?"
    scores = {}
    for weight in (0.0, 0.7):
        with memlane.open(ws, provider=local, query={"hybrid": {"keyWeight": weight}}) as mem:
            response = mem.search(query, min_score=0)
            assert mem.store.counts()["chunk_keys"] > 0  # "auto" keys chunks with the local model
            hit = next(r for r in response.results if r.start_line <= 9 <= r.end_line)
            scores[weight] = hit.vector_score or 0.0
    assert scores[0.7] > scores[0.0]
