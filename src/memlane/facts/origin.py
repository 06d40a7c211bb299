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
from typing import Literal

Origin = Literal["person", "agent", "file"]
ORIGINS: tuple[Origin, ...] = ("person", "agent", "file")
AGENT_SPEAKER = "assistant"  # the speaker capture names the agent by

_STAMP = re.compile(r"\((?P<who>[^()\n]{1,60}), (?P<at>\d{1,2}:\d{2})\)")


def stamp_at(text: str) -> int | None:
    """Where the provenance stamp at the end of ``text`` starts (trailing blanks aside), or None. Found from
    the last "(", so a long line costs one pass."""
    end = len(text.rstrip())
    if not end or text[end - 1] != ")":
        return None
    start = text.rfind("(", 0, end)
    return start if start >= 0 and _STAMP.fullmatch(text, start, end) else None


def speaker_of(text: str) -> str | None:
    """The speaker a captured bullet's stamp names, or None for a bullet written by hand."""
    start = stamp_at(text)
    if start is None:
        return None
    m = _STAMP.match(text, start)
    return m.group("who").strip() if m else None


def origin_of(text: str) -> Origin:
    """``agent`` for a bullet captured from the agent's words, ``person`` for one captured from the person's,
    ``file`` for one written by hand."""
    who = speaker_of(text)
    if who is None:
        return "file"
    return "agent" if who.casefold() == AGENT_SPEAKER else "person"
