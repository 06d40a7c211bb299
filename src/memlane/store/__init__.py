"""The index store: SQLite today (:mod:`.sqlite`), with the fact tables beside the chunks (:mod:`.facts`)."""

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

__all__ = [
    "SCHEMA_VERSION",
    "ChunkRow",
    "EmbeddingKey",
    "EntityName",
    "FactFilter",
    "FactRow",
    "FileState",
    "SQLiteFacts",
    "SQLiteStore",
    "StoredChunk",
    "StoredFact",
    "fingerprint_json",
]
