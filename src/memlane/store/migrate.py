"""``memlane migrate --to postgres URL``: copy one agent's SQLite index into PostgreSQL as it is.

Everything the index holds is copied: files and their states, chunks and their keys, facts with their
mentions, entity names and problems, meta (the fingerprint included, so the next sync on PostgreSQL
finds nothing changed), vendor batch jobs in flight, and the whole embedding cache, so nothing is
embedded again. The copy is one transaction under the agent's advisory lock: it lands whole or not at
all. The SQLite file is only read. An agent that already has an index in the target is refused unless
``replace`` is given (its rows are then replaced in the same transaction).
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..embeddings import EmbeddingKey
from ..errors import IndexError_
from .base import IndexStore
from .facts import EntityName, FactRow
from .rows import ChunkRow, FileState
from .sqlite import INDEX_ID, SQLiteStore

if TYPE_CHECKING:
    from ..config import MemorySearchSettings

# Meta keys that belong to the index they are in, not to what it indexes (a copy is another index).
_OWN_META = {"schema_version", "generation", "epoch", INDEX_ID}
_CACHE_BATCH = 2000


@dataclass
class MigrateReport:
    files: int = 0
    chunks: int = 0
    chunk_keys: int = 0
    facts: int = 0
    vectors: int = 0
    batch_jobs: int = 0

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def copy_index(source: SQLiteStore, target: IndexStore, replace: bool = False) -> MigrateReport:
    """Copy ``source`` into ``target`` (another driver's store of the same agent) in one write."""
    if target.counts()["files"] and not replace:
        raise IndexError_(f"{target.location} already holds an index of this agent; pass --replace to overwrite it")
    report = MigrateReport()
    with source._reading() as conn, target.write():
        target.reset()
        meta = {k: v for k, v in conn.execute("SELECT key, value FROM meta") if k not in _OWN_META}
        target.set_meta(meta)
        for path, source_name, hash_, mtime, size in conn.execute(
            "SELECT path, source, hash, mtime, size FROM files ORDER BY path"
        ):
            target.set_file_state(path, FileState(hash_, mtime, size, source_name))
            report.files += 1

        keys: dict[int, list[tuple[str, str, bool]]] = defaultdict(list)
        for chunk_seq, hash_, assistant in conn.execute(
            "SELECT chunk_seq, hash, assistant FROM chunk_keys ORDER BY seq"
        ):
            keys[chunk_seq].append((hash_, "", bool(assistant)))
            report.chunk_keys += 1
        by_model: dict[str, list[ChunkRow]] = defaultdict(list)
        for seq, ident, path, source_name, start, end, hash_, model, text, cjk, said, said_cjk in conn.execute(
            "SELECT c.seq, c.id, c.path, c.source, c.start_line, c.end_line, c.hash, c.model, c.text, c.cjk, "
            "coalesce(s.text, ''), coalesce(s.cjk, '') FROM chunks c LEFT JOIN chunks_said_fts s ON s.rowid = c.seq "
            "ORDER BY c.seq"
        ):
            by_model[model].append(
                ChunkRow(ident, path, source_name, start, end, hash_, text, cjk, tuple(keys[seq]), said, said_cjk)
            )
            report.chunks += 1
        for model, rows in by_model.items():
            target.add_chunks(rows, model)

        _copy_facts(conn, target, report)

        cursor = conn.execute(
            "SELECT provider, model, provider_key, hash, embedding FROM embedding_cache ORDER BY provider, model"
        )
        while batch := cursor.fetchmany(_CACHE_BATCH):
            grouped: dict[EmbeddingKey, dict[str, npt.NDArray[np.float32]]] = defaultdict(dict)
            for provider, model, provider_key, hash_, blob in batch:
                grouped[EmbeddingKey(provider, model, provider_key)][hash_] = np.frombuffer(blob, dtype="<f4").copy()
            for key, vectors in grouped.items():
                target.put_vectors(key, vectors)
                report.vectors += len(vectors)

        for job_id, provider, model, provider_key, hashes in conn.execute(
            "SELECT job_id, provider, model, provider_key, hashes FROM batch_jobs ORDER BY created_at"
        ):
            target.add_batch_job(EmbeddingKey(provider, model, provider_key), job_id, json.loads(hashes))
            report.batch_jobs += 1
    return report


def _copy_facts(conn: sqlite3.Connection, target: IndexStore, report: MigrateReport) -> None:
    """Facts, mentions, problems and entity names, file by file (``replace_file`` keeps them together)."""
    mentions: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for fact, norm, name in conn.execute("SELECT fact, norm, name FROM fact_mentions ORDER BY fact, norm"):
        mentions[fact].append((norm, name))
    facts: dict[str, list[FactRow]] = defaultdict(list)
    for row in conn.execute(
        "SELECT seq, id, path, start_line, end_line, kind, content, day, t_start, t_end, confidence, hash, anchors, "
        "context, cjk, origin FROM facts ORDER BY seq"
    ):
        seq, ident, path, start, end, kind, content, day, t_start, t_end, confidence, hash_, anchors, context, cjk = (
            row[:15]
        )
        anchor_lines = tuple(int(a) for a in anchors.split())
        facts[path].append(
            FactRow(
                *(ident, path, start, end, kind, content, day, t_start, t_end, confidence, hash_),
                "",
                anchor_lines,
                context,
                cjk,
                tuple(mentions[seq]),
                origin=row[15],
            )
        )
        report.facts += 1
    problems: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for path, line, message in conn.execute("SELECT path, line, message FROM fact_problems ORDER BY path, line"):
        problems[path].append((line, message))
    names: dict[str, list[EntityName]] = defaultdict(list)
    for path, norm, slug, how in conn.execute("SELECT path, norm, slug, how FROM entity_names ORDER BY path, norm"):
        names[path].append(EntityName(norm, slug, path, how))
    for path in sorted(set(facts) | set(problems) | set(names)):
        target.facts.replace_file(path, facts[path], problems[path], names[path])


def migrate_to_postgres(
    settings: MemorySearchSettings, agent: str, url: str, schema: str = "memlane", replace: bool = False
) -> MigrateReport:
    """Copy ``agent``'s SQLite index (where ``settings`` put it) into the PostgreSQL database at ``url``."""
    from .postgres import PostgresStore

    path = settings.store_path(agent)
    if not path.is_file():
        raise IndexError_(f"no SQLite index of agent {agent!r} at {path}: run `memlane index` first")
    source = SQLiteStore.open_shared(path, settings.store.busy_timeout_ms)  # read only, as its owner may write
    try:
        target = PostgresStore(url, agent, schema, settings.store.busy_timeout_ms, settings.store.ann_min_rows)
        try:
            return copy_index(source, target, replace)
        finally:
            target.close()
    finally:
        source.close()
