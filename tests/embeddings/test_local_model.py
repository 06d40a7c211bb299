"""The real bundled model (all-MiniLM-L6-v2 via onnxruntime), not a fake."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from memlane.embeddings.local import BUNDLED_MAX_TOKENS, LocalEmbedder, _bundled_onnx
from memlane.errors import ProviderError
from memlane.index.chunking import chunk_markdown
from memlane.index.sync import EmbedPlan

FIXTURE = Path(__file__).parents[1] / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def model() -> LocalEmbedder:
    return LocalEmbedder()


def test_vectors_match_the_reference_model(model: LocalEmbedder) -> None:
    ref = json.loads(FIXTURE.read_text())
    expected = np.array(ref["vectors"], dtype=np.float32)
    fp32 = LocalEmbedder(quantize="none")
    assert model.variant == "int8" and fp32.variant == "fp32"
    got = {"int8": model.embed_batch(ref["texts"]), "fp32": fp32.embed_batch(ref["texts"])}
    for vecs in got.values():
        assert vecs.shape == (len(ref["texts"]), 384) and vecs.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    # the graph as shipped (int8-stored weights): mean 0.9994 measured; the worst case is a one-character text
    cos = (got["fp32"] * expected).sum(axis=1)
    assert cos.mean() >= 0.999 and cos.min() >= 0.998, cos
    # the prepared int8 graph: mean 0.9946, min 0.983 (short texts move most; docs/DESIGN.md §15)
    cos = (got["int8"] * expected).sum(axis=1)
    assert cos.mean() >= 0.99 and cos.min() >= 0.975, cos
    assert not np.allclose(got["int8"], got["fp32"], atol=1e-4)  # it really is another graph
    # batch order and query path agree with single embedding
    single = np.stack([model.embed_query(t) for t in ref["texts"]])
    np.testing.assert_allclose(single, got["int8"], atol=2e-4)


def test_int8_graph_is_prepared_once_and_fingerprinted(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    a = LocalEmbedder(quantize="auto", cache_dir=cache)
    assert not cache.exists()  # nothing is built until the model is used
    a.embed_query("first use builds the graph")
    built = list(cache.glob("*.onnx"))
    assert len(built) == 1 and not list(cache.glob(".prepare-*"))  # no temp leftovers
    stamp = built[0].stat().st_mtime_ns
    b = LocalEmbedder(quantize="int8", cache_dir=cache)
    b.embed_query("reused")
    assert built[0].stat().st_mtime_ns == stamp and list(cache.glob("*.onnx")) == built
    fp32 = LocalEmbedder(quantize="none", cache_dir=cache)
    assert a.fingerprint() == b.fingerprint() != fp32.fingerprint()  # int8 vectors never mix with fp32 ones
    with pytest.raises(ProviderError, match="quantize"):
        LocalEmbedder(quantize="int4")


def test_a_garbled_prepared_graph_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    LocalEmbedder(cache_dir=cache).embed_query("build it")
    (built,) = cache.glob("*.onnx")
    good = built.read_bytes()
    built.write_bytes(good[: len(good) // 3])  # a cache file cut short
    vec = LocalEmbedder(cache_dir=cache).embed_query("still embeds")
    assert vec.shape == (384,) and built.read_bytes() == good  # derived again, byte for byte


def test_unwritable_cache_falls_back_to_a_temp_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    emb = LocalEmbedder(cache_dir=blocker / "models")
    vec = emb.embed_query("still embeds")
    assert vec.shape == (384,) and blocker.read_text() == "not a directory"


def test_prepare_drops_only_nan_guards_after_softmax() -> None:
    from onnx import TensorProto, helper

    from memlane.embeddings.prepare import down_projections, drop_nan_guards

    nodes = [
        helper.make_node("Softmax", ["x"], ["s"]),
        helper.make_node("IsNaN", ["s"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "s"], ["guarded"]),
        helper.make_node("MatMul", ["guarded", "v"], ["out"], name="attn"),
        helper.make_node("Relu", ["x"], ["r"]),  # a Where that is not a softmax guard stays
        helper.make_node("IsNaN", ["r"], ["rnan"]),
        helper.make_node("Where", ["rnan", "zero", "r"], ["kept"]),
        helper.make_node("MatMul", ["kept", "up"], ["wide"], name="up_proj"),
        helper.make_node("MatMul", ["wide", "down"], ["narrow"], name="down_proj"),
    ]
    inits = [
        helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
        helper.make_tensor("up", TensorProto.FLOAT, [2, 4], [0.0] * 8),
        helper.make_tensor("down", TensorProto.FLOAT, [4, 2], [0.0] * 8),
    ]
    graph = helper.make_graph(nodes, "g", [], [], inits)
    assert drop_nan_guards(graph) == 1
    ops = [n.op_type for n in graph.node]
    assert ops.count("Where") == 1 and ops.count("IsNaN") == 1
    assert next(n for n in graph.node if n.name == "attn").input[0] == "s"
    assert down_projections(graph) == ["down_proj"]


def test_token_counting_and_cap(model: LocalEmbedder) -> None:
    assert model.max_tokens == BUNDLED_MAX_TOKENS == 256
    assert model.count_tokens(["hello world", "OPENAI_API_KEY"]) == [2, 6]
    long = "word " * 1000
    assert model.count_tokens([long]) == [1000]
    v = model.embed_batch([long])  # truncated by the model, so chunking must stay below the cap
    assert v.shape == (1, 384)


def test_real_model_end_to_end_search(workspace: Path) -> None:
    with memlane.open(workspace) as mem:
        report = mem.sync()
        assert report.embedded > 0
        provider = mem.choice.provider
        assert provider is not None
        chunks = mem.store.chunks_by_seq(range(1, 100)).values()
        assert chunks and max(provider.count_tokens([c.text for c in chunks])) <= BUNDLED_MAX_TOKENS - 2
        resp = mem.search("what went wrong with the webhook?")
        assert resp.provider == "local" and resp.model == "all-MiniLM-L6-v2" and resp.mode == "hybrid"
        assert mem.status()["variant"] == "int8"
        assert resp.results[0].path == "memory/2026-01-06.md"
        # paraphrase with no shared keyword: only the vectors can find it
        para = mem.search("which relational store holds the invoices", min_score=0.2)
        assert para.results and para.results[0].path == "MEMORY.md"


_WORDS = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.lists(_WORDS, min_size=1, max_size=60).map(" ".join),  # ordinary lines, any script
            st.text(alphabet="深度学习模型東京の会議", min_size=100, max_size=700),  # long runs with no spaces
            st.builds(lambda n: "x" * n, st.integers(300, 3000)),  # one huge token
            st.sampled_from(["# Heading", "", "```", "- a bullet", "## Retain"]),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_no_chunk_exceeds_what_the_model_embeds(model: LocalEmbedder, lines: list[str]) -> None:
    """Counted with the model's own tokenizer: every chunk fits 254 wordpieces ([CLS] and [SEP] make 256),
    so no chunk text is cut off from its vector."""
    limit = BUNDLED_MAX_TOKENS - 2
    chunks = chunk_markdown("\n".join(lines), limit, 51, model.count_tokens)
    counts = model.count_tokens([c.text for c in chunks]) if chunks else []
    assert all(n <= limit for n in counts), max(counts)


def test_model_path_directory(tmp_path: Path, workspace: Path) -> None:
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    shutil.copy(_bundled_onnx(), model_dir / "model.onnx")
    shutil.copy(Path(memlane.__file__).parent / "embeddings" / "minilm_tokenizer.json", model_dir / "tokenizer.json")
    (model_dir / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    emb = LocalEmbedder(model_dir)
    assert emb.model == "my-model" and emb.dims == 384 and emb.max_tokens == 128
    with memlane.open(workspace, local={"modelPath": str(model_dir)}) as mem:
        assert mem.choice.provider is not None and mem.choice.provider.model == "my-model"
        assert "modelPath" in mem.choice.reason
        assert mem.status()["chunking"]["tokens"] == 126


def test_bad_model_path_falls_back_to_keyword_search(tmp_path: Path, workspace: Path) -> None:
    with pytest.raises(ProviderError, match=r"no \.onnx"):
        LocalEmbedder(tmp_path)
    with memlane.open(workspace, provider="local", local={"modelPath": str(tmp_path / "nope")}) as mem:
        resp = mem.search("Kubernetes")
        assert resp.mode == "keyword" and resp.fallback and "not a directory" in resp.fallback["reason"]
        assert resp.results[0].path == "memory/2026-01-05.md"


def test_agents_share_one_loaded_model_and_closed_embedders_are_freed(tmp_path: Path) -> None:
    import gc
    import weakref

    with memlane.open(tmp_path, agent="a", provider="local") as a, memlane.open(tmp_path, agent="b") as b:
        assert a.choice.provider is b.choice.provider  # one ONNX session for every agent of the process
    own = LocalEmbedder()
    own.embed_query("a question")
    ref = weakref.ref(own)
    del own
    gc.collect()
    assert ref() is None  # nothing (such as a query cache) keeps a dropped embedder and its session alive


def test_a_pure_paraphrase_survives_the_default_min_score(tmp_path: Path) -> None:
    """No word of these questions is in any note, so nothing matches lexically and the cosine counts alone:
    weighted 0.7 x cosine (0.42 and 0.47 here) they would fall under the default minScore 0.35."""
    notes = {
        "memory/2026-02-01.md": "Dana adopted a small terrier from the animal shelter.",
        "memory/2026-02-02.md": "The staging cluster was upgraded to Kubernetes 1.31.",
        "memory/2026-02-03.md": "Invoices are stored in PostgreSQL because billing needs transactions.",
        "memory/2026-02-04.md": "Lunch on Friday is at the Thai place near the station.",
    }
    for rel, text in notes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text + "\n")
    with memlane.open(tmp_path) as mem:
        for question, expected in [
            ("what puppy breed joined her household", "memory/2026-02-01.md"),
            ("midday meal plans", "memory/2026-02-04.md"),
        ]:
            resp = mem.search(question)  # default minScore 0.35
            assert resp.mode == "hybrid" and resp.results, question
            top = resp.results[0]
            assert top.path == expected and top.text_score == 0.0 and top.score == pytest.approx(top.vector_score)
            assert 0.35 < top.score < 0.5  # in the band only the cosine-alone rule keeps


def test_a_batch_runs_on_one_session_per_core_with_each_text_its_own_vector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two single-threaded sessions share a batch's calls (DESIGN.md §38); a text's vector is the one it gets alone."""
    texts = [
        f"{'a much longer note about the quarterly plan ' * (i % 7)}item {i}: we moved the db to host {i}"
        for i in range(24)
    ]
    pair = LocalEmbedder(threads=2)
    used: list[int] = []
    run = pair._run

    def recording(batch: list[str], session: object) -> np.ndarray:
        used.append(id(session))
        return run(batch, session)

    monkeypatch.setattr(pair, "_run", recording)
    got = pair.embed_batch(texts)
    assert len(used) == len(texts) and len(set(used)) == 2  # one text per call, both sessions took calls
    single = LocalEmbedder(threads=1)  # one session, no pool: the batch runs inline
    alone = np.stack([single.embed_batch([t])[0] for t in texts[:4]] + [pair.embed_query(t) for t in texts[4:]])
    np.testing.assert_allclose(got, alone, atol=1e-5)  # every vector in its text's row


def test_a_failing_text_stops_every_session_and_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    pair = LocalEmbedder(threads=2)
    calls: list[str] = []
    run = pair._run

    def failing(batch: list[str], session: object) -> np.ndarray:
        calls.append(batch[0])
        if batch[0].startswith("boom"):
            raise ProviderError("the model failed on this text")
        return run(batch, session)

    monkeypatch.setattr(pair, "_run", failing)
    texts = ["boom " * 50] + [f"a short note number {i}" for i in range(80)]  # the longest is taken first
    with pytest.raises(ProviderError, match="failed on this text"):
        pair.embed_batch(texts)
    settled = len(calls)
    time.sleep(0.5)
    assert len(calls) == settled < len(texts)  # nothing runs on after the error: the queue was emptied


def test_the_plans_tokens_are_every_embedded_texts_count(tmp_path: Path) -> None:
    """The chunks' counts are taken from the chunker (its lines' counts added up) instead of counted again:
    the plan still totals what the tokenizer counts for each text embedded, pieces of an over-long line,
    keys, CJK and code included."""
    ws = tmp_path / "ws"
    shutil.copytree(Path(__file__).parents[2] / "src" / "memlane" / "demo", ws)
    long_line = " ".join(f"word{i} and-a-hyphen, café" for i in range(400))
    (ws / "memory" / "2026-03-01.md").write_text(
        "# 2026-03-01\n\n- User: 東京の会議は金曜日に移りました。\n- Assistant: noted, Friday.\n\n"
        f"```python\nprint('x')  # {long_line[:200]}\n```\n\n{long_line}\n",
        encoding="utf-8",
    )
    seen: set[str] = set()

    class Recording(LocalEmbedder):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:  # type: ignore[override]
            seen.update(texts)
            return super().embed_batch(texts)

    recording = Recording()
    plans: list[EmbedPlan] = []
    with memlane.open(ws, provider=recording, chunking={"keys": True}) as mem:
        mem.sync(on_plan=plans.append)
    assert len(plans) == 1 and plans[0].texts == len(seen) > 20
    assert plans[0].tokens == sum(recording.count_tokens(sorted(seen)))
