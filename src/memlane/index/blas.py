"""One BLAS thread while a read runs.

A read multiplies one query vector by the fact or chunk matrix: at 10,000 rows that is 0.14-0.29 ms on one
thread. numpy's OpenBLAS starts a thread per core for it, and its threads busy-wait after each call. On a
machine with another busy process (two cores, a test run beside it) the second thread is descheduled and
the product took 8 ms instead of 0.3 ms, and recall at 10,000 facts 60 ms instead of 25 ms
(docs/design/index.md §48). A read therefore runs with BLAS limited to one thread, through ``threadpoolctl``
(the joblib team's library that scikit-learn uses for this), and gives the count back when it ends.

The limit is the process's, as BLAS's thread count is: reads that overlap (several :class:`memlane.Memory`
objects on several threads) share one limit, set by the first to start and lifted by the last to end.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_readers = 0
_limit: Any = None  # the threadpoolctl limit the first reader set, lifted by the last


@functools.cache
def _controller() -> Any:
    """The BLAS libraries this process has loaded (found once: 1.2 ms; a limit then costs 8 µs)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the body with BLAS on one thread; the earlier count comes back when the last overlapping body ends."""
    global _readers, _limit
    with _lock:
        if _readers == 0:
            _limit = _controller().limit(limits=1, user_api="blas")
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0 and _limit is not None:
                _limit.restore_original_limits()
                _limit = None
