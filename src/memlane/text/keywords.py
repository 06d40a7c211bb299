"""Text analysis for the word index: CJK bigrams and FTS5 match expressions.

FTS5's unicode61 tokenizer splits on spaces and punctuation, so a run of Chinese or
Japanese text with no spaces would be one giant token. Each chunk's CJK runs are also
indexed as overlapping bigrams (plus single characters) in a second column, the usual
approach of CJK analyzers, so a two-character query word matches.

Queries match *any* of their terms (OR), ranked by BM25; a term written with inner
punctuation (``OPENAI_API_KEY``, ``memorySearch.query.hybrid``) is matched as a phrase so its
parts must stand together.
"""

from __future__ import annotations

import re

_CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "ever",
        "did",
        "does",
        "whats",
    ]
)


def cjk_terms(text: str) -> str:
    """Space-separated CJK unigrams and bigrams of ``text`` ('' when it has no CJK)."""
    terms: list[str] = []
    for run in _CJK_RUN.findall(text):
        terms.extend(run)
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return " ".join(terms)


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def query_terms(query: str) -> list[str]:
    """The query's searchable terms: whitespace-separated, edge punctuation stripped, deduplicated."""
    seen: dict[str, None] = {}
    # Control characters (a NUL ends an FTS5 string early) are no part of any word.
    for raw in _CONTROL.sub(" ", query).split():
        term = re.sub(r"^[^\w]+|[^\w]+$", "", raw, flags=re.UNICODE)
        if term and _WORD.search(term):
            seen.setdefault(term.lower(), None)
    return list(seen)


# What follows an apostrophe in a contraction or a possessive: "i'm", "we've", "don't", "park's".
_CLITICS = frozenset(["s", "m", "ve", "d", "ll", "re", "t"])
_APOSTROPHE = re.compile(r"['’]")


def content_terms(terms: list[str]) -> list[str]:
    """``terms`` without stopwords: a contraction of stopwords ("i'm", "that's", "don't") is one too, and a
    possessive or contraction of a content word is searched as the word ("park's" -> "park"). Each FTS5
    phrase of two tokens costs a positions check over both posting lists: "i'm" was "i" NEAR "m", two of the
    commonest tokens, and made the slowest real-text queries (docs/DESIGN.md §15)."""
    out: dict[str, None] = {}
    for term in terms:
        parts = _APOSTROPHE.split(term)
        if len(parts) == 2 and parts[1] in _CLITICS and parts[0]:
            head = "do" if parts[0] == "don" else parts[0]
            if head in STOPWORDS or parts[0] in ("can", "won", "isn", "doesn", "didn", "wasn", "aren"):
                continue
            term = parts[0]
        if term not in STOPWORDS:
            out.setdefault(term, None)
    return list(out)


def match_expression(query: str, columns: tuple[str, ...] = ("text",), terms: list[str] | None = None) -> str | None:
    """An FTS5 MATCH expression matching any term of ``query`` (or the chosen ``terms`` of it) in any of
    ``columns`` (CJK bigrams in the ``cjk`` column); None if nothing is searchable."""
    if terms is None:
        terms = query_terms(query)
        content = content_terms(terms) or terms
    else:
        content = terms
    where = columns[0] if len(columns) == 1 else "{" + " ".join(columns) + "}"
    # Each term as a phrase (FTS5 tokenizes it: inner punctuation becomes adjacency).
    parts = [f"{where} : " + _quote(term) for term in content]
    bigrams = cjk_terms(query).split()
    # Only the bigrams (not single characters) of a multi-character run: single characters are too common.
    wanted = [b for b in bigrams if len(b) == 2] or bigrams
    parts.extend("cjk : " + _quote(b) for b in dict.fromkeys(wanted))
    if not parts:
        return None
    return " OR ".join(parts)


# A term: its column or {columns}, " : ", its phrase. A column starts a word and braces hold no brace, so no
# search for the pattern goes back over a long word or an unclosed "{" from each of its characters.
_PHRASE = re.compile(r'(\{[^{}]*\}|(?<!\w)\w+) : "((?:[^"]|"")*)"')
_SPACE = re.compile(r"\s*")


def _skip_space(text: str, pos: int) -> int:
    m = _SPACE.match(text, pos)
    return m.end() if m else pos


def match_phrases(match: str) -> list[tuple[tuple[str, ...], str]]:
    """(columns, phrase) of each term of an expression built by :func:`match_expression`, in order;
    ValueError for anything else.

    Read left to right, each term tried only where the one before ended (after spaces and an ``OR``): linear
    on any input. A search for the next term from every position (``finditer``) went back over the rest of a
    long word, or a ``{`` never closed, from each of its characters: quadratic."""
    phrases: list[tuple[tuple[str, ...], str]] = []
    pos = _skip_space(match, 0)
    while pos < len(match):
        m = _PHRASE.match(match, pos)
        if m is None and match.startswith("OR", pos):  # the joiner, then the next term
            m = _PHRASE.match(match, _skip_space(match, pos + 2))
        if m is None:
            raise ValueError(f"not a memlane keyword expression: {match[:200]!r}")
        columns = tuple(m.group(1).strip("{}").split())
        if not columns:
            raise ValueError(f"a term with no column in {match[:200]!r}")
        phrases.append((columns, m.group(2).replace('""', '"')))
        pos = _skip_space(match, m.end())
    if not phrases:
        raise ValueError(f"not a memlane keyword expression: {match[:200]!r}")
    return phrases


# A question about what the assistant said, not about the user's life: "what was the trail you recommended",
# "in our previous chat you suggested...". Its answer is an assistant's words, so they keep their full weight.
_ABOUT_ASSISTANT = re.compile(
    r"\byou (?:said|told|mentioned|recommended|suggested|wrote|gave|listed|provided|shared|described|explained|"
    r"created|came up with)\b|\bdid you (?:say|tell|mention|recommend|suggest|write|give|list|provide|share|"
    r"describe|explain|create|come up with)\b|\b(?:our|the) (?:previous|last|earlier|past) (?:chat|conversation|"
    r"discussion)\b"
    r"|\bwe (?:talked|discussed|spoke)\b",
    re.IGNORECASE,
)


def asks_about_assistant(query: str) -> bool:
    """Whether ``query`` asks what an assistant said (then its words are no weaker evidence than the user's)."""
    return bool(_ABOUT_ASSISTANT.search(query))
