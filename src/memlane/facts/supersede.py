"""What is true now: facts about the same thing, told apart by their values and their time.

People update most things in words no predicate list knows: "my best so far is 52 minutes", then "I finally
ran it in 49:30"; "a team of 4", then "I now lead six people". Two dated facts are about the same thing when
they share a subject, say the same of it once their values (numbers, amounts, times, names) are set aside, and
differ in those values. Of such a group the latest fact is current and the earlier ones are superseded by it.

Derived at query time from what the index holds (the Markdown is never written): :func:`supersessions` over a
recall's best candidates, :func:`order` to rank a group's current member first (or, for a question about the
past, the value valid then). Pure functions; the relations of :mod:`memlane.facts.graph` settle what they know on
their own and come first.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..search.ranking import SearchResult
from ..store import FactIndex, StoredFact
from ..text.keywords import STOPWORDS
from .retain import PROVENANCE, normalize_name

# "before", "initially", "when I started", "in the first three months", "previous": the past is asked for.
_PAST = re.compile(
    r"\b(?:before(?!\s*\?)|initially|originally|at first|at the (?:start|beginning|outset)|in the beginning|"
    r"to begin with|first started|when (?:i|we) (?:first )?(?:started|began|joined|moved|got|bought|signed up)|used to|"
    r"previous(?:ly)?|earlier|formerly|prior|first time|in the first (?:\w+ )?(?:days?|weeks?|months?|years?)|"
    r"back then|at that time|old)\b",
    re.IGNORECASE,
)
# Words a speaker uses when a value changed: the later fact of a group is more surely an update.
_UPDATE_WORDS = frozenset(
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
_CURRENCY = re.compile(r"[$€£¥]")  # a sign before an amount: the word before the sign is the word before it
_OPENING = re.compile(r"@?\[?([^\W\d_][\w-]{0,40})")  # the text's first word (a name, possibly possessive)
# A number and the word it counts or measures: "10 cards", "1,200 calls", "78%", "250ms", "six people", "level
# 150", "team of 4". The number is found first; the words beside it are read from the text around it.
_TOKEN = re.compile(r"[^\W_]+(?:[.,:]\d+)*")
_LEADING = re.compile(r"(\d++(?:[.,:]\d++)*+)([^\W\d_]{0,5})")  # a whole token: fullmatch
_AFTER = re.compile(
    r"\s?(?:(?:new|more|extra|additional|total|other|of|full|different)\s){0,2}(%|[^\W\d_]{1,20})",
    re.IGNORECASE,
)
# Units of measurement: "250ms" answers "what is the response time" without the question naming the unit.
_MEASURES = frozenset("ms kg km mb gb tb kb hz mhz ghz mph kph lb oz ml cm mm fps rpm kw kwh".split())  # noqa: SIM905
# A bound or an aim before a number: "under 300ms", "aiming for 10 books", "a goal of 12". What someone aims
# at is another thing than what is ("around 220ms", "finished 11 books"): its unit reads "goal:ms".
_GOAL = re.compile(
    r"\b(?:under|below|within|at most|up to|less than|no more than|aim(?:s|ed|ing)?|goals?|targets?|"
    r"hop(?:e|es|ing) to|plan(?:s|ned|ning)? to|want(?:s|ed)? to)\s+(?:(?:of|for|to|is|at)\s+)?"
    r"(?:[^\W\d_]+\s+){0,2}[$€£]?$",
    re.IGNORECASE,
)
# The day an event happened on, said: "on June 6", "on the 6th of June", "on Friday, June 6" (not "by June 6": a
# deadline or a count as of a day is a value that changes). Not the days capture writes after "on Thursday" or
# "yesterday": a weekly class moved from Thursday to Friday, a count of times worn said the day after it grew
# (LongMemEval) are one thing each.
_ON_DAY = re.compile(
    r"\bon\s+(?:the\s+)?(?:[a-z]+day,?\s+)?(?:(?P<month>[a-z]{3,9})\.?\s+(?P<day>\d{1,2})(?!\d)|"
    r"(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>[a-z]{3,9})\b)",
    re.IGNORECASE,
)
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
_DURATIONS = frozenset("second minute hour day week month year".split())  # noqa: SIM905  (stems)
_FILLER = frozenset(("of", "to", "at", "is", "was", "by", "reach", "reached", "now"))
_COUNT_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty fifty hundred dozen".split()  # noqa: SIM905
)
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "  # noqa: SIM905
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "million billion dozen half".split()
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december "  # noqa: SIM905
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# The speaker's own words about themselves: "User", "I", "my" name no subject of their own.
_SELF = frozenset({"user", "i", "me", "my", "mine", "we", "our", "us"})

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
    changed: frozenset[tuple[str, str]] = frozenset()  # (a word of what changed, its new value): see _CHANGED_TO
    moved: bool = False  # says the event changed ("rescheduled", "moved", "extended")
    timed: bool = False  # its time of day is known (a captured bullet's stamp): when[1] is that minute

    @cached_property
    def units(self) -> frozenset[str]:
        """What its amounts count ("card" of "10 cards"): words of the attribute, though read with a number. Read
        once per fact: the pairwise loop of :func:`supersessions` asks for it several times per pair."""
        return frozenset(u for _, u in self.amounts)


@dataclass(frozen=True)
class Supersession:
    """``seq`` was superseded by ``by`` (the later fact of its group) on ``day``."""

    seq: int
    by: int
    day: str  # the superseding fact's day: this one held until then
    when: tuple[str, int, str, int]  # this one's own time (Said.when)
    also: frozenset[int] = frozenset()  # the other later facts about the same thing (each shown before it)


def asks_for_past(query: str) -> bool:
    """Whether a question asks for an earlier value ("initially", "before", "when I started", "previous")
    rather than the present one (present tense, "now", "current", "still", or no time word at all)."""
    return bool(_PAST.search(query))


def _stem(word: str) -> str:
    """A word less a plural's s, cut to its first six letters: "cards" and "card" alike, "projects" and "project",
    but not "final" and "finalization" (five letters made those one word)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:6]


def _split(content: str) -> tuple[frozenset[str], frozenset[str]]:
    """(frame, values) of a fact's text: see :class:`Said`."""
    values: set[str] = set()
    for num in _NUMBER.finditer(content):
        values.add(re.sub(r"\s+", "", num.group().lower()).replace(",", ""))
    chosen = set()  # what is used or switched to is a value, written as a name or not ("switched to hack")
    verbs = set()  # ... and using it, or switching to it, one frame word: "use" (the choice is the attribute)
    for m in _CHOICE.finditer(content):
        verbs.add(_stem((m.group("verb") or m.group("switch")).lower()))
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
        if low in _NUMBER_WORDS or low in _MONTHS:
            values.add(low)
        elif low in STOPWORDS or low in _SELF or len(low) < 3:
            continue
        elif w[:1].isupper() and i > 0 and not w.isupper():
            values.add(low)  # a name inside the text: "switched to Garmin"
        else:
            frame.add(_stem(low))
    if verbs:
        frame = (frame - verbs) | {"use"}
    return frozenset(frame), frozenset(values)


def read(
    seq: int, content: str, day: str | None, path: str, line: int, mentions: Sequence[tuple[str, str]]
) -> Said | None:
    """A fact as supersession reads it, or None when it has no day (a page written by hand has no time)."""
    if not day:
        return None
    minute, subjects, frame, values, update, amounts, days, moved = _reading(content, tuple(mentions))
    timed = PROVENANCE.search(content) is not None
    dates, changed = _changes(content)
    return Said(
        seq,
        (day, minute, path, line),
        subjects,
        frame,
        values,
        update,
        amounts,
        days=days,
        dates=dates,
        changed=changed,
        moved=moved,
        timed=timed,
    )


@functools.lru_cache(maxsize=8192)
def _changes(content: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """The days a text names and what it says changed to what (:attr:`Said.dates`, :attr:`Said.changed`)."""
    content = _DATED.sub("", content)
    dates = {
        f"{d.group('month')[:3].lower()} {int(d.group('day'))}"
        for d in _DATE.finditer(content)
        if d.group("month").lower() in _MONTHS
    }
    changed: set[tuple[str, str]] = set()
    for m in _CHANGED_TO.finditer(content):
        if m.group("month"):
            if m.group("month").lower() not in _MONTHS:
                continue
            value = f"date:{m.group('month')[:3].lower()} {int(m.group('day'))}"
            unit = ""
        else:
            number = m.group("number").lower().replace(",", "")
            if not (number[0].isdigit() or number in _COUNT_WORDS):
                continue
            kind = "money" if m.group("money") else "number"  # "$75" counts money, "75" what follows it
            value, unit = f"{kind}:{number}", m.group("unit")
        counts = list(itertools.takewhile(lambda w: w.lower() not in STOPWORDS, unit.split()))  # "12 problems to"
        named = content[max(0, m.start() - 30) : m.start()].split()[-2:] + m.group("obj").split()
        for w in named + counts:
            low = w.lower()
            if low.isalpha() and len(low) > 2 and low not in STOPWORDS and low not in _SELF and low not in _MONTHS:
                changed.add((_stem(low), value))
    return frozenset(dates), frozenset(changed)


def read_fact(f: StoredFact) -> Said | None:
    """:func:`read` of a stored fact."""
    return read(f.seq, f.content, f.day, f.path, f.start_line, f.mentions)


@functools.lru_cache(maxsize=8192)
def _reading(
    content: str, mentions: tuple[tuple[str, str], ...]
) -> tuple[int, frozenset[str], frozenset[str], frozenset[str], bool, frozenset[tuple[str, str]], frozenset[str], bool]:
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
        if month in _MONTHS:
            days.add(f"{month[:3]} {int(on.group('day') or on.group('day2'))}")
    who = normalize_name(m.group("who")) if m is not None else ""
    # The subject: the entity the text opens with ("Dana's team has 6 engineers", "Peter lives in Porto"), else
    # the speaker of a captured bullet (what "User uses Garmin now" names is what is said of the speaker), else
    # the entities a bullet written by hand mentions (a stopword such as "@Is" names nothing).
    norms = [norm for norm, _ in mentions if norm not in STOPWORDS and norm not in _SELF]
    first = _OPENING.match(content.lstrip())
    opener = normalize_name(first.group(1)) if first else ""
    subjects = frozenset({opener}) if opener in norms else frozenset({who}) if who else frozenset(norms)
    frame, values = _split(content)
    names = {_stem(n) for n in norms}
    frame = frozenset(w for w in frame if w not in names)
    low = content.lower()
    update = any(p in low for p in _UPDATE_PHRASES) or not _UPDATE_WORDS.isdisjoint(_WORD.findall(low))
    moved = not _MOVED.isdisjoint(_WORD.findall(low))
    return minute, subjects, frame, values, update, amounts_of(content), frozenset(days), moved


def amounts_of(text: str) -> frozenset[tuple[str, str]]:
    """The amounts a text states, each as (number, what it counts): the word after the number ("10 cards",
    "78%", "5th project") and the one or two before it ("level 150", "team of 4", "species count to 32"), as
    stems; a stopword, a name ("Sprint 3"), a date, a clock time or a version counts nothing."""
    out: set[tuple[str, str]] = set()
    for m in _TOKEN.finditer(text):
        token = m.group()
        number = _LEADING.fullmatch(token)
        if (number is None and token.lower() not in _COUNT_WORDS) or (m.start() and text[m.start() - 1] == "."):
            continue  # not a number, or a version's later part ("v1.2")
        if number is not None and number.group(1).count(".") > 1:
            continue  # a version names a release, it counts nothing ("Bootstrap 5.3.0 cards")
        n = (number.group(1) if number else token).lower().replace(",", "")
        if ":" in n or text[m.end() : m.end() + 1] == "/" or (m.start() and text[m.start() - 1] == "/"):
            continue  # a clock time ("9:30 PM"), a score ("3:1") or a fraction ("1/4") counts nothing
        suffix = number.group(2).lower() if number else ""
        if len(suffix) == 1 and suffix not in ("k", "m", "b"):
            continue  # "2x", "3a": a term of a formula or a label, not an amount ("10k", "5m", "2b" are)
        goal = "goal:" if _GOAL.search(text, max(0, m.start() - 40), m.start()) else ""
        if m.start() and _CURRENCY.match(text, m.start() - 1):
            goal += "$:"  # money: "$75 book budget" counts no books ("three books" does)
        if suffix and suffix not in ("st", "nd", "rd", "th"):
            out.add((n, goal + _stem(suffix)))  # "250ms", "78kg"
            continue
        after = _AFTER.match(text, m.end(), m.end() + 80)
        words = _CURRENCY.sub(" ", text[max(0, m.start() - 60) : m.start()]).split()  # "budget to $450"
        if (words and words[-1].lower() in _MONTHS) or (after and after.group(1).lower() in _MONTHS):
            continue  # a date ("June 5", "13 May") counts nothing
        while words and words[-1].lower() in _FILLER:
            words.pop()
        # the word before, and the one before that: "team of 4", "my total species count to 32"
        before = [w for w in words[-2:] if w.isalpha() and 2 <= len(w) <= 20]
        if (
            not before
            or before[-1] != words[-1]
            or before[-1].lower() in STOPWORDS
            or before[-1][0].isupper()
            or before[-1].lower().endswith("ed")
        ):
            before = []  # "per day and 78%": the word just before counts nothing, nor does the one before it;
            # "Sprint 3", "Bootstrap 5": a name with its number is a name; "allocated $4,000", "completed 14
            # problems": a verb says what was done with the amount, not what it counts
        for word in (after.group(1) if after else "", *reversed(before)):
            low = word.lower()
            if low == "%" or (low and low not in STOPWORDS and low not in _SELF):
                out.add((n, goal + _stem(low)))
    return frozenset(out)


def question(query: str) -> Said:
    """A question read as a fact is (its words, the values and amounts it names), to anchor :func:`same_thing`;
    "how long" asks for a duration, so the units of time are words it names."""
    frame, values = _split(query)
    if _HOW_LONG.search(query):
        frame |= _DURATIONS
    return Said(-1, ("", 0, "", 0), frozenset(), frame, values, False, amounts_of(query))


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
    if a.days and b.days and not a.days & b.days and not (b if b.when > a.when else a).moved:
        return False  # "declined the offer on June 6", then "declined the offer on July 9": two events
    if asked is not None and max(len(a.frame), len(b.frame)) <= MAX_FRAME:
        # Both answer the question with other counts of what it asks about ("how many cards": "8 cards", "10
        # cards"), and share another of its words ("project"): a count of something else ("3 times a week" for
        # "how many times have I worn my new shoes") or of it elsewhere ("5 days before the deadline") is not.
        wanted = asked.frame | asked.values
        apart = frozenset(u.removeprefix("goal:").removeprefix("$:") for u in _counted_apart(a, b))
        counted = apart & wanted
        anchor = (a.frame | a.values) & (b.frame | b.values) & wanted - apart - _UPDATE_WORDS - _MONTHS
        # one more word of the question when the later says it changed ("now I have 10 cards"), two when not;
        # a measure the question need not name ("250ms" for "what is the response time") takes two
        said_changed = (b if b.when > a.when else a).update
        # Said in one conversation, two counts of a thing the question asks about need not be said in words alike
        # ("12 hours of overtime in February", then half an hour later "got it down to just 4 hours")
        alike = close(a, b) or len(a.frame & b.frame) >= ASKED_OVERLAP * len(a.frame | b.frame)
        if alike and (
            (counted and len(anchor) >= ANCHOR - said_changed) or (apart & _MEASURES and len(anchor) >= ANCHOR)
        ):
            return True
        if _changed_from(*((a, b) if b.when > a.when else (b, a)), wanted):
            return True
    if a.values == b.values or not (a.values and b.values):
        return False  # the same values (a restatement), or none to tell them apart
    if max(len(a.frame), len(b.frame)) > MAX_FRAME:
        return False
    # Words alike are not enough: two plans, two trips, two meals are alike and both true. The later one must
    # say it changed ("now", "switched", "so far"), or the two must count one thing differently.
    update = (b if b.when > a.when else a).update
    if not (update or _counts_differ(a, b)):
        return False
    if update and a.frame == b.frame == {"use"}:
        return True  # a choice and nothing more: "I use victor mono", then "switched to hack"
    # Vectors alike do not stand in for words alike: on BEAM tune, of the 12 joins shown that only the vectors
    # (cosine >= 0.8) made, 4 joined different things ("the probability of an even roll" and "study sessions
    # extended to 4 hours") and 3 more were doubtful.
    shared = len(a.frame & b.frame)
    return shared >= MIN_SHARED - update and shared / len(a.frame | b.frame) >= OVERLAP


def _changed_from(earlier: Said, later: Said, wanted: frozenset[str]) -> bool:
    """Whether ``later`` says that what ``earlier`` states changed to another value, of what the question asks
    about: "the deadline is May 10", then "the deadline was extended to May 20" (another day); "after 8
    problems", then "increased my practice to 12 probability problems" (another count of a word it counts).
    ``ANCHOR`` other words of the question must be in both: "the scholarship deadline on May 15" and "the visa
    application" are not the role application whose deadline was extended."""
    for word, value in later.changed:
        if word not in wanted:
            continue
        kind, new = value.split(":", 1)
        if kind == "date":
            before = earlier.dates if word in earlier.frame else frozenset()
        else:
            unit = "$:" + word if kind == "money" else word
            before = frozenset(n for n, u in earlier.amounts if u.removeprefix("goal:") == unit)
        if not before or new in before:
            continue
        shared = (earlier.frame | earlier.values) & (later.frame | later.values) & wanted
        if len(shared - {word} - _UPDATE_WORDS - _MONTHS) >= ANCHOR:
            return True
    return False


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
    """What ``a`` and ``b`` both count (the units), each with other numbers."""
    units = a.units & b.units
    return frozenset(u for u in units if {n for n, v in a.amounts if v == u} != {n for n, v in b.amounts if v == u})


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
            out[said[i].seq] = Supersession(said[i].seq, by.seq, by.when[0], said[i].when, also)
    return out


def of_facts(facts: Iterable[StoredFact]) -> dict[int, Supersession]:
    """:func:`supersessions` among ``facts`` (stored facts, no question to anchor them)."""
    said = [read_fact(f) for f in facts]
    return supersessions([s for s in said if s is not None])


UPDATES_READ = 400  # an entity's latest facts read for its updates (pairs: UPDATES_READ² / 2)


def updates(facts: Iterable[StoredFact]) -> list[dict[str, Any]]:
    """The supersessions among an entity's facts, oldest first, each saying what superseded it and when: what
    ``memlane timeline`` and the web view show, so a person sees why and can edit the Markdown fact."""
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


def passage_order(passages: Sequence[Sequence[StoredFact]], query: str) -> list[int]:
    """The order to show passages in (each given as the facts on its lines, best first), for a question about the
    present: a passage holding what superseded a fact of a better-ranked one comes right before it (the current
    value first, the earlier next to it), and a passage whose facts were all superseded comes after the rest."""
    if asks_for_past(query):
        return list(range(len(passages)))
    every = {f.seq: f for facts in passages for f in facts}
    said = [s for s in (read_fact(f) for f in every.values()) if s is not None]
    asked = question(query)
    found = unnamed(supersessions(said, asked), said, asked)
    where: dict[int, int] = {}
    for i, facts in enumerate(passages):
        for f in facts:
            where.setdefault(f.seq, i)
    pulls: dict[int, set[int]] = {}  # a passage -> the later passages holding what superseded its facts
    for seq, sup in found.items():
        i, j = where[seq], where.get(sup.by)
        if j is not None and j > i:
            pulls.setdefault(i, set()).add(j)
    stale = {i for i, facts in enumerate(passages) if facts and all(f.seq in found for f in facts)}
    out: list[int] = []
    placed: set[int] = set()
    for i in range(len(passages)):
        for j in [*sorted(pulls.get(i, set()) - stale), i]:
            if j not in placed:
                out.append(j)
                placed.add(j)
    return [i for i in out if i not in stale] + [i for i in out if i in stale]


def unnamed(found: dict[int, Supersession], said: Sequence[Said], asked: Said) -> dict[int, Supersession]:
    """``found`` less the groups the question picks a member of by a number it names (:func:`named_apart`):
    "fact number 17", "did I pay 30 euros" are answered by that fact, not moved aside."""
    if not asked.amounts:
        return found
    of = {s.seq: s for s in said}
    told = {sup.by for seq, sup in found.items() if named_apart(of[seq], of[sup.by], asked)}
    return {seq: sup for seq, sup in found.items() if sup.by not in told}


def current_first(results: list[SearchResult], facts: FactIndex, query: str) -> list[SearchResult]:
    """``results`` (the daily logs of days after ``now`` already left out by the search's ranking) in the order
    :func:`passage_order` gives, for a question about the present."""
    if len(results) < 2 or asks_for_past(query):  # nothing to reorder: no file's facts are read
        return results
    files = {r.path: facts.of_path(r.path) for r in results if r.agent is None}
    passages = [
        [f for f in files.get(r.path, ()) if r.start_line <= f.start_line <= r.end_line] if r.agent is None else []
        for r in results
    ]
    return [results[i] for i in passage_order(passages, query)]


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
