"""Time expressions: event times of facts (relative to the log's day) and query windows (relative to now)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.text.timeparse import event_time, find_times, parse_bound, query_time

D = dt.date
LOG_DAY = D(2025, 11, 27)  # a Thursday
NOW = D(2026, 11, 22)  # a Sunday


def span(text: str, day: dt.date | None = LOG_DAY) -> tuple[str, str] | None:
    t = event_time(text, day)
    return (t.start.isoformat(), t.end.isoformat()) if t else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.", ("2025-11-27", "2025-12-01")),
        ("Met on 2025-11-27 at noon", ("2025-11-27", "2025-11-27")),
        ("Moving in March 2026", ("2026-03-01", "2026-03-31")),  # a month alone is the whole month
        ("It happened in 2022", ("2022-01-01", "2022-12-31")),  # a year alone is the whole year
        ("Shipped it last week", ("2025-11-17", "2025-11-23")),  # Monday to Sunday before the log's day
        ("Painted a lake sunrise last year", ("2024-01-01", "2024-12-31")),
        ("Trip Nov 27-30", ("2025-11-27", "2025-11-30")),
        ("Trip 27-30 Nov 2025", ("2025-11-27", "2025-11-30")),
        ("Holiday Dec 28–Jan 3, 2026", ("2025-12-28", "2026-01-03")),
        ("from March to May 2026", ("2026-03-01", "2026-05-31")),
        ("between 2024-01-02 and 2024-01-09", ("2024-01-02", "2024-01-09")),
        ("two weeks ago", ("2025-11-10", "2025-11-16")),
        ("a few days ago", ("2025-11-22", "2025-11-25")),
        ("last weekend", ("2025-11-22", "2025-11-23")),
        ("on Sunday we went", ("2025-11-23", "2025-11-23")),
        ("due by Friday", ("2025-11-27", "2025-11-28")),  # the coming Friday: the deadline window
        ("next Friday", ("2025-11-28", "2025-11-28")),
        ("yesterday", ("2025-11-26", "2025-11-26")),
        ("last March", ("2025-03-01", "2025-03-31")),
        ("in May we went", ("2025-05-01", "2025-05-31")),  # a year-less month leans to the past
        ("flying out Dec 3", ("2025-12-03", "2025-12-03")),  # ... unless the future one is close
        ("since 2024", ("2024-01-01", "2025-11-27")),  # "since" runs to the log's day
        ("the last week of August 2023", ("2023-08-25", "2023-08-31")),
        ("summer 2023", ("2023-06-01", "2023-08-31")),
    ],
)
def test_event_times(text: str, expected: tuple[str, str]) -> None:
    assert span(text) == expected


@pytest.mark.parametrize(
    "text",
    ["May I ask something?", "see memory/2025-11-27.md", "It was 2023-13-45", "we march on", "2024 users signed up"],
)
def test_no_time_where_there_is_none(text: str) -> None:
    assert span(text) is None


def test_undated_files_resolve_only_dates_with_a_year() -> None:
    assert span("last week", None) is None and span("in March", None) is None
    assert span("in March 2026", None) == ("2026-03-01", "2026-03-31")


@pytest.mark.parametrize(
    ("query", "window"),
    [
        ("what happened last week", ("2026-11-09", "2026-11-15")),
        ("what did we do in May 2023", ("2023-05-01", "2023-05-31")),
        ("what happened around Nov 27", ("2025-11-24", "2025-11-30")),  # a few days either side, in the past
        ("what changed since March", ("2026-03-01", "2026-11-22")),
        ("before June 2026", ("0001-01-01", "2026-05-31")),
        ("after 2025", ("2026-01-01", "2026-11-22")),
        ("Where was Tim in the week before 16 November 2023?", ("2023-11-09", "2023-11-15")),
        ("Which country was she in during the last week of August 2023?", ("2023-08-25", "2023-08-31")),
        ("at the beginning of March 2023", ("2023-03-01", "2023-03-11")),
        ("yesterday", ("2026-11-21", "2026-11-21")),
    ],
)
def test_query_windows(query: str, window: tuple[str, str]) -> None:
    asked = query_time(query, NOW)
    assert asked is not None and (asked.window.start.isoformat(), asked.window.end.isoformat()) == window


def test_queries_without_time_words() -> None:
    assert query_time("what does Peter prefer?", NOW) is None
    assert query_time("When did Caroline go to the support group?", NOW) is None


@pytest.mark.parametrize(
    ("value", "start", "end"),
    [
        ("30d", D(2026, 10, 23), D(2026, 10, 23)),
        ("2w", D(2026, 11, 8), D(2026, 11, 8)),
        ("2025-11-27", D(2025, 11, 27), D(2025, 11, 27)),
        ("2025-11", D(2025, 11, 1), D(2025, 11, 30)),
        ("2025", D(2025, 1, 1), D(2025, 12, 31)),
        ("last week", D(2026, 11, 9), D(2026, 11, 15)),
    ],
)
def test_since_until_bounds(value: str, start: dt.date, end: dt.date) -> None:
    assert parse_bound(value, NOW) == start and parse_bound(value, NOW, end=True) == end


@pytest.mark.parametrize("value", ["soon", "", "13/45", "30 parsecs"])
def test_unreadable_bounds_raise_a_clear_error(value: str) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        parse_bound(value, NOW)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.dates(min_value=D(1990, 1, 1), max_value=D(2060, 12, 31)))
def test_any_text_gives_ordered_ranges(text: str, day: dt.date) -> None:
    for t in find_times(text, day):
        assert t.range.start <= t.range.end
        assert text[t.start : t.end].strip() == t.text


# -- the plainest spans are read without dateparser, exactly as dateparser reads them (issue 42: a hook is a new
# process, and dateparser's first call builds its timezone patterns)

PLAIN_SPANS = ["yesterday", "Today", "tomorrow", "2034-01-01", "2024-02-29", "2023-02-29"] + [
    f"{which} {what}"
    for which in ("last", "this", "next", "Next")
    for what in ("week", "month", "year", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
]


def test_the_plain_spans_read_as_dateparser_reads_them() -> None:
    from memlane.text import timeparse as tp

    day, compared = dt.date(2023, 1, 1), 0
    while day <= dt.date(2026, 12, 31):  # every 13th day of four years: every weekday, month end and Feb 29
        for prefer in ("past", "nearest"):
            for span in PLAIN_SPANS:
                mine = tp._plain(span, day)
                if mine is not None:
                    assert mine == tp._dateparser_read(span, day, prefer), (span, day, prefer)
                    compared += 1
        day += dt.timedelta(days=13)
    assert compared > 10_000


def test_a_log_of_plain_time_words_never_loads_dateparser() -> None:
    import subprocess
    import sys

    code = (
        "import datetime as dt, sys\n"
        "from memlane.text.timeparse import find_times\n"
        "text = 'Yesterday we shipped it; last friday the build broke; next month we move (2031-05-02).'\n"
        "assert len(find_times(text, dt.date(2031, 5, 4))) == 4\n"
        "print('dateparser' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_plain_spans_at_the_calendar_s_ends_read_nothing_and_raise_nothing() -> None:
    from memlane.text import timeparse as tp

    for span in ("yesterday", "last week", "last year", "tomorrow", "next week", "next month", "next year"):
        for day in (dt.date(1, 1, 1), dt.date(9999, 12, 31)):
            assert tp._plain(span, day) in (None, tp._dateparser_read(span, day, "past")), (span, day)
    assert find_times("yesterday we met", dt.date(1, 1, 1)) is not None
