"""The fact layer (spec 004): typed facts from ``## Retain`` sections, their entities and time, and recall.

``retain`` parses bullets (dates are read by :mod:`memlane.text.timeparse`), ``entities`` knows entity pages
and names, ``derive`` turns one file into index rows (called by the sync pipeline), ``graph`` holds the relations
between entities and their validity (with the git history reader), ``reading`` how supersession reads a fact
(its frame, values and days; ``numbers`` what its numbers count), ``supersede`` what is true now, ``recall`` ranks
facts for a question. Everything here is rebuilt from the Markdown; nothing writes to a memory file.
"""

from .recall import EntityRef, RecalledFact, RecallResponse, parse_kinds
from .retain import KINDS, Mention, Problem, RetainFact, normalize_name, parse_retain

__all__ = [
    "KINDS",
    "EntityRef",
    "Mention",
    "Problem",
    "RecallResponse",
    "RecalledFact",
    "RetainFact",
    "normalize_name",
    "parse_kinds",
    "parse_retain",
]
