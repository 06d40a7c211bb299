"""Chunk keys (keys.py): each item of a chunk embedded with its neighbours, and search scoring by them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, index_sql, write
from memlane.embeddings.local import LocalEmbedder
from memlane.index.keys import NEIGHBOUR_WORDS, SENTENCE_MIN_WORDS, chunk_keys, items, lead_line, sentences
from memlane.search.vectors import VectorIndex

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")

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
    keys = [k.text for k in chunk_keys(f"- first\n{long}\n- last")]
    assert len(keys) == 3
    assert keys[0].split("\n")[0] == "first" and keys[0].split("\n")[1].endswith("…")
    assert len(keys[0].split("\n")[1].split()) == NEIGHBOUR_WORDS + 1  # cut, with the ellipsis
    assert keys[1] == "first\n" + long[2:] + "\nlast"  # the item itself is never cut
    assert [k.text for k in chunk_keys("- alone")] == ["alone"] and chunk_keys("# heading\n") == []


def test_an_assistants_items_are_marked_also_when_a_chunk_starts_inside_one() -> None:
    text = (
        "- [S1:1] user: I grow basil and mint\n- [S1:2] assistant: Here are ideas:\n  1. pesto\n- [S1:3] User: thanks"
    )
    assert [k.assistant for k in chunk_keys(text)] == [False, True, False]
    inside = "  2. a mint salad\n  3. basil lemonade\n- [S1:3] user: thanks\n- [S1:4] assistant: welcome"
    lines = ["- [S1:2] Assistant: Here are ideas:", "  1. pesto", *inside.split("\n")]
    assert lead_line(lines, 2) == lines[0] and lead_line(lines, 4) == lines[4]
    assert [k.assistant for k in chunk_keys(inside, lead_line(lines, 2))] == [True, False, True]
    assert [k.assistant for k in chunk_keys(inside)] == [False, False, True]  # no lead given: nothing assumed
    two = chunk_keys("- assistant: sure\n- user: ok")  # both keys are the same text: not only an assistant's
    assert len(two) == 1 and not two[0].assistant


# A long user turn whose point is one remark made in passing (LongMemEval's evidence looks like this).
ASIDE = (
    "user: I'm looking for advice on cleaning and maintaining my antique furniture, especially a vintage "
    "armchair from the fifties that I want to keep in good shape for many years. By the way, my aunt gave me "
    "a stunning crystal chandelier today. Which wood polish would you recommend for an old oak armchair?"
)


def test_a_long_item_is_also_keyed_sentence_by_sentence() -> None:
    assert sentences(ASIDE) == [
        "user: I'm looking for advice on cleaning and maintaining my antique furniture, especially a vintage "
        "armchair from the fifties that I want to keep in good shape for many years.",
        "By the way, my aunt gave me a stunning crystal chandelier today.",
        "Which wood polish would you recommend for an old oak armchair?",
    ]
    short = "Ana: I went to the support group. It was powerful. Everyone was kind."
    assert len(short.split()) <= SENTENCE_MIN_WORDS and sentences(short) == []  # its item key reads it whole
    one = "Ana: " + " ".join(["word"] * 40)
    assert sentences(one) == []  # one sentence: nothing the item's key lacks
    lines = "Ana: my list for the week, " + "with notes " * 10 + "\nbuy paint for the fence\nOk.\ncall the vet today"
    assert sentences(lines)[1:] == ["buy paint for the fence", "call the vet today"]  # "Ok." is too short
    cjk = "上周我和朋友去了北京旅游。我们在全聚德吃了烤鸭！然后去了故宫博物院参观。"
    assert sentences(cjk) == ["上周我和朋友去了北京旅游。", "我们在全聚德吃了烤鸭！", "然后去了故宫博物院参观。"]
    answer = (
        "assistant: A soft cotton cloth works well for most old finishes. Lemon oil suits oak, and a thin coat "
        "of beeswax protects it for months after. Dust the chandelier with a dry microfiber cloth."
    )
    keys = chunk_keys(f"- [S1:1] {ASIDE}\n- [S1:2] {answer}")
    texts = {k.text: k.assistant for k in keys}
    assert texts["By the way, my aunt gave me a stunning crystal chandelier today."] is False
    assert sum(1 for a in texts.values() if a) == 1 + 3  # the answer's item key and its three sentences
    assert len(keys) == 2 + 3 + 3


@pytest.mark.sqlite_only  # two indexes side by side, each in its own file
def test_a_remark_in_passing_is_found_by_its_sentence_key(
    tmp_path: Path, local: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    filler = [f"- [S1:{i}] user: {w} is on my mind today, we should talk about {w} later" for i, w in enumerate(WORDS)]
    write(ws, "memory/2024-03-02.md", "\n".join(["# 2024-03-02", "", *filler[:4], f"- [S1:9] {ASIDE}", *filler[4:]]))
    query = "Who gave me a chandelier?"
    scores = {}
    for label, min_words in (("item keys only", 10**6), ("sentence keys", SENTENCE_MIN_WORDS)):
        monkeypatch.setattr("memlane.index.keys.SENTENCE_MIN_WORDS", min_words)
        with memlane.open(ws, provider=local, store={"path": str(tmp_path / f"{min_words}.sqlite")}) as mem:
            hit = next(r for r in mem.search(query, min_score=0).results if r.start_line <= 7 <= r.end_line)
            scores[label] = hit.vector_score or 0.0
    assert scores["sentence keys"] > scores["item keys only"] + 0.05


def test_sync_stores_keys_embeds_them_once_and_drops_them_with_their_chunk(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", chat("- [D1:99] Ana: my violin lessons start on Tuesday"))
    fake = FakeEmbedder()
    with memlane.open(ws, provider=fake, chunking={"keys": True}) as mem:
        report = mem.sync()
        counts = mem.store.counts()
        assert counts["chunk_keys"] >= 9  # every turn is some chunk's key
        # every chunk and every distinct key text was embedded once, nothing twice
        assert fake.embedded_texts == report.embedded and report.embedded > report.chunks_written
        assert len({t for b in fake.batches for t in b}) == fake.embedded_texts
        write(ws, "memory/2024-03-02.md", "# 2024-03-02\n\n- Ana: short now\n")
        mem.sync()
        assert mem.store.counts()["chunk_keys"] == 1  # the old chunk's keys went with it


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


@pytest.mark.sqlite_only
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
    conn.execute("DROP TABLE chunks_said_fts")
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
        assert mem.store.migrated == [
            "index schema 2 -> 3",
            "index schema 3 -> 4",
            "index schema 4 -> 5",
            "index schema 5 -> 6",
            "index schema 6 -> 7",
        ]
        report = mem.sync()
        assert report.full_reindex and mem.store.counts()["chunks"] == chunks
        assert mem.store.counts()["chunk_keys"] == keys
        embedded = {t for b in fresh.batches for t in b}
        assert embedded and embedded <= {k.text for c in chunk_texts(db) for k in chunk_keys(c)}  # keys, no chunk
        assert mem.store.keyword_search('text : "violin"', 5, said=True)  # the user-text index is filled again


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


def test_an_assistants_key_counts_for_less() -> None:
    import numpy as np

    from memlane.search.ranking import _Candidate, _score_keys

    q = np.array([1.0, 0.0], dtype=np.float32)
    same = np.array([[0.8, 0.6], [0.8, 0.6]], dtype=np.float32)

    def read(seqs: Sequence[int], query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        rows = np.vstack([same, same[:1]])  # chunk 3's one key is not embedded yet
        return np.array([1, 2, 3]), np.array([True, False, False]), np.array([True, True, False]), rows @ query

    cands = {seq: _Candidate(seq, vector=0.5) for seq in (1, 2, 3, 4)}
    _score_keys(cands, read, q, 0.7, 0.6)
    assert cands[2].vector > cands[1].vector
    assert abs(cands[2].vector - (0.3 * 0.5 + 0.7 * 0.8)) < 1e-6
    assert abs(cands[1].vector - (0.3 * 0.5 + 0.7 * 0.6 * 0.8)) < 1e-6
    assert cands[3].vector == 0.5  # keys not embedded yet: its own vector, untouched
    assert abs(cands[4].vector - 0.3 * 0.5) < 1e-6  # no key at all (headings only)


def test_sync_marks_the_keys_of_an_assistants_answer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    answer = "\n".join(f"  {i}. idea number {i} " + "with more words " * 12 for i in range(1, 12))
    write(ws, "memory/2024-03-02.md", f"- [S1:1] user: ideas for dinner?\n- [S1:2] assistant: Sure:\n{answer}\n")
    chunking = {"keys": True, "assistantKeys": True}
    with memlane.open(ws, provider=FakeEmbedder(max_tokens=120), chunking=chunking) as mem:
        mem.sync()
        rows = _key_rows(mem)
    inside = [a for start, a in rows if start > 2]  # chunks that start inside the answer
    assert inside and all(inside)  # the answer's lines are the assistant's, though no line there says so
    assert (1, 0) in rows  # the user's question is not


def _key_rows(mem: memlane.Memory) -> list[tuple[int, int]]:
    sql = "SELECT c.start_line, k.assistant FROM chunk_keys k JOIN chunks c ON c.seq = k.chunk_seq ORDER BY 1"
    return [(int(s), int(a)) for s, a in index_sql(mem, sql)]  # type: ignore[call-overload]


def test_an_assistants_items_are_not_keyed_by_default(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    answer = "\n".join(f"  {i}. idea number {i} " + "with more words " * 12 for i in range(1, 12))
    write(ws, "memory/2024-03-02.md", f"- [S1:1] user: ideas for dinner?\n- [S1:2] assistant: Sure:\n{answer}\n")
    with memlane.open(ws, provider=FakeEmbedder(max_tokens=120), chunking={"keys": True}) as mem:
        mem.sync()
        rows = _key_rows(mem)
        status = mem.status()["chunking"]["keys"]
        assert status["enabled"] and not status["assistant"]
        fingerprint = mem.store.meta()["fingerprint"]
    assert rows and all(a == 0 for _, a in rows)  # the user's items only
    assert {start for start, _ in rows} == {1}  # chunks inside the answer carry no key at all
    # turning them on is another index: the fingerprint changes, so the next sync rebuilds it
    with memlane.open(ws, provider=FakeEmbedder(max_tokens=120), chunking={"keys": True, "assistantKeys": True}) as mem:
        mem.sync()
        assert mem.store.meta()["fingerprint"] != fingerprint
        assert any(a for _, a in _key_rows(mem))


def test_a_key_without_a_vector_yet_is_read_as_not_embedded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", "- Ana: violin on Tuesday\n- Mel: nice\n- Ana: thanks\n")
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}) as mem:
        mem.sync()
        gone = index_sql(mem, "SELECT hash FROM chunk_keys LIMIT 1")[0][0]
        index_sql(mem, "DELETE FROM embedding_cache WHERE hash = ?", (gone,))  # as if a batch job were still out
        vectors = mem._vector_index()
        assert isinstance(vectors, VectorIndex) and vectors.keys is not None
        owners, _, embedded, cosines = vectors.keys([int(s) for s in vectors.seqs], vectors.matrix[0])
        assert len(owners) == 3 and embedded.tolist().count(False) == 1
        assert not cosines[~embedded].any()  # never read as a similarity
        assert cosines[embedded].all()


def test_status_counts_keys_and_those_not_embedded_yet(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-02.md", "- Ana: violin on Tuesday\n- Mel: nice\n- Ana: thanks\n")
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}) as mem:
        mem.sync()
        keys = mem.status()["chunking"]["keys"]
        assert keys == {"enabled": True, "assistant": False, "count": 3, "withoutVector": 0}
        index_sql(mem, "DELETE FROM embedding_cache WHERE hash IN (SELECT hash FROM chunk_keys LIMIT 2)")
        assert mem.status()["chunking"]["keys"]["withoutVector"] == 2
    with memlane.open(ws, provider=FakeEmbedder()) as mem:  # "auto": no keys with this provider
        assert mem.status()["chunking"]["keys"]["enabled"] is False
