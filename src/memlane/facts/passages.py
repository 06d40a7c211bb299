"""What is true now in search: passages holding a value and what superseded it, the current one first.

Search answers with passages, not facts: :func:`current_first` reads the facts on each passage's lines, finds the
supersessions among them (:mod:`memlane.facts.supersede`) and the facts answering the question alike
(:mod:`memlane.facts.alike`), cuts a passage holding both values in two and orders the passages (the current value
first, or for a question about the past the earlier one). Pure over what the index holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from ..search.ranking import SearchResult, make_snippet, snippet_terms
from ..store import FactIndex, StoredFact
from . import alike
from .alike import asks_for_past
from .reading import Said, question, read_fact
from .supersede import Supersession, marked, supersessions, unnamed


def passage_order(passages: Sequence[Sequence[StoredFact]], query: str) -> list[int]:
    """The order to show passages in (each given as the facts on its lines, best first), for a question about the
    present: a passage holding what superseded a fact of a better-ranked one comes right before it (the current
    value first, the earlier next to it), and a passage whose facts were all surely superseded
    (:func:`memlane.facts.supersede.sure`) comes after the rest."""
    return _passage_order(passages, _found(passages, question(query)), past=asks_for_past(query))


def _found(passages: Sequence[Sequence[StoredFact]], asked: Said) -> dict[int, Supersession]:
    """The supersessions among the passages' facts, less those the question picks a member of."""
    every = {f.seq: f for facts in passages for f in facts}
    said = [s for s in (read_fact(f) for f in every.values()) if s is not None]
    return unnamed(supersessions(said, asked), said, asked)


def _passage_order(
    passages: Sequence[Sequence[StoredFact]], found: Mapping[int, Supersession], past: bool = False
) -> list[int]:
    """For the present, what superseded a fact first and surely superseded passages last; for the past (``past``)
    the earlier value first: a passage holding a fact that a better-ranked passage's fact superseded comes right
    before that passage, and nothing is demoted."""
    where: dict[int, int] = {}
    for i, facts in enumerate(passages):
        for f in facts:
            where.setdefault(f.seq, i)
    pulls: dict[int, set[int]] = {}  # a passage -> the later passages holding the value to show before its own
    for seq, sup in found.items():
        old, new = where[seq], where.get(sup.by)
        first, then = (new, old) if past else (old, new)
        if first is not None and then is not None and then > first:
            pulls.setdefault(first, set()).add(then)
    shown = marked(found)  # only a sure supersession demotes: the others only order
    stale = set() if past else {i for i, fs in enumerate(passages) if fs and all(f.seq in shown for f in fs)}
    out: list[int] = []
    placed: set[int] = set()
    for i in range(len(passages)):
        for j in [*sorted(pulls.get(i, set()) - stale), i]:
            if j not in placed:
                out.append(j)
                placed.add(j)
    return [i for i in out if i not in stale] + [i for i in out if i in stale]


def split(
    start: int, end: int, facts: Sequence[StoredFact], found: Mapping[int, Supersession]
) -> list[tuple[int, int]]:
    """A passage's lines ``start``..``end`` as one span, or as two when it holds a fact and what superseded it
    ("my best is 52 minutes" and, lines below, "my best is now 49 minutes"): cut between the two, the part with the
    later value first. The first such pair of the passage decides the cut."""
    line = {f.seq: f for f in facts}
    for seq, sup in found.items():
        old, new = line.get(seq), line.get(sup.by)
        if old is None or new is None or old.start_line == new.start_line:
            continue
        if old.end_line < new.start_line:  # the old value above: [start..old] | [old+1..end]
            return [(old.end_line + 1, end), (start, old.end_line)]
        return [(start, new.end_line), (new.end_line + 1, end)]
    return [(start, end)]


def current_first(
    results: list[SearchResult],
    facts: FactIndex,
    query: str,
    lines_of: Callable[[str, int, int], list[str]] | None = None,
    limit: int | None = None,
) -> list[SearchResult]:
    """``results`` (the daily logs of days after ``now`` already left out by the search's ranking) in the order
    :func:`passage_order` gives (for a question about the past, the earlier value first). With ``lines_of`` (a
    path's lines ``start``..``end``), a passage holding a fact and what superseded it is cut in two for a question
    about the present (:func:`split`): the part with the later value, then the part with the earlier ("my budget is
    $600" and, two lines below, "my budget is now $650" no longer answer "what is my budget?" as one passage, the
    old value first). At most ``limit`` results come back (default: as
    many as were given)."""
    past = asks_for_past(query)
    if not results or (len(results) == 1 and (lines_of is None or past)):
        return results  # nothing to reorder or cut: no file's facts are read
    files = {r.path: facts.of_path(r.path) for r in results if r.agent is None}
    passages = [
        [f for f in files.get(r.path, ()) if r.start_line <= f.start_line <= r.end_line] if r.agent is None else []
        for r in results
    ]
    asked = question(query)
    found = _found(passages, asked)
    limit = len(results) if limit is None else limit
    if lines_of is not None and not past:
        cut: list[SearchResult] = []
        held: list[list[StoredFact]] = []
        terms = snippet_terms(query)
        cuts = dict(found)  # a supersession decides where a passage is cut before two facts answering alike do
        for seq, sup in _alike_within(passages, asked).items() if alike.present(query) else ():
            cuts.setdefault(seq, sup)
        for r, there in zip(results, passages, strict=True):
            for first, last in split(r.start_line, r.end_line, there, cuts):
                piece = r
                if (first, last) != (r.start_line, r.end_line):
                    text = "\n".join(lines_of(r.path, first, last))
                    piece = replace(r, start_line=first, end_line=last, snippet=make_snippet(text, terms))
                cut.append(piece)
                held.append([f for f in there if first <= f.start_line <= last])
        results, passages = cut, held
    shown = _passage_order(passages, found, past)
    earlier = alike.past_first(query)
    if earlier is not None:  # of two passages answering the question alike, the later first (before: earlier)
        grouped = set(found) | {sup.by for sup in found.values()}
        items = [[s for f in passages[i] if f.seq not in grouped and (s := read_fact(f)) is not None] for i in shown]
        shown = [shown[k] for k in alike.reorder(items, asked, earlier)]
    return [results[i] for i in shown][:limit]


def _alike_within(passages: Sequence[Sequence[StoredFact]], asked: Said) -> dict[int, Supersession]:
    """In each passage, each fact that a later fact of it answers the question alike with
    (:func:`memlane.facts.alike.later_alike`), as though superseded by it: where :func:`split` may cut."""
    pairs = (alike.later_alike([s for s in map(read_fact, facts) if s is not None], asked) for facts in passages)
    return {seq: Supersession(seq, b.seq, b.when[0], a.when) for found in pairs for seq, (a, b) in found.items()}
