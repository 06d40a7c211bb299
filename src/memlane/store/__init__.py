"""The index store: the :class:`IndexStore` seam (:mod:`.base`), SQLite behind it today (:mod:`.sqlite`),
with the fact tables beside the chunks (:mod:`.facts`). :func:`open_store` picks the driver."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import FactIndex, IndexStore
from .facts import EntityName, FactFilter, FactRow, SQLiteFacts, StoredFact
from .sqlite import (
    SCHEMA_VERSION,
    ChunkRow,
    EmbeddingKey,
    FileState,
    SQLiteStore,
    StoredChunk,
    fingerprint_json,
)

if TYPE_CHECKING:
    from ..config import MemorySearchSettings


def open_store(settings: MemorySearchSettings, agent_id: str) -> IndexStore:
    """The index of ``agent_id`` with the configured driver (``memorySearch.store.driver``)."""
    return SQLiteStore(settings.store_path(agent_id), settings.store.busy_timeout_ms)


def _conforms(store: SQLiteStore, facts: SQLiteFacts) -> tuple[IndexStore, FactIndex]:
    return store, facts  # mypy checks here that the SQLite driver satisfies both protocols


__all__ = [
    "SCHEMA_VERSION",
    "ChunkRow",
    "EmbeddingKey",
    "EntityName",
    "FactFilter",
    "FactIndex",
    "FactRow",
    "FileState",
    "IndexStore",
    "SQLiteFacts",
    "SQLiteStore",
    "StoredChunk",
    "StoredFact",
    "fingerprint_json",
    "open_store",
]
