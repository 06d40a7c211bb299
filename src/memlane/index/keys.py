"""Keys that are not values: each item of a chunk (a turn, a bullet, a line) embedded with its neighbours.

A chunk's vector averages ~5 lines of a chat log, so a question about one of them meets a blend of
all five. Each item of the chunk gets a vector of its own, keyed with the item before and after it
(a reply is read with what it answers), and search scores a candidate chunk by its best key as well
as by its own vector (``query.hybrid.keyWeight``). What is returned is unchanged: the chunk, widened
to the result window. LoCoMo, tune half: R@5 0.909 -> 0.922, MRR 0.796 -> 0.813 (DESIGN.md §14).

A neighbour contributes at most its first ``NEIGHBOUR_WORDS`` words: an assistant's long answer
before a short user turn would otherwise fill the model's 256 wordpieces and the turn itself would not
be read at all.

Items: a line that is not indented starts one, an indented line continues the one before (a turn's
further paragraphs, a bullet's wrapped text); headings and blank lines are no items. The key drops
list markers and a leading tag such as ``[D1:3]`` or ``[10:32]``: tags carry no meaning a sentence
model can use. An assistant's item ("assistant: ...", and the rest of that answer when a chunk starts
inside it) is marked: its key counts ``query.hybrid.assistantWeight`` times, because a memory is mostly
what the user said, and long answers otherwise win both lexical and semantic matches.

An item of more than ``SENTENCE_MIN_WORDS`` words is also keyed sentence by sentence. People mention what
matters in passing, inside a turn about something else ("...any tips on companion plants? By the way, I
started ukulele lessons today"): one vector of the whole turn is about its main topic, and the question
about the remark meets it at a low cosine. Each sentence (or line) of ``SENTENCE_MIN_KEY_WORDS`` words
or more is a key of its own, with the item's speaker mark. LongMemEval pooled, R@5 / MRR 0.633 / 0.513 ->
0.717 / 0.580; turn level 0.883 / 0.717 -> 0.917 / 0.781 (DESIGN.md §26).

A chunk of one item has that item as its key; a chunk of headings only has no key, and its vector
score is only the ``1 - keyWeight`` share of its own: a heading names a day and who spoke, which every
question of a chat matches, and says nothing that answers one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.markdown import ATX_LINE as HEADING

KEYS_VERSION = 3  # 3: long items are keyed sentence by sentence too
NEIGHBOURS = 1  # items either side that go into an item's key
NEIGHBOUR_WORDS = 40  # of each neighbour: the model reads 256 wordpieces, and the item must be among them
SENTENCE_MIN_WORDS = 25  # an item longer than this is keyed sentence by sentence as well (40 and 80: §26)
SENTENCE_MIN_KEY_WORDS = 4  # shorter sentences ("Thanks!", "Wow, great.") are no keys of their own
# A word, for those counts: a run of letters or digits, or one CJK character (those scripts use no spaces).
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\s\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
# A sentence ends at . ! ? (before a capital, quote or bracket) or at 。！？, and at every line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z])|(?<=[。！？])|\n")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_TAG = re.compile(r"^\[[^\]\n]{1,24}\]\s*")
# An item an assistant said, as transcripts and chat logs write it ("Assistant: ...", "assistant: ...", and
# with the name in bold as Markdown exports of chats have it: "**Assistant:** ...", "**ChatGPT**: ...").
_ASSISTANT = re.compile(r"^[*_]{0,2}(?:assistant|ai|bot|model|chatgpt)(?:[*_]{0,2}\s*:|\s*:[*_]{0,2})", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Key:
    text: str
    assistant: bool  # the item is an assistant's words (its key counts for less: query.hybrid.assistantWeight)


def items(text: str) -> list[str]:
    """The items of a chunk's text, each with its continuation lines, markers and tags removed."""
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or HEADING.match(line):
            continue
        if line[0] in " \t" and out:
            out[-1] += "\n" + line.strip()
            continue
        item = _bare(line)
        if item:
            out.append(item)
    return out


def chunk_keys(text: str, lead: str = "") -> list[Key]:
    """The keys of one chunk: each item with ``NEIGHBOURS`` items either side. ``lead`` is the line that
    starts the item the chunk's first line continues, if it does (a chunk can begin inside a long answer):
    who said that item is who said the fragment."""
    parts = items(text)
    short = [_first_words(p, NEIGHBOUR_WORDS) for p in parts]
    keys: dict[str, Key] = {}
    for i, (part, assistant) in enumerate(zip(parts, _assistants(text, parts, lead), strict=True)):
        key = "\n".join([*short[max(0, i - NEIGHBOURS) : i], part, *short[i + 1 : i + NEIGHBOURS + 1]])
        if key in keys:  # the same text twice (a two-item chunk): an assistant's only if both were
            assistant = assistant and keys[key].assistant
        keys[key] = Key(key, assistant)
        for sentence in sentences(part):
            if sentence not in keys:
                keys[sentence] = Key(sentence, assistant)
    return list(keys.values())


def said_text(text: str, lead: str = "") -> str:
    """What a chunk's text says in anyone's words but an assistant's: its items without the assistant's (and
    without headings). The keyword leg also matches this text alone (``query.hybrid.userTextWeight``): an
    assistant's long lists otherwise win BM25 on the words of a question about the user's own life."""
    parts = items(text)
    return "\n".join(p for p, assistant in zip(parts, _assistants(text, parts, lead), strict=True) if not assistant)


def _assistants(text: str, parts: list[str], lead: str) -> list[bool]:
    """Whether each item of ``text`` is an assistant's; ``lead`` as for :func:`chunk_keys`."""
    first = next((line for line in text.split("\n") if line.strip() and not HEADING.match(line)), "")
    continues = bool(lead) and first[:1] in (" ", "\t")
    return [bool(_ASSISTANT.match(_bare(lead) if i == 0 and continues else p)) for i, p in enumerate(parts)]


def sentences(item: str) -> list[str]:
    """The sentence keys of an item: none when it is ``SENTENCE_MIN_WORDS`` words or shorter or one sentence,
    else each of its sentences (or lines) of ``SENTENCE_MIN_KEY_WORDS`` words or more."""
    if len(_WORD.findall(item)) <= SENTENCE_MIN_WORDS:
        return []
    parts = [p.strip() for p in _SENTENCE_END.split(item)]
    if len(parts) < 2:
        return []  # one sentence: the item's own key says it already
    return [p for p in parts if len(_WORD.findall(p)) >= SENTENCE_MIN_KEY_WORDS]


def lead_line(lines: list[str], index: int) -> str:
    """The line that starts the item line ``index`` (0-based) belongs to: the nearest line at or above it
    that is not indented; "" when there is none (the file starts indented)."""
    for i in range(index, -1, -1):
        line = lines[i]
        if line.strip() and line[0] not in " \t":
            return line
    return ""


def _bare(line: str) -> str:
    """A line without its list marker and leading tag."""
    return _TAG.sub("", _MARKER.sub("", line)).strip()


def _first_words(text: str, n: int) -> str:
    words = text.split()
    return text if len(words) <= n else " ".join(words[:n]) + " …"
