"""Text from outside the conversation: a batch's tool turns (tool results, pages fetched, files read), which capture
never drafts, and reads only to recognise an agent sentence that restates one of them (the trust boundary), and a
host's own line that it applied the agent's edit to a file (Aider's "Applied edit to X").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..text.keywords import STOPWORDS
from .turns import Turn

SHARED_RUN = 8  # words in a row shared with a tool turn: the agent is restating outside text
SHARED_SHARE = 0.75  # or this share of its content words (at least 5) found in one tool turn
SHARED_SHARE_SAID = 0.5  # the same (of at least 3), for a state or cause the agent states without saying it acted

# A host's own line that the agent's edit of a file was applied (Aider writes "Applied edit to CONVENTIONS.md" after
# the agent's "I will update `CONVENTIONS.md`: ..." and its edit blocks): the plan it answers is work done.
_APPLIED = re.compile(r"^Applied edit to (\S[^\n]{0,200}?)\s*$", re.M)


def applied_edits(tool_text: str) -> list[str]:
    """The files a host says it applied the agent's edits to, in a tool turn's text."""
    return _APPLIED.findall(tool_text)


class OutsideText:
    """The tool turns of a batch, to recognise an agent sentence that restates one of them."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.runs: set[tuple[str, ...]] = set()
        self.words: list[tuple[int, frozenset[str]]] = []  # a tool turn's number and its words, in their order
        self.having: dict[str, list[int]] = {}  # a word -> the tool turns (their place in ``words``) holding it
        for i, t in enumerate(turns):
            if t.role != "tool":
                continue
            toks = re.findall(r"\w+", t.content.casefold())
            for k in range(len(toks) - SHARED_RUN + 1):
                self.runs.add(tuple(toks[k : k + SHARED_RUN]))
            words = frozenset(toks)
            for w in words:
                self.having.setdefault(w, []).append(len(self.words))
            self.words.append((i, words))

    def restates(self, sentence: str, before: int, share: float = SHARED_SHARE, least: int = 5) -> bool:
        """Whether ``sentence`` (of turn ``before``) shares a run of SHARED_RUN words with a tool turn, or ``share``
        of its content words (at least ``least``) with one tool turn before it. A tool turn holding that many of
        them holds one of any ``len(content) - need + 1`` of them: only the tool turns that hold one of its rarest
        words are compared (a long agentic batch has thousands of tool turns)."""
        if not self.words:
            return False
        toks = re.findall(r"\w+", sentence.casefold())
        if any(tuple(toks[k : k + SHARED_RUN]) in self.runs for k in range(len(toks) - SHARED_RUN + 1)):
            return True
        content = {w for w in toks if len(w) >= 3 and w not in STOPWORDS}
        if len(content) < least:
            return False
        need = math.ceil(share * len(content))
        if need <= 0:
            return self.words[0][0] < before
        rare = sorted(content, key=lambda w: (len(self.having.get(w, ())), w))[: len(content) - need + 1]
        seen = {k for w in rare for k in self.having.get(w, ())}
        return any(self.words[k][0] < before and len(content & self.words[k][1]) >= need for k in seen)
