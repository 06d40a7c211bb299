"""A dated fact as supersession reads it (:mod:`memlane.facts.supersede`): who it is about, its words with the
values set aside (the frame), its values, the amounts it states and what each counts, whether it says it changed,
the days it names and the time of day it was said. What a number counts, and which days of months a text
names, is :mod:`memlane.facts.numbers`.

Read from a fact's text alone and kept per text (recall reads the same facts again and again). A question is read
the same way (:func:`question`), to anchor two facts that answer it.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from ..store import StoredFact
from ..text.keywords import STOPWORDS
from .numbers import (
    COUNT_WORDS,
    MONTHS,
    SELF,
    adverb,
    amounts_of,
    event_days,
    month_days,
    phrases_of,
    stem,
)
from .retain import PROVENANCE, normalize_name

# Words a speaker uses when a value changed: the later fact of a group is more surely an update.
UPDATE_WORDS = frozenset(
    "now new newly just anymore switched moved upgraded downgraded changed updated latest currently "  # noqa: SIM905
    "increased decreased improved reduced grew dropped raised lowered reached instead bumped finally rescheduled "
    "extended shortened replaced adjusted postponed revised".split()
)
_UPDATE_PHRASES = ("no longer", "so far", "since then", "went up", "went down", "total of")
# A choice: what someone uses, or switched, changed, upgraded or moved over to ("I use victor mono", "switched
# my editor font to hack"): up to three words, read up to the first stopword.
_CHOICE = re.compile(
    r"\b(?:(?P<verb>use|uses|using)\s|(?P<switch>switch|switched|switching|changed|upgraded|migrated)\s"
    r"(?:over\s)?(?:[^\W\d_]+\s){0,3}?(?:to|for)\s)(?P<what>[\w.+#-]+(?:\s[\w.+#-]+){0,2})",
    re.IGNORECASE,
)
# The day or days capture writes after a relative date: "last weekend (2023-05-27..2023-05-28)".
_DATED = re.compile(r"\s?\(\d{4}-\d\d-\d\d(?:\.\.\d{4}-\d\d-\d\d)?\)")
# A value: a number with what follows it closely (unit, %, currency), a clock time, a version.
_NUMBER = re.compile(r"[$€£¥]?\d+(?:[.,:]\d+)*(?:\s?(?:%|[a-zA-Zµ]{1,5}\b))?")
_WORD = re.compile(r"[^\W\d_]+")
_OPENING = re.compile(r"@?\[?([^\W\d_][\w-]{0,40})")  # the text's first word (a name, possibly possessive)
# The day an event happened on, said: "on June 6", "on the 6th of June", "on Friday, June 6", "a session for June
# 22" (not "by June 6": a deadline or a count as of a day is a value that changes). Not the days capture writes
# after "on Thursday" or "yesterday": a weekly class moved from Thursday to Friday, a count of times worn said the
# day after it grew (LongMemEval) are one thing each.
_ON_DAY = re.compile(
    r"\b(?:on|for)\s+(?:the\s+)?(?:[a-z]+day,?\s+)?(?:(?P<month>[a-z]{3,9})\.?\s+(?P<day>\d{1,2})(?!\d)|"
    r"(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>[a-z]{3,9})\b)",
    re.IGNORECASE,
)
# The months a measure is told of: "8 hours in April", "14 hours across June and July", "during March". Hours
# practised in April and in June are two measures, not one updated (even when the later says it changed).
# A month said as what a measure is of counts too: "my (increased) January book budget", "the April-June budget".
_IN_MONTHS = re.compile(
    r"\b(?:(?:in|during|across|throughout|over|for)\s+(?:the\s+month\s+of\s+)?|"
    r"(?i:my|our|the|this|that|his|her|their)\s+(?:[a-z]{2,15}ed\s+)?(?=[A-Z][a-z]{2,8}(?:\s*[-–]\s*[A-Z][a-z]{2,8})?\s+[a-z]))"
    r"(?P<first>[A-Z][a-z]{2,8})\b"
    r"(?:\s*(?:and|to|through|-|–|&)\s*(?P<last>[A-Z][a-z]{2,8})\b)?(?!\s*\d{1,2}(?!\d))"
)
# A count as of a day: "completed 3 sketches by March 14", then "5 sketches by March 15" is the same count grown.
_BY_DAY = re.compile(r"\bby\s+(?P<month>[A-Z][a-z]{2,8})\.?\s+(?P<day>\d{1,2})(?!\d)")
# One of a span of time, written with an article: "a full day off", then "extended it to two full days" (not "3
# times a day", a rate; nor "a problem": a thing named is not counted).
_ONE = re.compile(
    r"\b(?:[Aa]n?|[Oo]ne)\s+(?:(?:full|whole|single|extra)\s+)?(second|minute|hour|day|week|month|year)\b"
)
_SPANS = ("second", "minute", "hour", "day", "week", "month", "year")
_RATE = re.compile(r"(?:\btimes|\bonce|\btwice|\bper|\d)\s*$")  # "3 times a day", "per a week": a rate
_MONTH_NUMBER = {name: i + 1 for i, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}  # noqa: SIM905
# The later of two facts says the event itself changed: then another day is the same event moved.
_MOVED = frozenset(
    "rescheduled moved postponed pushed delayed shifted changed extended updated revised adjusted brought".split()  # noqa: SIM905
)
# A value said to have changed to another: "the deadline was extended to May 20", "raised my practice to 12
# conditional probability problems", "adjusted the gift budget to $450". What changed is named by the words just
# before the verb, those between it and "to", and the words the new number counts.
_CHANGED_TO = re.compile(
    r"\b(?:extended|increased|decreased|raised|lowered|reduced|adjusted|moved|changed|pushed|postponed|"
    r"rescheduled|bumped|upped|updated|shifted|expanded|boosted|cut)(?P<obj>(?:\s+(?!to\b)[\w'-]+){0,6}?)\s+to\s+"
    r"(?:(?P<month>[a-z]{3,9})\.?\s+(?P<day>\d{1,2})(?!\d)|"
    r"(?P<money>[$€£¥])?(?P<number>\d[\d,]*(?:\.\d+)?|[a-z]+)(?P<unit>(?:\s+[^\W\d_]+){0,3}))",
    re.IGNORECASE,
)
_DATE = re.compile(r"\b(?P<month>[a-z]{3,9})\.?\s+(?P<day>\d{1,2})(?!\d)", re.IGNORECASE)
_HOW_LONG = re.compile(r"\bhow (?:long|much time)\b", re.IGNORECASE)
DURATIONS = frozenset("second minute hour day week month year".split())  # noqa: SIM905  (stems)
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "  # noqa: SIM905
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "million billion dozen half".split()
)


@dataclass(frozen=True)
class Said:
    """A dated fact as supersession reads it."""

    seq: int
    when: tuple[str, int, str, int]  # (day, minute of the day, path, line): later sorts last
    subjects: frozenset[str]  # who it is about: the speaker of a captured bullet, else the entities it names
    frame: frozenset[str]  # its words with values, subjects and stopwords set aside (five-letter stems)
    values: frozenset[str]  # numbers with their units, number words, months, names inside the text
    update: bool  # says the value changed
    amounts: frozenset[tuple[str, str]] = frozenset()  # (number, the word it counts): ("10", "card")
    days: frozenset[str] = frozenset()  # the days of the events it tells ("on June 6": "june 6"), see _ON_DAY
    dates: frozenset[str] = frozenset()  # every day it names ("may 10"), an event's or a deadline's
    changed: frozenset[tuple[str, str, str]] = frozenset()  # (a word of what changed, its new value, what the new
    # value counts when it says: "12 problems", "problem"): see _CHANGED_TO
    moved: bool = False  # says the event changed ("rescheduled", "moved", "extended")
    timed: bool = False  # its time of day is known (a captured bullet's stamp): when[1] is that minute
    was: frozenset[str] = frozenset()  # values it names as replaced ("from Fira Code", "instead of 8"): see _WAS
    periods: frozenset[str] = frozenset()  # the months a measure is told of ("in April": "apr"): see _IN_MONTHS
    as_of: tuple[int, int] = (0, 0)  # the latest day a count is told as of ("by March 14": (3, 14)): see _BY_DAY
    ones: frozenset[str] = frozenset()  # the spans of time it names one of ("a full day": "day"): see _ONE
    phrases: frozenset[tuple[str, frozenset[str]]] = frozenset()  # each amount with all the words it counts
    qualified: frozenset[tuple[str, frozenset[str]]] = frozenset()  # each word counted with the words that say
    # which one it is ("budget": "grocery" of "my grocery budget", "joint", "groceries" of "joint budget for
    # groceries"): see :func:`qualifiers`
    stems: frozenset[str] = frozenset()  # every word of the text, as stems
    origins: frozenset[str] = frozenset()  # the values a change it tells starts from ("from 600MB to 400MB":
    # "600mb"): see _FROM_TO

    @cached_property
    def units(self) -> frozenset[str]:
        """What its amounts count ("card" of "10 cards"): words of the attribute, though read with a number. Read
        once per fact: the pairwise loop of :func:`memlane.facts.supersede.supersessions` asks for it several
        times per pair."""
        return frozenset(u for _, u in self.amounts)

    @cached_property
    def which(self) -> dict[str, frozenset[str]]:
        """:attr:`qualified` as a mapping, read once per fact (asked for once per pair)."""
        return dict(self.qualified)


def _split(content: str) -> tuple[frozenset[str], frozenset[str]]:
    """(frame, values) of a fact's text: see :class:`Said`. A day of a month is a value ("may 20"), not a
    number with a unit ("20event" of "the May 20 event"); a stopword after a number is no unit ("20 and")."""
    values: set[str] = set()
    dated = month_days(content)
    if dated:
        parts, at = [], 0
        for _, start, end, days in dated:
            values.update(days)
            parts += [content[at:start], " " * (end - start)]
            at = end
        content = "".join([*parts, content[at:]])
    for num in _NUMBER.finditer(content):
        value = num.group()
        unit = _WORD.search(value)
        if unit is not None and unit.group().lower() in STOPWORDS:
            value = value[: unit.start()]  # "20 and": the number alone
        values.add(re.sub(r"\s+", "", value.lower()).replace(",", ""))
    chosen = set()  # what is used or switched to is a value, written as a name or not ("switched to hack")
    verbs = set()  # ... and using it, or switching to it, one frame word: "use" (the choice is the attribute)
    for m in _CHOICE.finditer(content):
        verbs.add(stem((m.group("verb") or m.group("switch")).lower()))
        for w in _WORD.findall(m.group("what")):
            if w.lower() in STOPWORDS:
                break
            chosen.add(w.lower())
    values |= chosen
    frame: set[str] = set()
    for i, w in enumerate(_WORD.findall(_NUMBER.sub(" ", content))):
        low = w.lower()
        if low in chosen:
            continue
        if low in _NUMBER_WORDS or low in MONTHS:
            values.add(low)
        elif low in STOPWORDS or low in SELF or len(low) < 3:
            continue
        elif w[:1].isupper() and i > 0 and not w.isupper():
            values.add(low)  # a name inside the text: "switched to Garmin"
        else:
            frame.add(stem(low))
    if verbs:
        frame = (frame - verbs) | {"use"}
    return frozenset(frame), frozenset(values)


def read(
    seq: int, content: str, day: str | None, path: str, line: int, mentions: Sequence[tuple[str, str]]
) -> Said | None:
    """A fact as supersession reads it, or None when it has no day (a page written by hand has no time)."""
    if not day:
        return None
    minute, subjects, frame, values, update, phrases, days, moved = _reading(content, tuple(mentions))
    timed = PROVENANCE.search(content) is not None
    dates, changed = _changes(content)
    was = _replaced(content)
    periods, as_of, ones = _spans(content)
    return Said(
        seq,
        (day, minute, path, line),
        subjects,
        frame,
        values,
        update,
        frozenset((n, unit) for n, units in phrases for unit in units),
        days=days,
        dates=dates,
        changed=changed,
        moved=moved,
        timed=timed,
        was=was,
        periods=periods,
        as_of=as_of,
        ones=ones,
        phrases=phrases,
        qualified=qualifiers(content, frozenset(plain_unit(u) for _, units in phrases for u in units)),
        stems=_stems(content),
        origins=_origins(content),
    )


def plain_unit(unit: str) -> str:
    """A unit less its marks of an aim and of money ("goal:$:book": "book")."""
    return unit.removeprefix("goal:").removeprefix("$:")


@functools.lru_cache(maxsize=8192)
def _stems(content: str) -> frozenset[str]:
    """Every word of ``content``, as stems."""
    return frozenset(stem(w.lower()) for w in _WORD.findall(content))


_PIECES = re.compile(r"[^\W\d_]+|\d[\d,.]*|[^\w\s]")  # words, numbers and marks, in order
_COMPLEMENT = frozenset(("for", "of", "on"))  # "the budget for groceries", "2 hours on coin toss problems"
# Words that say how much or when, not which one: "the total budget" and "the grocery budget" are one budget
_GENERIC = frozenset(
    "total overall whole entire average current new extra additional full final initial original actual usual "  # noqa: SIM905
    "same other previous last next first recent latest own".split()
)


def _qualifier(low: str) -> bool:
    """A word that may say which of a kind is meant ("grocery", "login", "dining"): no stopword, month, number
    word, word of change, adverb, verb in -ed or word of how much ("total")."""
    return (
        low.isalpha()
        and len(low) > 2
        and low not in STOPWORDS
        and low not in SELF
        and low not in MONTHS
        and low not in _NUMBER_WORDS
        and low not in UPDATE_WORDS
        and low not in _GENERIC
        and not low.endswith("ed")
        and not adverb(low)
    )


@functools.lru_cache(maxsize=8192)
def qualifiers(content: str, heads: frozenset[str]) -> frozenset[tuple[str, frozenset[str]]]:
    """Each word of ``heads`` (stems of words an amount counts) with the words that say which one it is, wherever
    the text names it: up to two words before it ("holiday gift budget", "dining out budget") and up to three
    after "for", "of", "on" or a verb in -ing right after it ("budget for groceries", "hours practicing dependent
    event problems"). One pass over the text's words."""
    if not heads:
        return frozenset()
    pieces = [p.lower() for p in _PIECES.findall(content)]
    found: dict[str, set[str]] = {}
    for i, piece in enumerate(pieces):
        head = stem(piece)
        if head not in heads or not piece.isalpha():
            continue
        words = found.setdefault(head, set())
        j, taken = i - 1, 0
        while j >= 0 and taken < 2 and j >= i - 4:
            if pieces[j] == "out" or adverb(pieces[j]):  # "dining out budget", "my monthly budget"
                j -= 1
                continue
            if not _qualifier(pieces[j]):
                break
            words.add(stem(pieces[j]))
            taken, j = taken + 1, j - 1
        j = i + 1
        while j < len(pieces) and j <= i + 2 and adverb(pieces[j]):
            j += 1  # "2 hours specifically on coin toss"
        if j < len(pieces) and (pieces[j] in _COMPLEMENT or (pieces[j].endswith("ing") and _qualifier(pieces[j]))):
            if pieces[j].endswith("ing"):
                words.add(stem(pieces[j]))
            j, taken = j + 1, 0
            while j < len(pieces) and taken < 3 and _qualifier(pieces[j]) and not pieces[j].endswith("ing"):
                words.add(stem(pieces[j]))
                taken, j = taken + 1, j + 1
    return frozenset((head, frozenset(words - {head})) for head, words in found.items() if words - {head})


# What a fact says was replaced: the words after "from", "instead of", "rather than", "replacing", "no longer",
# up to three, read for values as the fact is ("switched from Fira Code to JetBrains Mono": fira, code).
# "from 600MB to 400MB", "from $1,300 down to $1,200": the value a change starts from, said with the new one.
_FROM_TO = re.compile(r"\bfrom\s+(\$?\d[\d,.]*\s?[a-z%]*)\s+(?:down\s+|up\s+)?to\s+\$?\d", re.I)
_WAS = re.compile(r"\b(?:from|instead of|rather than|replacing|no longer(?: \w+)?)\s+((?:[^\s,;.!?]+\s?){1,3})", re.I)


@functools.lru_cache(maxsize=8192)
def _origins(content: str) -> frozenset[str]:
    """The values the changes ``content`` tells start from (see ``_FROM_TO``)."""
    out: set[str] = set()
    for m in _FROM_TO.finditer(PROVENANCE.sub("", content)):
        out |= {v for v in _split(f"x {m.group(1)}")[1] if any(c.isdigit() for c in v)}
    return frozenset(out)


def unit_of(value: str) -> str:
    """What a value read with a number counts, as its text ends: "mb" of "600mb", "" of "8" or "$1300"."""
    return value.lstrip("$0123456789.,")


@functools.lru_cache(maxsize=8192)
def _replaced(content: str) -> frozenset[str]:
    """The values ``content`` names as replaced (see ``_WAS``)."""
    out: set[str] = set()
    for m in _WAS.finditer(PROVENANCE.sub("", content)):
        out |= _split(f"x {m.group(1)}")[1]  # "x ": a name right after the marker is not a sentence's first word
    return frozenset(out)


@functools.lru_cache(maxsize=8192)
def _spans(content: str) -> tuple[frozenset[str], tuple[int, int], frozenset[str]]:
    """The months a text tells a measure of, the latest day it counts as of, and what it names one of (see
    :attr:`Said.periods`, :attr:`Said.as_of`, :attr:`Said.ones`)."""
    # capture's stamp "(User, 09:00)" and its dates "(2026-05-04)" name no month by name, "by" or span of time
    periods: set[str] = set()
    for m in _IN_MONTHS.finditer(content):
        if m.group("first").lower() not in MONTHS:
            continue
        # "in April and Mark joined me": Mark is no month, the span is April alone
        end = m.group("last") if m.group("last") and m.group("last").lower() in MONTHS else m.group("first")
        lo, hi = _MONTH_NUMBER[m.group("first").lower()[:3]], _MONTH_NUMBER[end.lower()[:3]]
        # "from November through February" wraps the year's end
        periods.update(name for name, n in _MONTH_NUMBER.items() if (lo <= n <= hi if lo <= hi else n >= lo or n <= hi))
    as_of = max(
        (
            (_MONTH_NUMBER[b.group("month").lower()[:3]], int(b.group("day")))
            for b in (_BY_DAY.finditer(content) if "by " in content else ())
            if b.group("month").lower() in MONTHS
        ),
        default=(0, 0),
    )
    ones = frozenset(
        m.group(1)
        for m in (_ONE.finditer(content) if any(span in content for span in _SPANS) else ())
        if not _RATE.search(content, max(0, m.start() - 8), m.start())
    )
    return frozenset(periods), as_of, ones


@functools.lru_cache(maxsize=8192)
def _changes(content: str) -> tuple[frozenset[str], frozenset[tuple[str, str, str]]]:
    """The days a text names and what it says changed to what (:attr:`Said.dates`, :attr:`Said.changed`)."""
    content = _DATED.sub("", content)
    dates = {
        f"{d.group('month')[:3].lower()} {int(d.group('day'))}"
        for d in _DATE.finditer(content)
        if d.group("month").lower() in MONTHS
    }
    changed: set[tuple[str, str, str]] = set()
    for m in _CHANGED_TO.finditer(content):
        if m.group("month"):
            if m.group("month").lower() not in MONTHS:
                continue
            value = f"date:{m.group('month')[:3].lower()} {int(m.group('day'))}"
            unit = ""
        else:
            number = m.group("number").lower().replace(",", "")
            if not (number[0].isdigit() or number in COUNT_WORDS):
                continue
            kind = "money" if m.group("money") else "number"  # "$75" counts money, "75" what follows it
            value, unit = f"{kind}:{number}", m.group("unit")
        counts = list(itertools.takewhile(lambda w: w.lower() not in STOPWORDS, unit.split()))  # "12 problems to"
        named = content[max(0, m.start() - 30) : m.start()].split()[-2:] + m.group("obj").split()
        words = [
            stem(low)
            for low in (w.lower() for w in named + counts)
            if low.isalpha() and len(low) > 2 and low not in STOPWORDS and low not in SELF and low not in MONTHS
        ]
        # what the new number counts is the last word it counts ("12 conditional probability problems": problems),
        # so "10 practice sessions" is no earlier count of it, though "practice sessions" were said to change
        kept = [w.lower() for w in counts if w.isalpha() and w.lower() not in MONTHS and not adverb(w.lower())]
        head = stem(kept[-1]) if kept and value.startswith("number:") else ""
        changed.update((w, value, head) for w in words)
    return frozenset(dates), frozenset(changed)


def read_fact(f: StoredFact) -> Said | None:
    """:func:`read` of a stored fact."""
    return read(f.seq, f.content, f.day, f.path, f.start_line, f.mentions)


@functools.lru_cache(maxsize=8192)
def _reading(
    content: str, mentions: tuple[tuple[str, str], ...]
) -> tuple[
    int,
    frozenset[str],
    frozenset[str],
    frozenset[str],
    bool,
    frozenset[tuple[str, frozenset[str]]],
    frozenset[str],
    bool,
]:
    """What :func:`read` makes of a fact's text (kept per text: recall asks of the same facts again and again)."""
    m = PROVENANCE.search(content)
    minute = 0
    if m is not None:
        hh, mm = m.group("at").split(":")
        minute = int(hh) * 60 + int(mm)
        content = content[: m.start()]
        said = f"{m.group('who')} said:"  # capture's framing of a first-person statement: no word of its own
        if content.lstrip()[: len(said)].lower() == said.lower():
            content = content.lstrip()[len(said) :]
    days = set()
    content = _DATED.sub("", content)  # the date capture adds after "last weekend" is not a value said
    for on in _ON_DAY.finditer(content):
        month = (on.group("month") or on.group("month2")).lower()
        if month in MONTHS:
            days.add(f"{month[:3]} {int(on.group('day') or on.group('day2'))}")
    days.update(event_days(content))
    who = normalize_name(m.group("who")) if m is not None else ""
    # The subject: the entity the text opens with ("Dana's team has 6 engineers", "Peter lives in Porto"), else
    # the speaker of a captured bullet (what "User uses Garmin now" names is what is said of the speaker), else
    # the entities a bullet written by hand mentions (a stopword such as "@Is" names nothing).
    norms = [norm for norm, _ in mentions if norm not in STOPWORDS and norm not in SELF]
    first = _OPENING.match(content.lstrip())
    opener = normalize_name(first.group(1)) if first else ""
    subjects = frozenset({opener}) if opener in norms else frozenset({who}) if who else frozenset(norms)
    frame, values = _split(content)
    names = {stem(n) for n in norms}
    frame = frozenset(w for w in frame if w not in names)
    low = content.lower()
    update = any(p in low for p in _UPDATE_PHRASES) or not UPDATE_WORDS.isdisjoint(_WORD.findall(low))
    moved = not _MOVED.isdisjoint(_WORD.findall(low))
    return minute, subjects, frame, values, update, phrases_of(content), frozenset(days), moved


def question(query: str) -> Said:
    """A question read as a fact is (its words, the values and amounts it names), to anchor :func:`same_thing`;
    "how long" asks for a duration, so the units of time are words it names."""
    frame, values = _split(query)
    if _HOW_LONG.search(query):
        frame |= DURATIONS
    return Said(-1, ("", 0, "", 0), frozenset(), frame, values, False, amounts_of(query))
