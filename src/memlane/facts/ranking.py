"""Recall's ranking of its candidates (facts/candidates.py): which facts stand on the day asked about (what
memory knew then, what had happened by then, what still held), every candidate scored on every signal (the
formula in facts/recall.py), and the order: current facts first, a named entity's own answer leading, facts about
the same thing brought together (facts/supersede.py).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..config import RecallSettings
from ..search.vectors import VectorIndex
from ..store import FactFilter, IndexStore, StoredFact, StoredRelation
from ..text.timeparse import QueryTime, TimeRange
from . import alike, reading, supersede
from .candidates import Candidate, Found, Question
from .graph import key_of
from .graph.predicates import Predicates
from .graph.query import Graph, describe_path
from .graph.settle import Stated
from .retain import PROVENANCE

_OPINION_CUES = re.compile(
    r"\b(?:prefer\w*|favou?rite\w*|opinions?|likes?|liked|loves?|hates?|dislikes?|enjoys?|thinks?|"
    r"thoughts?|feels?|believes?|views?|wants?|wish\w*|rather|taste|stand)\b",
    re.IGNORECASE,
)
# "When did ...", "what date", "how long ago": a fact that names its own time answers these best.
_WHEN_CUES = re.compile(r"^\s*when\b|\b(?:what|which)\s+(?:date|day|month|year|week)\b|\bhow\s+long\s+ago\b", re.I)
_RECENT_CUES = re.compile(r"\b(?:current(?:ly)?|now|latest|recent(?:ly)?|these days|still|anymore)\b", re.I)


@dataclass(frozen=True)
class Status:
    state: str  # "current" | "superseded" | "later" (true only after the day asked about)
    predicates: frozenset[str] = frozenset()  # what the fact states (ends left out)
    valid_to: str | None = None
    by: dict[str, str] | None = None  # {content, source} of what closed it


CURRENT = Status("current")


def standing(
    store: IndexStore,
    found: Found,
    question: Question,
    now: dt.datetime,
    as_of: dt.date | None,
    known_at: dt.date | None,
) -> tuple[dict[int, StoredFact], dict[int, Status]]:
    """The candidates' facts that stand on the day asked about, and each one's status (see :func:`validity`):
    what memory did not hold yet on ``known_at``, what had not happened yet on ``as_of`` (without it, what was
    said after ``now``) and what became true only later are left out."""
    facts = store.facts.by_seq(found.candidates)
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
    status = validity(store, stated, question.day, known_at, found.graph, found.asked)
    facts = {s: f for s, f in facts.items() if status.get(s, CURRENT).state != "later"}
    return facts, status


def within(store: IndexStore, candidates: dict[int, Candidate], where: FactFilter) -> dict[int, Candidate]:
    """``candidates`` inside the hard filters: the legs that do not filter (entities, time) may bring facts outside."""
    if where.empty:
        return candidates
    allowed_set = set(store.facts.seqs(where))
    return {s: c for s, c in candidates.items() if s in allowed_set}


def vector_signal(
    candidates: dict[int, Candidate], sims: npt.NDArray[np.float32] | None, vectors: VectorIndex | None
) -> None:
    """Each candidate's cosine to the question (none below 0), when it has a vector."""
    if sims is not None and vectors is not None:
        seqs = list(candidates)
        for seq, row in zip(seqs, vectors.rows_of(seqs), strict=True):
            if row >= 0:
                candidates[seq].vector = max(float(sims[row]), 0.0)


class DayContext:
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


@dataclass(frozen=True)
class _Cues:
    """What the question's words ask for beyond its content, and the days of the facts that stand."""

    opinion: bool  # a preference: "what does Peter prefer?"
    recent: bool  # "currently", "these days"
    when: bool  # "when did ...", "what date"
    window: TimeRange | None  # the window its time words name
    day_rank: dict[str, float]  # a fact's day -> its rank among the facts' days, the latest 1


def score(
    candidates: dict[int, Candidate],
    facts: dict[int, StoredFact],
    status: dict[int, Status],
    found: Found,
    question: Question,
    settings: RecallSettings,
    context: DayContext,
) -> None:
    """Every candidate's signals and score (the formula in facts/recall.py)."""
    query, asked = question.text, question.asked
    days = sorted({f.day for f in facts.values() if f.day})
    cues = _Cues(
        bool(_OPINION_CUES.search(query)),
        bool(_RECENT_CUES.search(query)),
        bool(_WHEN_CUES.search(query)),
        asked.window if asked else None,
        {d: (i + 1) / len(days) for i, d in enumerate(days)},
    )
    wv, wt = settings.vector_weight, settings.text_weight
    if not found.matched:  # nothing matched lexically: the text signal is absent, not zero
        wv, wt = wv + wt, 0.0
    elif found.sims is None:
        wv, wt = 0.0, wv + wt
    total_w = (wv + wt) or 1.0
    for seq, c in candidates.items():
        f = facts.get(seq)
        if f is None:
            continue
        _signals(c, f, status.get(seq, CURRENT), found, cues, context)
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


def _signals(c: Candidate, f: StoredFact, st: Status, found: Found, cues: _Cues, context: DayContext) -> None:
    """The candidate's signals besides its words and vector."""
    mentions = {norm for norm, _ in f.mentions}
    if mentions & set(found.named_norms):
        c.entity = 1.0
    elif mentions & set(found.related_norms):
        c.related = max(found.related_norms[n] for n in mentions & set(found.related_norms))
    c.context = context.score(f)
    c.time = time_signal(f, cues.window)
    if cues.recent and f.day:
        c.time = max(c.time, 0.5 * cues.day_rank.get(f.day, 0.0))
    if cues.when and f.t_start:
        c.dated = 1.0
    if cues.opinion and f.kind == "opinion":
        c.opinion = f.confidence if f.confidence is not None else 0.5
    if found.asked & st.predicates and c.path is None and (found.direct is None or c.seq in found.direct):
        c.relation = 1.0
    if c.path is not None:
        c.hop = 1.0


def order(
    candidates: dict[int, Candidate],
    facts: dict[int, StoredFact],
    status: dict[int, Status],
    found: Found,
    question: Question,
    predicates: Predicates,
) -> list[Candidate]:
    """The scored candidates best first, facts about the same thing brought together (:func:`by_time`)."""
    # Current facts first; a superseded one after them all, labelled. Among the current ones, a named
    # entity's own statement of a single-valued predicate the question asks for ("where does Leo live")
    # is the answer by structure: it leads, whatever the words of other facts match.
    single = {p for p in found.asked if predicates.single(p)}
    answers = {s for s in found.direct or () if single & status.get(s, CURRENT).predicates}
    ranked = sorted(
        (c for c in candidates.values() if c.seq in facts),
        key=lambda c: (status.get(c.seq, CURRENT).state != "current", c.seq not in answers, -c.score, c.seq),
    )
    return by_time(ranked, facts, status, question.text, question.asked)


def time_signal(f: StoredFact, window: TimeRange | None) -> float:
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


def validity(
    store: IndexStore,
    rows: list[StoredRelation],
    day: str,
    known_at: dt.date | None,
    graph: Graph,
    asked: AbstractSet[str] = frozenset(),
) -> dict[int, Status]:
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
    out: dict[int, Status] = {}
    for seq, held_rels in by_fact.items():
        names = frozenset(s.predicate for s in held_rels)
        if names & asked:
            held_rels = [s for s in held_rels if s.predicate in asked]
        if any(s.valid_on(day) for s in held_rels):
            out[seq] = Status("current", names)
        elif all(s.valid_from is not None and s.valid_from > day for s in held_rels):
            out[seq] = Status("later", names)
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
            out[seq] = Status("superseded", names, last.valid_to if last is not None else None, by)
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


def by_time(
    ranked: list[Candidate],
    facts: dict[int, StoredFact],
    status: dict[int, Status],
    query: str,
    asked: QueryTime | None,
) -> list[Candidate]:
    """``ranked`` with facts about the same thing brought together (:mod:`memlane.facts.supersede`): the
    current one first and the ones it superseded after it, those it surely superseded marked
    (:func:`memlane.facts.supersede.marked`), or for a question about the past, the value then."""
    top = [c.seq for c in ranked[: supersede.GROUP_SPAN]]
    said = [s for s in (reading.read_fact(facts[q]) for q in top) if s is not None]
    question = reading.question(query)
    found = supersede.supersessions(said, question)
    found = supersede.unnamed(found, said, question)  # "fact number 17": the question names the value it wants
    if not found:
        return _in_time(ranked, said, question, query, frozenset())
    past = alike.asks_for_past(query)
    until = asked.window.end if asked is not None and past else None
    when = {s.seq: s.when for s in said}
    by_seq = {c.seq: c for c in ranked}
    seqs = supersede.order([c.seq for c in ranked], found, when, past, until)
    if not past:
        for seq, sup in supersede.marked(found).items():
            head = facts[sup.by]
            status[seq] = Status("superseded", frozenset(), sup.day, {"content": head.content, "source": head.source})
    grouped = frozenset(found) | frozenset(sup.by for sup in found.values())
    return _in_time([by_seq[s] for s in seqs], said, question, query, grouped)


def _in_time(
    ranked: list[Candidate], said: list[reading.Said], question: reading.Said, query: str, grouped: frozenset[int]
) -> list[Candidate]:
    """``ranked`` with the later of two facts answering the question alike first (for a value before, the
    earlier: :mod:`memlane.facts.alike`); facts of a supersession (``grouped``) stay where it put them."""
    past = alike.past_first(query)
    if past is None:
        return ranked
    of = {s.seq: s for s in said}
    items = [[of[c.seq]] if c.seq in of and c.seq not in grouped else [] for c in ranked]
    return [ranked[i] for i in alike.reorder(items, question, past)]
