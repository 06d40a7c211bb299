"""The one reader of Markdown: lines, headings, code and front matter, for every reader and writer.

Every module that needs to know where a section starts, whether a line is code, or which line is
line 12 asks this one. Five hand-written heading patterns that disagreed (and backtracked
cubically on a long run of spaces) are how a note once landed inside a person's code block.

- **Lines.** A line ends at ``\\n``; a ``\\r`` just before it belongs to the line end. Nothing else
  breaks a line: not U+2028, ``\\x0c`` or ``\\x85`` (which ``str.splitlines`` breaks on), and not a
  lone ``\\r``. ``memory_get``, the chunker, the fact parser and the writer all count lines this way,
  so a line number one of them gives is the line another reads.
- **Blocks** come from markdown-it-py, a CommonMark parser with a line map for every block, run
  block-level only (no inline parsing: nothing here needs it). CommonMark decides what a heading is
  (ATX and setext), where a fenced or indented code block starts and ends (an unclosed fence runs to
  the end of the document), and how deep block quotes and lists nest (at most 20 levels). Its block
  parser is linear in its input; ``tests/text/test_markdown_fuzz.py`` holds it to that.
- **Front matter** (a leading ``---`` ... ``---`` YAML block, as entity pages use) is cut out before
  parsing, so that its closing ``---`` is not read as a setext underline.

Only headings at the top level of the document count as section boundaries: a ``#`` line inside a
block quote, a list item or a code block is part of that block.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

# A line that reads as an ATX heading on its own (chunk keys look at one chunk's lines without the
# rest of the file). Linear: one optional run of at most 3 spaces, 1-6 '#', then a space or the end.
ATX_LINE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")

# Front matter larger than this is not read: aliases are a handful of names, not a document.
MAX_FRONT_MATTER_CHARS = 4096

_PARSER = MarkdownIt("commonmark").disable(["inline", "text_join"], ignoreInvalid=True)
_CODE_TOKENS = ("fence", "code_block")


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # 0-based index of its first line (a setext heading's text, not its underline)
    end: int  # 0-based index just past its last line
    level: int  # 1..6
    text: str  # the heading's text: closing '#'s, markers and outer spaces removed


@dataclass(frozen=True, slots=True)
class CodeBlock:
    start: int  # 0-based index of its first line (a fence's opening line)
    end: int  # 0-based index just past its last line
    closed: bool  # False for a fence that runs to the end of the document


@dataclass(frozen=True, slots=True)
class Document:
    """One Markdown text as the rest of memlane sees it. Immutable: parses are cached and shared."""

    lines: tuple[str, ...]  # the text's lines, without their line ends
    headings: tuple[Heading, ...]  # top-level headings, outside code, in order
    code: tuple[CodeBlock, ...]  # fenced and indented code blocks at any depth, in order
    front_matter: tuple[int, int] | None  # [start, end) of the front matter's inside, without its --- lines

    def in_code(self) -> list[bool]:
        """For every line, whether it is inside a code block (fence lines included)."""
        mask = [False] * len(self.lines)
        for block in self.code:
            for i in range(block.start, min(block.end, len(mask))):
                mask[i] = True
        return mask

    def code_at(self, index: int) -> CodeBlock | None:
        """The code block line ``index`` (0-based) belongs to, if any."""
        return next((b for b in self.code if b.start <= index < b.end), None)

    def sections(self, title: str) -> list[tuple[int, int]]:
        """[start, end) line indexes of the body of every section whose heading reads ``title`` (case
        and outer spaces ignored): from the line after the heading to the next heading of the same or
        a higher level."""
        wanted = title.strip().casefold()
        out: list[tuple[int, int]] = []
        for i, h in enumerate(self.headings):
            if h.text.casefold() != wanted:
                continue
            end = next((n.line for n in self.headings[i + 1 :] if n.level <= h.level), len(self.lines))
            out.append((h.end, end))
        return out


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of ``text`` in memlane's one line model (see the module's docstring)."""
    if not text:
        return []
    parts = text.split("\n")
    if keepends:
        out = [p + "\n" for p in parts[:-1]]
        if parts[-1]:
            out.append(parts[-1])
        return out
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _front_matter(lines: list[str]) -> tuple[int, int] | None:
    """[start, end) of a leading YAML block's inside, when the text opens with one."""
    if not lines or lines[0].rstrip(" \t") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip(" \t") in ("---", "..."):
            return (1, i)
    return None


@functools.lru_cache(maxsize=16)
def parse(text: str) -> Document:
    """``text`` read as CommonMark. Cached: the sync chunks a file and derives its facts from one parse
    (a ``str`` keeps its hash, so a repeated call with the same text costs a dictionary look-up)."""
    lines = split_lines(text)
    front = _front_matter(lines)
    # The parser's input has our lines exactly: a lone '\r' (which CommonMark would break on) becomes a
    # space, and the front matter becomes blank lines, so every map it returns indexes `lines`.
    source = [ln.replace("\r", " ") for ln in lines]
    if front is not None:
        for i in range(front[0] - 1, front[1] + 1):
            source[i] = ""
    tokens = _PARSER.parse("\n".join(source))
    headings: list[Heading] = []
    code: list[CodeBlock] = []
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        start, end = tok.map
        if tok.type == "heading_open" and tok.level == 0:
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            content = inline.content if inline is not None and inline.type == "inline" else ""
            headings.append(Heading(start, end, int(tok.tag[1:]), " ".join(content.split())))
        elif tok.type in _CODE_TOKENS:
            closed = tok.type == "code_block" or _fence_closed(source, start, end, tok.markup)
            if not closed and _blank_from(source, end):
                end = len(source)  # a fence left open runs to the end: the blank lines after it are its own
            code.append(CodeBlock(start, end, closed))
    return Document(tuple(lines), tuple(headings), tuple(code), front)


def _blank_from(source: list[str], at: int) -> bool:
    """Whether every line from index ``at`` on is blank (stops at the first that is not: linear overall)."""
    return all(not source[i].strip() for i in range(at, len(source)))


def _fence_closed(source: list[str], start: int, end: int, markup: str) -> bool:
    """Whether the fence opened at ``start`` has its closing line (the block's last) rather than running
    to the end of the document or its container."""
    if end - 1 <= start:
        return False
    last = source[end - 1].lstrip(" >\t")
    if last.startswith(("-", "*", "+")):
        last = last[1:].lstrip()
    return last.startswith(markup[0] * len(markup)) and not last.strip(markup[0]).strip()


def front_matter_text(doc: Document) -> str | None:
    """The front matter's text, or None when there is none or it is over ``MAX_FRONT_MATTER_CHARS``."""
    if doc.front_matter is None:
        return None
    start, end = doc.front_matter
    text = "\n".join(doc.lines[start:end])
    return text if len(text) <= MAX_FRONT_MATTER_CHARS else None
