"""Opinions whose confidence follows the evidence (spec 004, "Opinion evolution").

An opinion is a cluster of ``O`` facts about the same entity saying the same thing: the first one is its
statement, later ones are restatements (with their own ``c``). Evidence is every other fact that shares
an entity with it and is similar enough (:class:`Similarity`); it *supports* or *contradicts* by its
polarity against the statement (negation and antonym cues).

The confidence is recomputed on every run from the distinct evidence, in order of day then source, never
incremented in place, so running reflect again cannot count anything twice (docs/DESIGN.md §12 has a
worked example)::

    c = the statement's c (0.5 when it gives none)
    support:      c += SUPPORT_STEP * (1 - c)                 closes 10% of the gap to 1
    contradict:   c -= min(CAP, CONTRA_STEP * c)              25% of c, never more than 0.15 at once
    restatement:  c += clamp((c_stated - c) / 2, -CAP, CAP)   half-way to what was restated, capped

so a big drop needs repeated contradicting evidence: from 0.9 to below 0.5 takes at least three.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..store import StoredFact
from ..text.keywords import STOPWORDS

CAP = 0.15
SUPPORT_STEP = 0.10
CONTRA_STEP = 0.25
DEFAULT_C = 0.5

SAME_OPINION = 0.75  # cosine at which two O facts about one entity are the same opinion restated
NEAR_DUPLICATE = 0.85  # cosine at which two facts say the same thing (merged in summaries)
EVIDENCE = 0.40  # cosine at which a fact bears on an opinion ...
EVIDENCE_WITH_WORD = 0.25  # ... or this much with a content word in common

_NEGATION = re.compile(
    r"\b(?:not|no|never|nobody|nothing|neither|nor|cannot|no longer|anymore|stopped|quit|gave up)\b|n't\b",
    re.IGNORECASE,
)
_ANTONYMS = [
    ("like", "dislike"),
    ("love", "hate"),
    ("prefer", "avoid"),
    ("enjoy", "dislike"),
    ("good", "bad"),
    ("great", "terrible"),
    ("better", "worse"),
    ("best", "worst"),
    ("short", "long"),
    ("concise", "verbose"),
    ("concise", "lengthy"),
    ("brief", "detailed"),
    ("fast", "slow"),
    ("agree", "disagree"),
    ("happy", "unhappy"),
    ("easy", "hard"),
    ("cheap", "expensive"),
    ("useful", "useless"),
    ("trust", "distrust"),
    ("support", "oppose"),
]
_WORD = re.compile(r"[^\W_]+")


def stems(text: str) -> set[str]:
    """Content words cut to five letters (a crude, language-agnostic stemmer)."""
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}


def _words(text: str) -> set[str]:
    return {w.rstrip("sd") if len(w) > 4 else w for w in _WORD.findall(text.lower())}


@dataclass(frozen=True)
class Polarity:
    """What contradiction is read from: whether a text is negated, and its words."""

    negated: bool
    words: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Polarity:
        return cls(bool(_NEGATION.search(text)), frozenset(_words(text)))


def contradicts(statement: str | Polarity, fact: str | Polarity) -> bool:
    """Whether ``fact`` says the opposite of ``statement``: one of them negated, or an antonym on one side
    against its pair on the other ("prefers concise" / "prefers lengthy"); both together cancel out."""
    st = statement if isinstance(statement, Polarity) else Polarity.of(statement)
    ft = fact if isinstance(fact, Polarity) else Polarity.of(fact)
    flip = st.negated != ft.negated
    a, b = st.words, ft.words
    for x, y in _ANTONYMS:
        if (x in a and y in b and y not in a) or (y in a and x in b and x not in a):
            flip = not flip
            break
    return flip


class Similarity:
    """Similarity between facts: cosine of their vectors when the index has them, else word overlap
    (Jaccard of content stems, scaled to read like a cosine)."""

    def __init__(self, facts: Sequence[StoredFact], vectors: npt.NDArray[np.float32] | None) -> None:
        self.facts = list(facts)
        self.index = {f.seq: i for i, f in enumerate(self.facts)}
        self.vectors = vectors
        self._stems_of: dict[int, set[str]] = {}  # by position, made when first asked: most facts never are

    def _stems(self, i: int) -> set[str]:
        found = self._stems_of.get(i)
        if found is None:
            found = self._stems_of[i] = stems(self.facts[i].content)
        return found

    def row(self, seq: int, others: Sequence[int]) -> npt.NDArray[np.float64]:
        row: npt.NDArray[np.float64] = self.block([seq], others)[0]
        return row

    def block(self, seqs: Sequence[int], others: Sequence[int]) -> npt.NDArray[np.float64]:
        """Similarities of ``seqs`` (rows) to ``others`` (columns): one matrix product with vectors."""
        rows = [self.index[s] for s in seqs]
        cols = [self.index[o] for o in others]
        if not rows or not cols:
            return np.zeros((len(rows), len(cols)))
        if self.vectors is not None:
            return np.asarray(self.vectors[rows] @ self.vectors[cols].T, dtype=np.float64)
        return np.array([[self._overlap(self._stems(i), self._stems(j)) for j in cols] for i in rows], dtype=np.float64)

    @staticmethod
    def _overlap(a: set[str], b: set[str]) -> float:
        return min(1.0, len(a & b) / max(len(a | b), 1) * 1.5)

    def shares_word(self, seq: int, other: int, ignore: set[str]) -> bool:
        return bool((self._stems(self.index[seq]) & self._stems(self.index[other])) - ignore)


@dataclass(frozen=True)
class Evidence:
    day: str  # "" for undated files
    source: str  # path#Lline: one piece of evidence per source
    effect: str  # "support" | "contradict" | "restate"
    stated: float | None = None  # a restatement's c, as a confidence in the statement

    def key(self) -> tuple[str, str]:
        return self.day, self.source


@dataclass
class Opinion:
    statement: StoredFact
    entity: str  # the entity it is about (its display name)
    restatements: list[StoredFact] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def start(self) -> float:
        c = self.statement.confidence
        return DEFAULT_C if c is None else c

    @functools.cached_property
    def trajectory(self) -> list[tuple[str, float]]:
        """(day, c after it) for each distinct piece of evidence in order; the start first as ('', c0).
        Read once the evidence is complete (build_opinions returns them so)."""
        return confidence_path(self.start, self.evidence)

    @property
    def confidence(self) -> float:
        return self.trajectory[-1][1]

    @property
    def updated(self) -> str | None:
        days = [e.day for e in self.evidence if e.day] + ([self.statement.day] if self.statement.day else [])
        return max(days) if days else None

    def sources(self, side: str) -> list[str]:
        """Sources of the evidence ``for`` or ``against`` the statement (a restatement counts by its c)."""
        out = []
        for e in sorted(set(self.evidence), key=Evidence.key):
            pro = e.effect == "support" or (e.effect == "restate" and (e.stated or 0.0) >= 0.5)
            if pro == (side == "for"):
                out.append(e.source)
        return out

    def trend(self, today: dt.date, stale_days: int, trend_days: int) -> str:
        """stale (no evidence for ``stale_days``), else strengthening / weakening / steady over ``trend_days``."""
        last = self.updated
        if last is None or (today - dt.date.fromisoformat(last)).days > stale_days:
            return "stale"
        cutoff = (today - dt.timedelta(days=trend_days)).isoformat()
        before = confidence_path(self.start, [e for e in self.evidence if e.day and e.day <= cutoff])[-1][1]
        delta = self.confidence - before
        return "strengthening" if delta > 0.02 else "weakening" if delta < -0.02 else "steady"


def step(c: float, e: Evidence) -> float:
    """One piece of evidence applied to confidence ``c`` (the rule in the module docstring)."""
    if e.effect == "support":
        c += SUPPORT_STEP * (1 - c)
    elif e.effect == "contradict":
        c -= min(CAP, CONTRA_STEP * c)
    elif e.stated is not None:
        c += max(-CAP, min(CAP, (e.stated - c) / 2))
    return min(1.0, max(0.0, c))


def confidence_path(start: float, evidence: Sequence[Evidence]) -> list[tuple[str, float]]:
    """c after each distinct piece of evidence, taken in order of (day, source)."""
    c = start
    path = [("", c)]
    for e in sorted(set(evidence), key=Evidence.key):
        c = step(c, e)
        path.append((e.day, c))
    return path


def build_opinions(facts: Sequence[StoredFact], entity_of: dict[str, str], sim: Similarity) -> list[Opinion]:
    """Every opinion of the index with its evidence. ``entity_of``: normalized mention -> entity name."""
    ordered = sorted(facts, key=lambda f: (f.day or "", f.path, f.start_line))
    names = {f.seq: sorted({entity_of.get(n, n) for n, _ in f.mentions}) for f in ordered}
    polarity: dict[int, Polarity] = {}

    def pol(f: StoredFact) -> Polarity:
        if f.seq not in polarity:
            polarity[f.seq] = Polarity.of(f.content)
        return polarity[f.seq]

    opinions: list[Opinion] = []
    about: dict[str, list[Opinion]] = {}  # entity name -> its opinions so far
    for f in ordered:
        if f.kind != "opinion":
            continue
        candidates = list({id(o): o for n in names[f.seq] for o in about.get(n, [])}.values())
        if candidates:
            scores = sim.block([f.seq], [o.statement.seq for o in candidates])[0]
            best = int(scores.argmax())
            if scores[best] >= SAME_OPINION:  # the same opinion restated
                candidates[best].restatements.append(f)
                continue
        op = Opinion(f, (names[f.seq] or ["(no entity)"])[0])
        opinions.append(op)
        for n in names[f.seq]:
            about.setdefault(n, []).append(op)
    by_entity: dict[str, list[StoredFact]] = {}
    for f in ordered:
        for n in names[f.seq]:
            by_entity.setdefault(n, []).append(f)
    for op in opinions:
        st = op.statement
        for r in op.restatements:
            stated = DEFAULT_C if r.confidence is None else r.confidence
            if contradicts(pol(st), pol(r)):
                stated = 1 - stated
            op.evidence.append(Evidence(r.day or "", r.source, "restate", stated))
    # Evidence: facts that share an entity with the statement, similar enough; one matrix per entity.
    for name, ops in _by_entity(opinions, names).items():
        own = {f.seq for op in ops for f in (op.statement, *op.restatements)}
        pool = [f for f in by_entity.get(name, []) if f.seq not in own and f.kind != "opinion"]
        if not pool:
            continue
        scores = sim.block([op.statement.seq for op in ops], [f.seq for f in pool])
        for op, row in zip(ops, scores, strict=True):
            st = op.statement
            ignore = {w[:5] for n in names[st.seq] for w in _WORD.findall(n.lower())}
            known = {e.source for e in op.evidence}
            for f, s in zip(pool, row, strict=True):
                if f.source in known:
                    continue
                if s >= EVIDENCE or (s >= EVIDENCE_WITH_WORD and sim.shares_word(st.seq, f.seq, ignore)):
                    effect = "contradict" if contradicts(pol(st), pol(f)) else "support"
                    op.evidence.append(Evidence(f.day or "", f.source, effect))
                    known.add(f.source)
    return opinions


def _by_entity(opinions: Sequence[Opinion], names: dict[int, list[str]]) -> dict[str, list[Opinion]]:
    out: dict[str, list[Opinion]] = {}
    for op in opinions:
        for n in names[op.statement.seq]:
            out.setdefault(n, []).append(op)
    return out
