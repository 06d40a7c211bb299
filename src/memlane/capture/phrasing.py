"""How capture writes a drafted bullet: the speaker's words, cut to size, and the entities they name.

The speaker's words are kept as they wrote them, in their first person, after the speaker's
name ("User said: I run Arch with Hyprland"). Nothing is rewritten or capitalised: a rewrite into the
third person has to guess verbs and pronouns ("I dont" -> "User dont", ``~/.oh-my-zsh`` ->
``~/.oh-User's-zsh``) and loses the words a person later asks with ("read my Bible"). Backtick spans,
paths, commands, URLs, numbers and quotes are therefore kept byte for byte. Only emphasis markers and a
host's image placeholders are removed, and a relative date is followed by the date it means.

A bullet's entities are decided from its text alone (its speaker, known names, capitalised names that are not
common words), so an import interrupted and run again finds the same. What is drafted, and how many, is
:mod:`memlane.capture.draft`.
"""

from __future__ import annotations

import datetime as dt
import re

from ..facts.retain import normalize_name
from ..text.keywords import STOPWORDS
from ..text.timeparse import find_times

MAX_CHARS = 320  # a bullet's text past this is cut at a word boundary outside backticks
MAX_ENTITIES = 3  # besides the speaker

# Spans kept byte for byte: backticks, quotes, URLs, paths and identifiers (any token with a path or code
# character in it).
PROTECTED = re.compile(
    r"`[^`\n]{0,300}`|\"[^\"\n]{0,300}\"|“[^”\n]{0,300}”|https?://\S{1,500}"
    r"|(?<!\S)(?:[^\s`\"“]{0,200}[/\\~_=<>{}\[\]$]\S{0,200}|\S{1,200}\.[A-Za-z0-9]\S{0,200})"
)
_IMAGE_REF = re.compile(r"\[Image #\d{1,4}\]")  # the host's placeholder for a pasted image
_EMPHASIS = re.compile(r"(?<![*\w])\*\*(?=\S)|(?<=\S)\*\*(?![*\w])|(?<![_\w])__(?=\S)|(?<=\S)__(?![_\w])")
_CODE_OR_APOSTROPHE = re.compile(r"(`[^`\n]{0,300}`)|[’‘]")
_CODE_OR_EMPHASIS = re.compile(r"(`[^`\n]{0,300}`)|" + _EMPHASIS.pattern)  # a backtick span is kept as it is
FIRST_PERSON = re.compile(r"(?<![\w'’-])(?:I|i|I'm|I've|I'll|I'd|Im|me|my|My|mine|myself|we|We|us|our|Our)(?![\w'’-])")


def clean(text: str) -> str:
    """A prose unit as a bullet writes it: emphasis markers out (outside backticks), spaces collapsed."""
    text = _IMAGE_REF.sub("", text)
    # one pass over the whole line, so a marker next to a backtick span ("**`app.py`**") is seen with its neighbour
    text = _CODE_OR_EMPHASIS.sub(lambda m: m.group(1) or "", text)
    return " ".join(text.split())


def straight(text: str) -> str:
    """Typographic apostrophes (’ ‘, as Codex and phone keyboards write them) as ``'`` outside backtick spans, so
    "I’ve fixed" is read as "I've fixed" by the rules; the words are unchanged."""
    if "’" not in text and "‘" not in text:
        return text
    return _CODE_OR_APOSTROPHE.sub(lambda m: m.group(1) or "'", text)


def cut(text: str) -> str:
    """At most MAX_CHARS, cut at a space outside backticks and quotes."""
    if len(text) <= MAX_CHARS:
        return text
    spans = [(m.start(), m.end()) for m in PROTECTED.finditer(text)]
    at = MAX_CHARS
    for i in range(MAX_CHARS, 0, -1):
        if text[i] == " " and not any(a < i < b for a, b in spans):
            at = i
            break
    return text[:at].rstrip(" ,;:—–-") + " …"


def quote(question: str) -> str:
    """The agent's question as a short answer's bullet quotes it: cut, in quotes it does not hold."""
    q = cut(question)
    return f'"{q}"' if '"' not in q else f"“{q}”"


def self_contained(u: str, speaker: str, day: dt.date | None) -> str:
    """The sentence as it reads later: the speaker named, relative dates followed by the date they mean."""
    out = u.rstrip(" ,;")
    for t in sorted(find_times(out, day), key=lambda t: -t.start):
        if t.relative:
            out = f"{out[: t.end]} ({t.range}){out[t.end :]}"
    plain = PROTECTED.sub(" ", out)
    return f"{speaker} said: {out}" if FIRST_PERSON.search(plain) or "我" in plain else out  # 我: "I" in Chinese


# --- entities ----------------------------------------------------------------------------------------

_CAPITALISED = re.compile(
    r"(?<![\w@'’.&-])((?=[A-Z][\w&]{0,40}[a-z])[A-Z][\w&]{0,40}(?:[ -][A-Z][\w&]{0,40}){0,2}"
    r"|[A-Z][\w&]{0,40}(?:[ -](?=[A-Z][\w&]{0,40}[a-z])[A-Z][\w&]{0,40}){1,2})(?![\w'’&-])"
)
_NOT_NAMES = frozenset(
    re.findall(
        r"\S+",
        "I The A An And But So Then This That These Those It We You He She They My Our Your His Her Their "
        "What When Where Why How Who Which Yes No Oh Hey Hi Hello Thanks Thank Wow Great Good Nice Sure Well "
        "Today Yesterday Tomorrow Also Just Really Totally Awesome Cool Sounds Let Lets Okay Ok Done Note "
        "Notes Error Errors Warning Added Use Used Uses User Users Temp Recommended If Don Do Does Did Not "
        "Now New Next Last First Second Third All Any Each Every Some None Both Either More Most Less Only "
        "Please Maybe Perhaps Here There Still Even Update Updated Fixed Created Changed Removed Install "
        "Installed Run Running Check Try See Make Set Add Read Write File Files Folder Config Settings Option "
        "Options Step Steps Summary Result Results Status Test Tests Issue Issues Problem Fix Change Changes "
        "Feature Features Version Default Current Example Examples Usage Output Input Value Values Type Types "
        "Name Names Time Date Day Week Month Year Morning Evening Night Monday Tuesday Wednesday Thursday "
        "Friday Saturday Sunday January February March April May June July August September October November "
        "December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Wed Thu Fri Sat Sun Assistant "
        "System Tool Tools Agent Before After During While With Without From Into Over Under True False Null "
        "None TODO Important Remember Always Never Yeah Nah Nope Yep Alright Cause Because Since However "
        "Although Though Actually Meanwhile Otherwise Therefore Instead Besides Unfortunately Finally Anyway "
        "Additionally Furthermore Moreover Basically Hopefully Ideally Currently Recently Initially Specifically",
    )
)


_LABEL_DONE = re.compile(r"\b[A-Z][a-z]{3,}ed$")  # a label's last word, a past participle: "Context Established"


def entities(content: str, speaker: str | None, names: dict[str, str], lower_names: dict[str, str]) -> tuple[str, ...]:
    """The entities of a bullet: its speaker, known names as written (a known name spelled in lower case
    also in any case), and capitalised names past a sentence's start outside protected spans that are not
    common words. Decided from the text alone, so an import interrupted and run again finds the same."""
    found: dict[str, str] = {}
    if speaker:
        found[normalize_name(speaker)] = names.get(normalize_name(speaker), speaker)
    plain = PROTECTED.sub(_blank, content)
    for m in _CAPITALISED.finditer(plain):
        phrase = m.group(1)
        key = normalize_name(phrase)
        if key in names and names[key] == phrase:
            found.setdefault(key, names[key])
            continue
        words = phrase.replace("-", " ").split()
        while words and words[0] in _NOT_NAMES:
            words = words[1:]
        if not words:
            continue
        lead = plain[: m.start()].rstrip()
        initial = not lead or lead[-1] in ".!?:;—–-(\"'“*#>|。！？；："
        if initial and words[0] == phrase.split()[0]:
            continue  # a sentence's first word proves nothing
        phrase = " ".join(w for w in words)
        if any(w in _NOT_NAMES for w in words) or phrase.casefold() in STOPWORDS:
            continue
        if plain[m.end() : m.end() + 1] == ":" and _LABEL_DONE.search(phrase):
            continue  # a report's label ("Context Established: ...", "Tests Passed: ..."): what happened, no name
        found.setdefault(normalize_name(phrase), phrase)
    for key, name in lower_names.items():  # known names written in lower case ("warelay")
        if key not in found and re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-])", plain, re.IGNORECASE):
            found[key] = name
    items = list(found.values())
    return tuple(items[: MAX_ENTITIES + (1 if speaker else 0)])


def _blank(m: re.Match[str]) -> str:
    """A protected span as spaces, less the marks that end a sentence after it: a path ending a sentence
    ("(`lib/a.ex:1`).; Replaced ...") still ends it, so the next capitalised word opens a sentence."""
    span = m.group(0)
    core = span.rstrip(".!?;:,)")
    return " " * len(core) + span[len(core) :]


def names_someone(text: str) -> bool:
    """Holds a capitalised word that is not a common one (a name, wherever it stands)."""
    return any(w not in _NOT_NAMES for w in re.findall(r"(?<![\w'’])[A-Z][a-z]{2,}(?![\w'’])", text))


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def size(text: str) -> int:
    """Words in ``text``, counting a run of CJK characters as one word per two characters."""
    return len(text.split()) + len(_CJK.findall(text)) // 2


def specific(text: str) -> bool:
    """Names a value: a number, a backtick span, a path, a URL or an identifier."""
    return bool(re.search(r"\d", text) or PROTECTED.search(text))
