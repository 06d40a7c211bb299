"""memory_write / `memlane remember`: appends, headings, concurrency, access modes."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

import memlane
from conftest import BlockingEmbedder, FakeEmbedder, write
from memlane.files.writer import write_note


def test_append_goes_to_todays_file_and_is_searchable_at_once(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        out = mem.write("The offsite moves to Lisbon in May.")
        today = dt.date.today().isoformat()
        assert out["path"] == f"memory/{today}.md" and out["indexed"] is True
        text = (workspace / out["path"]).read_text()
        assert text.splitlines()[out["startLine"] - 1] == "The offsite moves to Lisbon in May."
        resp = mem.search("Lisbon offsite")
        assert not resp.stale and resp.results[0].path == out["path"]


def test_appends_keep_a_blank_line_between_notes_and_report_exact_lines(tmp_path: Path) -> None:
    write(tmp_path, "memory/2026-03-01.md", "# Monday\nno trailing newline")
    day = dt.date(2026, 3, 1)
    a = write_note(tmp_path, "first note\nsecond line", today=day)
    b = write_note(tmp_path, "another", today=day)
    lines = (tmp_path / "memory/2026-03-01.md").read_text().split("\n")
    assert lines[:6] == ["# Monday", "no trailing newline", "", "first note", "second line", ""]
    assert (a.start_line, a.end_line) == (4, 5) and lines[b.start_line - 1] == "another"


def test_heading_inserts_at_the_end_of_that_section_or_creates_it(tmp_path: Path) -> None:
    write(tmp_path, "MEMORY.md", "# Facts\n\n## People\n\n- Ana leads infra.\n\n## Tools\n\n- We use Postgres.\n")
    out = write_note(tmp_path, "- Bo joined in March.", heading="People", long_term=True)
    text = (tmp_path / "MEMORY.md").read_text()
    assert text == (
        "# Facts\n\n## People\n\n- Ana leads infra.\n\n- Bo joined in March.\n\n## Tools\n\n- We use Postgres.\n"
    )
    assert text.splitlines()[out.start_line - 1] == "- Bo joined in March."
    write_note(tmp_path, "- Deadline is June.", heading="Dates", long_term=True)
    assert (tmp_path / "MEMORY.md").read_text().endswith("- We use Postgres.\n\n## Dates\n\n- Deadline is June.\n")


@pytest.mark.parametrize(("text", "message"), [("   \n", "empty"), ("a\x00b", "NUL"), ("x" * 20_001, "at most")])
def test_bad_text_is_refused_and_nothing_written(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(memlane.MemlaneError, match=message):
        write_note(tmp_path, text)
    assert not (tmp_path / "memory").exists() or not any((tmp_path / "memory").iterdir())


def test_symlinked_target_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").symlink_to(outside)
    with pytest.raises(memlane.PathError, match="symlink"):
        write_note(ws, "x", long_term=True)
    assert outside.read_text() == "secret\n"


def _writer(ws: str, n: int, tag: str) -> None:
    for i in range(n):
        write_note(Path(ws), f"{tag} note {i}", heading="Log" if i % 2 else None, today=dt.date(2026, 4, 1))


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), 25, f"w{k}")) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    lines = set((tmp_path / "memory/2026-04-01.md").read_text().splitlines())
    assert all(f"w{k} note {i}" in lines for k in range(4) for i in range(25))


def test_read_only_and_no_access(workspace: Path, fake: FakeEmbedder) -> None:
    cfg = {"agents": {"defaults": {"workspaceAccess": "ro"}, "list": [{"id": "x", "workspaceAccess": "none"}]}}
    before = sorted(p.name for p in (workspace / "memory").iterdir())
    with memlane.open(workspace, config=cfg, provider=fake) as mem:
        with pytest.raises(memlane.MemlaneError, match="'ro'"):
            mem.write("nope")
        payload = memlane.run_tool(mem, "memory_write", {"text": "nope"})
        assert payload["disabled"] is True and "read-only" in payload["error"]
        assert memlane.run_tool(mem, "memory_search", {"query": "PostgreSQL"})["results"]  # reads still work
        assert mem.memory_flush("s1", 10**6, 200_000).flush is False
    with memlane.open(workspace, agent="x", config=cfg, provider=fake) as mem:
        for name, args in (("memory_search", {"query": "x"}), ("memory_get", {"path": "MEMORY.md"})):
            payload = memlane.run_tool(mem, name, args)
            assert payload["disabled"] is True and "workspaceAccess: none" in payload["error"]
    assert sorted(p.name for p in (workspace / "memory").iterdir()) == before


def test_memory_write_tool_and_remember_command(workspace: Path, fake: FakeEmbedder) -> None:
    from click.testing import CliRunner

    from memlane.surface.cli import cli

    with memlane.open(workspace, provider=fake) as mem:
        out = memlane.run_tool(mem, "memory_write", {"text": "Kayak trip on Saturday", "heading": "Plans"})
        assert out["indexed"] and "error" not in out
        bad = memlane.run_tool(mem, "memory_write", {"text": 5})
        assert "text must be a string" in bad["error"]
    result = CliRunner().invoke(cli, ["-w", str(workspace), "remember", "--long-term", "Rosa prefers tea"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("MEMORY.md:")
    assert "Rosa prefers tea" in (workspace / "MEMORY.md").read_text()


def test_an_editor_save_during_a_heading_insert_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = write(tmp_path, "MEMORY.md", "# Facts\n\n## People\n\n- Ana.\n")
    real_fsync = os.fsync
    saved = []

    def editor_saves_meanwhile(fd: int) -> None:
        real_fsync(fd)
        if not saved:  # between memlane's read and its rename, an editor writes the file
            saved.append(True)
            target.write_text("# Facts\n\n## People\n\n- Ana.\n- Carla (typed in the editor).\n")

    monkeypatch.setattr(os, "fsync", editor_saves_meanwhile)
    write_note(tmp_path, "- Bo.", heading="People", long_term=True)
    text = target.read_text()
    assert "- Carla (typed in the editor)." in text and "- Bo." in text
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".memlane-")]  # no temp file left


def test_a_write_during_a_running_sync_does_not_wait_for_it(workspace: Path) -> None:
    slow = BlockingEmbedder()
    with memlane.open(workspace, provider=slow) as mem:
        reindex = threading.Thread(target=mem.sync, kwargs={"force": True})
        reindex.start()  # a long reindex, stuck in the provider until released
        assert slow.inside.wait(30)
        started = time.monotonic()
        out = mem.write("Written while a reindex runs.")
        assert time.monotonic() - started < 10  # it did not wait for the reindex
        assert out["indexed"] is False and "background" in out["note"]
        slow.release.set()
        reindex.join(30)
        assert mem.wait_idle(30)
        assert mem.search("reindex runs").results[0].path == out["path"]
