"""Reading rows by many ids: ``IN (...)`` a slice at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
IN_SLICE = 500  # values per ``IN (...)``: far below SQLite's limit on bound variables


def in_slices(values: Sequence[T]) -> Iterator[tuple[list[T], str]]:
    """``values`` a slice at a time, each with its ``?,?,...`` placeholders for ``IN (...)``."""
    for i in range(0, len(values), IN_SLICE):
        part = list(values[i : i + IN_SLICE])
        yield part, ",".join("?" * len(part))
