"""The vectors of a SQLite index: each chunk's and fact's (by text hash from the embedding cache, never a
second copy), and the chunks' keys (keys.py), read on demand."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ...embeddings import EmbeddingKey, similarities
from ..slices import in_slices
from .connection import SQLiteConnection
from .schema import VECTOR_TABLES


class VectorTables(SQLiteConnection):
    """Reads of the live index's vectors and of the chunk keys' cosines."""

    def vector_rows(self, table: str = "chunks") -> int:
        """Rows of ``table`` (chunks or facts): one count, where :meth:`counts` makes four."""
        assert table in VECTOR_TABLES
        with self._reading() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def live_seqs(self, table: str = "chunks") -> npt.NDArray[np.int64]:
        """Every seq of ``table`` (chunks or facts), ascending."""
        index = VECTOR_TABLES[table]
        with self._reading() as conn:
            rows = conn.execute(f"SELECT seq FROM {table} INDEXED BY {index}").fetchall()
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        seqs.sort()
        return seqs

    def vectors_for(
        self, key: EmbeddingKey, seqs: npt.NDArray[np.int64], dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """(seqs, matrix) for those of ``seqs`` of ``table`` that have a vector, ascending."""
        assert table in VECTOR_TABLES
        found_seqs: list[int] = []
        blobs: list[bytes] = []
        ids = [int(x) for x in seqs]
        with self._reading() as conn:
            for part, marks in in_slices(ids):
                rows = conn.execute(
                    f"SELECT c.seq, e.embedding FROM {table} c JOIN embedding_cache e ON e.hash = c.hash "
                    "AND e.provider=? AND e.model=? AND e.provider_key=? "
                    f"WHERE c.seq IN ({marks}) ORDER BY c.seq",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                for seq, blob in rows:
                    found_seqs.append(seq)
                    blobs.append(blob)
        matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dims).copy()
        return np.asarray(found_seqs, dtype=np.int64), matrix

    def load_vectors(
        self, key: EmbeddingKey, dims: int, table: str = "chunks"
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The live index's (seqs, matrix): one unit vector per row of ``table`` (chunks or facts) that has one.

        Rows are streamed into a preallocated matrix: holding them all as Python bytes first would
        double the peak memory (170 MB more at 100k chunks).
        """
        with self._reading() as conn:
            assert table in VECTOR_TABLES
            total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            seqs = np.empty(total, dtype=np.int64)
            matrix = np.empty((total, dims), dtype=np.float32)
            cursor = conn.execute(
                f"SELECT c.seq, e.embedding FROM {table} c JOIN embedding_cache e "
                "ON e.hash = c.hash AND e.provider=? AND e.model=? AND e.provider_key=? ORDER BY c.seq",
                (key.provider, key.model, key.provider_key),
            )
            n = 0
            while rows := cursor.fetchmany(2048):
                for seq, blob in rows:
                    if n == total:  # a chunk was added since the count: the next generation will load it
                        break
                    seqs[n] = seq
                    matrix[n] = np.frombuffer(blob, dtype="<f4")
                    n += 1
        if n < total:
            return seqs[:n].copy(), matrix[:n].copy()
        return seqs, matrix

    def key_similarities(
        self, key: EmbeddingKey, chunk_seqs: Sequence[int], query_vec: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
        """(owner chunk seq, said by an assistant, embedded yet, cosine to ``query_vec``), a row per key of
        ``chunk_seqs`` (0 where not embedded yet: a batch job may still be running), read on demand: keys are
        several per chunk, so they stay on disk instead of in RAM beside the chunk matrix."""
        owners: list[int] = []
        assistant: list[bool] = []
        blobs: list[bytes | None] = []
        with self._reading() as conn:
            for part, marks in in_slices([int(x) for x in chunk_seqs]):
                rows = conn.execute(
                    "SELECT k.chunk_seq, k.assistant, e.embedding FROM chunk_keys k LEFT JOIN embedding_cache e "
                    "ON e.provider=? AND e.model=? AND e.provider_key=? AND e.hash = k.hash "
                    f"WHERE k.chunk_seq IN ({marks})",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                for seq, said, blob in rows:
                    owners.append(seq)
                    assistant.append(bool(said))
                    blobs.append(blob)
        zero = bytes(4 * len(query_vec))
        matrix = np.frombuffer(b"".join(b or zero for b in blobs), dtype="<f4").reshape(len(blobs), len(query_vec))
        embedded = np.asarray([b is not None for b in blobs], dtype=np.bool_)
        return (
            np.asarray(owners, dtype=np.int64),
            np.asarray(assistant, dtype=np.bool_),
            embedded,
            similarities(matrix, query_vec),
        )

    def keys_without_vectors(self, key: EmbeddingKey) -> int:
        """Chunk keys with no vector for ``key`` yet (a batch job still out, or another model's index)."""
        with self._reading() as conn:
            row = conn.execute(
                "SELECT count(*) FROM chunk_keys k WHERE NOT EXISTS (SELECT 1 FROM embedding_cache e "
                "WHERE e.provider=? AND e.model=? AND e.provider_key=? AND e.hash = k.hash)",
                (key.provider, key.model, key.provider_key),
            ).fetchone()
        return int(row[0])
