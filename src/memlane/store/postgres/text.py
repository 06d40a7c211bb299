"""Full-text search in PostgreSQL the way the SQLite index does it (the driver's one translation layer).

memlane's keyword query is the FTS5 expression :func:`memlane.text.keywords.match_expression` builds: an OR
of column-scoped quoted phrases (``text : "term" OR cjk : "ab"``), nothing else. :func:`parse_match`
reads it back into (columns, phrase) terms; the PostgreSQL stores turn each phrase into a
``phraseto_tsquery`` on the matching tsvector column.

The tokenizer is matched too (docs/DESIGN.md §20): the ``memlane`` text search configuration is
PostgreSQL's ``english`` parser with a Snowball English stemmer and *no stop-word list*, like FTS5's
``porter unicode61`` (which keeps every token). Text is split into words in Python before it reaches
``to_tsvector`` (:func:`fold`), as unicode61 splits it, diacritics removed (``remove_diacritics 2``; the
``unaccent`` extension is not always installed).

Ranking: FTS5's bm25 weighs a rare term above a common one; ``ts_rank`` has no document frequency.
Each term's rank is multiplied by its BM25 IDF, read from the GIN index (a count capped at
``DF_CAP_SHARE`` of the rows: past that a term is "common" and its exact count does not change the order).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from ...text.keywords import match_phrases

_SEPARATORS = re.compile(r"[\W_]+")

# A term's document frequency is counted up to this share of the rows (at least DF_CAP_MIN rows).
DF_CAP_SHARE = 0.1
DF_CAP_MIN = 1000


@dataclass(frozen=True, slots=True)
class MatchTerm:
    columns: tuple[str, ...]  # "text", "context", "cjk" (the FTS5 column names)
    phrase: str  # diacritics folded


def fold(text: str) -> str:
    """``text`` as FTS5's ``unicode61 remove_diacritics 2`` splits it: diacritics removed (é -> e) and every
    character that is not a letter or a digit turned into a space. PostgreSQL's parser would otherwise
    read "2025-11-20" as 2025, -11, -20, "v1.31" as a file name and "a.b.c" as a host: one token that a
    query for "20", "31" or "b" never matches. Split first, it sees plain words and numbers."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))
    return _SEPARATORS.sub(" ", text)


def parse_match(match: str) -> list[MatchTerm]:
    """The terms of an expression built by ``match_expression``, diacritics folded; ValueError for anything else."""
    return [MatchTerm(columns, fold(phrase)) for columns, phrase in match_phrases(match)]


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def df_cap(total: int) -> int:
    return max(DF_CAP_MIN, int(total * DF_CAP_SHARE))
