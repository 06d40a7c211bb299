from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import write
from memlane.errors import PathError
from memlane.workspace import list_memory_files, read_lines, resolve_memory_path


def test_lists_memory_files_only(workspace: Path, tmp_path: Path) -> None:
    write(workspace, "memory/sub/deep.md", "deep")
    write(workspace, "memory/notes.txt", "not markdown")
    write(workspace, "memory/.hidden.md", "hidden")
    write(workspace, "memory/.git/x.md", "hidden dir")
    write(workspace, "README.md", "not memory")
    outside = write(tmp_path, "secret.md", "outside")
    os.symlink(outside, workspace / "memory" / "link.md")
    os.symlink(tmp_path, workspace / "memory" / "linkdir")
    paths = [f.path for f in list_memory_files(workspace)]
    assert paths == ["MEMORY.md", "memory/2026-01-05.md", "memory/2026-01-06.md", "memory/sub/deep.md"]


def test_memory_dir_symlink_is_not_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write(tmp_path, "elsewhere/x.md", "x")
    os.symlink(tmp_path / "elsewhere", ws / "memory")
    assert list_memory_files(ws) == []


def test_missing_workspace_lists_nothing(tmp_path: Path) -> None:
    assert list_memory_files(tmp_path / "nope") == []


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/etc/passwd", "absolute"),
        ("../secret.md", "'..'"),
        ("memory/../../secret.md", "'..'"),
        ("README.md", "not a memory file"),
        ("memory/notes.txt", "not a memory file"),
        ("memory/.hidden.md", "not a memory file"),
        ("memory/missing.md", "not found"),
        ("", "non-empty"),
        ("C:/x/memory/a.md", "absolute"),
    ],
)
def test_get_refuses_unsafe_paths(workspace: Path, path: str, message: str) -> None:
    write(workspace, "README.md", "x")
    write(workspace, "memory/notes.txt", "x")
    write(workspace, "memory/.hidden.md", "x")
    with pytest.raises(PathError, match=message):
        resolve_memory_path(workspace, path)


def test_get_refuses_symlinks(workspace: Path, tmp_path: Path) -> None:
    outside = write(tmp_path, "secret.md", "top secret")
    os.symlink(outside, workspace / "memory" / "link.md")
    with pytest.raises(PathError, match="symlink"):
        resolve_memory_path(workspace, "memory/link.md")


def test_read_lines_ranges(workspace: Path) -> None:
    path = resolve_memory_path(workspace, "./memory/2026-01-05.md")
    assert read_lines(path, 3, 1) == "- Ticket BILL-4821 blocks the migration.\n"
    assert read_lines(path, 3).startswith("- Ticket")
    assert read_lines(path, 100, 5) == ""
    with pytest.raises(PathError):
        read_lines(path, 0, 1)
