"""The embedding cache of a SQLite index (every vector once, by text hash) and the vendor batch jobs in flight."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ...embeddings import EmbeddingKey
from ..dialect import SQLITE, prune_cache
from ..rows import now_ms
from ..slices import in_slices
from .connection import SQLiteConnection


def _blob(vec: npt.NDArray[np.float32]) -> bytes:
    return np.asarray(vec, dtype="<f4").tobytes()


class EmbeddingCache(SQLiteConnection):
    """Vectors by text hash, least recently used pruned first, and the batch jobs that will add more."""

    def cached_hashes(self, key: EmbeddingKey, hashes: Sequence[str]) -> set[str]:
        """Which of ``hashes`` already have a vector for ``key`` (the vectors themselves are not read)."""
        found: set[str] = set()
        unique = list(dict.fromkeys(hashes))
        with self._reading() as conn:
            for part, marks in in_slices(unique):
                rows = conn.execute(
                    "SELECT hash FROM embedding_cache WHERE provider=? AND model=? AND provider_key=? "
                    f"AND hash IN ({marks})",
                    (key.provider, key.model, key.provider_key, *part),
                ).fetchall()
                found.update(h for (h,) in rows)
        return found

    def put_vectors(self, key: EmbeddingKey, vectors: dict[str, npt.NDArray[np.float32]]) -> None:
        """Store vectors by text hash; call inside :meth:`write`."""
        now = now_ms()
        self._conn.executemany(
            "INSERT INTO embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at) "
            "VALUES(?,?,?,?,?,?,?) ON CONFLICT DO UPDATE SET updated_at=excluded.updated_at",
            [
                (key.provider, key.model, key.provider_key, h, _blob(v), int(v.shape[0]), now)
                for h, v in vectors.items()
            ],
        )

    def touch_vectors(self, key: EmbeddingKey, hashes: Sequence[str]) -> None:
        """Mark cache entries as recently used (LRU); call inside :meth:`write`."""
        now = now_ms()
        self._conn.executemany(
            "UPDATE embedding_cache SET updated_at=? WHERE provider=? AND model=? AND provider_key=? AND hash=?",
            [(now, key.provider, key.model, key.provider_key, h) for h in hashes],
        )

    def prune_cache(self, live: EmbeddingKey | None, max_entries: int) -> int:
        """Drop least-recently-used entries beyond ``max_entries`` that no live chunk uses
        (:func:`~memlane.store.dialect.prune_cache` says which); call inside :meth:`write`. Returns how many."""
        return prune_cache(SQLITE, self._conn.execute, live, max_entries)

    def add_batch_job(self, key: EmbeddingKey, job_id: str, hashes: Sequence[str]) -> None:
        """Remember a submitted job and the text hashes it embeds; call inside :meth:`write`."""
        self._conn.execute(
            "INSERT OR REPLACE INTO batch_jobs(job_id, provider, model, provider_key, hashes, created_at) "
            "VALUES(?,?,?,?,?,?)",
            (job_id, key.provider, key.model, key.provider_key, json.dumps(list(hashes)), now_ms()),
        )

    def batch_jobs(self, key: EmbeddingKey) -> dict[str, list[str]]:
        """Uncollected jobs of ``key``: job id -> text hashes, oldest first."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT job_id, hashes FROM batch_jobs WHERE provider=? AND model=? AND provider_key=? "
                "ORDER BY created_at",
                (key.provider, key.model, key.provider_key),
            ).fetchall()
        return {job: json.loads(hashes) for job, hashes in rows}

    def drop_batch_job(self, job_id: str) -> None:
        """Forget a job; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM batch_jobs WHERE job_id = ?", (job_id,))
