"""Drafting ``## Retain`` bullets from a plain daily log (spec 004: "the reflect job can infer these
bullets from the rest of the log"), offline, with rules a person can read:

- preferences and judgements ("prefers", "likes", "can't stand", "I think") -> ``O`` with a confidence
  from the wording (see ``_OPINION``);
- first-person accounts of what was done ("I fixed ...", "we shipped ...") -> ``B``;
- dated events and plans (a date, "yesterday", "next week", "will", "going to") and what someone says of
  themselves ("I'm reading ...", "I usually ...", "my dog is ...") -> ``W``; relative dates get the date
  they mean in parentheses, so the bullet still reads right next month.

A chat line ``Name: text`` has a speaker: "I" becomes the speaker and the speaker an entity. Entities
come from entity pages and their aliases, names already mentioned in the index, speakers, and
capitalised names. Every drafted bullet parses with the Retain parser (tested); a bullet the log
already has (same text after normalisation) is never drafted again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..facts.retain import KIND_LETTERS, normalize_name, parse_retain, retain_sections
from ..files.writer import insert_text
from ..text.keywords import STOPWORDS
from ..text.markdown import parse
from ..text.timeparse import TimeMention, find_times
from ..workspace import day_of, list_memory_files, read_lines, resolve_memory_path

_LEAD = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")  # list markers
_TAG = re.compile(r"^\[[^\]]{1,20}\]\s*")  # "[D1:3]" turn ids, "[14:05]" times
_SPEAKER = re.compile(r"^(?P<name>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+(?P<text>.+)$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“(])")
# "(image: a beach)": from where a run of spaces starts, the run taken whole, to the first ")" before another
# "(image:": linear, where "\s*\((?:image|photo):[^)]*\)" walked a run once per space it holds and the rest
# of the line once per unclosed "(image:".
_IMAGE = re.compile(r"(?<!\s)\s*+\((?:image|photo):(?:[^()]++|\((?!(?:image|photo):))*+\)", re.IGNORECASE)
_NON_PEOPLE = {"user", "assistant", "system", "note", "todo", "q", "a", "re", "fyi", "ps"}

# (pattern, confidence): the first that matches a sentence sets it. Strong words first.
_OPINION = [
    (
        re.compile(r"\b(?:love[sd]?|hate[sd]?|can'?t stand|cannot stand|adore[sd]?|favou?rite|always|never)\b", re.I),
        0.9,
    ),
    (re.compile(r"\b(?:prefer(?:s|red)?|likes?|liked|enjoy(?:s|ed)?|dislikes?|disliked|rather)\b", re.I), 0.75),
    (re.compile(r"\b(?:i think|i believe|i feel|we think|in my opinion|seems?|probably|i guess)\b", re.I), 0.6),
    (re.compile(r"\b(?:maybe|might|not sure|perhaps)\b", re.I), 0.4),  # a hedged judgement
]
_HEDGE = re.compile(r"\b(?:maybe|might|not sure|perhaps|kind of|sort of)\b", re.I)
_FIRST_PERSON_DID = re.compile(
    r"\b(?:I|we)\s+(?:just\s+|finally\s+|also\s+)?"
    r"(?:\w+ed|went|made|got|did|took|met|saw|found|wrote|built|ran|began|bought|sold|won|lost|gave|"
    r"brought|left|spent|came|had|told|taught|read|drove|flew|sent|fixed|shipped|started|finished|joined)\b"
)
# Statements about oneself in the present: "I'm reading ...", "I usually ...", "my dog is ..." (facts about the speaker)
_FIRST_PERSON_STATE = re.compile(
    r"\b(?:I'm|I am|I've been|I have|I usually|I often|I always|I try|I find|I work|I live|I own|I use|I'm into|"
    r"my \w+(?: \w+)? (?:is|are|was|were|has|have))\b",
    re.IGNORECASE,
)
_PLAN = re.compile(r"\b(?:will|going to|gonna|plan(?:s|ning)? to|next (?:week|month|year)|tomorrow|soon)\b", re.I)
_CAPITALISED = re.compile(r"(?<![\w@])([A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2})\b")
_NOT_NAMES = {
    "I", "I'm", "The", "A", "An", "And", "But", "So", "Then", "This", "That", "These", "Those", "It", "We", "You",
    "He", "She", "They", "My", "Our", "Your", "His", "Her", "Their", "What", "When", "Where", "Why", "How", "Who",
    "Yes", "No", "Oh", "Hey", "Hi", "Hello", "Thanks", "Thank", "Wow", "Great", "Good", "Nice", "Sure", "Well",
    "Today", "Yesterday", "Tomorrow", "Also", "Just", "Really", "Totally", "Awesome", "Cool", "Sounds", "Let",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February",
    "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
}  # fmt: skip


@dataclass(frozen=True)
class Draft:
    kind: str  # "world" | "experience" | "opinion"
    content: str
    entities: tuple[str, ...]
    line: int  # the log line it was drawn from (1-based)
    confidence: float | None = None

    def bullet(self) -> str:
        letter = KIND_LETTERS[self.kind]
        conf = f"(c={self.confidence:g})" if self.confidence is not None else ""
        mentions = " ".join("@" + (e if re.fullmatch(r"[\w.-]+", e) else f"[{e}]") for e in self.entities)
        return f"- {letter}{conf} {mentions}: {self.content}" if mentions else f"- {letter}{conf}: {self.content}"


def normalized(text: str) -> str:
    """What two bullets must share to be the same: words, case-folded, without mentions or punctuation."""
    body = re.sub(r"^\s*[-*+]\s*[A-Z](?:\([^)]*\))?\s*(?:@\S+\s*|@\[[^\]]*\]\s*)*:?", "", text.strip())
    return " ".join(re.findall(r"\w+", body.casefold()))


def draft_log(
    text: str, day: dt.date | None, known: Iterable[str] = (), speakers: Iterable[str] = (), whole: bool = False
) -> list[Draft]:
    """Retain bullets for the log ``text`` (of ``day``), not counting what its Retain sections hold.
    ``known``: entity names to recognise (pages, aliases, names the index already has); ``speakers``:
    labels that name a speaker even when they read as a role ("User: ..." from a captured conversation);
    ``whole``: a line's other statements join its first fact (capture: a turn's bullet says what it said)."""
    people = {normalize_name(s) for s in speakers}
    doc = parse(text)
    skip = doc.in_code()  # code, the Retain sections' own bullets and headings are never drafted from
    for s, e in retain_sections(doc):
        skip[s:e] = [True] * (e - s)
    for h in doc.headings:
        skip[h.line : h.end] = [True] * (h.end - h.line)
    have = {normalized(f.content) for f in parse_retain(text)[0]}
    names = {normalize_name(n): n for n in known if normalize_name(n)}
    drafts: list[Draft] = []
    seen: set[str] = set(have)
    for i, raw in enumerate(doc.lines):
        if skip[i] or not raw.strip():
            continue
        line = _IMAGE.sub("", _TAG.sub("", _LEAD.sub("", raw)).strip())
        speaker = None
        m = _SPEAKER.match(line)
        if m and (normalize_name(m.group("name")) not in _NON_PEOPLE or normalize_name(m.group("name")) in people):
            speaker, line = m.group("name"), m.group("text")
        elif m:
            line = m.group("text")
        mine: list[Draft] = []
        rest: list[str] = []
        for sentence in _SENTENCE.split(line):
            d = _draft_sentence(sentence.strip(), speaker, day, names, i + 1)
            if d is not None and normalized(d.content) not in seen:
                seen.add(normalized(d.content))
                mine.append(d)
            elif d is None and whole and _informative(sentence):
                rest.append(_self_contained(sentence.strip(), speaker, find_times(sentence, day)))
        if mine and rest:  # the turn's other statements go with its first fact: one bullet says what it said
            first = mine[0]
            content = " ".join([first.content, *rest])
            mine[0] = Draft(first.kind, content, _entities(content, speaker, names), first.line, first.confidence)
        elif rest and speaker is not None and _specific(" ".join(rest)) and normalized(" ".join(rest)) not in seen:
            # what a speaker states, though no rule named it: a world fact in their words
            content = " ".join(rest)
            seen.add(normalized(content))
            mine.append(Draft("world", content, _entities(content, speaker, names), i + 1))
        drafts.extend(mine)
    return drafts


_SOCIAL = re.compile(
    r"^(?:wow|whoa|aw+|oh|hey|hi|hello|bye|thanks|thank you|thx|congrats|congratulations|good to (?:see|hear)|"
    r"great to (?:see|hear)|nice to|talk (?:to you )?(?:soon|later)|see you|take care|have a (?:good|great|nice)|"
    r"(?:that|it)(?:'s| is| was| sounds| looks) (?:so |really |very |super )?"
    r"(?:cool|great|awesome|amazing|nice|lovely|wonderful|fantastic|incredible|beautiful|fun|good))\b",
    re.IGNORECASE,
)


def _informative(sentence: str) -> bool:
    """A statement worth keeping beside a fact of the same turn: not a question or a pleasantry, and at
    least two content words among four or more."""
    s = sentence.strip()
    if len(s.split()) < 4 or s.endswith("?") or _SOCIAL.match(s):
        return False
    return len([w for w in re.findall(r"[^\W\d_]{3,}", s.lower()) if w not in STOPWORDS]) >= 2


def _specific(text: str) -> bool:
    """Names something: a capitalised word past a sentence's start, or a number (a date, a count, a price)."""
    if re.search(r"\d", text):
        return True
    starts = _sentence_starts(text)
    return any(
        m.start() > 0 and m.group(1).split()[0] not in _NOT_NAMES and m.start() not in starts
        for m in _CAPITALISED.finditer(text)
    )


def _draft_sentence(s: str, speaker: str | None, day: dt.date | None, names: dict[str, str], line: int) -> Draft | None:
    words = s.split()
    if len(words) < 4 or s.endswith("?"):
        return None
    times = find_times(s, day)
    confidence = next((c for pattern, c in _OPINION if pattern.search(s)), None)
    if confidence is not None and _HEDGE.search(s):
        confidence = 0.4
    if confidence is not None:
        kind = "opinion"
    elif _FIRST_PERSON_DID.search(s):
        kind = "experience"
    elif times or _PLAN.search(s) or _FIRST_PERSON_STATE.search(s):
        kind = "world"
    else:
        return None
    content = _self_contained(s, speaker, times)
    entities = _entities(content, speaker, names)
    return Draft(kind, content, entities, line, confidence)


def _self_contained(s: str, speaker: str | None, times: Sequence[TimeMention]) -> str:
    """The sentence as it reads later: "I" becomes the speaker; relative dates get the date they mean."""
    out = s.strip().rstrip(",;")
    for t in sorted(times, key=lambda t: -t.start):
        if t.relative:
            out = f"{out[: t.end]} ({t.range}){out[t.end :]}"
    if speaker:
        out = _THIRD_PERSON.sub(lambda m: f"{speaker} {m.group(1) or ''}{_third(m.group(2))}", out)
        for pattern, repl in (
            (r"\bI'm\b", f"{speaker} is"),
            (r"\bI've\b", f"{speaker} has"),
            (r"\bI'll\b", f"{speaker} will"),
            (r"\bI'd\b", f"{speaker} would"),
            (r"\bI\b", speaker),
            (r"\bmy\b", f"{speaker}'s"),
            (r"\bme\b", speaker),
            (r"\bmyself\b", speaker),
        ):
            out = re.sub(pattern, repl, out)
        out = out[0].upper() + out[1:]
    if not re.search(r"[.!?)]$", out):
        out += "."
    return out


# "I love ..." -> "Peter loves ...": the common verbs a speaker says of themselves, in the present tense.
_VERBS = (
    "love|like|hate|prefer|enjoy|want|need|think|feel|know|believe|live|work|use|go|do|have|plan|hope|wish|miss|"
    "own|play|read|write|run|teach|study|try|watch|cook|paint|drive|walk|visit|volunteer|collect|listen|care|mean"
)
_THIRD_PERSON = re.compile(rf"\bI ((?:really|usually|also|still|often|always|never|just|actually) )?({_VERBS})\b")


# A sentence's end and the space after it: where it ends, the next sentence starts.
_SENTENCE_END = re.compile(r"[.!?…][\"'”)]*\s*")


def _sentence_starts(text: str) -> set[int]:
    """The offsets in ``text`` just past a sentence's end ('.', '!', '?' or '…', closing quotes, space), in one
    pass: a capitalised word there proves nothing. Asking it of the text before each name instead walked the
    text once per name (a 240 KB turn took 10.8 s to capture)."""
    return {m.end() for m in _SENTENCE_END.finditer(text)}


def _third(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _entities(content: str, speaker: str | None, names: dict[str, str]) -> tuple[str, ...]:
    found: dict[str, str] = {}
    if speaker:
        found[normalize_name(speaker)] = names.get(normalize_name(speaker), speaker)
    starts = _sentence_starts(content)
    for m in _CAPITALISED.finditer(content):
        phrase, key = m.group(1), normalize_name(m.group(1))
        if key in names:
            found.setdefault(key, names[key])
        elif phrase.split()[0] not in _NOT_NAMES and m.start() > 0 and m.start() not in starts:
            # a sentence's first word proves nothing
            found.setdefault(key, phrase)
    for key, name in names.items():  # known names written in lower case ("warelay")
        if key not in found and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", content, re.IGNORECASE):
            found[key] = name
    return tuple(found.values())


@dataclass
class LogDraft:
    """The bullets drafted for one daily log, and whether they were appended to it."""

    path: str
    day: str | None
    drafts: list[Draft]
    written: bool = False
    lines: tuple[int, int] | None = None  # where the bullets went, when written

    def section(self) -> str:
        return "## Retain\n\n" + "\n".join(d.bullet() for d in self.drafts) + "\n" if self.drafts else ""

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "day": self.day,
            "bullets": [d.bullet() for d in self.drafts],
            "from_lines": [d.line for d in self.drafts],
            "written": self.written,
        }


def daily_logs(workspace: Path, day: dt.date | None, since: dt.date | None) -> list[tuple[str, dt.date]]:
    """The daily logs (``memory/YYYY-MM-DD*.md``) of ``day``, or of every day from ``since``, by path."""
    out = []
    for f in list_memory_files(workspace):
        d = day_of(f.path)
        if d is not None and (d == day if day is not None else since is not None and d >= since):
            out.append((f.path, d))
    return sorted(out)


class Drafter(Protocol):
    def draft(self, text: str, day: dt.date | None, known: Sequence[str]) -> list[Draft]: ...


def draft_logs(
    workspace: Path, logs: Sequence[tuple[str, dt.date]], known: Sequence[str], drafter: Drafter | None = None
) -> list[LogDraft]:
    """The new bullets of each log: drafted by ``drafter`` (default the offline rules), less those the
    log's Retain sections already hold."""
    out = []
    for rel, day in logs:
        text = read_lines(resolve_memory_path(workspace, rel))
        drafts = drafter.draft(text, day, known) if drafter is not None else draft_log(text, day, known)
        have = {normalized(f.content) for f in parse_retain(text)[0]}
        out.append(LogDraft(rel, day.isoformat(), [d for d in drafts if normalized(d.content) not in have]))
    return out


def append_drafts(workspace: Path, drafts: Sequence[LogDraft]) -> bool:
    """Append each log's drafted bullets under its ``## Retain`` heading (created if missing), through the
    writer. Returns whether anything was written."""
    for log in drafts:
        if log.drafts:
            res, _ = insert_text(workspace, log.path, "\n".join(d.bullet() for d in log.drafts), heading="Retain")
            log.written, log.lines = True, (res.start_line, res.end_line)
    return any(log.written for log in drafts)
