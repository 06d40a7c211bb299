"""What a fact's numbers are: the amounts it states and what each counts ("12 conditional probability problems"),
measures ("250ms", "1 GB"), aims ("a goal of 12", "under 300ms"), and the days of months it names ("May 20",
"the May 11-12 weekend"), which count nothing. Read from the text alone, for :mod:`memlane.facts.reading`.
"""

from __future__ import annotations

import functools
import re

from ..text.keywords import STOPWORDS

# A day of a month, or a range of days: "May 20", "May 11-12", "the 6th of June", "6-7 June". A date, not a
# count: "the May 20 event" counts no events, its 20 is a day. A month is one only capitalised or in capitals
# ("I may 2x it", "I will march 20 miles" and a lower-case "jan 3" name none: review 7, L3).
_MONTHS_WRITTEN = (
    "Jan(?:uary)?",
    "Feb(?:ruary)?",
    "Mar(?:ch)?",
    "Apr(?:il)?",
    "May",
    "June?",
    "July?",
    "Aug(?:ust)?",
    "Sep(?:t(?:ember)?)?",
    "Oct(?:ober)?",
    "Nov(?:ember)?",
    "Dec(?:ember)?",
)
_MONTH_NAME = "(?:" + "|".join(f"{m}|{m.upper()}" for m in _MONTHS_WRITTEN) + r")\b"
_ORDINAL = r"(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(
    rf"\b(?P<month>{_MONTH_NAME})\.?\s+(?P<day>\d{{1,2}}){_ORDINAL}(?:\s*[-–]\s*(?P<last>\d{{1,2}}){_ORDINAL})?(?!\d|:\d)"
    rf"|\b(?P<day2>\d{{1,2}}){_ORDINAL}(?:\s*[-–]\s*(?P<last2>\d{{1,2}}){_ORDINAL})?\s+(?:of\s+)?(?P<month2>{_MONTH_NAME})"
)
_CURRENCY = re.compile(r"[$€£¥]")  # a sign before an amount: the word before the sign is the word before it
# A number and the word it counts or measures: "10 cards", "1,200 calls", "78%", "250ms", "six people", "level
# 150", "team of 4". The number is found first; the words beside it are read from the text around it.
_TOKEN = re.compile(r"[^\W_]+(?:[.,:]\d+)*")
_LEADING = re.compile(r"(\d++(?:[.,:]\d++)*+)([^\W\d_]{0,5})")  # a whole token: fullmatch
_AFTER = re.compile(
    r"\s?(?:(?:new|more|extra|additional|total|other|of|full|different|(?![Jj]uly\s|[Ff]amily\s|[Ii]taly\s)[^\W\d_]{2,20}ly)\s){0,2}(%|[^\W\d_]{1,20})",
    re.IGNORECASE,
)
# Units of measurement: "250ms" answers "what is the response time" without the question naming the unit.
MEASURES = frozenset("ms kg km mb gb tb kb hz mhz ghz mph kph lb oz ml cm mm fps rpm kw kwh".split())  # noqa: SIM905
# A bound or an aim before a number: "under 300ms", "aiming for 10 books", "a goal of 12". What someone aims
# at is another thing than what is ("around 220ms", "finished 11 books"): its unit reads "goal:ms".
_GOAL = re.compile(
    r"\b(?:under|below|within|at most|up to|less than|no more than|aim(?:s|ed|ing)?|goals?|targets?|"
    r"hop(?:e|es|ing) to|plan(?:s|ned|ning)? to|want(?:s|ed)? to|tr(?:y|ies|ying) to|need(?:s|ed)? to)\s+"
    r"(?:(?:of|for|to|is|at)\s+)?(?:[^\W\d_]+\s+){0,2}[$€£]?$|\bsub-$",
    re.IGNORECASE,
)
# What someone sets out to do with a number: "to gather 15 articles", "decided to dedicate 2 hours", "to save
# $500". An aim, like a goal; not a name with its number ("upgrade to version 2") nor a bound ("to around 7"),
# nor what was done ("managed to spot 27 species", "was able to run 5 miles").
_TO_DO = re.compile(
    r"(?<!\bmanaged )(?<!\bable )(?<!\bgot )(?<!\bused )(?<!\bstarted )(?<!\bwent )(?<!\bhad )(?<!\bhas )"
    r"(?<!\bhave )(?<!\bneeded )\bto\s+([a-z]{3,20})\s+[$€£]?$",
    re.I,
)
_NOT_DOING = frozenset(
    "around roughly nearly almost approximately exactly least most max maximum min minimum version level page step "  # noqa: SIM905
    "chapter room grade size number zone plan tier stage phase round season episode".split()
)
# Units of one measure, each as megabytes: "512MB", then "1GB" is the same setting changed.
_BYTES = {"kb": 1 / 1024, "mb": 1.0, "gb": 1024.0, "tb": 1024.0**2}
_FILLER = frozenset(("of", "to", "at", "is", "was", "by", "reach", "reached", "now"))
COUNT_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty fifty hundred dozen".split()  # noqa: SIM905
)
MONTHS = frozenset(
    "january february march april may june july august september october november december "  # noqa: SIM905
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# The speaker's own words about themselves: "User", "I", "my" name no subject of their own.
SELF = frozenset({"user", "i", "me", "my", "mine", "we", "our", "us"})


def stem(word: str) -> str:
    """A word less a plural's s, cut to its first six letters: "cards" and "card" alike, "projects" and "project",
    but not "final" and "finalization" (five letters made those one word)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:6]


@functools.lru_cache(maxsize=8192)
def month_days(text: str) -> tuple[tuple[int, int, int, tuple[str, ...]], ...]:
    """The days of months a text names, each as where it opens, (start, end) of its numbers and the days ("may
    11", "may 12" of "May 11-12"; a range of more than a month's days is read as its first day). Kept per text:
    a fact's values, amounts and event days all ask for them. A text with no digit names none (not scanned)."""
    if not any(c.isdigit() for c in text):
        return ()
    out = []
    for m in _MONTH_DAY.finditer(text):
        month = (m.group("month") or m.group("month2")).lower()[:3]
        first = int(m.group("day") or m.group("day2"))
        if not 1 <= first <= 31:
            continue  # "May 45 people": no day of a month, a number
        last = int(m.group("last") or m.group("last2") or first)
        span = (m.start("day"), m.end()) if m.group("day") else (m.start(), m.start("month2"))
        days = range(first, last + 1) if first <= last <= 31 else range(first, first + 1)
        out.append((m.start(), *span, tuple(f"{month} {d}" for d in days)))
    return tuple(out)


def _month(word: str) -> bool:
    """A month's name, written as one: capitalised or in capitals ("June", "JUNE"; not "march" or "may")."""
    return word[:1].isupper() and word.lower() in MONTHS


def event_days(text: str) -> set[str]:
    """The days of events a text names other than "on <day>" (``_ON_DAY``): a range of days ("April 6-7", "the May
    11-12 weekend"). One day named before an event ("the June 6 wedding") is not read as its day: "our wedding is
    now on June 13" moves it (review 7, M7), and no dev pair needed it."""
    out: set[str] = set()
    for _, _, _, days in month_days(text):
        if len(days) > 1:
            out.update(days)
    return out


def amounts_of(text: str) -> frozenset[tuple[str, str]]:
    """The amounts a text states, each as (number, a word of what it counts): the words after the number up to a
    stopword ("10 cards", "78%", "5th project", "12 conditional probability problems"), else the one or two
    before it ("level 150", "team of 4", "species count to 32"), as stems; a stopword, a name ("Sprint 3"), a
    date, a clock time or a version counts nothing."""
    return frozenset((n, unit) for n, units in phrases_of(text) for unit in units)


def phrases_of(text: str) -> frozenset[tuple[str, frozenset[str]]]:
    """The amounts a text states, each as (number, the words of what it counts): see :func:`amounts_of`."""
    out: set[tuple[str, frozenset[str]]] = set()
    dated = {i for _, start, end, _ in month_days(text) for i in range(start, end)}
    for m in _TOKEN.finditer(text):
        if m.start() in dated:
            continue  # a day of a month, or the last day of a range ("the May 11-12 weekend") counts nothing
        token = m.group()
        number = _LEADING.fullmatch(token)
        if (number is None and token.lower() not in COUNT_WORDS) or (m.start() and text[m.start() - 1] == "."):
            continue  # not a number, or a version's later part ("v1.2")
        if number is not None and number.group(1).count(".") > 1:
            continue  # a version names a release, it counts nothing ("Bootstrap 5.3.0 cards")
        n = (number.group(1) if number else token).lower().replace(",", "")
        if ":" in n or text[m.end() : m.end() + 1] == "/" or (m.start() and text[m.start() - 1] == "/"):
            continue  # a clock time ("9:30 PM"), a score ("3:1") or a fraction ("1/4") counts nothing
        suffix = number.group(2).lower() if number else ""
        if len(suffix) == 1 and suffix not in ("k", "m", "b"):
            continue  # "2x", "3a": a term of a formula or a label, not an amount ("10k", "5m", "2b" are)
        to_do = _TO_DO.search(text, max(0, m.start() - 30), m.start())
        aim = to_do is not None and to_do.group(1) not in _NOT_DOING and to_do.group(1) not in STOPWORDS
        goal = (
            "goal:" if aim or _GOAL.search(text, max(0, m.start() - 40), m.start()) or _named_aim(text, m.end()) else ""
        )
        if m.start() and _CURRENCY.match(text, m.start() - 1):
            goal += "$:"  # money: "$75 book budget" counts no books ("three books" does)
        if suffix and suffix not in ("st", "nd", "rd", "th"):
            value, unit = _measure(n, suffix)
            out.add((value, frozenset({goal + unit})))  # "250ms", "78kg"
            continue
        after = _AFTER.match(text, m.end(), m.end() + 80)
        if after and after.group(1).lower() in _BYTES:
            value, unit = _measure(n, after.group(1).lower())
            out.add((value, frozenset({goal + unit})))  # "1 GB"
            continue
        words = _CURRENCY.sub(" ", text[max(0, m.start() - 60) : m.start()]).split()  # "budget to $450"
        if (words and _month(words[-1])) or (after and _month(after.group(1))):
            continue  # a date ("June 5", "13 May") counts nothing
        direct = bool(words) and words[-1].lower() not in _FILLER  # nothing between the word and the number
        while words and words[-1].lower() in _FILLER:
            words.pop()
        # the word before, and the one before that: "team of 4", "my total species count to 32"
        before = [w for w in words[-2:] if w.isalpha() and 2 <= len(w) <= 20]
        if (
            not before
            or before[-1] != words[-1]
            or before[-1].lower() in STOPWORDS
            or before[-1][0].isupper()
            or (direct and before[-1].lower().endswith(("ed", "ing")))
        ):
            before = []  # "per day and 78%": the word just before counts nothing, nor does the one before it;
            # "Sprint 3", "Bootstrap 5": a name with its number is a name; "allocated $4,000", "completed 14
            # problems", "completing 8 problems": a verb right before the amount says what was done with it, not
            # what it counts ("my rating is 1450", "spending was 400": a noun, with a word between)
        counted = _phrase(text, after) if after else []
        units = frozenset(  # the words before count when none after does: "team of 4"
            goal + stem(low)
            for low in (word.lower() for word in counted or reversed(before))
            if low == "%" or (low and low not in STOPWORDS and low not in SELF)
        )
        if units:
            out.add((n, units))
    return frozenset(out)


_NEXT_WORD = re.compile(r" ([^\W\d_]{2,20})\b")
_AIM_NOUNS = frozenset("sla slas slo slos target targets goal goals".split())  # noqa: SIM905


def _named_aim(text: str, end: int) -> bool:
    """Whether the words right after a number, up to a stopword, end in a name of an aim: "our 300ms response time
    SLA", "a 200ms target" (what is aimed at, not what was measured)."""
    for _ in range(5):
        nxt = _NEXT_WORD.match(text, end)
        if nxt is None or nxt.group(1).lower() in STOPWORDS:
            return False
        if nxt.group(1).lower() in _AIM_NOUNS:
            return True
        end = nxt.end()
    return False


# Words in -ly that are no adverb: a number's phrase reads them as what it counts ("4 July tickets", "3 family trips")
_LY_NOUNS = frozenset("july family italy supply assembly butterfly dragonfly rally ally belly jelly lily reply".split())  # noqa: SIM905


def adverb(low: str) -> bool:
    """A word in -ly that says how (often): "weekly", "monthly", "roughly"; not "July" or "family"."""
    return low.endswith("ly") and low not in _LY_NOUNS and low not in STOPWORDS


_PHRASE_END = frozenset("across per since until total along toward towards versus via".split())  # noqa: SIM905


def _counted_word(low: str) -> bool:
    """A word a number may count: no stopword, month, pronoun of the speaker's, adverb or word in -ing."""
    return low.isalpha() and not (
        low in STOPWORDS or low in MONTHS or low in SELF or adverb(low) or low.endswith("ing")
    )


def _phrase(text: str, after: re.Match[str]) -> list[str]:
    """The words a number counts, read from its first (``after``, see ``_AFTER``) up to three, to the first
    stopword, month, punctuation or word in -ing: "12 conditional probability problems" counts all three, so it is
    no count of "10 practice sessions"; "$550 monthly starting ..." counts nothing (-ly words are how often)."""
    first = after.group(1)
    low = first.lower()
    end = after.end()
    if low.endswith("ing") and low not in STOPWORDS:
        # "25 supporting documents", "10 remaining tasks": an adjective in -ing before what is counted; "$550
        # starting September", "8 people including family": a verb after the count, which counts nothing
        nxt = _NEXT_WORD.match(text, end)
        if nxt is None or not _counted_word(nxt.group(1).lower()):
            return []
        first, end = nxt.group(1), nxt.end()
        low = first.lower()
    if low != "%" and (low in STOPWORDS or low in SELF or adverb(low) or low.endswith("ing")):
        return []
    words = [first]
    while len(words) < 3 and first != "%":
        nxt = _NEXT_WORD.match(text, end)
        if nxt is None:
            break
        low = nxt.group(1).lower()
        end = nxt.end()
        if adverb(low):
            continue  # "10 hours weekly for me": hours
        if low in _PHRASE_END or low in STOPWORDS or low in MONTHS or low in SELF or low.endswith("ing"):
            break
        words.append(nxt.group(1))
    return words


def _measure(number: str, unit: str) -> tuple[str, str]:
    """A number with a unit of measurement attached, as (number, unit): sizes in megabytes, so "512MB" and "1GB"
    are one measure ("0.5GB" and "512MB" one value), the rest as written ("250ms", "78kg")."""
    scale = _BYTES.get(unit)
    if scale is None:
        return number, stem(unit)
    try:
        return f"{float(number.replace(',', '')) * scale:g}", "mb"
    except ValueError:
        return number, "mb"
