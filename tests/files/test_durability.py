"""Backup (real git, a local bare remote), archive and doctor."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import memlane
from conftest import FakeEmbedder, write
from memlane.files.writer import workspace_lock
from memlane.surface.cli import cli

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The workspace as a git repository with an unrelated file and a commit by its owner."""
    git(workspace, "init", "--quiet", "-b", "main")
    git(workspace, "config", "user.email", "owner@example.com")
    git(workspace, "config", "user.name", "Owner")
    write(workspace, "notes.txt", "the owner's own file\n")
    git(workspace, "add", "notes.txt")
    git(workspace, "commit", "--quiet", "-m", "owner's commit")
    return workspace


def test_backup_needs_a_repository_or_init(workspace: Path) -> None:
    with memlane.open(workspace, provider="none") as mem:
        with pytest.raises(memlane.MemlaneError, match="not a git repository: run `memlane backup --init`"):
            mem.backup()
        result = mem.backup(init=True)
    assert result.committed and (workspace / ".git").is_dir()
    assert git(workspace, "log", "--format=%s") == f"Daily backup: {dt.date.today().isoformat()}"


def test_backup_commits_memory_files_only_and_nothing_when_nothing_changed(repo: Path) -> None:
    write(repo, "notes.txt", "the owner edited this and staged it\n")
    git(repo, "add", "notes.txt")
    write(repo, "draft.txt", "untracked, not memory\n")
    write(repo, "memory/.hidden.md", "hidden: not a memory file\n")
    with memlane.open(repo, provider="none") as mem:
        first = mem.backup()
        assert first.committed and sorted(first.files) == [
            "MEMORY.md", "memory/2026-01-05.md", "memory/2026-01-06.md"
        ]  # fmt: skip
        assert mem.backup().committed is False  # nothing changed: no commit
        (repo / "memory/2026-01-05.md").unlink()
        write(repo, "bank/entities/Dana.md", "# Dana\n")
        second = mem.backup()
    assert sorted(second.files) == ["bank/entities/Dana.md", "memory/2026-01-05.md"]  # a deletion is committed too
    assert git(repo, "log", "--format=%s").splitlines() == [f"Daily backup: {dt.date.today().isoformat()}"] * 2 + [
        "owner's commit"
    ]
    # the owner's staged change is still staged, their untracked files untouched, hidden files never added
    assert git(repo, "diff", "--cached", "--name-only") == "notes.txt"
    assert "draft.txt" in git(repo, "status", "--porcelain") and "hidden" not in git(repo, "ls-files")


def test_backup_of_a_workspace_inside_a_larger_repository(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet")
    ws = tmp_path / "agents" / "peter"
    write(ws, "MEMORY.md", "# Peter's memory\n")
    write(tmp_path, "README.md", "the project's own file\n")
    with memlane.open(ws, provider="none") as mem:
        result = mem.backup()
    assert result.files == ["agents/peter/MEMORY.md"] and "README.md" in git(tmp_path, "status", "--porcelain")


def test_push_to_a_bare_remote_a_failing_push_and_a_detached_head(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    with memlane.open(repo, provider="none") as mem:
        pushed = mem.backup(push=True)
        assert pushed.pushed and git(remote, "log", "--format=%s", "main").startswith("Daily backup:")
        # someone else pushed first: the push is rejected, nothing is forced, the commit stays local
        other = tmp_path / "other"
        git(tmp_path, "clone", "--quiet", str(remote), str(other))
        write(other, "MEMORY.md", "# edited elsewhere\n")
        git(other, "-c", "user.name=o", "-c", "user.email=o@x", "commit", "--quiet", "-am", "elsewhere")
        git(other, "push", "--quiet", "origin", "HEAD:main")
        write(repo, "memory/2026-01-07.md", "- a new note\n")
        with pytest.raises(
            memlane.MemlaneError, match=r"push to origin main failed.*committed locally, nothing was forced"
        ):
            mem.backup(push=True)
        assert git(repo, "log", "-1", "--format=%s").startswith("Daily backup:")
        assert git(remote, "log", "-1", "--format=%s", "main") == "elsewhere"
        # a detached HEAD: the backup is committed, a push needs a branch
        git(repo, "checkout", "--quiet", "--detach")
        write(repo, "memory/2026-01-08.md", "- another note\n")
        with pytest.raises(memlane.MemlaneError, match="HEAD is detached"):
            mem.backup(push=True)
        assert "2026-01-08.md" in git(repo, "show", "--name-only", "--format=", "HEAD")


def test_backup_waits_for_a_writer(repo: Path) -> None:
    done = threading.Event()
    with memlane.open(repo, provider="none") as mem, workspace_lock(repo, exclusive=False):  # a write in progress
        t = threading.Thread(target=lambda: (mem.backup(), done.set()))
        t.start()
        time.sleep(0.3)
        assert not done.is_set()
    t.join(30)
    assert done.is_set()


def test_scheduled_backup_and_after_a_memory_flush(repo: Path) -> None:
    cfg = {"agents": {"defaults": {"backup": {"git": {"schedule": "0.005m"}}}}}
    with memlane.open(repo, provider="none", config=cfg, sync={"onSessionStart": False}) as mem:
        mem.start(watch=False)
        deadline = time.monotonic() + 60
        while "Daily backup" not in git(repo, "log", "-1", "--format=%s"):
            assert time.monotonic() < deadline, "the scheduled backup did not run"
            time.sleep(0.1)
    after = {"agents": {"defaults": {"backup": {"git": {"afterFlush": True}}}}}
    with memlane.open(repo, provider="none", config=after, sync={"onSessionStart": False}) as mem:
        commits = len(git(repo, "log", "--format=%h").splitlines())
        mem.start(watch=True)
        assert mem.wait_watching(30)
        decision = mem.memory_flush("s1", session_tokens=190_000, context_window=200_000)
        assert decision.flush
        mem.write("Written in the flush turn.")
        deadline = time.monotonic() + 60
        while len(git(repo, "log", "--format=%h").splitlines()) == commits:
            assert time.monotonic() < deadline, "no backup after the flush"
            mem.search("flush turn")  # a read of a changed workspace starts a background sync
            time.sleep(0.2)
        assert "Written in the flush turn." in git(repo, "show", "HEAD")


def test_archive_moves_old_logs_and_the_index_follows_without_embedding(tmp_path: Path, fake: FakeEmbedder) -> None:
    for day in ("2025-06-01", "2025-06-02", "2026-01-01"):
        write(tmp_path, f"memory/{day}.md", f"# {day}\n\n## Retain\n- W @Dana: heron count on {day} was twelve.\n")
    now = dt.datetime(2026, 1, 10)
    with memlane.open(tmp_path, provider=fake) as mem:
        mem.sync()
        calls = fake.embedded_texts
        dry = mem.archive("90d", dry_run=True, now=now)
        assert [m["to"] for m in dry["moves"]] == [
            "memory/archive/2025/2025-06-01.md",
            "memory/archive/2025/2025-06-02.md",
        ]
        assert (tmp_path / "memory/2025-06-01.md").exists()  # a dry run moves nothing
        out = mem.archive(90, now=now)
        assert out["indexed"] is True and not (tmp_path / "memory/2025-06-01.md").exists()
        assert fake.embedded_texts == calls  # same text, every vector from the cache
        hits = mem.search("heron count", min_score=0, max_results=3).results
        assert {h.path for h in hits} >= {"memory/archive/2025/2025-06-01.md", "memory/2026-01-01.md"}
        assert "twelve" in mem.get("memory/archive/2025/2025-06-02.md")
        fact = mem.recall("heron count on 2025-06-01", k=1, now=now).facts[0]
        assert fact.source == "memory/archive/2025/2025-06-01.md#L4" and fact.day == "2025-06-01"
    lower = {"query": {"archiveWeight": 0.5}}
    with memlane.open(tmp_path, provider=fake, **lower) as mem:
        hits = mem.search("heron count twelve", min_score=0, max_results=3).results
        assert hits[0].path == "memory/2026-01-01.md"  # archived logs rank lower
    with memlane.open(tmp_path, provider=fake) as mem, pytest.raises(memlane.MemlaneError, match="number of days"):
        mem.archive("three months")


def test_archive_waits_for_a_writer(tmp_path: Path) -> None:
    write(tmp_path, "memory/2020-01-01.md", "old\n")
    done = threading.Event()
    with memlane.open(tmp_path, provider="none") as mem:
        with workspace_lock(tmp_path, exclusive=False):
            t = threading.Thread(target=lambda: (mem.archive(30), done.set()))
            t.start()
            time.sleep(0.3)
            assert not done.is_set() and (tmp_path / "memory/2020-01-01.md").exists()
        t.join(30)  # inside: the archive's index update must not outlive the memory it uses
    assert done.is_set() and (tmp_path / "memory/archive/2020/2020-01-01.md").exists()


def test_doctor_finds_problems_and_says_how_to_fix_them(repo: Path, fake: FakeEmbedder) -> None:
    runner = CliRunner()
    with memlane.open(repo, provider=fake) as mem:
        mem.sync()
        mem.backup()
        assert all(c.ok for c in mem.doctor()), [c for c in mem.doctor() if not c.ok]
        write(repo, "memory/2026-02-01.md", "## Retain\n- Q @Dana: not a kind\n")
        (repo / "memory/.memlane-abc.tmp").write_text("half a write")
        checks = {c.name: c for c in mem.doctor()}
    assert checks["files"].fix == "memlane index" and "not indexed (memory/2026-02-01.md)" in checks["files"].detail
    assert checks["leftovers"].fix == "rm memory/.memlane-abc.tmp"
    assert checks["backup"].fix == "memlane backup" and not checks["backup"].ok
    out = runner.invoke(cli, ["-w", str(repo), "doctor", "--json"])
    report = json.loads(out.output)
    assert out.exit_code == 1 and report["ok"] is False
    assert {c["name"] for c in report["checks"] if not c["ok"]} >= {"files", "leftovers", "backup"}
    assert runner.invoke(cli, ["-w", str(repo), "index"]).exit_code == 0
    retain = {
        c["name"]: c for c in json.loads(runner.invoke(cli, ["-w", str(repo), "doctor", "--json"]).output)["checks"]
    }
    assert retain["retain"]["fix"] == "edit memory/2026-02-01.md:2" and retain["files"]["ok"]
