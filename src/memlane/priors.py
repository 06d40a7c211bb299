"""Priors on fused chunk scores: what a chunk's file and date say beyond its own text.

Applied after fusion, before ``minScore`` and the result windows:

- file prior: a chunk takes part of the best score of its file (a daily log is mostly one day's
  sessions), so the second-best chunk of a strongly matching session outranks a lone lexical hit
  elsewhere;
- time prior: a query with time words ("last week", "in May 2023") read against ``now`` favours
  daily logs dated inside that window, and partly those logged up to ``TIME_SLACK_DAYS`` after it
  (notes are often written after the fact);
- recency: a question about the present ("what is my current ...", "do I still ...") favours the
  newer of the files that match.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .config import PriorSettings
from .facts.derive import day_of
from .facts.timeparse import query_time

TIME_SLACK_DAYS = 10
_PRESENT = re.compile(
    r"\b(current(?:ly)?|now|nowadays|these days|latest|most recent(?:ly)?|still|anymore|any more|at the moment|"
    r"so far|up to now|to date)\b",
    re.IGNORECASE,
)


class Scored(Protocol):
    seq: int
    score: float


@dataclass(frozen=True, slots=True)
class QueryPriors:
    """What the query asks of time: a window, or the present, or neither."""

    window: tuple[dt.date, dt.date] | None
    present: bool

    @classmethod
    def of(cls, query: str, now: dt.datetime | None) -> QueryPriors:
        today = (now or dt.datetime.now()).date()
        qt = query_time(query, today)
        window = (qt.window.start, qt.window.end) if qt is not None else None
        return cls(window, window is None and bool(_PRESENT.search(query)))


def apply_priors(
    ranked: Sequence[Scored],
    paths: Mapping[int, str],
    settings: PriorSettings,
    query: str,
    now: dt.datetime | None = None,
) -> None:
    """Adjust the scores of ``ranked`` in place (``paths``: seq -> file path)."""
    if not ranked:
        return
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
    if settings.time <= 0 and settings.recency <= 0:
        return
    asked = QueryPriors.of(query, now)
    days = {c.seq: day_of(paths.get(c.seq, "")) for c in ranked}
    if asked.window is not None and settings.time > 0:
        start, end = asked.window
        for c in ranked:
            day = days[c.seq]
            if day is None:
                continue
            if start <= day <= end:
                c.score += settings.time
            elif end < day <= end + dt.timedelta(days=TIME_SLACK_DAYS):
                c.score += settings.time * (1 - (day - end).days / (TIME_SLACK_DAYS + 1))
    elif asked.present and settings.recency > 0:
        dated = sorted({d for d in days.values() if d is not None})
        if len(dated) > 1:
            order = {d: i / (len(dated) - 1) for i, d in enumerate(dated)}
            for c in ranked:
                day = days[c.seq]
                if day is not None:
                    c.score += settings.recency * order[day]
