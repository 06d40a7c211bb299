"""Relations out of a fact's own words: subject, predicate, object, and whether the statement ends one.

Three sources, in this order of trust:

1. **Inline fields** (Dataview's convention, still plain Markdown) inside a Retain bullet::

       - W @Peter: Moved to Lisbon in May. [lives_in:: @Lisbon]
       - W @Peter: Left Acme. [!works_at:: @Acme]
       - W @Peter: Contract at Acme. [works_at:: @Acme] [since:: 2024-02-01] [until:: 2024-09-30]

   ``[key:: value]`` or ``(key:: value)``; a ``!`` before the key says the relation ends; ``since`` and
   ``until`` date the bullet's relations. The subject is the bullet's first ``@mention``; an ``@mention`` value
   is an entity, any other value a plain value. A bullet with fields is read from its fields only.
2. **Offline patterns** over the bullet's own text for the common predicates (:data:`_RULES`): lives in /
   moved to, works at / joined / left, role / title, married / partner / split up with, owns / sold, uses /
   switched from X to Y / stopped using, likes / loves / gave up on, dislikes, prefers, knows, and "the X is
   now Y". The subject is the bullet's first mention, and a pattern only counts when nothing but the subject,
   a pronoun or an adverb stands before it in its clause ("@Peter: His sister moved to Rome" states nothing
   about Peter). "No longer", "used to", "not … anymore", "ex-" and the leaving verbs end a relation; "not",
   "never", questions, and plans ("wants to move to", "might join") state nothing.
3. **Entity pages' own lines**: ``lives_in:: Lisbon`` on a line of ``bank/entities/Peter.md`` (a whole-line
   field, or bracketed fields), about the page's entity.

Pure and linear: every pattern is a literal trigger followed by bounded, non-nested repetitions, and objects
are cut from the text after a trigger by a word loop, not by a regular expression.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass

from ...text.markdown import parse
from ...text.timeparse import find_times
from ..retain import MENTION, PROVENANCE, Mention, normalize_name
from .predicates import predicate_name

MAX_PER_BULLET = 20  # relations one bullet may state
ANY = "*"  # an end that closes whatever the subject holds with that object ("left Acme", "gave up on jazz")
SAME = "="  # the predicate of the value this one replaces ("switched from X to Y"), else ``uses``


@dataclass(frozen=True, slots=True)
class Relation:
    subject: str  # normalized entity key
    subject_name: str
    predicate: str  # a predicate's name, ANY (ends only) or SAME
    object: str  # normalized key of the object (entity or value)
    object_name: str  # as written
    entity: bool  # the object is an entity (a mention or a capitalised name), not a plain value
    ends: bool  # the statement ends the relation ("left Acme", [!works_at:: @Acme])
    since: dt.date | None = None  # a time the statement names for its start (or its end, for an end)
    until: dt.date | None = None  # a time it names for its end
    line: int = 0  # 1-based line of the statement in its file
    how: str = "pattern"  # "field" | "pattern" | "page"


_FIELD = re.compile(
    r"(?P<open>[\[(])(?P<neg>!?)(?P<key>[A-Za-z][A-Za-z0-9_ -]{0,39})::[ \t]*"
    r"(?P<value>(?:@\[[^\]\n]{1,100}\]|[^\[\]()\n]){1,200})[\])]"
)
_LINE_FIELD = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<neg>!?)(?P<key>[A-Za-z][A-Za-z0-9_]{0,39})::[ \t]*(?P<value>\S.{0,199})$"
)
_DATE_KEYS = {"since": "since", "from": "since", "valid_from": "since", "until": "until", "to": "until"}
_ALIASES = {
    "title": "role",
    "job_title": "role",
    "position": "role",
    "home": "lives_in",
    "address": "lives_in",
    "city": "lives_in",
    "employer": "works_at",
    "company": "works_at",
    "wife": "partner",
    "husband": "partner",
    "spouse": "partner",
}


def canonical(key: str) -> str:
    name = predicate_name(key)
    return _ALIASES.get(name, name)


def strip_fields(text: str) -> str:
    """The text without its inline fields: what a person reads, and what is embedded."""
    return re.sub(r"[ \t]{2,}", " ", _FIELD.sub("", text)).strip()


def has_fields(text: str) -> bool:
    return _FIELD.search(text) is not None


def _date(value: str, day: dt.date | None) -> dt.date | None:
    found = find_times(value, day, "nearest")
    return found[0].range.start if found else None


def _object(value: str) -> tuple[str, str, bool] | None:
    """(norm, name, is an entity) of a field's value."""
    value = value.strip().strip("\"'`")
    m = MENTION.fullmatch(value)
    if m:
        name = (m.group("bracket") or m.group("word")).strip()
        return (normalize_name(name), name, True) if normalize_name(name) else None
    norm = normalize_name(value)
    return (norm, value, False) if norm else None


def from_fields(text: str, subject: Mention, line: int, day: dt.date | None) -> list[Relation]:
    """The relations a bullet's inline fields state about its subject."""
    since = until = None
    stated: list[tuple[str, bool, str]] = []
    for m in _FIELD.finditer(text):
        key = m.group("key").strip()
        when = _DATE_KEYS.get(key.casefold())
        if when == "since":
            since = _date(m.group("value"), day)
        elif when == "until":
            until = _date(m.group("value"), day)
        else:
            stated.append((canonical(key), bool(m.group("neg")), m.group("value")))
    out: list[Relation] = []
    for predicate, ends, value in stated:
        obj = _object(value)
        if obj is None or not predicate:
            continue
        norm, name, entity = obj
        out.append(
            Relation(subject.norm, subject.name, predicate, norm, name, entity, ends, since, until, line, "field")
        )
    return out


def from_page(slug: str, text: str) -> list[Relation]:
    """The relations an entity page states about its entity on its own lines (outside code)."""
    subject = Mention(slug, normalize_name(slug))
    if not subject.norm:
        return []
    doc = parse(text)
    code = doc.in_code()
    out: list[Relation] = []
    for i, line in enumerate(doc.lines):
        if code[i] or "::" not in line:
            continue
        whole = _LINE_FIELD.match(line)
        if whole and not _FIELD.search(line):
            line = f"[{whole.group('neg')}{whole.group('key')}:: {whole.group('value').strip()}]"
        out += [dataclasses.replace(r, how="page") for r in from_fields(line, subject, i + 1, None)]
    return out


# -- patterns over prose ---------------------------------------------------------------------------------------

_NAME, _THING, _ROLE = "name", "thing", "role"


@dataclass(frozen=True, slots=True)
class _Rule:
    trigger: re.Pattern[str]
    predicate: str
    kind: str  # what the object after the trigger is: a capitalised name, a thing, a role
    ends: bool = False


def _rule(words: str, predicate: str, kind: str, ends: bool = False) -> _Rule:
    return _Rule(re.compile(rf"\b(?:{words})\s+", re.IGNORECASE), predicate, kind, ends)


_RULES: tuple[_Rule, ...] = (
    _rule(r"(?:lives|living|live|lived|settled|resides|residing|reside)(?:\s+\w+){0,3}?\s+in", "lives_in", _NAME),
    _rule(r"(?:moved|moving|moves|relocated|relocating|relocates)(?:\s+back)?\s+to", "lives_in", _NAME),
    _rule(r"moved\s+out\s+of|moved\s+away\s+from|moving\s+out\s+of", "lives_in", _NAME, ends=True),
    _rule(
        r"(?:is\s+)?(?:located|headquartered|based)\s+in|HQ\s+is\s+in|has\s+(?:its\s+)?offices\s+in",
        "located_in",
        _NAME,
    ),
    _rule(r"(?:works|working|work|worked|employed)\s+(?:at|for|with)", "works_at", _NAME),
    _rule(r"(?:started|began|starting)\s+working\s+(?:at|for)", "works_at", _NAME),
    _rule(r"stopped\s+working\s+(?:at|for)", "works_at", _NAME, ends=True),
    _rule(r"joined|joining|joins|rejoined", "works_at", _NAME),
    # "is an engineer at Acme", "became a designer at Acme", "took an analyst position at Acme"
    _rule(
        r"(?:is|became|becomes|now|took|moved\s+into)\s+(?:an?|the)\s+(?:[a-z]+\s+){1,3}?(?:position\s+|role\s+|job\s+)?at",
        "works_at",
        _NAME,
    ),
    _rule(
        r"(?:started|starting|starts|began|took|accepted|got|landed)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|gig|"
        r"offer)\s+(?:at|with|from)|(?:hired|was\s+hired|got\s+hired)\s+(?:by|at)",
        "works_at",
        _NAME,
    ),
    _rule(
        r"quit|resigned\s+from|(?:was\s+)?laid\s+off\s+(?:from|by)|fired\s+from|retired\s+from|left|"
        r"stepped\s+down\s+(?:from|as)\s+(?:\w+\s+){0,3}?at",
        ANY,
        _NAME,
        True,
    ),
    _rule(
        r"promoted\s+to|(?:title|role|position|job\s+title)\s+is(?:\s+now)?|works\s+as|working\s+as|work\s+as|"
        r"(?:joined|hired|started|starts|rejoined|works|switched)\b[^.;!?\n]{0,60}?\bas|"
        r"(?:is|became|becomes|now|took|moved\s+into)(?=\s+(?:an?|the)\s+(?:[a-z]+\s+){1,3}?(?:position\s+|role\s+|job\s+)?at\b)",
        "role",
        _ROLE,
    ),
    _rule(
        r"married\s+to|in\s+a\s+relationship\s+with|(?:got|getting)\s+together\s+with|married|marrying|marries|(?:got\s+)?engaged\s+to|(?:started\s+)?dating|is\s+seeing|moved\s+in\s+with|"
        r"(?:is|are)\s+(?:now\s+)?(?:together\s+)?with|partnered\s+with|(?:partner|wife|husband|girlfriend|"
        r"boyfriend|fianc[ée]e?|spouse)(?:\s+is)?(?:\s+now)?",
        "partner",
        _NAME,
    ),
    _rule(
        r"divorced|(?:split|broke)\s+up\s+with|split\s+from|separated\s+from|(?:is|are)\s+no\s+longer\s+with|ex-(?:wife|husband|partner|girlfriend|"
        r"boyfriend|fianc[ée]e?)(?:\s+is)?",
        "partner",
        _NAME,
        ends=True,
    ),
    _rule(r"owns|bought|purchased|got\s+a\s+new", "owns", _THING),
    _rule(r"sold|gave\s+away", "owns", _THING, ends=True),
    _rule(r"uses|is\s+using|started\s+using|now\s+uses|switched\s+to|moved\s+over\s+to", "uses", _THING),
    _rule(r"stopped\s+using", "uses", _THING, ends=True),
    _rule(
        r"loves|likes|enjoys|adores|is\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|(?:is|has\s+been|got|getting)\s+"
        r"(?:really\s+|very\s+|quite\s+)?into|is\s+fond\s+of|fell\s+in\s+love\s+with|took\s+up|picked\s+up",
        "likes",
        _THING,
    ),
    _rule(
        r"gave\s+up(?:\s+on)?|stopped\s+liking|lost\s+interest\s+in|went\s+off|is\s+done\s+with|is\s+over|dropped|"
        r"(?:is|are)\s+not\s+into(?=[^.;!?\n]{1,80}\bany\s?more\b)",
        ANY,
        _THING,
        True,
    ),
    _rule(r"hates|dislikes|can't\s+stand|cannot\s+stand|doesn't\s+like|does\s+not\s+like", "dislikes", _THING),
    _rule(r"prefers", "prefers", _THING),
    _rule(r"knows|is\s+friends\s+with|befriended|made\s+friends\s+with", "knows", _NAME),
)
_SWITCH = re.compile(r"\bswitched\s+(?:\w+\s+)?from\s+", re.IGNORECASE)
_LEFT_FOR = re.compile(r"\bleft\s+", re.IGNORECASE)  # "left Acme for Globex", "left Berlin for Lisbon"
_CALLS_HOME = re.compile(r"\bcalls\s+", re.IGNORECASE)  # "calls Lisbon home"
_NOW = re.compile(r"\b(?:the|my|our|his|her|their|its)\s+([a-z][a-z -]{0,30}?)\s+is\s+now\s+", re.IGNORECASE)
# Starts where a run of spaces starts and takes it whole: a long run is walked once, not once per space.
_EX_AFTER = re.compile(r"(?<!\s)\s++is\s++now\s++(?:his|her|their|my|an?)\s++ex\b", re.IGNORECASE)

# What may stand before a pattern in its clause: the subject, a pronoun, an auxiliary or an adverb.
_LEAD_OK = frozenset(
    [
        "he",
        "she",
        "they",
        "i",
        "we",
        "it",
        "who",
        "has",
        "have",
        "had",
        "is",
        "are",
        "was",
        "were",
        "just",
        "finally",
        "recently",
        "also",
        "now",
        "then",
        "today",
        "yesterday",
        "officially",
        "already",
        "eventually",
        "since",
        "last",
        "this",
        "week",
        "month",
        "year",
        "ago",
        "earlier",
        "later",
        "again",
        "soon",
        "meanwhile",
        "apparently",
        "reportedly",
        "happily",
        "sadly",
        "both",
        "and",
        "so",
        "has",
        "been",
        "being",
        "really",
        "actually",
        "newly",
    ]
)
_ENDS_BEFORE = re.compile(r"\b(?:no\s+longer|used\s+to|not\s+any\s?more)\s+(?:\w+\s+)?$", re.IGNORECASE)
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?$", re.IGNORECASE)
_PLAN_BEFORE = re.compile(
    r"\b(?:might|may|could|would|will|should|plans?\s+to|planning\s+to|wants?\s+to|hopes?\s+to|hoping\s+to|"
    r"thinking\s+(?:about|of)|considering|going\s+to|about\s+to|tries\s+to|trying\s+to|if)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
_ANYMORE = re.compile(r"\bany\s?more\b", re.IGNORECASE)
_CLAUSE_CUT = re.compile(r"[,;:]|\s(?:and|but|then|while|so|because|after|before|when)\s", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]{1,400}(?:[.!?]+|$)?")  # a longer run is read in 400-character pieces
_CONNECT = frozenset({"of", "de", "da", "do", "del", "la", "le", "los", "las", "van", "von", "der", "and", "&", "y"})
_STOP = frozenset(
    [
        "and",
        "but",
        "or",
        "since",
        "for",
        "with",
        "at",
        "in",
        "on",
        "to",
        "from",
        "as",
        "because",
        "while",
        "lately",
        "now",
        "these",
        "days",
        "again",
        "too",
        "anymore",
        "more",
        "recently",
        "today",
        "yesterday",
        "this",
        "last",
        "every",
        "each",
        "when",
        "after",
        "before",
        "so",
        "which",
        "who",
        "that",
    ]
)
_PRONOUNS = frozenset(
    [
        "he",
        "she",
        "they",
        "it",
        "i",
        "we",
        "you",
        "him",
        "her",
        "them",
        "his",
        "their",
        "its",
        "my",
        "our",
        "this",
        "that",
        "there",
    ]
)
_WORD = re.compile(r"@\[[^\]\n]{1,100}\]|@?[\w'&.+#-]+")


def _capitalised(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


def _take(rest: str, kind: str) -> tuple[str, bool] | None:
    """The object at the start of ``rest`` (the text after a trigger): its words and whether it is an entity."""
    words: list[str] = []
    last = 0
    for m in _WORD.finditer(rest[:160]):
        if rest[last : m.start()].strip():
            break  # punctuation between words ends the object
        last = m.end()
        w = m.group(0)
        if w.startswith("@"):
            if not words:
                mention = MENTION.match(w)
                if mention:
                    return (mention.group("bracket") or mention.group("word")).strip(), True
            break
        bare = w.rstrip(".'")
        if not words and bare.lower() in {"a", "an", "the", "his", "her", "their", "my", "our"} and kind != _NAME:
            continue
        if kind == _NAME:
            if (_capitalised(bare) and bare.lower() not in _PRONOUNS) or (words and bare.lower() in _CONNECT):
                words.append(bare)
            else:
                break
        else:
            if bare.lower() in _STOP or (words and bare.lower() in _PRONOUNS):
                break
            if kind == _ROLE and words and bare.lower() in {"position", "role", "job"}:
                break  # "an analyst position at Acme": the role is "analyst"
            words.append(bare)
        if len(words) >= 6 or w.endswith("."):
            break
    while words and words[-1].lower() in _CONNECT:
        words.pop()
    if not words:
        return None
    return " ".join(words), kind == _NAME


def _clause_lead(sentence: str, at: int) -> str:
    """The words of the clause before position ``at``."""
    cut = 0
    for m in _CLAUSE_CUT.finditer(sentence, 0, at):
        cut = m.end()
    return sentence[cut:at]


def _about(lead: str, subject_words: set[str]) -> bool:
    """Nothing but the subject, a pronoun, an auxiliary or an adverb stands in the clause's ``lead`` once the
    words that only qualify the verb ("no longer", "not") are set aside: the statement is the subject's."""
    for w in re.findall(r"[\w'@\[\]-]+", _strip_modifiers(lead).casefold()):
        w = w.strip("@[]'")
        if w and w not in _LEAD_OK and w not in subject_words and not w.isdigit():
            return False
    return True


def from_text(text: str, subject: Mention, line: int, day: dt.date | None) -> list[Relation]:
    """The relations the prose of a bullet states about its subject (see the module docstring)."""
    body = PROVENANCE.sub("", text)
    subject_words = set(re.findall(r"\w+", subject.name.casefold())) | {subject.norm}
    out: list[Relation] = []
    seen: set[tuple[str, str, bool]] = set()

    times: dict[str, tuple[dt.date | None, dt.date | None]] = {}

    def add(predicate: str, name: str, entity: bool, ends: bool, sentence: str) -> None:
        norm = normalize_name(name)
        if not norm or norm == subject.norm or (predicate, norm, ends) in seen or len(out) >= MAX_PER_BULLET:
            return
        seen.add((predicate, norm, ends))
        if sentence not in times:  # once per sentence: its dates are the relation's
            since = until = None
            for t in find_times(sentence, day, "nearest"):
                if t.relation == "until":
                    until = until or t.range.end
                else:
                    since = since or t.range.start
            times[sentence] = (since, until)
        since, until = times[sentence]
        out.append(Relation(subject.norm, subject.name, predicate, norm, name, entity, ends, since, until, line))

    for sm in _SENTENCE.finditer(body):
        sentence = sm.group(0)
        if sentence.rstrip().endswith("?"):
            continue
        for rule in _RULES:
            for m in rule.trigger.finditer(sentence):
                lead = _clause_lead(sentence, m.start())
                if not _about(lead, subject_words):
                    continue
                ends = rule.ends
                if _PLAN_BEFORE.search(lead):
                    continue
                if _ENDS_BEFORE.search(lead):
                    ends = True
                elif _NOT_BEFORE.search(lead):
                    if not _ANYMORE.search(sentence[m.end() :]):
                        continue
                    ends = True
                got = _take(sentence[m.end() :], rule.kind)
                if got is None:
                    continue
                name, entity = got
                predicate = rule.predicate
                if predicate == "lives_in" and not entity:
                    continue
                add(predicate, name, entity, ends, sentence)
        for m in _SWITCH.finditer(sentence):
            if not _about(_clause_lead(sentence, m.start()), subject_words):
                continue
            rest = sentence[m.end() :]
            first = _take(rest, _THING)
            to = re.search(r"(?<!\s)\s++to\s++", rest[:120], re.IGNORECASE)
            if first is None or to is None:
                continue
            second = _take(rest[to.end() :], _THING)
            if second is None:
                continue
            add(ANY, first[0], _capitalised(first[0]), True, sentence)
            add(SAME, second[0], _capitalised(second[0]), False, sentence)
        for m in _LEFT_FOR.finditer(sentence):
            if not _about(_clause_lead(sentence, m.start()), subject_words):
                continue
            rest = sentence[m.end() :]
            first = _take(rest, _NAME)
            after = re.match(r"[^\s]*\s+for\s+", rest[len(first[0]) :]) if first is not None else None
            second = _take(rest[len(first[0]) + after.end() :], _NAME) if first and after else None
            if second is not None:  # the same kind of thing as what was left: a job for a job, a city for a city
                add(SAME, second[0], True, False, sentence)
        for m in _CALLS_HOME.finditer(sentence):
            if not _about(_clause_lead(sentence, m.start()), subject_words):
                continue
            got = _take(sentence[m.end() :], _NAME)
            if got is not None and re.match(r"\s+home\b", sentence[m.end() + len(got[0]) :], re.IGNORECASE):
                add("lives_in", got[0], True, False, sentence)
        for m in _NOW.finditer(sentence):
            if not _about(_clause_lead(sentence, m.start()), subject_words):
                continue
            predicate = canonical(m.group(1))
            got = _take(sentence[m.end() :], _NAME if predicate in {"lives_in", "works_at", "partner"} else _THING)
            if predicate and got is not None:
                add(predicate, got[0], got[1], False, sentence)
        for m in _EX_AFTER.finditer(sentence):
            before = re.findall(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}$", sentence[max(0, m.start() - 60) : m.start()])
            if before:
                add("partner", before[0], True, True, sentence)
    return out


def _strip_modifiers(lead: str) -> str:
    """The clause's lead without the words that only qualify the verb ("no longer", "not")."""
    return re.sub(
        r"\b(?:no\s+longer|used\s+to|not|never|doesn't|does|did|didn't|isn't|any\s?more)\b", " ", lead, flags=re.I
    )


def relations_of(content: str, mentions: tuple[Mention, ...], line: int, day: dt.date | None) -> list[Relation]:
    """The relations one Retain bullet states: from its inline fields when it has any, else from its prose."""
    if not mentions:
        return []
    subject = mentions[0]
    if has_fields(content):
        return from_fields(content, subject, line, day)
    return from_text(content, subject, line, day)
