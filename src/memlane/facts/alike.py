"""Two facts answering one question alike: for a question about the present the later one first, for one about an
earlier value ("previous", "before I ...") the earlier.

Supersession (:mod:`memlane.facts.supersede`) marks a fact as no longer true, with what superseded it; that is a
claim about the world, made only on strong evidence. A question gives weaker evidence that is enough to *order*:
when two facts both answer it (both hold the words it asks with, and each gives a value of its own), the one said
later is the better guess at what is true now. Nothing is marked or hidden: both are shown, in the order asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import numbers, reading
from .reading import Said

# "before", "initially", "when I started", "in the first three months", "previous": the past is asked for.
# Not "before my flight" (a time ahead), "how old" or "years old" (an age), "before?" at the end (ever).
_PAST = re.compile(
    r"\b(?:before(?= (?:i|we|it|that|then|switching|changing|moving|updating|upgrading)\b)|initially|originally|"
    r"at first|at the (?:start|beginning|outset)|in the beginning|"
    r"to begin with|first started|when (?:i|we) (?:first )?(?:started|began|joined|moved|got|bought|signed up)|used to|"
    r"previous(?:ly)?|earlier|formerly|prior|first time|in the first (?:\w+ )?(?:days?|weeks?|months?|years?)|"
    r"back then|at that time|(?<!how )(?<!years )old)\b",
    re.IGNORECASE,
)
# "When did I ...", "what was ...": a question in the past tense asks about an event, not what holds now.
_PAST_TENSE = re.compile(r"\b(?:did|was|were|had)\b", re.IGNORECASE)
# "What is ...", "how many ...", "when is ...": a question asking for a value (not "have I ever ...?", yes or no)
_WH = re.compile(r"\b(?:what|which|how|when|where|who|whom|whose)\b", re.IGNORECASE)
# The words a question asks with, not about: "how many", "current", "previous", "before I updated", "now"
_ASKING = (
    frozenset(
        numbers.stem(w)
        for w in "many much current now latest still previous before initially originally first earlier got get "  # noqa: SIM905
        "updated update changed anymore".split()
    )
    | frozenset(numbers.stem(w) for w in reading.UPDATE_WORDS)
    | numbers.MONTHS
)
SPAN = 10  # the best facts among which the later of two alike is brought first
ANCHOR = 2  # the words and values of the question that both facts hold, at least
SHARE = 0.5  # ... and at least this share of the question's words


def asks_for_past(query: str) -> bool:
    """Whether a question asks for an earlier value ("initially", "before", "when I started", "previous")
    rather than the present one (present tense, "now", "current", "still", or no time word at all)."""
    return bool(_PAST.search(query))


def present(query: str) -> bool:
    """Whether ``query`` asks for a value that holds now: a wh-question with no word of the past and no verb in
    the past tense."""
    return bool(_WH.search(query)) and not asks_for_past(query) and not _PAST_TENSE.search(query)


def past_first(query: str) -> bool | None:
    """How facts answering ``query`` alike are ordered: ``False`` the later first (a value now, :func:`present`),
    ``True`` the earlier first (a value before: :func:`asks_for_past`), ``None`` as ranked (an event, yes or
    no)."""
    if asks_for_past(query):
        return True
    return False if present(query) else None


def answer_alike(a: Said, b: Said, asked: Said) -> bool:
    """Whether ``b`` answers ``asked`` alike with ``a``, and as fully: both hold ``ANCHOR`` (and ``SHARE``) of
    the words it asks about, ``b`` every one ``a`` holds, and each gives a value the question does not name and
    the other does not give."""
    own_a, own_b = a.values - asked.values, b.values - asked.values
    if not (own_a - own_b and own_b - own_a):
        return False
    wanted = (asked.frame | asked.values) - _ASKING
    here, there = (a.frame | a.values) & wanted, (b.frame | b.values) & wanted
    return here <= there and len(here) >= max(ANCHOR, SHARE * len(wanted))


def later_alike(said: Sequence[Said], asked: Said) -> dict[int, tuple[Said, Said]]:
    """Each of ``said`` (by its seq) that a later one answers ``asked`` alike with (:func:`answer_alike`), with the
    first such: ``(earlier, later)``."""
    out: dict[int, tuple[Said, Said]] = {}
    for a in said:
        for b in said:
            if b.when > a.when and a.seq not in out and answer_alike(a, b, asked):
                out[a.seq] = (a, b)
    return out


def reorder(items: Sequence[Sequence[Said]], asked: Said, past: bool = False) -> list[int]:
    """The order to show ``items`` in (each a fact, or a passage's facts; best first): among the first ``SPAN``,
    each brought right before the best-ranked one it answers the question alike with (:func:`answer_alike`)
    when it was said later, or for a question about the past (``past``) earlier."""
    head = min(SPAN, len(items))
    pulls: dict[int, int] = {}
    for i in range(head):
        for j in range(i + 1, head):
            if j not in pulls and _sooner(items[i], items[j], asked, past):
                pulls[j] = i

    def root(k: int) -> int:
        while k in pulls:
            k = pulls[k]
        return k

    def latest(k: int) -> tuple[str, int, str, int]:
        return max(s.when for s in items[k])

    out: list[int] = []
    for k in range(len(items)):
        if k not in pulls:
            out.extend(sorted((j for j in pulls if root(j) == k), key=latest, reverse=not past))
            out.append(k)
    return out


def _sooner(first: Sequence[Said], then: Sequence[Said], asked: Said, past: bool) -> bool:
    """Whether ``then`` answers the question alike with ``first`` (some fact of each), and every such pair was
    said later in ``then`` (``past``: earlier)."""
    pairs = [(a, b) for a in first for b in then if answer_alike(a, b, asked)]
    return bool(pairs) and all((b.when < a.when) if past else (b.when > a.when) for a, b in pairs)
