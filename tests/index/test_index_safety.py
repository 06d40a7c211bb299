"""The index is never harmed by the tools that look after it: a graph of another index is never trusted, a
graph that cannot be saved is reported, `doctor` changes nothing, a healthy index that is only locked or
read-only is never moved aside, and a PostgreSQL password is never printed."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, immutable, write
from memlane.report.doctor import Check
from memlane.search.ann import AnnVectors
from memlane.store import SQLiteStore

pytestmark = pytest.mark.sqlite_only

WORDS = [f"w{i}" for i in range(400)]
FILES = 150  # one chunk each: a rebuilt index numbers its chunks 1..FILES again


def _random_workspace(ws: Path, seed: int) -> None:
    """FILES memory files of one chunk each, random words: each chunk's vector is unlike its neighbours'."""
    rng = random.Random(seed)
    for i in range(FILES):
        write(ws, f"memory/note-{i:03d}.md", "- " + " ".join(rng.sample(WORDS, 12)) + "\n")


# an int8 graph of 64-dim bag-of-words vectors may rank a near-twin first now and then (29/30 seen on one
# machine); a graph of another index finds 2 of 30
SELF_HITS = 27


def _self_hits(mem: memlane.Memory, sample: int = 30) -> int:
    """How many of ``sample`` chunks the vector leg finds first when asked with their own stored vector."""
    ann = mem._vector_index()
    assert isinstance(ann, AnnVectors)
    seqs = mem.store.live_seqs()[:: max(1, FILES // sample)][:sample]
    found, matrix = mem.store.vectors_for(ann.key, seqs, ann.dims)
    assert len(found) == sample
    return sum(ann.scores(vec, 1).order[:1] == [int(seq)] for seq, vec in zip(found, matrix, strict=True))


def _graph_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.glob(db.name + ".usearch*"))


# -- 1. a graph is trusted only by the index it was built from


def test_a_graph_is_not_trusted_by_an_index_rebuilt_in_place(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _random_workspace(ws, seed=1)
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        assert _self_hits(mem) >= SELF_HITS
        db = mem.store.path
    assert Path(f"{db}.usearch.json").is_file()
    for suffix in ("", "-wal", "-shm"):  # the user deletes the index to have it rebuilt; the graph stays
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    _random_workspace(ws, seed=2)  # other text under the same chunk numbers
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        assert mem.store.generation()[0] == 1  # the same epoch as the graph's: only the identity tells them apart
        assert _self_hits(mem) >= SELF_HITS


def test_a_broken_index_moved_aside_takes_its_graph_with_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _random_workspace(ws, seed=3)
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        mem.search("w1 w2")
        db = mem.store.path
        mem.store.checkpoint()
    assert _graph_files(db) == [f"{db.name}.usearch", f"{db.name}.usearch.json", f"{db.name}.usearch.npy"]
    db.write_bytes(b"this is not a database" * 100)
    store = SQLiteStore(db)
    try:
        assert "moved aside" in (store.recovered or "")
        assert _graph_files(db) == []  # a cache of the index that was moved aside: gone with it
    finally:
        store.close()
    _random_workspace(ws, seed=4)
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        assert _self_hits(mem) >= SELF_HITS


# -- 2. a graph that cannot be saved says so


@pytest.mark.parametrize("blocker", [".usearch", ".usearch.tmp"])
def test_a_graph_that_cannot_be_saved_is_logged_and_shown_in_status(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, blocker: str
) -> None:
    ws = tmp_path / "ws"
    _random_workspace(ws, seed=5)
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        Path(f"{mem.store.path}{blocker}").mkdir()  # nothing can be written where the graph goes
        with caplog.at_level(logging.WARNING, logger="memlane"):
            assert mem.search("w1 w2", min_score=0).results  # the search itself goes on
        assert any("graph" in r.getMessage() and "could not be saved" in r.getMessage() for r in caplog.records)
        vector = mem.status()["vector"]
        assert "could not be saved" in vector["annSaveError"], vector
        assert not Path(f"{mem.store.path}.usearch.json").exists()  # never loaded half-written


# -- 3. doctor reads only


def _doctor(mem: memlane.Memory) -> dict[str, Check]:
    return {c.name: c for c in mem.doctor()}


def _index_folder(memlane_home: Path) -> list[str]:
    folder = memlane_home / "memory"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_doctor_creates_no_index(workspace: Path, fake: FakeEmbedder, memlane_home: Path) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        checks = _doctor(mem)
    assert _index_folder(memlane_home) == []
    index = checks["index file"]
    assert not index.ok and "no index" in index.detail and index.fix == "memlane index"
    assert checks["leftovers"].ok and "backup" in checks


def test_doctor_leaves_a_corrupt_index_as_it_is(workspace: Path, fake: FakeEmbedder, memlane_home: Path) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        db = mem.store.path
    garbage = b"this is not a database" * 100
    db.write_bytes(garbage)
    files = _index_folder(memlane_home)
    with memlane.open(workspace, provider=fake) as mem:
        checks = _doctor(mem)
    assert db.read_bytes() == garbage and _index_folder(memlane_home) == files  # nothing moved, nothing made
    index = checks["index file"]
    assert not index.ok and "unreadable" in index.detail and index.fix == "memlane index"


def test_doctor_does_not_migrate_an_old_index(workspace: Path, fake: FakeEmbedder, memlane_home: Path) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        db = mem.store.path
    conn = sqlite3.connect(db)  # what memlane wrote before the user-text index: schema 3
    conn.execute("DROP TABLE chunks_said_fts")
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    files = _index_folder(memlane_home)
    with memlane.open(workspace, provider=fake) as mem:
        checks = _doctor(mem)
    assert db.read_bytes() == before and _index_folder(memlane_home) == files
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
    conn.close()
    index = checks["index file"]
    assert not index.ok and "schema 3" in index.detail and index.fix == "memlane index"


def test_doctor_on_a_healthy_index_reports_it_and_writes_nothing(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        db = mem.store.path
    before = db.read_bytes()
    with memlane.open(workspace, provider=fake) as mem:
        checks = _doctor(mem)
    assert all(checks[n].ok for n in ("index file", "integrity", "settings", "files")), checks
    assert db.read_bytes() == before
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


# -- 4. only a corrupt index is moved aside


def _aside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.glob(db.name + ".broken-*"))


def _index(workspace: Path, fake: FakeEmbedder) -> Path:
    with memlane.open(workspace, provider=fake) as mem:
        mem.sync()
        mem.store.checkpoint()
        return mem.store.path


def test_a_locked_index_is_a_clear_error_and_stays_where_it_is(workspace: Path, fake: FakeEmbedder) -> None:
    db = _index(workspace, fake)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")  # another program that keeps the file to itself
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
    try:
        with pytest.raises(memlane.IndexError_, match="another program holds the index") as err:
            SQLiteStore(db, busy_timeout_ms=200)
        assert str(db) in str(err.value)
    finally:
        other.rollback()
        other.close()
    assert db.is_file() and _aside(db) == []
    store = SQLiteStore(db)  # free again: the same index, nothing to rebuild
    try:
        assert store.recovered is None and store.counts()["files"] == 3
    finally:
        store.close()


def test_a_read_only_index_is_a_clear_error_and_stays_where_it_is(workspace: Path, fake: FakeEmbedder) -> None:
    db = _index(workspace, fake)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=DELETE")  # a copy made by another tool: switching it to WAL is a write
    conn.close()
    before = db.read_bytes()
    with immutable(db, 0o444):
        with pytest.raises(memlane.IndexError_, match="read-only") as err:
            SQLiteStore(db, busy_timeout_ms=200)
        assert "unreadable" not in str(err.value)
    assert db.read_bytes() == before and _aside(db) == []


def test_a_garbage_index_is_still_moved_aside(workspace: Path, fake: FakeEmbedder) -> None:
    db = _index(workspace, fake)
    db.write_bytes(b"\x00garbage" * 1000)
    store = SQLiteStore(db)
    try:
        assert "moved aside" in (store.recovered or "") and store.counts()["files"] == 0
    finally:
        store.close()
    assert [n for n in _aside(db) if not n.endswith(("-wal", "-shm"))]


# -- 5. a PostgreSQL password is never printed

DSNS = [
    ("host=db.example user=bob password=s3cretpw dbname=mem", ["db.example", "bob", "mem"]),
    ("host=db.example password = 'pa ss\\'s3cretpw' dbname=mem", ["db.example", "mem"]),
    ("postgresql://bob@db.example/mem?password=s3cretpw&sslmode=require", ["bob", "db.example", "sslmode=require"]),
    ("postgresql://bob:s3cretpw@db.example:5433/mem", ["bob", "db.example", "5433", "mem"]),
    ("postgres://bob:s3cretpw@h1:5432,h2:5433/mem", ["bob", "h1", "h2", "mem"]),
    ("postgresql://bob:s3cr%40tpw@db.example/mem", ["bob", "db.example"]),
    ("host=db.example sslpassword=s3cretpw pasword=s3cretpw2", ["db.example"]),  # a misspelt one too
]


@pytest.mark.parametrize("with_psycopg", [True, False])
@pytest.mark.parametrize(("dsn", "kept"), DSNS)
def test_redact_removes_the_password_of_every_form(
    dsn: str, kept: list[str], with_psycopg: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlane.store.postgres import dsn as printable

    if not with_psycopg:
        monkeypatch.setattr(printable, "psycopg", None)  # the fallback parser, as without the extra
    shown = printable.redact(dsn)
    assert "s3cr" not in shown and "***" in shown, shown
    assert all(k in shown for k in kept), shown


def test_redact_leaves_a_dsn_without_password_readable() -> None:
    from memlane.store.postgres import redact

    assert "db.example" in redact("host=db.example dbname=mem") and "***" not in redact("host=db.example dbname=mem")
    assert redact("postgresql://bob@db.example/mem") == "postgresql://bob@db.example/mem"


@pytest.mark.parametrize(
    "dsn",
    [
        "host=127.0.0.1 port=1 user=bob password=s3cretpw dbname=mem connect_timeout=2",
        "postgresql://bob:s3cretpw@127.0.0.1:1/mem?connect_timeout=2",
        "postgresql://bob@127.0.0.1:1/mem?password=s3cretpw&connect_timeout=2",
        "host=127.0.0.1 port=1 password=s3cretpw sslmode=bogus",
    ],
)
def test_a_failed_connect_never_prints_the_password(dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("psycopg")
    from memlane.store.postgres import PostgresStore, connection

    monkeypatch.setattr(connection, "CONNECT_RETRIES", 1)
    with pytest.raises(memlane.IndexError_, match="cannot connect to PostgreSQL") as err:
        PostgresStore(dsn, "main")
    assert "s3cr" not in str(err.value) and "127.0.0.1" in str(err.value)


def test_doctor_on_postgres_creates_nothing_and_reads_the_index(
    workspace: Path, fake: FakeEmbedder, pg_url: str
) -> None:
    import psycopg

    from memlane.report.doctor import diagnose_read_only

    store = {"driver": "postgres", "url": pg_url, "schema": "doctor_ro"}
    with memlane.open(workspace, provider=fake, store=store) as mem:
        checks = {c.name: c for c in diagnose_read_only(mem.config, mem.workspace, mem.index.fingerprint())}
    assert not checks["index file"].ok and checks["index file"].fix == "memlane index"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'doctor_ro'").fetchone() is None
    with memlane.open(workspace, provider=fake, store=store) as mem:
        mem.sync()
        checks = {c.name: c for c in diagnose_read_only(mem.config, mem.workspace, mem.index.fingerprint())}
    assert all(checks[n].ok for n in ("index file", "integrity", "settings", "files")), checks


def test_the_doctor_command_leaves_an_old_index_as_it_is(workspace: Path, fake: FakeEmbedder, tmp_path: Path) -> None:
    """The real entry point: `memlane doctor` on an index of schema 3 reports it and migrates nothing."""
    import sys

    with memlane.open(workspace, provider="none") as mem:
        mem.sync()
        db = mem.store.path
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE chunks_said_fts")
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}))
    proc = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(workspace), "--config", str(config), "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    index = next(c for c in json.loads(proc.stdout)["checks"] if c["name"] == "index file")
    assert not index["ok"] and "schema 3" in index["detail"]
    assert db.read_bytes() == before
