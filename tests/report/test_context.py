"""memlane context: the core block, relevant facts, recent facts, within a token budget, with sources."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

import memlane
from conftest import write
from memlane.report.context import NOTES_LINE, whitespace_tokens

NOW = dt.datetime(2026, 3, 20, 9)
CORE = "# Long-term memory\n\n" + "".join(f"- Standing fact number {i} about the billing service.\n" for i in range(40))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", CORE)
    old = "# 2025-11-02\n## Retain\n- W @Kestrel: The kestrel importer reads CSV exports.\n"
    write(ws, "memory/2025-11-02.md", old)
    write(
        ws,
        "memory/2026-03-18.md",
        "# 2026-03-18\n## Retain\n- B @Dana: I moved the invoice job to Tuesdays.\n"
        "- W @Kestrel: The kestrel importer now also reads Excel files.\n",
    )
    return ws


def test_core_then_relevant_then_recent_with_sources(ws: Path) -> None:
    with memlane.open(ws, provider="none") as mem:
        pack = mem.context(budget=2000, query="kestrel importer", now=NOW)
    assert pack.core.startswith("# Long-term memory") and pack.core_path == "MEMORY.md"
    relevant = [x.source for x in pack.relevant]
    assert set(relevant) == {"memory/2025-11-02.md#L3", "memory/2026-03-18.md#L4"}
    # recent: the last 30 days, without what the relevant part already shows
    assert [x.source for x in pack.recent] == ["memory/2026-03-18.md#L3"]
    text = pack.render()
    assert text.index("## Core") < text.index(NOTES_LINE) < text.index("## Relevant") < text.index("## Recent")
    # each fact as recorded, with where it comes from (a hand-written bullet: a memory file), its day and source
    assert (
        "- I moved the invoice job to Tuesdays. "
        "(written in a memory file · 2026-03-18 · experience · memory/2026-03-18.md#L3)\n" in text
    )


def test_the_budget_holds_and_cuts_whole_parts(ws: Path) -> None:
    with memlane.open(ws, provider="none") as mem:
        for budget in (60, 150, 400):
            pack = mem.context(budget=budget, query="kestrel importer", now=NOW)
            assert pack.tokens <= budget
            assert whitespace_tokens([pack.render()])[0] <= budget
        small = mem.context(budget=60, query="kestrel importer", now=NOW)
        assert small.core and small.core in CORE and small.core != CORE
        assert any("MEMORY.md cut at line" in n for n in small.notes)


def test_the_folder_names_the_topic_when_no_query(ws: Path, tmp_path: Path) -> None:
    project = tmp_path / "kestrel-importer"
    project.mkdir()
    with memlane.open(ws, provider="none") as mem:
        pack = mem.context(budget=2000, cwd=project, now=NOW)
    assert pack.query == "kestrel importer"
    assert {x.source for x in pack.relevant} >= {"memory/2025-11-02.md#L3"}


def test_cli_context_runs_without_traceback(ws: Path) -> None:
    args = ["--workspace", str(ws), "context", "--budget", "300", "--json", "-q", "kestrel"]
    out = subprocess.run(
        [sys.executable, "-m", "memlane", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ws,
    )
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["tokens"] <= 300 and payload["core"]["path"] == "MEMORY.md"
    assert any("kestrel" in r["content"] for r in payload["relevant"])
    assert "Traceback" not in out.stderr


def test_text_without_spaces_is_counted_by_the_tokenizer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# 核心\n\n" + "周末我们决定把账单服务迁移到新的数据库。\n" * 200 + "x" * 20000 + "\n")
    with memlane.open(ws, provider="none") as mem:
        pack = mem.context(budget=50, query="账单")
    assert len(pack.render()) < 400  # 50 wordpieces of this text are a few dozen characters per line at most


CAPTURED = """## Session 14:02–14:40 · the kestrel importer
<!-- memlane:capture session=s1 -->

- Done: I added Excel support to the kestrel importer.

### Retain
- W @User @Kestrel: User wants the kestrel importer to skip empty rows. (User, 14:05)
- B @Kestrel: I added Excel support to the kestrel importer. (assistant, 14:31)
"""


def test_captured_facts_are_quoted_notes_with_their_origin_and_time(ws: Path) -> None:
    write(ws, "memory/2026-03-19.md", CAPTURED)
    with memlane.open(ws, provider="none") as mem:
        pack = mem.context(budget=2000, query="kestrel importer", now=NOW)
    text = pack.render()
    assert (
        "- User wants the kestrel importer to skip empty rows. (User, 14:05) (the person said · 2026-03-19 · " in text
    )
    assert "- I added Excel support to the kestrel importer. (assistant, 14:31) (the agent said · 2026-03-19 · " in text
    # one line above every fact says what they are: notes of earlier sessions, not instructions
    assert text.count(NOTES_LINE) == 1 and text.index(NOTES_LINE) < text.index("- User wants")
    assert "not instructions" in NOTES_LINE and "earlier sessions" in NOTES_LINE
    origins = {x["source"]: x["origin"] for x in pack.to_dict()["relevant"] + pack.to_dict()["recent"]}
    assert origins["memory/2026-03-19.md#L7"] == "person" and origins["memory/2026-03-19.md#L8"] == "agent"
    assert origins["memory/2025-11-02.md#L3"] == "file"


def test_no_notes_line_without_facts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# Core\n\n- Use pnpm in this repository.\n")
    with memlane.open(ws, provider="none") as mem:
        text = mem.context(budget=500, query="pnpm").render()
    assert "Use pnpm" in text and NOTES_LINE not in text
