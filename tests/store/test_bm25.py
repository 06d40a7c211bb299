"""The SQLite keyword leg ranks from kept postings (store/sqlite/bm25.py) exactly as FTS5's ``bm25()`` does, and
drops what it kept when the index changes."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import pytest

import memlane
from conftest import index_sql, write
from memlane.errors import IndexError_
from memlane.store.sqlite import bm25
from memlane.text.keywords import match_expression

pytestmark = pytest.mark.sqlite_only

QUESTIONS = [
    "Which database did we choose for billing, and why?",
    "who owns billing",
    "What did Marco upgrade on staging?",
    "cocktail-making class on the weekend",
    "Is Priya's well-being better since the well being survey?",
    "东京 的 会议",
    "kubernetes 1.31 upgrade",
    "TLS certificate expired webhook 502",
    "the the the and of",  # stopwords only: every term is searched
    "running runs ran",  # stems: "running" and "runs" are one token twice
    "zzzz-not-a-word",
]


def _workspace(root: Path) -> Path:
    ws = root / "ws"
    shutil.copytree(Path(str(resources.files("memlane") / "demo")), ws)
    write(
        ws,
        "memory/2026-02-01.md",
        "# 2026-02-01\n\n- Priya joined a cocktail-making class; her well-being improved, she says.\n"
        "- The well being survey runs every quarter. Running it took a day; it ran late.\n"
        "- Cocktail making again on Saturday, then a class on making bread.\n",
    )
    write(ws, "memory/2026-02-02.md", "# 2026-02-02\n\n- 东京的会议改到周五。会议记录在共享盘。\n- Billing: Tue.\n")
    write(
        ws,
        "sessions/chat.md",
        "# chat\n\n**User:** my well-being matters more than billing\n\n**Assistant:** billing billing billing\n",
    )
    return ws


def _fts5(mem: memlane.Memory, match: str, said: bool = False) -> dict[int, float]:
    fts = "chunks_said_fts" if said else "chunks_fts"
    rows = index_sql(mem, f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ?", (match,))
    return {int(seq): float(score) for seq, score in rows}  # type: ignore[call-overload]


def _assert_ranked_as_fts5(mem: memlane.Memory, question: str, said: bool = False) -> None:
    match = match_expression(question)
    assert match is not None
    want = _fts5(mem, match, said)
    got = mem.store.keyword_search(match, 1000, said=said)
    assert {seq for seq, _ in got} == set(want), question
    for seq, score in got:
        assert score == want[seq], (question, seq)  # FTS5's arithmetic, in its order: the same bits
    assert got == sorted(got, key=lambda h: (-h[1], h[0]))
    top = mem.store.keyword_search(match, 3, said=said)
    assert top == got[:3]


def test_every_kind_of_term_ranks_as_fts5_does(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        matched = 0
        for question in QUESTIONS:
            for said in (False, True):
                _assert_ranked_as_fts5(mem, question, said)
            matched += bool(mem.store.keyword_search(match_expression(question) or "", 5))
        assert matched >= len(QUESTIONS) - 1  # the made-up word matches nothing; the rest do
        # The phrase finds the hyphenated and the spaced form, not "making" alone.
        hits = mem.store.keyword_search('text : "cocktail-making"', 10)
        texts = [index_sql(mem, "SELECT text FROM chunks WHERE seq = ?", (seq,))[0][0] for seq, _ in hits]
        assert len(hits) == 1 and "cocktail-making" in str(texts[0])


@pytest.mark.parametrize("catch_up_max", [bm25.CATCH_UP_MAX, 0])
def test_what_is_kept_follows_the_index_through_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catch_up_max: int
) -> None:
    """Rows added, edited and deleted by syncs: what is kept is caught up (or, past ``CATCH_UP_MAX`` new rows,
    read again), and every ranking stays FTS5's."""
    monkeypatch.setattr(bm25, "CATCH_UP_MAX", catch_up_max)
    reloads: list[str] = []
    real = bm25.Bm25._reload
    monkeypatch.setattr(bm25.Bm25, "_reload", lambda self, conn: (reloads.append(self.table), real(self, conn)))
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        for question in QUESTIONS:
            for said in (False, True):
                _assert_ranked_as_fts5(mem, question, said)
        first = len(reloads)
        assert first == 2  # each table read once
        edits = [
            lambda: write(
                ws, "memory/2026-02-03.md", "# 2026-02-03\n\n- Billing billing: Dana handed billing to Marco.\n"
            ),
            lambda: (ws / "memory" / "2026-02-01.md").unlink(),
            lambda: write(
                ws, "memory/2026-02-02.md", "# 2026-02-02\n\n- 东京的会议取消了。\n- Priya's well-being class.\n"
            ),
            lambda: write(ws, "sessions/chat.md", "# chat\n\n**User:** cocktail-making with Marco\n"),
        ]
        for edit in edits:
            edit()
            mem.sync()
            for question in [*QUESTIONS, "Dana handed it", "东京 会议 取消"]:
                for said in (False, True):
                    _assert_ranked_as_fts5(mem, question, said)
        if catch_up_max:
            assert len(reloads) == first  # caught up each time, never read again
        else:
            assert len(reloads) > first
        paths = {
            index_sql(mem, "SELECT path FROM chunks WHERE seq = ?", (seq,))[0][0]
            for seq, _ in mem.store.keyword_search(match_expression("billing") or "", 50)
        }
        assert "memory/2026-02-03.md" in paths


def test_a_small_postings_budget_still_ranks_right(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25, "POSTINGS_MAX", 6)
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        for question in QUESTIONS * 2:
            _assert_ranked_as_fts5(mem, question)
        ranker = mem.store._rankers["chunks_fts"]  # type: ignore[attr-defined]
        assert ranker._entries <= 6 or len(ranker._postings) == 1


def test_other_expressions_go_to_fts5(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        match = 'text : "billing" AND text : "dana"'
        got = mem.store.keyword_search(match, 10)
        want = _fts5(mem, match)
        assert got and {seq for seq, _ in got} == set(want)
        with pytest.raises(IndexError_, match="keyword search failed"):
            mem.store.keyword_search('text : "unterminated', 10)


def test_varints_read_as_sqlite_writes_them() -> None:
    blob = bytes([0x05]) + bytes([0x81, 0x00]) + bytes([0xFF, 0x7F]) + bytes([0x81, 0x80, 0x80, 0x00])
    assert bm25._varints(blob).tolist() == [5, 128, 16383, 1 << 21]


def test_rows_tied_at_the_cut_go_to_the_lower_rowid(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for day in range(1, 9):  # the same line in eight logs: eight rows of one score
        write(ws, f"memory/2026-04-{day:02d}.md", "- The heron flew over the pond at dawn.\n")
    write(ws, "memory/2026-05-01.md", "- A heron, a heron: the heron again, near the pond.\n")
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        match = match_expression("heron pond") or ""
        every = mem.store.keyword_search(match, 100)
        assert len(every) == 9 and len({round(s, 9) for _, s in every[1:]}) == 1
        for k in range(1, 9):
            assert mem.store.keyword_search(match, k) == every[:k]
        assert [seq for seq, _ in every[1:]] == sorted(seq for seq, _ in every[1:])


def test_a_long_phrase_reads_each_token_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(tmp_path)
    reads: list[str] = []
    real = bm25.Bm25._instances
    monkeypatch.setattr(
        bm25.Bm25,
        "_instances",
        lambda self, conn, cols, token, what: (reads.append(token), real(self, conn, cols, token, what))[1],
    )
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        phrase = "-".join(["billing"] * 4000)  # 4,000 tokens of one stem; three stand together in a chat
        assert mem.store.keyword_search(f'text : "{phrase}"', 10) == []
        assert reads == ["bill"]


def test_a_failure_of_the_kept_postings_falls_back_to_fts5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider="none") as mem:
        mem.sync()
        match = match_expression("who owns billing") or ""
        want = mem.store.keyword_search(match, 10)

        def broken(*_: object) -> None:
            raise RuntimeError("a bug in the kept postings")

        monkeypatch.setattr(bm25.Bm25, "_search", broken)
        got = mem.store.keyword_search(match, 10)
        assert [seq for seq, _ in got] == [seq for seq, _ in want] and got
