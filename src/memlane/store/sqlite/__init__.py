"""The SQLite driver: one agent's index in one file (:class:`SQLiteStore`)."""

from __future__ import annotations

from .connection import (
    BUSY_TIMEOUT_MS,
    INDEX_ID,
    SCHEMA_VERSION,
    ChunkRow,
    EmbeddingKey,
    FileState,
    SQLiteStore,
    StoredChunk,
    UnusableIndex,
    fingerprint_json,
    lines_from_chunks,
)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "INDEX_ID",
    "SCHEMA_VERSION",
    "ChunkRow",
    "EmbeddingKey",
    "FileState",
    "SQLiteStore",
    "StoredChunk",
    "UnusableIndex",
    "fingerprint_json",
    "lines_from_chunks",
]
