from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import memlane
from conftest import FakeEmbedder, index_sql, write
from memlane.search import ranking as search_mod
from memlane.text.keywords import cjk_terms, content_terms, match_expression

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def keyword_mem(ws: Path, **ms: object) -> memlane.Memory:
    return memlane.open(ws, provider="none", **ms)


def test_first_search_of_a_never_indexed_workspace_syncs(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        resp = mem.search("PostgreSQL")
        assert resp.results and resp.results[0].path == "MEMORY.md"
        assert resp.mode == "hybrid" and resp.provider == "fake" and resp.model == "fake-1"


def test_first_search_builds_the_index_then_later_ones_refresh_in_the_background(
    workspace: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        first = mem.search("PostgreSQL")  # never built: built now, before answering
        assert first.results and not first.stale
        write(workspace, "memory/2026-02-01.md", "- The quarterly offsite moves to Lisbon.\n")
        stale = mem.search("Lisbon offsite")  # answered at once from the current index
        assert stale.stale and any("stale" in n for n in stale.notes)
        assert mem.wait_idle(30)
        fresh = mem.search("Lisbon offsite")
        assert not fresh.stale and fresh.results[0].path == "memory/2026-02-01.md"


def test_no_sync_on_search_when_disabled_says_so(workspace: Path) -> None:
    with keyword_mem(workspace, sync={"onSearch": False}) as mem:
        resp = mem.search("PostgreSQL")
        assert resp.results == [] and any("not been built" in n for n in resp.notes)


def test_a_search_that_min_score_empties_says_so_and_how_to_see_more(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = tmp_path / "w"
    write(ws, "memory/2026-11-20.md", "We decided to use PostgreSQL for the database because of JSONB.\n")
    with memlane.open(ws, provider=fake) as mem:
        low = mem.search("which database did we choose?", min_score=0).results
        assert low and low[0].score < 0.99
        resp = mem.search("which database did we choose?", min_score=0.99)
        assert resp.results == []
        (note,) = [n for n in resp.notes if "minScore" in n]
        assert "0.99" in note and f"{low[0].score:.3f}" in note and "--min-score" in note and "minScore" in note
        assert not [n for n in mem.search("which database did we choose?", min_score=0).notes if "minScore" in n]


def test_bm25_scores_reflect_relevance_not_all_one(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    write(ws, "memory/a.md", "## a\nsqlite sqlite sqlite index tuning notes\n")
    write(ws, "memory/b.md", "## b\nwe mentioned sqlite once among many other unrelated words here today\n")
    write(ws, "memory/c.md", "## c\nnothing relevant at all\n")
    with keyword_mem(ws) as mem:
        resp = mem.search("sqlite", min_score=0)
        assert resp.mode == "keyword"
        scores = {r.path: r.score for r in resp.results}
        assert set(scores) == {"memory/a.md", "memory/b.md"}
        assert scores["memory/a.md"] == 1.0 and 0 < scores["memory/b.md"] < 0.9


def test_natural_language_question_matches_any_term(workspace: Path) -> None:
    with keyword_mem(workspace) as mem:
        resp = mem.search("which database did the team choose for billing?", min_score=0)
        assert resp.results[0].path == "MEMORY.md"  # no chunk holds every word, still found


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("BILL-4821", "memory/2026-01-05.md"),
        ("OPENAI_API_KEY", "MEMORY.md"),
        ("memorySearch.query.hybrid", "memory/2026-01-06.md"),
        ("502", "memory/2026-01-06.md"),
    ],
)
def test_exact_tokens(workspace: Path, fake: FakeEmbedder, query: str, path: str) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        resp = mem.search(query)
        assert resp.results and resp.results[0].path == path


def test_phrase_tokens_must_stand_together(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    write(ws, "memory/a.md", "- key api openai scattered words\n")
    write(ws, "memory/b.md", "- export OPENAI_API_KEY before running\n")
    with keyword_mem(ws) as mem:
        assert [r.path for r in mem.search("OPENAI_API_KEY", min_score=0).results] == ["memory/b.md"]


class PlannedEmbedder(FakeEmbedder):
    """Vectors set by hand: the query is e0; the rare-token note has cosine 0.4 to it, the lunch notes 0.6."""

    def __init__(self) -> None:
        super().__init__(dims=4)

    def _vec(self, text: str) -> np.ndarray:
        if "zq81x7" in text and "deploy" not in text:
            return np.array([1.0, 0, 0, 0], dtype=np.float32)  # the query
        if "deploy" in text:
            return np.array([0.4, 0.9165, 0, 0], dtype=np.float32)
        return np.array([0.6, 0, 0.8, 0], dtype=np.float32)


def test_a_keyword_hit_outside_the_vector_pool_is_scored_with_its_exact_cosine(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    write(ws, "memory/a.md", "- deploy token zq81x7 rotated\n")
    for i in range(30):  # more than maxResults x candidateMultiplier = 24: the vector pool is all lunch
        write(ws, f"memory/n{i}.md", f"- unrelated note number {i} about lunch\n")
    with memlane.open(ws, provider=PlannedEmbedder()) as mem:
        resp = mem.search("zq81x7")  # default minScore 0.35
        top = resp.results[0]
        # 0.7 x 0.4 + 0.3 x 1.0 = 0.58; scored as if its cosine were 0 it would be 0.3 and dropped
        assert top.path == "memory/a.md" and top.text_score == 1.0
        assert top.vector_score == pytest.approx(0.4, abs=1e-3) and top.score == pytest.approx(0.58, abs=1e-3)


def test_cjk_and_accented_text(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    write(ws, "memory/zh.md", "## 计划\n周六和朋友一起去京都看红叶。\n")
    write(ws, "memory/ja.md", "## メモ\n東京の会議は来週の火曜日です。\n")
    write(ws, "memory/fr.md", "## Café\nLe café est fermé le dimanche.\n")
    with keyword_mem(ws) as mem:
        assert mem.search("京都", min_score=0).results[0].path == "memory/zh.md"
        assert mem.search("会議", min_score=0).results[0].path == "memory/ja.md"
        assert mem.search("红叶", min_score=0).results[0].path == "memory/zh.md"
        assert mem.search("cafe ferme", min_score=0).results[0].path == "memory/fr.md"
        assert mem.search("京都", min_score=0).results[0].snippet.endswith("红叶。")


def test_cjk_bigrams() -> None:
    assert cjk_terms("abc 京都の") == "京 都 の 京都 都の"
    assert cjk_terms("plain") == ""
    expr = match_expression("去京都")
    assert expr is not None and '"京都"' in expr and '"去京"' in expr


def test_match_expression_escapes_and_drops_stopwords() -> None:
    expr = match_expression('what is "quoted" AND OR NEAR(x)')
    assert expr is not None
    assert '"quoted"' in expr and '"what"' not in expr
    assert match_expression("?!  ...") is None


def test_contractions_of_stopwords_are_stopwords_and_possessives_their_word() -> None:
    terms = ["i'm", "that's", "don't", "can't", "we\u2019ve", "park's", "o'brien", "rock'n'roll", "netflix"]
    assert content_terms(terms) == ["park", "o'brien", "rock'n'roll", "netflix"]
    expr = match_expression("I'm wondering what park's trail I hiked")
    assert expr is not None and '"park"' in expr and "i'm" not in expr and '"trail"' in expr


def test_term_frequencies_use_the_index_tokenizer(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = tmp_path / "w"
    for i in range(12):
        extra = " and painting projects" if i < 3 else ""
        write(ws, f"memory/n{i}.md", f"- common note {i} on well-being{extra}\n")
    with memlane.open(ws, provider=fake) as mem:
        mem.sync()
        total, freq = mem.store.term_frequencies(["common", "project", "paints", "well-being", "absent"])
    # through the stemmer: "project" counts "projects", "paints" counts "painting" (both "paint"); a term of
    # two tokens counts as its rarer one
    assert total == 12
    assert freq == {"common": 12, "project": 3, "paints": 3, "well-being": 12, "absent": 0}


def test_common_terms_leave_the_keyword_query_only_when_asked_on_big_indexes(
    tmp_path: Path, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "w"
    for i in range(20):
        rare = " zephyr quokka" if i == 7 else ""
        write(ws, f"memory/n{i}.md", f"- common words in note {i} about lunch{rare}\n")
    query = "common lunch zephyr quokka words"
    with memlane.open(ws, provider=fake) as mem:
        mem.sync()
        everything = search_mod.keyword_match(mem.store, query, 1.0)
        assert everything == match_expression(query)
        small = search_mod.keyword_match(mem.store, query, 0.5)  # 20 chunks: below PRUNE_MIN_CHUNKS
        assert small == everything
        monkeypatch.setattr(search_mod, "PRUNE_MIN_CHUNKS", 10)
        pruned = search_mod.keyword_match(mem.store, query, 0.5)
        assert pruned is not None
        # the three rarest stay whatever their share ("zephyr", "quokka", then one of the common ones)
        assert '"zephyr"' in pruned and '"quokka"' in pruned and pruned.count(" OR ") == 2
        resp = mem.search(query)  # hybrid with the default share of 1: every term is searched
        assert resp.results[0].path == "memory/n7.md"


def test_keyword_mode_without_provider_says_so(workspace: Path) -> None:
    with keyword_mem(workspace) as mem:
        resp = mem.search("Kubernetes")
        assert resp.mode == "keyword" and resp.provider is None
        assert any("keyword search only" in n for n in resp.notes)
        assert resp.to_dict()["results"][0]["path"] == "memory/2026-01-05.md"


def test_vector_only_when_hybrid_disabled(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, query={"hybrid": {"enabled": False}}) as mem:
        resp = mem.search("Kubernetes staging upgraded", min_score=0)
        assert resp.mode == "vector"
        assert resp.results[0].path == "memory/2026-01-05.md" and resp.results[0].text_score is None


def test_rrf_fusion_ranks_and_scales(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, query={"hybrid": {"fusion": "rrf"}}) as mem:
        resp = mem.search("Kubernetes staging", min_score=0)
        assert resp.results[0].path == "memory/2026-01-05.md"
        assert 0 < resp.results[-1].score <= resp.results[0].score <= 1.0


def test_mmr_prefers_diverse_results(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = tmp_path / "w"
    for i in range(3):
        write(ws, f"memory/dup{i}.md", "- the release train leaves on friday with the billing fixes\n")
    write(ws, "memory/other.md", "- release notes for the billing team are written by Yuki\n")
    plain = memlane.open(ws, provider=fake, query={"maxResults": 2})
    diverse = memlane.open(
        ws, provider=fake, query={"maxResults": 2, "hybrid": {"mmr": {"enabled": True, "lambda": 0.3}}}
    )
    with plain, diverse:
        top_plain = [r.path for r in plain.search("release train billing friday", min_score=0).results]
        top_diverse = [r.path for r in diverse.search("release train billing friday", min_score=0).results]
    assert all(p.startswith("memory/dup") for p in top_plain)
    assert "memory/other.md" in top_diverse


def test_results_and_snippets_are_bounded(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = tmp_path / "w"
    body = "\n".join(f"- filler line {i} with some words" for i in range(80)) + "\n- the needle is here\n"
    write(ws, "memory/big.md", "## Big\n" + body)
    with memlane.open(ws, provider=fake) as mem:
        resp = mem.search("needle", max_results=2, min_score=0)
        assert len(resp.results) <= 2
        assert all(len(r.snippet) <= 700 for r in resp.results)
        assert any("needle" in r.snippet for r in resp.results)
        payload = resp.to_dict()
        assert set(payload) >= {"results", "provider", "model", "fallback", "mode"}
        assert set(payload["results"][0]) == {"path", "startLine", "endLine", "score", "snippet", "source"}  # type: ignore[index]


def test_bad_queries_are_clear_errors(workspace: Path) -> None:
    with keyword_mem(workspace) as mem:
        with pytest.raises(memlane.MemlaneError, match="non-empty"):
            mem.search("   ")
        with pytest.raises(memlane.MemlaneError, match="maxResults"):
            mem.search("x", max_results=0)
        assert mem.search('"unbalanced AND (', min_score=0).results == []


def test_disabled_memory_search(workspace: Path) -> None:
    with memlane.open(workspace, enabled=False) as mem, pytest.raises(memlane.MemlaneError, match="disabled"):
        mem.search("x")


def test_widen_span_centres_shifts_at_the_edges_and_stops_at_shown_lines() -> None:
    widen = search_mod.widen_span
    assert widen(20, 21, 100, 11, []) == (15, 25)  # centred on the middle line
    assert widen(2, 3, 100, 11, []) == (1, 11)  # clipped at the top of the file
    assert widen(97, 98, 100, 11, []) == (90, 100)  # shifted up at its end
    assert widen(3, 4, 5, 11, []) == (1, 5)  # a file shorter than the window
    assert widen(20, 35, 100, 11, []) == (20, 35)  # already as long as the window
    assert widen(20, 21, 100, 11, [(10, 17), (24, 30)]) == (18, 23)  # never into what better results show
    assert widen(20, 21, 100, 11, [(40, 50)]) == (15, 25)  # a span elsewhere in the file changes nothing


def test_results_are_widened_to_the_window_without_repeats(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = tmp_path / "w"
    lines = [f"- entry {i} about gardening" for i in range(1, 40)]
    lines[19] = "- entry 20 the lighthouse keeper called"
    lines[21] = "- entry 22 the lighthouse lamp was fixed"
    write(ws, "memory/log.md", "\n".join(lines) + "\n")
    with memlane.open(ws, provider=fake, chunking={"tokens": 16, "overlap": 0}, query={"window": 7}) as mem:
        results = mem.search("lighthouse", min_score=0).results
        top = results[0]
        assert top.end_line - top.start_line + 1 == 7 and top.start_line <= 20 <= top.end_line
        assert "lighthouse" in top.snippet and top.snippet.count("\n") == 6
        # the other lighthouse line lies inside the first window, so it is not returned again
        assert not any(r.start_line <= 22 <= r.end_line for r in results[1:])
        assert all(r.end_line <= 39 and r.start_line >= 1 for r in results)
        edge = mem.search("entry 39", min_score=0).results[0]
        assert edge.end_line == 39 and edge.end_line - edge.start_line + 1 == 7  # shifted up at the end
        assert mem.get(top.path, top.start_line, 7).rstrip("\n") == top.snippet
    with memlane.open(ws, provider=fake, chunking={"tokens": 16, "overlap": 0}, query={"window": 0}) as mem:
        r = mem.search("lighthouse", min_score=0).results[0]
        assert r.end_line - r.start_line + 1 <= 2


def test_any_span_of_lines_is_rebuilt_from_the_chunks_that_cover_it(tmp_path: Path, fake: FakeEmbedder) -> None:
    """Windows read lines from the chunks: from the last chunk that starts at or before the span on. With
    overlapping chunks, an over-long line in pieces and blank lines, every span comes out as the same lines
    of the whole file (a bound one chunk too late loses the lines only an earlier chunk covers; a span above
    the first chunk reads from the top)."""
    ws = tmp_path / "w"
    lines = [f"- note {i} on the harbour crane and its winch" for i in range(1, 61)]
    lines[0] = lines[1] = ""  # no chunk starts before line 3: a span from the top has no chunk to start at
    lines[9] = ""
    lines[30] = " ".join(f"word{i}" for i in range(400))  # longer than a chunk: split into pieces on line 31
    lines[44] = ""
    write(ws, "memory/log.md", "\n".join(lines) + "\n")
    with memlane.open(ws, provider=fake, chunking={"tokens": 40, "overlap": 12}) as mem:
        mem.sync()
        store = mem.store
        full = store.lines_of("memory/log.md", 1, 62)
        assert full[:30] == lines[:30] and full[31:60] == lines[31:60] and full[60:] == ["", ""]
        assert full[30].split() == lines[30].split()
        spans = index_sql(mem, "SELECT start_line, end_line FROM chunks WHERE path = 'memory/log.md'")
        assert any(s2 <= e1 for (_, e1), (s2, _) in zip(sorted(spans), sorted(spans)[1:], strict=False))  # overlap
        for start in range(1, 63):
            for end in range(start, min(start + 14, 62) + 1):
                assert store.lines_of("memory/log.md", start, end) == full[start - 1 : end], (start, end)


def test_counts_past_a_million_are_one_clear_error(fact_workspace: Path, fake: FakeEmbedder) -> None:
    """maxResults, k and budget of 10**30 reached SQLite as an OverflowError (issue 23's fuzzing)."""
    with memlane.open(fact_workspace, provider=fake) as mem:
        with pytest.raises(memlane.MemlaneError, match="maxResults must be between 1 and 1,000,000"):
            mem.search("Peter", max_results=10**30)
        for key in ("k", "budget"):
            with pytest.raises(memlane.MemlaneError, match=f"{key} must be between 1 and 1,000,000"):
                mem.recall("Peter", **{key: 10**30})
        assert mem.search("Peter", max_results=1_000_000).results


def test_workspace_access_none_refuses_search(workspace: Path, fake: FakeEmbedder) -> None:
    # recall, get and core refused; search answered from the index of a memory the agent may not read
    cfg = {"agents": {"defaults": {"workspaceAccess": "none"}}}
    with (
        memlane.open(workspace, provider=fake, config=cfg) as mem,
        pytest.raises(memlane.MemlaneError, match="workspaceAccess: none"),
    ):
        mem.search("billing")


def test_a_query_embedding_does_not_hold_up_other_reads(workspace: Path) -> None:
    # A remote provider that hangs on one query (with retries, minutes) must not block every other read
    import threading

    class Stuck(FakeEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.inside = threading.Event()
            self.release = threading.Event()

        def embed_query(self, text: str) -> np.ndarray:
            if "stuck" in text:
                self.inside.set()
                self.release.wait(30)
            return super().embed_query(text)

    provider = Stuck()
    with memlane.open(workspace, provider=provider) as mem:
        mem.sync()
        slow = threading.Thread(target=lambda: mem.search("stuck query"))
        slow.start()
        try:
            assert provider.inside.wait(10)
            done = threading.Event()
            answers: list[object] = []

            def other_reads() -> None:
                answers.append(mem.search("billing").results)
                answers.append(mem.recall("billing").facts)
                done.set()

            threading.Thread(target=other_reads, daemon=True).start()
            assert done.wait(10), "a search waited for another search's query embedding"
        finally:
            provider.release.set()
            slow.join(30)
        assert answers[0]
