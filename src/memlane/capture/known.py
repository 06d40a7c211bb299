"""Does memory already hold this fact? The same words, or a near-duplicate about the same entity.

Two drafts are the same fact when their words match once case, punctuation, mentions and provenance
are set aside. A near-duplicate must share an entity with a fact memory holds, be at least
``capture.duplicateCosine`` close to it (the draft's words against the fact vectors the index already
has), and add no specific of its own: no number, date, month, weekday or capitalised name the known fact
does not have. Cosine alone cannot tell "camping in June" from "camping in August" (0.953 with the
bundled model, above a reworded same fact at 0.961), so the specifics decide those. Nothing else is ever
merged: not across entities, not by words alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ..embeddings import Vectors
from ..facts.retain import PROVENANCE, normalize_name
from ..reflect.extract import Draft
from ..search.vectors import VectorIndex
from ..store import IndexStore
from .section import fact_words

CANDIDATES = 5_000  # facts about the batch's entities looked at, the latest first


_TOKEN = re.compile(r"[\w'’-]{1,60}")
_CALENDAR = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "yesterday",
        "today",
        "tomorrow",
        "tonight",
    ]
)


def specifics(text: str) -> frozenset[str]:
    """The words that make a fact this fact and not a like one: numbers, dates, calendar words and
    capitalised names (a sentence's first word aside), lower-cased."""
    text = PROVENANCE.sub("", text)
    out = set()
    end = 0
    for m in _TOKEN.finditer(text):
        word, low = m.group(0), m.group(0).casefold()
        starts = end == 0 or any(c in ".!?:" for c in text[end : m.start()])
        if any(c.isdigit() for c in word) or low in _CALENDAR or (word[0].isupper() and not starts):
            out.add(low)
        end = m.end()
    return frozenset(out)


def known_facts(
    store: IndexStore,
    threshold: float,
    embed: Callable[[list[str]], Vectors] | None = None,
    vectors: Callable[[], VectorIndex] | None = None,
) -> Callable[[Sequence[Draft]], list[str | None]]:
    """A check over ``store``'s facts; with ``embed`` and ``vectors``, near-duplicates count too."""

    def check(drafts: Sequence[Draft]) -> list[str | None]:
        norms = sorted({normalize_name(e) for d in drafts for e in d.entities} - {""})
        facts = store.facts.by_seq(store.facts.mentioning(norms, CANDIDATES)) if norms else {}
        same = {fact_words(f.content): f.source for f in facts.values()}
        out: list[str | None] = [same.get(fact_words(d.content)) for d in drafts]
        todo = [k for k, d in enumerate(drafts) if out[k] is None and d.entities and facts]
        if not todo or embed is None or vectors is None:
            return out
        index = vectors()
        by_entity: dict[str, list[int]] = {}
        for f in facts.values():
            for norm, _ in f.mentions:
                by_entity.setdefault(norm, []).append(f.seq)
        wanted = embed([PROVENANCE.sub("", drafts[k].content) for k in todo])
        for row, k in enumerate(todo):
            seqs = sorted({s for e in drafts[k].entities for s in by_entity.get(normalize_name(e), [])})
            if not seqs:
                continue
            sims = index.vectors_of(seqs) @ wanted[row]
            own = specifics(drafts[k].content)
            for at in np.argsort(-sims):
                if float(sims[at]) < threshold:
                    break
                fact = facts[seqs[int(at)]]
                if own <= specifics(fact.content):  # says nothing the known fact does not
                    out[k] = fact.source
                    break
        return out

    return check
