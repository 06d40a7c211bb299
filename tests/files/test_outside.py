"""The writer of files that are not memory (files/outside.py): random temp names nobody can plant, the
target checked against what was read, mode and line endings kept, read-only files and links to nothing
refused, and no temporary file left behind on any error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlane.files.outside import (
    ChangedOnDisk,
    OutsideWriteError,
    ReadOnlyTarget,
    UnsafeTarget,
    remove_file,
    snapshot,
    write_file,
)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "memlane-tmp" in p.name)


def test_a_link_planted_at_any_name_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=/usr/bin\n")
    target = tmp_path / "conf" / "app.json"
    target.parent.mkdir()
    # every name an earlier memlane, or a guess at this one, could use
    for name in (f".{target.name}.memlane-tmp", f"{target.name}.tmp", ".memlane-tmp"):
        (target.parent / name).symlink_to(victim)
    write_file(target, '{"a": 1}\n', expect=None)
    assert victim.read_text() == "export PATH=/usr/bin\n"
    assert target.read_text() == '{"a": 1}\n' and not target.is_symlink()


def test_a_file_changed_since_it_was_read_is_left_as_the_other_program_saved_it(tmp_path: Path) -> None:
    target = tmp_path / "c.json"
    target.write_text("{}\n")
    seen = snapshot(target)
    target.write_text('{"theirs": 1}\n')  # the host saved in between
    with pytest.raises(ChangedOnDisk, match="changed since memlane read it"):
        write_file(target, '{"ours": 1}\n', expect=seen)
    assert target.read_text() == '{"theirs": 1}\n' and _leftovers(tmp_path) == []
    with pytest.raises(ChangedOnDisk):  # "must not exist yet" and it does
        write_file(target, "x", expect=None)
    target.unlink()
    with pytest.raises(ChangedOnDisk, match="removed"):
        write_file(target, "x", expect=seen)
    assert not target.exists() and _leftovers(tmp_path) == []
    with pytest.raises(ChangedOnDisk):
        target.write_text("again\n")
        remove_file(target, expect=seen)
    assert target.read_text() == "again\n"


def test_mode_is_kept_and_a_new_file_is_private(tmp_path: Path) -> None:
    kept = tmp_path / "kept.toml"
    kept.write_text("a = 1\n")
    kept.chmod(0o640)
    write_file(kept, "a = 2\n", expect=snapshot(kept))
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == "a = 2\n"
    new = tmp_path / "sub" / "new.json"
    write_file(new, "{}\n", expect=None)
    assert new.stat().st_mode & 0o777 == 0o600
    chosen = tmp_path / "chosen"
    write_file(chosen, b"x", expect=None, mode=0o644)
    assert chosen.stat().st_mode & 0o777 == 0o644


def test_a_read_only_file_is_refused_with_one_line(tmp_path: Path) -> None:
    target = tmp_path / "locked.json"
    target.write_text('{"key": "sk-1"}\n')
    target.chmod(0o444)  # the bits decide, also for root, whom os.access would let write
    with pytest.raises(ReadOnlyTarget, match=r"read-only \(mode 0444\)") as caught:
        write_file(target, "{}\n", expect=snapshot(target))
    assert "\n" not in str(caught.value)
    with pytest.raises(ReadOnlyTarget):
        remove_file(target)
    assert target.read_text() == '{"key": "sk-1"}\n' and _leftovers(tmp_path) == []


def test_str_keeps_the_file_s_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "crlf.toml"
    target.write_bytes(b"a = 1\r\nb = 2\r\n")
    write_file(target, "a = 1\nb = 2\nc = 3\n", expect=snapshot(target))
    assert target.read_bytes() == b"a = 1\r\nb = 2\r\nc = 3\r\n"
    lf = tmp_path / "lf.toml"
    lf.write_bytes(b"a = 1\n")
    write_file(lf, "a = 2\n")
    assert lf.read_bytes() == b"a = 2\n"


def test_links_a_dotfiles_link_is_followed_a_link_to_nothing_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "conf.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    real.chmod(0o600)
    link = tmp_path / "conf.json"
    link.symlink_to(real)
    write_file(link, '{"a": 1}\n', expect=snapshot(link))
    assert link.is_symlink() and real.read_text() == '{"a": 1}\n' and real.stat().st_mode & 0o777 == 0o600
    dangling = tmp_path / "planted.json"
    dangling.symlink_to(tmp_path / "elsewhere" / "new.json")
    with pytest.raises(UnsafeTarget, match="not there"):
        write_file(dangling, "{}\n", expect=None)
    with pytest.raises(UnsafeTarget):
        snapshot(dangling)
    assert not (tmp_path / "elsewhere").exists()
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(UnsafeTarget, match="not a regular file"):
        write_file(folder, "x")


def test_no_temporary_file_is_left_on_any_error(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    target.write_text("{}\n")
    with pytest.raises(OutsideWriteError, match="UTF-8"):
        write_file(target, '{"a": "\ud800"}\n')  # a lone surrogate cannot be UTF-8
    assert target.read_text() == "{}\n" and _leftovers(tmp_path) == []
    if os.geteuid() != 0:  # root writes into a 0555 folder anyway
        tmp_path.chmod(0o555)
        try:
            with pytest.raises(OutsideWriteError, match="nothing was written"):
                write_file(target, "x")
        finally:
            tmp_path.chmod(0o755)
    assert _leftovers(tmp_path) == []
