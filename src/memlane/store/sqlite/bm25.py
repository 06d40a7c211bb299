"""FTS5's ``bm25()`` ranking, computed from postings this process keeps, for the keyword leg of a search.

``SELECT ... ORDER BY rank`` scores every row that shares a word with the query, and FTS5's ``bm25()``
costs about 2 µs a row (it reads each row's positions and its size record): a question's common words
("like", "time", "great") match a third of a year of logs, and that ranking was half of a search
(docs/DESIGN.md §39). Here the same formula runs over numpy arrays:

- a term's postings (the rows it is in, and how often) come from the table's ``fts5vocab`` instance view
  and are kept, least recently used dropped past ``POSTINGS_MAX`` entries, so the common words an agent's
  questions share are read once;
- every row's size in tokens (the ``%_docsize`` records) and the row count and total size (the
  ``averages`` record) are read once;
- both are dropped when the index's (epoch, generation) moves: every write moves it.

The ranking is FTS5's own: the same phrases (a term of several tokens is a phrase, its tokens adjacent in
one column), the same IDF (``log((N - n + 0.5) / (n + 0.5))``, 1e-6 when not positive), k1 = 1.2, b =
0.75, a row's size over all its columns. Ties go to the lower rowid.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ...search.keywords import match_phrases
from .schema import FTS_TOKENIZER

K1 = 1.2
B = 0.75
POSTINGS_MAX = 4_000_000  # entries kept (docs and counts, 8 bytes each): 32 MB
_OFFSET_BITS = 28  # a token's position in a column, packed beside its row and column for phrase matching
_COLUMN_BITS = 4

_TOKENS = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_query USING fts5(text, tokenize='{FTS_TOKENIZER}')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_query_tokens USING fts5vocab(temp, bm25_query, 'instance')",
)

TOKENIZED_MAX = 100_000  # phrases whose tokens are kept (all tables share one tokenizer), then forgotten at once
_TOKENIZED: dict[str, tuple[str, ...]] = {}
_TOKENIZED_LOCK = threading.Lock()

CATCH_UP_MAX = 2_000  # new rows whose postings are added to what is kept after a write; past it, all is read again
Places = npt.NDArray[np.int64]  # where a token stands: (row, column, offset) packed into one integer
Postings = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]  # rows (ascending), occurrences in each


class Bm25:
    """Ranked keyword search over one FTS5 table (``table``), FTS5's bm25 with every column weighted 1."""

    def __init__(self, table: str, columns: Sequence[str]) -> None:
        self.table = table
        self.columns = tuple(columns)
        self._lock = threading.Lock()
        self._state: tuple[int, int] | None = None
        self._rows: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self._sizes: npt.NDArray[np.float64] = np.zeros(0, np.float64)
        self._postings: OrderedDict[tuple[tuple[str, ...], tuple[str, ...]], Postings] = OrderedDict()
        self._entries = 0

    def search(self, conn: sqlite3.Connection, match: str, limit: int) -> list[tuple[int, float]] | None:
        """(rowid, relevance) of the ``limit`` best rows for ``match``, as ``-bm25()`` ranks them; None when
        ``match`` is not an expression :func:`~memlane.search.keywords.match_expression` builds."""
        try:
            phrases = match_phrases(match)
        except ValueError:
            return None
        if any(c not in self.columns for cols, _ in phrases for c in cols):
            return None
        with self._lock:
            began = not conn.in_transaction
            if began:
                conn.execute("BEGIN")  # one snapshot: the generation, sizes and postings agree
            try:
                return self._search(conn, phrases, limit)
            except BaseException:
                self._state = None  # half caught up, perhaps: read everything again next time
                raise
            finally:
                if began:
                    conn.execute("COMMIT")

    def _search(
        self, conn: sqlite3.Connection, phrases: list[tuple[tuple[str, ...], str]], limit: int
    ) -> list[tuple[int, float]]:
        rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'epoch')"))
        state = (int(rows.get("epoch", 0)), int(rows.get("generation", 0)))
        total, avgdl = self._averages(conn)
        if self._state is None or state[0] != self._state[0] or not len(self._rows):
            self._reload(conn)
        elif state != self._state:
            self._catch_up(conn, total)
        self._state = state
        if total <= 0 or not len(self._rows):
            return []
        tokens = self._tokens(conn, [text for _, text in phrases])
        score = np.zeros(len(self._rows), np.float64)
        for (cols, _), toks in zip(phrases, tokens, strict=True):
            if not toks:
                continue  # FTS5 matches nothing for a phrase with no tokens
            docs, freq = self._phrase(conn, cols, toks)
            if not len(docs):
                continue
            idf = math.log((total - len(docs) + 0.5) / (len(docs) + 0.5))
            at = np.searchsorted(self._rows, docs)
            found = (at < len(self._rows)) & (self._rows[np.minimum(at, len(self._rows) - 1)] == docs)
            at, f = at[found], freq[found].astype(np.float64)
            size = self._sizes[at]
            score[at] += (idf if idf > 0 else 1e-6) * (f * (K1 + 1)) / (f + K1 * (1 - B + B * size / avgdl))
        hit = np.flatnonzero(score > 0)
        if len(hit) > limit:
            hit = hit[np.argpartition(-score[hit], limit - 1)[:limit]]
        order = np.lexsort((self._rows[hit], -score[hit]))[:limit]
        return [(int(self._rows[i]), float(score[i])) for i in hit[order]]

    def _reload(self, conn: sqlite3.Connection) -> None:
        self._rows, self._sizes = self._read_sizes(conn)
        self._postings.clear()
        self._entries = 0

    def _catch_up(self, conn: sqlite3.Connection, total: int) -> None:
        """Bring what is kept up to the index after a write: rowids only grow within an epoch (chunks are
        never rewritten in place, a changed one is a new row), so the new rows are those past the last one
        kept, and rows are gone when fewer remain than were kept and added. The new rows' postings come from
        tokenizing their text again (the table's own tokenizer, in TEMP); past ``CATCH_UP_MAX`` new rows,
        reading everything afresh is cheaper."""
        last = int(self._rows[-1])
        records = conn.execute(
            f"SELECT id, sz FROM {self.table}_docsize WHERE id > ? ORDER BY id LIMIT ?", (last, CATCH_UP_MAX + 1)
        ).fetchall()
        if len(records) > CATCH_UP_MAX:
            self._reload(conn)
            return
        gone: npt.NDArray[np.int64] | None = None
        if total != len(self._rows) + len(records):
            live = _ints(str(conn.execute(f"SELECT group_concat(id) FROM {self.table}_docsize").fetchone()[0] or ""))
            kept = np.isin(self._rows, live)
            gone = self._rows[~kept]
            self._rows, self._sizes = self._rows[kept], self._sizes[kept]
        if records:
            rows, sizes = self._sized(records)
            self._rows, self._sizes = np.concatenate([self._rows, rows]), np.concatenate([self._sizes, sizes])
        fresh = self._fresh_places(conn, last) if records else {}
        for key, (docs, freq) in list(self._postings.items()):
            if gone is not None and len(gone):
                stay = ~np.isin(docs, gone)
                docs, freq = docs[stay], freq[stay]
            cols, toks = key
            new_docs, new_freq = _phrase_postings([_in_columns(fresh.get(t), cols, self.columns) for t in toks])
            self._entries += 2 * (len(docs) + len(new_docs) - len(self._postings[key][0]))
            self._postings[key] = (np.concatenate([docs, new_docs]), np.concatenate([freq, new_freq]))

    def _fresh_places(self, conn: sqlite3.Connection, last: int) -> dict[str, npt.NDArray[np.int64]]:
        """Every token of the rows past ``last``, with its places (row, column, offset packed as in
        :func:`_phrase_postings`), as the table's tokenizer makes them."""
        cols = ", ".join(self.columns)
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_{self.table}_fresh USING fts5({cols}, "
            f"tokenize='{FTS_TOKENIZER}')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_{self.table}_fresh_places "
            f"USING fts5vocab(temp, bm25_{self.table}_fresh, 'instance')"
        )
        conn.execute(f"DELETE FROM temp.bm25_{self.table}_fresh")
        conn.execute(
            f"INSERT INTO temp.bm25_{self.table}_fresh(rowid, {cols}) SELECT rowid, {cols} FROM {self.table} "
            "WHERE rowid > ?",
            (last,),
        )
        column = {c: i for i, c in enumerate(self.columns)}
        places: dict[str, list[int]] = {}
        for term, doc, col, offset in conn.execute(
            f"SELECT term, doc, col, offset FROM temp.bm25_{self.table}_fresh_places"
        ):
            places.setdefault(str(term), []).append(_pack(int(doc), column[str(col)], int(offset)))
        conn.execute(f"DELETE FROM temp.bm25_{self.table}_fresh")
        return {term: np.array(sorted(at), dtype=np.int64) for term, at in places.items()}

    def _read_sizes(self, conn: sqlite3.Connection) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Every row's id and size in tokens (all columns), ascending by id, from the ``%_docsize`` records
        (one varint a column)."""
        return self._sized(conn.execute(f"SELECT id, sz FROM {self.table}_docsize ORDER BY id").fetchall())

    def _sized(self, records: list[tuple[int, bytes]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        ids = np.fromiter((r[0] for r in records), np.int64, count=len(records))
        values = _varints(b"".join(r[1] for r in records))
        if len(values) != len(records) * len(self.columns):
            raise sqlite3.DatabaseError(f"{self.table}_docsize does not hold one size a column")
        return ids, values.reshape(len(records), len(self.columns)).sum(axis=1).astype(np.float64)

    def _averages(self, conn: sqlite3.Connection) -> tuple[int, float]:
        """(rows, mean row size in tokens) from the table's ``averages`` record."""
        row = conn.execute(f"SELECT block FROM {self.table}_data WHERE id = 1").fetchone()
        values = _small_varints(bytes(row[0])) if row and row[0] else []
        if not values or values[0] <= 0:
            return 0, 0.0
        return values[0], sum(values[1:]) / values[0]

    def _tokens(self, conn: sqlite3.Connection, texts: list[str]) -> list[tuple[str, ...]]:
        """Each phrase's tokens, in order, as the tables' tokenizer makes them (porter stems). A text is
        tokenized once a process (a scratch FTS5 table in TEMP costs ~100 statements a query)."""
        todo = list(dict.fromkeys(t for t in texts if t not in _TOKENIZED))
        if todo:
            for ddl in _TOKENS:
                conn.execute(ddl)
            conn.execute("DELETE FROM temp.bm25_query")
            conn.executemany("INSERT INTO temp.bm25_query(rowid, text) VALUES(?, ?)", enumerate(todo))
            found: list[list[str]] = [[] for _ in todo]
            for doc, token in conn.execute("SELECT doc, term FROM temp.bm25_query_tokens ORDER BY doc, offset"):
                found[int(doc)].append(str(token))
            with _TOKENIZED_LOCK:
                if len(_TOKENIZED) + len(todo) > TOKENIZED_MAX:
                    _TOKENIZED.clear()
                _TOKENIZED.update(zip(todo, map(tuple, found), strict=True))
            mine = dict(zip(todo, map(tuple, found), strict=True))
        else:
            mine = {}
        return [mine[t] if t in mine else _TOKENIZED[t] for t in texts]

    def _phrase(self, conn: sqlite3.Connection, cols: tuple[str, ...], toks: tuple[str, ...]) -> Postings:
        key = (cols, toks)
        hit = self._postings.get(key)
        if hit is not None:
            self._postings.move_to_end(key)
            return hit
        postings = self._read_token(conn, cols, toks[0]) if len(toks) == 1 else self._read_phrase(conn, cols, toks)
        self._postings[key] = postings
        self._entries += 2 * len(postings[0])
        while self._entries > POSTINGS_MAX and len(self._postings) > 1:
            _, (docs, _) = self._postings.popitem(last=False)
            self._entries -= 2 * len(docs)
        return postings

    def _instances(self, conn: sqlite3.Connection, cols: tuple[str, ...], token: str, what: str) -> str:
        """``what`` of each place ``token`` stands in ``cols``, comma-separated, in (row, column, offset)
        order. The column test costs a third of the read, so it is left out when the token stands in no other
        column (the ``col`` view says where it stands: a Latin word is never in the CJK column)."""
        for kind in ("instance", "col"):
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_{self.table}_{kind} "
                f"USING fts5vocab(main, {self.table}, '{kind}')"
            )
        found = {
            str(c) for (c,) in conn.execute(f"SELECT col FROM temp.bm25_{self.table}_col WHERE term = ?", (token,))
        }
        if not found:
            return ""
        sql = f"SELECT group_concat({what}) FROM temp.bm25_{self.table}_instance WHERE term = ?"
        if found <= set(cols):
            row = conn.execute(sql, (token,)).fetchone()
        else:
            row = conn.execute(sql + f" AND col IN ({', '.join('?' * len(cols))})", (token, *cols)).fetchone()
        return str(row[0] or "")

    def _read_token(self, conn: sqlite3.Connection, cols: tuple[str, ...], token: str) -> Postings:
        docs = _ints(self._instances(conn, cols, token, "doc"))
        rows, counts = np.unique(docs, return_counts=True)
        return rows, counts.astype(np.int64)

    def _read_phrase(self, conn: sqlite3.Connection, cols: tuple[str, ...], toks: tuple[str, ...]) -> Postings:
        """Rows holding the tokens side by side in one column, and how many times."""
        column = {c: i for i, c in enumerate(self.columns)}
        case = " ".join(f"WHEN '{c}' THEN {column[c]}" for c in cols)
        what = f"((doc << {_COLUMN_BITS + _OFFSET_BITS}) | ((CASE col {case} END) << {_OFFSET_BITS}) | offset)"
        return _phrase_postings([_ints(self._instances(conn, cols, token, what)) for token in toks])


def _pack(doc: int, column: int, offset: int) -> int:
    return (doc << (_COLUMN_BITS + _OFFSET_BITS)) | (column << _OFFSET_BITS) | offset


def _in_columns(places: npt.NDArray[np.int64] | None, cols: tuple[str, ...], columns: tuple[str, ...]) -> Places:
    """``places`` (packed by :func:`_pack`) in ``cols`` only."""
    if places is None:
        return np.zeros(0, np.int64)
    wanted = [columns.index(c) for c in cols]
    return places[np.isin((places >> _OFFSET_BITS) & ((1 << _COLUMN_BITS) - 1), wanted)]


def _phrase_postings(places: list[Places]) -> Postings:
    """Rows where the tokens whose ``places`` are given (packed, ascending) stand side by side, in order, in
    one column, and how many times; for one token, the rows it is in."""
    starts = places[0]
    for i, at in enumerate(places[1:], 1):
        starts = np.intersect1d(starts, at - i, assume_unique=True)
    rows, counts = np.unique(starts >> (_COLUMN_BITS + _OFFSET_BITS), return_counts=True)
    return rows, counts.astype(np.int64)


def _ints(text: str) -> npt.NDArray[np.int64]:
    """The integers of a comma-separated list (SQLite's ``group_concat`` of integers)."""
    return np.fromstring(text, dtype=np.int64, sep=",") if text else np.zeros(0, np.int64)


def _small_varints(blob: bytes) -> list[int]:
    """:func:`_varints` of a record of a few values, without numpy's cost a call."""
    values: list[int] = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            values.append(value)
            value = 0
    return values


def _varints(blob: bytes) -> npt.NDArray[np.int64]:
    """SQLite's big-endian varints packed in ``blob`` (values below 2**56, as FTS5's sizes and counts are)."""
    buf = np.frombuffer(blob, dtype=np.uint8)
    ends = np.flatnonzero(buf < 0x80)
    if not len(ends):
        return np.zeros(0, np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1))
    values = (buf[ends] & 0x7F).astype(np.int64)
    for k in range(1, 8):
        more = np.flatnonzero(ends - k >= starts)
        if not len(more):
            break
        values[more] += (buf[ends[more] - k].astype(np.int64) & 0x7F) << (7 * k)
    return values
