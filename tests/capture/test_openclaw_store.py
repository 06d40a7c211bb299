"""`memlane import openclaw` over OpenClaw 2026.9's SQLite session store, read from a store OpenClaw 2026.9.6
wrote itself (tests/data: a legacy JSONL session imported by `openclaw doctor --session-sqlite import`; its
long assistant message is stored as a zstd frame)."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import memlane
from memlane.capture.formats import FormatError
from memlane.capture.openclaw_store import read_store

DATA = Path(__file__).parents[1] / "data" / "openclaw-2026.9.6-agent.sqlite.gz"
SESSION = "5c1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.decompress(DATA.read_bytes()))
    return path


def test_the_store_reads_as_its_transcript_did(store: Path) -> None:
    [conv] = list(read_store(store))
    assert conv.id == SESSION and conv.title == "agent:main:main"
    assert [t.role for t in conv.turns] == ["user", "assistant", "user", "assistant"]
    assert "Step 39:" in conv.turns[1].content  # the packed (zstd) event, unpacked
    assert conv.turns[2].content.endswith("September 20. ✓") and conv.turns[0].timestamp is not None
    with sqlite3.connect(store) as db:  # OpenClaw's own row for it: no JSON, a zstd frame
        assert db.execute(
            "SELECT event_json IS NULL, length(event_zstd) > 0 FROM transcript_events WHERE seq = 2"
        ).fetchone() == (1, 1)


def test_import_from_the_state_folder_once(store: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = store.parents[3]
    legacy = state / "agents" / "other" / "sessions" / "s2.jsonl"  # an agent not yet moved to SQLite
    legacy.parent.mkdir(parents=True)
    legacy.write_text(
        json.dumps({"type": "session", "id": "s2", "timestamp": "2026-08-01T09:00:00Z"})
        + "\n"
        + json.dumps({"type": "message", "timestamp": "2026-08-01T09:00:01Z",
                      "message": {"role": "user", "content": "My dentist is Dr. Okafor in Braga."}})
        + "\n"
    )  # fmt: skip
    with memlane.open(ws, provider="none") as mem:
        items, _ = mem.import_history("openclaw", state, dry_run=True)
    assert sorted(i.name for i in items) == ["agent:main:main", "s2.jsonl"]
    out = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "import", "openclaw", str(state), "--json"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env={**os.environ},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["turnsRead"] == 5, report
    logs = "".join(p.read_text() for p in sorted((ws / "memory").glob("*.md")))
    assert "Porto" in logs and "Okafor" in logs and f"session=openclaw-{SESSION}" in logs
    again = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "import", "openclaw", str(state), "--json"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert json.loads(again.stdout)["factsWritten"] == 0  # resumes: nothing twice


def test_a_store_that_is_not_one_is_a_clear_error_and_a_damaged_event_gives_no_turn(
    store: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(FormatError, match="not an OpenClaw agent store"):
        list(read_store(other))
    ws = tmp_path / "ws"
    ws.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "import", "openclaw", str(other)],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.returncode == 1 and "not an OpenClaw agent store" in out.stderr and "Traceback" not in out.stderr
    import zstandard

    bomb = zstandard.ZstdCompressor().compress(b" " * 64_000_000)  # claims 64 MB; the row says 4,835 bytes
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA ignore_check_constraints = ON")  # the store's CHECKs call functions SQLite 3.40 lacks
        db.execute("UPDATE transcript_events SET event_zstd = ? WHERE seq = 2", (bomb,))
    [conv] = list(read_store(store))
    assert [t.role for t in conv.turns] == ["user", "user", "assistant"]  # that event alone is left out
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA ignore_check_constraints = ON")
        db.execute("UPDATE transcript_events SET event_zstd = x'00112233' WHERE seq = 2")
    assert len(next(read_store(store)).turns) == 3
