"""From a batch of turns to what is worth keeping: Retain drafts with their speaker, and a short digest.

The drafting rules live in :mod:`memlane.capture.draft` (the source filter first, then who said it
decides what may be kept, within a budget). This module adds what spans a batch: a correction ("no,
it's Lisbon, not Porto") rewrites the drafts of the same batch that said Porto and is itself not
drafted; and the digest, at most :data:`DIGEST_LINES` lines that say who did what: "Remember" and
"Decided" only for what the person said or agreed to, "Done" and "Found" for the agent's outcomes, one
line each, never its prose or Markdown.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..reflect.extract import normalized
from .draft import Drafted, draft_candidates, speaker_of
from .outcomes import NARRATION
from .prose import read_prose
from .turns import Turn

__all__ = ["Correction", "Drafted", "apply_correction", "corrections", "digest", "draft_turns", "speaker_of"]

DIGEST_LINES = 6
DIGEST_CHARS = 200
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# "no, it's Lisbon, not Porto" / "actually Lisbon, not Porto" / "not Porto but Lisbon"
_CORRECTION_LEAD = re.compile(r"^\s*(?:no|nope|actually|sorry|correction|wait|i meant|oops)\b[,.!:;]?\s*", re.I)
# A word of a correction, bounded so that a search over a long run of letters stays linear.
_W = r"[\w'’.-]{1,40}"
_X_NOT_Y = re.compile(
    rf"(?:it'?s |it is |i meant |i said )?(?P<new>{_W}(?: {_W}){{0,3}}),? not (?P<old>{_W}(?: {_W}){{0,3}})", re.I
)
_NOT_Y_X = re.compile(rf"not (?P<old>{_W}(?: {_W}){{0,3}}),? (?:but |it'?s |it is )(?P<new>{_W}(?: {_W}){{0,3}})", re.I)


_AGREED = re.compile(r' agreed to ["“](.{1,400})["”]: ')  # draft._takes_settled's bullet


@dataclass(frozen=True)
class Correction:
    old: str
    new: str
    turn: int


def without_narration(text: str) -> str:
    """An assistant's text less the sentences that only say what it is about to do."""
    kept = [s for s in _SENTENCE.split(text) if s.strip() and not NARRATION.match(s.strip())]
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
    turns: Sequence[Turn],
    day: dt.date | None,
    known: Iterable[str],
    user_name: str = "User",
    budget: bool = True,
    chat: bool = False,
) -> list[Drafted]:
    """Retain drafts of a batch of turns (already cleaned of secrets and exclusions), each with its speaker:
    the rules of :mod:`memlane.capture.draft`. A correction's own sentence is not drafted; it rewrites the
    batch's earlier drafts that said the old value."""
    plain = []
    for t in turns:
        if t.role == "user" and any(_is_correction(s.strip()) for s in _SENTENCE.split(t.content)):
            kept = [s for s in _SENTENCE.split(t.content) if s.strip() and not _is_correction(s.strip())]
            t = replace(t, content=" ".join(s.strip() for s in kept))
        plain.append(t)
    out = draft_candidates(plain, day, known, user_name, budget, chat)
    for fix in corrections(turns):
        for k, item in enumerate(out):
            if item.turn < fix.turn:
                new = apply_correction(item.draft.content, fix)
                if new is not None:
                    ents = tuple(fix.new if e.casefold() == fix.old.casefold() else e for e in item.draft.entities)
                    out[k] = replace(item, draft=replace(item.draft, content=new, entities=ents))
    return out


def digest(turns: Sequence[Turn], done: Sequence[Drafted]) -> list[str]:
    """At most DIGEST_LINES lines, who did what: the person's "Remember" and "Decided", then the agent's
    "Done" and "Found", each one line drawn from the batch's drafts (prose only: the source filter ran)."""
    labels = {"remember": "Remember", "decided": "Decided", "done": "Done", "found": "Found"}
    order = {"remember": 0, "decided": 1, "done": 2, "found": 3}
    items = sorted((d for d in done if d.draft.kind != "opinion" and d.role in labels), key=lambda d: order[d.role])
    out: list[str] = []
    seen: set[str] = set()
    for d in items:
        if (d.speaker == "assistant") != (d.role in ("done", "found")):
            continue  # "Decided" is only ever the person's; "Done"/"Found" only the agent's
        text = _digest_text(turns[d.turn], d) if d.turn < len(turns) else d.draft.content
        key = normalized(text)
        if key and key not in seen and len(out) < DIGEST_LINES:
            seen.add(key)
            out.append(f"{labels[d.role]}: {_short(text)}")
    return out


def _digest_text(turn: Turn, d: Drafted) -> str:
    """A digest line says it in the speaker's own words: the person's sentence as written (first person); a
    confirmation, choice or answer as drafted, with what it confirms, chose or answered."""
    if turn.role != "user" or d.draft.content.startswith(
        tuple(f"{d.speaker} {verb}" for verb in ("confirmed ", "did: ", "chose ", "answered "))
    ):
        return d.draft.content  # "User confirmed "Set X": ok, done" says what was confirmed; "ok, done" does not
    agreed = _AGREED.match(d.draft.content[len(d.speaker) :])
    if agreed:
        return agreed.group(1)  # 'User agreed to "Final plan: A; B": ok go': the digest says what was settled
    for unit in read_prose(turn.content).units:
        flat = " ".join(unit.split())
        if flat and normalized(flat) and normalized(flat) in normalized(d.draft.content.replace(d.speaker, "I")):
            return flat
    return d.draft.content


def _short(s: str) -> str:
    s = s.strip()
    return s if len(s) <= DIGEST_CHARS else s[: DIGEST_CHARS - 1].rsplit(" ", 1)[0] + "…"
