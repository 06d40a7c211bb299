"""A first index is searchable by keywords before its vectors are done, and goes on where it stopped (first.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import memlane
from conftest import FakeEmbedder, index_sql, write
from memlane.embeddings.base import Vectors
from memlane.index import first, sync_pass
from memlane.index.first import FirstIndex

pytestmark = pytest.mark.usefixtures("store_driver")

DAYS = 12
KEYED = {"chunking": {"keys": True, "tokens": 100, "overlap": 0}}  # many small chunks, each turn a key


@pytest.fixture(autouse=True)
def small_first_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first index of 10 texts or more commits its rows first, and shows its vectors at every commit."""
    monkeypatch.setattr(sync_pass, "EARLY_TEXTS", 10)
    monkeypatch.setattr(first, "SHOW_EVERY_S", 0.0)


def chat_log(ws: Path) -> None:
    for d in range(1, DAYS + 1):
        turns = "\n".join(
            f"- [{d}:{i}] user: on day {d} turn {i} I talked about the garden, the tomatoes and the weather outside"
            for i in range(10)
        )
        write(ws, f"memory/2026-03-{d:02d}.md", f"# 2026-03-{d:02d}\n\n{turns}\n")
    write(ws, "memory/2026-03-07.md", "# 2026-03-07\n\n- user: I started ukulele lessons with a teacher named Ilse\n")


class Gate(FakeEmbedder):
    """Records every text; after ``open_calls`` calls it waits inside ``embed_batch`` until ``go`` is set, or
    (``fail``) raises there."""

    def __init__(self, open_calls: int, fail: bool = False) -> None:
        super().__init__()
        self.open_calls = open_calls
        self.fail = fail
        self.waiting = threading.Event()
        self.go = threading.Event()
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if len(self.batches) >= self.open_calls:
            if self.fail:
                raise memlane.ProviderError("the model went away")
            self.waiting.set()
            assert self.go.wait(30)
        self.texts += texts
        return super().embed_batch(texts)


def test_keyword_search_answers_while_the_first_index_embeds(workspace: Path) -> None:
    chat_log(workspace)
    gate = Gate(open_calls=2)
    mem = memlane.open(workspace, provider=gate, sync={"watch": False}, **KEYED)
    done: list[memlane.SyncReport] = []
    worker = threading.Thread(target=lambda: done.append(mem.sync()))
    worker.start()
    try:
        assert gate.waiting.wait(30)
        # another Memory on the same index, as an agent's own process would have
        agent_sync = {"watch": False, "onSearch": True}
        with memlane.open(workspace, provider=FakeEmbedder(), sync=agent_sync, **KEYED) as agent:
            found = agent.search("ukulele lessons", max_results=3, min_score=0)
            assert found.results and found.results[0].path == "memory/2026-03-07.md"
            assert any("first index is still embedding" in n for n in found.notes), found.notes
            status = agent.status()["firstIndex"]
            assert status["running"] and 0 < status["embedded"] < status["texts"]
            assert not agent.is_dirty()  # running elsewhere: nothing for this one to do
            assert "leaves it be" in " ".join(agent.sync(include_sessions=False).notes)
    finally:
        gate.go.set()
        worker.join(30)
    report = done[0]
    assert report.full_reindex and report.embedded == len(gate.texts)
    chunks = {t for (t,) in index_sql(mem, "SELECT text FROM chunks")}
    kinds = [t in chunks for t in gate.texts]
    assert all(kinds[: sum(kinds)]) and not any(kinds[sum(kinds) :])  # every chunk's own vector before any key
    assert mem.status()["firstIndex"] is None
    after = mem.search("ukulele lessons", max_results=3, min_score=0)
    assert not any("first index" in n for n in after.notes) and after.mode == "hybrid"
    assert len(mem._vector_index()) == mem.status()["chunks"]
    mem.close()


def test_an_interrupted_first_index_is_searchable_and_goes_on_from_its_vectors(workspace: Path) -> None:
    chat_log(workspace)
    broken = Gate(open_calls=2, fail=True)
    with memlane.open(workspace, provider=broken, sync={"watch": False}, **KEYED) as mem:
        with pytest.raises(memlane.ProviderError, match=r"searchable by keywords with [0-9]+ of"):
            mem.sync()
        status = mem.status()["firstIndex"]
        before = len(broken.texts)
        assert status["running"] is False and 0 < status["embedded"] == before < status["texts"]
        assert not mem.is_dirty()  # stopped by an error just now: searches do not retry it at once
    with pytest.MonkeyPatch.context() as later:
        later.setattr(first, "RETRY_AFTER_S", 0.0)
        with memlane.open(workspace, provider=FakeEmbedder(), sync={"watch": False}, **KEYED) as mem:
            assert mem.is_dirty()  # an interrupted first index is work to do
    with memlane.open(workspace, provider=FakeEmbedder(), sync={"watch": False, "onSearch": False}, **KEYED) as mem:
        hit = mem.search("ukulele lessons", max_results=3, min_score=0)
        assert hit.results[0].path == "memory/2026-03-07.md"
        assert any(f"first index stopped with {before} of" in n for n in hit.notes), hit.notes
    again = Gate(open_calls=1_000)
    with memlane.open(workspace, provider=again, sync={"watch": False}, **KEYED) as mem:
        report = mem.sync()
        assert report.reason == "the first index was interrupted"
        assert report.embedded == status["texts"] - before  # the committed vectors are not paid for again
        assert not set(again.texts) & set(broken.texts)
        assert mem.status()["firstIndex"] is None and not mem.is_dirty()


@pytest.mark.sqlite_only
def test_a_first_index_of_another_live_process_is_left_be_and_a_dead_ones_goes_on(workspace: Path) -> None:
    chat_log(workspace)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with memlane.open(workspace, provider=FakeEmbedder(), sync={"watch": False}, **KEYED) as mem:
            mem.sync()
            marker = FirstIndex(500, 20, time.time() - 5, time.time(), sleeper.pid, FirstIndex.start(0).host)
            index_sql(mem, "UPDATE meta SET value = ? WHERE key = 'first_index'", (json.dumps(marker.__dict__),))
            index_sql(mem, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
            report = mem.sync()
            assert report.left_be and not report.full_reindex
            assert sum("another sync (process" in n for n in report.notes) == 1  # no catch-up pass repeats it
            assert not mem.is_dirty()
            sleeper.kill()
            sleeper.wait()
            assert mem.is_dirty()  # its process is gone: interrupted
            assert mem.sync().reason == "the first index was interrupted"
            assert mem.status()["firstIndex"] is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_small_first_index_commits_once_with_its_vectors(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_pass, "EARLY_TEXTS", 100_000)
    chat_log(workspace)
    gate = Gate(open_calls=1_000)
    with memlane.open(workspace, provider=gate, sync={"watch": False}, **KEYED) as mem:
        mem.sync()
        assert mem.status()["firstIndex"] is None
        rows = index_sql(mem, "SELECT value FROM meta WHERE key = 'first_index'")
        assert rows == []  # never written
        assert np.isfinite(mem._vector_index().matrix).all()
