"""The predicates relations are stated with, which of them hold one value at a time, and the words a
question uses for each.

A **single-valued** predicate (``lives_in``, ``works_at``, ``role``, ``status``, ``partner``…) holds one value
for a subject at a time: a later value closes the earlier one. A **multi-valued** one (``likes``, ``uses``,
``knows``…) is only ever closed by an explicit end ("no longer likes jazz"). The built-in list below is the
default of ``memorySearch.graph.predicates``; a user's entries extend it or change one (``{"mentor":
{"single": true, "cues": ["mentor", "mentors"]}}``). A name that is in neither (from an inline field or from
"the deadline is now ...") is single-valued: such statements name what is current.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...config import GraphSettings


@dataclass(frozen=True, slots=True)
class Predicate:
    name: str
    single: bool
    cues: tuple[str, ...] = ()  # question words that ask for it ("where ... live" -> lives_in)
    slot: str = ""  # single-valued predicates of one slot replace each other; "" is the predicate's own


BUILTIN: tuple[Predicate, ...] = (
    # "where X is": a person lives in a city, a company is based in one; prose says "based in" of both, and a
    # move ("moved to Porto") ends either. One slot, so a later value of either closes the other.
    Predicate("lives_in", True, ("live", "lives", "living", "lived", "home", "reside", "resides", "city"), "where"),
    Predicate("works_at", True, ("work", "works", "working", "worked", "job", "employer", "company", "employed")),
    Predicate("role", True, ("role", "title", "position")),
    Predicate("status", True, ("status",)),
    Predicate("partner", True, ("partner", "married", "wife", "husband", "dating", "girlfriend", "boyfriend")),
    Predicate("located_in", True, ("located", "based", "headquartered", "headquarters", "offices"), "where"),
    Predicate("owns", False, ("own", "owns", "owned")),
    Predicate("uses", False, ("use", "uses", "using", "used", "tool", "tools")),
    Predicate("likes", False, ("like", "likes", "liked", "love", "loves", "enjoy", "enjoys", "into", "fan")),
    Predicate("dislikes", False, ("dislike", "dislikes", "hate", "hates")),
    Predicate("prefers", False, ("prefer", "prefers", "preferred", "favourite", "favorite")),
    Predicate("knows", False, ("know", "knows", "friend", "friends")),
)


def predicate_name(words: str) -> str:
    """``"Job Title"`` -> ``job_title``: the name a stated attribute is kept under."""
    return re.sub(r"[^a-z0-9]+", "_", words.casefold()).strip("_")[:40]


class Predicates:
    """The predicates in effect: the built-in ones with a user's entries over them."""

    def __init__(self, extra: Mapping[str, tuple[bool, Sequence[str]]] | None = None) -> None:
        """``extra``: name -> (single-valued, cue words) of a user's predicates (``memorySearch.graph``, whose
        settings check the names)."""
        self.by_name: dict[str, Predicate] = {p.name: p for p in BUILTIN}
        for name, (single, cues) in (extra or {}).items():
            old = self.by_name.get(name)
            words = tuple(c.lower() for c in cues) or (old.cues if old else tuple(name.split("_")))
            self.by_name[name] = Predicate(name, single, words, old.slot if old and single else "")

    @classmethod
    def of(cls, settings: GraphSettings) -> Predicates:
        return cls({n: (p.single, p.cues) for n, p in settings.predicates.items()})

    def single(self, name: str) -> bool:
        p = self.by_name.get(name)
        return p.single if p is not None else True

    def slot(self, name: str) -> str:
        """What values of ``name`` replace: its slot, else the predicate itself."""
        p = self.by_name.get(name)
        return (p.slot or p.name) if p is not None else name

    def asked(self, question: str) -> set[str]:
        """The predicates a question's words ask for, with the others of their slots."""
        words = set(re.findall(r"[a-z]+", question.casefold()))
        cued = {self.slot(p.name) for p in self.by_name.values() if words & set(p.cues)}
        return {p.name for p in self.by_name.values() if self.slot(p.name) in cued}

    def fingerprint(self) -> str:
        """What the index's validity columns depend on (a change rebuilds them)."""
        return ",".join(f"{n}:{int(p.single)}:{p.slot}" for n, p in sorted(self.by_name.items()))
