"""Supersession without an LLM: which stated relations are still true, and what ended each one.

One subject's statements are read in valid-time order (a statement's own date, else its fact's event time,
else its daily log's day; undated statements, such as an entity page's line, come first: true from the
beginning until something says otherwise). Walking them:

- a value of a **single-valued** predicate closes the subject's open values of that predicate that differ
  from it, at its own valid time; the same value again (a restatement) closes nothing;
- an **end** ("left Acme", ``[!works_at:: @Acme]``, "no longer likes jazz") closes the subject's open value
  with that object, of that predicate (or of any, for "left X"), at its valid time;
- ``until`` closes a statement at that date;
- nothing else is closed: not another subject's relations, not by similarity, not a multi-valued predicate's
  other values.

A statement that arrives late (logged after a newer value, about an older time) takes its place in valid
time, so it never overturns the newer value. Nothing is deleted: a closed statement keeps its source and says
what closed it. The same function answers "what did memory know on D": it is run over the statements known
by then (:func:`settle` with ``known_at``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .extract import ANY, SAME


@dataclass(slots=True)
class Stated:
    """One stored statement, as settling needs it, and what settling decides (``predicate``, ``valid_to``,
    ``closed_by``)."""

    seq: int
    subject: str  # the resolved entity key
    stated: str  # the predicate as stated (may be ANY or SAME)
    object: str  # the resolved key of the object
    ends: bool
    valid_from: str | None  # ISO date
    until: str | None
    known_from: str | None
    origin: str  # the fact (or page line) it came from: statements of one bullet share it
    predicate: str = ""
    valid_to: str | None = None
    closed_by: int | None = None
    known_to: str | None = None  # retracted on that day (the bullet left the git history)

    def valid_on(self, day: str) -> bool:
        return (
            not self.ends
            and (self.valid_from is None or self.valid_from <= day)
            and (self.valid_to is None or self.valid_to > day)
        )


def settle(
    statements: Iterable[Stated],
    single: Callable[[str], bool],
    known_at: str | None = None,
    slot: Callable[[str], str] = str,
) -> list[Stated]:
    """Decide every statement's predicate, end and closer; returns the statements (of every subject given)
    that were known by ``known_at`` (all when None), settled among themselves only. ``slot``: the slot a
    single-valued predicate shares with others (lives_in and located_in: "where"), the predicate itself else."""
    by_subject: dict[str, list[Stated]] = {}
    for s in statements:
        if known_at is not None and s.known_from is not None and s.known_from > known_at:
            continue
        if s.known_to is not None and (known_at is None or s.known_to <= known_at):
            continue  # memory had let it go
        s.predicate, s.valid_to, s.closed_by = (s.stated if s.stated not in (ANY, SAME) else ""), None, None
        by_subject.setdefault(s.subject, []).append(s)
    out: list[Stated] = []
    for rows in by_subject.values():
        rows.sort(key=lambda s: (s.valid_from or "", s.known_from or "", s.seq))
        _settle_subject(rows, single, slot)
        out.extend(rows)
    return out


def _close(target: Stated, when: str | None, by: Stated) -> None:
    at = when or by.valid_from
    if at is None:
        at = target.valid_from
    if at is None:
        return
    if target.valid_to is None or at < target.valid_to:
        target.valid_to = at
        target.closed_by = by.seq


def _settle_subject(rows: list[Stated], single: Callable[[str], bool], slot: Callable[[str], str]) -> None:
    open_: dict[str, list[Stated]] = {}  # slot -> its open values
    closed_by_origin: dict[str, str] = {}  # an end's origin -> the predicate it closed ("switched from X to Y")
    for r in rows:
        if r.until is not None and (r.valid_from is None or r.until >= r.valid_from) and not r.ends:
            r.valid_to = r.until
        if r.ends:
            hit: list[Stated] = []
            for values in open_.values():
                for t in values:
                    if t.object == r.object and (r.stated == ANY or slot(r.stated) == slot(t.predicate)):
                        hit.append(t)
            for t in hit:
                _close(t, r.valid_from, r)
                open_[slot(t.predicate)] = [v for v in open_[slot(t.predicate)] if v is not t]
            r.predicate = hit[0].predicate if hit else (r.stated if r.stated != ANY else "")
            if hit:
                closed_by_origin[r.origin] = hit[0].predicate
            r.valid_to = r.valid_from
            continue
        if r.stated == SAME:
            r.predicate = closed_by_origin.get(r.origin, "uses")
        predicate = r.predicate
        values = open_.setdefault(slot(predicate), [])
        if single(predicate):
            for t in values:
                if t.object != r.object:
                    _close(t, r.valid_from, r)
            values[:] = [t for t in values if t.object == r.object and t.valid_to is None]
        values.append(r)
        # a statement closed by its own "until" stays open to later ends, harmlessly: ``_close`` keeps the earlier end
