"""``memlane entities`` / ``entity`` / ``facts``: the entities of an index, one entity with its facts, related
entities and relations now, and the facts of recent logs, as JSON-ready payloads."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..errors import NotFoundError, quoted
from ..facts import supersede
from ..facts.entities import suggest
from ..facts.retain import normalize_name
from ..index.keeper import IndexKeeper
from ..store.facts import StoredFact


def entities(index: IndexKeeper) -> list[dict[str, Any]]:
    """Every entity of the index: its name, page, how many facts mention it and the latest day of one."""
    with index.lock:
        directory = index.entity_directory()
        last: dict[str, str] = {}
        for norm, day in index.store.facts.last_days().items():
            ent = directory.of_norm(norm)
            if ent is not None and day > last.get(ent.key, ""):
                last[ent.key] = day
        return [
            {"name": e.name, "page": e.page, "facts": directory.counts.get(e.key, 0), "last": last.get(e.key)}
            for e in directory.entities()
        ]


def entity(index: IndexKeeper, name: str, limit: int) -> dict[str, Any]:
    """One entity: its page, the facts that mention it (latest first, at most ``limit``), the entities
    mentioned beside it with how many facts they share, and its relations now (empty without any)."""
    with index.lock:
        directory = index.entity_directory()
        ent = directory.resolve(name) if isinstance(name, str) and name.strip() else None
        if ent is not None:
            facts_of = index.store.facts
            norms = sorted(ent.norms)
            seqs = facts_of.mentioning(norms, limit)
            found = facts_of.by_seq(seqs)
            related: dict[str, int] = {}
            for norm, n in facts_of.co_mentions(norms):
                other = directory.of_norm(norm)
                label = other.name if other is not None else norm
                related[label] = related.get(label, 0) + n
            now = {p: [e.to_dict() for e in es] for p, es in index.graph().now(ent.key).items()}
    if ent is None:
        # the hint compares the name with every entity's: only for a name of a name's length, and unlocked
        short = isinstance(name, str) and len(name) <= 100
        hint = suggest(normalize_name(name), {e.key: e.name for e in directory.entities()}) if short else None
        raise NotFoundError(f"no entity {quoted(name)} in the index" + (f": did you mean {hint}?" if hint else ""))
    return {
        "name": ent.name,
        "page": ent.page,
        "count": directory.counts.get(ent.key, 0),
        "facts": [fact_dict(found[s]) for s in seqs if s in found],
        "related": sorted(related.items(), key=lambda kv: (-kv[1], kv[0].lower())),
        "now": now,
    }


def facts_since(index: IndexKeeper, since: dt.date, limit: int) -> list[dict[str, Any]]:
    """The facts of the logs dated ``since`` or later, latest day first (at most ``limit``)."""
    facts_of = index.store.facts
    seqs = facts_of.latest_since(since.isoformat(), limit)
    found = facts_of.by_seq(seqs)
    return [fact_dict(found[s]) for s in seqs if s in found]


def updates(index: IndexKeeper, entity: str) -> list[dict[str, Any]]:
    """Which of ``entity``'s latest facts a later one superseded (:func:`memlane.facts.supersede.updates`)."""
    ent = index.entity_directory().resolve(entity)
    if ent is None:
        return []
    with index.lock:
        seqs = index.store.facts.mentioning(sorted(ent.norms), supersede.UPDATES_READ)
        facts = index.store.facts.by_seq(seqs)
    return supersede.updates(facts.values())


def fact_dict(f: StoredFact) -> dict[str, Any]:
    return {
        "kind": f.kind,
        "content": f.content,
        "day": f.day,
        "confidence": f.confidence,
        "source": f.source,
        "origin": f.origin,
        "entities": sorted({name for _, name in f.mentions}),
    }
