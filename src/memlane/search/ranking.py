"""Ranking: keyword and vector candidate pools, fusion (weighted or RRF), MMR, snippets.

Every candidate, from either pool, is scored on both signals: its cosine similarity is
computed exactly from the in-memory matrix, so a strong keyword hit is never judged as if
it had no vector score. BM25 relevance is scaled by the best BM25 of the query, so the
best keyword match gets 1.0 and weaker ones proportionally less.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..config import HybridSettings, QuerySettings, RerankSettings
from ..errors import ProviderError
from ..store import IndexStore, StoredChunk
from ..text.keywords import STOPWORDS, asks_about_assistant, content_terms, match_expression, query_terms
from ..text.origin import origins_in
from ..workspace import day_of
from .feedback import feedback_hits
from .live import SearchVectors
from .priors import apply_priors
from .rerank import Reranker, blend
from .vectors import KeyScorer, VectorScores

T = TypeVar("T")
SNIPPET_MAX_CHARS = 700
PARALLEL_MIN_ROWS = 50_000


@dataclass(frozen=True, slots=True)
class SearchResult:
    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str
    vector_score: float | None = None
    text_score: float | None = None
    agent: str | None = None  # whose memory it is: set when memorySearch.shared brings other agents' hits

    @property
    def cite(self) -> str:
        """``path#L12``, or ``path#L12-L14`` for a passage of several lines (as a fact's ``source``)."""
        lines = f"L{self.start_line}" if self.start_line == self.end_line else f"L{self.start_line}-L{self.end_line}"
        return f"{self.path}#{lines}"

    def to_dict(self) -> dict[str, object]:
        payload: dict[str, object] = {
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "source": self.source,
        }
        origins = origins_in(self.snippet)
        if origins:  # a passage of a captured session: whose words its bullets hold
            payload["origins"] = origins
        if self.agent is not None:
            payload["agent"] = self.agent
        return payload


@dataclass(frozen=True)
class SearchResponse:
    results: list[SearchResult]
    provider: str | None
    model: str | None
    fallback: dict[str, str] | None
    mode: str  # "hybrid" | "keyword" | "vector"
    notes: list[str] = field(default_factory=list)
    stale: bool = False  # answered from an index that is being refreshed in the background

    def to_dict(self) -> dict[str, object]:
        payload: dict[str, object] = {
            "results": [r.to_dict() for r in self.results],
            "provider": self.provider,
            "model": self.model,
            "fallback": self.fallback,
            "mode": self.mode,
            "stale": self.stale,
        }
        if self.notes:
            payload["notes"] = list(self.notes)
        return payload


_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlane-search")
    return _POOL


def run_aside(fn: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``fn`` on the search threads (SQLite and numpy release the GIL: side by side they overlap)."""
    return _pool().submit(fn, *args)


@dataclass
class _Candidate:
    seq: int
    vector: float = 0.0
    text: float = 0.0
    score: float = 0.0


def rank(
    store: IndexStore,
    query: str,
    query_vec: npt.NDArray[np.float32] | None,
    vectors: SearchVectors | None,
    settings: QuerySettings,
    max_results: int,
    min_score: float,
    now: dt.datetime | None = None,
    reranker: Reranker | None = None,
    notes: list[str] | None = None,
) -> tuple[list[SearchResult], str]:
    """Top results for ``query`` and the mode used ("hybrid", "keyword" or "vector"): fused scores, then the
    priors of ``settings`` (priors.py: file, time read against ``now``, recency, archive), less the daily logs
    of days after ``now`` (before the cut, so a later day never takes a place), then the ``reranker``'s blend if
    one is given (rerank.py; a failure is told in ``notes``), then windows."""
    hybrid, window = settings.hybrid, settings.window
    ranked, mode = _score(store, query, query_vec, vectors, hybrid, max_results * hybrid.candidate_multiplier)
    use_vector, use_text = mode in ("hybrid", "vector"), mode in ("hybrid", "keyword")
    rows_by_seq = store.chunks_by_seq(c.seq for c in ranked)
    paths = {seq: row.path for seq, row in rows_by_seq.items()}
    ranked = apply_priors(ranked, paths, settings.priors, query, now, settings.archive_weight)
    if now is not None:  # a daily log of a day after ``now`` is no answer: left out before the cut to n
        ranked = [c for c in ranked if (day_of(paths.get(c.seq, "")) or dt.date.min) <= now.date()]
    kept = [c for c in ranked if c.score >= min_score]
    if ranked and not kept and notes is not None:  # say why nothing came back, and how to see more
        notes.append(
            f"no passage scored minScore {min_score:g} or more (the best scored {max(c.score for c in ranked):.3f}):"
            " lower minScore (memlane search --min-score, the tool's minScore, or query.minScore in the config)"
        )
    ranked = kept
    if reranker is not None and len(ranked) > 1:
        ranked = _rerank(reranker, query, ranked, rows_by_seq, settings.rerank, notes)
    if hybrid.mmr.enabled and len(ranked) > 1:
        ranked = _mmr(ranked, vectors if use_vector else None, store, hybrid.mmr.lambda_, len(ranked))

    terms = snippet_terms(query)
    results: list[SearchResult] = []
    for c in ranked:
        row = rows_by_seq.get(c.seq)
        if row is None:  # deleted between the two reads
            continue
        # with a window, the snippet is made by _widen, from the lines it shows: not made twice
        result = _result(row, c, terms, use_vector, use_text, snippet=not window)
        if window:
            widened = _widen(store, result, row.text, window, results, terms)
            if widened is None:
                continue
            result = widened
        results.append(result)
        if len(results) == max_results:
            break
    return results, mode


def _rerank(
    reranker: Reranker,
    query: str,
    ranked: list[_Candidate],
    rows: dict[int, StoredChunk],
    settings: RerankSettings,
    notes: list[str] | None,
) -> list[_Candidate]:
    """The best ``top_n`` candidates reordered by their blend with the reranker's order; the rest follow, their
    scores held at or below the last blended one so scores still fall down the list."""
    head = [c for c in ranked[: settings.top_n] if c.seq in rows]
    if len(head) < 2:  # nothing to reorder (the rest were deleted between two reads)
        return ranked
    taken = {c.seq for c in head}
    rest = [c for c in ranked if c.seq not in taken]
    try:
        relevance = reranker.scores(query, [rows[c.seq].text for c in head])
    except ProviderError as exc:
        if notes is not None:
            notes.append(f"rerank failed, fused order kept: {exc}")
        return ranked
    reordered = []
    for i, score in blend([c.score for c in head], relevance, settings.weight):
        head[i].score = score
        reordered.append(head[i])
    floor = reordered[-1].score
    for c in rest:
        c.score = min(c.score, floor)
    return reordered + rest


def chunk_scores(
    store: IndexStore,
    query: str,
    query_vec: npt.NDArray[np.float32] | None,
    vectors: SearchVectors | None,
    hybrid: HybridSettings,
    pool: int,
) -> list[tuple[str, int, int, float]]:
    """(path, start line, end line, fused score) of the best chunks, best first: ranking without results."""
    ranked, _ = _score(store, query, query_vec, vectors, hybrid, pool)
    rows = store.chunks_by_seq(c.seq for c in ranked)
    return [(r.path, r.start_line, r.end_line, c.score) for c in ranked if (r := rows.get(c.seq)) is not None]


def _score(
    store: IndexStore,
    query: str,
    query_vec: npt.NDArray[np.float32] | None,
    vectors: SearchVectors | None,
    hybrid: HybridSettings,
    pool: int,
) -> tuple[list[_Candidate], str]:
    """Both candidate pools, each ``pool`` deep, fused; best first, and the mode used."""
    use_vector = query_vec is not None and vectors is not None and len(vectors) > 0
    use_text = hybrid.enabled or not use_vector
    mode = "hybrid" if (use_vector and use_text) else ("vector" if use_vector else "keyword")

    candidates: dict[int, _Candidate] = {}
    keyword_order: list[int] = []
    # Common terms are dropped only beside the vectors: alone, BM25 needs all it can get.
    share = hybrid.max_term_share if use_vector else 1.0
    match = keyword_match(store, query, share) if use_text else None
    # The FTS query and the matrix product both release the GIL: side by side they save ~7 ms at 100k
    # chunks; below that the product takes under a few ms and the thread hand-off costs more than it saves.
    overlap = match is not None and use_vector and vectors is not None and len(vectors) >= PARALLEL_MIN_ROWS
    keyword_future = _pool().submit(store.keyword_search, match, pool) if overlap and match else None

    scores: VectorScores | None = None
    vector_order: list[int] = []
    if use_vector:
        assert vectors is not None and query_vec is not None
        scores = vectors.scores(query_vec, pool)
        vector_order = scores.order

    if use_text:
        if keyword_future is not None:
            hits = keyword_future.result()
        else:
            hits = store.keyword_search(match, pool) if match else []
        for seq, text in _scaled(hits):
            candidates[seq] = _Candidate(seq, text=text)
            keyword_order.append(seq)
        if match and hits and hybrid.user_text_weight > 0 and not asks_about_assistant(query):
            # A second FTS query, ~6 ms at 34k chunks of chat (none when the whole text matched nothing: the user's
            # words are part of it); beside the first on a thread it saved ~1 ms there and cost as much on small
            # indexes.
            _blend_in(candidates, keyword_order, store.keyword_search(match, pool, said=True), hybrid.user_text_weight)
        fb = hybrid.feedback
        if fb.weight > 0 and hits:
            _blend_in(candidates, keyword_order, feedback_hits(store, query, hits, fb.docs, fb.terms, pool), fb.weight)

    if use_vector:
        assert vectors is not None and scores is not None
        for seq in vector_order:
            candidates.setdefault(seq, _Candidate(seq))
        # Exact cosine for every candidate, keyword-only ones included.
        for seq, cosine in scores.cosines(list(candidates)).items():
            candidates[seq].vector = max(cosine, 0.0)
        if vectors.keys is not None and hybrid.key_weight > 0 and query_vec is not None:
            _score_keys(candidates, vectors.keys, query_vec, hybrid.key_weight, hybrid.assistant_weight)

    wv, wt = hybrid.weights
    if mode == "hybrid" and not keyword_order:
        # Nothing matched lexically: the text signal is absent, not zero, so weigh the vector alone.
        wv, wt = 1.0, 0.0
    if mode == "keyword":
        for c in candidates.values():
            c.score = c.text
    elif mode == "vector":
        for c in candidates.values():
            c.score = c.vector
    elif hybrid.fusion == "rrf":
        _rrf(candidates, keyword_order, vector_order, hybrid.rrf_k, wv, wt)
    else:
        for c in candidates.values():
            c.score = wv * c.vector + wt * c.text

    return sorted(candidates.values(), key=lambda c: (-c.score, c.seq)), mode


def _blend_in(
    candidates: dict[int, _Candidate], keyword_order: list[int], more: list[tuple[int, float]], weight: float
) -> None:
    """Text score = (1 - ``weight``) x the one so far + ``weight`` x ``more``'s (a second keyword query, scaled
    by its own best); its hits join the candidates and the keyword order."""
    for c in candidates.values():
        c.text *= 1 - weight
    for seq, text in _scaled(more):
        candidates.setdefault(seq, _Candidate(seq)).text += weight * text
    known = set(keyword_order)
    keyword_order += [seq for seq, _ in more if seq not in known]


def _scaled(hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Keyword hits (seq, BM25 relevance) scaled so the best scores 1.0 (all 0 if none scores above 0)."""
    best = max((s for _, s in hits), default=0.0)
    return [(seq, raw / best if best > 0 else 0.0) for seq, raw in hits]


# Pruning common terms pays only on big indexes: below this many chunks the whole OR query takes a few ms.
PRUNE_MIN_CHUNKS = 5_000
# The rarest terms of a query are always kept, however common they are.
KEEP_TERMS = 3


def keyword_match(store: IndexStore, query: str, max_share: float) -> str | None:
    """The FTS5 expression for ``query``. On an index of ``PRUNE_MIN_CHUNKS`` or more, terms found in more
    than ``max_share`` of the chunks are left out while ``KEEP_TERMS`` rarer ones remain: BM25 gives them
    little weight, yet they made the slowest part of a search on real logs ("back", "previous",
    "conversation" in a 20-word question: 50 ms of FTS at p95 over 34k chunks; docs/DESIGN.md §15)."""
    terms = query_terms(query)
    content = content_terms(terms)
    if max_share < 1 and len(content) > KEEP_TERMS:
        total, freq = store.term_frequencies(content)
        if total >= PRUNE_MIN_CHUNKS:
            rarest = sorted(content, key=freq.__getitem__)[:KEEP_TERMS]
            content = [t for t in content if t in rarest or freq[t] <= max_share * total]
    return match_expression(query, terms=content or terms)


def _score_keys(
    candidates: dict[int, _Candidate],
    score_keys: KeyScorer,
    query_vec: npt.NDArray[np.float32],
    weight: float,
    assistant_weight: float,
) -> None:
    """Blend each candidate's vector score with its best key's (keys.py); an assistant's key counts
    ``assistant_weight`` times. Only candidates are rescored: scoring every key would cost a matrix
    several times the chunks', for the same ranking on LoCoMo."""
    owners, assistant, embedded, cosines = score_keys(list(candidates), query_vec)
    if not len(owners):
        return  # an index built without keys (chunking.keys false)
    sims = np.where(assistant, assistant_weight, 1.0) * cosines
    best: dict[int, float] = {}
    for owner, sim, ready in zip(owners.tolist(), sims.tolist(), embedded.tolist(), strict=True):
        if ready and sim > best.get(owner, -1.0):
            best[owner] = sim
    keyed = set(owners.tolist())
    for seq, c in candidates.items():
        if seq in best or seq not in keyed:  # no key at all: headings only, nothing that answers
            c.vector = max((1 - weight) * c.vector + weight * best.get(seq, 0.0), 0.0)
        # keyed, but no key embedded yet (a batch job still running): its own vector alone, as before keys


def _widen(
    store: IndexStore, result: SearchResult, text: str, window: int, taken: list[SearchResult], terms: list[str]
) -> SearchResult | None:
    """The result (its chunk's ``text``) widened to ``window`` lines around its chunk, with its snippet; None
    if a better result already covers it.

    Widening never reaches into lines a better result already shows, so results do not repeat each other.
    """
    middle = (result.start_line + result.end_line) // 2
    if any(t.path == result.path and t.start_line <= middle <= t.end_line for t in taken):
        return None
    if result.end_line - result.start_line + 1 >= window:
        return dataclasses.replace(result, snippet=make_snippet(text, terms))
    shown = [(t.start_line, t.end_line) for t in taken if t.path == result.path]
    start, end = widen_span(result.start_line, result.end_line, store.last_line(result.path), window, shown)
    lines = store.lines_of(result.path, start, end)
    # Trim blank lines at the edges, as chunks are trimmed.
    while len(lines) > 1 and not lines[0].strip() and start < result.start_line:
        lines, start = lines[1:], start + 1
    while len(lines) > 1 and not lines[-1].strip() and end > result.end_line:
        lines, end = lines[:-1], end - 1
    return SearchResult(
        path=result.path,
        start_line=start,
        end_line=end,
        score=result.score,
        snippet=make_snippet("\n".join(lines), terms),
        source=result.source,
        vector_score=result.vector_score,
        text_score=result.text_score,
    )


def widen_span(start: int, end: int, last: int, window: int, shown: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """The lines a result of lines ``start``-``end`` is widened to: ``window`` lines around its middle, shifted
    up at the end of its file (``last``), never reaching into ``shown``, the spans that better results of the
    same file already show. A span of ``window`` lines or more stays as it is."""
    if end - start + 1 >= window:
        return start, end
    middle = (start + end) // 2
    first = max(1, min(middle - (window - 1) // 2, last - window + 1))
    first, final = min(first, start), max(min(last, first + window - 1), end)
    for a, z in shown:
        if first <= z < start:
            first = z + 1
        if end < a <= final:
            final = a - 1
    return first, final


def _rrf(
    candidates: dict[int, _Candidate], keyword: list[int], vector: list[int], k: int, wv: float, wt: float
) -> None:
    """Weighted reciprocal rank fusion, scaled so rank 1 on both lists scores 1.0."""
    kw_rank = {seq: i for i, seq in enumerate(keyword)}
    vec_rank = {seq: i for i, seq in enumerate(vector)}
    top = (wv + wt) / (k + 1)
    for c in candidates.values():
        s = 0.0
        if c.seq in vec_rank:
            s += wv / (k + 1 + vec_rank[c.seq])
        if c.seq in kw_rank:
            s += wt / (k + 1 + kw_rank[c.seq])
        c.score = s / top


def _mmr(
    ranked: list[_Candidate], vectors: SearchVectors | None, store: IndexStore, lam: float, n: int
) -> list[_Candidate]:
    """Maximal marginal relevance: trade relevance against similarity to what is already picked."""
    if vectors is not None:
        vecs = vectors.vectors_of([c.seq for c in ranked])
        sim = vecs @ vecs.T
    else:
        texts = store.chunks_by_seq(c.seq for c in ranked)
        sets = [set(re.findall(r"\w+", texts[c.seq].text.lower())) if c.seq in texts else set() for c in ranked]
        sim = np.array([[len(a & b) / max(len(a | b), 1) for b in sets] for a in sets])
    chosen: list[int] = []
    left = list(range(len(ranked)))
    while left and len(chosen) < n:
        best = max(
            left,
            key=lambda i: lam * ranked[i].score - (1 - lam) * max((sim[i, j] for j in chosen), default=0.0),
        )
        chosen.append(best)
        left.remove(best)
    return [ranked[i] for i in chosen] + [ranked[i] for i in left]


def _result(
    row: StoredChunk, c: _Candidate, terms: list[str], use_vector: bool, use_text: bool, snippet: bool = True
) -> SearchResult:
    return SearchResult(
        path=row.path,
        start_line=row.start_line,
        end_line=row.end_line,
        score=c.score,
        snippet=make_snippet(row.text, terms) if snippet else "",
        source=row.source,
        vector_score=c.vector if use_vector else None,
        text_score=c.text if use_text else None,
    )


def snippet_terms(query: str) -> list[str]:
    """The words of ``query`` a snippet is centred on: its terms less stopwords (all of them when only stopwords)."""
    return [t for t in query_terms(query) if t not in STOPWORDS] or query_terms(query)


def make_snippet(text: str, terms: list[str], limit: int = SNIPPET_MAX_CHARS) -> str:
    """At most ``limit`` characters of ``text``: the run of whole lines with the most query terms."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    lowered = [ln.lower() for ln in lines]
    hits = [sum(1 for t in terms if t in ln) for ln in lowered]
    best_start, best_hits = 0, -1
    for start in range(len(lines)):
        size, total, end = 0, 0, start
        while end < len(lines) and size + len(lines[end]) + 1 <= limit:
            size += len(lines[end]) + 1
            total += hits[end]
            end += 1
        if total > best_hits:
            best_start, best_hits = start, total
    out: list[str] = []
    size = 0
    for line in lines[best_start:]:
        if size + len(line) + 1 > limit:
            break
        out.append(line)
        size += len(line) + 1
    snippet = "\n".join(out)
    if not snippet:  # a single line longer than the limit
        snippet = lines[best_start][: limit - 1] + "…"
    return snippet
