"""Keys that are not values: each item of a chunk (a turn, a bullet, a line) embedded with its neighbours.

A chunk's vector averages ~5 lines of a chat log, so a question about one of them meets a blend of
all five. Each item of the chunk gets a vector of its own, keyed with the item before and after it
(a reply is read with what it answers), and search scores a candidate chunk by its best key as well
as by its own vector (``query.hybrid.keyWeight``). What is returned is unchanged: the chunk, widened
to the result window. LoCoMo, tune half: R@5 0.909 -> 0.926, MRR 0.796 -> 0.815 (DESIGN.md §14).

A neighbour contributes at most its first ``NEIGHBOUR_WORDS`` words: an assistant's long answer
before a short user turn would otherwise fill the model's 256 wordpieces and the turn itself would not
be read at all.

Items: a line that is not indented starts one, an indented line continues the one before (a turn's
further paragraphs, a bullet's wrapped text); headings and blank lines are no items. The key drops
list markers and a leading tag such as ``[D1:3]`` or ``[10:32]``: tags carry no meaning a sentence
model can use. A chunk of one item has that item as its key; a chunk of headings only has no key, and
its vector score is only the ``1 - keyWeight`` share of its own: a heading names a day and who spoke,
which every question of a chat matches, and says nothing that answers one.
"""

from __future__ import annotations

import re

KEYS_VERSION = 1
NEIGHBOURS = 1  # items either side that go into an item's key
NEIGHBOUR_WORDS = 40  # of each neighbour: the model reads 256 wordpieces, and the item must be among them
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_TAG = re.compile(r"^\[[^\]\n]{1,24}\]\s*")


def items(text: str) -> list[str]:
    """The items of a chunk's text, each with its continuation lines, markers and tags removed."""
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or _HEADING.match(line):
            continue
        if line[0] in " \t" and out:
            out[-1] += "\n" + line.strip()
            continue
        item = _TAG.sub("", _MARKER.sub("", line)).strip()
        if item:
            out.append(item)
    return out


def chunk_keys(text: str) -> list[str]:
    """The key texts of one chunk: each item with ``NEIGHBOURS`` items either side."""
    parts = items(text)
    short = [_first_words(p, NEIGHBOUR_WORDS) for p in parts]
    keys = [
        "\n".join([*short[max(0, i - NEIGHBOURS) : i], parts[i], *short[i + 1 : i + NEIGHBOURS + 1]])
        for i in range(len(parts))
    ]
    return list(dict.fromkeys(keys))  # a repeated key adds nothing


def _first_words(text: str, n: int) -> str:
    words = text.split()
    return text if len(words) <= n else " ".join(words[:n]) + " …"
