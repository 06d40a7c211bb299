"""Time-aware relations between entities: what memory's facts state, what is true now, what was true then,
and what memory knew when (spec 003's "Entities + relationships" and "Bi-temporal tracking").

``extract`` reads relations out of a bullet (inline fields, offline patterns, entity pages' lines);
``settle`` decides which are still true (supersession without an LLM); ``query`` answers neighbourhoods,
paths, timelines and the validity recall uses. Everything is derived from the Markdown, in the index it
already has: the sync calls :func:`settle_index` in the same transaction that wrote the rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...store import FactIndex, StoredRelation
from ..entities import EntityDirectory
from .extract import Relation, relations_of
from .predicates import BUILTIN, Predicate, Predicates
from .settle import Stated, settle

GRAPH_VERSION = 1


def directory_of(facts: FactIndex) -> EntityDirectory:
    """The entities the index knows: entity pages, mentions, and the entity objects of relations."""
    return EntityDirectory(*facts.relations.names())


def key_of(directory: EntityDirectory, norm: str) -> str:
    entity = directory.of_norm(norm)
    return entity.key if entity is not None else norm


def stated(rows: Iterable[StoredRelation], directory: EntityDirectory) -> list[Stated]:
    """Stored statements as settling reads them, subjects and entity objects resolved to their entity."""
    return [
        Stated(
            r.seq,
            key_of(directory, r.subject),
            r.stated,
            key_of(directory, r.object) if r.entity else r.object,
            r.ends,
            r.valid_from,
            r.until,
            r.known_from,
            r.origin,
            known_to=r.known_to,
        )
        for r in rows
    ]


def norms_of(directory: EntityDirectory, keys: Iterable[str]) -> set[str]:
    """Every name (as written) the entities of ``keys`` answer to: what their statements' subjects may be."""
    norms: set[str] = set()
    for key in keys:
        entity = directory.of_norm(key)
        norms |= set(entity.norms) if entity is not None else {key}
    return norms


def settle_index(facts: FactIndex, subjects: set[str] | None, predicates: Predicates) -> int:
    """Settle the statements about ``subjects`` (keys as written; every statement when None) and write what
    was decided. Call inside the store's write. Returns how many statements were settled."""
    table = facts.relations.through_write()
    # A key resolves through entity pages only (a mention no page names is its own key): no need to count
    # every mention of the index on each write.
    directory = EntityDirectory(table.page_names(), {})
    if subjects is None:
        rows = table.of_subjects(None)
    else:
        keys = {key_of(directory, n) for n in subjects}
        rows = table.of_subjects(sorted(norms_of(directory, keys) | subjects))
    done = settle(stated(rows, directory), predicates.single, slot=predicates.slot)
    table.apply((s.seq, s.predicate, s.valid_to, s.closed_by, s.subject, s.object) for s in done)
    return len(done)


__all__ = [
    "BUILTIN",
    "GRAPH_VERSION",
    "Predicate",
    "Predicates",
    "Relation",
    "Stated",
    "directory_of",
    "norms_of",
    "relations_of",
    "settle",
    "settle_index",
]
