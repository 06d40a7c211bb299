"""The watcher, interval sync and background worker of a long-lived Memory."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import memlane
from conftest import FakeEmbedder, write
from memlane.background import is_memory_event


def until(check: Callable[[], bool], timeout: float = 15.0) -> float:
    """Seconds until ``check()`` holds; fails after ``timeout``."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "condition not reached in time"
        time.sleep(0.02)
    return time.monotonic() - started


def paths(mem: memlane.Memory) -> set[str]:
    return set(mem.store.file_states())


def fast(**sync: Any) -> dict[str, Any]:
    return {"sync": {"watchDebounceMs": 100, "onSessionStart": False, **sync}}


def test_watcher_follows_create_change_rename_and_delete(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        mem.start(watch=True)
        time.sleep(0.3)  # let the watches settle
        write(workspace, "memory/2026-06-01.md", "Kayak rental opens in June.\n")
        until(lambda: "memory/2026-06-01.md" in paths(mem))
        write(workspace, "memory/2026-06-01.md", "Kayak rental opens in July.\n")
        until(lambda: any("July" in t for (t,) in mem.store._conn.execute("SELECT text FROM chunks")))
        os.rename(workspace / "memory/2026-06-01.md", workspace / "memory/2026-06-02.md")
        until(lambda: "memory/2026-06-02.md" in paths(mem) and "memory/2026-06-01.md" not in paths(mem))
        (workspace / "memory/2026-06-02.md").unlink()
        until(lambda: "memory/2026-06-02.md" not in paths(mem))
        write(workspace, "MEMORY.md", "# Facts\n\nThe boat is blue.\n")
        until(lambda: any("boat is blue" in t for (t,) in mem.store._conn.execute("SELECT text FROM chunks")))
        assert not mem.search("boat").stale
        status = mem.status()["background"]
        assert status["running"] and status["lastError"] is None and status["syncs"] >= 4


def test_a_new_memory_directory_is_picked_up(tmp_path: Path, fake: FakeEmbedder) -> None:
    write(tmp_path, "MEMORY.md", "# Facts\n")
    with memlane.open(tmp_path, provider=fake, **fast()) as mem:
        mem.sync()
        mem.start(watch=True)
        time.sleep(0.3)
        write(tmp_path, "memory/nested/deep/note.md", "Deep note about herons.\n")
        until(lambda: "memory/nested/deep/note.md" in paths(mem))


def test_editor_junk_and_hidden_files_do_not_trigger_syncs(workspace: Path, fake: FakeEmbedder) -> None:
    ws = str(workspace)
    for junk in (
        "memory/.note.md.swp",
        "memory/note.md~",
        "memory/4913",
        "memory/.hidden.md",
        ".git/x.md",
        "memory/#note.md#",
        "notes.md",
        "memory/x.tmp",
    ):
        assert not is_memory_event(workspace, f"{ws}/{junk}"), junk
    assert is_memory_event(workspace, f"{ws}/memory/a/b.md") and is_memory_event(workspace, f"{ws}/MEMORY.md")
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        mem.start(watch=True)
        time.sleep(0.3)
        syncs = mem.status()["background"]["syncs"]
        write(workspace, "memory/.draft.md.swp", "swap")
        write(workspace, "memory/.hidden.md", "hidden")
        write(workspace, "scratch.txt", "not memory")
        time.sleep(0.8)
        assert mem.status()["background"]["syncs"] == syncs and mem._background.events == 0  # type: ignore[union-attr]


def test_a_burst_of_saves_is_one_sync(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast(watchDebounceMs=400)) as mem:
        mem.sync()
        mem.start(watch=True)
        time.sleep(0.3)
        for i in range(10):
            write(workspace, "memory/2026-07-01.md", f"Draft {i} of the plan.\n")
            time.sleep(0.02)
        until(lambda: any("Draft 9" in t for (t,) in mem.store._conn.execute("SELECT text FROM chunks")))
        time.sleep(0.6)
        assert mem.status()["background"]["syncs"] <= 2


def test_watching_a_large_tree_uses_few_descriptors(tmp_path: Path, fake: FakeEmbedder) -> None:
    for d in range(20):
        for f in range(100):
            write(tmp_path, f"memory/d{d}/n{f}.md", f"note {d} {f}\n")
    fds = lambda: len(os.listdir("/proc/self/fd"))  # noqa: E731
    with memlane.open(tmp_path, provider="none", **fast()) as mem:
        mem.sync()
        before = fds()
        mem.start(watch=True)
        time.sleep(0.5)
        during = fds()
        write(tmp_path, "memory/d7/new.md", "a heron by the river\n")
        until(lambda: "memory/d7/new.md" in paths(mem))
    assert during - before < 20  # 2,000 files watched through a handful of descriptors


def test_interval_sync_without_a_watcher(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast(intervalMinutes=0.005)) as mem:  # every 0.3 s
        mem.sync()
        mem.start(watch=False)
        write(workspace, "memory/2026-08-01.md", "Interval sync found this.\n")
        until(lambda: "memory/2026-08-01.md" in paths(mem))


def test_session_start_syncs_and_close_stops_every_thread(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, sync={"onSessionStart": True, "watchDebounceMs": 100}) as mem:
        mem.start(watch=True)
        until(lambda: "MEMORY.md" in paths(mem))  # onSessionStart: a sync right away
    time.sleep(0.1)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("memlane-")]


def test_start_adds_the_watcher_to_a_worker_a_search_already_started(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        write(workspace, "memory/2026-09-01.md", "First change.\n")
        assert mem.search("change").stale  # starts the background worker, without a watcher
        assert mem.wait_idle(30)
        mem.start(watch=True)
        time.sleep(0.3)
        write(workspace, "memory/2026-09-02.md", "Seen by the watcher.\n")
        until(lambda: "memory/2026-09-02.md" in paths(mem))
