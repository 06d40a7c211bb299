"""Reads run numpy's BLAS on one thread, and give the process's thread count back (index/blas.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import memlane
from conftest import FakeEmbedder
from memlane.facts import candidates
from memlane.search import vectors


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def two_blas_threads() -> Any:
    if not _blas_threads():
        pytest.fail("numpy loaded no BLAS library that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() == {2}
        yield


def test_recall_and_search_multiply_on_one_thread_and_give_the_count_back(
    fact_workspace: Path, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, two_blas_threads: None
) -> None:
    seen: list[set[int]] = []
    leg, scores = candidates._vector_leg, vectors.VectorIndex.scores

    def vector_leg(*args: Any, **kwargs: Any) -> Any:
        seen.append(_blas_threads())
        return leg(*args, **kwargs)

    def scored(self: vectors.VectorIndex, query_vec: np.ndarray, k: int) -> Any:
        seen.append(_blas_threads())
        return scores(self, query_vec, k)

    monkeypatch.setattr(candidates, "_vector_leg", vector_leg)
    monkeypatch.setattr(vectors.VectorIndex, "scores", scored)
    with memlane.open(fact_workspace, provider=fake) as mem:
        assert mem.recall("Baileys WS crash", k=3).facts
        assert mem.search("Baileys WS crash").results
    assert len(seen) >= 2 and all(threads == {1} for threads in seen), seen
    assert _blas_threads() == {2}  # the caller's count, back when the reads ended


_OVERLAP = """
import threading
from threadpoolctl import threadpool_info
import numpy
from memlane.index.blas import one_blas_thread

def blas():
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
seen = {"before": blas()}

def first():
    with one_blas_thread():
        first_in.set()
        second_in.wait(5)
    first_out.set()

def second():
    first_in.wait(5)
    with one_blas_thread():
        second_in.set()
        first_out.wait(5)
        seen["inside, after the first ended"] = blas()

threads = [threading.Thread(target=first), threading.Thread(target=second)]
for t in threads:
    t.start()
for t in threads:
    t.join(10)
seen["after"] = blas()
print(sorted((k, sorted(v)) for k, v in seen.items()))
"""


def test_overlapping_reads_share_one_limit_lifted_by_the_last() -> None:
    # Reads on two threads (two Memory objects): the first to end must not lift the limit under the second.
    # In a child with BLAS on two threads from its start (a count set by this process's main thread would
    # be its own, and hide what the workers set).
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", _OVERLAP], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str([("after", [2]), ("before", [2]), ("inside, after the first ended", [1])]), (
        out.stdout
    )
