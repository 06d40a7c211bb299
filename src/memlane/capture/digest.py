"""From a batch of turns to what is worth keeping: Retain drafts with their speaker, and a short digest.

Offline rules, the same as ``memlane retain`` (:mod:`memlane.reflect.extract`) applied to the turns of a
conversation rendered as ``Speaker: text`` lines, so a turn's "I" becomes its speaker. What a speaker
says decides what may be kept of it:

- the user's (or a named speaker's) words: world facts, experiences and opinions, all drafted;
- the assistant's words: only what it did (``B``, first person: "I fixed the import"); its claims
  about the world are never recorded as facts, and its narration ("Let me check…", "I'll now…") is
  dropped before anything is drafted.

A correction ("no, it's Lisbon, not Porto") rewrites the drafts of the same batch that said Porto,
and is itself not drafted. The digest is at most :data:`DIGEST_LINES` lines: what was asked to be
remembered, decided, done or found out, each a sentence of the turns, not a copy of the transcript.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..reflect.extract import Draft, draft_log, normalized
from .turns import Turn

DIGEST_LINES = 6
DIGEST_CHARS = 200
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# The assistant saying what it is about to do: nothing to remember.
_NARRATION = re.compile(
    r"^(?:ok(?:ay)?[,!.]?\s+|sure[,!.]?\s+|great[,!.]?\s+|alright[,!.]?\s+|now[,]?\s+|first[,]?\s+|next[,]?\s+)?"
    r"(?:let me|let's (?:check|look|see|start|run|try|read|open|search)|i'll|i will|i'm going to|i am going to|"
    r"i need to|i should|i'm now|i am now|now i|next i|first i|looking at|checking|reading|searching|running)\b",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"\b(?:remember(?: that)?|don'?t forget|note that|from now on|keep in mind|always|never|make sure)\b", re.I
)
_DECIDED = re.compile(
    r"\b(?:let'?s|we(?:'ll| will) (?:go with|use)|decided|decision|agreed|going with|settled on|we chose|i chose)\b",
    re.I,
)
_LEARNED = re.compile(r"\b(?:turns out|it turned out|the (?:root )?cause|the (?:problem|issue) was|because)\b", re.I)
# "no, it's Lisbon, not Porto" / "actually Lisbon, not Porto" / "not Porto but Lisbon"
_CORRECTION_LEAD = re.compile(r"^\s*(?:no|nope|actually|sorry|correction|wait|i meant|oops)\b[,.!:;]?\s*", re.I)
# A word of a correction, bounded so that a search over a long run of letters stays linear.
_W = r"[\w'’.-]{1,40}"
_X_NOT_Y = re.compile(
    rf"(?:it'?s |it is |i meant |i said )?(?P<new>{_W}(?: {_W}){{0,3}}),? not (?P<old>{_W}(?: {_W}){{0,3}})", re.I
)
_NOT_Y_X = re.compile(rf"not (?P<old>{_W}(?: {_W}){{0,3}}),? (?:but |it'?s |it is )(?P<new>{_W}(?: {_W}){{0,3}})", re.I)


@dataclass(frozen=True)
class Drafted:
    """A draft and the turn it came from (index into the batch)."""

    draft: Draft
    turn: int
    speaker: str  # whose words: a name, "user" or "assistant"


@dataclass(frozen=True)
class Correction:
    old: str
    new: str
    turn: int


def speaker_of(turn: Turn, user_name: str) -> str:
    if turn.name:
        return turn.name
    return user_name if turn.role == "user" else "assistant"


def without_narration(text: str) -> str:
    """An assistant's text less the sentences that only say what it is about to do."""
    kept = [s for s in _SENTENCE.split(text) if s.strip() and not _NARRATION.match(s.strip())]
    return " ".join(s.strip() for s in kept)


def corrections(turns: Sequence[Turn]) -> list[Correction]:
    """The user's corrections of a batch: "no, it's X, not Y" and its variants."""
    out = []
    for i, t in enumerate(turns):
        if t.role != "user":
            continue
        for sentence in _SENTENCE.split(t.content):
            lead = _CORRECTION_LEAD.match(sentence)
            if not lead:
                continue
            rest = sentence[lead.end() :].rstrip(" .!")
            m = _NOT_Y_X.search(rest) or _X_NOT_Y.search(rest)
            if m and normalized(m.group("old")) and normalized(m.group("new")) != normalized(m.group("old")):
                out.append(Correction(m.group("old").strip(), m.group("new").strip(), i))
    return out


def _is_correction(sentence: str) -> bool:
    lead = _CORRECTION_LEAD.match(sentence)
    return bool(lead and (_NOT_Y_X.search(sentence[lead.end() :]) or _X_NOT_Y.search(sentence[lead.end() :])))


def apply_correction(content: str, fix: Correction) -> str | None:
    """``content`` with the corrected value in place of the old one, or None when it does not say it."""
    pattern = re.compile(rf"(?<!\w){re.escape(fix.old)}(?!\w)", re.IGNORECASE)
    return pattern.sub(fix.new, content) if pattern.search(content) else None


def draft_turns(
    turns: Sequence[Turn], day: dt.date | None, known: Iterable[str], user_name: str = "User"
) -> list[Drafted]:
    """Retain drafts of a batch of turns (already cleaned of secrets and exclusions), each with its speaker.

    The turns are rendered as a chat log, one line per sentence group, so the offline drafter sees each
    speaker; the assistant keeps only what it did. Corrections rewrite earlier drafts of the batch."""
    lines: list[str] = []
    owner: list[int] = []
    for i, t in enumerate(turns):
        text = without_narration(t.content) if t.role == "assistant" else t.content
        speaker = speaker_of(t, user_name)
        label = _label(speaker) if t.role == "user" or t.name else None
        for para in text.split("\n"):
            para = " ".join(s for s in _SENTENCE.split(para.strip()) if s.strip() and not _is_correction(s))
            if not para:
                continue
            lines.append(f"{label}: {para}" if label else f"Assistant: {para}")
            owner.append(i)
    drafts = draft_log(_escape_markdown("\n".join(lines)), day, known, speakers=[_label(user_name)], whole=True)
    out: list[Drafted] = []
    for d in drafts:
        i = owner[d.line - 1]
        t = turns[i]
        if t.role == "assistant" and not t.name:
            if d.kind != "experience" or not re.match(r"^(?:I|We)\b", d.content):
                continue  # the assistant's claims about the world are not the user's facts
            d = replace(d, entities=tuple(e for e in d.entities if e.casefold() != "assistant"))
        out.append(Drafted(d, i, speaker_of(t, user_name)))
    for fix in corrections(turns):
        for k, item in enumerate(out):
            if item.turn < fix.turn:
                new = apply_correction(item.draft.content, fix)
                if new is not None:
                    ents = tuple(fix.new if e.casefold() == fix.old.casefold() else e for e in item.draft.entities)
                    out[k] = replace(item, draft=replace(item.draft, content=new, entities=ents))
    seen: set[str] = set()
    unique = []
    for item in out:
        key = normalized(item.draft.content)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


def _label(name: str) -> str:
    """A speaker label the drafter reads as a speaker (``Name:``): capitalised, at most three words."""
    words = re.findall(r"[\w'’.-]+", name)[:3] or ["User"]
    return " ".join(w[:1].upper() + w[1:] for w in words)


def _escape_markdown(text: str) -> str:
    """A turn's text as plain log lines: a heading, fence or Retain section inside a message is text."""
    return re.sub(r"(?m)^(\s*)(#|```|~~~)", r"\1\\\2", text)


def digest(turns: Sequence[Turn], done: Sequence[Drafted]) -> list[str]:
    """At most DIGEST_LINES lines: asked to remember, decided, done, found out (in that order)."""
    remember: list[str] = []
    decided: list[str] = []
    learned: list[str] = []
    for t in turns:
        text = without_narration(t.content) if t.role == "assistant" else t.content
        for s in _SENTENCE.split(text):
            s = " ".join(s.split())
            if len(s.split()) < 4 or s.endswith("?"):
                continue
            if t.role == "user" and _REMEMBER.search(s):
                remember.append(s)
            elif _DECIDED.search(s):
                decided.append(s)
            elif t.role == "assistant" and _LEARNED.search(s):
                learned.append(s)
    did = [d.draft.content for d in done if d.draft.kind == "experience" and d.speaker == "assistant"]
    out: list[str] = []
    seen: set[str] = set()
    for label, items in (("Remember", remember), ("Decided", decided), ("Done", did), ("Found", learned)):
        for s in items:
            key = normalized(s)
            if key and key not in seen and len(out) < DIGEST_LINES:
                seen.add(key)
                out.append(f"{label}: {_short(s)}")
    return out


def _short(s: str) -> str:
    s = s.strip()
    return s if len(s) <= DIGEST_CHARS else s[: DIGEST_CHARS - 1].rsplit(" ", 1)[0] + "…"
