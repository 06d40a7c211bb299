"""Archive refuses an archive folder it would leave the workspace through, and backup commits moves and
deletions of memory files (real git, real files, a local bare remote)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import memlane
from conftest import write
from memlane.files.archive import archive_days
from memlane.files.backup import pending
from memlane.surface.cli import cli

NOW = dt.datetime(2026, 1, 10)
OLD = "memory/2020-01-01.md"
ARCHIVED = "memory/archive/2020/2020-01-01.md"


@pytest.fixture(autouse=True)
def no_user_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's git config: no identity (backup supplies its own), no global hooks."""
    empty = tmp_path_factory.mktemp("gitconfig") / "config"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(cwd: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=Owner", "-c", "user.email=owner@example.com", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def head_tree(repo: Path) -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines())


def memory_status(repo: Path, *scope: str) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=all", "--", *(scope or ("MEMORY.md", "memory")))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with one log old enough to archive and one that is not."""
    root = tmp_path / "ws"
    write(root, "MEMORY.md", "# Memory\n\n- Dana owns billing.\n")
    write(root, OLD, "# 2020-01-01\n\n- The heron count was twelve.\n")
    write(root, "memory/2026-01-09.md", "# 2026-01-09\n\n- Recent.\n")
    return root


@pytest.fixture
def repo(ws: Path) -> Path:
    git(ws, "init", "--quiet", "-b", "main")
    write(ws, "notes.txt", "the owner's own file\n")
    git(ws, "add", "notes.txt")
    git(ws, "commit", "--quiet", "-m", "owner's commit")
    return ws


# --- archive: where the logs go -------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["memory/archive", "memory/archive/2020"])
def test_archive_refuses_a_symlinked_archive_folder_and_moves_nothing(ws: Path, tmp_path: Path, link: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / link).parent.mkdir(parents=True, exist_ok=True)
    (ws / link).symlink_to(outside, target_is_directory=True)
    with memlane.open(ws, provider="none") as mem:
        for dry_run in (True, False):
            with pytest.raises(memlane.MemlaneError, match=f"{link} is a symlink") as err:
                mem.archive(30, dry_run=dry_run, now=NOW)
            assert "\n" not in str(err.value)
    assert (ws / OLD).is_file()
    assert list(outside.rglob("*")) == []


def test_archive_refuses_a_symlinked_archive_folder_even_inside_the_workspace(ws: Path) -> None:
    """A link to elsewhere in the workspace is refused too: the logs would live at another path than the
    one indexed, and a link that is harmless today may be repointed tomorrow."""
    (ws / "bank/old").mkdir(parents=True)
    (ws / "memory/archive").symlink_to(Path("..") / "bank" / "old", target_is_directory=True)
    with memlane.open(ws, provider="none") as mem, pytest.raises(memlane.MemlaneError, match="is a symlink"):
        mem.archive(30, now=NOW)
    assert (ws / OLD).is_file() and list((ws / "bank/old").rglob("*")) == []


@pytest.mark.parametrize("blocker", ["memory/archive", "memory/archive/2020"])
def test_archive_where_a_file_blocks_the_archive_folder_is_one_clear_error(ws: Path, blocker: str) -> None:
    write(ws, blocker, "not a folder\n")
    with memlane.open(ws, provider="none") as mem, pytest.raises(memlane.MemlaneError, match=f"{blocker} is a file"):
        mem.archive(30, now=NOW)
    assert (ws / OLD).is_file() and (ws / blocker).read_text() == "not a folder\n"
    out = CliRunner().invoke(cli, ["-w", str(ws), "archive", "--older-than", "30"])
    assert out.exit_code == 1 and not isinstance(out.exception, OSError)
    assert "Traceback" not in out.output and out.output.count("memlane: error:") == 1
    assert (ws / OLD).is_file()


def test_archive_over_a_dangling_symlink_leaves_the_log_in_place(ws: Path, tmp_path: Path) -> None:
    (ws / "memory/archive/2020").mkdir(parents=True)
    (ws / ARCHIVED).symlink_to(tmp_path / "nowhere.md")
    with memlane.open(ws, provider="none") as mem:
        out = mem.archive(30, now=NOW)
    assert out["moves"] == [] and any("exists already" in note for note in out["skipped"])
    assert (ws / OLD).is_file() and (ws / ARCHIVED).is_symlink()


@pytest.mark.parametrize("value", ["999999999", "999999999d", 10**12, "9" * 5000, "\u00b2", "-5"])
def test_archive_older_than_out_of_range_is_one_clear_error(ws: Path, value: int | str) -> None:
    with pytest.raises(memlane.MemlaneError, match="--older-than"):
        archive_days(value)
    with memlane.open(ws, provider="none") as mem, pytest.raises(memlane.MemlaneError, match="--older-than"):
        mem.archive(value, now=NOW)
    assert (ws / OLD).is_file()
    out = CliRunner().invoke(cli, ["-w", str(ws), "archive", "--older-than", str(value)])
    assert out.exit_code == 1 and "--older-than" in out.output and "Traceback" not in out.output


def test_archive_older_than_the_limits_still_work(ws: Path) -> None:
    assert archive_days("36500d") == 36500 and archive_days(0) == 0
    with memlane.open(ws, provider="none") as mem:
        assert mem.archive("36500", now=NOW)["moves"] == []
        assert mem.archive("30d", now=NOW)["moves"] == [{"from": OLD, "to": ARCHIVED}]
    assert (ws / ARCHIVED).is_file()


# --- backup: moves and deletions are committed ---------------------------------------------------------


def test_backup_after_archive_commits_the_move_and_leaves_nothing_behind(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    with memlane.open(repo, provider="none") as mem:
        assert mem.backup(push=True).committed
        assert mem.archive(30, now=NOW)["moves"] == [{"from": OLD, "to": ARCHIVED}]
        assert pending(repo) == sorted([OLD, ARCHIVED])  # doctor's view: both sides of the move
        second = mem.backup(push=True)
        assert second.committed and sorted(second.files) == sorted([OLD, ARCHIVED])
        changes = git(repo, "show", "--no-renames", "--name-status", "--format=", "HEAD").splitlines()
        assert sorted(changes) == [f"A\t{ARCHIVED}", f"D\t{OLD}"]
        assert memory_status(repo) == "" and pending(repo) == []
        assert OLD not in head_tree(repo) and ARCHIVED in head_tree(repo)
        remote_tree = set(git(remote, "ls-tree", "-r", "--name-only", "main").splitlines())
        assert OLD not in remote_tree and ARCHIVED in remote_tree
        third = mem.backup()
        assert not third.committed and third.message.startswith("nothing to back up")
        assert {c.name: c for c in mem.doctor()}["backup"].ok


def test_backup_commits_a_deletion_the_owner_already_staged(repo: Path) -> None:
    with memlane.open(repo, provider="none") as mem:
        mem.backup()
        git(repo, "rm", "--quiet", OLD)  # staged: no longer in the index, still in HEAD
        assert pending(repo) == [OLD]
        result = mem.backup()
    assert result.committed and result.files == [OLD]
    assert OLD not in head_tree(repo) and memory_status(repo) == ""


def test_backup_commits_both_sides_of_a_git_mv(repo: Path) -> None:
    renamed = "memory/2020/2020-01-01.md"
    with memlane.open(repo, provider="none") as mem:
        mem.backup()
        (repo / "memory/2020").mkdir()
        git(repo, "mv", OLD, renamed)  # a staged rename: status and diff show it as one entry
        assert pending(repo) == [OLD, renamed]
        result = mem.backup()
    assert result.committed and sorted(result.files) == [OLD, renamed]
    assert OLD not in head_tree(repo) and renamed in head_tree(repo) and memory_status(repo) == ""


def test_backup_commits_a_move_and_keeps_the_owners_own_changes_out(repo: Path) -> None:
    """The scope stays the memory files: the owner's staged deletion of notes.txt and a non-memory file
    under memory/ are neither committed nor unstaged."""
    with memlane.open(repo, provider="none") as mem:
        mem.backup()
        git(repo, "rm", "--quiet", "--cached", "notes.txt")
        write(repo, "memory/draft.txt", "not a memory file\n")
        write(repo, "memory/.hidden.md", "hidden: not a memory file\n")
        os.rename(repo / OLD, repo / "memory/2020-01-01-heron.md")
        result = mem.backup()
    assert result.committed and sorted(result.files) == ["memory/2020-01-01-heron.md", OLD]
    assert "notes.txt" in head_tree(repo) and "memory/draft.txt" not in head_tree(repo)
    status = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == ["?? memory/.hidden.md", "?? memory/draft.txt", "?? notes.txt", "D  notes.txt"]


def test_backup_of_an_archive_in_a_workspace_inside_a_larger_repository(tmp_path: Path) -> None:
    top = tmp_path / "top"
    ws = top / "agents/ws"
    write(ws, OLD, "# 2020-01-01\n\n- old\n")
    write(top, "memory/2020-01-01.md", "the top's own memory folder: not this workspace's\n")
    git(top, "init", "--quiet", "-b", "main")
    git(top, "add", "memory")
    git(top, "commit", "--quiet", "-m", "top")
    with memlane.open(ws, provider="none") as mem:
        mem.backup()
        mem.archive(30, now=NOW)
        (top / "memory/2020-01-01.md").unlink()  # outside the workspace: backup must not commit this
        result = mem.backup()
    prefixed = {f"agents/ws/{OLD}", f"agents/ws/{ARCHIVED}"}
    assert result.committed and set(result.files) == prefixed
    tree = head_tree(top)
    assert f"agents/ws/{OLD}" not in tree and f"agents/ws/{ARCHIVED}" in tree and "memory/2020-01-01.md" in tree
    assert git(top, "status", "--porcelain") == "D memory/2020-01-01.md"  # " D", stripped: left unstaged
