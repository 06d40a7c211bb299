"""Pseudo-relevance feedback on the keyword leg (RM3-style): the words that weigh most in the best keyword
hits, and not in the query, make a second keyword query whose hits add to the text score.

A question rarely uses the words of its answer ("What instrument does Ana play?" against "Ana: I've had
violin lessons since May"); the best hits of the first query often do. Each feedback chunk votes for its
words in proportion to its relevance and their share of its words; a word's vote is multiplied by its
inverse document frequency (a chat's common words would win otherwise). Off by default
(``query.hybrid.feedback.weight`` 0); docs/DESIGN.md §25 has the measurements.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ..store import IndexStore
from ..text.keywords import STOPWORDS, content_terms, match_expression, query_terms

_WORD = re.compile(r"[^\W\d_][^\W_]{2,}")


def expansion_terms(
    store: IndexStore, query: str, hits: Sequence[tuple[int, float]], docs: int, terms: int
) -> list[str]:
    """The ``terms`` best words of the ``docs`` best keyword ``hits`` (seq, relevance) for ``query``."""
    top = [(seq, score) for seq, score in hits[:docs] if score > 0]
    if not top:
        return []
    rows = store.chunks_by_seq(seq for seq, _ in top)
    asked = set(content_terms(query_terms(query)))
    best = top[0][1]
    votes: dict[str, float] = {}
    for seq, score in top:
        row = rows.get(seq)
        if row is None:
            continue
        words = [w for w in _WORD.findall(row.text.lower()) if w not in STOPWORDS and w not in asked]
        for word, n in Counter(words).items():
            votes[word] = votes.get(word, 0.0) + (score / best) * n / len(words)
    if not votes:
        return []
    candidates = sorted(votes, key=lambda w: -votes[w])[: terms * 4]
    total, df = store.term_frequencies(candidates)
    weighted = {w: votes[w] * math.log(1 + total / (1 + df[w])) for w in candidates if df[w] > 0}
    return sorted(weighted, key=lambda w: -weighted[w])[:terms]


def feedback_hits(
    store: IndexStore, query: str, hits: Sequence[tuple[int, float]], docs: int, terms: int, limit: int
) -> list[tuple[int, float]]:
    """The second query's hits (seq, relevance), best first; empty when no word qualifies."""
    words = expansion_terms(store, query, hits, docs, terms)
    match = match_expression(" ".join(words), terms=words) if words else None
    return store.keyword_search(match, limit) if match else []
