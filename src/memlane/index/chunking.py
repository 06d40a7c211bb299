"""Markdown -> chunks with exact 1-based line ranges.

The split prefers, in order: headings (each section stands alone), blank lines between
paragraphs, line ends, sentence ends, and last word boundaries. Every chunk's text fits
in ``max_tokens`` as counted by the embedding model's own tokenizer, so no chunk text is
cut off from its vector. Consecutive chunks of one section share up to ``overlap``
tokens of whole lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..text.hashing import text_hash
from ..text.markdown import Document, parse

TokenCounter = Callable[[Sequence[str]], list[int]]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？;；])\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    text: str
    # Its tokens by the counter that cut it, when it is whole lines: their counts add up (a WordPiece
    # tokenizer splits at every line break), so the plan need not count it again. None for a piece of a line.
    tokens: int | None = None

    @property
    def hash(self) -> str:
        return text_hash(self.text)


def whitespace_token_counter(texts: Sequence[str]) -> list[int]:
    """A rough counter for when no model tokenizer is at hand (keyword-only mode)."""
    return [len(re.findall(r"\w+|[^\w\s]", t)) for t in texts]


def _sections(doc: Document) -> list[tuple[int, int]]:
    """[start, end) line index ranges, one per heading section; heading-only sections join the next."""
    lines = doc.lines
    starts = [0, *(h.line for h in doc.headings if h.line > 0)]
    heading_lines = {i for h in doc.headings for i in range(h.line, h.end)}
    bounds = [(s, e) for s, e in zip(starts, [*starts[1:], len(lines)], strict=True)]
    merged: list[tuple[int, int]] = []
    pending: int | None = None
    for s, e in bounds:
        body = [i for i in range(s, e) if lines[i].strip()]
        only_heading = bool(body) and all(i in heading_lines for i in body)
        start = pending if pending is not None else s
        if only_heading and e < len(lines):
            pending = start
            continue
        pending = None
        merged.append((start, e))
    return merged


def _split_long_line(line: str, max_tokens: int, count: TokenCounter) -> list[str]:
    """Pieces of one over-long line, each within ``max_tokens``: sentences first, then words."""
    pieces: list[str] = []
    for unit_re in (_SENTENCE_END, re.compile(r"(?<=\s)(?=\S)")):
        units = [u for u in unit_re.split(line) if u]
        if len(units) > 1:
            break
    else:
        units = [line]
    counts = count(units)
    current: list[str] = []
    current_tokens = 0
    for unit, n in zip(units, counts, strict=True):
        if n > max_tokens:
            if current:
                pieces.append(" ".join(current))
                current, current_tokens = [], 0
            pieces.extend(_split_by_chars(unit, max_tokens, count))
            continue
        if current and current_tokens + n > max_tokens:
            pieces.append(" ".join(current))
            current, current_tokens = [], 0
        current.append(unit.strip())
        current_tokens += n
    if current:
        pieces.append(" ".join(current))
    return [p for p in pieces if p.strip()]


def _split_by_chars(text: str, max_tokens: int, count: TokenCounter) -> list[str]:
    """Last resort for a run with no spaces (a long CJK line, a base64 blob): halve until it fits."""
    if count([text])[0] <= max_tokens or len(text) <= 1:
        return [text]
    mid = len(text) // 2
    return _split_by_chars(text[:mid], max_tokens, count) + _split_by_chars(text[mid:], max_tokens, count)


def chunk_markdown(
    text: str,
    max_tokens: int = 400,
    overlap: int = 80,
    count_tokens: TokenCounter | None = None,
    line_tokens: Sequence[int] | None = None,
) -> list[Chunk]:
    """Split Markdown ``text`` into chunks of at most ``max_tokens`` tokens each. ``line_tokens``: each line's
    count by ``count_tokens``, when it was counted ahead (:func:`memlane.text.markdown.split_lines`' lines)."""
    if max_tokens < 1:
        raise ValueError("max_tokens must be positive")
    count = count_tokens or whitespace_token_counter
    doc = parse(text)
    lines = list(doc.lines)
    if not lines:
        return []
    if line_tokens is None or len(line_tokens) != len(lines):
        line_tokens = count(lines)
    chunks: list[Chunk] = []
    for s, e in _sections(doc):
        _chunk_section(lines, line_tokens, s, e, max_tokens, overlap, count, chunks)
    return chunks


def _emit(lines: list[str], line_tokens: Sequence[int], start: int, end: int, out: list[Chunk]) -> None:
    """Add lines[start:end] as a chunk, trimmed of blank lines at either end."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    if start < end:
        out.append(Chunk(start + 1, end, "\n".join(lines[start:end]), sum(line_tokens[start:end])))


def _chunk_section(
    lines: list[str],
    line_tokens: Sequence[int],
    s: int,
    e: int,
    max_tokens: int,
    overlap: int,
    count: TokenCounter,
    out: list[Chunk],
) -> None:
    start = s
    prev_end = s  # the previous chunk's end: each chunk must reach past it
    while start < e:
        if not lines[start].strip():
            start += 1
            continue
        # Grow the chunk line by line while it fits.
        total = 0
        end = start
        last_break: int | None = None  # index just after a blank line inside the chunk
        while end < e and total + line_tokens[end] <= max_tokens:
            total += line_tokens[end]
            end += 1
            if end < e and not lines[end - 1].strip() and end - 1 > start:
                last_break = end
        if start < prev_end and end <= prev_end:
            start = prev_end  # the carried overlap left no room for a new line: drop it
            continue
        if end == start:
            # One line longer than the cap: split it into pieces, all on this line number.
            for piece in _split_long_line(lines[start], max_tokens, count):
                out.append(Chunk(start + 1, start + 1, piece))
            start += 1
            prev_end = start
            continue
        if end < e and last_break is not None and last_break > prev_end and (last_break - start) * 2 >= (end - start):
            end = last_break  # cut at a paragraph boundary when it keeps at least half the chunk
        _emit(lines, line_tokens, start, end, out)
        prev_end = end
        if end >= e:
            break
        # Next chunk starts with whole trailing lines of this one, up to `overlap` tokens.
        next_start = end
        carried = 0
        while next_start - 1 > start and carried + line_tokens[next_start - 1] <= overlap:
            carried += line_tokens[next_start - 1]
            next_start -= 1
        start = next_start
