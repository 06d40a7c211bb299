"""The ``## Retain`` convention (spec 004): typed, self-contained facts written into any memory file.

A Retain section is a heading whose text is ``Retain`` (any level, any case); it runs to the next heading of
the same or a higher level. Each top-level bullet in it is one fact::

    ## Retain
    - W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.
    - B @warelay: I fixed the Baileys WS crash by wrapping the handlers in try/catch.
    - O(c=0.95) @Peter: Prefers concise replies (<1500 chars) on WhatsApp.
    - S The week was mostly about the gateway rewrite
      and its rollout (an indented line continues the bullet).

The letter is the kind: ``W`` world, ``B`` experience (first person), ``O`` opinion (optionally with a
confidence ``c`` in [0, 1]), ``S`` observation/summary. ``@mentions`` name entities, before the colon
or inside the text; ``@The-Castle`` or ``@[The Castle]`` for names with spaces; any Unicode letters.
A bullet that does not follow this shape is reported as a :class:`Problem` with its line and skipped:
it never stops a sync. Lines inside code blocks are never facts, and a heading inside one starts
nothing (:mod:`memlane.text.markdown` reads the structure). Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..text.markdown import Document, parse

KINDS = {"W": "world", "B": "experience", "O": "opinion", "S": "observation"}
KIND_LETTERS = {v: k for k, v in KINDS.items()}

_BULLET = re.compile(r"^ {0,3}[-*+][ \t]+(.*)$")
_BARE_BULLET = re.compile(r"^ {0,3}[-*+][ \t]*$")
# The kind letter stands alone: "W @x: ...", "O(c=0.9) ...", "S: ...", "S text"; "Was ..." is not a kind.
_PREFIX = re.compile(r"^(?P<kind>[A-Za-z])(?:\((?P<args>[^)\n]*)\))?(?=[\s:@]|$)")
_CONFIDENCE = re.compile(r"^\s*c\s*[=:]\s*(?P<value>[^\s,;]+)\s*$", re.IGNORECASE)
# A mention starts a word (so an e-mail address is not one; "\@" is an escaped, literal "@") and ends on a letter or
# digit ("@Peter." -> Peter).
# A captured bullet ends with its provenance, whose words and when: "... (Peter, 14:05)" (memlane.capture).
# It is not part of what the fact says: left out of its embedded text and of what makes two facts the same.
# Linear on any text: a match starts only where a run of spaces starts ((?<!\s)) and takes the run whole
# (\s*+), so a long run is walked once, not once per space it holds (64k spaces took 9.8 s in an index).
PROVENANCE = re.compile(r"(?<!\s)\s*+\((?P<who>[^()\n]{1,60}), (?P<at>\d{1,2}:\d{2})\)\s*+$")
# A bracketed name runs to its "]" but never over another "@[": each unclosed "@[" of a line is then read once,
# not once per "@[" before it (16 KB of "@[" took 0.64 s of CPU, 64 KB 9 s).
MENTION = re.compile(r"(?<![\w@\\])@(?:\[(?P<bracket>(?:[^\]\n@]|@(?!\[))++)\]|(?P<word>\w(?:[\w.-]*\w)?))")


@dataclass(frozen=True, slots=True)
class Mention:
    """An ``@entity`` as written (brackets removed) and the key entities are matched by."""

    name: str
    norm: str


@dataclass(frozen=True, slots=True)
class RetainFact:
    kind: str  # "world" | "experience" | "opinion" | "observation"
    content: str  # the fact's text, continuation lines joined with single spaces
    mentions: tuple[Mention, ...]
    confidence: float | None  # opinions only
    start_line: int  # 1-based, inclusive
    end_line: int


@dataclass(frozen=True, slots=True)
class Problem:
    line: int
    message: str


def normalize_name(name: str) -> str:
    """The key an entity is known by: case, dashes, spaces and punctuation do not count.

    ``The-Castle``, ``the castle`` and ``[The Castle]`` are one key; nothing fuzzier is ever merged."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", name).casefold())


def find_mentions(text: str) -> list[Mention]:
    """Every ``@mention`` of ``text`` in order, each key once."""
    seen: dict[str, Mention] = {}
    for m in MENTION.finditer(text):
        name = (m.group("bracket") or m.group("word")).strip()
        norm = normalize_name(name)
        if norm and norm not in seen:
            seen[norm] = Mention(name, norm)
    return list(seen.values())


def retain_sections(doc: Document) -> list[tuple[int, int]]:
    """[start, end) indexes of the lines inside each Retain section (its heading excluded)."""
    return doc.sections("retain")


def parse_retain(text: str) -> tuple[list[RetainFact], list[Problem]]:
    """The facts of every Retain section of a Markdown text, and the bullets that could not be read."""
    doc = parse(text)
    lines = doc.lines
    code = doc.in_code()
    facts: list[RetainFact] = []
    problems: list[Problem] = []
    for start, end in retain_sections(doc):
        i = start
        while i < end:
            line = lines[i]
            bullet = _BULLET.match(line)
            if code[i] or not bullet:
                if not code[i] and _BARE_BULLET.match(line):
                    problems.append(Problem(i + 1, "empty bullet"))
                i += 1
                continue
            parts = [bullet.group(1).strip()]
            depth = _indent(line)
            j = i + 1
            # Lines indented deeper than the bullet continue it (nested bullets included); a blank line ends it.
            while j < end and lines[j].strip() and _indent(lines[j]) > depth and not code[j]:
                parts.append(lines[j].strip())
                j += 1
            fact = _parse_bullet(" ".join(p for p in parts if p), i + 1, j)
            if isinstance(fact, Problem):
                problems.append(fact)
            else:
                facts.append(fact)
            i = j
    return facts, problems


def _indent(line: str) -> int:
    stripped = line.lstrip(" \t")
    return len(line[: len(line) - len(stripped)].expandtabs(4))


def _parse_bullet(body: str, first: int, last: int) -> RetainFact | Problem:
    m = _PREFIX.match(body)
    if not m:
        return Problem(
            first, f"a Retain bullet starts with a kind, W, B, O or S (as in '- W @Name: text'): {body[:60]!r}"
        )
    letter = m.group("kind")
    if letter not in KINDS:
        return Problem(first, f"unknown fact kind {letter!r}: use W (world), B (experience), O (opinion) or S")
    confidence: float | None = None
    args = m.group("args")
    if args is not None:
        if letter != "O":
            return Problem(first, f"only opinions (O) take a confidence: {body[:40]!r}")
        c = _CONFIDENCE.match(args)
        try:
            confidence = float(c.group("value")) if c else None
        except ValueError:
            confidence = None
        if confidence is None or not 0.0 <= confidence <= 1.0:
            return Problem(first, f"opinion confidence must be c=0.0..1.0, got {args!r}")
    rest = body[m.end() :].strip()
    # Leading mentions, then an optional colon: "@Peter @warelay: text". Without the colon the
    # mentions are part of the sentence ("@Peter moved to Vienna").
    pos = 0
    while True:
        lead = MENTION.match(rest, pos)
        if not lead:
            break
        pos = lead.end()
        while pos < len(rest) and rest[pos] in " \t":
            pos += 1
    if rest.startswith(":"):
        content = rest[1:].strip()
    elif pos and rest[pos : pos + 1] == ":":
        content = rest[pos + 1 :].strip()
    else:
        content = rest
    if not content or not re.search(r"\w", content):
        return Problem(first, f"the fact has no text: {body[:60]!r}")
    return RetainFact(KINDS[letter], content, tuple(find_mentions(rest)), confidence, first, last)
