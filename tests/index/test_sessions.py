"""Session transcripts as a memory source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.store import StoredChunk

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")


def msg(role: str, content: Any) -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": content}}) + "\n"


def session_chunks(mem: memlane.Memory) -> list[StoredChunk]:
    """The transcripts' chunks in the index, in the order they were added (public store reads only)."""
    chunks = mem.store.chunks_by_seq(mem.store.live_seqs().tolist())
    return [chunks[s] for s in sorted(chunks) if chunks[s].source == "sessions"]


def session_cfg(tmp_path: Path, **sync: Any) -> dict[str, Any]:
    return {
        "agents": {
            "defaults": {
                "memorySearch": {
                    "sources": ["memory", "sessions"],
                    "experimental": {"sessionMemory": True},
                    "sessions": {"dir": str(tmp_path / "sessions")},
                    "sync": {"sessions": {"deltaMessages": 50, "deltaBytes": 100_000, **sync}},
                }
            }
        }
    }


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "s1.jsonl"
    path.parent.mkdir()
    path.write_text(
        json.dumps({"type": "session", "id": "s1"})
        + "\n"
        + msg("user", "Where should the team offsite be?")
        + json.dumps({"type": "tool_result", "content": "ignored tool output"})
        + "\n{not json\n"
        + msg("assistant", [{"type": "text", "text": "Lisbon fits the budget."}, {"type": "image"}])
    )
    return path


def test_transcripts_are_indexed_and_readable_by_line(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, config=session_cfg(tmp_path), provider=fake) as mem:
        report = mem.sync()
        assert report.sessions_indexed == 1 and any("unreadable" in n for n in report.notes)
        hit = next(r for r in mem.search("Lisbon budget", min_score=0).results if r.source == "sessions")
        assert hit.path == "sessions/s1.jsonl"
        text = mem.get(hit.path, from_line=hit.start_line, lines=hit.end_line - hit.start_line + 1)
        assert "Assistant: Lisbon fits the budget." in text and "User: Where should" in text
        assert "ignored tool output" not in mem.get(hit.path)
        # targets that exist, one step outside the sessions directory: refused all the same
        (tmp_path / "secret.jsonl").write_text('{"role": "user", "content": "the vault password"}\n')
        (tmp_path / "secret.md").write_text("the vault password\n")
        for path in ("sessions/../secret.jsonl", "sessions/../secret.md", "sessions/..\\secret.jsonl"):
            payload = memlane.run_tool(mem, "memory_get", {"path": path})
            assert "not a session transcript path" in payload["error"] and "vault" not in str(payload), path


def test_appends_are_indexed_incrementally_past_the_delta(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, config=session_cfg(tmp_path, deltaMessages=3), provider=fake) as mem:
        mem.sync()
        rows = lambda: [(c.seq, c.start_line, c.end_line) for c in session_chunks(mem)]  # noqa: E731
        before = rows()
        with transcript.open("a") as fh:
            fh.write(msg("user", "And the hotel?") + msg("assistant", "The Alfama guesthouse."))
        assert mem.sync().sessions_indexed == 0  # two messages: below deltaMessages
        with transcript.open("a") as fh:
            fh.write(msg("user", "Book it for March.") + '{"type": "message", "message": {"role": "us')
        report = mem.sync()
        assert report.sessions_indexed == 1
        after = rows()
        assert after[: len(before)] == before  # earlier chunks untouched: only the tail was chunked
        assert after[-1][1] > before[-1][2]  # new chunks continue the line numbering
        assert "Alfama" in mem.get("sessions/s1.jsonl") and 'role": "us' not in mem.get("sessions/s1.jsonl")
        with transcript.open("a") as fh:  # the half-written line completes
            fh.write('er", "content": "Thanks!"}}\n')
        assert mem.sync(all_sessions=True).sessions_indexed == 1
        assert mem.get("sessions/s1.jsonl").rstrip().endswith("User: Thanks!")


def test_a_rewritten_transcript_is_reindexed_from_scratch(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, config=session_cfg(tmp_path), provider=fake) as mem:
        mem.sync()
        transcript.write_text(msg("user", "Completely new talk about kayaks."))
        mem.sync()
        texts = [c.text for c in session_chunks(mem)]
        assert len(texts) == 1 and "kayaks" in texts[0] and "Lisbon" not in texts[0]
        transcript.unlink()
        assert mem.sync().files_removed == 1


def test_sessions_need_the_experimental_flag(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    cfg = session_cfg(tmp_path)
    cfg["agents"]["defaults"]["memorySearch"]["experimental"]["sessionMemory"] = False
    with memlane.open(workspace, config=cfg, provider=fake) as mem:
        assert mem.sync().sessions_indexed == 0
        with pytest.raises(memlane.PathError, match="not a memory source"):
            mem.get("sessions/s1.jsonl")


def test_search_does_not_wait_for_session_indexing(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, config=session_cfg(tmp_path), provider=fake) as mem:
        first = mem.search("PostgreSQL")  # builds the memory files' index only
        assert first.results
        assert mem.wait_idle(30)  # transcripts were indexed in the background
        assert any(r.source == "sessions" for r in mem.search("Lisbon budget", min_score=0).results)


def test_a_growing_transcript_does_not_make_searches_stale(
    tmp_path: Path, workspace: Path, transcript: Path, fake: FakeEmbedder
) -> None:
    with memlane.open(workspace, config=session_cfg(tmp_path), provider=fake) as mem:
        mem.sync()
        with transcript.open("a") as fh:
            fh.write(msg("user", "one more message"))
        resp = mem.search("PostgreSQL")
        assert not resp.stale and resp.results
        assert mem.wait_idle(30)  # a background pass looked at it; below the delta nothing is indexed yet
        assert mem.status()["background"]["syncs"] == 1
        indexed = [c.text for c in session_chunks(mem)]
        assert not any("one more message" in t for t in indexed)
