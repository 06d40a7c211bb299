"""Capture (issue 25): turns -> a session section in the daily log, once, without secrets or narration."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

import memlane
from conftest import FakeEmbedder, write
from memlane.capture.section import SessionPart, merge
from memlane.errors import MemlaneError
from memlane.facts.retain import parse_retain
from memlane.surface.tools import run_tool

NOW = dt.datetime(2026, 5, 1, 18, 0)


def _turn(role: str, content: str, hh: int, mm: int, day: int = 1, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": content, "timestamp": f"2026-05-{day:02d}T{hh:02d}:{mm:02d}:00", **extra}


TRIP = [
    _turn("user", "I'm moving to Porto in May with my sister Ana. I love the food there.", 14, 2),
    _turn("assistant", "Let me check the flights. I'll look into it. I booked the flight for May 3.", 14, 5),
    _turn("assistant", "The capital of Portugal is Braga, by the way.", 14, 6),
    _turn("user", "No, it's Lisbon, not Porto. Please remember that I prefer window seats.", 14, 7),
    _turn("user", "Let's go with the morning flight.", 14, 9),
]


def _open(ws: Path, **settings: Any) -> memlane.Memory:
    ws.mkdir(exist_ok=True)
    return memlane.open(ws, provider=FakeEmbedder(), **settings)


def _log(ws: Path, day: str = "2026-05-01") -> str:
    return (ws / "memory" / f"{day}.md").read_text()


def test_a_conversation_becomes_a_session_section_with_a_digest_and_retain_bullets(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with _open(ws) as mem:
        report = mem.capture(TRIP, session="trip-1", now=NOW)
        text = _log(ws)
        assert text.startswith("## Session 14:02–14:09 · I'm moving to Porto in May with my…\n")
        assert "<!-- memlane:capture session=trip-1 -->" in text
        facts, problems = parse_retain(text)
        assert problems == []
        contents = [f.content for f in facts]
        # the correction wins: Lisbon, never Porto; whose words and when, on every bullet
        # the person's words as they wrote them, the speaker named (issue 42: fidelity)
        assert any("User said: I'm moving to Lisbon in May with my sister Ana." in c for c in contents), contents
        assert not any("Porto" in c for c in contents)
        assert all(
            c.endswith(("(User, 14:02)", "(User, 14:07)", "(User, 14:09)", "(assistant, 14:05)")) for c in contents
        )
        # the assistant's own work is its experience; its claim about the world and its narration are not kept
        assert any(f.kind == "experience" and f.content.startswith("I booked the flight") for f in facts)
        assert "Braga" not in text and "Let me check" not in text and "I'll look" not in text
        assert "- Decided: Let's go with the morning flight." in text
        assert "- Remember: Please remember that I prefer window seats." in text
        assert report.facts_written == len(facts) and report.turns_read == 5 and report.digest_lines >= 2
        assert report.to_dict()["written"][0]["path"] == "memory/2026-05-01.md"
        hits = mem.recall("Where is the user moving?", now=NOW).facts
        assert hits and "Lisbon" in hits[0].content and hits[0].source.startswith("memory/2026-05-01.md#L")


def test_capturing_again_writes_nothing_twice(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with _open(ws) as mem:
        mem.capture(TRIP[:3], session="s", now=NOW)
        mem.capture(TRIP[2:], session="s", now=NOW)  # overlapping batches
        once = _log(ws)
        # the correction came a batch after the fact: the earlier bullet is rewritten, not kept beside it
        retained = once.split("### Retain")[1]
        assert "moving to Lisbon" in retained and "Porto" not in retained, once
        again = mem.capture(TRIP, session="s", now=NOW)  # the hook fired twice
        assert again.turns_seen_before == 5 and again.facts_written == 0 and _log(ws) == once
        # a capture killed after its Markdown but before its state: the log's own bullets stop a second copy
        (mem.sessions_dir / "capture.json").unlink()
        lost = mem.capture(TRIP, session="s", now=NOW)
        assert lost.facts_written == 0 and lost.digest_lines == 0 and _log(ws) == once
    assert once.count("## Session") == 1 and once.count("### Retain") == 1


def test_a_later_capture_extends_its_section_and_a_new_session_gets_its_own(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with _open(ws) as mem:
        mem.capture(TRIP[:1], session="a", now=NOW)
        mem.capture([_turn("user", "I adopted a cat named Miso yesterday.", 15, 30)], session="a", now=NOW)
        mem.capture([_turn("user", "My brother Tom works at Siemens in Munich.", 16, 0)], session="b", now=NOW)
    text = _log(ws)
    assert text.count("## Session") == 2 and "## Session 14:02–15:30 · " in text
    first, second = text.split("## Session")[1:]
    assert "Miso" in first and "Siemens" not in first and "Siemens" in second
    assert "(2026-04-30)" in first  # "yesterday" is written as the date it means


def test_each_turn_goes_to_the_log_of_its_own_day(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    turns = [
        _turn("user", "I finished the draft of the grant proposal tonight.", 23, 50, day=1),
        _turn("user", "I submitted the grant proposal to the foundation this morning.", 9, 0, day=2),
    ]
    with _open(ws) as mem:
        report = mem.capture(turns, session="late", now=NOW)
    assert {s["path"] for s in report.sections} == {"memory/2026-05-01.md", "memory/2026-05-02.md"}
    assert "draft" in _log(ws) and "submitted" in _log(ws, "2026-05-02")


def test_facts_memory_already_holds_are_restatements_not_new_bullets(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2026-04-20.md", "# 2026-04-20\n\n## Retain\n- W @User: User said: I adopted a cat named Miso.\n")
    with _open(ws) as mem:
        mem.sync()
        report = mem.capture([_turn("user", "I adopted a cat named Miso.", 10, 0)], session="x", now=NOW)
    assert report.facts_written == 0 and report.skipped_as_known == 1
    assert report.restated[0]["known"] == "memory/2026-04-20.md#L4"
    assert not (ws / "memory" / "2026-05-01.md").exists()


def test_a_near_duplicate_about_the_same_entity_is_a_restatement_with_the_real_model(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2026-04-20.md", "# 2026-04-20\n\n## Retain\n- W @Dana: Dana adopted a cat named Miso.\n")
    turns = [
        _turn("user", "Dana adopted a little cat called Miso.", 10, 0, name="Kim"),  # the same fact, reworded
        _turn("user", "Dana sold her old car to a neighbour last week.", 10, 1, name="Kim"),  # another fact
    ]
    with memlane.open(ws) as mem:  # the bundled model: what the threshold was measured with
        mem.sync()
        report = mem.capture(turns, session="x", now=NOW)
    assert report.skipped_as_known == 1 and report.facts_written == 1, report.to_dict()
    bullets = _log(ws).split("### Retain")[1]
    assert "sold" in bullets and "little cat" not in bullets


def test_secrets_and_excluded_turns_never_reach_a_memory_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    key = "sk-proj-" + "Ab3x" * 10
    turns = [
        _turn("user", f"I set the deploy key for Orion to {key} yesterday.", 10, 0),
        _turn("user", "I moved the Orion database to postgres://admin:Hunter2Secret@db.example.com/orion.", 10, 1),
        _turn("user", "PRIVATE: I'm interviewing at Globex next week.", 10, 2),
    ]
    with _open(ws, config={"agents": {"defaults": {"capture": {"exclude": ["^PRIVATE:"]}}}}) as mem:
        report = mem.capture(turns, session="x", now=NOW)
    text = _log(ws)
    assert key not in text and "Hunter2Secret" not in text and "Globex" not in text
    assert report.secrets_redacted >= 2 and report.turns_excluded == 1
    assert "Orion" in text  # the rest of the turn is still captured


@pytest.mark.parametrize("access", ["ro", "none"])
def test_capture_is_refused_unless_the_workspace_is_writable(tmp_path: Path, access: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = {"agents": {"defaults": {"workspaceAccess": access, "memorySearch": {"provider": "none"}}}}
    with memlane.open(ws, config=cfg) as mem, pytest.raises(MemlaneError, match=r"workspace|disabled"):
        mem.capture(TRIP, session="s", now=NOW)
    assert not (ws / "memory").exists()


def test_a_log_that_ends_inside_an_open_fence_is_left_alone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    before = "# 2026-05-01\n\n```python\nprint('unfinished')\n"
    write(ws, "memory/2026-05-01.md", before)
    with _open(ws) as mem, pytest.raises(MemlaneError, match="open code fence"):
        mem.capture(TRIP, session="s", now=NOW)
    assert _log(ws) == before


def test_a_section_is_found_by_its_marker_and_bullets_go_under_its_retain_heading() -> None:
    part = SessionPart(
        "s1", "hello", dt.time(9, 0), dt.time(9, 5), ["Decided: use SQLite."], ["- W @A: A is here. (A, 09:00)"]
    )
    text = merge("# Day\n\nA person's note.\n", part).text
    later = SessionPart(
        "s1", "hello", dt.time(9, 30), dt.time(9, 40), ["Done: I shipped it."], ["- W @B: B came. (B, 09:30)"]
    )
    other = "\n## Notes\n\n```\n<!-- memlane:capture session=s1 -->\n```\n"  # a marker inside code is text
    merged = merge(text + other, later).text
    lines = merged.split("\n")
    assert lines[4] == "## Session 09:00–09:40 · hello"
    assert lines.index("- Done: I shipped it.") < lines.index("### Retain") < lines.index("- W @B: B came. (B, 09:30)")
    assert lines.index("- W @B: B came. (B, 09:30)") < lines.index("## Notes")
    assert merged.startswith("# Day\n\nA person's note.\n") and merged.endswith(other)


def test_the_memory_capture_tool_checks_its_arguments(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with _open(ws) as mem:
        assert "error" in run_tool(mem, "memory_capture", {"turns": "hello"})
        assert "role" in run_tool(mem, "memory_capture", {"turns": [{"content": "hi"}]})["error"]
        ok = run_tool(mem, "memory_capture", {"turns": TRIP, "session": "t"})
    assert ok["factsWritten"] >= 3 and "error" not in ok


def _generic_jsonl(turns: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(t) + "\n" for t in turns)


def test_a_transcript_is_read_incrementally_and_a_half_written_line_waits(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    log = tmp_path / "t.jsonl"
    full = _generic_jsonl(TRIP[:2])
    third = json.dumps(_turn("user", "I adopted a cat named Miso yesterday.", 15, 0))
    log.write_text(full + third[:20])  # the host is still writing the third line
    with _open(ws) as mem:
        first = mem.capture_transcript(log, "jsonl", now=NOW)
        assert first.turns_read == 2 and "Miso" not in _log(ws)
        log.write_text(full + third + "\n")
        second = mem.capture_transcript(log, "auto", now=NOW)
        assert second.turns_read == 1 and "Miso" in _log(ws)
        once = _log(ws)
        log.write_text(_generic_jsonl(TRIP[:1]))  # rotated: shorter than what was read
        rotated = mem.capture_transcript(log, now=NOW)
        assert rotated.turns_seen_before == 1 and rotated.facts_written == 0 and _log(ws) == once
        assert any("rotated" in n for n in rotated.notes)


def _cli(ws: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    cfg = ws.parent / "cfg.json"
    cfg.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    return subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "-c", str(cfg), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def test_the_capture_command_reads_a_file_or_stdin_and_reports(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "t.jsonl"
    log.write_text(_generic_jsonl(TRIP))
    out = _cli(ws, "capture", "--transcript", str(log), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["turnsRead"] == 5 and report["factsWritten"] >= 3 and "Traceback" not in out.stderr
    again = _cli(ws, "capture", "--transcript", "-", stdin=_generic_jsonl(TRIP))
    assert again.returncode == 0 and "0 written" in again.stdout, again.stdout + again.stderr
    bad = _cli(ws, "capture", "--transcript", str(tmp_path / "missing.jsonl"))
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "missing.jsonl" in bad.stderr


def test_memory_capture_through_a_real_mcp_client(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlane", "--workspace", str(ws), "mcp"], env=dict(os.environ)
    )

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["memory_capture"].annotations.read_only_hint is False
            done = await client.call_tool("memory_capture", {"turns": TRIP, "session": "mcp"})
            assert not done.is_error, done
            bad = await client.call_tool("memory_capture", {"turns": [{"role": "tool", "content": "x"}]})
            assert bad.is_error
            return dict(done.structured_content or {})

    out = asyncio.run(main())
    assert out["factsWritten"] >= 3 and "Lisbon" in _log(ws)


def test_a_rule_memory_already_holds_is_no_digest_line_of_a_later_session(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    rule = "Always run the linter before committing to the shared branch."
    write(ws, "memory/2026-04-20.md", f"# 2026-04-20\n\n## Retain\n- W @User: {rule}\n")
    with _open(ws) as mem:
        mem.sync()
        report = mem.capture([_turn("user", rule, 10, 0)], session="again", now=NOW)
    assert report.skipped_as_known == 1 and report.digest_lines == 0, report.to_dict()
    assert not (ws / "memory" / "2026-05-01.md").exists()


def test_the_rules_memory_already_holds_leave_their_slots_to_the_sessions_own_outcome(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    rules = [
        "Always run the linter before committing to the shared branch.",
        "Never use inline styles in the templates.",
        "Always write a test for every new endpoint.",
        "Never push directly to the main branch.",
        "Always keep the changelog up to date.",
    ]
    write(ws, "memory/2026-04-20.md", "# 2026-04-20\n\n## Retain\n" + "".join(f"- W @User: {r}\n" for r in rules))
    work = [
        _turn("user", " ".join(rules) + " Add a health check endpoint to the API.", 10, 0),
        _turn("assistant", "Added the `/health` endpoint to `app/routes.py`; it returns the build version.", 10, 2),
    ]
    with _open(ws) as mem:
        mem.sync()
        report = mem.capture(work, session="again", now=NOW)
    # the pasted rules are known and skipped; the slots they took in the budget go to what this session did
    assert report.skipped_as_known >= 1, report.to_dict()
    day = (ws / "memory" / "2026-05-01.md").read_text()
    assert "`/health` endpoint" in day, day
    assert sum(r in day for r in rules) == 0, day
