"""Remote providers against a real HTTP server speaking the OpenAI and Gemini wire protocols."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memlane
from conftest import write
from memlane.errors import ProviderError
from memlane.surface.cli import cli
from vendor_server import Fault, VendorServer

KEY = "sk-test-SECRET-0123456789"
GKEY = "gm-test-SECRET-9876543210"


@pytest.fixture
def server() -> Iterator[VendorServer]:
    srv = VendorServer().start()
    yield srv
    srv.stop()


def notes_workspace(root: Path, files: int = 3) -> Path:
    for i in range(files):
        write(root, f"memory/2026-01-0{i + 1}.md", f"# Day {i + 1}\n\nWe talked about topic{i} and the garden.\n")
    write(root, "MEMORY.md", "# Facts\n\nThe database is PostgreSQL 16.\n\nPeter likes green tea.\n")
    return root


def openai_config(server: VendorServer, **ms: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "provider": "openai",
        "remote": {
            "baseUrl": f"{server.url}/v1",
            "apiKey": KEY,
            "dimensions": 64,
            "retryBaseMs": 10,
            "batch": {"enabled": False, "pollIntervalMs": 10},
        },
    }
    for k, v in ms.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            base[k] = {**base[k], **v}
        else:
            base[k] = v
    return {"agents": {"defaults": {"memorySearch": base}}}


def gemini_config(server: VendorServer, **remote: Any) -> dict[str, Any]:
    return {
        "agents": {
            "defaults": {
                "memorySearch": {
                    "provider": "gemini",
                    "remote": {
                        "baseUrl": f"{server.url}/v1beta",
                        "apiKey": GKEY,
                        "dimensions": 48,
                        "retryBaseMs": 10,
                        "batch": {"enabled": False, "pollIntervalMs": 10},
                        **remote,
                    },
                }
            }
        }
    }


def chunk_texts(mem: memlane.Memory) -> set[str]:
    return {c.text for c in mem.store.chunks_by_seq(mem.store.live_seqs().tolist()).values()}


# -- OpenAI and compatible endpoints


def test_openai_indexes_and_searches_with_the_vendor_wire_format(tmp_path: Path, server: VendorServer) -> None:
    ws = notes_workspace(tmp_path)
    cfg = openai_config(server)
    cfg["models"] = {"providers": {"openai": {"headers": {"X-Custom": "old", "X-Org": "org-1"}}}}
    cfg["agents"]["defaults"]["memorySearch"]["remote"]["headers"] = {"X-Custom": "new"}
    with memlane.open(ws, config=cfg) as mem:
        report = mem.sync()
        assert report.embedded == len(chunk_texts(mem)) > 0
        resp = mem.search("which database do we use")
    assert resp.provider == "openai" and resp.model == "text-embedding-3-small"
    assert resp.results and resp.results[0].path == "MEMORY.md"
    reqs = [r for r in server.state.requests if r.kind == "embeddings"]
    assert reqs, "no embeddings request reached the server"
    for r in reqs:
        assert r.headers["authorization"] == f"Bearer {KEY}"
        assert r.headers["x-custom"] == "new"  # remote.headers win on conflicts ...
        assert r.headers["x-org"] == "org-1"  # ... and merge with models.providers.openai.headers
        assert r.body["model"] == "text-embedding-3-small" and r.body["dimensions"] == 64
        assert all(isinstance(t, str) and t.strip() for t in r.body["input"])
    assert "which database do we use" in server.state.texts_sent("embeddings")


def test_query_vectors_are_cached_and_unchanged_text_is_never_sent_twice(tmp_path: Path, server: VendorServer) -> None:
    ws = notes_workspace(tmp_path)
    with memlane.open(ws, config=openai_config(server)) as mem:
        mem.sync()
        first = len(server.state.texts_sent("embeddings"))
        mem.search("garden")
        mem.search("garden")
        assert len(server.state.texts_sent("embeddings")) == first + 1
        mem.sync(force=True)  # a full rebuild finds every vector in the cache
        assert len(server.state.texts_sent("embeddings")) == first + 1


def test_empty_inputs_are_never_sent(tmp_path: Path, server: VendorServer) -> None:
    with memlane.open(tmp_path, config=openai_config(server)) as mem:
        vecs = mem.choice.provider.embed_batch(["", "real words", "   "])  # type: ignore[union-attr]
    assert server.state.texts_sent("embeddings") == ["real words"]
    assert vecs.shape == (3, 64) and not vecs[0].any() and not vecs[2].any() and vecs[1].any()


def test_requests_are_split_under_the_input_limit(tmp_path: Path, server: VendorServer) -> None:
    with memlane.open(tmp_path, config=gemini_config(server)) as mem:
        provider = mem.choice.provider
        assert provider is not None
        vecs = provider.embed_batch([f"text number {i}" for i in range(250)])
    sizes = [len(r.body["requests"]) for r in server.state.requests if r.kind == "batchEmbedContents"]
    assert sizes == [100, 100, 50] and vecs.shape == (250, 48)


def test_the_key_never_shows_in_status_fingerprint_or_errors(tmp_path: Path, server: VendorServer) -> None:
    ws = notes_workspace(tmp_path)
    with memlane.open(ws, config=openai_config(server)) as mem:
        mem.sync()
        status = json.dumps(mem.status(deep=True))
        meta = json.dumps(mem.store.meta())
        server.state.faults.append(Fault("embeddings", status=401))
        with pytest.raises(ProviderError) as err:
            mem.choice.provider.embed_batch(["x"])  # type: ignore[union-attr]
    assert "401" in str(err.value)
    for text in (status, meta, str(err.value), repr(mem.choice.provider.client.endpoint)):  # type: ignore[union-attr]
        assert KEY not in text and "SECRET" not in text


def test_remote_settings_win_over_models_providers(tmp_path: Path, server: VendorServer) -> None:
    other = VendorServer().start()
    try:
        cfg = openai_config(server)
        cfg["models"] = {"providers": {"openai": {"baseUrl": f"{other.url}/v1", "apiKey": "sk-other"}}}
        with memlane.open(notes_workspace(tmp_path), config=cfg) as mem:
            mem.sync()
        assert server.state.count("embeddings") > 0 and other.state.count("embeddings") == 0
        # without remote.*, models.providers.openai is used
        del cfg["agents"]["defaults"]["memorySearch"]["remote"]["baseUrl"]
        del cfg["agents"]["defaults"]["memorySearch"]["remote"]["apiKey"]
        with memlane.open(notes_workspace(tmp_path), config=cfg) as mem:
            mem.sync(force=True)
            mem.search("garden tea")
        assert other.state.requests[-1].headers["authorization"] == "Bearer sk-other"
    finally:
        other.stop()


def test_429_with_retry_after_is_honoured(tmp_path: Path, server: VendorServer) -> None:
    server.state.faults.append(Fault("embeddings", status=429, headers={"Retry-After": "1"}))
    with memlane.open(notes_workspace(tmp_path), config=openai_config(server)) as mem:
        started = time.monotonic()
        report = mem.sync()
        waited = time.monotonic() - started
        assert report.embedded > 0
        assert mem.choice.provider.client.stats.retries == 1  # type: ignore[union-attr]
    assert waited >= 0.9  # the server asked for a second


def test_500_is_retried_then_succeeds(tmp_path: Path, server: VendorServer) -> None:
    server.state.faults += [Fault("embeddings", status=500), Fault("embeddings", status=503)]
    with memlane.open(notes_workspace(tmp_path), config=openai_config(server)) as mem:
        assert mem.sync().embedded > 0
    assert server.state.count("embeddings") == 3


def test_retry_after_is_capped_by_retry_max_ms(tmp_path: Path, server: VendorServer) -> None:
    server.state.faults.append(Fault("embeddings", status=429, headers={"Retry-After": "30"}))
    cfg = openai_config(server, remote={"retryMaxMs": 300})
    with memlane.open(notes_workspace(tmp_path), config=cfg) as mem:
        started = time.monotonic()
        assert mem.sync().embedded > 0
        waited = time.monotonic() - started
        assert mem.choice.provider.client.stats.retries == 1  # type: ignore[union-attr]
    assert 0.25 <= waited < 15  # the server asked for 30 s; the cap allowed 0.3


def test_a_slow_response_times_out_and_is_retried(tmp_path: Path, server: VendorServer) -> None:
    # A 1 s limit against a 5 s stall: a loaded machine's ordinary requests stay far under the limit.
    server.state.faults.append(Fault("embeddings", delay=5.0))
    cfg = openai_config(server, remote={"timeoutSeconds": 1.0})
    with memlane.open(notes_workspace(tmp_path), config=cfg) as mem:
        assert mem.sync().embedded > 0
        assert mem.choice.provider.client.stats.retries == 1  # type: ignore[union-attr]


def test_a_query_timeout_falls_back_to_keyword_search(tmp_path: Path, server: VendorServer) -> None:
    cfg = openai_config(server, remote={"queryTimeoutSeconds": 1.0, "maxRetries": 0})
    with memlane.open(notes_workspace(tmp_path), config=cfg) as mem:
        mem.sync()
        server.state.faults.append(Fault("embeddings", delay=5.0))
        resp = mem.search("PostgreSQL")
    assert resp.mode == "keyword" and resp.results[0].path == "MEMORY.md"
    assert resp.fallback is not None and "timed out" in resp.fallback["reason"]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (Fault("embeddings", body="<html>bad gateway</html>"), "not valid JSON"),
        (Fault("embeddings", wrong_dims=True), "32-d vectors, expected 64"),
        (Fault("embeddings", too_few=True), "vectors for"),
        (Fault("embeddings", nan=True), "NaN"),
        (Fault("embeddings", status=500), "after 1 attempts"),
        (Fault("embeddings", status=400), "HTTP 400"),
    ],
)
def test_a_bad_answer_is_an_error_that_leaves_the_index_as_it_was(
    tmp_path: Path, server: VendorServer, fault: Fault, message: str
) -> None:
    ws = notes_workspace(tmp_path)
    cfg = openai_config(server, remote={"maxRetries": 0})
    with memlane.open(ws, config=cfg) as mem:
        mem.sync()
        before = chunk_texts(mem)
        write(ws, "memory/2026-01-01.md", "# Day 1\n\nA brand new note about kayaks.\n")
        server.state.faults.append(fault)
        with pytest.raises(ProviderError, match=message):
            mem.sync()
        assert chunk_texts(mem) == before
        resp = mem.search("garden")  # the old index still answers at once ...
        assert resp.results and resp.stale
        assert mem.wait_idle(30)  # ... and the background refresh then succeeds
        assert any("kayaks" in t for t in chunk_texts(mem))


# -- Gemini


def test_gemini_uses_task_types_and_the_key_header(tmp_path: Path, server: VendorServer) -> None:
    with memlane.open(notes_workspace(tmp_path), config=gemini_config(server)) as mem:
        mem.sync()
        resp = mem.search("green tea")
    assert resp.provider == "gemini" and resp.model == "gemini-embedding-001"
    assert resp.results[0].path == "MEMORY.md"
    docs = [r for r in server.state.requests if r.kind == "batchEmbedContents"]
    queries = [r for r in server.state.requests if r.kind == "embedContent"]
    assert docs and queries
    assert {q["taskType"] for r in docs for q in r.body["requests"]} == {"RETRIEVAL_DOCUMENT"}
    assert queries[0].body["taskType"] == "RETRIEVAL_QUERY" and queries[0].body["outputDimensionality"] == 48
    assert all(r.headers["x-goog-api-key"] == GKEY and GKEY not in r.path for r in server.state.requests)
    assert docs[0].path.endswith("/v1beta/models/gemini-embedding-001:batchEmbedContents")


# -- choice, auto and fallback


def test_auto_prefers_openai_then_gemini_then_the_bundled_model(
    tmp_path: Path, server: VendorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memlane.open(tmp_path) as mem:
        assert mem.choice.provider is not None and mem.choice.provider.provider_id == "local"
        assert "no remote key" in mem.choice.reason
    monkeypatch.setenv("GEMINI_API_KEY", GKEY)
    with memlane.open(tmp_path) as mem:
        assert mem.choice.provider.provider_id == "gemini"  # type: ignore[union-attr]
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with memlane.open(tmp_path) as mem:
        assert mem.choice.provider.provider_id == "openai"  # type: ignore[union-attr]
        assert mem.status()["providerReason"] == "auto: an OpenAI key resolved"
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    with memlane.open(tmp_path, local={"modelPath": str(model_dir)}) as mem:
        # the configured local model wins over the OpenAI key (this empty directory then fails to load)
        assert mem.choice.fallback is not None and mem.choice.fallback["from"] == "local"
        assert "no .onnx file" in mem.choice.fallback["reason"]


def test_a_missing_key_is_a_clear_error_or_the_fallback(tmp_path: Path, server: VendorServer) -> None:
    with memlane.open(tmp_path, provider="openai") as mem:
        assert mem.choice.provider is None
        assert "no API key for openai" in mem.choice.fallback["reason"]  # type: ignore[index]
    with memlane.open(tmp_path, provider="gemini", fallback="local") as mem:
        assert mem.choice.provider.provider_id == "local"  # type: ignore[union-attr]
        assert mem.choice.fallback["from"] == "gemini"  # type: ignore[index]


def test_fallback_during_a_sync_reindexes_with_the_other_provider(
    tmp_path: Path, server: VendorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", GKEY)
    cfg = openai_config(server, fallback="gemini", remote={"maxRetries": 0})
    cfg["models"] = {"providers": {"google": {"baseUrl": f"{server.url}/v1beta"}}}
    server.state.faults.append(Fault("embeddings", status=503))
    ws = notes_workspace(tmp_path)
    with memlane.open(ws, config=cfg) as mem:
        report = mem.sync()
        assert any("switched to fallback" in n for n in report.notes)
        status = mem.status()
        assert status["provider"] == "gemini" and status["fallback"]["from"] == "openai"
        assert json.loads(mem.store.meta()["fingerprint"])["provider"] == "gemini"
        resp = mem.search("garden")
    assert resp.provider == "gemini" and resp.fallback and resp.fallback["from"] == "openai"
    assert resp.mode == "hybrid"
    # the fallback uses its own default model and dimensions, not the primary's remote.* settings
    assert server.state.requests[-1].body["model"] == "models/gemini-embedding-001"
    assert "outputDimensionality" not in server.state.requests[-1].body


# -- batch APIs


def batch_config(server: VendorServer, provider: str = "openai", **batch: Any) -> dict[str, Any]:
    cfg = openai_config(server) if provider == "openai" else gemini_config(server)
    cfg["agents"]["defaults"]["memorySearch"]["remote"]["batch"] = {
        "enabled": True,
        "minTexts": 1,
        "pollIntervalMs": 5,
        **batch,
    }
    return cfg


def many_notes(root: Path, n: int = 20, fail_items: int = 0) -> Path:
    for i in range(n):
        extra = " FAIL_ITEM" if i < fail_items else ""
        write(root, f"memory/2026-02-{i + 1:02d}.md", f"# Note {i}\n\nItem{i} is about subject{i}.{extra}\n")
    return root


def test_openai_batch_embeds_through_files_and_batches(tmp_path: Path, server: VendorServer) -> None:
    ws = many_notes(tmp_path, 20, fail_items=2)
    with memlane.open(ws, config=batch_config(server)) as mem:
        report = mem.sync()
        resp = mem.search("subject7")
    st = server.state
    assert st.count("files.create") == 1 and st.count("batches.create") == 1 and st.count("files.content") == 2
    upload = next(r for r in st.requests if r.kind == "files.create")
    lines = [json.loads(x) for x in upload.body["file"].splitlines()]
    assert upload.body["purpose"] == "batch" and len(lines) == 20
    assert {x["url"] for x in lines} == {"/v1/embeddings"} and lines[0]["body"]["dimensions"] == 64
    create = next(r for r in st.requests if r.kind == "batches.create")
    assert create.body["endpoint"] == "/v1/embeddings" and create.body["completion_window"] == "24h"
    # the two failed items, and only they, are retried with an ordinary request
    sent = [t for t in st.texts_sent("embeddings") if t != "subject7"]  # less the query
    assert sorted(sent) == sorted(t for t in chunk_texts(mem) if "FAIL_ITEM" in t)
    assert report.batch_jobs == 1 and report.batch_embedded == 18 and report.embedded == 20
    assert resp.results[0].path == "memory/2026-02-08.md" and resp.mode == "hybrid"
    assert mem.store.batch_jobs(mem_key(mem)) == {}


def mem_key(mem: memlane.Memory) -> Any:
    from memlane.embeddings import embedding_key

    return embedding_key(mem.choice.provider)  # type: ignore[arg-type]


def test_two_batch_failures_turn_batching_off_and_sync_goes_on(tmp_path: Path, server: VendorServer) -> None:
    server.state.batch_outcomes = ["fail", "fail"]
    ws = many_notes(tmp_path, 12)
    with memlane.open(ws, config=batch_config(server)) as mem:
        mem.choice.provider.batch_max_requests = 4  # type: ignore[union-attr]  # three jobs' worth
        mem.batch.settings = mem.batch.settings.model_copy(update={"concurrency": 1})
        report = mem.sync()
        status = mem.status()
    assert server.state.count("batches.create") == 2  # the third job is never submitted
    assert report.embedded == 12 and report.batch_embedded == 0
    assert len(server.state.texts_sent("embeddings")) == 12
    assert status["batch"]["active"] is False and "2 batch failures" in status["batch"]["disabled"]
    assert any("batching off" in n for n in report.notes)


def test_a_success_resets_the_failure_count(tmp_path: Path, server: VendorServer) -> None:
    server.state.batch_outcomes = ["fail", "complete", "fail"]
    with memlane.open(many_notes(tmp_path, 12), config=batch_config(server, concurrency=1)) as mem:
        mem.choice.provider.batch_max_requests = 4  # type: ignore[union-attr]
        report = mem.sync()
        assert mem.batch.active and mem.batch.failures == 1
    assert server.state.count("batches.create") == 3 and report.batch_embedded == 4


def test_an_expired_batch_keeps_its_finished_results(tmp_path: Path, server: VendorServer) -> None:
    server.state.batch_outcomes = ["expire"]
    with memlane.open(many_notes(tmp_path, 10), config=batch_config(server)) as mem:
        report = mem.sync()
    assert report.batch_embedded == 5 and len(server.state.texts_sent("embeddings")) == 5
    assert any("expired" in n for n in report.notes)


def test_a_batch_past_its_timeout_is_cancelled(tmp_path: Path, server: VendorServer) -> None:
    server.state.polls_to_finish = 10**9
    cfg = batch_config(server, timeoutMinutes=0.002, pollIntervalMs=20)
    with memlane.open(many_notes(tmp_path, 6), config=cfg) as mem:
        report = mem.sync()
    assert server.state.count("batches.cancel") == 1
    assert report.embedded == 6 and report.batch_embedded == 0


def test_a_batch_finished_while_the_client_was_down_is_collected_not_paid_twice(
    tmp_path: Path, server: VendorServer
) -> None:
    ws = many_notes(tmp_path, 10)
    with memlane.open(ws, config=batch_config(server, wait=False)) as mem:
        report = mem.sync()
        assert report.batch_pending == 10 and report.embedded == 0
        assert len(mem.store.batch_jobs(mem_key(mem))) == 1
        # the text is searchable at once, by keyword, while its vectors are still being made
        assert mem.search("subject3").results[0].path == "memory/2026-02-04.md"
    # the process is gone; the batch finishes meanwhile; a new process collects it
    with memlane.open(ws, config=batch_config(server)) as mem:
        assert mem.is_dirty()  # uncollected jobs make the index due for a sync
        report = mem.sync()
        assert report.batch_embedded == 10
        resp = mem.search("subject3")
        assert mem.store.batch_jobs(mem_key(mem)) == {}
    assert server.state.count("batches.create") == 1
    assert server.state.texts_sent("embeddings") == ["subject3", "subject3"]  # one query per process, no texts
    assert resp.mode == "hybrid" and resp.results[0].path == "memory/2026-02-04.md"


def test_gemini_async_batch(tmp_path: Path, server: VendorServer) -> None:
    with memlane.open(many_notes(tmp_path, 8, fail_items=1), config=batch_config(server, "gemini")) as mem:
        report = mem.sync()
        resp = mem.search("subject5")
    create = next(r for r in server.state.requests if r.kind == "asyncBatchEmbedContent")
    items = create.body["batch"]["inputConfig"]["requests"]["requests"]
    assert len(items) == 8 and {i["request"]["taskType"] for i in items} == {"RETRIEVAL_DOCUMENT"}
    assert all(len(i["metadata"]["key"]) == 32 for i in items)  # the text hash: results map back by it
    assert report.batch_embedded == 7 and len(server.state.texts_sent("batchEmbedContents")) == 1
    assert resp.results[0].path == "memory/2026-02-06.md"


def test_gemini_batch_failure_falls_back_to_ordinary_requests(tmp_path: Path, server: VendorServer) -> None:
    server.state.batch_outcomes = ["fail"]
    with memlane.open(many_notes(tmp_path, 5), config=batch_config(server, "gemini")) as mem:
        report = mem.sync()
        assert mem.batch.failures == 1
    assert report.batch_embedded == 0 and report.embedded == 5
    assert len(server.state.texts_sent("batchEmbedContents")) == 5


# -- cost estimate


def test_index_prints_the_estimated_cost_before_a_paid_run(tmp_path: Path, server: VendorServer) -> None:
    ws = many_notes(tmp_path, 6)
    cfg_path = tmp_path / "cfg.json"
    cfg = openai_config(server)
    cfg["agents"]["defaults"]["memorySearch"]["prices"] = {"text-embedding-3-small": {"input": 1000.0}}
    cfg_path.write_text(json.dumps(cfg))
    runner = CliRunner()
    dry = runner.invoke(cli, ["-w", str(ws), "-c", str(cfg_path), "index", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would be embedding 6 texts" in dry.output and "$" in dry.output
    assert server.state.count("embeddings") == 0  # a dry run sends nothing
    real = runner.invoke(cli, ["-w", str(ws), "-c", str(cfg_path), "index"])
    assert real.exit_code == 0 and "embedding 6 texts" in real.output and "openai/text-embedding-3-small" in real.output
    dollars = float(real.output.split("about $")[1].split()[0])
    with memlane.open(ws, config=cfg) as mem:
        tokens = sum(mem.choice.provider.count_tokens(list(chunk_texts(mem))))  # type: ignore[union-attr]
    assert dollars == pytest.approx(tokens / 1e6 * 1000.0, rel=0.01)


def test_a_sync_killed_while_waiting_for_a_batch_resumes_it(tmp_path: Path, server: VendorServer) -> None:
    import subprocess
    import sys

    server.state.polls_to_finish = 10**9  # the job runs until the client is gone
    ws = many_notes(tmp_path / "ws", 10)
    cfg_path = tmp_path / "cfg.json"
    cfg_path.write_text(json.dumps(batch_config(server, pollIntervalMs=50)))
    proc = subprocess.Popen([sys.executable, "-m", "memlane", "-w", str(ws), "-c", str(cfg_path), "index"])
    try:
        until = time.monotonic() + 60
        while server.state.count("batches.retrieve") < 2:
            assert time.monotonic() < until and proc.poll() is None
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait(30)
    server.state.polls_to_finish = 0  # the batch finished while nobody was polling
    with memlane.open(ws, config=json.loads(cfg_path.read_text())) as mem:
        report = mem.sync()
        assert report.batch_embedded == 10 and report.embedded == 10
        assert mem.search("subject2").results[0].path == "memory/2026-02-03.md"
    assert server.state.count("batches.create") == 1 and server.state.texts_sent("embeddings") == ["subject2"]


def test_the_fingerprint_follows_endpoint_model_and_public_headers_not_the_key(
    tmp_path: Path, server: VendorServer
) -> None:
    def fp(**remote: Any) -> str:
        cfg = openai_config(server)
        cfg["agents"]["defaults"]["memorySearch"]["remote"].update(remote)
        with memlane.open(tmp_path, config=cfg) as mem:
            return mem.choice.provider.fingerprint()  # type: ignore[union-attr]

    base = fp()
    assert fp(apiKey="sk-another-key") == base
    assert fp(headers={"Authorization": "Bearer x", "X-Api-Key": "y"}) == base  # secrets are not hashed
    assert fp(headers={"X-Custom": "tenant-2"}) != base
    assert fp(baseUrl=f"{server.url}/v2") != base
    assert fp(dimensions=32) != base


def test_gemini_retries_429_and_splits_by_tokens(tmp_path: Path, server: VendorServer) -> None:
    server.state.faults.append(Fault("batchEmbedContents", status=429, headers={"Retry-After": "0"}))
    with memlane.open(notes_workspace(tmp_path), config=gemini_config(server)) as mem:
        assert mem.sync().embedded > 0
        provider = mem.choice.provider
        assert provider is not None and provider.client.stats.retries == 1  # type: ignore[attr-defined]
        provider.max_tokens_per_request = 40  # type: ignore[attr-defined]
        before = server.state.count("batchEmbedContents")
        provider.embed_batch(["one two three four five six seven eight nine ten"] * 6)
    # ~10 tokens each x 1.25 margin: three texts per request under a 40-token budget
    assert server.state.count("batchEmbedContents") - before == 2
