"""The embedding cache of one agent in the PostgreSQL index (every vector once, by text hash) and the vendor
batch jobs in flight."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ...embeddings import EmbeddingKey
from ..dialect import prune_cache
from ..rows import now_ms
from .connection import PostgresConnection


class EmbeddingCache(PostgresConnection):
    """Vectors by text hash, least recently used pruned first, and the batch jobs that will add more."""

    def cached_hashes(self, key: EmbeddingKey, hashes: Sequence[str]) -> set[str]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return set()
        rows = self._rows(
            f"SELECT hash FROM {self._t('embedding_cache')} WHERE agent = %s AND provider = %s AND model = %s "
            "AND provider_key = %s AND hash = ANY(%s)",
            (self.agent, key.provider, key.model, key.provider_key, unique),
        )
        return {h for (h,) in rows}

    def put_vectors(self, key: EmbeddingKey, vectors: dict[str, npt.NDArray[np.float32]]) -> None:
        if not vectors:
            return
        now = now_ms()
        self._written += len(vectors)
        with self._conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self._t('embedding_cache')} VALUES (%s, %s, %s, %s, %s, %s, %b, %s) "
                "ON CONFLICT (agent, provider, model, provider_key, hash) "
                "DO UPDATE SET updated_at = excluded.updated_at",
                [
                    (self.agent, key.provider, key.model, key.provider_key, h, v.shape[0], v.astype(np.float32), now)
                    for h, v in vectors.items()
                ],
            )
        self._touch(vectors)

    def touch_vectors(self, key: EmbeddingKey, hashes: Sequence[str]) -> None:
        if hashes:
            self._x(
                f"UPDATE {self._t('embedding_cache')} SET updated_at = %s WHERE agent = %s AND provider = %s "
                "AND model = %s AND provider_key = %s AND hash = ANY(%s)",
                (now_ms(), self.agent, key.provider, key.model, key.provider_key, list(hashes)),
            )

    def prune_cache(self, live: EmbeddingKey | None, max_entries: int) -> int:
        return prune_cache(self.dialect, self._x, live, max_entries)

    def add_batch_job(self, key: EmbeddingKey, job_id: str, hashes: Sequence[str]) -> None:
        self._x(
            f"INSERT INTO {self._t('batch_jobs')} VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (agent, job_id) "
            "DO UPDATE SET hashes = excluded.hashes, created_at = excluded.created_at",
            (self.agent, job_id, key.provider, key.model, key.provider_key, json.dumps(list(hashes)), now_ms()),
        )

    def batch_jobs(self, key: EmbeddingKey) -> dict[str, list[str]]:
        rows = self._rows(
            f"SELECT job_id, hashes FROM {self._t('batch_jobs')} WHERE agent = %s AND provider = %s AND model = %s "
            "AND provider_key = %s ORDER BY created_at",
            (self.agent, key.provider, key.model, key.provider_key),
        )
        return {job: json.loads(h) for job, h in rows}

    def drop_batch_job(self, job_id: str) -> None:
        self._x(f"DELETE FROM {self._t('batch_jobs')} WHERE agent = %s AND job_id = %s", (self.agent, job_id))
