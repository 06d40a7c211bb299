"""Recall: a small, cited bundle of facts for a question, from one ranker over several signals.

Candidates come from four pools, each ``k x candidateMultiplier`` deep: the word index over facts
(BM25), the fact vectors (cosine), the facts of entities the question names, and the facts whose time
falls in the question's time words. Every candidate is then scored on every signal::

    score = vectorWeight * cosine + textWeight * bm25 / best bm25      (relevance, weights sum to 1)
          + contextWeight * how well the fact's own day log matches the question
          + entityWeight  * (about an entity the question names)
          + relatedWeight * (about an entity often mentioned with it)
          + timeWeight    * (its event time, else its day, falls in the question's window)
          + opinionWeight * confidence  (opinions, for preference questions: "what does Peter prefer?")

``--since`` / ``--until`` / ``--kind`` / ``--entity`` are hard filters; ``budget`` keeps the best facts
that fit that many tokens. Pure ranking over the store's fact tables: the caller gives the query
vector, the fact vectors and the day-log relevance.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import RecallSettings
from ..errors import MemlaneError, ProviderError
from ..search.ranking import run_aside
from ..search.vectors import VectorIndex
from ..store import FactFilter, IndexStore, StoredFact, StoredRelation
from ..text.keywords import STOPWORDS, match_expression
from ..text.timeparse import _YEAR_IN, REPORT_LAG_DAYS, QueryTime, TimeRange, parse_bound, query_time
from . import supersede
from .entities import Entity, EntityDirectory
from .graph import directory_of, key_of
from .graph.predicates import Predicates
from .graph.query import Graph, describe_path
from .graph.settle import Stated
from .retain import KIND_LETTERS, KINDS, PROVENANCE

TokenCounter = Callable[[Sequence[str]], list[int]]
Embed = Callable[[str], npt.NDArray[np.float32]]
# The day logs' best chunks for a query (and its vector): (path, start line, end line, score), best first.
ChunkHits = Callable[[str, npt.NDArray[np.float32] | None], list[tuple[str, int, int, float]]]

_OPINION_CUES = re.compile(
    r"\b(?:prefer\w*|favou?rite\w*|opinions?|likes?|liked|loves?|hates?|dislikes?|enjoys?|thinks?|"
    r"thoughts?|feels?|believes?|views?|wants?|wish\w*|rather|taste|stand)\b",
    re.IGNORECASE,
)
# "When did ...", "what date", "how long ago": a fact that names its own time answers these best.
_WHEN_CUES = re.compile(r"^\s*when\b|\b(?:what|which)\s+(?:date|day|month|year|week)\b|\bhow\s+long\s+ago\b", re.I)
_RECENT_CUES = re.compile(r"\b(?:current(?:ly)?|now|latest|recent(?:ly)?|these days|still|anymore)\b", re.I)
RELATED_PER_ENTITY = 3  # related entities followed per named entity


@dataclass(frozen=True)
class RecalledFact:
    kind: str
    day: str | None
    time: TimeRange | None
    entities: list[str]
    content: str
    confidence: float | None
    source: str
    score: float
    signals: dict[str, float] | None = None  # with explain: each signal before weighting
    valid_to: str | None = None  # a superseded fact: when it stopped being true ...
    superseded_by: dict[str, str] | None = None  # ... and what said so: {content, source}
    path: str | None = None  # brought by a relation of a named entity: "Peter → works_at → Acme → ..."
    origin: str = "file"  # who it comes from: "person", "agent" or "file" (memlane.text.origin)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "day": self.day,
            "time": self.time.to_dict() if self.time else None,
            "entities": list(self.entities),
            "content": self.content,
            "confidence": self.confidence,
            "source": self.source,
            "origin": self.origin,
            "score": round(self.score, 4),
        }
        if self.valid_to is not None:
            out["valid_to"] = self.valid_to
        if self.superseded_by is not None:
            out["superseded_by"] = dict(self.superseded_by)
        if self.path is not None:
            out["path"] = self.path
        if self.signals is not None:
            out["signals"] = {k: round(v, 4) for k, v in self.signals.items()}
        return out


@dataclass(frozen=True)
class EntityRef:
    name: str
    page: str | None
    facts: int  # how many facts mention it
    match: str  # "query" (the question names it), "filter" (--entity), "related"
    via: str | None = None  # for "related": the named entity it is mentioned with

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "page": self.page, "facts": self.facts, "match": self.match}
        if self.via is not None:
            out["via"] = self.via
        return out


@dataclass(frozen=True)
class RecallResponse:
    facts: list[RecalledFact]
    entities: list[EntityRef]
    notes: list[str] = field(default_factory=list)
    time: QueryTime | None = None  # the window the question's time words asked about
    candidates: list[RecalledFact] | None = None  # with explain: every fact that was scored, best first

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "facts": [f.to_dict() for f in self.facts],
            "entities": [e.to_dict() for e in self.entities],
            "notes": list(self.notes),
        }
        if self.time is not None:
            out["time"] = self.time.to_dict()
        return out


def entity_directory(store: IndexStore) -> EntityDirectory:
    """Every entity of the index: entity pages' names, the mentions no page names, and the entity objects of
    relations ("moved to Lisbon")."""
    return directory_of(store.facts)


def date_bound(value: dt.date | str | None, today: dt.date, name: str, end: bool = False) -> dt.date | None:
    """A ``since`` / ``until`` argument as a date: a date, or text such as ``30d``, ``2025-11``, ``last week``."""
    if value is None or isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    try:
        return parse_bound(str(value), today, end=end)
    except ValueError as exc:
        raise MemlaneError(f"{name}: {exc}") from None


def parse_kinds(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``world,opinion`` or ``W,O`` (or a list of either) -> the kinds' names; None for all kinds."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    out: list[str] = []
    for raw in items:
        item = str(raw).strip()
        if not item:
            continue
        name = KINDS.get(item.upper()) if len(item) == 1 else item.lower()
        if name not in KIND_LETTERS:
            raise MemlaneError(
                f"unknown fact kind {item!r}: use world, experience, opinion, observation (or W, B, O, S)"
            )
        out.append(name)
    return tuple(dict.fromkeys(out)) or None


@dataclass
class _Candidate:
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


def embedded_text(query: str, today: dt.date) -> str:
    """What of ``query`` is embedded: its time words ("last week") set the window, not the vector."""
    asked = query_time(query, today)
    return asked.strip(query) if asked is not None else query


def recall(
    store: IndexStore,
    query: str,
    *,
    settings: RecallSettings,
    now: dt.datetime,
    k: int | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    kinds: tuple[str, ...] | None = None,
    entity: str | None = None,
    budget: int | None = None,
    embed: Embed | None = None,
    query_vec: npt.NDArray[np.float32] | None = None,
    vectors: VectorIndex | None = None,
    context: ChunkHits | None = None,
    count_tokens: TokenCounter | None = None,
    explain: bool = False,
    directory: EntityDirectory | None = None,
    as_of: dt.date | None = None,
    known_at: dt.date | None = None,
    predicates: Predicates | None = None,
) -> RecallResponse:
    """The best facts for ``query`` (see the module docstring for the ranking). Time words ("last week")
    set the window and are left out of the words and the vector query. ``explain`` adds each fact's
    signals and the list of every candidate that was scored. ``directory``: the index's entities, when the
    caller keeps them (they change only when the index does). ``query_vec``: the query already embedded
    (of :func:`embedded_text`), so ``embed`` is not called.

    Facts that state relations (memlane.facts.graph) are current or not: a fact none of whose relations still holds
    comes after every current one, with when it stopped and what superseded it. ``as_of``: what was true on
    that day (facts that only became true later are left out); ``known_at``: what memory knew on that day
    (facts logged later are left out and the rest settled among themselves)."""
    limit = k or settings.k
    predicates = predicates or Predicates()
    ref_day = (as_of or known_at or now.date()).isoformat()
    notes: list[str] = []
    asked = query_time(query, now.date())
    if asked is not None:
        asked, shifted = _latest_covered(store, query, now.date(), asked)
        if shifted:
            notes.append(f"time: no year given and no fact in {shifted}; read as the latest one the memory holds")
    content = asked.strip(query) if asked is not None else query
    if embed is not None and query_vec is None:
        try:
            query_vec = embed(content)
        except ProviderError as exc:
            notes.append(f"query embedding failed, words only: {exc}")
    directory = directory or entity_directory(store)
    refs: list[EntityRef] = []
    norms: tuple[str, ...] | None = None
    if entity is not None:
        wanted = directory.resolve(entity)
        if wanted is None:
            hint = directory.suggest(entity)
            raise MemlaneError(f"no entity {entity!r} in the index" + (f": did you mean {hint}?" if hint else ""))
        norms = tuple(sorted(wanted.norms))
        refs.append(EntityRef(wanted.name, wanted.page, directory.counts.get(wanted.key, 0), "filter"))
    where = FactFilter(kinds, since, until, norms)
    # The day logs' chunks are scored on the search threads while the fact pools are read here. The job is
    # always waited for, even when this call fails: the caller may close the store right after.
    aside = run_aside(context, content, query_vec) if context is not None and settings.context_weight > 0 else None
    try:
        pool = limit * settings.candidate_multiplier
        candidates: dict[int, _Candidate] = {}

        # Lexical: the fact's words and the words of the log it came from.
        match = match_expression(content, ("text", "context"))
        hits = store.facts.keyword_search(match, pool, where) if match else []
        best = max((s for _, s in hits), default=0.0)
        for seq, raw in hits:
            candidates[seq] = _Candidate(seq, text=raw / best if best > 0 else 0.0)

        # Semantic: cosine over the fact vectors (within the filter).
        sims: npt.NDArray[np.float32] | None = None
        if query_vec is not None and vectors is not None and len(vectors.seqs):
            sims = vectors.matrix @ query_vec
            allowed = sims
            if not where.empty:
                mask = np.isin(vectors.seqs, np.asarray(store.facts.seqs(where), dtype=np.int64))
                allowed = np.where(mask, sims, -np.inf)
            n = min(pool, int(np.isfinite(allowed).sum()))
            if n:
                top = np.argpartition(-allowed, n - 1)[:n] if n < len(allowed) else np.argsort(-allowed)[:n]
                for i in top:
                    candidates.setdefault(int(vectors.seqs[i]), _Candidate(int(vectors.seqs[i])))

        # Entities the question names, and those often mentioned with them.
        named = directory.named_in(query, STOPWORDS)
        named_keys = {e.key for e, _ in named}
        related: dict[str, tuple[Entity, float, str]] = {}
        for ent, _words in named:
            refs.append(EntityRef(ent.name, ent.page, directory.counts.get(ent.key, 0), "query"))
            co = store.facts.co_mentions(sorted(ent.norms))
            top_count = co[0][1] if co else 0
            for norm, count in co[: RELATED_PER_ENTITY * 3]:
                other = directory.of_norm(norm)
                if other is None or other.key in named_keys or other.key in related:
                    continue
                related[other.key] = (other, count / top_count if top_count else 0.0, ent.name)
                if sum(1 for r in related.values() if r[2] == ent.name) >= RELATED_PER_ENTITY:
                    break
        for other, _share, via in related.values():
            refs.append(EntityRef(other.name, other.page, directory.counts.get(other.key, 0), "related", via))
        named_norms = sorted({n for e, _ in named for n in e.norms})
        related_norms = {n: share for other, share, _ in related.values() for n in other.norms}
        for seq in store.facts.mentioning(named_norms, pool) + store.facts.mentioning(sorted(related_norms), pool):
            candidates.setdefault(seq, _Candidate(seq))

        # Time words: "last week", "in May 2023", "around Nov 27", "since March".
        if asked is not None:
            notes.append(f"time: {asked.text!r} read as {asked.window}")
            lag = dt.timedelta(days=REPORT_LAG_DAYS)
            for seq in store.facts.in_window(asked.window.start, asked.window.end + lag, pool):
                candidates.setdefault(seq, _Candidate(seq))

        # Relations: facts stating what the question asks about a named entity, and one hop beyond it.
        asked_predicates = predicates.asked(query)
        named_keys_all = sorted({e.key for e, _ in named})
        graph = Graph(store.facts, directory, predicates)
        hops = _graph_pool(store, named_keys_all, asked_predicates, ref_day, pool, graph)
        for seq, path in hops.items():
            candidates.setdefault(seq, _Candidate(seq)).path = path
        # With an entity named, only its own relations answer "where does X live"; the same predicate stated
        # about anyone else is no evidence. Without one, any fact stating the predicate is.
        direct = {seq for seq, path in hops.items() if path is None} if named_keys_all else None

        if not candidates:
            if aside is not None:
                aside.result()
            total = store.facts.counts()["facts"]
            if total == 0:
                notes.append("no facts indexed: add '## Retain' bullets (- W @Name: ...) to memory files")
            return RecallResponse([], refs, notes, asked)

        facts = store.facts.by_seq(candidates)
        stated = store.facts.relations.of_facts(list(facts))
        if known_at is not None:  # what memory did not hold yet: its record time, else its log's day
            recorded: dict[int, str] = {}
            for r in stated:
                if r.fact is not None and r.known_from is not None:
                    recorded[r.fact] = min(recorded.get(r.fact, r.known_from), r.known_from)
            facts = {s: f for s, f in facts.items() if (recorded.get(s) or f.day or "") <= known_at.isoformat()}
        if as_of is not None:  # what had not happened yet
            facts = {s: f for s, f in facts.items() if (f.t_start or f.day or "") <= as_of.isoformat()}
        else:  # what was said after the question was asked is no answer to it
            facts = {s: f for s, f in facts.items() if not _said_after(f, now)}
        stated = [r for r in stated if r.fact in facts]
        status = _validity(store, stated, ref_day, known_at, graph, asked_predicates)
        facts = {s: f for s, f in facts.items() if status.get(s, _CURRENT).state != "later"}
        if not where.empty:  # pools that do not filter (entities, time) may bring facts outside the filter
            allowed_set = set(store.facts.seqs(where))
            candidates = {s: c for s, c in candidates.items() if s in allowed_set}
        if sims is not None and vectors is not None:
            seqs = list(candidates)
            for seq, row in zip(seqs, vectors.rows_of(seqs), strict=True):
                if row >= 0:
                    candidates[seq].vector = max(float(sims[row]), 0.0)
        ctx = _DayContext(aside.result() if aside is not None else [])
        wants_opinion = bool(_OPINION_CUES.search(query))
        wants_recent = bool(_RECENT_CUES.search(query))
        wants_when = bool(_WHEN_CUES.search(query))
        days = sorted({f.day for f in facts.values() if f.day})
        day_rank = {d: (i + 1) / len(days) for i, d in enumerate(days)}
        wv, wt = settings.vector_weight, settings.text_weight
        if not hits:  # nothing matched lexically: the text signal is absent, not zero
            wv, wt = wv + wt, 0.0
        elif sims is None:
            wv, wt = 0.0, wv + wt
        total_w = (wv + wt) or 1.0
        for seq, c in candidates.items():
            f = facts.get(seq)
            if f is None:
                continue
            mentions = {norm for norm, _ in f.mentions}
            if mentions & set(named_norms):
                c.entity = 1.0
            elif mentions & set(related_norms):
                c.related = max(related_norms[n] for n in mentions & set(related_norms))
            c.context = ctx.score(f)
            c.time = _time_signal(f, asked.window if asked else None)
            if wants_recent and f.day:
                c.time = max(c.time, 0.5 * day_rank.get(f.day, 0.0))
            if wants_when and f.t_start:
                c.dated = 1.0
            if wants_opinion and f.kind == "opinion":
                c.opinion = f.confidence if f.confidence is not None else 0.5
            st = status.get(seq, _CURRENT)
            if asked_predicates & st.predicates and c.path is None and (direct is None or seq in direct):
                c.relation = 1.0
            if c.path is not None:
                c.hop = 1.0
            c.score = (
                (wv * c.vector + wt * c.text) / total_w
                + settings.context_weight * c.context
                + settings.entity_weight * c.entity
                + settings.related_weight * c.related
                + settings.time_weight * c.time
                + settings.dated_weight * c.dated
                + settings.opinion_weight * c.opinion
                + settings.relation_weight * c.relation
                + settings.hop_weight * c.hop
            )
        # Current facts first; a superseded one after them all, labelled. Among the current ones, a named
        # entity's own statement of a single-valued predicate the question asks for ("where does Leo live")
        # is the answer by structure: it leads, whatever the words of other facts match.
        single = {p for p in asked_predicates if predicates.single(p)}
        answers = {s for s in direct or () if single & status.get(s, _CURRENT).predicates}
        ranked = sorted(
            (c for c in candidates.values() if c.seq in facts),
            key=lambda c: (status.get(c.seq, _CURRENT).state != "current", c.seq not in answers, -c.score, c.seq),
        )
        ranked = _by_time(ranked, facts, status, query, asked, vectors)
        chosen = _fit(ranked[:limit] if budget is None else ranked, facts, budget, count_tokens, limit)
        out = [_recalled(facts[c.seq], c, directory, explain, status.get(c.seq)) for c in chosen]
        if budget is not None and len(chosen) < min(limit, len(ranked)):
            notes.append(f"budget: {len(chosen)} facts fit in {budget} tokens")
        every = [_recalled(facts[c.seq], c, directory, True, status.get(c.seq)) for c in ranked] if explain else None
        return RecallResponse(out, refs, notes, asked, every)

    finally:
        if aside is not None:
            futures.wait([aside])


# How many years back a date without a year is looked for (see _latest_covered).
YEARS_BACK = 30


def _latest_covered(store: IndexStore, query: str, today: dt.date, asked: QueryTime) -> tuple[QueryTime, str]:
    """``asked``, or when its dates name no year ("in November", "on May 7"; none relative such as "last
    week") and the memory holds no fact in the latest such date before ``today``, the latest one that holds
    some: a memory that ends in 2023, asked about "the second week of November", means November 2023.
    Also returns the window left behind ("" when none was)."""
    if asked.spans or _YEAR_IN.search(asked.text):
        return asked, ""
    lag = dt.timedelta(days=REPORT_LAG_DAYS)
    if store.facts.in_window(asked.window.start, asked.window.end + lag, 1):
        return asked, ""
    if not store.facts.in_window(dt.date.min, asked.window.start, 1):
        return asked, ""  # no older fact to move to: one query, not one a year (a memory without facts)
    for back in range(1, YEARS_BACK + 1):
        year = today.year - back
        base = today.replace(year=year, day=28) if (today.month, today.day) == (2, 29) else today.replace(year=year)
        earlier = query_time(query, base)
        if earlier is None or earlier.spans:
            break
        if store.facts.in_window(earlier.window.start, earlier.window.end + lag, 1):
            return earlier, str(asked.window)
    return asked, ""


def _time_signal(f: StoredFact, window: TimeRange | None) -> float:
    """1 when the fact's event time (else its day) falls in the window; 0.5 when only its day does; a
    share fading from 0.5 to 0 when it was logged up to ``REPORT_LAG_DAYS`` after the window ended
    (:meth:`TimeRange.reported`)."""
    if window is None:
        return 0.0
    day = dt.date.fromisoformat(f.day) if f.day else None
    if f.t_start and f.t_end:
        if window.overlaps(TimeRange(dt.date.fromisoformat(f.t_start), dt.date.fromisoformat(f.t_end))):
            return 1.0
        return 0.5 if day and window.contains(day) else 0.0
    if day is None:
        return 0.0
    return 1.0 if window.contains(day) else 0.5 * window.reported(day)


def _fit(
    ranked: list[_Candidate],
    facts: dict[int, StoredFact],
    budget: int | None,
    count_tokens: TokenCounter | None,
    limit: int,
) -> list[_Candidate]:
    """The best facts, at most ``limit``; with a budget, the best that fit it in rank order."""
    if budget is None:
        return ranked[:limit]
    count = count_tokens or (lambda texts: [len(t.split()) for t in texts])
    chosen: list[_Candidate] = []
    left = budget
    for c in ranked:
        f = facts[c.seq]
        cost = count([f"{f.content} ({f.source})"])[0]
        if cost <= left:
            chosen.append(c)
            left -= cost
        if len(chosen) == limit or left <= 0:
            break
    return chosen


def _recalled(
    f: StoredFact, c: _Candidate, directory: EntityDirectory, explain: bool, st: _Status | None = None
) -> RecalledFact:
    names: list[str] = []
    for norm, name in f.mentions:
        ent = directory.of_norm(norm)
        shown = ent.name if ent is not None and ent.page is not None else name
        if shown not in names:
            names.append(shown)
    time = (
        TimeRange(dt.date.fromisoformat(f.t_start), dt.date.fromisoformat(f.t_end)) if f.t_start and f.t_end else None
    )
    signals = c.signals() if explain else None
    superseded = st is not None and st.state == "superseded"
    return RecalledFact(
        f.kind,
        f.day,
        time,
        names,
        f.content,
        f.confidence,
        f.source,
        c.score,
        signals,
        st.valid_to if superseded and st is not None else None,
        st.by if superseded and st is not None else None,
        c.path,
        f.origin,
    )


@dataclass(frozen=True)
class _Status:
    state: str  # "current" | "superseded" | "later" (true only after the day asked about)
    predicates: frozenset[str] = frozenset()  # what the fact states (ends left out)
    valid_to: str | None = None
    by: dict[str, str] | None = None  # {content, source} of what closed it


_CURRENT = _Status("current")


def _validity(
    store: IndexStore,
    rows: list[StoredRelation],
    day: str,
    known_at: dt.date | None,
    graph: Graph,
    asked: AbstractSet[str] = frozenset(),
) -> dict[int, _Status]:
    """Each fact's standing on ``day``, from its relations (``rows``, the statements of the facts scored):
    current when one of them holds, superseded when all
    ended on or before it, "later" when none had begun. A fact without relations is current. When the fact
    states a predicate the question asks for (``asked``), those relations alone decide: "Joined Acme as an
    accountant" no longer answers "where does she work" once she works elsewhere, though she is still an
    accountant."""
    if not rows:
        return {}
    known = graph.known({key_of(graph.directory, r.subject) for r in rows}, known_at.isoformat()) if known_at else None
    by_fact: dict[int, list[StoredRelation | Stated]] = {}
    for r in rows:
        if r.ends or r.fact is None:
            continue
        held: StoredRelation | Stated | None = r if known is None else known.get(r.seq)
        if held is not None:
            by_fact.setdefault(r.fact, []).append(held)
    closers = store.facts.relations.by_seq(
        [s.closed_by for v in by_fact.values() for s in v if s.closed_by is not None]
    )
    closer_facts = store.facts.by_seq([r.fact for r in closers.values() if r.fact is not None])
    out: dict[int, _Status] = {}
    for seq, held_rels in by_fact.items():
        names = frozenset(s.predicate for s in held_rels)
        if names & asked:
            held_rels = [s for s in held_rels if s.predicate in asked]
        if any(s.valid_on(day) for s in held_rels):
            out[seq] = _Status("current", names)
        elif all(s.valid_from is not None and s.valid_from > day for s in held_rels):
            out[seq] = _Status("later", names)
        else:
            last = max((s for s in held_rels if s.valid_to is not None), key=lambda s: str(s.valid_to), default=None)
            closer = closers.get(last.closed_by) if last is not None and last.closed_by is not None else None
            by = None
            if closer is not None:
                cf = closer_facts.get(closer.fact) if closer.fact is not None else None
                by = {
                    "content": cf.content if cf else describe_path([graph.edge(closer)]),
                    "source": cf.source if cf else closer.source,
                }
                if closer.known_to:  # what memory held then and has let go since (a bullet removed under git)
                    by["retracted"] = closer.known_to
            out[seq] = _Status("superseded", names, last.valid_to if last is not None else None, by)
    return out


def _said_after(f: StoredFact, now: dt.datetime) -> bool:
    """Whether ``f`` was logged after ``now``: a later day, or the same day at a later time of day."""
    if not f.day:
        return False
    today = now.date().isoformat()
    if f.day != today:
        return f.day > today
    m = PROVENANCE.search(f.content)
    return m is not None and m.group("at").zfill(5) > now.strftime("%H:%M")


def _by_time(
    ranked: list[_Candidate],
    facts: dict[int, StoredFact],
    status: dict[int, _Status],
    query: str,
    asked: QueryTime | None,
    vectors: VectorIndex | None,
) -> list[_Candidate]:
    """``ranked`` with facts about the same thing brought together (:mod:`memlane.facts.supersede`): the
    current one first and the ones it superseded marked, or for a question about the past, the value then."""
    top = [c.seq for c in ranked[: supersede.GROUP_SPAN]]
    said = [
        s
        for s in (
            supersede.read(q, facts[q].content, facts[q].day, facts[q].path, facts[q].start_line, facts[q].mentions)
            for q in top
        )
        if s is not None
    ]
    cosine = None
    if vectors is not None and said:
        rows = vectors.rows_of([s.seq for s in said])
        if all(r >= 0 for r in rows):
            m = vectors.matrix[rows]
            sims = m @ m.T
            cosine = lambda i, j: float(sims[i, j])  # noqa: E731
    question = supersede.question(query)
    found = supersede.supersessions(said, cosine, question)
    if question.values:  # "fact number 17", "did I pay 30 euros": the question names the value it wants
        named = {s.seq: s.values & question.values for s in said}
        told = {sup.by for seq, sup in found.items() if named[seq] != named[sup.by]}
        found = {seq: sup for seq, sup in found.items() if sup.by not in told}
    if not found:
        return ranked
    past = supersede.asks_for_past(query)
    until = asked.window.end if asked is not None and past else None
    when = {s.seq: s.when for s in said}
    by_seq = {c.seq: c for c in ranked}
    seqs = supersede.order([c.seq for c in ranked], found, when, past, until)
    if not past:
        for seq, sup in found.items():
            head = facts[sup.by]
            status[seq] = _Status("superseded", frozenset(), sup.day, {"content": head.content, "source": head.source})
    return [by_seq[s] for s in seqs]


HOP_NEIGHBOURS = 20  # entities one relation away from a named one whose facts a question also brings


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


class _DayContext:
    """How well the log a fact was drawn from matches the question: the best chunk covering the fact's
    anchor lines, else (at ``FILE_SHARE``) the best chunk of its file; the best chunk overall is 1."""

    FILE_SHARE = 0.5

    def __init__(self, hits: list[tuple[str, int, int, float]]) -> None:
        self.by_path: dict[str, list[tuple[int, int, float]]] = {}
        for path, start, end, score in hits:
            self.by_path.setdefault(path, []).append((start, end, score))
        self.top = max((s for _, _, _, s in hits), default=0.0)

    def score(self, fact: StoredFact) -> float:
        hits = self.by_path.get(fact.path)
        if not hits or self.top <= 0:
            return 0.0
        file_best = max(s for _, _, s in hits)
        anchored = max((s for a, b, s in hits if any(a <= x <= b for x in fact.anchors)), default=0.0)
        return max(anchored, self.FILE_SHARE * file_best) / self.top
