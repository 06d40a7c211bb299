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

This module is the entry: it reads the question, then the legs gather candidates (facts/candidates.py), the
ranking keeps the facts that stand on the day asked about, scores and orders them (facts/ranking.py), and the
best are built into the response here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import RecallSettings
from ..errors import MemlaneError, NotFoundError, ProviderError, UsageError
from ..search.ranking import run_aside
from ..search.vectors import VectorIndex
from ..store import FactFilter, IndexStore, StoredFact
from ..text.timeparse import _YEAR_IN, REPORT_LAG_DAYS, QueryTime, TimeRange, parse_bound, query_time
from .candidates import Candidate, Found, Question, gather
from .entities import EntityDirectory
from .graph import directory_of
from .graph.predicates import Predicates
from .ranking import DayContext, Status, order, score, standing, vector_signal, within
from .retain import KIND_LETTERS, KINDS

TokenCounter = Callable[[Sequence[str]], list[int]]
Embed = Callable[[str], npt.NDArray[np.float32]]
# The day logs' best chunks for a query (and its vector): (path, start line, end line, score), best first.
ChunkHits = Callable[[str, npt.NDArray[np.float32] | None], list[tuple[str, int, int, float]]]


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
            raise UsageError(f"unknown fact kind {item!r}: use world, experience, opinion, observation (or W, B, O, S)")
        out.append(name)
    return tuple(dict.fromkeys(out)) or None


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
    notes: list[str] = []
    asked, content, query_vec = _read_question(store, query, now.date(), embed, query_vec, notes)
    directory = directory or entity_directory(store)
    refs: list[EntityRef] = []
    norms: tuple[str, ...] | None = None
    if entity is not None:
        norms, ref = _entity_filter(directory, entity)
        refs.append(ref)
    day = (as_of or known_at or now.date()).isoformat()
    question = Question(query, content, asked, query_vec, FactFilter(kinds, since, until, norms), day)
    # The day logs' chunks are scored on the search threads while the fact pools are read here. The job is
    # always waited for, even when this call fails: the caller may close the store right after.
    aside = run_aside(context, content, query_vec) if context is not None and settings.context_weight > 0 else None
    try:
        found = gather(store, question, vectors, directory, predicates, limit * settings.candidate_multiplier, notes)
        refs.extend(_entity_refs(found, directory))
        if not found.candidates:
            if aside is not None:
                aside.result()
            total = store.facts.counts()["facts"]
            if total == 0:
                notes.append("no facts indexed: add '## Retain' bullets (- W @Name: ...) to memory files")
            return RecallResponse([], refs, notes, asked)
        facts, status = standing(store, found, question, now, as_of, known_at)
        candidates = within(store, found.candidates, question.where)
        vector_signal(candidates, found.sims, vectors)
        day_logs = DayContext(aside.result() if aside is not None else [])
        score(candidates, facts, status, found, question, settings, day_logs)
        ranked = order(candidates, facts, status, found, question, predicates)
        out, every = _results(ranked, facts, status, directory, limit, budget, count_tokens, explain, notes)
        return RecallResponse(out, refs, notes, asked, every)
    finally:
        if aside is not None:
            futures.wait([aside])


def _read_question(
    store: IndexStore,
    query: str,
    today: dt.date,
    embed: Embed | None,
    query_vec: npt.NDArray[np.float32] | None,
    notes: list[str],
) -> tuple[QueryTime | None, str, npt.NDArray[np.float32] | None]:
    """The window the question's time words name, the question without them, and that embedded (unless given,
    or the embedding failed: words only then)."""
    asked = query_time(query, today)
    if asked is not None:
        asked, shifted = _latest_covered(store, query, today, asked)
        if shifted:
            notes.append(f"time: no year given and no fact in {shifted}; read as the latest one the memory holds")
    content = asked.strip(query) if asked is not None else query
    if embed is not None and query_vec is None:
        try:
            query_vec = embed(content)
        except ProviderError as exc:
            notes.append(f"query embedding failed, words only: {exc}")
    return asked, content, query_vec


def _entity_filter(directory: EntityDirectory, entity: str) -> tuple[tuple[str, ...], EntityRef]:
    """The norms of the entity ``--entity`` names, and its reference; a clear error when the index has none."""
    wanted = directory.resolve(entity)
    if wanted is None:
        hint = directory.suggest(entity)
        raise NotFoundError(f"no entity {entity!r} in the index" + (f": did you mean {hint}?" if hint else ""))
    return tuple(sorted(wanted.norms)), EntityRef(
        wanted.name, wanted.page, directory.counts.get(wanted.key, 0), "filter"
    )


def _entity_refs(found: Found, directory: EntityDirectory) -> list[EntityRef]:
    """The entities the question names, then those often mentioned with them."""
    refs = [EntityRef(e.name, e.page, directory.counts.get(e.key, 0), "query") for e, _words in found.named]
    for other, _share, via in found.related.values():
        refs.append(EntityRef(other.name, other.page, directory.counts.get(other.key, 0), "related", via))
    return refs


def _results(
    ranked: list[Candidate],
    facts: dict[int, StoredFact],
    status: dict[int, Status],
    directory: EntityDirectory,
    limit: int,
    budget: int | None,
    count_tokens: TokenCounter | None,
    explain: bool,
    notes: list[str],
) -> tuple[list[RecalledFact], list[RecalledFact] | None]:
    """The facts recalled (the best ``limit``, or those that fit ``budget``) and, with ``explain``, every one scored."""
    chosen = _fit(ranked[:limit] if budget is None else ranked, facts, budget, count_tokens, limit)
    out = [_recalled(facts[c.seq], c, directory, explain, status.get(c.seq)) for c in chosen]
    if budget is not None and len(chosen) < min(limit, len(ranked)):
        notes.append(f"budget: {len(chosen)} facts fit in {budget} tokens")
    every = [_recalled(facts[c.seq], c, directory, True, status.get(c.seq)) for c in ranked] if explain else None
    return out, every


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


def _fit(
    ranked: list[Candidate],
    facts: dict[int, StoredFact],
    budget: int | None,
    count_tokens: TokenCounter | None,
    limit: int,
) -> list[Candidate]:
    """The best facts, at most ``limit``; with a budget, the best that fit it in rank order."""
    if budget is None:
        return ranked[:limit]
    count = count_tokens or (lambda texts: [len(t.split()) for t in texts])
    chosen: list[Candidate] = []
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
    f: StoredFact, c: Candidate, directory: EntityDirectory, explain: bool, st: Status | None = None
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
