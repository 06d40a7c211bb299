"""The PostgreSQL driver's own behaviour, against the real server the suite starts (conftest ``pg_url``):
migration from SQLite, many writers, server-side vector search, lost connections, config and schema
errors. Everything both drivers share is tested by the modules that run on both (``store_driver``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner

import memlane
from conftest import FakeEmbedder, write
from memlane.search.vectors import ServerVectors, VectorIndex
from memlane.store.postgres import PostgresStore
from memlane.store.postgres.text import fold, parse_match
from memlane.surface.cli import cli
from memlane.text.keywords import match_expression


def _store(url: str, schema: str | None = None, **extra: object) -> dict[str, object]:
    return {"driver": "postgres", "url": url, "schema": schema or f"s{uuid.uuid4().hex[:10]}", **extra}


def _chat_workspace(root: Path, days: int = 12) -> Path:
    ws = root / "ws"
    topics = ["violin", "kubernetes", "billing", "garden", "marathon", "sourdough", "invoice", "vienna"]
    for d in range(1, days + 1):
        lines = [f"# 2024-03-{d:02d}", ""]
        for i in range(6):
            t = topics[(d + i) % len(topics)]
            lines.append(f"- Ana: day {d} note {i} about the {t} plan and the {topics[(d * i) % len(topics)]} list")
        lines += ["", "## Retain", f"- W @Ana: Ana talked about {topics[d % len(topics)]} on day {d}."]
        write(ws, f"memory/2024-03-{d:02d}.md", "\n".join(lines) + "\n")
    write(
        ws, "MEMORY.md", "# Memory\n\n- Ana plays the violin on Tuesdays.\n- ERR_42 means the billing job timed out.\n"
    )
    return ws


def _hits(mem: memlane.Memory, query: str) -> list[tuple[str, int, int]]:
    return [(r.path, r.start_line, r.end_line) for r in mem.search(query, min_score=0).results]


# -- migration


def test_migrate_copies_the_index_and_nothing_is_embedded_again(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memlane.store.postgres.connection.MARK_EVERY", 5)  # chunk vectors marked searched in slices
    ws = _chat_workspace(tmp_path)
    fake = FakeEmbedder()
    with memlane.open(ws, provider=fake, chunking={"keys": True}) as mem:
        mem.sync()
        counts, facts = mem.store.counts(), mem.store.facts.counts()
        queries = ["violin Tuesday", "ERR_42 billing", "sourdough marathon day 7"]
        before = {q: _hits(mem, q) for q in queries}
        said = {seq for seq, _ in mem.store.keyword_search('text : "violin"', 50, said=True)}
        said_paths = {r.path for r in mem.store.chunks_by_seq(said).values()}
        recalled = [f.content for f in mem.recall("what did Ana say about sourdough", k=5).facts]
        sqlite_file = mem.store.path
    file_bytes = sqlite_file.read_bytes()
    schema = f"m{uuid.uuid4().hex[:8]}"
    runner = CliRunner()
    out = runner.invoke(cli, ["-w", str(ws), "migrate", "--to", "postgres", pg_url, "--schema", schema, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["chunks"] == counts["chunks"] and report["chunk_keys"] == counts["chunk_keys"] > 0
    assert report["facts"] == facts["facts"] > 0 and report["vectors"] == counts["cache_entries"]
    assert sqlite_file.read_bytes() == file_bytes  # the source is only read
    with psycopg.connect(pg_url) as conn:  # every chunk's vector is one the HNSW index would hold
        searched = conn.execute(f"SELECT count(*) FROM {schema}.embedding_cache WHERE searched").fetchone()
        chunk_hashes = conn.execute(f"SELECT count(DISTINCT hash) FROM {schema}.chunks").fetchone()
    assert searched == chunk_hashes

    embedder = FakeEmbedder()
    with memlane.open(ws, provider=embedder, chunking={"keys": True}, store=_store(pg_url, schema)) as mem:
        assert mem.store.driver == "postgres"
        sync = mem.sync()
        assert not sync.full_reindex and sync.embedded == 0 and sync.files_unchanged == report["files"]
        assert embedder.embedded_texts == 0  # nothing re-embedded: the cache came along
        assert mem.store.counts() == counts and mem.store.facts.counts() == facts
        copied = {seq for seq, _ in mem.store.keyword_search('text : "violin"', 50, said=True)}
        assert said_paths and {r.path for r in mem.store.chunks_by_seq(copied).values()} == said_paths  # came along
        for q in queries:  # the same best hit on both drivers (the BM25 leg is PostgreSQL's own)
            assert _hits(mem, q)[0] == before[q][0], q
        assert [f.content for f in mem.recall("what did Ana say about sourdough", k=5).facts][:1] == recalled[:1]

    again = runner.invoke(cli, ["-w", str(ws), "migrate", "--to", "postgres", pg_url, "--schema", schema])
    assert again.exit_code == 1 and "already holds an index" in again.output and "--replace" in again.output
    replaced = runner.invoke(
        cli, ["-w", str(ws), "migrate", "--to", "postgres", pg_url, "--schema", schema, "--replace"]
    )
    assert replaced.exit_code == 0 and "nothing re-embedded" in replaced.output


def test_migrate_without_a_sqlite_index_says_so(tmp_path: Path, pg_url: str) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# M\n- x\n")
    out = CliRunner().invoke(cli, ["-w", str(ws), "migrate", "--to", "postgres", pg_url])
    assert out.exit_code == 1 and "no SQLite index" in out.output and "memlane index" in out.output


# -- many writers


def test_agents_syncing_at_once_from_many_processes_never_duplicate_rows(tmp_path: Path, pg_url: str) -> None:
    """Four processes sync one agent's workspace at the same moment, each building the whole index (none
    has seen one yet, unless it opens after one landed), and two more sync other agents. The agent's
    advisory lock serialises its writes, each a whole reindex in one transaction: one copy of every chunk
    remains, never a mix."""
    store = _store(pg_url)
    ws = _chat_workspace(tmp_path, days=20)
    other = _chat_workspace(tmp_path / "o", days=5)
    script = tmp_path / "sync.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys, json, time
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        import memlane
        from conftest import FakeEmbedder
        ws, agent, go = sys.argv[1], sys.argv[2], float(sys.argv[3])
        store = json.loads(sys.argv[4])
        with memlane.open(ws, agent=agent, provider=FakeEmbedder(), store=store) as mem:
            time.sleep(max(0.0, go - time.time()))
            report = mem.sync()
        print(json.dumps({{"chunks": report.chunks_written, "full": report.full_reindex}}))
    """)
    )
    import time

    go = time.time() + 2.0
    jobs = [(ws, "main")] * 4 + [(other, "ops"), (other, "research")]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(w), agent, str(go), json.dumps(store)], stdout=subprocess.PIPE, text=True
        )
        for w, agent in jobs
    ]
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    written = {o["chunks"] for o in outs[:4]}
    assert len(written - {0}) == 1  # each wrote all of the index or (had it opened after one landed) nothing
    n = max(written)
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        assert mem.store.counts()["chunks"] == n and not mem.sync().chunks_written
        assert mem.store.facts.counts()["facts"] == 20
    with psycopg.connect(pg_url) as conn:
        schema = store["schema"]
        dupes = conn.execute(
            f"SELECT agent, path, start_line, count(*) FROM {schema}.chunks GROUP BY 1, 2, 3, id HAVING count(*) > 1"
        ).fetchall()
        agents = conn.execute(f"SELECT agent, count(*) FROM {schema}.files GROUP BY agent ORDER BY agent").fetchall()
    assert dupes == []
    assert agents == [("main", 21), ("ops", 6), ("research", 6)]


# -- vectors searched on the server


def test_a_big_index_is_searched_by_the_servers_hnsw_index_with_the_same_results(tmp_path: Path, pg_url: str) -> None:
    ws = _chat_workspace(tmp_path, days=30)
    schema = f"h{uuid.uuid4().hex[:8]}"
    queries = ["violin plan", "kubernetes billing list", "day 17 note 3", "garden sourdough", "ERR_42"]
    with memlane.open(ws, provider=FakeEmbedder(), store=_store(pg_url, schema)) as mem:
        mem.sync()
        exact_index = mem._vector_index()
        assert isinstance(exact_index, VectorIndex)  # below annMinRows: in RAM, exact
        exact = {q: mem.search(q, min_score=0).results for q in queries}
    with memlane.open(ws, provider=FakeEmbedder(), store=_store(pg_url, schema, annMinRows=10)) as mem:
        server = mem._vector_index()
        assert isinstance(server, ServerVectors) and len(server) == mem.store.counts()["chunks"]
        for q in queries:
            got = mem.search(q, min_score=0).results
            assert [(r.path, r.start_line) for r in got] == [(r.path, r.start_line) for r in exact[q]], q
            assert np.allclose([r.score for r in got], [r.score for r in exact[q]], atol=1e-4)
        vector = mem.status()["vector"]
        assert vector["backend"].startswith("numpy exact below 10 vectors")
        graph, buffers = mem.store.hnsw_memory()
        assert 0 < graph < buffers and vector["sharedBuffersMb"] == round(buffers / 1e6, 1) and "warning" not in vector
        with pytest.MonkeyPatch.context() as patch:  # a graph bigger than the server's buffers is pointed out
            patch.setattr(mem.store, "hnsw_memory", lambda: (vector["sharedBuffersMb"] * 2e6, 128e6))
            assert "shared_buffers" in mem.status()["vector"]["warning"]
        with psycopg.connect(pg_url) as conn:
            plan = conn.execute(
                f"EXPLAIN SELECT hash FROM {schema}.embedding_cache e WHERE e.dims = 64 AND e.searched "
                f"ORDER BY e.embedding::vector(64) <=> %s::vector(64) LIMIT 5",
                (str([0.1] * 64),),
            ).fetchall()
        assert any("embedding_cache_hnsw_64" in line[0] for line in plan)


def test_the_server_scores_keys_as_their_vectors_would_be_scored_here(tmp_path: Path, pg_url: str) -> None:
    ws = _chat_workspace(tmp_path, days=3)
    schema = f"k{uuid.uuid4().hex[:8]}"
    with memlane.open(ws, provider=FakeEmbedder(), chunking={"keys": True}, store=_store(pg_url, schema)) as mem:
        mem.sync()
        store = mem.store
        assert isinstance(store, PostgresStore)
        key = mem._vector_index()
        chunks = [int(s) for s in store.live_seqs()]
        with psycopg.connect(pg_url, autocommit=True) as conn:  # one key's vector still out (a batch job)
            conn.execute(
                f"DELETE FROM {schema}.embedding_cache WHERE hash = (SELECT hash FROM {schema}.chunk_keys LIMIT 1)"
            )
        from memlane.embeddings import embedding_key

        ekey = embedding_key(mem.choice.provider)
        query = FakeEmbedder().embed_query("the violin plan")
        with psycopg.connect(pg_url) as conn:  # each key's vector, read as it is stored
            rows = conn.execute(
                f"SELECT k.chunk_seq, k.assistant, e.embedding::text FROM {schema}.chunk_keys k LEFT JOIN "
                f"{schema}.embedding_cache e ON e.agent = k.agent AND e.hash = k.hash ORDER BY k.seq"
            ).fetchall()
        owners = [r[0] for r in rows]
        embedded = [r[2] is not None for r in rows]
        matrix = np.array([json.loads(r[2]) if r[2] else [0.0] * len(query) for r in rows], dtype=np.float32)
        got = store.key_similarities(ekey, chunks, query)
        assert len(owners) > 10 and embedded.count(False) == 1
        assert got[0].tolist() == owners and got[1].tolist() == [bool(r[1]) for r in rows]
        assert got[2].tolist() == embedded
        assert np.allclose(got[3], matrix @ query, atol=1e-5)
        assert key.keys is not None and np.allclose(key.keys(chunks, query)[3], got[3])


def test_document_frequencies_are_counted_once_per_generation(tmp_path: Path, pg_url: str) -> None:
    ws = _chat_workspace(tmp_path, days=3)
    with memlane.open(ws, provider="none", store=_store(pg_url)) as mem:
        mem.sync()
        store = mem.store
        assert isinstance(store, PostgresStore)
        counted: list[str] = []
        execute = psycopg.Connection.execute

        def spy(conn: psycopg.Connection, sql: str, *args: object, **kw: object) -> object:
            counted.extend([sql] if "count(*) FROM (SELECT 1" in str(sql) else [])
            return execute(conn, sql, *args, **kw)  # type: ignore[arg-type]

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(psycopg.Connection, "execute", spy)
            first = store.term_frequencies(["violin", "garden"])
            assert len(counted) == 1
            assert store.term_frequencies(["garden", "violin"]) == first and len(counted) == 1
            hits = store.keyword_search(match_expression("violin garden"), 10)
            assert hits and len(counted) == 1  # counted to the whole index already: nothing left to count
            write(ws, "memory/2024-03-20.md", "- Ana: violin again\n")
            mem.sync()  # a new generation: counted again, and the new row is in the count
            total, again = store.term_frequencies(["violin", "garden"])
            assert len(counted) == 2 and again["violin"] == first[1]["violin"] + 1 and total == first[0] + 1


def test_the_write_that_crosses_ann_min_rows_builds_the_hnsw_index_and_marks_every_chunk_vector(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunk vectors are marked searched a slice at a time within the write; the write that brings the
    agent past annMinRows builds the index, and later writes of that dimension count nothing again."""
    monkeypatch.setattr("memlane.store.postgres.connection.MARK_EVERY", 7)
    ws = _chat_workspace(tmp_path, days=20)
    schema = f"m{uuid.uuid4().hex[:8]}"
    with memlane.open(ws, provider=FakeEmbedder(), store=_store(pg_url, schema, annMinRows=10)) as mem:
        mem.sync()
        chunks = mem.store.counts()["chunks"]
        assert chunks > 14 and isinstance(mem._vector_index(), ServerVectors)
        with psycopg.connect(pg_url) as conn:
            searched = conn.execute(f"SELECT count(*) FROM {schema}.embedding_cache WHERE searched").fetchone()
            live = conn.execute(f"SELECT count(DISTINCT hash) FROM {schema}.chunks").fetchone()
            index = conn.execute(
                "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = 'embedding_cache_hnsw_64'", (schema,)
            ).fetchone()
        assert searched == live and index is not None
        log = ws / "memory" / "2024-03-05.md"
        log.write_text(log.read_text() + "- Ana: a heron on the violin case\n")
        counted: list[str] = []
        real = mem.store._x

        def spy(sql: str, params: object = ()) -> object:
            counted.append(sql)
            return real(sql, params)  # type: ignore[arg-type]

        monkeypatch.setattr(mem.store, "_x", spy)
        mem.sync()
        assert not [q for q in counted if "GROUP BY dims" in q]  # the index exists: no count of the cache
        assert mem.search("heron violin", min_score=0).results[0].path == "memory/2024-03-05.md"


# -- lost connections


def _kill_backends(url: str, schema: str) -> int:
    """Terminate every other session connected to the server (the store's readers and writer)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
            "AND datname = current_database() AND backend_type = 'client backend'"
        ).fetchall()
    return len(rows)


def test_a_lost_connection_is_retried_for_reads_and_reported_for_writes(tmp_path: Path, pg_url: str) -> None:
    ws = _chat_workspace(tmp_path, days=3)
    store = _store(pg_url)
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        mem.sync()
        before = _hits(mem, "violin plan")
        assert _kill_backends(pg_url, str(store["schema"])) >= 1
        assert _hits(mem, "violin plan") == before  # the read reconnected and went on

        pg = mem.store
        assert isinstance(pg, PostgresStore)
        generation = pg.generation()
        with pytest.raises(memlane.IndexError_, match=r"connection to PostgreSQL failed.*rolled back"), pg.write():
            pg.set_meta({"half": "written"})
            _kill_backends(pg_url, str(store["schema"]))
            pg.set_meta({"other": "half"})
        assert pg.generation() == generation and "half" not in pg.meta()  # nothing of it landed
        write(ws, "memory/2024-03-09.md", "# d\n\n- Ana: the heron came back\n")
        assert mem.sync().files_added == 1  # the next write reconnects
        assert _hits(mem, "heron")[0][0] == "memory/2024-03-09.md"


# -- configuration and schema


def test_the_database_url_comes_from_the_config_or_the_environment(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _chat_workspace(tmp_path, days=1)
    schema = f"e{uuid.uuid4().hex[:8]}"
    with pytest.raises(memlane.ConfigError, match=r"MEMLANE_DATABASE_URL"):
        memlane.open(ws, provider=FakeEmbedder(), store={"driver": "postgres", "schema": schema}).sync()
    monkeypatch.setenv("MEMLANE_DATABASE_URL", pg_url)
    with memlane.open(ws, provider=FakeEmbedder(), store={"driver": "postgres", "schema": schema}) as mem:
        assert mem.sync().files_added == 2 and mem.store.driver == "postgres"
    with pytest.raises(memlane.ConfigError, match="lower-case SQL name"):
        memlane.open(ws, provider=FakeEmbedder(), store=_store(pg_url, "Bad-Name")).sync()


def test_an_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    ws = _chat_workspace(tmp_path, days=1)
    bad = f"postgresql://nobody:secret@/none?host={tmp_path}/nosocket"
    with pytest.raises(memlane.IndexError_, match="cannot connect to PostgreSQL") as err:
        memlane.open(ws, provider=FakeEmbedder(), store=_store(bad)).sync()
    assert "secret" not in str(err.value)  # the password is never printed


def test_a_schema_of_another_version_is_refused_and_left_alone(tmp_path: Path, pg_url: str) -> None:
    ws = _chat_workspace(tmp_path, days=1)
    store = _store(pg_url)
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        mem.sync()
        chunks = mem.store.counts()["chunks"]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"UPDATE {store['schema']}.schema_info SET version = 99")
    with pytest.raises(memlane.IndexError_, match="version 99"):
        memlane.open(ws, provider=FakeEmbedder(), store=store).sync()
    with psycopg.connect(pg_url) as conn:  # a team's database is never dropped behind its back
        assert conn.execute(f"SELECT count(*) FROM {store['schema']}.chunks").fetchone() == (chunks,)


def test_shared_star_finds_every_agent_in_the_schema(tmp_path: Path, pg_url: str) -> None:
    store = _store(pg_url)
    for agent, text in (("ops", "the zebra migration is on Friday"), ("research", "lunch survey results")):
        ws = tmp_path / agent
        write(ws, "memory/2026-01-05.md", f"# {agent}\n\n- {text}\n")
        with memlane.open(ws, agent=agent, provider=FakeEmbedder(), store=store) as mem:
            mem.sync()
    me = tmp_path / "me"
    write(me, "MEMORY.md", "# Me\n\n- nothing yet\n")
    with memlane.open(me, agent="me", provider=FakeEmbedder(), store=store, shared="*") as mem:
        mem.sync()
        hits = mem.search("zebra migration", min_score=0).results
        assert hits[0].agent == "ops" and "zebra" in hits[0].snippet
        assert {r.agent for r in mem.search("survey results lunch", min_score=0).results} >= {"research"}
        with pytest.raises(memlane.IndexError_, match="cannot be updated"):
            other = PostgresStore(pg_url, "ops", str(store["schema"]), shared=True)
            try:
                with other.write():
                    pass
            finally:
                other.close()


# -- the keyword translation


def test_keyword_expressions_translate_and_text_splits_as_fts5_does() -> None:
    terms = parse_match(match_expression('ERR_42 "quoted" café 東京に行く', ("text", "context")) or "")
    assert [t.phrase for t in terms][:3] == ["err 42", "quoted", "cafe"]  # split as unicode61 splits
    assert terms[0].columns == ("text", "context") and terms[-1].columns == ("cjk",)
    assert fold("2025-11-20 v1.31 a.b.c Crème_brûlée") == "2025 11 20 v1 31 a b c Creme brulee"
    with pytest.raises(ValueError):
        parse_match("text : x; DROP TABLE chunks")


def test_exact_tokens_match_on_postgres_as_on_sqlite(tmp_path: Path, pg_url: str) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2025-11-20.md", "# 2025-11-20\n\n- Deployed v1.31 to a.b.example; Café opened at 8.\n")
    write(ws, "MEMORY.md", "# M\n\n- The flag is ERR_42 in billing.\n")
    for store in ({}, _store(pg_url)):
        with memlane.open(ws, provider="none", store=store) as mem:
            for q, path in [("20", "memory"), ("31", "memory"), ("cafe", "memory"), ("ERR_42", "MEMORY.md")]:
                hits = mem.search(q, min_score=0).results
                assert hits and hits[0].path.startswith(path), (store.get("driver", "sqlite"), q)


def test_a_schema_from_before_the_user_text_leg_gains_it_and_is_filled_by_one_reindex(
    tmp_path: Path, pg_url: str
) -> None:
    ws = _chat_workspace(tmp_path, days=3)
    store = _store(pg_url)
    schema = store["schema"]
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        mem.sync()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what memlane wrote before: no said_* columns
        conn.execute(f"ALTER TABLE {schema}.chunks DROP COLUMN said_tsv, DROP COLUMN said_tsv_cjk")
        conn.execute(f"UPDATE {schema}.meta SET value = 'an older fingerprint' WHERE key = 'fingerprint'")
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        report = mem.sync()
        assert report.full_reindex  # the chunker version changed: every row is written again, with its said text
        assert mem.store.keyword_search('text : "violin"', 10, said=True)


# -- where a fact comes from (issue 41)

_CAPTURED = (
    "# 2025-11-29\n\n## Session 09:00–09:30 · the relay\n<!-- memlane:capture session=s1 -->\n\n### Retain\n"
    "- W @User: User wants the relay moved to Frankfurt. (User, 09:05)\n"
    "- B @warelay: I moved the relay config to Frankfurt. (assistant, 09:20)\n"
    "- W @warelay: The relay runs in Frankfurt.\n"
)


def _origins(mem: memlane.Memory) -> list[str]:
    return [f.origin for f in mem.store.facts.of_path("memory/2025-11-29.md")]


def test_a_schema_from_before_origins_gains_them_from_one_reindex(tmp_path: Path, pg_url: str) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2025-11-29.md", _CAPTURED)
    store = _store(pg_url)
    schema = store["schema"]
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        mem.sync()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what memlane wrote before: no facts.origin, facts 4
        conn.execute(f"ALTER TABLE {schema}.facts DROP COLUMN origin")
        (old,) = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = 'fingerprint'").fetchone()
        assert '"facts":5' in old
        conn.execute(
            f"UPDATE {schema}.meta SET value = %s WHERE key = 'fingerprint'", (old.replace('"facts":5', '"facts":4'),)
        )
    fresh = FakeEmbedder()
    with memlane.open(ws, provider=fresh, store=store) as mem:
        report = mem.sync()
        assert report.full_reindex and fresh.embedded_texts == 0  # the facts version moved; vectors came along
        assert _origins(mem) == ["person", "agent", "file"]
        got = {f["source"]: f["origin"] for f in mem.recall("relay Frankfurt", k=5).to_dict()["facts"]}
        assert got == {
            "memory/2025-11-29.md#L7": "person",
            "memory/2025-11-29.md#L8": "agent",
            "memory/2025-11-29.md#L9": "file",
        }


def test_migrate_copies_each_facts_origin(tmp_path: Path, pg_url: str) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2025-11-29.md", _CAPTURED)
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        mem.sync()
    schema = f"m{uuid.uuid4().hex[:8]}"
    out = CliRunner().invoke(cli, ["-w", str(ws), "migrate", "--to", "postgres", pg_url, "--schema", schema])
    assert out.exit_code == 0, out.output
    with memlane.open(ws, provider=FakeEmbedder(), store=_store(pg_url, schema)) as mem:
        assert _origins(mem) == ["person", "agent", "file"]  # copied, not derived again
        assert not mem.sync().full_reindex
