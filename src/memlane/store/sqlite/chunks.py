"""The files and chunks of a SQLite index: what was indexed, the chunks' text, and keyword search over it."""

from __future__ import annotations

import logging
import secrets
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...errors import IndexError_
from ..facts import FACT_DROP, FACT_SCHEMA
from ..rows import ChunkRow, FileState, StoredChunk, lines_from_chunks, now_ms
from ..slices import in_slices
from .bm25 import Bm25, tokenize
from .connection import SQLiteConnection
from .schema import CHUNK_SCHEMA, INDEX_ID

# The chunks covering lines ?2..?3 of file ?1. Chunks follow each other down a file (a later start never ends
# earlier), so the last chunk starting at or before ?2 covers every line from ?2 on that an earlier chunk
# covers: the range starts there, one index seek, instead of at the top of the file. No chunk starts that
# early (a file opening with blank lines): from the top.
LINES_OF = (
    "SELECT start_line, end_line, text FROM chunks WHERE path = ?1 AND start_line <= ?3 AND end_line >= ?2 "
    "AND start_line >= coalesce((SELECT start_line FROM chunks WHERE path = ?1 AND start_line <= ?2 "
    "ORDER BY start_line DESC LIMIT 1), 0) ORDER BY start_line, seq"
)
# Per connection, in TEMP: the chunks' vocabulary (document frequencies).
_CHUNK_VOCAB = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_vocab USING fts5vocab(main, chunks_fts, 'row')"
_log = logging.getLogger(__name__)


class ChunkTables(SQLiteConnection):
    """Files, chunks and the chunks' word indexes."""

    def _fields(self, path: Path, busy_timeout_ms: int) -> None:
        super()._fields(path, busy_timeout_ms)
        # FTS5's ranking from postings this store keeps, one per word index (bm25.py).
        self._rankers = {fts: Bm25(fts, ("text", "cjk")) for fts in ("chunks_fts", "chunks_said_fts")}

    def file_states(self) -> dict[str, FileState]:
        with self._reading() as conn:
            rows = conn.execute("SELECT path, hash, mtime, size, source FROM files").fetchall()
        return {p: FileState(h, m, s, src) for p, h, m, s, src in rows}

    def indexed_state(self, path: str) -> FileState | None:
        """What the index records for ``path`` as this write transaction sees it; call inside :meth:`write`."""
        row = self._conn.execute("SELECT hash, mtime, size, source FROM files WHERE path = ?", (path,)).fetchone()
        return FileState(*row) if row else None

    def set_file_state(self, path: str, state: FileState) -> None:
        """Record a file as indexed; call inside :meth:`write`."""
        self._conn.execute(
            "INSERT INTO files(path, source, hash, mtime, size) VALUES(?,?,?,?,?) "
            "ON CONFLICT(path) DO UPDATE SET source=excluded.source, hash=excluded.hash, "
            "mtime=excluded.mtime, size=excluded.size",
            (path, state.source, state.hash, state.mtime, state.size),
        )

    def replace_chunks(self, path: str, rows: Sequence[ChunkRow], model: str) -> None:
        """Make ``rows`` the chunks of ``path``; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self.add_chunks(rows, model)

    def add_chunks(self, rows: Sequence[ChunkRow], model: str) -> None:
        """Add chunks, keeping those already there (a transcript's new tail); call inside :meth:`write`."""
        now = now_ms()
        for r in rows:
            cur = self._conn.execute(
                "INSERT INTO chunks(id, path, source, start_line, end_line, hash, model, text, cjk, updated_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?)",
                (r.id, r.path, r.source, r.start_line, r.end_line, r.hash, model, r.text, r.cjk, now),
            )
            if r.keys:
                self._conn.executemany(
                    "INSERT INTO chunk_keys(chunk_seq, hash, assistant) VALUES(?, ?, ?)",
                    [(cur.lastrowid, h, int(a)) for h, _, a in r.keys],
                )
            self._conn.execute(
                "INSERT INTO chunks_said_fts(rowid, text, cjk) VALUES(?, ?, ?)", (cur.lastrowid, r.said, r.said_cjk)
            )

    def delete_file(self, path: str) -> None:
        """Forget a file, its chunks and its facts; call inside :meth:`write`."""
        self._conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self._conn.execute("DELETE FROM files WHERE path = ?", (path,))
        self.facts.delete_file(path)

    def reset(self) -> None:
        """Empty files, chunks, facts and the word indexes; call inside :meth:`write` (so it is atomic).

        Bumps ``epoch``: chunk numbers start again after a reset, so readers must reload all vectors; and
        gives the index a new identity, so nothing derived from the old one (ann.py's graph) is taken for it.
        """
        self.bump_epoch()
        self._set_meta(INDEX_ID, secrets.token_hex(16))
        self._conn.execute("DELETE FROM files")
        # Dropping and recreating is much faster than deleting row by row through the FTS triggers.
        for stmt in (
            "DROP TRIGGER chunks_ai",
            "DROP TRIGGER chunks_ad",
            "DROP TABLE chunks_fts",
            "DROP TABLE chunks",
            "DROP TABLE chunk_keys",
            "DROP TABLE chunks_said_fts",
        ):
            self._conn.execute(stmt)
        for stmt in FACT_DROP:
            self._conn.execute(stmt)
        for stmt in CHUNK_SCHEMA + FACT_SCHEMA:
            self._conn.execute(stmt)

    def chunks_by_seq(self, seqs: Iterable[int]) -> dict[int, StoredChunk]:
        ids = list(seqs)
        found: dict[int, StoredChunk] = {}
        with self._reading() as conn:
            for part, marks in in_slices(ids):
                rows = conn.execute(
                    f"SELECT seq, id, path, source, start_line, end_line, text FROM chunks WHERE seq IN ({marks})",
                    part,
                ).fetchall()
                found.update((r[0], StoredChunk(*r)) for r in rows)
        return found

    def last_line(self, path: str) -> int:
        """The last line of ``path`` that a chunk covers (0 if none). Chunks follow each other down a file (a
        later start never ends earlier), so it is the end of the chunk that starts last: one row read through
        the path index, where ``max(end_line)`` read every chunk of the file (~1 ms for a busy day's log, per
        result of every search)."""
        with self._reading() as conn:
            row = conn.execute(
                "SELECT end_line FROM chunks WHERE path = ? ORDER BY start_line DESC, end_line DESC LIMIT 1", (path,)
            ).fetchone()
        return int(row[0]) if row else 0

    def lines_of(self, path: str, start: int, end: int) -> list[str]:
        """Lines ``start..end`` of an indexed file, rebuilt from its chunks ('' where none covers a line).

        The index range starts at the last chunk that starts at or before ``start`` (LINES_OF): without
        that bound, the scan walked every chunk from the top of the file, reading each row for its end line
        (0.4 ms per window on real logs, ~3,000 chunks in a busy day's file)."""
        with self._reading() as conn:
            rows = conn.execute(LINES_OF, (path, start, end)).fetchall()
        return lines_from_chunks(rows, start, end)

    def term_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(chunks indexed, {term: chunks containing it}) for query terms, read off the FTS vocabulary.

        Each term goes through FTS5's own tokenizer (a scratch table in this connection's TEMP schema), so
        "projects" is looked up as the stem "project"; a term of several tokens ("well-being") counts as its
        rarest token, an upper bound of the phrase."""
        with self._reading() as conn:
            conn.execute(_CHUNK_VOCAB)
            tokens = dict(enumerate(tokenize(conn, list(terms)), 1))
            unique = sorted({t for ts in tokens.values() for t in ts})
            counts: dict[str, int] = {}
            for part, marks in in_slices(unique):
                counts.update(conn.execute(f"SELECT term, doc FROM temp.chunk_vocab WHERE term IN ({marks})", part))
            (total,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
        return int(total), {
            term: min((counts.get(t, 0) for t in tokens.get(i, [])), default=0) for i, term in enumerate(terms, 1)
        }

    def keyword_search(self, match: str, limit: int, said: bool = False) -> list[tuple[int, float]]:
        """(seq, bm25 relevance >= 0, higher is better) for an FTS5 MATCH expression; ``said``: matched in the
        chunks' text in anyone's words but an assistant's (keys.said_text) instead of their whole text.
        An expression ``match_expression`` built is ranked from kept postings (bm25.py), anything else by
        FTS5 itself; both rank alike."""
        fts = "chunks_said_fts" if said else "chunks_fts"
        with self._reading() as conn:
            try:
                ranked = self._rankers[fts].search(conn, match, limit)
            except Exception as exc:  # FTS5's own ranking below answers, or says what is wrong
                _log.warning("kept-postings ranking failed (%s); FTS5 ranks this search", exc)
                ranked = None
            if ranked is not None:
                return ranked
            sql = f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ? ORDER BY rank LIMIT ?"
            try:
                rows = conn.execute(sql, (match, limit)).fetchall()
            except sqlite3.OperationalError as exc:
                raise IndexError_(f"keyword search failed for {match!r}: {exc}") from None
        return [(int(seq), float(score)) for seq, score in rows]
