"""Record time from git: when memory came to hold each statement, and the statements it let go.

The sync calls :func:`record_index` in the same write that indexed the files, when the workspace is in a git
repository. Two things follow from the history (:mod:`memlane.facts.graph.history`):

- a held statement's ``known_from`` is the day of the commit that first held its bullet (a bullet the
  repository's first commit brought keeps its log's day: the history does not know when it was learned, and
  a bullet not committed yet keeps it too);
- a bullet the history removed or changed, and the working tree does not hold, leaves its statements as
  **retracted** rows (``known_to`` = the day of that commit, ``fact`` none, source ``path#Lline`` where it was).
  They take no part in what is true now; "what did memory hold on D" settles them with the rest when D is
  before their ``known_to``.

Neither changes which statement closes which today, so nothing is settled again here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...store import FactIndex
from ...text.timeparse import event_time
from ...workspace import day_of
from ..derive import bullet_relations
from .history import History


def record_index(facts: FactIndex, history: History, paths: Sequence[str] | None) -> tuple[int, int]:
    """Apply ``history`` to the statements of ``paths`` (every statement, and the retracted rows, when None:
    the history moved). Call inside the store's write. Returns (record times moved, retracted statements)."""
    table = facts.relations.through_write()
    held = table.bullets(paths)
    moved: list[tuple[str | None, int]] = []
    for seq, kind, content, day, known_from in held:
        span = history.bullets.get((kind, content))
        want = span.first.isoformat() if span is not None and not span.imported and span.removed is None else day
        if want != known_from:
            moved.append((want, seq))
    table.set_known_from(moved)
    if paths is not None:
        return len(moved), 0
    table.delete_retracted()
    now_held = {(kind, content) for _, kind, content, _, _ in held}
    retracted = 0
    for span in history.removed():
        if span.fact is None or span.removed is None or (span.kind, span.content) in now_held:
            continue
        log_day = day_of(span.path)
        known_from = log_day.isoformat() if span.imported and log_day is not None else span.first.isoformat()
        origin = f"git:{(span.removed_by or '')[:12]}:{span.path}#L{span.fact.start_line}"
        when = event_time(span.fact.content, log_day)
        rows = [
            dataclasses.replace(r, known_from=known_from, known_to=span.removed.isoformat())
            for r in bullet_relations(span.fact, log_day, origin, when.start if when else None)
        ]
        table.insert(span.path, [(None, r) for r in rows])
        retracted += len(rows)
    return len(moved), retracted
