"""The vectors of one agent in the PostgreSQL index: each chunk's and fact's (the embedding cache's entry for its
text hash), the chunks' keys' cosines computed by the server, and nearest chunks by the HNSW index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...embeddings import EmbeddingKey
from .connection import PostgresConnection

VECTOR_TABLES = ("chunks", "facts")
HNSW_EF_SEARCH = 100


def _vec(value: Any) -> npt.NDArray[np.float32]:
    return np.asarray(value.to_numpy(), dtype=np.float32)


class VectorTables(PostgresConnection):
    """Reads of the live index's vectors, exact or by the server's HNSW index."""

    def vector_rows(self, table: str = "chunks") -> int:
        return self.doc_count(table)

    def live_seqs(self, table: str = "chunks") -> npt.NDArray[np.int64]:
        assert table in VECTOR_TABLES
        rows = self._rows(f"SELECT seq FROM {self._t(table)} WHERE agent = %s ORDER BY seq", (self.agent,))
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def _vector_rows(self, table: str, key: EmbeddingKey, extra: str, params: Sequence[Any]) -> list[Any]:
        return self._rows(
            f"SELECT c.seq, e.embedding FROM {self._t(table)} c JOIN {self._t('embedding_cache')} e "
            "ON e.agent = c.agent AND e.hash = c.hash AND e.provider = %s AND e.model = %s AND e.provider_key = %s "
            f"WHERE c.agent = %s {extra} ORDER BY c.seq",
            (key.provider, key.model, key.provider_key, self.agent, *params),
            binary=True,
        )

    @staticmethod
    def _matrix(rows: list[Any], dims: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.empty((len(rows), dims), dtype=np.float32)
        for i, (_, v) in enumerate(rows):
            matrix[i] = _vec(v)
        return seqs, matrix

    def vectors_for(
        self, key: EmbeddingKey, seqs: npt.NDArray[np.int64], dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        assert table in VECTOR_TABLES
        return self._matrix(self._vector_rows(table, key, "AND c.seq = ANY(%s)", ([int(s) for s in seqs],)), dims)

    def load_vectors(
        self, key: EmbeddingKey, dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        assert table in VECTOR_TABLES
        return self._matrix(self._vector_rows(table, key, "", ()), dims)

    def key_similarities(
        self, key: EmbeddingKey, chunk_seqs: Sequence[int], query_vec: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
        """The keys' cosines computed by the server: a search reads a number per key instead of its vector
        (2.2 -> 1.8 ms for ~150 keys at 100k chunks, docs/DESIGN.md §24)."""
        dims = int(query_vec.shape[0])
        rows = self._rows(
            f"SELECT k.chunk_seq, k.assistant, 1 - (e.embedding::vector({dims}) <=> %b::vector({dims})) "
            f"FROM {self._t('chunk_keys')} k LEFT JOIN {self._t('embedding_cache')} e ON e.agent = k.agent "
            "AND e.hash = k.hash AND e.provider = %s AND e.model = %s AND e.provider_key = %s AND e.dims = %s "
            "WHERE k.agent = %s AND k.chunk_seq = ANY(%s) ORDER BY k.seq",
            (
                query_vec.astype(np.float32),
                key.provider,
                key.model,
                key.provider_key,
                dims,
                self.agent,
                [int(s) for s in chunk_seqs],
            ),
        )
        owners = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        assistant = np.fromiter((bool(r[1]) for r in rows), dtype=np.bool_, count=len(rows))
        embedded = np.fromiter((r[2] is not None for r in rows), dtype=np.bool_, count=len(rows))
        cosines = np.fromiter((r[2] or 0.0 for r in rows), dtype=np.float32, count=len(rows))
        return owners, assistant, embedded, cosines

    def keys_without_vectors(self, key: EmbeddingKey) -> int:
        rows = self._rows(
            f"SELECT count(*) FROM {self._t('chunk_keys')} k WHERE k.agent = %s AND NOT EXISTS (SELECT 1 FROM "
            f"{self._t('embedding_cache')} e WHERE e.agent = k.agent AND e.provider = %s AND e.model = %s "
            "AND e.provider_key = %s AND e.hash = k.hash)",
            (self.agent, key.provider, key.model, key.provider_key),
        )
        return int(rows[0][0])

    def hnsw_memory(self) -> tuple[int, int]:
        """(bytes of this schema's HNSW indexes, bytes of the server's shared_buffers). A search walks the
        graph's pages in shared buffers; a graph bigger than them is read again from the OS cache on every
        search: p50 24 ms instead of 16 at 100k chunks (docs/DESIGN.md §24)."""
        rows = self._rows(
            "SELECT coalesce(sum(pg_relation_size(c.oid)), 0), (SELECT setting::bigint * 8192 FROM pg_settings "
            "WHERE name = 'shared_buffers') FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace "
            "WHERE s.nspname = %s AND c.relname LIKE 'embedding_cache_hnsw_%%'",
            (self.schema,),
        )
        return int(rows[0][0]), int(rows[0][1])

    def nearest(
        self, key: EmbeddingKey, query_vec: npt.NDArray[np.float32], limit: int, table: str = "chunks"
    ) -> list[tuple[int, float]]:
        """(seq, cosine) of the ``limit`` chunks nearest to ``query_vec``, by the server's HNSW index of chunk
        vectors (iterative scan, so the agent and live-row filters still fill ``limit``)."""
        assert table == "chunks", "only chunk vectors are in the HNSW index (facts are searched in process)"
        dims = int(query_vec.shape[0])
        t = self._t(table)
        distance = f"e.embedding::vector({dims}) <=> %b::vector({dims})"

        def run(conn: Any) -> list[tuple[int, float]]:
            with conn.transaction():
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                conn.execute(f"SET LOCAL hnsw.ef_search = {max(HNSW_EF_SEARCH, limit)}")
                rows = conn.execute(
                    f"SELECT h.seq, 1 - h.d FROM (SELECT c.seq, {distance} AS d FROM {self._t('embedding_cache')} e "
                    f"JOIN {t} c ON c.agent = e.agent AND c.hash = e.hash WHERE e.agent = %s AND e.dims = {dims} "
                    "AND e.searched "
                    "AND e.provider = %s AND e.model = %s AND e.provider_key = %s ORDER BY d LIMIT %s) h "
                    "ORDER BY h.d",
                    (query_vec.astype(np.float32), self.agent, key.provider, key.model, key.provider_key, limit),
                ).fetchall()
            return [(int(s), float(c)) for s, c in rows]

        return self._read(run)

    def similarities(
        self, key: EmbeddingKey, query_vec: npt.NDArray[np.float32], seqs: Sequence[int], table: str = "chunks"
    ) -> dict[int, float]:
        """Exact cosine of ``query_vec`` to the vectors of ``seqs`` (those that have one)."""
        if not seqs:
            return {}
        dims = int(query_vec.shape[0])
        rows = self._rows(
            f"SELECT c.seq, 1 - (e.embedding::vector({dims}) <=> %b::vector({dims})) FROM {self._t(table)} c "
            f"JOIN {self._t('embedding_cache')} e ON e.agent = c.agent AND e.hash = c.hash AND e.provider = %s "
            "AND e.model = %s AND e.provider_key = %s AND e.dims = %s WHERE c.agent = %s AND c.seq = ANY(%s)",
            (query_vec.astype(np.float32), key.provider, key.model, key.provider_key, dims, self.agent, list(seqs)),
        )
        return {int(s): float(c) for s, c in rows}
