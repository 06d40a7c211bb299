"""Priors on fused chunk scores: what a chunk's file and date say beyond its own text.

Applied after fusion, before ``minScore`` and the result windows:

- file prior: a chunk takes part of the best score of its file (a daily log is mostly one day's
  sessions), so the second-best chunk of a strongly matching session outranks a lone lexical hit
  elsewhere;
- time prior: a query with time words ("last week", "in May 2023") read against ``now`` favours
  daily logs dated inside that window, and partly those logged up to ``REPORT_LAG_DAYS`` after it
  (notes are often written after the fact: :meth:`TimeRange.reported`);
- recency: a question about the present ("what is my current ...", "do I still ...") favours the
  newer of the files that match;
- archive, last: chunks of archived logs (``memory/archive/``) score ``query.archiveWeight`` times theirs.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..config import PriorSettings
from ..text.timeparse import TimeRange, query_time
from ..workspace import ARCHIVE_PREFIX, day_of

_PRESENT = re.compile(
    r"\b(current(?:ly)?|now|nowadays|these days|latest|most recent(?:ly)?|still|anymore|any more|at the moment|"
    r"so far|up to now|to date)\b",
    re.IGNORECASE,
)


class Scored(Protocol):
    seq: int
    score: float


S = TypeVar("S", bound=Scored)


@dataclass(frozen=True, slots=True)
class QueryPriors:
    """What the query asks of time: a window, or the present, or neither."""

    window: TimeRange | None
    present: bool

    @classmethod
    def of(cls, query: str, now: dt.datetime | None) -> QueryPriors:
        qt = query_time(query, (now or dt.datetime.now()).date())
        return cls(qt.window, False) if qt is not None else cls(None, bool(_PRESENT.search(query)))


def apply_priors(
    ranked: list[S],
    paths: Mapping[int, str],
    settings: PriorSettings,
    query: str,
    now: dt.datetime | None = None,
    archive_weight: float = 1.0,
) -> list[S]:
    """``ranked`` with its scores adjusted in place (``paths``: seq -> file path), best first again."""
    if not ranked:
        return ranked
    if settings.file > 0:
        best: dict[str, float] = {}
        for c in ranked:
            path = paths.get(c.seq)
            if path is not None:
                best[path] = max(best.get(path, 0.0), c.score)
        for c in ranked:
            path = paths.get(c.seq)
            if path is not None:
                c.score = (1 - settings.file) * c.score + settings.file * best[path]
    if settings.time > 0 or settings.recency > 0:
        _time_priors(ranked, paths, settings, QueryPriors.of(query, now))
    if archive_weight != 1.0:
        for c in ranked:
            if paths.get(c.seq, "").startswith(ARCHIVE_PREFIX):
                c.score *= archive_weight
    return sorted(ranked, key=lambda c: (-c.score, c.seq))


def _time_priors(ranked: list[S], paths: Mapping[int, str], settings: PriorSettings, asked: QueryPriors) -> None:
    days = {c.seq: day_of(paths.get(c.seq, "")) for c in ranked}
    if asked.window is not None and settings.time > 0:
        for c in ranked:
            day = days[c.seq]
            if day is not None:
                c.score += settings.time * asked.window.reported(day)
    elif asked.present and settings.recency > 0:
        dated = sorted({d for d in days.values() if d is not None})
        if len(dated) > 1:
            order = {d: i / (len(dated) - 1) for i, d in enumerate(dated)}
            for c in ranked:
                day = days[c.seq]
                if day is not None:
                    c.score += settings.recency * order[day]
