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

from ..embeddings import Vectors
from ..facts.retain import PROVENANCE, normalize_name
from ..reflect.extract import Draft
from ..search.vectors import VectorIndex
from ..store import IndexStore, StoredFact
from .section import fact_words

SAME_WORDS_POOL = 200  # facts holding every word of a draft looked at (the same fact is among them)
NEAREST = 100  # facts nearest a draft's vector looked at (those at duplicateCosine or closer count)


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
    """A check over ``store``'s facts; with ``embed`` and ``vectors``, near-duplicates count too.

    The index answers both questions, so a check costs the drafts it is asked about, not the facts memory holds
    (issue 42, item 5: reading every fact about the batch's entities, up to 5,000 of them, took 0.59 s of a
    1.46 s 50-turn capture at 1,800 facts, and grew with them). Same words: the facts holding every word of the
    draft (the full-text index), compared by their words. Near-duplicates: the facts nearest the draft's vector
    (the vector index), those at ``threshold`` or closer read, kept when they mention one of the draft's
    entities. Both are the facts that mention one of the batch's entities, as before."""

    def check(drafts: Sequence[Draft]) -> list[str | None]:
        norms = {normalize_name(e) for d in drafts for e in d.entities} - {""}
        if not norms:
            return [None] * len(drafts)
        read: dict[int, StoredFact] = {}

        def facts_of(seqs: Sequence[int]) -> list[StoredFact]:
            missing = [s for s in seqs if s not in read]
            if missing:
                read.update(store.facts.by_seq(missing))
            return [read[s] for s in seqs if s in read and norms & {n for n, _ in read[s].mentions}]

        out: list[str | None] = []
        for d in drafts:
            words = fact_words(d.content)
            # one phrase of the draft's words (only \w runs, no quote to escape): the same word sequence is the
            # same fact, and the phrase form is one both stores read (PostgreSQL's takes no bare words)
            match = f'text : "{words}"' if words else ""
            hits = [s for s, _ in store.facts.keyword_search(match, SAME_WORDS_POOL)] if match else []
            same = [f for f in facts_of(hits) if fact_words(f.content) == words]
            out.append(max(same, key=_latest).source if same else None)
        todo = [k for k, d in enumerate(drafts) if out[k] is None and d.entities]
        if not todo or embed is None or vectors is None:
            return out
        index = vectors()
        wanted = embed([PROVENANCE.sub("", drafts[k].content) for k in todo])
        for row, k in enumerate(todo):
            own_norms = {normalize_name(e) for e in drafts[k].entities}
            scores = index.scores(wanted[row], NEAREST)
            cosine = scores.cosines(scores.order)
            close = [s for s in scores.order if cosine.get(s, 0.0) >= threshold]
            own = specifics(drafts[k].content)
            for fact in facts_of(close):  # nearest first
                if own_norms & {n for n, _ in fact.mentions} and own <= specifics(fact.content):
                    out[k] = fact.source  # says nothing the known fact does not
                    break
        return out

    return check


def _latest(fact: StoredFact) -> tuple[str, int]:
    return (fact.day or "", fact.seq)
