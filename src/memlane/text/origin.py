"""Where a fact comes from: the person, the agent, or a file the person wrote.

Capture ends every bullet it writes with its provenance, whose words and when: ``(User, 14:05)`` or
``(Peter, 14:05)`` for the person (the user, by the ``capture.userName`` label or the name the transcript
gives), ``(assistant, 14:05)`` for the agent (:mod:`memlane.capture.pipeline`). A bullet without that stamp
was written by hand: a ``## Retain`` bullet, ``MEMORY.md``, a ``bank/`` page. The origin is read from the
Markdown at index time, so it is as true as the file: a person who edits a captured bullet and drops its
stamp makes it theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Origin = Literal["person", "agent", "file"]
ORIGINS: tuple[Origin, ...] = ("person", "agent", "file")
AGENT_SPEAKER = "assistant"  # the speaker capture names the agent by

_STAMP = re.compile(r"\((?P<who>[^()\n]{1,60}), (?P<at>\d{1,2}:\d{2})\)")


@dataclass(frozen=True, slots=True)
class Stamp:
    """A captured bullet's provenance: where it starts in the text, whose words, and when ("14:05")."""

    start: int
    who: str
    at: str


def stamp_of(text: str) -> Stamp | None:
    """The provenance stamp at the end of ``text`` (trailing blanks aside), or None. Found from the last "(",
    so a long line costs one pass."""
    end = len(text.rstrip())
    if not end or text[end - 1] != ")":
        return None
    start = text.rfind("(", 0, end)
    m = _STAMP.fullmatch(text, start, end) if start >= 0 else None
    return Stamp(start, m.group("who").strip(), m.group("at")) if m else None


def stamp_at(text: str) -> int | None:
    """Where the provenance stamp at the end of ``text`` starts, or None."""
    found = stamp_of(text)
    return found.start if found else None


def origin_of(text: str) -> Origin:
    """``agent`` for a bullet captured from the agent's words, ``person`` for one captured from the person's,
    ``file`` for one written by hand."""
    found = stamp_of(text)
    if found is None:
        return "file"
    return "agent" if found.who.casefold() == AGENT_SPEAKER else "person"


def origins_in(passage: str) -> list[Origin]:
    """The origins of the captured bullets a passage of a memory file shows (those with a stamp), in
    ``ORIGINS`` order; empty for a passage that holds none."""
    found: set[Origin] = set()
    for line in passage.split("\n"):
        body = line.lstrip(" \t")
        if body[:2] in ("- ", "* ", "+ ") and stamp_of(body) is not None:
            found.add(origin_of(body))
    return [o for o in ORIGINS if o in found]
