"""The files and chunks of one agent in the PostgreSQL index: what was indexed and the chunks' text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..rows import ChunkRow, FileState, StoredChunk, lines_from_chunks, now_ms
from .connection import PostgresConnection
from .text import fold


class ChunkTables(PostgresConnection):
    """Files, chunks and their keys, and the chunks' tsvectors (written with the rows)."""

    def file_states(self) -> dict[str, FileState]:
        rows = self._rows(
            f"SELECT path, hash, mtime, size, source FROM {self._t('files')} WHERE agent = %s", (self.agent,)
        )
        return {p: FileState(h, m, s, src) for p, h, m, s, src in rows}

    def indexed_state(self, path: str) -> FileState | None:
        row = self._x(
            f"SELECT hash, mtime, size, source FROM {self._t('files')} WHERE agent = %s AND path = %s",
            (self.agent, path),
        ).fetchone()
        return FileState(*row) if row else None

    def set_file_state(self, path: str, state: FileState) -> None:
        self._x(
            f"INSERT INTO {self._t('files')} VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (agent, path) DO UPDATE "
            "SET source = excluded.source, hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
            (self.agent, path, state.source, state.hash, state.mtime, state.size),
        )

    def _delete_chunks(self, path: str) -> None:
        """A file's chunks and their keys. No foreign key does it: a key's check against a chunks table
        filled in the same transaction was planned as a scan (11 ms a key at 100k chunks)."""
        self._x(
            f"DELETE FROM {self._t('chunk_keys')} WHERE agent = %s AND chunk_seq IN "
            f"(SELECT seq FROM {self._t('chunks')} WHERE agent = %s AND path = %s)",
            (self.agent, self.agent, path),
        )
        self._x(f"DELETE FROM {self._t('chunks')} WHERE agent = %s AND path = %s", (self.agent, path))

    def replace_chunks(self, path: str, rows: Sequence[ChunkRow], model: str) -> None:
        self._delete_chunks(path)
        self.add_chunks(rows, model)

    def add_chunks(self, rows: Sequence[ChunkRow], model: str) -> None:
        if not rows:
            return
        now = now_ms()
        cfg = f"{self.schema}.memlane"
        with self._conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self._t('chunks')} (agent, id, path, source, start_line, end_line, hash, model, text, "
                f"cjk, updated_at, tsv, tsv_cjk, said_tsv, said_tsv_cjk) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, "
                f"%s, %s, to_tsvector('{cfg}', %s), to_tsvector('simple', %s), to_tsvector('{cfg}', %s), "
                "to_tsvector('simple', %s)) RETURNING seq",
                [
                    (
                        *(self.agent, r.id, r.path, r.source, r.start_line, r.end_line, r.hash, model, r.text, r.cjk),
                        *(now, fold(r.text), r.cjk, fold(r.said), r.said_cjk),
                    )
                    for r in rows
                ],
                returning=True,
            )
            seqs: list[int] = []
            while True:
                row = cur.fetchone()
                if row is not None:
                    seqs.append(int(row[0]))
                if not cur.nextset():
                    break
        keys = [(self.agent, seq, h, bool(a)) for r, seq in zip(rows, seqs, strict=True) for h, _, a in r.keys]
        self._written += len(rows) + len(keys)
        self._touch(r.hash for r in rows)
        if keys:
            with self._conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {self._t('chunk_keys')} (agent, chunk_seq, hash, assistant) VALUES (%s, %s, %s, %s)",
                    keys,
                )

    def delete_file(self, path: str) -> None:
        self._delete_chunks(path)
        self._x(f"DELETE FROM {self._t('files')} WHERE agent = %s AND path = %s", (self.agent, path))
        self.facts.delete_file(path)

    def reset(self) -> None:
        """Empty the agent's files, chunks, keys and facts (inside :meth:`write`: atomic); bumps ``epoch``."""
        self.bump_epoch()
        for table in (
            "files",
            "chunks",
            "chunk_keys",
            "facts",
            "fact_mentions",
            "entity_names",
            "fact_problems",
            "relations",
        ):
            self._x(f"DELETE FROM {self._t(table)} WHERE agent = %s", (self.agent,))

    def chunks_by_seq(self, seqs: Iterable[int]) -> dict[int, StoredChunk]:
        ids = [int(s) for s in seqs]
        if not ids:
            return {}
        rows = self._rows(
            f"SELECT seq, id, path, source, start_line, end_line, text FROM {self._t('chunks')} "
            "WHERE agent = %s AND seq = ANY(%s)",
            (self.agent, ids),
        )
        return {r[0]: StoredChunk(*r) for r in rows}

    def last_line(self, path: str) -> int:
        rows = self._rows(
            f"SELECT max(end_line) FROM {self._t('chunks')} WHERE agent = %s AND path = %s", (self.agent, path)
        )
        return int(rows[0][0] or 0)

    def lines_of(self, path: str, start: int, end: int) -> list[str]:
        # From the last chunk starting at or before ``start`` on, as in SQLite (sqlite/chunks.py LINES_OF)
        chunks = self._t("chunks")
        rows = self._rows(
            f"SELECT start_line, end_line, text FROM {chunks} WHERE agent = %s AND path = %s AND start_line <= %s "
            f"AND end_line >= %s AND start_line >= coalesce((SELECT start_line FROM {chunks} WHERE agent = %s "
            "AND path = %s AND start_line <= %s ORDER BY start_line DESC LIMIT 1), 0) ORDER BY start_line, seq",
            (self.agent, path, end, start, self.agent, path, start),
        )
        return lines_from_chunks(rows, start, end)
