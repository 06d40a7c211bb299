"""One memory file -> the rows of the fact index: its Retain facts, its problems, its entity names.

Pure: a file's text in, rows out. The sync pipeline calls :func:`derive_file` for every file whose
content changed, in the same pass that chunks it, and writes the rows in the same transaction.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field

from ..store import EntityName, FactRow, RelationRow
from ..text.hashing import text_hash
from ..text.keywords import STOPWORDS, cjk_terms
from ..text.markdown import parse
from ..text.origin import origin_of
from ..text.timeparse import event_time
from ..workspace import day_of
from .entities import is_entity_page, parse_entity_page
from .graph.extract import Relation, from_page, relations_of, strip_fields
from .retain import PROVENANCE, RetainFact, parse_retain, retain_sections

# Bump when derivation changes in a way that must rebuild existing indexes (part of the fingerprint).
FACTS_VERSION = 5  # 3: relations (memlane.facts.graph), inline fields left out of a fact's key; 4: more phrasings;
# 5: each fact's origin (memlane.text.origin)


@dataclass
class FileFacts:
    facts: list[FactRow] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    names: list[EntityName] = field(default_factory=list)
    relations: list[RelationRow] = field(default_factory=list)  # an entity page's own lines (no fact)


def fact_key(fact: RetainFact, names: list[str]) -> str:
    """The text a fact is embedded as: its content, led by the entities it is about when the content
    does not name them (``- B @warelay: I fixed ...`` is about warelay)."""
    content = strip_fields(PROVENANCE.sub("", fact.content)) or fact.content
    lowered = content.casefold()
    missing = [n for n in names if n.casefold() not in lowered]
    return f"{', '.join(missing)}: {content}" if missing else content


def derive_file(path: str, text: str) -> FileFacts:
    out = FileFacts()
    if is_entity_page(path):
        page = parse_entity_page(path, text)
        out.names = [EntityName(norm, page.slug, path, how) for norm, how in page.names()]
        out.relations = [_row(r, f"{path}#L{r.line}", None, None) for r in from_page(page.slug, text)]
    doc = parse(text)  # the chunker parsed the same text a moment ago: a cache hit
    if not retain_sections(doc):  # most daily notes
        return out
    facts, problems = parse_retain(text)
    out.problems = [(p.line, p.message) for p in problems]
    if not facts:
        return out
    day = day_of(path)
    lines = doc.lines
    inside = {i for s, e in retain_sections(doc) for i in range(s, e)}
    log = LogLines([(i, ln) for i, ln in enumerate(lines) if i not in inside and ln.strip()])
    for f in facts:
        names = [m.name for m in f.mentions]
        key = fact_key(f, names)
        when = event_time(f.content, day)
        anchors = log.anchors(f)
        ident = text_hash(f"{path}\x00{f.kind}\x00{f.content}\x00{f.confidence}")
        out.facts.append(
            FactRow(
                id=ident,
                path=path,
                start_line=f.start_line,
                end_line=f.end_line,
                kind=f.kind,
                content=f.content,
                day=day.isoformat() if day else None,
                t_start=when.start.isoformat() if when else None,
                t_end=when.end.isoformat() if when else None,
                confidence=f.confidence,
                hash=text_hash(key),
                key=key,
                anchors=tuple(anchors),
                context="\n".join(lines[a - 1] for a in anchors),
                cjk=cjk_terms(key),
                mentions=tuple((m.norm, m.name) for m in f.mentions),
                relations=tuple(bullet_relations(f, day, ident, when.start if when else None)),
                origin=origin_of(f.content),
            )
        )
    return out


def bullet_relations(
    f: RetainFact, day: dt.date | None, origin: str, start: dt.date | None = None
) -> list[RelationRow]:
    """The statements of one bullet of a log of ``day``, valid from ``start`` (its event time) else that day."""
    return [_row(r, origin, start or day, day) for r in relations_of(f.content, f.mentions, f.start_line, day)]


def _row(r: Relation, origin: str, start: dt.date | None, day: dt.date | None) -> RelationRow:
    """A relation as stored: valid from its own date, else its fact's event time, else its log's day; known
    from its log's day (none for a file that is not a daily log)."""
    valid = r.since or start
    return RelationRow(
        r.line,
        r.subject,
        r.subject_name,
        r.predicate,
        r.object,
        r.object_name,
        r.entity,
        r.ends,
        valid.isoformat() if valid else None,
        r.until.isoformat() if r.until else None,
        day.isoformat() if day else None,
        origin,
    )


_TOKEN = re.compile(r"[^\W_]+")


def _stems(text: str) -> set[str]:
    """Content words, cut to five letters: a crude stemmer that is enough to match a fact to its lines."""
    return {w[:5] for w in _TOKEN.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}


class LogLines:
    """The lines of a file's log (outside its Retain sections), indexed once by their content words, so
    that finding each fact's lines costs what its words' lines cost, not a pass over the whole file: a
    193 KB log with 500 facts once took 24 s on every write to it."""

    def __init__(self, log: list[tuple[int, str]]) -> None:
        self.count = len(log)
        self.postings: dict[str, list[int]] = {}
        for i, text in log:
            for w in _stems(text):
                self.postings.setdefault(w, []).append(i)

    def anchors(self, fact: RetainFact, most: int = 2) -> list[int]:
        """The lines the fact was most likely drawn from: those sharing its rarest words (weights from how
        many lines of this file use a word). 1-based."""
        scores: dict[int, float] = {}
        for w in _stems(fact.content):
            lines = self.postings.get(w)
            if lines:
                weight = math.log(1 + self.count / len(lines))
                for i in lines:
                    scores[i] = scores.get(i, 0.0) + weight
        if not scores:
            return []
        scored = sorted(((score, i) for i, score in scores.items()), key=lambda x: (-x[0], x[1]))
        best = scored[0][0]
        return sorted(i + 1 for score, i in scored[:most] if score >= 0.7 * best)
