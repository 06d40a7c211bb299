"""Generated blocks inside Markdown a person also edits.

A block is the lines between ``<!-- memlane:begin NAME -->`` and ``<!-- memlane:end NAME -->``, each
marker alone on its line. Setting a block replaces exactly those lines; a page without the block gets it
appended after a blank line. Everything outside the markers is kept byte for byte (a Hypothesis property
in tests/reflect/test_reflect.py). A page whose markers are broken (a begin without its end, a block twice, an
end before its begin) is refused with the line, never guessed at. Markers inside a code block are text,
not markers.
"""

from __future__ import annotations

import re

from ..errors import MemlaneError
from ..text.markdown import parse


class BlockError(MemlaneError):
    """The generated-block markers of a page are broken; the page is left as it is."""


def begin_marker(name: str) -> str:
    return f"<!-- memlane:begin {name} -->"


def end_marker(name: str) -> str:
    return f"<!-- memlane:end {name} -->"


def _marker_lines(text: str, marker: str) -> list[re.Match[str]]:
    """The marker's lines, less those inside a code block (a page may show the markers as an example)."""
    found = list(re.finditer(rf"(?m)^{re.escape(marker)}[ \t]*(?:\r?\n|\Z)", text))
    if not found:
        return found
    code = parse(text).in_code()
    return [m for m in found if not code[text.count("\n", 0, m.start())]]


def find_block(text: str, name: str) -> tuple[int, int] | None:
    """(start, end) offsets of the block's body (between the marker lines), or None without one."""
    begins, ends = _marker_lines(text, begin_marker(name)), _marker_lines(text, end_marker(name))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1:
        line = text.count("\n", 0, (begins or ends)[min(1, len(begins or ends) - 1)].start()) + 1
        raise BlockError(f"the '{name}' block markers appear more than once or without a pair (line {line})")
    if ends[0].start() < begins[0].end():
        line = text.count("\n", 0, ends[0].start()) + 1
        raise BlockError(f"the '{name}' block ends (line {line}) before it begins")
    return begins[0].end(), ends[0].start()


def block_body(text: str, name: str) -> str | None:
    """The current body of block ``name``, or None when the page has no such block."""
    span = find_block(text, name)
    return None if span is None else text[span[0] : span[1]]


def set_block(text: str, name: str, body: str) -> str:
    """``text`` with block ``name`` holding ``body`` (a trailing newline is added when missing)."""
    if body and not body.endswith("\n"):
        body += "\n"
    span = find_block(text, name)
    if span is not None:
        start, end = span
        if start > 0 and text[start - 1] != "\n":  # the begin marker was the last line, with no newline
            body = "\n" + body
        return text[:start] + body + text[end:]
    # one blank line between the person's text and the block; their text itself is not touched
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return f"{text}{sep}{begin_marker(name)}\n{body}{end_marker(name)}\n"
