"""The capture state keeps no plain hash of a turn or of a transcript's head (issue 41): a short redacted secret
cannot be brute-forced from it. Its tags are HMACs under a per-folder key made once, 0600, outside the workspace;
a version-1 state (plain hashes) keeps working and is rewritten keyed."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import stat
from pathlib import Path
from typing import Any

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.capture import parse_turns
from memlane.capture.state import KEY_FILE, STATE_FILE, locked_state, turn_hash
from memlane.errors import MemlaneError

NOW = dt.datetime(2026, 5, 1, 18, 0)
PIN = "48" + "21"
TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": f"My PIN is {PIN}.", "timestamp": "2026-05-01T10:00:00"},
    {"role": "user", "content": "We decided to ship the API on Friday.", "timestamp": "2026-05-01T10:01:00"},
    {"role": "assistant", "content": "I ran the migration and it passed.", "timestamp": "2026-05-01T10:02:00"},
]


def _open(tmp_path: Path) -> memlane.Memory:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return memlane.open(ws, provider=FakeEmbedder())


def _state(mem: memlane.Memory) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((mem.sessions_dir / STATE_FILE).read_text())
    return data


def _brute_force(stored: set[str]) -> list[str]:
    """Every 4-digit PIN whose turn, hashed as the state once did (sha256, unkeyed), is in ``stored``."""
    found = []
    for n in range(10_000):
        guess = dict(TURNS[0], content=f"My PIN is {n:04d}.")
        if turn_hash(parse_turns([guess])[0]) in stored:
            found.append(f"{n:04d}")
    return found


def test_a_short_secret_cannot_be_brute_forced_from_the_state(tmp_path: Path) -> None:
    with _open(tmp_path) as mem:
        mem.capture(TURNS, session="s", now=NOW)
        data = _state(mem)
        stored = {h for entry in data["sessions"].values() for h in entry["turns"]}
    assert _brute_force(stored) == []  # a plain sha256 gave the PIN back in a tenth of a second
    assert data["version"] == 2 and len(stored) == len(TURNS)
    plain = {turn_hash(t) for t in parse_turns(TURNS)}
    assert not plain & stored


def test_the_key_is_made_once_0600_outside_the_workspace_and_the_tags_are_its_hmacs(tmp_path: Path) -> None:
    with _open(tmp_path) as mem:
        mem.capture(TURNS[:2], session="s", now=NOW)
        key_path = mem.sessions_dir / KEY_FILE
        first = key_path.read_text()
        mem.capture(TURNS, session="s", now=NOW)  # a second capture reads the key back
        assert key_path.read_text() == first
        assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
        assert not key_path.resolve().is_relative_to(mem.workspace.resolve())
        key = bytes.fromhex(first.strip())
        tags = _state(mem)["sessions"]["s"]["turns"]
    want = [hmac.new(key, turn_hash(t).encode(), hashlib.sha256).hexdigest()[:16] for t in parse_turns(TURNS)]
    assert tags == want


def test_a_transcripts_head_is_kept_keyed(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    log.write_text("".join(json.dumps(t) + "\n" for t in TURNS))
    with _open(tmp_path) as mem:
        mem.capture_transcript(log, "jsonl")
        (mark,) = _state(mem)["files"].values()
        again = mem.capture_transcript(log, "jsonl")  # the keyed head still recognises the file
    data = log.read_bytes()
    assert mark["head"] != hashlib.sha256(data[:4096]).hexdigest()[:32]
    assert again.turns_read == 0 and again.notes == []


def _as_version_1(mem: memlane.Memory, log: Path) -> None:
    """Rewrite the state as memlane wrote it before keys: plain turn hashes, plain head hashes."""
    data = _state(mem)
    plain = [turn_hash(t) for t in parse_turns(TURNS)]
    for entry in data["sessions"].values():
        entry["turns"] = plain
    for mark in data["files"].values():
        mark["head"] = hashlib.sha256(log.read_bytes()[: mark["offset"]][:4096]).hexdigest()[:32]
    data["version"] = 1
    (mem.sessions_dir / STATE_FILE).write_text(json.dumps(data))
    (mem.sessions_dir / KEY_FILE).unlink()  # an old install had none


def test_a_version_1_state_keeps_working_and_is_rewritten_keyed(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    log.write_text("".join(json.dumps(t) + "\n" for t in TURNS))
    with _open(tmp_path) as mem:
        mem.capture_transcript(log, "jsonl")
        day = (mem.workspace / "memory" / "2026-05-01.md").read_text()
        _as_version_1(mem, log)
        old = set(_state(mem)["sessions"][next(iter(_state(mem)["sessions"]))]["turns"])
        report = mem.capture_transcript(log, "jsonl")
        assert report.turns_seen_before == len(TURNS) and report.facts_written == 0 and report.digest_lines == 0
        assert report.notes == []  # read again from its start, but it was not rewritten: nothing to say
        assert (mem.workspace / "memory" / "2026-05-01.md").read_text() == day
        data = _state(mem)
        assert data["version"] == 2
        assert not old & {h for entry in data["sessions"].values() for h in entry["turns"]}
        assert (mem.sessions_dir / KEY_FILE).exists()
        later = mem.capture_transcript(log, "jsonl")  # keyed from now on: nothing read again
    assert later.turns_read == 0


def test_a_damaged_key_is_a_clear_error(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    directory.mkdir()
    (directory / KEY_FILE).write_text("not hex\n")
    with pytest.raises(MemlaneError, match=r"capture key .* delete it"), locked_state(directory):
        pass
