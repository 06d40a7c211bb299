"""What is true now: facts about the same thing, told apart by their values and their time.

People update most things in words no predicate list knows: "my best so far is 52 minutes", then "I finally
ran it in 49:30"; "a team of 4", then "I now lead six people". Two dated facts are about the same thing when
they share a subject, say the same of it once their values (numbers, amounts, times, names) are set aside, and
differ in those values. Of such a group the latest fact is current and the earlier ones are superseded by it: put
after it, and marked as superseded only when that is sure (:func:`sure`: one conversation, or a change said).

Derived at query time from what the index holds (the Markdown is never written): :func:`supersessions` over a
recall's best candidates, :func:`order` to rank a group's current member first (or, for a question about the
past, the value valid then). Pure functions; the relations of :mod:`memlane.facts.graph` settle what they know on
their own and come first. How a fact's text is read (its frame, values, amounts, days) is
:mod:`memlane.facts.reading`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..store import StoredFact
from . import numbers, reading
from .reading import Said, read_fact

OVERLAP = 0.4  # Jaccard of the two frames, for two facts to be about the same thing ...
MIN_SHARED = 3  # frame words in common, one fewer when the later says it changed ("Ana talked about violin on
# day 8" is not "... sourdough on day 5": two words shared, no word of change)
ASKED_OVERLAP = 0.15  # Jaccard of the frames of two facts answering a question alike (the question's words are
# not enough: on BEAM confirm, 14 of 22 joins shown joined different things, most under 0.15)
CLOSE_MINUTES = 60  # two facts of one log this near in time are one conversation: see :func:`close`
ANCHOR = 2  # words or values of the question that two facts answering it alike both hold
MAX_FRAME = 24  # a fact saying more than this many things is about several: never grouped
GROUP_SPAN = 30  # the best candidates among which groups are looked for (pairs: GROUP_SPAN² / 2)


@dataclass(frozen=True)
class Supersession:
    """``seq`` was superseded by ``by`` (the later fact of its group) on ``day``."""

    seq: int
    by: int
    day: str  # the superseding fact's day: this one held until then
    when: tuple[str, int, str, int]  # this one's own time (Said.when)
    also: frozenset[int] = frozenset()  # the other later facts about the same thing (each shown before it)
    sure: tuple[int, str] | None = None  # the latest later fact that surely superseded it, and its day (:func:`sure`)


def named_apart(a: Said, b: Said, asked: Said) -> bool:
    """Whether the question picks one of ``a`` and ``b`` by a number it names: "what was fact number 17?"
    between "fact number 12 ..." and "fact number 17 ...". Only a number that one of them counts in a unit the
    other counts differently picks: "How many cards are in my Bootstrap 5.3.0 gallery?" names no count."""
    named = {n for n, _ in asked.amounts}
    if not named:
        return False
    for unit in {u for _, u in a.amounts} & {u for _, u in b.amounts}:
        here = {n for n, u in a.amounts if u == unit}
        there = {n for n, u in b.amounts if u == unit}
        if here != there and here & named != there & named:
            return True
    return False


def same_thing(a: Said, b: Said, *, asked: Said | None = None) -> bool:
    """Whether ``a`` and ``b`` say the same of one subject with other values: their words alike once the
    values are set aside, or (``asked``) both answering the question with other values: they share at least
    ``ANCHOR`` of the words and values it names and differ in values it does not name."""
    if not (a.subjects == b.subjects or a.subjects & b.subjects):
        return False
    if _aim_and_outcome(a, b):
        return False  # "a goal of 12 books", then "finished 11 books": both stand
    earlier, later = (a, b) if b.when > a.when else (b, a)
    if _from_elsewhere(earlier, later):
        return False  # "250MB of peak memory", then "brought it down from 600MB to 400MB": the later changed
        # another thing's value, not the earlier's
    if not later.update and _qualified_apart(a, b):
        return False  # "the dining out budget to $200", then "a $500 joint budget for groceries": two budgets
    if a.days and b.days and not a.days & b.days and not later.moved:
        return False  # "declined the offer on June 6", then "declined the offer on July 9": two events
    if earlier.dates and later.dates and not earlier.dates & later.dates and _resized(later):
        return False  # "a cooking session on May 11", then "the June 8 session was extended to 3.5 hours": another
        # day's event changed its length, not its day
    if a.periods and b.periods and not a.periods & b.periods:
        return False  # "8 hours of practice in April", then "14 hours across June and July": two measures, even
        # when the later says it changed ("12 hours of overtime in February", then "down to 4 hours in March")
    said_changed = later.update or _grown(earlier, later)
    counts = {n for n, _ in earlier.amounts}
    if counts and counts <= later.values - later.was and not said_changed:
        return False  # the later says the earlier's count again ("I can invite 20 guests", then "it was supposed
        # to be 15 guests but we ended up with 20"): the earlier still holds, whatever else the later counts
    if asked is not None and max(len(a.frame), len(b.frame)) <= MAX_FRAME:
        # Both answer the question with other counts of what it asks about ("how many cards": "8 cards", "10
        # cards"), and share another of its words ("project"): a count of something else ("3 times a week" for
        # "how many times have I worn my new shoes") or of it elsewhere ("5 days before the deadline") is not.
        wanted = asked.frame | asked.values
        apart = frozenset(reading.plain_unit(u) for u in _counted_apart(a, b))
        counted = apart & wanted
        common = _asked_in_both(a, b, asked)
        # what is counted is no anchor; a thing counted by several of the question's words ("$60 book budget")
        # lends all but one of them as anchors (only how many matters, not which)
        anchor = (common - apart) | set(sorted(counted)[1:])
        # one more word of the question when the later says it changed ("now I have 10 cards", "5 sketches by
        # March 15" after "3 by March 14"), two when not; a measure the question need not name ("250ms" for "what
        # is the response time") takes two
        # Said in one conversation, two counts of a thing the question asks about need not be said in words alike
        # ("12 hours of overtime in February", then half an hour later "got it down to just 4 hours")
        alike = close(a, b) or words_alike(a, b, ASKED_OVERLAP)
        if alike and (
            (counted and len(anchor) >= ANCHOR - said_changed) or (apart & numbers.MEASURES and len(anchor) >= ANCHOR)
        ):
            return True
        if _changed_from(earlier, later, wanted):
            return True
    if a.values == b.values or not (a.values and b.values):
        return False  # the same values (a restatement), or none to tell them apart
    new = later.values - later.was  # "switched from Fira Code to JetBrains Mono": Fira Code is the old value
    if not (earlier.values - new and new - earlier.values) and not _counts_differ(a, b):
        return False  # one adds a value to the other's ("Hey Evan, Sam needs to talk" / "Sam is here to talk"): no
        # value was replaced, and no count of one thing differs ("8 minutes", then "from 8 to 12 minutes" does)
    if max(len(a.frame), len(b.frame)) > MAX_FRAME:
        return False
    # Words alike are not enough: two plans, two trips, two meals are alike and both true. The later one must
    # say it changed ("now", "switched", "so far"), or the two must count one thing differently.
    update = said_changed
    differ = _counted_apart(a, b)
    if asked is not None:  # a count of what the question asks about, or a measure: "3 card draws" in an hour
        # count, then "two cards" in a formula question, are no answer to "have I practiced probability problems"
        named = asked.frame | asked.values | numbers.MEASURES | {"%"}
        differ = frozenset(u for u in differ if reading.plain_unit(u) in named)
    if not (update or differ):
        return False
    if asked is not None and not differ and len(_asked_in_both(a, b, asked)) < ANCHOR:
        return False  # alike in words, and no count of what is asked differs: it takes two words of the question
        # ("$12,000 approved for the patent filing", then "got $10,000 follow-up funding" share one of "the budget
        # for patent filing fees"); "12 minutes", then "15 minutes" of kneading need only be alike
    if update and a.frame == b.frame == {"use"}:
        return True  # a choice and nothing more: "I use victor mono", then "switched to hack"
    # Vectors alike do not stand in for words alike: on BEAM tune, of the 12 joins shown that only the vectors
    # (cosine >= 0.8) made, 4 joined different things ("the probability of an even roll" and "study sessions
    # extended to 4 hours") and 3 more were doubtful.
    shared = len(a.frame & b.frame)
    return shared >= MIN_SHARED - update and words_alike(a, b, OVERLAP)


def _changed_from(earlier: Said, later: Said, wanted: frozenset[str]) -> bool:
    """Whether ``later`` says that what ``earlier`` states changed to another value, of what the question asks
    about: "the deadline is May 10", then "the deadline was extended to May 20" (another day); "after 8
    problems", then "increased my practice to 12 probability problems" (another count of a word it counts).
    ``ANCHOR`` other words of the question must be in both: "the scholarship deadline on May 15" and "the visa
    application" are not the role application whose deadline was extended."""
    for word, value, head in later.changed:
        if word not in wanted or (head and word != head):
            continue  # what the new number counts is what changed: "practice sessions" raised "to 12 problems"
            # supersede no count of "10 practice sessions"
        kind, new = value.split(":", 1)
        if kind == "date":
            before = earlier.dates if word in earlier.frame else frozenset()
        else:
            unit = "$:" + word if kind == "money" else word
            before = frozenset(n for n, u in earlier.amounts if u.removeprefix("goal:") == unit)
            if not before and kind == "number" and word in earlier.ones:
                before = frozenset({"1"})  # "a full day off", then "extended it to two full days"
        if not before or new in before:
            continue
        shared = (earlier.frame | earlier.values) & (later.frame | later.values) & wanted
        if len(shared - {word} - reading.UPDATE_WORDS - numbers.MONTHS) >= ANCHOR:
            return True
    return False


def _asked_in_both(a: Said, b: Said, asked: Said) -> frozenset[str]:
    """The words and values of the question that ``a`` and ``b`` both hold (no word of change, no month)."""
    return (
        (a.frame | a.values)
        & (b.frame | b.values)
        & (asked.frame | asked.values) - reading.UPDATE_WORDS - numbers.MONTHS
    )


def _qualified_apart(a: Said, b: Said) -> bool:
    """Whether ``a`` and ``b`` count one word but each says which one with a word the other does not hold at all:
    "the dining out budget" and "the joint budget for groceries" are two budgets, "the grocery budget" and "the
    joint budget for groceries" may be one (:attr:`Said.qualified`)."""
    if not (a.qualified and b.qualified):
        return False  # most facts qualify nothing they count: no pair of them is read further
    here, there = a.which, b.which
    return any(here[w] - b.stems and there[w] - a.stems for w in here.keys() & there.keys())


def _resized(later: Said) -> bool:
    """Whether ``later`` says an event changed ("extended") only its length, to no other day or time: "moved to 4 PM
    on June 2" moved it."""
    changed = later.changed
    return later.moved and bool(changed) and all(h in reading.DURATIONS and v[:5] != "date:" for _, v, h in changed)


def _from_elsewhere(earlier: Said, later: Said) -> bool:
    """Whether ``later`` tells a change from a value ``earlier`` does not hold, in a unit ``earlier`` counts in:
    "from 600MB to 400MB" after "around 250MB" (or after "from 300MB to 180MB") goes on from another value."""
    for value in later.origins:
        unit = reading.unit_of(value)
        if not unit:
            continue  # a bare "from 72 to 65 bpm" says nothing of what its 72 counts: an age, a model number
        held = {v for v in earlier.values if reading.unit_of(v) == unit and any(c.isdigit() for c in v)}
        if held and value not in held:
            return True
    return False


def _grown(earlier: Said, later: Said) -> bool:
    """Whether ``later`` tells a count as of a later day than ``earlier`` does: "3 sketches by March 14", then "5
    sketches by March 15" (a running count, grown, though no word says it changed). Not of aims: "to solve 8
    problems by March 20", then "to complete 10 by May 30" are two plans."""
    if earlier.as_of == (0, 0) or later.as_of <= earlier.as_of:
        return False
    return all(any(not u.startswith("goal:") for u in s.units) for s in (earlier, later))


def words_alike(a: Said, b: Said, share: float) -> bool:
    """Whether at least ``share`` of the words of ``a`` and ``b`` (their frames, values set aside) are in both."""
    return len(a.frame & b.frame) >= share * len(a.frame | b.frame)


def close(a: Said, b: Said) -> bool:
    """Whether ``a`` and ``b`` were said in one conversation: the same log, both stamped with a time of day,
    at most ``CLOSE_MINUTES`` apart."""
    return (
        a.timed
        and b.timed
        and a.when[0] == b.when[0]
        and a.when[2] == b.when[2]
        and abs(a.when[1] - b.when[1]) <= CLOSE_MINUTES
    )


def _aim_and_outcome(a: Said, b: Said) -> bool:
    """Whether one of ``a`` and ``b`` counts a thing only as an aim ("goal:book") and the other only as what
    is ("book"), with no count of theirs alike."""
    if a.units & b.units:
        return False
    aims = {u.removeprefix("goal:") for u in a.units if u.startswith("goal:")}
    other = {u.removeprefix("goal:") for u in b.units if u.startswith("goal:")}
    return bool((aims & b.units) or (other & a.units))


def _counts_differ(a: Said, b: Said) -> bool:
    """Whether ``a`` and ``b`` count one thing (the same unit) with other numbers."""
    return bool(_counted_apart(a, b))


def _counted_apart(a: Said, b: Said) -> frozenset[str]:
    """What ``a`` and ``b`` both count (the units), each with other numbers. Two amounts count one thing when the
    words of one are among the other's: "8 problems" and "12 conditional probability problems" do, "8 sudoku
    puzzles" and "14 crossword puzzles" do not."""
    units = a.units & b.units
    return frozenset(
        u
        for u in units
        if {n for n, v in a.amounts if v == u} != {n for n, v in b.amounts if v == u}
        and any(
            u in here and u in there and (here <= there or there <= here)
            for _, here in a.phrases or {("", a.units)}
            for _, there in b.phrases or {("", b.units)}
        )
    )


def supersessions(said: Sequence[Said], asked: Said | None = None) -> dict[int, Supersession]:
    """For each fact of ``said`` that a later one of its group supersedes: which and since when.

    Each fact is superseded by the latest fact that is :func:`same_thing` with it (not by a chain of them: two
    facts alike a third are not therefore alike each other); the other later facts alike it are kept
    (:attr:`Supersession.also`) so that none of them is shown after it."""
    order_ = sorted(range(len(said)), key=lambda i: said[i].when)
    out: dict[int, Supersession] = {}
    for n, i in enumerate(order_):
        later = [
            j
            for j in reversed(order_[n + 1 :])  # the latest fact about the same thing supersedes it
            if said[j].when > said[i].when and same_thing(said[i], said[j], asked=asked)
        ]
        if later:
            by, also = said[later[0]], frozenset(said[j].seq for j in later[1:])
            surely = next((said[j] for j in later if sure(said[i], said[j])), None)
            mark = (surely.seq, surely.when[0]) if surely is not None else None
            out[said[i].seq] = Supersession(said[i].seq, by.seq, by.when[0], said[i].when, also, mark)
    return out


def sure(earlier: Said, later: Said) -> bool:
    """Whether ``later``, about the same thing as ``earlier``, surely superseded it: it says that what ``earlier``
    counts or names changed to another value (:func:`_changed_from`: "the deadline was extended to May 20"), or it
    says it changed ("now", "so far", "adjusted") and was said in one conversation with it (:func:`close`: "a $300
    gift budget", ten minutes later "we've now adjusted it to $450") or in words mostly alike. Only such a
    supersession is marked (shown superseded, in the timeline, moved down in search); the others only order the
    two, the later first. Two things listed in one conversation ("the login endpoint responds in 150ms", "the
    search endpoint in 180ms") say no change: neither is marked. On the BEAM tune half's judged joins the marked
    ones were 14 right, 1 wrong and 2 doubtful; the wrong joins ("the login endpoint's 150ms" and, days later, "the
    API's 180ms"; "usage" and "limit") share a question's words, not a change said."""
    if _changed_from(earlier, later, earlier.frame | earlier.values):
        return True
    return later.update and (close(earlier, later) or words_alike(earlier, later, OVERLAP))


def marked(found: Mapping[int, Supersession]) -> dict[int, Supersession]:
    """Of ``found``, each supersession :func:`sure` enough to mark, pointing at the latest later fact that surely
    superseded it (a later one joined to it less surely is only put before it). For what is shown (labels,
    timeline, moving a passage down), not for :func:`order`: ``also`` is left empty."""
    return {
        seq: replace(s, by=s.sure[0], day=s.sure[1], also=frozenset()) for seq, s in found.items() if s.sure is not None
    }


def of_facts(facts: Iterable[StoredFact]) -> dict[int, Supersession]:
    """The :func:`marked` supersessions among ``facts`` (stored facts, no question to anchor them)."""
    said = [read_fact(f) for f in facts]
    return marked(supersessions([s for s in said if s is not None]))


UPDATES_READ = 400  # an entity's latest facts read for its updates (pairs: UPDATES_READ² / 2)


def updates(facts: Iterable[StoredFact]) -> list[dict[str, Any]]:
    """The marked supersessions among an entity's facts (:func:`marked`), oldest first, each saying what superseded
    it and when: what ``memlane timeline`` and the web view show, so a person sees why and can edit the Markdown
    fact."""
    every = {f.seq: f for f in facts}
    found = of_facts(every.values())
    out = []
    for seq, sup in sorted(found.items(), key=lambda item: item[1].when):
        old, new = every[seq], every[sup.by]
        out.append(
            {
                "content": old.content,
                "source": old.source,
                "day": old.day,
                "until": sup.day,
                "superseded_by": {"content": new.content, "source": new.source, "day": new.day},
            }
        )
    return out


def unnamed(found: dict[int, Supersession], said: Sequence[Said], asked: Said) -> dict[int, Supersession]:
    """``found`` less the groups the question picks a member of by a number it names (:func:`named_apart`):
    "fact number 17", "did I pay 30 euros" are answered by that fact, not moved aside."""
    if not asked.amounts:
        return found
    of = {s.seq: s for s in said}
    told = {sup.by for seq, sup in found.items() if named_apart(of[seq], of[sup.by], asked)}
    return {seq: sup for seq, sup in found.items() if sup.by not in told}


def order(
    ranked: Sequence[int],
    found: Mapping[int, Supersession],
    when: Mapping[int, tuple[str, int, str, int]],
    past: bool,
    until: dt.date | None = None,
) -> list[int]:
    """``ranked`` (fact seqs, best first) with each group brought together where its best member stood: the
    current fact first and the facts it superseded after it, latest first. A group is a fact and what it
    superseded, and what those superseded in turn ("$400" by "$500" by "$550"). For a question about the past
    (``past``) the earliest comes first; for one about a time (``until``: the end of the window it names), the
    value stated last on or before that day. ``when``: each fact's time (:attr:`Said.when`). For the present, no
    fact comes before a later one about the same thing (:attr:`Supersession.also`), even of another group."""

    def head(seq: int) -> int:
        while seq in found:
            seq = found[seq].by
        return seq

    groups: dict[int, list[int]] = {}
    for seq in ranked:
        groups.setdefault(head(seq), []).append(seq)
    out: list[int] = []
    for top, members in groups.items():
        if top not in members or len(members) == 1:
            out.extend(members)  # alone, or its latest is not among these: as found
            continue
        newest = sorted(members, key=lambda s: when[s], reverse=True)
        if until is not None:
            then = [s for s in newest if when[s][0] <= until.isoformat()][:1]
            out.extend(then + [s for s in newest if s not in then])
        elif past:
            out.extend(reversed(newest))
        else:
            out.extend(newest)
    return out if past or until is not None else _after_what_superseded(out, found)


def _after_what_superseded(seqs: list[int], found: Mapping[int, Supersession]) -> list[int]:
    """``seqs`` with each superseded fact moved, when needed, right after the last of the later facts about the
    same thing (its superseder and :attr:`Supersession.also`) that ``seqs`` hold; the rest keep their order."""
    present = set(seqs)
    waits = {s: ({found[s].by} | found[s].also) & present for s in seqs if s in found}
    out: list[int] = []
    placed: set[int] = set()
    pending: list[int] = []

    def place(seq: int) -> None:
        out.append(seq)
        placed.add(seq)
        for p in [p for p in pending if waits[p] <= placed]:
            if p not in placed:
                pending.remove(p)
                place(p)

    for seq in seqs:
        if waits.get(seq, set()) <= placed:
            place(seq)
        else:
            pending.append(seq)
    return out + pending  # none is left: a fact waits only for later ones (time orders them)
