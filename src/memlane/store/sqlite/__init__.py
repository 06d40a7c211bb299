"""The SQLite driver: one agent's index in one file (:class:`SQLiteStore`), in four parts:
:mod:`.connection` (opening, recovery, transactions, meta), :mod:`.schema` (tables and migrations),
:mod:`.chunks` (files, chunks, keyword search), :mod:`.vectors` (chunk, fact and key vectors) and
:mod:`.cache` (the embedding cache and vendor batch jobs)."""

from __future__ import annotations

from ..rows import BUSY_TIMEOUT_MS, ChunkRow, FileState, StoredChunk, fingerprint_json, lines_from_chunks
from .cache import EmbeddingCache
from .chunks import ChunkTables
from .connection import UnusableIndex
from .schema import FTS_TOKENIZER, INDEX_ID, SCHEMA_VERSION
from .vectors import VectorTables


class SQLiteStore(ChunkTables, VectorTables, EmbeddingCache):
    """One agent's index in one SQLite file (WAL mode, one writer at a time)."""

    driver = "sqlite"
    text_search = f"FTS5 {FTS_TOKENIZER}"


__all__ = [
    "BUSY_TIMEOUT_MS",
    "INDEX_ID",
    "SCHEMA_VERSION",
    "ChunkRow",
    "FileState",
    "SQLiteStore",
    "StoredChunk",
    "UnusableIndex",
    "fingerprint_json",
    "lines_from_chunks",
]
