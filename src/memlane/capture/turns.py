"""A conversation turn as capture reads it, whatever the host's transcript looked like."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

SPEAKERS = ("user", "assistant")  # whose words may be drafted into memory
# "tool": outside text (a tool's result, a page fetched, a file the agent read). It is never drafted and never
# counts as a speaker: the drafter only uses it to recognise when the agent restates it (the trust boundary).
ROLES = (*SPEAKERS, "tool")
TOOL_TEXT_MAX = 20_000  # characters kept of one tool result: enough to recognise a restatement of it

# Every line break Python's str.splitlines honours, other than "\n": a reader that splits on one of them (the
# web view, `memlane get`) would see a different line than the Markdown writer and the index (issue 40, item 7).
_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def normalize_breaks(text: str) -> str:
    """``text`` with every line break as ``\\n``: ``\\r\\n`` and a lone ``\\r``, vertical tab, form feed, the
    file/group/record separators, NEL and the Unicode line and paragraph separators."""
    return _BREAKS.sub("\n", text)


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a conversation: who spoke (``role``, and a ``name`` when the transcript gives the
    speaker's name), the text they wrote and when, if the transcript says.

    ``role`` is "user" or "assistant" for what the person and the agent said (tool calls, thinking and what a
    host injects already left out by the reader), or "tool" for outside text the conversation carried: a tool's
    result, a page fetched, a file read. A "tool" turn is never drafted, never titles a session and is not
    a speaker; it only lets the drafter recognise an agent's restatement of outside text. Every line break in
    ``content`` is ``\\n`` (:func:`normalize_breaks`), whoever made the turn.

    ``narration`` marks an agent's turn that its host calls running commentary while it works (Codex's
    ``phase: "commentary"``: "I found the user resource; next I'll inspect it"), which its final answer then
    reports: it counts as a turn of the conversation (the session's size, the bullets it may yield) but is
    never drafted and never sent to the model."""

    role: str  # "user" | "assistant" | "tool"
    content: str
    timestamp: dt.datetime | None = None
    name: str | None = None
    narration: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.content, str) and not self.content.isprintable():
            object.__setattr__(self, "content", normalize_breaks(self.content))
