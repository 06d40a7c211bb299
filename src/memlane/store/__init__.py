"""The index store: the :class:`IndexStore` seam (:mod:`.base`), SQLite behind it today (:mod:`.sqlite`),
with the fact tables beside the chunks (:mod:`.facts`). :func:`open_store` picks the driver."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import FactIndex, IndexStore, ServerVectorSearch
from .facts import EntityName, FactFilter, FactRow, SQLiteFacts, StoredFact
from .relations import RelationRow, RelationTable, StoredRelation
from .sqlite import (
    SCHEMA_VERSION,
    ChunkRow,
    FileState,
    SQLiteStore,
    StoredChunk,
    fingerprint_json,
)

if TYPE_CHECKING:
    from ..config import MemorySearchSettings
    from .postgres import PostgresStore
    from .postgres.facts import PostgresFacts


def open_store(settings: MemorySearchSettings, agent_id: str, shared: bool = False) -> IndexStore:
    """The index of ``agent_id`` with the configured driver (``memorySearch.store.driver``); ``shared``:
    another agent's, to read only (never created, migrated or written)."""
    st = settings.store
    if st.driver == "postgres":
        from .postgres import PostgresStore

        approximate = st.approximate_from()
        never = 2**62  # vector.enabled false: no HNSW index on the server, every search exact
        return PostgresStore(
            st.database_url(),
            agent_id,
            st.schema_,
            st.busy_timeout_ms,
            approximate if approximate is not None else never,
            shared=shared,
        )
    if shared:
        return SQLiteStore.open_shared(settings.store_path(agent_id), st.busy_timeout_ms)
    return SQLiteStore(settings.store_path(agent_id), st.busy_timeout_ms)


def _conforms(
    store: SQLiteStore, facts: SQLiteFacts, pg: PostgresStore, pg_facts: PostgresFacts
) -> tuple[IndexStore, FactIndex, IndexStore, FactIndex]:
    _ann: ServerVectorSearch = pg
    return store, facts, pg, pg_facts  # mypy checks here that both drivers satisfy both protocols


__all__ = [
    "SCHEMA_VERSION",
    "ChunkRow",
    "EntityName",
    "FactFilter",
    "FactIndex",
    "FactRow",
    "FileState",
    "IndexStore",
    "RelationRow",
    "RelationTable",
    "SQLiteFacts",
    "SQLiteStore",
    "ServerVectorSearch",
    "StoredChunk",
    "StoredFact",
    "StoredRelation",
    "fingerprint_json",
    "open_store",
]
