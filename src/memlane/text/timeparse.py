"""Time expressions in facts and queries, resolved to date ranges.

A fact's *day* is its daily log's date. A date or range written in the fact ("Nov 27–Dec 1, 2025",
"2025-11-27", "in March 2026", "last week") becomes its *event time*, read relative to that day. A
query's time words ("last week", "in May 2023", "around Nov 27", "since March") become a window read
relative to ``now``.

Who does what: the patterns below find the spans (free-text date search finds dates in ordinary
words: "May and I" is not May); ``dateparser`` resolves each span ("2 weeks ago", "next Sunday",
"27th of November", "2025-11") to a date and a granularity; this module turns the granularity into a
whole range (a month alone is the whole month, a year the whole year, "last week" Monday to Sunday),
joins ranges ("Nov 27–Dec 1, 2025", "27-30 Nov"), fills a missing year (nearest to the day for facts,
most recent for queries), and covers what dateparser leaves out ("last March", "a few days ago",
"last weekend", "early March"). docs/DESIGN.md lists what is and is not understood.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..errors import quoted

Prefer = Literal["past", "nearest"]
Relation = Literal["in", "since", "until", "before", "after", "around"]

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d{2}"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_NUM = (
    r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|a\s+few|few|several|a\s+couple\s+of|couple\s+of|a\s+couple)"
)
_PART = r"(?:(?:early|mid|late)[\s-]+)?"
_PREP = r"since|until|till|before|after|around|about|in|on|during|from|through|by|as\s+of"
_ORDINAL = r"(?:first|1st|second|2nd|third|3rd|fourth|4th|last|final)"
_EDGE = r"(?:the\s+)?(?:beginning|start|end|middle)\s+of\s+(?:the\s+)?"
_SEASON = r"(?:spring|summer|fall|autumn|winter)"

_SPAN = re.compile(
    rf"""
    (?P<prep>\b(?:{_PREP})\s+)?
    (?:
        (?P<wof>\b(?:the\s+)?{_ORDINAL}\s+week(?:end)?\s+of\s+{_MONTH}\b\.?(?:,?\s+{_YEAR}\b)?)
      | (?P<edge>\b{_EDGE}(?:{_MONTH}|{_SEASON})\b\.?(?:,?\s+(?:of\s+)?{_YEAR}\b)?)
      | (?P<season>\b{_PART}(?:the\s+)?{_SEASON}\s+(?:of\s+)?{_YEAR}\b)
      | (?P<iso>(?<![/\w.-])\d{{4}}[-/]\d{{1,2}}[-/]\d{{1,2}}\b(?!\.md))
      | (?P<ym>(?<![/\w.-])\d{{4}}-(?:0[1-9]|1[0-2])\b(?![-/]\d|\.md))
      | (?P<md>\b{_MONTH}\.?\s+{_DAY}\b(?!:)(?:,?\s+{_YEAR}\b)?)
      | (?P<dm>\b{_DAY}\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+{_YEAR}\b)?)
      | (?P<my>\b{_PART}{_MONTH}\.?,?\s+{_YEAR}\b)
      | (?P<ago>\b{_NUM}\s+(?:day|week|month|year)s?\s+ago\b)
      | (?P<rel>\b(?:last|this|next|past|previous|coming)\s+(?:week(?:end)?|month|year|{_WEEKDAY}|{_MONTH})\b)
      | (?P<word>\b(?:the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|today|tonight|yesterday|tomorrow)\b)
      | (?P<bare>\b{_PART}(?:{_MONTH}|{_WEEKDAY})\b|\b{_YEAR}\b)
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)
_RANGE_JOIN = re.compile(r"^\s*(?:–|—|-|to|until|till|through|thru|and)\s*$", re.IGNORECASE)
_TAIL_DAY = re.compile(
    rf"^\s*(?:–|—|-|to|until|through|thru)\s*(?P<day>{_DAY})\b(?!\s*{_MONTH})(?:,?\s+(?P<year>{_YEAR})\b)?", re.I
)
_HEAD_DAY = re.compile(rf"\b(?P<day>{_DAY})\s*(?:–|—|-|to)\s*$", re.IGNORECASE)
_YEAR_IN = re.compile(rf"\b{_YEAR}\b")
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_WORD_NUMBERS |= {"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_FAR_PAST = dt.date(1, 1, 1)
REPORT_LAG_DAYS = 10  # a log tells what happened in the days before it: "yesterday we got back from Rio"
_KINDS = ("wof", "edge", "season", "iso", "ym", "md", "dm", "my", "ago", "rel", "word", "bare")
# "the week before 16 November 2023", "two days after the party on May 3": a span before or after a date.
_NEXT_TO = re.compile(
    r"(?:\bthe|\b(\d{1,2}|a|an|one|two|three|four|five|six|seven))\s+(day|week(?:end)?|month|year)s?\s*$", re.I
)
# How far before or after a date its range words are looked for ("27-" of "27-30 Nov", "two weeks" of
# "two weeks before May 3"): a window, not the whole text, so a long text with many dates stays linear.
_NEAR = 64
# A fact or a question names a few dates; past this many the rest of a text is not read for dates, so
# that a hostile line of thousands (each one a dateparser call of milliseconds) costs no more than this.
MAX_MENTIONS = 32
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "fall": (9, 11), "autumn": (9, 11), "winter": (12, 14)}


@dataclass(frozen=True, slots=True)
class TimeRange:
    """Whole days, both ends included."""

    start: dt.date
    end: dt.date

    def overlaps(self, other: TimeRange) -> bool:
        return self.start <= other.end and other.start <= self.end

    def contains(self, day: dt.date) -> bool:
        return self.start <= day <= self.end

    def union(self, other: TimeRange) -> TimeRange:
        return TimeRange(min(self.start, other.start), max(self.end, other.end))

    def reported(self, day: dt.date) -> float:
        """How well a note written on ``day`` may tell of this window: 1 inside it, fading to 0 over the
        ``REPORT_LAG_DAYS`` after it (a log tells what happened in the days before it), else 0."""
        if self.contains(day):
            return 1.0
        late = (day - self.end).days
        return 1 - late / (REPORT_LAG_DAYS + 1) if 0 < late <= REPORT_LAG_DAYS else 0.0

    def to_dict(self) -> dict[str, str]:
        return {"start": self.start.isoformat(), "end": self.end.isoformat()}

    def __str__(self) -> str:
        if self.start == self.end:
            return self.start.isoformat()
        return f"{'…' if self.start == _FAR_PAST else self.start.isoformat()}..{self.end.isoformat()}"


@dataclass(frozen=True, slots=True)
class TimeMention:
    text: str  # as written, preposition included
    start: int  # offsets in the text
    end: int
    range: TimeRange  # what the date itself covers
    relation: Relation  # from the preposition: "since March", "before June", "around Nov 27"
    relative: bool = False  # "last week", "yesterday", "3 days ago", "on Sunday": no words a text would share


def _month_range(year: int, month: int) -> TimeRange:
    first = dt.date(year, month, 1)
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return TimeRange(first, following - dt.timedelta(days=1))


def _week_of(day: dt.date) -> TimeRange:
    monday = day - dt.timedelta(days=day.weekday())
    return TimeRange(monday, monday + dt.timedelta(days=6))


def _period_range(day: dt.date, period: str) -> TimeRange:
    if period == "year":
        return TimeRange(dt.date(day.year, 1, 1), dt.date(day.year, 12, 31))
    if period == "month":
        return _month_range(day.year, day.month)
    if period == "week":
        return _week_of(day)
    return TimeRange(day, day)


_PLAIN_DAY = re.compile(r"(?i)(yesterday|today|tomorrow)|(\d{4})-(\d{2})-(\d{2})")
_PLAIN_REL = re.compile(
    r"(?i)(last|this|next) (week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
)


def _shift_months(day: dt.date, months: int) -> dt.date:
    """``day`` moved by whole months, the day of the month clamped to the month's last (Jan 31 + 1 = Feb 28)."""
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _plain(text: str, base: dt.date) -> tuple[dt.date, str] | None:
    try:
        return _plain_read(text, base)
    except (OverflowError, ValueError):  # past year 1 or 9999: dateparser reads nothing there either
        return None


def _plain_read(text: str, base: dt.date) -> tuple[dt.date, str] | None:
    """The spans people write most, read as dateparser reads them (``tests/text/test_timeparse.py`` holds the two
    equal over years of base days): "yesterday", an ISO date, "last/this/next week|month|year|<weekday>".
    dateparser's first call in a process builds its timezone patterns (~0.4 s), which a hook pays in full."""
    m = _PLAIN_DAY.fullmatch(text)
    if m and m.group(1):
        return base + dt.timedelta(days={"yesterday": -1, "today": 0, "tomorrow": 1}[m.group(1).lower()]), "day"
    if m:  # an impossible date (2023-02-29) raises, and _plain reads nothing
        return dt.date(int(m.group(2)), int(m.group(3)), int(m.group(4))), "day"
    m = _PLAIN_REL.fullmatch(text)
    if m is None:
        return None
    step = {"last": -1, "this": 0, "next": 1}[m.group(1).lower()]
    unit = m.group(2).lower()
    if unit == "week":
        return base + dt.timedelta(days=7 * step), "week"
    if unit in ("month", "year"):
        return _shift_months(base, step * (1 if unit == "month" else 12)), unit
    target = _WEEKDAYS.index(unit)
    if step < 0:  # the latest one before the day
        return base - dt.timedelta(days=(base.weekday() - target) % 7 or 7), "day"
    ahead = (target - base.weekday()) % 7  # this <weekday>: the day itself or the coming one; next: after it
    return base + dt.timedelta(days=ahead or (7 if step > 0 else 0)), "day"


@functools.lru_cache(maxsize=4096)
def _dateparser(text: str, base: dt.date, prefer: Prefer) -> tuple[dt.date, str] | None:
    """dateparser's reading of one span: (date, granularity) or None. Cached: it costs milliseconds, and
    the facts of one log name the same few dates against the same day. The plainest spans skip it."""
    plain = _plain(text, base)
    if plain is not None:
        return plain
    return _dateparser_read(text, base, prefer)


def _dateparser_read(text: str, base: dt.date, prefer: Prefer) -> tuple[dt.date, str] | None:
    from dateparser.date import DateDataParser

    settings = {
        "RELATIVE_BASE": dt.datetime.combine(base, dt.time()),
        "PREFER_DATES_FROM": "past" if prefer == "past" else "current_period",
        "RETURN_TIME_AS_PERIOD": True,
        "STRICT_PARSING": False,
    }
    data = DateDataParser(languages=["en"], settings=settings).get_date_data(text)
    if data.date_obj is None:
        return None
    period = data.period or "day"
    return data.date_obj.date(), ("day" if period == "time" else period)


def _month_number(word: str) -> int:
    return _MONTHS.index(word[:3].lower()) + 1


def _pick_year(month: int, day: int | None, base: dt.date, prefer: Prefer) -> int:
    """The year of a date written without one. Queries (``past``): the latest not after ``base``. Facts
    (``nearest``): the nearest, a future date counting double, since logs mostly tell what happened
    ("in May we went") but also plans ("flying out Dec 3")."""
    best: tuple[float, int] | None = None
    for year in (base.year - 1, base.year, base.year + 1):
        try:
            first = dt.date(year, month, day or 1)
        except ValueError:
            continue
        last = first if day else _month_range(year, month).end
        if last < base:
            distance = (base - last).days
        elif first > base:
            if prefer == "past":
                continue
            distance = 2 * (first - base).days
        else:
            distance = 0
        if best is None or distance < best[0]:
            best = (distance, year)
    return best[1] if best else base.year


def _resolve(kind: str, text: str, base: dt.date | None, prefer: Prefer) -> TimeRange | None:
    """The range one span covers. Without a ``base`` (undated files), only dates with a year resolve."""
    body = re.sub(r"\s+", " ", text.strip())
    has_year = bool(_YEAR_IN.search(body)) or kind in ("iso", "ym")
    if base is None and not has_year:
        return None
    ref = base or dt.date(2000, 1, 1)
    lower = body.lower()
    if kind in ("wof", "edge", "season"):
        return _resolve_part(kind, lower, ref, prefer)
    if kind == "bare" and _YEAR_IN.fullmatch(body):
        year = int(body)
        return TimeRange(dt.date(year, 1, 1), dt.date(year, 12, 31))
    if kind == "ago":
        m = re.match(rf"({_NUM})\s+(day|week|month|year)s?", lower)
        if m and not m.group(1).isdigit() and m.group(1) not in _WORD_NUMBERS:  # "a few / several days ago"
            low, high = (2, 5) if "few" in m.group(1) or "several" in m.group(1) else (2, 3)
            unit = {"day": 1, "week": 7, "month": 30, "year": 365}[m.group(2)]
            return TimeRange(ref - dt.timedelta(days=high * unit), ref - dt.timedelta(days=low * unit))
        if m and m.group(1) in _WORD_NUMBERS:
            body = f"{_WORD_NUMBERS[m.group(1)]} {m.group(2)}s ago"
    if kind == "rel":
        which, what = lower.split()[0], lower.split()[-1]
        step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}[which]
        if what == "weekend":
            saturday = ref + dt.timedelta(days=5 - ref.weekday() + 7 * step)
            return TimeRange(saturday, saturday + dt.timedelta(days=1))
        if re.fullmatch(_MONTH, what):
            month = _month_number(what)
            year = ref.year + (step if step else 0)
            if step == -1 and month < ref.month:
                year = ref.year  # "last March" in November is this year's March
            elif step == 1 and month > ref.month:
                year = ref.year
            return _month_range(year, month)
        body = f"{'last' if step < 0 else 'next' if step > 0 else 'this'} {what}"
    if kind in ("md", "dm", "my", "bare") and not has_year:
        month_word = re.search(_MONTH, lower)
        if month_word and not re.search(_WEEKDAY, lower):
            month = _month_number(month_word.group(0))
            day_m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", lower)
            day = int(day_m.group(1)) if day_m and kind in ("md", "dm") else None
            year = _pick_year(month, day, ref, prefer)
            if day is None:
                return _month_range(year, month)
            try:
                return TimeRange(dt.date(year, month, day), dt.date(year, month, day))
            except ValueError:
                return None
    body = re.sub(r"^(?:early|mid|late)[\s-]+", "", body, flags=re.IGNORECASE)
    parsed = _dateparser(body, ref, prefer)
    if parsed is None:
        return None
    day_value, period = parsed
    if kind == "ym":
        period = "month"
    return _period_range(day_value, period)


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def _weekday(word: str, base: dt.date, relation: Relation) -> TimeRange:
    """A weekday named alone: the coming one after until/by/before ("due by Friday"), else the latest one
    ("on Sunday we went"); the day itself counts either way."""
    target = _WEEKDAYS.index(word.strip().lower())
    if relation in ("until", "before"):
        day = base + dt.timedelta(days=(target - base.weekday()) % 7)
    else:
        day = base - dt.timedelta(days=(base.weekday() - target) % 7)
    return TimeRange(day, day)


def _resolve_part(kind: str, lower: str, ref: dt.date, prefer: Prefer) -> TimeRange | None:
    """A week of a month ("the last week of August 2023"), the start, middle or end of a month or season,
    or a season ("summer 2023": June to August; winter runs December to February)."""
    year_m = _YEAR_IN.search(lower)
    season = re.search(_SEASON, lower)
    if season:
        first, last = _SEASONS[season.group(0)]
        year = int(year_m.group(0)) if year_m else ref.year
        whole = TimeRange(dt.date(year, first, 1), _month_range(year + (last - 1) // 12, (last - 1) % 12 + 1).end)
    else:
        month_m = re.search(_MONTH, lower)
        if month_m is None:
            return None
        month = _month_number(month_m.group(0))
        year = int(year_m.group(0)) if year_m else _pick_year(month, None, ref, prefer)
        whole = _month_range(year, month)
    if kind == "season":
        return whole
    span = (whole.end - whole.start).days + 1
    if kind == "edge":
        third = dt.timedelta(days=span // 3)
        if re.search(r"beginning|start", lower):
            return TimeRange(whole.start, whole.start + third)
        if "end" in lower:
            return TimeRange(whole.end - third, whole.end)
        return TimeRange(whole.start + third, whole.end - third)
    # a week of a month: the first one starts on the 1st, the last one ends on the last day
    if re.search(r"last|final", lower):
        return TimeRange(whole.end - dt.timedelta(days=6), whole.end)
    index = next(i for i, w in enumerate(("first|1st", "second|2nd", "third|3rd", "fourth|4th")) if re.search(w, lower))
    start = whole.start + dt.timedelta(days=7 * index)
    return TimeRange(start, min(start + dt.timedelta(days=6), whole.end))


def _next_to(before: str, rng: TimeRange, relation: Relation) -> TimeRange | None:
    """ "the week before <date>" / "two days after <date>": the span next to the date, else None."""
    m = _NEXT_TO.search(before)
    if m is None or relation not in ("before", "after"):
        return None
    count = m.group(1)
    n = 1 if count is None else int(count) if count.isdigit() else _WORD_NUMBERS.get(count.lower(), 1)
    days = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}[m.group(2).lower()] * n
    if relation == "before":
        return TimeRange(rng.start - dt.timedelta(days=days), rng.start - dt.timedelta(days=1))
    return TimeRange(rng.end + dt.timedelta(days=1), rng.end + dt.timedelta(days=days))


def _relation(prep: str | None) -> Relation:
    word = re.sub(r"\s+", " ", (prep or "").strip().lower())
    if word in ("since", "from"):
        return "since"
    if word in ("until", "till", "by", "as of"):
        return "until"
    if word in ("before", "after"):
        return word  # type: ignore[return-value]
    if word in ("around", "about"):
        return "around"
    return "in"


def _spans(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each date span and its pattern's name. A bare month, weekday or year counts only after a
    preposition ("in May", "on Sunday", "since 2024") or with early/mid/late: "May I" is not a date."""
    for m in _SPAN.finditer(text):
        kind = next(k for k in _KINDS if m.group(k))
        if kind == "bare" and not m.group("prep") and not re.match(r"(?i)(?:early|mid|late)", m.group(kind)):
            continue
        yield m, kind


def find_times(text: str, base: dt.date | None, prefer: Prefer = "nearest") -> list[TimeMention]:
    """The time expressions of ``text`` read relative to ``base``, ranges joined."""
    found = list(itertools.islice(_spans(text), MAX_MENTIONS))
    out: list[TimeMention] = []
    i = 0
    while i < len(found):
        m, kind = found[i]
        body = m.group(kind)
        start, end = m.start(), m.end()
        rng: TimeRange | None = None
        joined = False  # a range: "from March to May" is those months, not "since March"
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is not None and _RANGE_JOIN.match(text[end : nxt[0].start()]) and not nxt[0].group("prep"):
            # "Nov 27–Dec 1, 2025", "from March to May 2026", "between 2024-01-02 and 2024-01-09"
            right_body = nxt[0].group(nxt[1])
            right = _resolve(nxt[1], right_body, base, prefer)
            left_body = body
            year = _YEAR_IN.search(right_body)
            if right is not None and year and not _YEAR_IN.search(body) and kind in ("md", "dm", "bare", "my"):
                left_body = f"{body} {year.group(0)}"
            left = _resolve(kind, left_body, base, prefer)
            if left is not None and right is not None:
                if left.start > right.end and left_body != body:  # "Dec 28–Jan 3, 2026"
                    left = _resolve(kind, f"{body} {int(year.group(0)) - 1}", base, prefer) if year else left
                if left is not None and left.start <= right.end:
                    rng = left.union(right)
                    end = nxt[0].end()
                    i += 1
                    joined = True
        if rng is None and kind in ("md", "my", "dm"):
            tail = _TAIL_DAY.match(text[end : end + _NEAR])
            lead = max(0, start - _NEAR)
            head = _HEAD_DAY.search(text[lead:start]) if kind in ("dm", "my") else None
            if tail and kind == "md":  # "Nov 27-30" / "Nov 27 to 30, 2025"
                month = re.search(_MONTH, body, re.IGNORECASE)
                year_text = tail.group("year") or (_YEAR_IN.search(body) or [None])[0]
                if month:
                    left = _resolve(
                        kind, f"{body} {year_text}" if year_text and not _YEAR_IN.search(body) else body, base, prefer
                    )
                    day = int(re.match(r"\d+", tail.group("day")).group(0))  # type: ignore[union-attr]
                    if left is not None:
                        try:
                            right_day = left.start.replace(day=day)
                            if right_day >= left.start:
                                rng = TimeRange(left.start, right_day)
                                end += tail.end()
                        except ValueError:
                            pass
            elif head:  # "27-30 Nov 2025"
                right = _resolve(kind, body, base, prefer)
                day = int(re.match(r"\d+", head.group("day")).group(0))  # type: ignore[union-attr]
                if right is not None:
                    try:
                        left_day = right.start.replace(day=day)
                        if left_day <= right.end:
                            rng = TimeRange(left_day, right.end)
                            start = lead + head.start()
                    except ValueError:
                        pass
        if rng is None and kind == "bare" and base is not None and re.fullmatch(rf"(?i){_WEEKDAY}", body.strip()):
            rng = _weekday(body, base, _relation(m.group("prep")))
        if rng is None:
            rng = _resolve(kind, body, base, prefer)
        if rng is not None:
            relation: Relation = "in" if joined else _relation(m.group("prep"))
            lead = max(0, start - _NEAR)
            beside = _next_to(text[lead:start], rng, relation)
            if beside is not None:
                head = _NEXT_TO.search(text[lead:start])
                start, rng, relation = lead + head.start() if head else start, beside, "in"
            relative = kind in ("ago", "rel", "word") or bool(re.fullmatch(rf"(?i){_WEEKDAY}", body.strip()))
            out.append(TimeMention(text[start:end].strip(), start, end, rng, relation, relative))
        i += 1
    return out


def event_time(text: str, day: dt.date | None) -> TimeRange | None:
    """The event time of a fact: every date or range it names, joined; None when it names none.
    "since March" runs to the fact's day; "until June" from it."""
    total: TimeRange | None = None
    for t in find_times(text, day, "nearest"):
        rng = t.range
        if t.relation == "since" and day is not None and day > rng.start:
            rng = TimeRange(rng.start, day)
        elif t.relation == "until" and day is not None and day < rng.end:
            rng = TimeRange(day, rng.end)
        total = rng if total is None else total.union(rng)
    return total


@dataclass(frozen=True, slots=True)
class QueryTime:
    window: TimeRange
    text: str  # the words it came from
    spans: tuple[tuple[int, int], ...] = ()  # where the relative ones stand in the query

    def to_dict(self) -> dict[str, str]:
        return {**self.window.to_dict(), "text": self.text}

    def strip(self, query: str) -> str:
        """The query without its relative time words: "what did Peter do last week" -> "what did Peter do".
        Dates stay: "May 2023" is also words a log may share ("8 May, 2023"); "last week" only by chance."""
        out, last = [], 0
        for start, end in self.spans:
            out.append(query[last:start])
            last = end
        rest = re.sub(r"\s+", " ", "".join([*out, query[last:]])).strip(" ,;")
        return rest if re.search(r"\w", rest) else query


def query_time(query: str, now: dt.date) -> QueryTime | None:
    """The window a query's time words ask about, relative to ``now``: "since March" runs to now,
    "before June" ends before it, "around Nov 27" is a few days either side."""
    window: TimeRange | None = None
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    for t in find_times(query, now, "past"):
        rng = t.range
        if t.relation == "since":
            rng = TimeRange(rng.start, max(now, rng.end))
        elif t.relation == "until":
            rng = TimeRange(_FAR_PAST, rng.end)
        elif t.relation == "before":
            rng = TimeRange(_FAR_PAST, rng.start - dt.timedelta(days=1))
        elif t.relation == "after":
            rng = TimeRange(rng.end + dt.timedelta(days=1), max(now, rng.end + dt.timedelta(days=1)))
        elif t.relation == "around":
            pad = dt.timedelta(days=max(3, (rng.end - rng.start).days // 2))
            rng = TimeRange(rng.start - pad, rng.end + pad)
        window = rng if window is None else window.union(rng)
        words.append(t.text)
        if t.relative:
            spans.append((t.start, t.end))
    return QueryTime(window, ", ".join(words), tuple(spans)) if window is not None else None


_BOUND = re.compile(r"^\s*(\d+)\s*(d|day|days|w|week|weeks|m|month|months|y|year|years)\s*$", re.IGNORECASE)


def parse_bound(value: str, now: dt.date, end: bool = False) -> dt.date:
    """A ``--since`` / ``--until`` value: ``30d``, ``2w``, ``6m``, ``1y`` (before ``now``), ``YYYY-MM-DD``,
    ``YYYY-MM``, ``YYYY``, or words such as ``last week``. ``end`` takes the last day of a month or year.
    Raises ValueError with a message when it cannot be read."""
    m = _BOUND.match(value)
    if m:
        digits, unit = m.group(1).lstrip("0") or "0", m.group(2)[0].lower()
        days = {"d": 1, "w": 7, "m": 30, "y": 365}[unit] * int(digits) if len(digits) <= 7 else None
        if days is None or days >= (now - dt.date.min).days:  # 99999999d: before year 1, where datetime.date ends
            raise ValueError(f"{quoted(value.strip())} reaches back before the year 1: give a smaller number or a date")
        return now - dt.timedelta(days=days)
    mentions = find_times(value if not value.strip().isdigit() else f"in {value.strip()}", now, "past")
    if len(mentions) == 1 and mentions[0].text.strip() and len(mentions[0].text) >= len(value.strip()) - 3:
        rng = mentions[0].range
        return rng.end if end else rng.start
    raise ValueError(f"cannot read {quoted(value.strip())} as a date: use 30d, 2w, 6m, 1y, YYYY-MM-DD, YYYY-MM or YYYY")
