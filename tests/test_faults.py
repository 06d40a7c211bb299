"""Faults past SIGKILL: a full disk, a damaged or missing WAL, a read-only index folder, a database held by
another program; and fuzzing of everything that parses free-form input."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlane
from conftest import FakeEmbedder, another_writer, immutable, write
from memlane.index.chunking import chunk_markdown
from memlane.index.sessions import render
from memlane.text.keywords import match_expression

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")

CHILD = textwrap.dedent(
    """
    import json, resource, signal, sys
    sys.path.insert(0, {tests!r})
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
    import memlane
    from conftest import FakeEmbedder
    out = {{}}
    with memlane.open({ws!r}, provider=FakeEmbedder()) as mem:
        for name, call in (("write", lambda: mem.write("x" * 5000)), ("sync", lambda: mem.sync())):
            try:
                call()
                out[name] = "ok"
            except memlane.MemlaneError as exc:
                out[name] = type(exc).__name__ + ": " + str(exc)
    print(json.dumps(out))
    """
)


@pytest.mark.sqlite_only
def test_a_full_disk_is_a_clear_error_and_loses_nothing(workspace: Path, memlane_home: Path) -> None:
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:
        mem.sync()
        db = mem.store.path
    before = {p: p.read_bytes() for p in workspace.rglob("*.md")}
    write(
        workspace, "memory/2026-03-01.md", "\n".join(f"- a long new line number {i} about herons" for i in range(3000))
    )
    limit = db.stat().st_size + 1000  # no room in the index for the new chunks ...
    today = workspace / "memory" / f"{dt.date.today().isoformat()}.md"
    write(workspace, today.relative_to(workspace).as_posix(), "- " + "y" * (limit - 200) + "\n")  # ... nor in the log
    new_files = {p: p.read_bytes() for p in (workspace / "memory/2026-03-01.md", today)}
    code = CHILD.format(tests=str(Path(__file__).parent), limit=limit, ws=str(workspace))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "MEMLANE_HOME": str(memlane_home)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "nothing was written" in out["write"] and "disk full" in out["write"]
    assert out["sync"].startswith("IndexError_: the index could not be written (")
    assert "disk" in out["sync"] and "the previous index is unchanged" in out["sync"]
    assert {p: p.read_bytes() for p in before} == before
    assert {p: p.read_bytes() for p in new_files} == new_files  # the note was not appended in part
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:  # the old index answers, then catches up
        assert mem.search("Kubernetes staging", min_score=0).results[0].path == "memory/2026-01-05.md"
        mem.sync()
        assert mem.search("herons", min_score=0).results[0].path == "memory/2026-03-01.md"


def _killed_with_wal(workspace: Path, home: Path) -> Path:
    """An index whose last sync is only in the WAL: the writing process was SIGKILLed before any checkpoint."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import memlane
        from conftest import FakeEmbedder
        mem = memlane.open({str(workspace)!r}, provider=FakeEmbedder())
        mem.sync()
        open({str(workspace / "memory" / "2026-04-01.md")!r}, "w").write("- the wal only heron\\n")
        mem.sync()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], env={**os.environ, "MEMLANE_HOME": str(home)}, timeout=300)
    assert proc.returncode == -signal.SIGKILL
    db = home / "memory" / "main.sqlite"
    assert Path(f"{db}-wal").stat().st_size > 0
    return db


def _same_as_a_clean_rebuild(workspace: Path, home: Path) -> None:
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:
        mem.sync()
        got = sorted(
            (c.path, c.start_line, c.text) for c in mem.store.chunks_by_seq(mem.store.live_seqs().tolist()).values()
        )
    with memlane.open(workspace, provider=FakeEmbedder(), store={"path": str(home / "clean.sqlite")}) as clean:
        clean.sync()
        want = sorted(
            (c.path, c.start_line, c.text) for c in clean.store.chunks_by_seq(clean.store.live_seqs().tolist()).values()
        )
    assert got == want


@pytest.mark.sqlite_only
@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_a_damaged_or_missing_wal_is_survived(workspace: Path, memlane_home: Path, damage: str) -> None:
    db = _killed_with_wal(workspace, memlane_home)
    wal = Path(f"{db}-wal")
    if damage == "truncated":
        with open(wal, "r+b") as fh:
            fh.truncate(wal.stat().st_size // 2)
    else:
        wal.unlink()
        Path(f"{db}-shm").unlink(missing_ok=True)
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:  # opens, answers (maybe from before the kill)
        assert mem.store.recovered is None
        assert mem.search("Kubernetes", min_score=0).results
    _same_as_a_clean_rebuild(workspace, memlane_home)


@pytest.mark.sqlite_only
def test_a_read_only_index_folder_still_answers_and_says_why_it_cannot_update(
    workspace: Path, memlane_home: Path
) -> None:
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:
        mem.sync()
    folder = memlane_home / "memory"
    with immutable(folder):
        write(workspace, "memory/2026-05-01.md", "- the read-only heron\n")
        with memlane.open(workspace, provider=FakeEmbedder()) as mem:
            resp = mem.search("Kubernetes staging", min_score=0)
            assert resp.results[0].path == "memory/2026-01-05.md" and resp.stale
            assert any("cannot be updated" in n and "refuses writes" in n for n in resp.notes)
            with pytest.raises(memlane.IndexError_, match="cannot be updated"):
                mem.sync()
            out = mem.write("still written to the workspace")
            assert out["indexed"] is False and "cannot be updated" in out["note"]
        assert sorted(p.name for p in folder.iterdir()) == ["main.sqlite"]  # nothing moved aside, nothing made
    with memlane.open(workspace, provider=FakeEmbedder()) as mem:  # writable again: it catches up
        mem.sync()
        assert mem.search("read-only heron", min_score=0).results[0].path == "memory/2026-05-01.md"


def test_an_index_held_by_another_program_is_a_clear_error_and_reads_go_on(workspace: Path) -> None:
    with memlane.open(workspace, provider=FakeEmbedder(), store={"busyTimeoutMs": 300}) as mem:
        mem.sync()
        with another_writer(mem):  # another program holds the write lock
            write(workspace, "memory/2026-06-01.md", "- blocked heron\n")
            with pytest.raises(memlane.IndexError_, match=r"another program holds the index for more than 0\.3 s"):
                mem.sync()
            assert mem.search("Kubernetes", min_score=0).results  # reads do not wait (WAL, or the server)
        mem.sync()
        assert mem.search("blocked heron", min_score=0).results[0].path == "memory/2026-06-01.md"


# -- fuzzing: no exception escapes but the documented ones

_ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=300)


_MARKDOWN_LINES = st.sampled_from(["# h", "```", "~~~", "## Retain", "- W @A: x", ""])


@pytest.mark.no_store
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_ANY_TEXT, _MARKDOWN_LINES), max_size=40), st.integers(8, 120))
def test_fuzz_the_chunker(lines: list[str], tokens: int) -> None:
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens, tokens // 5)
    count = len(text.splitlines())
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= max(count, 1) and c.text.strip()


@pytest.mark.no_store
@settings(max_examples=300, deadline=None)
@given(_ANY_TEXT)
def test_fuzz_the_query_parsers(query: str) -> None:
    from memlane.text.timeparse import parse_bound, query_time

    expression = match_expression(query)
    assert expression is None or expression.strip()
    query_time(query, dt.date(2026, 1, 1))
    with contextlib.suppress(ValueError):  # the documented error for an unreadable bound
        parse_bound(query, dt.date(2026, 1, 1))


def test_fuzzed_queries_reach_sqlite_without_error(workspace: Path) -> None:
    with memlane.open(workspace, provider="none") as mem:
        mem.sync()

        @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(_ANY_TEXT.filter(lambda q: q.strip()))
        def run(query: str) -> None:
            mem.search(query, min_score=0)
            mem.recall(query)

        run()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
_CONFIG = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.fixed_dictionaries(
            {},
            optional={
                "defaults": st.dictionaries(
                    st.sampled_from(["memorySearch", "core", "reflect", "backup", "llm", "mcp", "workspace", "x"]),
                    _JSON,
                    max_size=3,
                ),
                "list": st.lists(st.dictionaries(st.sampled_from(["id", "memorySearch", "x"]), _JSON), max_size=2),
            },
        ),
        "models": _JSON,
    },
)


@pytest.mark.no_store
@settings(max_examples=300, deadline=None)
@given(st.one_of(_CONFIG, _JSON))
def test_fuzz_config_files(data: Any) -> None:
    with contextlib.suppress(memlane.ConfigError):  # the documented error, naming the key
        memlane.config.resolve(data if isinstance(data, dict) else {"agents": data})


@pytest.mark.no_store
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.lists(_JSON, max_size=6))
def test_fuzz_jsonl_transcripts(noise: bytes, records: list[Any]) -> None:
    data = noise + b"\n" + b"\n".join(json.dumps(r).encode() for r in records) + b"\n"
    lines, messages, bad = render(data)
    assert messages <= len(records) + data.count(b"\n") and bad >= 0
    assert all(isinstance(line, str) for line in lines)
