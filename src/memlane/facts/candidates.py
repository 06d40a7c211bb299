"""Recall's candidates: the facts each leg brings for a question, each leg ``k x candidateMultiplier`` deep: its
words (BM25 over the facts and their logs), its vector (cosine over the fact vectors), the entities it names and
those often mentioned with them, its time words, and the relations it asks about a named entity, one hop beyond.
facts/ranking.py scores them; facts/recall.py is the entry.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..embeddings import similarities
from ..search.vectors import VectorIndex
from ..store import FactFilter, IndexStore, StoredRelation
from ..text.keywords import STOPWORDS, match_expression
from ..text.timeparse import REPORT_LAG_DAYS, QueryTime
from .entities import Entity, EntityDirectory
from .graph.predicates import Predicates
from .graph.query import Graph, describe_path

RELATED_PER_ENTITY = 3  # related entities followed per named entity
HOP_NEIGHBOURS = 20  # entities one relation away from a named one whose facts a question also brings


@dataclass
class Candidate:
    seq: int
    vector: float = 0.0  # cosine to the query
    text: float = 0.0  # BM25 / best BM25
    context: float = 0.0  # the day log around it
    entity: float = 0.0  # 1: about an entity the query names
    related: float = 0.0  # about an entity mentioned with it: its share of the co-mentions
    time: float = 0.0  # in the query's time window
    dated: float = 0.0  # names its own time, for a "when" question
    opinion: float = 0.0  # an opinion's confidence, for a preference question
    relation: float = 0.0  # states a relation the question asks for ("where ... live" -> lives_in)
    hop: float = 0.0  # about an entity a named one is related to
    score: float = 0.0
    path: str | None = None

    def signals(self) -> dict[str, float]:
        return {
            "vector": self.vector,
            "text": self.text,
            "context": self.context,
            "entity": self.entity,
            "related": self.related,
            "time": self.time,
            "dated": self.dated,
            "opinion": self.opinion,
            "relation": self.relation,
            "hop": self.hop,
        }


@dataclass(frozen=True)
class Question:
    """A question as recall reads it."""

    text: str  # as asked
    content: str  # less its time words: what the words and the vector match
    asked: QueryTime | None  # the window its time words name
    vec: npt.NDArray[np.float32] | None  # ``content`` embedded (None: words only)
    where: FactFilter  # the hard filters: kinds, since, until, an entity
    day: str  # the day whose truth it asks about: as_of, else known_at, else today


@dataclass
class Found:
    """Every leg's candidates (by fact seq, in the order the legs brought them) and what scoring reads of how
    they were found."""

    candidates: dict[int, Candidate]
    matched: bool  # the words matched some fact (else the text signal is absent, not zero)
    sims: npt.NDArray[np.float32] | None  # every fact vector's cosine to the question
    named: list[tuple[Entity, str]]  # the entities the question names, with the words
    related: dict[str, tuple[Entity, float, str]]  # key -> (entity often mentioned with a named one, share, via)
    named_norms: list[str]
    related_norms: dict[str, float]  # norm -> its entity's share of the co-mentions
    asked: set[str]  # the relation predicates the question asks for
    direct: set[int] | None  # the facts stating one about a named entity (None: no entity named)
    graph: Graph


def gather(
    store: IndexStore,
    question: Question,
    vectors: VectorIndex | None,
    directory: EntityDirectory,
    predicates: Predicates,
    pool: int,
    notes: list[str],
) -> Found:
    """Every leg's candidates for ``question``, ``pool`` deep each."""
    candidates: dict[int, Candidate] = {}
    matched = _words_leg(store, question, pool, candidates)
    sims = _vector_leg(store, question, vectors, pool, candidates)
    named, related, named_norms, related_norms = _entity_leg(store, directory, question.text, pool, candidates)
    _time_leg(store, question.asked, pool, candidates, notes)
    asked = predicates.asked(question.text)
    graph = Graph(store.facts, directory, predicates)
    direct = _relation_leg(store, named, asked, question.day, pool, graph, candidates)
    return Found(candidates, matched, sims, named, related, named_norms, related_norms, asked, direct, graph)


def _words_leg(store: IndexStore, question: Question, pool: int, candidates: dict[int, Candidate]) -> bool:
    """Lexical: the fact's words and the words of the log it came from. Whether any fact matched."""
    match = match_expression(question.content, ("text", "context"))
    hits = store.facts.keyword_search(match, pool, question.where) if match else []
    best = max((s for _, s in hits), default=0.0)
    for seq, raw in hits:
        candidates[seq] = Candidate(seq, text=raw / best if best > 0 else 0.0)
    return bool(hits)


def _vector_leg(
    store: IndexStore,
    question: Question,
    vectors: VectorIndex | None,
    pool: int,
    candidates: dict[int, Candidate],
) -> npt.NDArray[np.float32] | None:
    """Semantic: cosine over the fact vectors (within the filter). Every fact vector's cosine, when there are."""
    query_vec, where = question.vec, question.where
    if query_vec is None or vectors is None or not len(vectors.seqs):
        return None
    sims = similarities(vectors.matrix, query_vec)
    allowed = sims
    if not where.empty:
        mask = np.isin(vectors.seqs, np.asarray(store.facts.seqs(where), dtype=np.int64))
        allowed = np.where(mask, sims, -np.inf)
    n = min(pool, int(np.isfinite(allowed).sum()))
    if n:
        top = np.argpartition(-allowed, n - 1)[:n] if n < len(allowed) else np.argsort(-allowed)[:n]
        for i in top:
            candidates.setdefault(int(vectors.seqs[i]), Candidate(int(vectors.seqs[i])))
    return sims


def _entity_leg(
    store: IndexStore, directory: EntityDirectory, query: str, pool: int, candidates: dict[int, Candidate]
) -> tuple[list[tuple[Entity, str]], dict[str, tuple[Entity, float, str]], list[str], dict[str, float]]:
    """Entities the question names, and those often mentioned with them: the entities, and their norms."""
    named = directory.named_in(query, STOPWORDS)
    related = _related(store, directory, named)
    named_norms = sorted({n for e, _ in named for n in e.norms})
    related_norms = {n: share for other, share, _ in related.values() for n in other.norms}
    for seq in store.facts.mentioning(named_norms, pool) + store.facts.mentioning(sorted(related_norms), pool):
        candidates.setdefault(seq, Candidate(seq))
    return named, related, named_norms, related_norms


def _related(
    store: IndexStore, directory: EntityDirectory, named: list[tuple[Entity, str]]
) -> dict[str, tuple[Entity, float, str]]:
    """Up to ``RELATED_PER_ENTITY`` entities most mentioned with each named one: key -> (entity, its share of the
    named one's co-mentions, the named one's name)."""
    named_keys = {e.key for e, _ in named}
    related: dict[str, tuple[Entity, float, str]] = {}
    for ent, _words in named:
        co = store.facts.co_mentions(sorted(ent.norms))
        top_count = co[0][1] if co else 0
        for norm, count in co[: RELATED_PER_ENTITY * 3]:
            other = directory.of_norm(norm)
            if other is None or other.key in named_keys or other.key in related:
                continue
            related[other.key] = (other, count / top_count if top_count else 0.0, ent.name)
            if sum(1 for r in related.values() if r[2] == ent.name) >= RELATED_PER_ENTITY:
                break
    return related


def _time_leg(
    store: IndexStore, asked: QueryTime | None, pool: int, candidates: dict[int, Candidate], notes: list[str]
) -> None:
    """Time words: "last week", "in May 2023", "around Nov 27", "since March"."""
    if asked is not None:
        notes.append(f"time: {asked.text!r} read as {asked.window}")
        lag = dt.timedelta(days=REPORT_LAG_DAYS)
        for seq in store.facts.in_window(asked.window.start, asked.window.end + lag, pool):
            candidates.setdefault(seq, Candidate(seq))


def _relation_leg(
    store: IndexStore,
    named: list[tuple[Entity, str]],
    asked: set[str],
    day: str,
    pool: int,
    graph: Graph,
    candidates: dict[int, Candidate],
) -> set[int] | None:
    """Relations: facts stating what the question asks about a named entity, and one hop beyond it. The facts
    that state it of a named entity (None when none is named)."""
    named_keys_all = sorted({e.key for e, _ in named})
    hops = _graph_pool(store, named_keys_all, asked, day, pool, graph)
    for seq, path in hops.items():
        candidates.setdefault(seq, Candidate(seq)).path = path
    # With an entity named, only its own relations answer "where does X live"; the same predicate stated
    # about anyone else is no evidence. Without one, any fact stating the predicate is.
    return {seq for seq, path in hops.items() if path is None} if named_keys_all else None


def _graph_pool(
    store: IndexStore, named: list[str], asked: set[str], day: str, pool: int, graph: Graph
) -> dict[int, str | None]:
    """Facts stating an asked-for relation of a named entity (path None), and facts about the entities a named
    one holds a relation to on ``day`` (with the path: "Peter → works_at → Acme → located_in → Lisbon")."""
    if not named:
        return {}
    out: dict[int, str | None] = {}
    rows = store.facts.relations.touching(named, pool * 4)
    for r in rows:
        if r.fact is not None and (r.predicate in asked or r.stated in asked):
            out.setdefault(r.fact, None)
    hops: dict[str, StoredRelation] = {}  # entity one relation away -> the relation that leads there
    for r in rows:
        if r.entity and r.subject_key in named and r.valid_on(day) and r.object_key not in named:
            hops.setdefault(r.object_key, r)
        if len(hops) >= HOP_NEIGHBOURS:
            break
    for r in store.facts.relations.touching(sorted(hops), pool * 4) if hops else []:
        if r.fact is not None and r.subject_key in hops and r.valid_on(day) and r.fact not in out:
            out[r.fact] = describe_path([graph.edge(hops[r.subject_key]), graph.edge(r)])
    return out
