"""The PostgreSQL driver: every agent's index in one database, keyed by agent (:class:`PostgresStore`), in parts:
:mod:`.connection` (connections, transactions, meta, the HNSW build), :mod:`.schema`, :mod:`.chunks`,
:mod:`.keywords` (ranked full text, with :mod:`.text`), :mod:`.vectors`, :mod:`.cache` (the embedding cache and
vendor batch jobs) and :mod:`.facts`; :mod:`.dsn` keeps passwords out of messages. Needs
``pip install memlane[postgres]``; without it only :mod:`.dsn` works and opening a store says what to install."""

from __future__ import annotations

from ..rows import BUSY_TIMEOUT_MS
from .cache import EmbeddingCache
from .chunks import ChunkTables
from .connection import ANN_MIN_ROWS, agents_in
from .dsn import redact, scrub
from .facts import PostgresFacts
from .keywords import KeywordSearch
from .vectors import VectorTables


class PostgresStore(ChunkTables, KeywordSearch, VectorTables, EmbeddingCache):
    """One agent's index in a shared PostgreSQL database (``agent`` column in every table)."""

    driver = "postgres"
    text_search = "tsvector 'memlane' (english parser, Snowball English stems, no stop words, diacritics folded)"

    def __init__(
        self,
        url: str,
        agent: str,
        schema: str = "memlane",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        ann_min_rows: int = ANN_MIN_ROWS,
        shared: bool = False,
    ) -> None:
        super().__init__(url, agent, schema, busy_timeout_ms, ann_min_rows, shared)
        self.facts = PostgresFacts(self)


__all__ = ["PostgresStore", "agents_in", "redact", "scrub"]
