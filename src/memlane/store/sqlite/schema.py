"""The SQLite index's schema and its migrations.

Tables (the spec's, with two deliberate changes recorded in docs/DESIGN.md):

- ``meta(key, value)``: schema version, index fingerprint, provider/model, generation.
- ``files(path, source, hash, mtime, size)``: what was indexed, to skip unchanged files.
- ``chunks(seq, id, path, source, start_line, end_line, hash, model, text, cjk, updated_at)``:
  ``seq`` is a stable integer key for FTS; ``cjk`` holds CJK bigrams for the word index.
- ``embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at)``:
  every vector, float32 BLOB, stored once. A chunk's vector is the entry with the index's
  provider/model/key and the chunk's text hash, so unchanged text is never embedded twice
  and the live index costs no second copy. Entries a live chunk uses are never pruned.
- ``chunks_fts``: FTS5 over ``chunks(text, cjk)`` (external content, kept by triggers),
  ``porter unicode61 remove_diacritics 2``.
- the fact tables (``facts``, ``fact_mentions``, ``entity_names``, ``fact_problems``, ``facts_fts``):
  see :mod:`memlane.store.facts`.

Schema changes are ordered migrations applied on open (``MIGRATIONS``), each in its own transaction.
"""

from __future__ import annotations

import sqlite3

from ..facts import FACT_SCHEMA, FACT_TABLES
from ..relations import SQLITE_SCHEMA as RELATION_SCHEMA

# The chunks' full-text tokenizer; query terms are tokenized the same way to look up their frequencies.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

SCHEMA_VERSION = 7
# meta key of a random id given to each index when it is made or reset: files derived from one index (the
# ANN graph of ann.py) name it, so that they are never taken for those of another index at the same path.
INDEX_ID = "index_id"

BASE_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS files (
      path TEXT PRIMARY KEY,
      source TEXT NOT NULL DEFAULT 'memory',
      hash TEXT NOT NULL,
      mtime INTEGER NOT NULL,
      size INTEGER NOT NULL)""",
    # WITHOUT ROWID: the key is stored once, not again in a separate index (~90 bytes a vector).
    """CREATE TABLE IF NOT EXISTS embedding_cache (
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      provider_key TEXT NOT NULL,
      hash TEXT NOT NULL,
      embedding BLOB NOT NULL,
      dims INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (provider, model, provider_key, hash)) WITHOUT ROWID""",
    # Vendor batch jobs started and not yet collected: a sync after a restart resumes them.
    """CREATE TABLE IF NOT EXISTS batch_jobs (
      job_id TEXT PRIMARY KEY,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      provider_key TEXT NOT NULL,
      hashes TEXT NOT NULL,
      created_at INTEGER NOT NULL)""",
]
# A chunk's keys (keys.py): one vector per item of the chunk, found through the embedding cache by hash.
KEY_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS chunk_keys (
      seq INTEGER PRIMARY KEY,
      chunk_seq INTEGER NOT NULL,
      hash TEXT NOT NULL,
      assistant INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS idx_chunk_keys_chunk ON chunk_keys(chunk_seq)",
]
# A chunk's text in anyone's words but an assistant's (keys.said_text), with its own content: the user-text
# keyword leg (query.hybrid.userTextWeight). Same columns as chunks_fts, so one MATCH expression serves both.
SAID_SCHEMA = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_said_fts USING fts5(text, cjk, tokenize='{FTS_TOKENIZER}')""",
]
# Recreated as a unit by reset(): plain statements, no executescript (it would commit).
CHUNK_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS chunks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      path TEXT NOT NULL,
      source TEXT NOT NULL DEFAULT 'memory',
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      hash TEXT NOT NULL,
      model TEXT NOT NULL,
      text TEXT NOT NULL,
      cjk TEXT NOT NULL DEFAULT '',
      updated_at INTEGER NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path, start_line)",
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
      text, cjk, content='chunks', content_rowid='seq',
      tokenize='{FTS_TOKENIZER}')""",
    """CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, text, cjk) VALUES (new.seq, new.text, new.cjk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, text, cjk) VALUES ('delete', old.seq, old.text, old.cjk);
      DELETE FROM chunk_keys WHERE chunk_seq = old.seq;
      DELETE FROM chunks_said_fts WHERE rowid = old.seq;
    END""",
    *KEY_SCHEMA,
    *SAID_SCHEMA,
]

TABLES = {"meta", "files", "chunks", "chunk_keys", "embedding_cache", "chunks_fts", "chunks_said_fts"} | FACT_TABLES
# Tables that hold rows with a vector (``seq`` and ``hash`` columns): what vector loads may name.
VECTOR_TABLES = {"chunks": "idx_chunks_path", "facts": "idx_facts_path"}


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Version 2 adds the fact tables. Forgetting the fingerprint makes the next sync a full reindex,
    so facts are derived from files the index already holds (their vectors come from the cache)."""
    for stmt in FACT_SCHEMA:
        conn.execute(stmt)
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


def _renew_chunk_schema(conn: sqlite3.Connection) -> None:
    """Versions 3 and 4 add a table beside the chunks (3: chunk keys; 4: the user-text index
    ``chunks_said_fts``) that the chunk delete trigger empties too: the trigger is made again with the rest of
    the chunk schema. The next sync is a full reindex (the fingerprint is forgotten) that fills the new table;
    chunk and fact vectors come from the cache, only keys new in version 3 are embedded."""
    conn.execute("DROP TRIGGER IF EXISTS chunks_ad")
    for stmt in CHUNK_SCHEMA:
        conn.execute(stmt)
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


def _add_relations(conn: sqlite3.Connection) -> None:
    """Version 5 adds the relation table (memlane.facts.graph); the next sync is a full reindex that fills it
    (every vector comes from the cache)."""
    for stmt in RELATION_SCHEMA:
        conn.execute(stmt)
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


def _add_known_to(conn: sqlite3.Connection) -> None:
    """Version 6 adds ``relations.known_to`` (statements the git history retracted); the next sync is a full
    reindex (every vector comes from the cache)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(relations)")}
    if "known_to" not in columns:  # an index of version 4 or older made the table as version 6 has it
        conn.execute("ALTER TABLE relations ADD COLUMN known_to TEXT")
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


def _add_origin(conn: sqlite3.Connection) -> None:
    """Version 7 adds ``facts.origin`` (the person, the agent or a file: :mod:`memlane.text.origin`); the next
    sync is a full reindex that derives it from the Markdown (every vector comes from the cache)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(facts)")}
    if "origin" not in columns:  # an index of version 1 made the table as version 7 has it
        conn.execute("ALTER TABLE facts ADD COLUMN origin TEXT NOT NULL DEFAULT 'file'")
    conn.execute("DELETE FROM meta WHERE key = 'fingerprint'")


# (from version, to version, step): applied in order on open, each in its own transaction.
MIGRATIONS = [
    (1, 2, _migrate_1_to_2),
    (2, 3, _renew_chunk_schema),
    (3, 4, _renew_chunk_schema),
    (4, 5, _add_relations),
    (5, 6, _add_known_to),
    (6, 7, _add_origin),
]
