"""Every parser of memory text on hostile lines, each call held to a linear-time deadline.

Hostile means what broke parsers here before: long runs of spaces, '#', backticks and '@', YAML anchors,
NULs, Unicode line separators, unclosed fences. A call may take at most ``BASE + PER_CHAR * len(text)``
seconds: ample for linear work on a slow CI core (the parsers run at well over 1 MB/s on ordinary text),
hopeless for the cubic heading patterns this replaced (16.6 s for one 2,000-space line).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memlane.errors import MemlaneError
from memlane.facts.derive import derive_file
from memlane.facts.entities import parse_entity_page
from memlane.facts.retain import find_mentions, parse_retain
from memlane.facts.timeparse import event_time, query_time
from memlane.files.markers import BlockError, set_block
from memlane.files.writer import _insert_under
from memlane.index.chunking import chunk_markdown
from memlane.index.keys import chunk_keys, said_text
from memlane.markdown import parse, split_lines
from memlane.reflect.extract import draft_log

BASE = 0.5  # seconds: start-up noise, a cold cache, a busy machine
PER_CHAR = 50e-6  # seconds per character: about 20 KB a second, far below any linear parser here
DAY = dt.date(2026, 1, 5)

ATOMS = [
    " ", "\t", "#", "`", "~", "@", "-", "*", "+", ">", ":", "|", "[", "]", "(", ")", "=", "a", "7",
    "\x00", "\u2028", "\u2029", "\x85", "\x0c", "\r", "\n", "\n\n", "```\n", "~~~\n", "---\n",
    "&a ", "*a ", "aliases: ", "## Retain\n", "## RETAIN\n", "- W @", "- O(c=0.9) @", "@[", "c=",
    "<!-- memlane:begin x -->\n", "<!-- memlane:end x -->\n", "Nov 27–Dec 1, 2025 ", "last week ",
]  # fmt: skip

MAX_CHARS = 20_000
hostile = st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(1, 2_000)), min_size=1, max_size=6).map(
    lambda parts: "".join(atom * n for atom, n in parts)[:MAX_CHARS]
)
KNOWN_BAD = [
    "# a" + " " * 1_500 + "x",  # the cubic heading patterns (retain, entities, writer) took 6 s each here
    "## Retain\n- W @" + "@" * 20_000,
    "---\n" + "a: &a [x]\n" + "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" * 200 + "---\n",
    "`" * 20_000 + "\n" + "~" * 20_000,
    "\u2028".join(["# h"] * 5_000),
    "- " * 20_000,
    "> " * 20_000 + "# x",
]


def within_deadline(call: Callable[[str], object], text: str) -> None:
    started = time.perf_counter()
    call(text)
    took = time.perf_counter() - started
    budget = BASE + PER_CHAR * len(text)
    assert took <= budget, f"{took:.2f}s on {len(text):,} characters (linear budget {budget:.2f}s)"


def each_within_deadline(parsers: dict[str, Callable[[str], object]], text: str) -> None:
    for name, call in parsers.items():
        try:
            within_deadline(call, text)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


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


@settings(max_examples=60, deadline=None, database=None)
@given(text=hostile)
@example(text=KNOWN_BAD[0])
@example(text=KNOWN_BAD[1])
@example(text=KNOWN_BAD[2])
@example(text=KNOWN_BAD[3])
@example(text=KNOWN_BAD[4])
@example(text=KNOWN_BAD[5])
@example(text=KNOWN_BAD[6])
def test_every_markdown_parser_is_linear_on_hostile_text(text: str) -> None:
    each_within_deadline(PARSERS, text)


@settings(max_examples=25, deadline=None, database=None)
@given(text=hostile.map(lambda t: t[:2_000]))  # a fact or a question, not a file
@example(text="Nov 27 " * 280)
@example(text="in " + "March " * 330)
def test_time_parsers_are_linear_on_hostile_text(text: str) -> None:
    each_within_deadline(TIME_PARSERS, text)


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
