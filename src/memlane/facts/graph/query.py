"""Questions over the settled relations: what holds on a day, what memory knew on a day, a neighbourhood, the
paths between two entities, an entity's timeline. Library calls that ``Memory`` and recall use."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...store import FactIndex, StoredRelation
from ..entities import EntityDirectory
from . import key_of, norms_of, stated
from .predicates import Predicates
from .settle import Stated, settle


@dataclass(frozen=True, slots=True)
class Edge:
    """One statement as a person reads it."""

    subject: str  # display names
    predicate: str
    object: str
    ends: bool
    valid_from: str | None
    valid_to: str | None
    source: str
    closed_by: str | None = None  # the source of what closed it
    subject_key: str = ""
    object_key: str = ""
    entity: bool = True
    retracted: str | None = None  # the day its bullet left the git history (memory no longer holds it)
    agent: str | None = None  # the agent whose memory states it (memorySearch.shared)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "source": self.source,
        }
        if self.ends:
            out["ends"] = True
        if self.closed_by:
            out["closed_by"] = self.closed_by
        if self.retracted:
            out["retracted"] = self.retracted
        if self.agent:
            out["agent"] = self.agent
        return out


@dataclass
class Neighbourhood:
    entity: str
    nodes: list[dict[str, Any]] = field(default_factory=list)  # {name, key, depth, path}
    edges: list[Edge] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.entity,
            "nodes": self.nodes,
            "edges": [e.to_dict() for e in self.edges],
            "notes": self.notes,
        }


class Graph:
    """Reads of the relation table of one index, entity keys resolved through ``directory``."""

    def __init__(self, facts: FactIndex, directory: EntityDirectory, predicates: Predicates) -> None:
        self.facts = facts
        self.directory = directory
        self.predicates = predicates

    def name(self, key: str, written: str | None = None) -> str:
        """The entity's name, else ``written`` (as a statement spells it), else the key."""
        entity = self.directory.of_norm(key)
        return entity.name if entity is not None else (written or key)

    def resolve(self, name: str) -> str | None:
        entity = self.directory.resolve(name)
        return entity.key if entity is not None else None

    def edge(self, r: StoredRelation, closers: dict[int, StoredRelation] | None = None) -> Edge:
        closer = (closers or {}).get(r.closed_by) if r.closed_by is not None else None
        return Edge(
            self.name(r.subject_key, r.subject_name),
            r.predicate or r.stated,
            self.name(r.object_key, r.object_name) if r.entity else r.object_name,
            r.ends,
            r.valid_from,
            None if r.ends else r.valid_to,
            r.source,
            closer.source if closer is not None else None,
            r.subject_key,
            r.object_key,
            r.entity,
            r.known_to,
        )

    # -- validity
    def known(self, subjects: Iterable[str], known_at: str) -> dict[int, Stated]:
        """Statements about ``subjects`` (keys) settled among those memory held on ``known_at``."""
        rows = self.facts.relations.of_subjects(sorted(norms_of(self.directory, subjects)), retracted=True)
        p = self.predicates
        return {s.seq: s for s in settle(stated(rows, self.directory), p.single, known_at, p.slot)}

    # -- neighbourhoods and paths
    def neighbourhood(self, name: str, depth: int, day: str | None, fanout: int, most: int) -> Neighbourhood:
        key = self.resolve(name)
        out = Neighbourhood(self.name(key) if key else name)
        if key is None:
            out.notes.append(f"no entity {name!r} in the index")
            return out
        walked = self.facts.relations.walk(key, depth, day, fanout, most)
        keys = [k for k, _, _ in walked]
        for k, d, trail in walked:
            out.nodes.append({"name": self.name(k), "key": k, "depth": d, "path": self._path(trail)})
        rows = self.facts.relations.between(keys, day)
        closers = self.facts.relations.by_seq([r.closed_by for r in rows if r.closed_by is not None])
        out.edges = [self.edge(r, closers) for r in rows]
        if len(walked) >= most:
            out.notes.append(f"stopped at {most} entities (memorySearch.graph.maxNodes)")
        return out

    def _path(self, trail: str) -> list[str]:
        return [self.name(k) for k in trail.strip(",").split(",") if k]

    def paths(self, a: str, b: str, depth: int, day: str | None, fanout: int, most: int) -> list[list[Edge]]:
        """Shortest walks from ``a`` to ``b`` (at most ``depth`` steps), each as its edges."""
        ka, kb = self.resolve(a), self.resolve(b)
        if ka is None or kb is None:
            return []
        walked = {k: trail for k, _, trail in self.facts.relations.walk(ka, depth, day, fanout, most)}
        if kb not in walked:
            return []
        hops = [k for k in walked[kb].strip(",").split(",") if k]
        rows = self.facts.relations.between(hops, day)
        path: list[Edge] = []
        for x, y in itertools.pairwise(hops):
            step = [r for r in rows if {r.subject_key, r.object_key} == {x, y}]
            if step:
                path.append(self.edge(step[-1]))
        return [path]

    def timeline(self, name: str) -> tuple[str, list[Edge]]:
        key = self.resolve(name)
        if key is None:
            return name, []
        rows = [r for r in self.facts.relations.touching([key], retracted=True) if r.subject_key == key or r.entity]
        closers = self.facts.relations.by_seq([r.closed_by for r in rows if r.closed_by is not None])
        return self.name(key), [self.edge(r, closers) for r in rows]

    def changes(self, key: str, most: int = 20) -> list[tuple[str, Edge, Edge | None]]:
        """What ended for ``key``, newest first: (the day, the statement that ended, what ended it or None
        for an ``until``)."""
        rows = [r for r in self.facts.relations.touching([key]) if r.subject_key == key and r.valid_to and not r.ends]
        closers = self.facts.relations.by_seq([r.closed_by for r in rows if r.closed_by is not None])
        out: list[tuple[str, Edge, Edge | None]] = []
        for r in rows:
            closer = closers.get(r.closed_by) if r.closed_by is not None else None
            out.append((str(r.valid_to), self.edge(r, closers), self.edge(closer) if closer is not None else None))
        out.sort(key=lambda c: (c[0], c[1].source), reverse=True)
        return out[:most]

    def now(self, key: str, day: str | None = None) -> dict[str, list[Edge]]:
        """The values each predicate holds for ``key`` on ``day`` (today when None)."""
        out: dict[str, list[Edge]] = {}
        for r in self.facts.relations.touching([key]):
            if r.subject_key != key or r.ends:
                continue
            if (day is None and r.valid_to is None) or (day is not None and r.valid_on(day)):
                out.setdefault(r.predicate, []).append(self.edge(r))
        return out


def describe_path(edges: Sequence[Edge]) -> str:
    """ "Peter → works_at → Acme → located_in → Lisbon"."""
    if not edges:
        return ""
    parts = [edges[0].subject]
    for e in edges:
        parts += [e.predicate, e.object]
    return " → ".join(parts)


__all__ = ["Edge", "Graph", "Neighbourhood", "describe_path", "key_of"]
