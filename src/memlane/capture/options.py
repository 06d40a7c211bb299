"""Which of the options an agent listed the person chose: their decision, written with the option's own words.

After an agent's turn that lists options and asks which ("1. Keep a JSON file ... 2. Use SQLite in ..."), the
person's reply may pick one by its label ("option 2", "B", "the second one") or by its name ("let's use SQLite").
Either way the value lives in the agent's words, so the bullet carries the option verbatim as what the person
decided: "User chose option 2: Use SQLite in `~/.cache/opk/cache.db`". The agent's list is never a fact by itself.
What the options were for comes from the person's request they answer ("suggest some names for my theme"): "User chose
Night Owl as the name for their theme: ...", since the option's name alone does not say what was named.
"""

from __future__ import annotations

import difflib
import re

from ..text.keywords import STOPWORDS
from .agreed import NEGATED
from .outcomes import opens_report
from .phrasing import clean, size
from .prose import Prose

CHOICE_WORDS = 30  # a reply up to this long may name the option it picks among other words
NAME_WORDS = 5  # an option's name (the words before its ":" or dash) is at most this long

_OPTION = re.compile(
    r"\b(?:option|choice|plan|approach|number|#)\s*(?P<label>[A-Ha-h1-9])\b|^(?:(?:let'?s|lets|i'?ll) )?"
    r"(?:(?:go with|do|use|try|pick|take) )?"
    r"(?P<bare>[A-Ha-h1-9])[).]?$|\bthe (?P<ord>first|second|third|fourth|fifth|last) (?:one|option)\b",
    re.I,
)
# In a longer reply, only an explicit pick of a label counts: "let's go with option 2", "option B please"; never
# "I plan a trip", "number 2 in her class" (a letter label only upper case or before punctuation)
_PICKED_LABEL = re.compile(
    r"\b(?:(?:go(?:ing)? with|pick(?:ing)?|take|use|choose|prefer|(?:let'?s|lets|i'?ll|we'?ll) do)\s+(?:the\s+)?"
    r"(?:option|choice)\s*(?P<label>[1-9]|(?-i:[A-H])\b|[a-h](?=[).,;:!]|$)))"
    r"|\b(?:option|choice)\s*(?P<then>[1-9]|(?-i:[A-H])\b|[a-h](?=[).,;:!]|$))\W{0,3}"
    r"(?:please|it is|sounds|looks|is (?:best|better|fine|good|great|the one))\b",
    re.I,
)
# A reply that turns an option down: "neither option 1 nor option 2", "option 2 is a bad idea", "instead of X"
_REJECTS = re.compile(
    r"\b(?:neither|nor|instead of|rather than|bad idea|(?:no|not an?) (?:good )?(?:option|choice|idea)|"
    r"(?:won'?t|wouldn'?t|doesn'?t|does not|will not) work)\b",
    re.I,
)
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1}
# A reply that picks: "let's use X", "go with X", "X please", "I prefer X", "X sounds good"
_PICKS = re.compile(
    r"\b(?:let'?s|lets|go with|going with|use|pick|take|choose|chose|prefer|want|like|do|try)\b"
    r"|\b(?:sounds|looks) (?:good|great|best|right)\b|\bplease\b",
    re.I,
)
# An option's name: the words before its ":" or dash ("Next.js — full stack", "**Streamlit**: fast to build")
_NAME = re.compile(r"^\W{0,3}(?:option\s+\w\W{1,3})?(?P<name>[^:—–(]{1,60}?)\s*(?::|—|–| - |\()")
# An agent's turn that offers a choice: it asks, or says these are options
_OFFERS = re.compile(
    r"\b(?:options?|choices?|alternatives?|approaches|which (?:one|do you|would you)|prefer|pick|choose|either)\b",
    re.I,
)


_WHICH = re.compile(r"\b(?:which|either|choose|pick)\b", re.I)  # "Let me know which you prefer."


def offers(agent: Prose) -> bool:
    """Whether the agent's turn offers its list as a choice: a question about it ("Which do you prefer?"), or a
    sentence before the list that says these are options, or one after it that asks to pick ("Let me know which
    you prefer"); never a report of work done ("Done: - README.md: ..."), nor "Let me know if you prefer a
    different layout" after a list of what was done."""
    units = [clean(u) for u in agent.units]
    if not units or opens_report(units[0]):
        return False
    first = next((k for k, item in enumerate(agent.items) if item), len(units))
    return any(
        _OFFERS.search(u) and (k < first or u.endswith(("?", "？")) or _WHICH.search(u)) for k, u in enumerate(units)
    )


def _declined(reply: str, at: int) -> bool:
    """Whether the reply turns down what it names at ``at``: a negation before it in its clause ("I don't want
    Next.js", "let's not use X"), or a word that rejects an option anywhere ("neither ... nor", "a bad idea")."""
    clause = re.split(r"[,;.!?]|\b(?:but|and|so)\b", reply[:at])[-1]
    return bool(NEGATED.search(clause) or _REJECTS.search(reply))


def adopted(reply: str, agent: Prose, explicit: bool = False) -> tuple[str, str] | None:
    """The option of the agent's turn that a reply (up to CHOICE_WORDS) picks by its label ("option B", "2", "the
    second one"): how the bullet names it, and the option's words. With ``explicit`` (a reply of more than a few
    words, which may say "number 2" or "plan a" about anything else), only a pick of "option"/"choice" and a label
    ("go with option 2")."""
    text = reply.strip().rstrip(".!")
    m = _PICKED_LABEL.search(text) if explicit else _OPTION.search(text)
    if m is None or _declined(text, m.start()):
        return None
    options = [clean(u) for u, item in zip(agent.units, agent.items, strict=True) if item]
    labelled: dict[str, str] = {}
    for u in agent.units:
        lab = re.match(r"^\W{0,3}(?:option|choice|plan|approach)?\s*([A-Ha-h1-9])\s*[).:—–-]", clean(u), re.I)
        if lab:
            labelled.setdefault(lab.group(1).upper(), clean(u))
    ordinal = m.groupdict().get("ord")
    if ordinal:
        if not options:
            return None
        k = _ORDINALS[ordinal.casefold()]
        return (f"the {ordinal.casefold()} option", options[k]) if -len(options) <= k < len(options) else None
    label = (m.group("label") or m.group("bare" if not explicit else "then")).upper()
    if label in labelled:
        return f"option {label}", labelled[label]
    k = int(label) - 1 if label.isdigit() else ord(label) - ord("A")
    if 0 <= k < len(options):
        return f"option {label}", options[k]
    return None


def chosen_by_name(reply: str, agent: Prose) -> tuple[str, str] | None:
    """The one option of the agent's list whose name a reply picks ("let's use Next.js" after "- Next.js — ...
    - Remix — ..."), when the agent offered a choice and the reply names no other option; None otherwise."""
    if size(reply) > CHOICE_WORDS or reply.rstrip().endswith(("?", "？")) or not _PICKS.search(reply):
        return None
    if not offers(agent):
        return None
    options = [clean(u) for u, item in zip(agent.units, agent.items, strict=True) if item]
    named: list[tuple[str, str]] = []
    for option in options:
        m = _NAME.match(option)
        name = m.group("name").strip(" *_`") if m else ""
        if not name or size(name) > NAME_WORDS or len(name) < 2:
            continue
        at = re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", reply, re.I)
        if at:
            if _declined(reply, at.start()):
                return None  # "I don't want Next.js": no choice of it, nor of the other one
            named.append((name, option))
    return named[0] if len(options) >= 2 and len(named) == 1 else None


# --- what the options were for: the person's request they answer ------------------------------------------------

# "suggest some names for my theme", "recommend a library for parsing dates", "any ideas for the logo?"
# ("give me", "show me", "list", "think of" only before what options are: "show me the logs" asks for none)
_ASKS = re.compile(
    r"\b(?:suggest|recommend|propose|brainstorm|come up with|find me)\b"
    r"|\b(?:think of|give me|show me|list)(?= (?:[\w'-]+ ){0,2}(?:ideas?|suggestions?|options?|names?|alternatives?|"
    r"choices?)\b)"
    r"|\b(?:any|some|a few)(?= (?:ideas?|suggestions?|options?|names?|alternatives?)\b)",
    re.I,
)
# "which database should I use for the cache?", "what font should we pick?"
_WHICH_ASKED = re.compile(
    r"\b(?:what|which) (?P<what>[\w'-]+(?: [\w'-]+)?) (?:should|could|would|shall|do|can) (?:i|we) "
    r"(?:use|pick|choose|go with|get|try|install|take|call it|name it)\b",
    re.I,
)
# "what should I name the project?", "what could we call the bot"
_NAME_ASKED = re.compile(r"\b(?:what|how) (?:should|could|would|shall|do) (?:i|we) (?:name|call) ", re.I)
_CLAUSE_END = re.compile(r"[.,;:!?()\[\]]|\s(?:and|but|so|because|since|or|then)\s", re.I)
# words before what is asked for: "some", "a few good", and their typos ("spome") by closeness
_DETERMINERS = ("some", "any", "few", "more", "couple", "good", "nice", "cool", "great", "better", "catchy", "new")
# what says nothing of what the options are: "some ideas for the logo" is for the logo
_GENERIC = frozenset(("idea", "option", "suggestion", "alternative", "choice", "way", "thing", "something"))
_PERSON = {"my": "their", "our": "their", "me": "them", "us": "them", "mine": "theirs", "i": "they", "we": "they"}
WHAT_WORDS = 3  # the words naming what is asked for ("theme name") at most
FOR_WORDS = 6  # the words after "for" ("my custom terminal theme") at most


def _singular(word: str) -> str:
    if word.casefold().endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.casefold().endswith("s") and not word.casefold().endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _third_person(words: list[str]) -> str:
    return " ".join(_PERSON.get(w.casefold(), w) for w in words)


def _determiner(word: str) -> bool:
    w = word.casefold()
    return w in STOPWORDS or bool(difflib.get_close_matches(w, _DETERMINERS, n=1, cutoff=0.85))


def _what_for(rest: str, named: bool = False) -> str | None:
    """What a request asks for, from the words after its asking verb: "some names for my theme" -> "the name for
    their theme", "a library" -> "the library", "ideas for the logo" -> "for the logo"; None when it says neither."""
    words = [w.strip("'\"*`") for w in _CLAUSE_END.split(rest, maxsplit=1)[0].split()]
    words = [w for w in words if w]
    at = next((k for k, w in enumerate(words) if w.casefold() == "for"), len(words))
    target = words[at + 1 : at + 1 + FOR_WORDS]
    if named:
        head = "name"
        target = words[:FOR_WORDS]
    else:
        k = 0
        while k < at and _determiner(words[k]):
            k += 1
        what: list[str] = []
        while k < at and len(what) < WHAT_WORDS and words[k].casefold() not in STOPWORDS and words[k].isalpha():
            what.append(words[k])
            k += 1
        last = _singular(what[-1]) if what else ""
        head = "" if not last or last.casefold() in _GENERIC else " ".join([*what[:-1], last])
    if not target or all(w.casefold() in STOPWORDS for w in target):
        return f"as the {head.casefold()}" if head else None
    return f"as the {head.casefold()} for {_third_person(target)}" if head else f"for {_third_person(target)}"


def purpose(request: Prose | None, making: str | None = None) -> str | None:
    """What the options the person chose among were for, read from the request they answer (the person's turn
    before the agent's list): "as the name for their theme" after "suggest some names for my theme", "as the
    database for the cache" after "which database should I use for the cache?"; None when it says nothing of it.
    The request's last sentence that asks is read, and no sentence before a question ("Here is the list of bugs.
    Which one should we fix first?" says nothing of what the options are for). A name asked for nothing named
    ("suggest some names") is for ``making``, what the person set out to make before (:func:`making`)."""
    if request is None:
        return None
    for raw in reversed(request.units):
        u = clean(raw)
        found = _asked_for(u, making)
        if found is not None or u.rstrip().endswith(("?", "？")):
            return found
    return None


def _asked_for(u: str, making: str | None) -> str | None:
    """What one sentence of a request asks options for (see :func:`purpose`), or None."""
    m = _NAME_ASKED.search(u)
    if m:
        return _what_for(u[m.end() :], named=True)
    m = _WHICH_ASKED.search(u)
    if m:
        return _what_for(f"{m.group('what')} {u[m.end() :]}")
    m = _ASKS.search(u)
    if m is None:
        return None
    found = _what_for(u[m.end() :])
    return f"{found} for the {making}" if found in ("as the name", "as the title") and making else found


# What the person sets out to make: "how hard to create a custom theme", "let's build a new CLI for it"
_MAKING = re.compile(
    r"\b(?:create|make|build|set up|start|design|write)\s+(?:a|an|my|our|the)\s+(?P<thing>[\w-]+(?: [\w-]+)?)", re.I
)


def making(prose: Prose) -> str | None:
    """The last thing a turn of the person's says they set out to make ("create a custom theme" -> "custom
    theme"), its words up to the first small word; None when it names none."""
    for raw in reversed(prose.units):
        found = list(_MAKING.finditer(clean(raw)))
        if found:
            words = found[-1].group("thing").split()
            kept = [w for w in words[: next((k for k, w in enumerate(words) if w.casefold() in STOPWORDS), 2)]]
            if kept:
                return " ".join(kept)
    return None
