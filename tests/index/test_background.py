"""The watcher, interval sync and background worker of a long-lived Memory.

Every wait is on a condition with a generous timeout (a loaded CI machine is slow, never wrong), and
state is read through public API only: the index through the store's reader, counts through status.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memlane
from conftest import BlockingEmbedder, FakeEmbedder, write
from memlane.index.background import is_memory_event

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def until(check: Callable[[], bool], timeout: float = 30.0) -> float:
    """Seconds until ``check()`` holds; fails after ``timeout``."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "condition not reached in time"
        time.sleep(0.02)
    return time.monotonic() - started


def paths(mem: memlane.Memory) -> set[str]:
    return set(mem.store.file_states())


def indexed(mem: memlane.Memory, path: str) -> str:
    """The text the index holds for ``path`` (rebuilt from its chunks)."""
    return "\n".join(mem.store.lines_of(path, 1, 200))


def background(mem: memlane.Memory) -> dict[str, Any]:
    return mem.background_status()


def fast(**sync: Any) -> dict[str, Any]:
    return {"sync": {"watchDebounceMs": 100, "onSessionStart": False, **sync}}


def watching(mem: memlane.Memory) -> memlane.Memory:
    mem.start(watch=True)
    assert mem.wait_watching(30)
    return mem


def test_watcher_follows_create_change_rename_and_delete(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        watching(mem)
        write(workspace, "memory/2026-06-01.md", "Kayak rental opens in June.\n")
        until(lambda: "memory/2026-06-01.md" in paths(mem))
        write(workspace, "memory/2026-06-01.md", "Kayak rental opens in July.\n")
        until(lambda: "July" in indexed(mem, "memory/2026-06-01.md"))
        os.rename(workspace / "memory/2026-06-01.md", workspace / "memory/2026-06-02.md")
        until(lambda: "memory/2026-06-02.md" in paths(mem) and "memory/2026-06-01.md" not in paths(mem))
        (workspace / "memory/2026-06-02.md").unlink()
        until(lambda: "memory/2026-06-02.md" not in paths(mem))
        write(workspace, "MEMORY.md", "# Facts\n\nThe boat is blue.\n")
        until(lambda: "boat is blue" in indexed(mem, "MEMORY.md"))
        assert mem.wait_idle(30)
        assert not mem.search("boat").stale
        status = background(mem)
        # Nothing but the background synced after mem.sync(). Steps and syncs are not one to one: a sync's
        # catch-up passes take in a change made while it runs (CI on PostgreSQL once counted 3 for 5 steps).
        assert status["running"] and status["lastError"] is None and status["syncs"] >= 1


def test_bank_pages_are_watched_too(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        watching(mem)
        write(workspace, "bank/entities/Dana.md", "# Dana\n\naliases: DW\n")  # bank/ is created after the start
        until(lambda: "bank/entities/Dana.md" in paths(mem))
        until(lambda: mem.status()["facts"]["pages"] == 1)


def test_extra_paths_are_watched(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "elsewhere"
    write(ws, "MEMORY.md", "# Facts\n")
    write(ws, "AGENTS.md", "# Agents\n")
    write(outside, "team.md", "# Team\n")
    extra = {"extraPaths": [str(outside), "AGENTS.md"]}
    with memlane.open(ws, provider=fake, **fast(), **extra) as mem:
        mem.sync()
        watching(mem)
        write(outside, "sub/rota.md", "The otter rota starts Monday.\n")  # a folder made after the start
        until(lambda: (outside / "sub/rota.md").as_posix() in paths(mem))
        write(ws, "AGENTS.md", "# Agents\n\nThe pelican rule.\n")  # a file in the workspace's own root
        until(lambda: "pelican" in indexed(mem, "AGENTS.md"))


def test_a_new_memory_directory_is_picked_up(tmp_path: Path, fake: FakeEmbedder) -> None:
    write(tmp_path, "MEMORY.md", "# Facts\n")
    with memlane.open(tmp_path, provider=fake, **fast()) as mem:
        mem.sync()
        watching(mem)
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
    assert is_memory_event(workspace, f"{ws}/bank/entities/X.md")
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        watching(mem)
        syncs = background(mem)["syncs"]
        write(workspace, "memory/.draft.md.swp", "swap")
        write(workspace, "memory/.hidden.md", "hidden")
        write(workspace, "scratch.txt", "not memory")
        # then one real change: once it is indexed, the junk (written before it) has had every chance
        write(workspace, "memory/2026-06-03.md", "Real note.\n")
        until(lambda: "memory/2026-06-03.md" in paths(mem))
        assert mem.wait_idle(30)
        status = background(mem)
        assert status["syncs"] == syncs + 1 and status["events"] == 1


def test_a_burst_of_saves_is_one_sync(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast(watchDebounceMs=1500)) as mem:
        mem.sync()
        watching(mem)
        for i in range(10):  # ten saves within a few milliseconds, far inside the 1.5 s debounce
            write(workspace, "memory/2026-07-01.md", f"Draft {i} of the plan.\n")
        until(lambda: "Draft 9" in indexed(mem, "memory/2026-07-01.md"))
        assert mem.wait_idle(30)
        assert background(mem)["syncs"] == 1


def test_a_steady_stream_of_saves_cannot_postpone_syncs(workspace: Path, fake: FakeEmbedder) -> None:
    """Saves every 100 ms for 3 s, debounce 500 ms: a debounce that waited for quiet would not sync at all
    until the stream ends; the schedule keeps the first event's time, so syncs happen during it."""
    with memlane.open(workspace, provider=fake, **fast(watchDebounceMs=500)) as mem:
        mem.sync()
        watching(mem)
        end = time.monotonic() + 3.0
        i = 0
        while time.monotonic() < end:
            write(workspace, "memory/2026-07-02.md", f"Line {i} of a long dictation.\n")
            i += 1
            time.sleep(0.1)
        during = background(mem)["syncs"]
        assert during >= 2, f"{during} syncs while saves kept coming"
        until(lambda: f"Line {i - 1} " in indexed(mem, "memory/2026-07-02.md"))


def test_watching_a_large_tree_uses_few_descriptors(tmp_path: Path, fake: FakeEmbedder) -> None:
    for d in range(20):
        for f in range(100):
            write(tmp_path, f"memory/d{d}/n{f}.md", f"note {d} {f}\n")
    fds = lambda: len(os.listdir("/proc/self/fd"))  # noqa: E731
    with memlane.open(tmp_path, provider="none", **fast()) as mem:
        mem.sync()
        before = fds()
        watching(mem)
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
    until(lambda: not [t.name for t in threading.enumerate() if t.name.startswith("memlane-watch")])
    assert not [t.name for t in threading.enumerate() if t.name in ("memlane-sync",) or t.name.startswith("memlane-w")]


def test_close_waits_for_a_running_sync(workspace: Path) -> None:
    slow = BlockingEmbedder()
    mem = memlane.open(workspace, provider=slow, **fast(onSessionStart=True))
    mem.start(watch=False)  # onSessionStart: a background sync now
    assert slow.inside.wait(30)  # the background sync is inside the provider now
    closer = threading.Thread(target=mem.close)
    closer.start()
    time.sleep(0.2)
    assert closer.is_alive()  # close() is waiting for the sync, not abandoning it
    slow.release.set()
    closer.join(30)
    assert not closer.is_alive()
    with memlane.open(workspace, provider=FakeEmbedder()) as again:
        assert not again.is_dirty()  # the sync that close() waited for committed the whole index


def test_start_adds_the_watcher_to_a_worker_a_search_already_started(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        write(workspace, "memory/2026-09-01.md", "First change.\n")
        assert mem.search("change").stale  # starts the background worker, without a watcher
        assert mem.wait_idle(30)
        watching(mem)
        write(workspace, "memory/2026-09-02.md", "Seen by the watcher.\n")
        until(lambda: "memory/2026-09-02.md" in paths(mem))


@pytest.mark.sqlite_only
def test_a_watch_that_keeps_failing_is_reported_not_hidden(
    workspace: Path, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # the retry loop swallowed every failure: a watcher that never watched looked healthy in status
    import watchfiles

    def no_watches(*_a: Any, **_k: Any) -> Any:
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "watch", no_watches)
    with memlane.open(workspace, provider=fake, **fast()) as mem:
        mem.sync()
        mem.start(watch=True)
        until(lambda: len(background(mem)["watchErrors"]) >= 2)
        status = background(mem)
        assert any("inotify watch limit reached" in why for why in status["watchErrors"].values())
        assert str(workspace / "memory") in status["watchErrors"]
        assert "watch limit" in (status["lastError"] or "")
    assert any("watching" in r.getMessage() and "failed" in r.getMessage() for r in caplog.records)


def test_an_index_built_for_another_workspace_is_rebuilt_before_it_answers(tmp_path: Path) -> None:
    # one agent's index (under MEMLANE_HOME) opened on a second workspace in the same process: the other
    # workspace's memory is no stale answer of this one
    first, second = tmp_path / "first", tmp_path / "second"
    write(first, "memory/2026-03-01.md", "# 2026-03-01\n\n## Retain\n- W: the alpha project codename is Falcon\n")
    write(second, "memory/2026-03-02.md", "# 2026-03-02\n\n## Retain\n- W: the beta project codename is Heron\n")
    with memlane.open(first, provider=FakeEmbedder()) as mem:
        assert [r.path for r in mem.search("project codename", min_score=0).results] == ["memory/2026-03-01.md"]
    with memlane.open(second, provider=FakeEmbedder()) as mem:
        found = mem.search("project codename", min_score=0)
        assert [r.path for r in found.results] == ["memory/2026-03-02.md"] and not found.stale
        assert any("built for another workspace" in n for n in found.notes)
        assert [f.content for f in mem.recall("project codename").facts] == ["the beta project codename is Heron"]
    # with sync.onSearch off too: the first workspace's memory is never this one's answer
    with memlane.open(first, provider=FakeEmbedder(), sync={"onSearch": False}) as mem:
        assert [r.path for r in mem.search("project codename", min_score=0).results] == ["memory/2026-03-01.md"]
