"""Every parser of memory text on hostile lines, each held to linear growth, checked as a ratio.

Hostile means what broke parsers here before: long runs of spaces, '#', backticks and '@', YAML anchors,
NULs, Unicode line separators, unclosed fences. An example is a few runs (an atom repeated); the same example
with every run 4x as long may cost at most ``5x + slack`` in CPU time (tests/test_linear_time.py has the rule
and the reasons): no wall-clock ceiling, so a slow or busy machine slows both sides alike. The cubic heading
patterns this replaced took 16.6 s for one 2,000-space line and 64x that for 4x the spaces.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memlane.errors import MemlaneError
from memlane.facts.derive import derive_file
from memlane.facts.entities import parse_entity_page
from memlane.facts.retain import find_mentions, parse_retain
from memlane.files.markers import BlockError, set_block
from memlane.files.writer import _insert_under
from memlane.index.chunking import chunk_markdown
from memlane.index.keys import chunk_keys, said_text
from memlane.reflect.extract import draft_log
from memlane.text.markdown import parse, split_lines
from memlane.text.timeparse import event_time, query_time
from test_linear_time import FUNCTION_SLACK, quadruples_linearly

DAY = dt.date(2026, 1, 5)

ATOMS = [
    " ", "\t", "#", "`", "~", "@", "-", "*", "+", ">", ":", "|", "[", "]", "(", ")", "=", "a", "7",
    "\x00", "\u2028", "\u2029", "\x85", "\x0c", "\r", "\n", "\n\n", "```\n", "~~~\n", "---\n",
    "&a ", "*a ", "aliases: ", "## Retain\n", "## RETAIN\n", "- W @", "- O(c=0.9) @", "@[", "c=",
    "<!-- memlane:begin x -->\n", "<!-- memlane:end x -->\n", "Nov 27–Dec 1, 2025 ", "last week ",
]  # fmt: skip

Runs = list[tuple[str, int]]  # (atom, times): an atom written once is structure and stays; a run grows
MAX_CHARS = 6_000  # an example's size at 1x; the 4x text is about 24,000 characters


def fit(parts: Runs) -> Runs:
    """The runs shortened alike to MAX_CHARS in all (rather than the text cut, which would cut its structure)."""
    total = sum(len(atom) * n for atom, n in parts)
    return parts if total <= MAX_CHARS else [(a, max(1, n * MAX_CHARS // total)) for a, n in parts]


def text_of(parts: Runs, scale: int = 1) -> str:
    """The text of the runs, each run ``scale`` times as long; a run's parity is kept (an odd number of fence
    lines leaves the last one open at every scale, so the 4x text has the same structure)."""
    return "".join(atom * (n if n == 1 or scale == 1 else scale * n + n % 2) for atom, n in parts)


runs = st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(1, 1_000)), min_size=1, max_size=6).map(fit)
hostile = runs.map(text_of)
KNOWN_BAD: list[Runs] = [
    [("# a", 1), (" ", 1_500), ("x", 1)],  # the cubic heading patterns (retain, entities, writer) took 6 s each
    [("## Retain\n- W @", 1), ("@", 5_000)],
    [("---\na: &a [x]\n", 1), ("b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n", 100), ("---\n", 1)],
    [("`", 2_500), ("\n", 1), ("~", 2_500)],
    [("# h\u2028", 1_500)],
    [("- ", 3_000)],
    [("> ", 2_900), ("# x", 1)],
]


def each_grows_linearly(parsers: dict[str, Callable[[str], object]], parts: Runs) -> None:
    small, large = text_of(parts), text_of(parts, 4)
    for name, call in parsers.items():
        slow = quadruples_linearly(call, small, large, FUNCTION_SLACK)
        assert slow is None, f"{name} is not linear on {parts!r}: {slow}"


def _insert(text: str) -> object:
    try:
        return _insert_under(text, "Retain", "- W @Peter: a note")
    except MemlaneError as exc:
        assert "inside a code block" in str(exc)  # the one refusal: a note never lands in code
        return None


def _block(text: str) -> object:
    try:
        return set_block(text, "x", "body\n")
    except BlockError:
        return None  # broken markers are refused with their line: a clear error, not a hang


PARSERS: dict[str, Callable[[str], object]] = {
    "markdown.parse": lambda t: parse.__wrapped__(t),  # uncached: every call parses
    "split_lines": split_lines,
    "chunk_markdown": lambda t: chunk_markdown(t, max_tokens=400, overlap=80),
    "parse_retain": parse_retain,
    "derive_file (log)": lambda t: derive_file("memory/2026-01-05.md", t),
    "derive_file (entity page)": lambda t: derive_file("bank/entities/Peter.md", t),
    "parse_entity_page": lambda t: parse_entity_page("bank/entities/Peter.md", t),
    "draft_log": lambda t: draft_log(t, DAY, ["Peter"]),
    "chunk_keys": chunk_keys,
    "said_text": said_text,
    "find_mentions": find_mentions,
    "writer insert under a heading": _insert,
    "markers set_block": _block,
}
TIME_PARSERS: dict[str, Callable[[str], object]] = {
    "event_time": lambda t: event_time(t, DAY),
    "query_time": lambda t: query_time(t, DAY),
}


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """One call each first: dateparser loads its language data on its first call (half a second)."""
    for call in (*PARSERS.values(), *TIME_PARSERS.values()):
        call("# 2026-01-05\n\n## Retain\n- W @Peter: Peter flew to Vienna on Nov 27 with Anna, last week.\n")


@settings(max_examples=30, deadline=None, database=None)
@given(parts=runs)
@example(parts=KNOWN_BAD[0])
@example(parts=KNOWN_BAD[1])
@example(parts=KNOWN_BAD[2])
@example(parts=KNOWN_BAD[3])
@example(parts=KNOWN_BAD[4])
@example(parts=KNOWN_BAD[5])
@example(parts=KNOWN_BAD[6])
def test_every_markdown_parser_is_linear_on_hostile_text(parts: Runs) -> None:
    each_grows_linearly(PARSERS, parts)


@settings(max_examples=15, deadline=None, database=None)
@given(parts=st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(1, 30)), min_size=1, max_size=6))
@example(parts=[("Nov 27 ", 70)])
@example(parts=[("in ", 1), ("March ", 83)])
def test_time_parsers_are_linear_on_hostile_text(parts: Runs) -> None:
    each_grows_linearly(TIME_PARSERS, parts)  # a fact or a question (at most a few hundred characters), not a file


@settings(max_examples=60, deadline=None, database=None)
@given(text=hostile)
@example(text="    ```\n```\n ")  # found by this test: a fence left open, then a blank line at the end
def test_the_reader_keeps_its_promises(text: str) -> None:
    """Line maps index the one line model; a heading is never inside code; code blocks do not overlap."""
    doc = parse(text)
    assert list(doc.lines) == split_lines(text)
    code = doc.in_code()
    for h in doc.headings:
        assert 0 <= h.line < h.end <= len(doc.lines) and 1 <= h.level <= 6
        assert not code[h.line]
    ends = [0]
    for block in doc.code:
        assert ends[-1] <= block.start < block.end <= len(doc.lines)
        ends.append(block.end)
    # what the writer adds under a heading never lands in code, and the rest of the text is kept
    try:
        new, first = _insert_under(text, "Notes", "- a note")
    except MemlaneError as exc:  # refused: only ever because the place is inside a code block
        assert "inside a code block" in str(exc)
        return
    after = parse(new)
    assert after.lines[first - 1] == "- a note" and not after.in_code()[first - 1]
