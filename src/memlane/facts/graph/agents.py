"""One agent's relations beside those of the agents it may read (``memorySearch.shared``): the neighbourhood,
paths and timeline :meth:`memlane.memory.Memory.graph` and :meth:`~memlane.memory.Memory.timeline` answer.

This agent's graph answers first; each other agent's graph that knows the entity adds its nodes, edges and
notes, every edge naming the agent it came from. Paths are walked in this agent's graph alone. The other
agents' indexes are read-only (:class:`memlane.search.shared.SharedIndexes`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ...config import GraphSettings
from ...errors import NotFoundError
from ...search.shared import SharedIndexes
from . import directory_of
from .predicates import Predicates
from .query import Edge, Graph, describe_path

Others = list[tuple[str, Graph]]  # (agent, its graph), read-only


def shared_graphs(shared: SharedIndexes | None, predicates: Predicates) -> tuple[Others, list[str]]:
    """The graphs of the agents ``memorySearch.shared`` names (none when ``shared`` is None), read-only; and
    notes on those unreadable."""
    if shared is None:
        return [], []
    stores, notes = shared.stores()
    graphs = [(a, Graph(s.facts, directory_of(s.facts), predicates)) for a, s in stores]
    return graphs, notes


def neighbourhood(
    own: Graph,
    agent_id: str,
    others: Others,
    entity: str,
    depth: int,
    iso: str | None,
    to: str | None,
    cfg: GraphSettings,
    notes: list[str],
) -> dict[str, Any]:
    """The entities within ``depth`` relations of ``entity`` and the relations between them, true on ``iso``
    (today when None), in this agent's graph and the ``others``; with ``to``, the shortest paths between the
    two in this agent's graph. ``notes`` lead the answer's notes."""
    g = own
    if g.resolve(entity) is None and not any(o.resolve(entity) for _, o in others):
        hint = g.directory.suggest(entity)
        raise NotFoundError(f"no entity {entity!r} in the index" + (f": did you mean {hint}?" if hint else ""))
    if to is not None:
        if g.resolve(entity) is None:
            raise NotFoundError(f"no entity {entity!r} in this agent's index (paths are walked in it alone)")
        if g.resolve(to) is None:
            raise NotFoundError(f"no entity {to!r} in the index")
        found = g.paths(entity, to, depth, iso, cfg.fanout, cfg.max_nodes)
        return {
            "from": g.name(str(g.resolve(entity))),
            "to": g.name(str(g.resolve(to))),
            "as_of": iso,
            "paths": [{"text": describe_path(p), "edges": [e.to_dict() for e in p]} for p in found],
            "notes": notes + ([] if found else [f"no path of at most {depth} relations"]),
        }
    hood = g.neighbourhood(entity, depth, iso, cfg.fanout, cfg.max_nodes)
    if others:  # other agents' relations beside this one's, each edge naming its agent
        hood.edges = [dataclasses.replace(e, agent=agent_id) for e in hood.edges]
        seen = {n["key"] for n in hood.nodes}
        for agent, other in others:
            if other.resolve(entity) is None:
                continue
            theirs = other.neighbourhood(entity, depth, iso, cfg.fanout, cfg.max_nodes)
            hood.nodes += [dict(n, agent=agent) for n in theirs.nodes if n["key"] not in seen]
            seen |= {n["key"] for n in theirs.nodes}
            hood.edges += [dataclasses.replace(e, agent=agent) for e in theirs.edges]
            hood.notes += [f"{agent}: {n}" for n in theirs.notes]
    return {**hood.to_dict(), "as_of": iso, "notes": notes + hood.notes}


def timeline(
    own: Graph,
    agent_id: str,
    others: Others,
    entity: str,
    updates: Callable[[str], list[dict[str, Any]]],
    notes: list[str],
) -> dict[str, Any]:
    """Every relation of ``entity`` in valid-time order, with when each ended and what ended it, in this
    agent's graph and the ``others``; ``updates`` gives which of its latest facts a later one superseded."""
    g = own
    if g.resolve(entity) is None and not any(o.resolve(entity) for _, o in others):
        raise NotFoundError(f"no entity {entity!r} in the index")
    name, edges, now = entity, list[Edge](), dict[str, list[str]]()
    if g.resolve(entity) is not None:
        name, edges = g.timeline(entity)
        now = {p: [e.object for e in es] for p, es in g.now(str(g.resolve(entity))).items()}
    out: dict[str, Any] = {"entity": name, "now": now, "updates": updates(entity)}
    if others:  # other agents' timelines beside this one's, read-only, each edge naming its agent
        edges = [dataclasses.replace(e, agent=agent_id) for e in edges]
        shared_now: dict[str, dict[str, list[str]]] = {}
        for agent, other in others:
            key = other.resolve(entity)
            if key is None:
                continue
            edges += [dataclasses.replace(e, agent=agent) for e in other.timeline(entity)[1]]
            shared_now[agent] = {p: [e.object for e in es] for p, es in other.now(key).items()}
        edges.sort(key=lambda e: (e.valid_from or "", e.agent or ""))
        out["shared_now"] = shared_now
    return {**out, "relations": [e.to_dict() for e in edges], "notes": notes}
