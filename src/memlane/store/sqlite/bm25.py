"""FTS5's ``bm25()`` ranking, computed from postings this process keeps, for the keyword leg of a search.

``SELECT ... ORDER BY rank`` scores every row that shares a word with the query, and FTS5's ``bm25()``
costs about 2 µs a row (it reads each row's positions and its size record): a question's common words
("like", "time", "great") match a third of a year of logs, and that ranking was half of a search
(docs/DESIGN.md §39). Here the same formula runs over numpy arrays:

- a term's postings (the rows it is in, and how often) come from the table's ``fts5vocab`` instance view
  and are kept, least recently used dropped past ``POSTINGS_MAX`` entries, so the common words an agent's
  questions share are read once;
- every row's size in tokens (the ``%_docsize`` records) is read once, the row count and total size (the
  ``averages`` record) with every search;
- when the index's (epoch, generation) moves (every write moves it), what is kept is caught up with the rows
  added and deleted since (:meth:`Bm25._catch_up`), or read again on a new epoch.

The ranking is FTS5's own: the same phrases (a term of several tokens is a phrase, its tokens adjacent in
one column), the same IDF (``log((N - n + 0.5) / (n + 0.5))``, 1e-6 when not positive), k1 = 1.2, b =
0.75, a row's size over all its columns, the terms summed in the same order. Ties go to the lower rowid.
The state is per table: two tables (the whole text and the user text) keep up to 2 x ``POSTINGS_MAX``.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ...text.keywords import match_phrases
from ..slices import in_slices
from .schema import FTS_TOKENIZER

K1 = 1.2
B = 0.75
POSTINGS_MAX = 4_000_000  # entries kept per table (docs and counts, 8 bytes each): 32 MB
KEY_COST = 16  # entries a kept phrase is charged besides its postings (so words found nowhere are bounded too)
_OFFSET_BITS = 28  # a token's position in a column, packed beside its row and column for phrase matching
_COLUMN_BITS = 4

_TOKENS = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_query USING fts5(text, tokenize='{FTS_TOKENIZER}')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_query_tokens USING fts5vocab(temp, bm25_query, 'instance')",
)

TOKENIZED_MAX = 100_000  # phrases whose tokens are kept (all tables share one tokenizer), then forgotten at once
TOKENIZED_CHARS = 200  # a longer phrase is tokenized each time, not kept
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
        ``match`` is not an expression :func:`~memlane.text.keywords.match_expression` builds."""
        try:
            phrases = match_phrases(match)
        except ValueError:
            return None
        if limit <= 0 or any(c not in self.columns for cols, _ in phrases for c in cols):
            return None
        with self._lock:
            began = not conn.in_transaction
            if began:
                conn.execute("BEGIN")  # one snapshot: the generation, sizes and postings agree
            try:
                return self._search(conn, phrases, limit)
            finally:
                if began and conn.in_transaction:
                    try:
                        conn.execute("COMMIT")
                    except sqlite3.Error:
                        conn.execute("ROLLBACK")  # never left holding an old snapshot
                        raise

    def _search(
        self, conn: sqlite3.Connection, phrases: list[tuple[tuple[str, ...], str]], limit: int
    ) -> list[tuple[int, float]]:
        rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'epoch')"))
        state = (int(rows.get("epoch", 0)), int(rows.get("generation", 0)))
        total, avgdl = self._averages(conn)
        if state != self._state or not len(self._rows):
            try:
                if self._state is None or state[0] != self._state[0] or not len(self._rows):
                    self._reload(conn)
                else:
                    self._catch_up(conn, total)
            except BaseException:
                self._state = None  # half caught up, perhaps: read everything again next time
                raise
            self._state = state
        if total <= 0 or not len(self._rows):
            return []
        tokens = tokenize(conn, [text for _, text in phrases])
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
            # In FTS5's order of operations, so the scores are FTS5's to the last bit.
            score[at] += (idf if idf > 0 else 1e-6) * ((f * (K1 + 1)) / (f + K1 * (1 - B + B * size / avgdl)))
        hit = np.flatnonzero(score > 0)
        if len(hit) > limit:
            kth = np.partition(score[hit], len(hit) - limit)[len(hit) - limit]
            hit = hit[score[hit] >= kth]  # every row tied at the cut stays, so the lower rowid wins it
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
        if not records and gone is None:
            return  # a write that touched no row of this table (file times, a first index's shows, meta)
        wanted = {t for _, toks in self._postings for t in toks}
        fresh = self._fresh_places(conn, last, wanted) if records and wanted else {}
        for key, (docs, freq) in list(self._postings.items()):
            cols, toks = key
            if gone is not None and len(gone):
                stay = ~np.isin(docs, gone)
                docs, freq = docs[stay], freq[stay]
            if any(t in fresh for t in toks):
                new_docs, new_freq = _phrase_postings([_in_columns(fresh.get(t), cols, self.columns) for t in toks])
                docs, freq = np.concatenate([docs, new_docs]), np.concatenate([freq, new_freq])
            self._entries += 2 * (len(docs) - len(self._postings[key][0]))
            self._postings[key] = (docs, freq)

    def _fresh_places(self, conn: sqlite3.Connection, last: int, wanted: set[str]) -> dict[str, Places]:
        """The places (packed as :func:`_packed_sql` packs them) of the ``wanted`` tokens in the rows past
        ``last``, as the table's tokenizer makes them: the rows are tokenized again in a contentless TEMP table."""
        cols = ", ".join(self.columns)
        name = f"bm25_{self.table}_fresh"
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5({cols}, content='', tokenize='{FTS_TOKENIZER}')"
        )
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name}_places USING fts5vocab(temp, {name}, 'instance')")
        conn.execute(f"INSERT INTO temp.{name}({name}) VALUES('delete-all')")
        conn.execute(
            f"INSERT INTO temp.{name}(rowid, {cols}) SELECT rowid, {cols} FROM {self.table} WHERE rowid > ?", (last,)
        )
        packed = _packed_sql(self.columns, self.columns)
        places: dict[str, Places] = {}
        for part, marks in in_slices(sorted(wanted)):
            for term, found in conn.execute(
                f"SELECT term, group_concat({packed}) FROM temp.{name}_places WHERE term IN ({marks}) GROUP BY term",
                part,
            ):
                places[str(term)] = np.sort(_ints(str(found or "")))
        conn.execute(f"INSERT INTO temp.{name}({name}) VALUES('delete-all')")
        return places

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

    def _phrase(self, conn: sqlite3.Connection, cols: tuple[str, ...], toks: tuple[str, ...]) -> Postings:
        key = (cols, toks)
        hit = self._postings.get(key)
        if hit is not None:
            self._postings.move_to_end(key)
            return hit
        postings = self._read_token(conn, cols, toks[0]) if len(toks) == 1 else self._read_phrase(conn, cols, toks)
        self._postings[key] = postings
        self._entries += 2 * len(postings[0]) + KEY_COST
        while self._entries > POSTINGS_MAX and len(self._postings) > 1:
            _, (docs, _) = self._postings.popitem(last=False)
            self._entries -= 2 * len(docs) + KEY_COST
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
        """Rows holding the tokens side by side in one column, and how many times. Each distinct token is read
        once, and reading stops at the first token that leaves no start (a phrase of many tokens stays cheap)."""
        packed = _packed_sql(cols, self.columns)
        read: dict[str, Places] = {}

        def places(token: str) -> Places:
            if token not in read:
                read[token] = _ints(self._instances(conn, cols, token, packed))
            return read[token]

        return _phrase_postings(places(t) for t in toks)  # read lazily: it stops at the first dead end


def tokenize(conn: sqlite3.Connection, texts: list[str]) -> list[tuple[str, ...]]:
    """Each text's tokens, in order, as the index's tokenizer makes them (porter stems). A text is tokenized once
    a process (a scratch FTS5 table in TEMP costs ~100 statements a query); one over ``TOKENIZED_CHARS`` each
    time."""
    with _TOKENIZED_LOCK:
        known = {t: _TOKENIZED[t] for t in texts if t in _TOKENIZED}
    todo = list(dict.fromkeys(t for t in texts if t not in known))
    if todo:
        for ddl in _TOKENS:
            conn.execute(ddl)
        conn.execute("DELETE FROM temp.bm25_query")
        conn.executemany("INSERT INTO temp.bm25_query(rowid, text) VALUES(?, ?)", enumerate(todo))
        found: list[list[str]] = [[] for _ in todo]
        for doc, token in conn.execute("SELECT doc, term FROM temp.bm25_query_tokens ORDER BY doc, offset"):
            found[int(doc)].append(str(token))
        conn.execute("DELETE FROM temp.bm25_query")
        made = {t: tuple(toks) for t, toks in zip(todo, found, strict=True)}
        known.update(made)
        with _TOKENIZED_LOCK:
            if len(_TOKENIZED) + len(made) > TOKENIZED_MAX:
                _TOKENIZED.clear()
            _TOKENIZED.update((t, toks) for t, toks in made.items() if len(t) <= TOKENIZED_CHARS)
    return [known[t] for t in texts]


def _packed_sql(cols: Sequence[str], columns: Sequence[str]) -> str:
    """SQL of an instance's place, (row, column, offset) packed into one integer (its column by its index in
    ``columns``), so the places of a phrase's tokens line up by subtraction."""
    case = " ".join(f"WHEN '{c}' THEN {columns.index(c)}" for c in cols)
    return f"((doc << {_COLUMN_BITS + _OFFSET_BITS}) | ((CASE col {case} END) << {_OFFSET_BITS}) | offset)"


def _in_columns(places: npt.NDArray[np.int64] | None, cols: tuple[str, ...], columns: tuple[str, ...]) -> Places:
    """``places`` (packed as :func:`_packed_sql` packs them) in ``cols`` only."""
    if places is None:
        return np.zeros(0, np.int64)
    wanted = [columns.index(c) for c in cols]
    return places[np.isin((places >> _OFFSET_BITS) & ((1 << _COLUMN_BITS) - 1), wanted)]


def _phrase_postings(places: Iterable[Places]) -> Postings:
    """Rows where the tokens whose ``places`` are given (packed, ascending) stand side by side, in order, in
    one column, and how many times; for one token, the rows it is in. ``places`` is drawn no further than the
    first token that leaves no start."""
    tokens = iter(places)
    starts = next(tokens)
    for i, at in enumerate(tokens, 1):
        starts = np.intersect1d(starts, at - i, assume_unique=True)
        if not len(starts):
            break
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
