"""The optional reranking stage: a cross-encoder ONNX graph given by path, or a /rerank endpoint.

No reranker weights ship, so the ONNX tests build a tiny cross-encoder graph here: it scores a (query, text)
pair by the weights of the text's tokens (``token_type_ids`` 1), through the same inputs, tokenizer pairing
and onnxruntime session a real cross-encoder uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import memlane
from conftest import FakeEmbedder, write
from memlane.search.rerank import blend
from vendor_server import Fault, VendorServer

WORDS = ["birds", "at", "the", "pond", "today", "many", "a", "kingfisher", "was", "seen", "heron", "stood", "by"]


def tiny_cross_encoder(folder: Path, boosts: dict[str, float]) -> Path:
    """An ONNX graph (input_ids, attention_mask, token_type_ids -> one logit per pair) and its tokenizer.json."""
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{w: i + 4 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    weights = np.zeros((len(vocab), 1), dtype=np.float32)
    for word, boost in boosts.items():
        weights[vocab[word], 0] = boost
    ints = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    nodes = [
        helper.make_node("Gather", ["W", "input_ids"], ["g"]),
        helper.make_node("Squeeze", ["g", "two"], ["per_token"]),
        helper.make_node("Cast", ["token_type_ids"], ["second"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "second"], ["a"]),
        helper.make_node("Mul", ["a", "mask"], ["b"]),
        helper.make_node("ReduceSum", ["b", "one"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        ints,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        [
            helper.make_tensor("W", TensorProto.FLOAT, weights.shape, weights.ravel().tolist()),
            helper.make_tensor("two", TensorProto.INT64, [1], [2]),
            helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    return path


@pytest.fixture
def ponds(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write(ws, "memory/2026-03-01.md", "# 2026-03-01\n\n- Birds at the pond today, many birds at the pond.\n")
    write(ws, "memory/2026-03-02.md", "# 2026-03-02\n\n- A kingfisher was seen at the pond.\n")
    write(ws, "memory/2026-03-03.md", "# 2026-03-03\n\n- A heron stood by the pond.\n")
    return ws


QUERY = "birds at the pond"


def _paths(mem: memlane.Memory) -> list[str]:
    return [r.path for r in mem.search(QUERY, min_score=0).results]


def test_blend_mixes_rank_positions_by_weight() -> None:
    fused, relevance = [0.9, 0.8, 0.5, 0.4], [0.0, 3.0, 1.0, 2.0]
    assert [i for i, _ in blend(fused, relevance, 0.0)] == [0, 1, 2, 3]  # the fused order alone
    assert [i for i, _ in blend(fused, relevance, 1.0)] == [1, 3, 2, 0]  # the reranker's alone
    half = blend(fused, relevance, 0.5)
    assert [i for i, _ in half] == [1, 0, 3, 2]
    assert [s for _, s in half] == sorted((s for _, s in half), reverse=True)
    assert blend([0.9, 0.1], [5.0, 1.0], 0.5)[0] == (0, pytest.approx(0.9))  # first on both: keeps its score


def test_an_onnx_cross_encoder_reorders_the_best_candidates(ponds: Path, tmp_path: Path) -> None:
    model = tiny_cross_encoder(tmp_path / "ce", {"kingfisher": 5.0, "heron": 1.0})
    with memlane.open(ponds, provider=FakeEmbedder()) as mem:
        mem.sync()
        plain = _paths(mem)
    assert plain[0] == "memory/2026-03-01.md"  # the fused order: the most words in common
    rerank = {"modelPath": str(model), "weight": 0.9}
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": rerank}) as mem:
        resp = mem.search(QUERY, min_score=0)
        got = [r.path for r in resp.results]
        assert got == ["memory/2026-03-02.md", "memory/2026-03-03.md", "memory/2026-03-01.md"]
        scores = [r.score for r in resp.results]
        assert scores == sorted(scores, reverse=True) and not resp.notes
    # relative to the workspace, the tokenizer found beside the model
    rel = {"modelPath": "../ce/model.onnx", "weight": 0.9}
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": rel}) as mem:
        assert _paths(mem)[0] == "memory/2026-03-02.md"


def test_a_reranker_of_small_weight_only_breaks_near_ties(ponds: Path, tmp_path: Path) -> None:
    model = tiny_cross_encoder(tmp_path / "ce", {"heron": 5.0})
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": {"modelPath": str(model), "weight": 0.2}}) as m:
        m.sync()
        assert _paths(m)[0] == "memory/2026-03-01.md"  # the fused head stays: 0.2 of the blend cannot move it


def test_a_missing_model_or_both_ways_at_once_is_a_clear_error(ponds: Path, tmp_path: Path) -> None:
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": {"modelPath": "nowhere/model.onnx"}}) as mem:
        mem.sync()
        with pytest.raises(memlane.MemlaneError, match=r"rerank\.modelPath: no such file"):
            mem.search(QUERY)
    with pytest.raises(memlane.ConfigError, match="modelPath or remote, not both"):
        memlane.open(ponds, query={"rerank": {"modelPath": "m.onnx", "remote": {"baseUrl": "http://x"}}})


@pytest.fixture
def server() -> Iterator[VendorServer]:
    srv = VendorServer().start()
    yield srv
    srv.stop()


def test_a_rerank_endpoint_reorders_in_jina_and_cohere_wire_format(
    ponds: Path, server: VendorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COHERE_API_KEY", "env-key-never-sent")
    monkeypatch.setenv("JINA_API_KEY", "env-key-never-sent")
    server.state.rerank_boost = {"kingfisher": 4.0}
    remote = {"baseUrl": server.url + "/v1", "apiKey": "rk-SECRET", "model": "rerank-v3.5"}
    with memlane.open(
        ponds, provider=FakeEmbedder(), query={"rerank": {"remote": remote, "topN": 2, "weight": 1}}
    ) as m:
        m.sync()
        paths = _paths(m)
    assert paths[:2] == ["memory/2026-03-02.md", "memory/2026-03-01.md"]  # the two it read, swapped
    (sent,) = [r for r in server.state.requests if r.kind == "rerank"]
    assert sent.body["query"] == QUERY and sent.body["model"] == "rerank-v3.5" and sent.body["top_n"] == 2
    assert len(sent.body["documents"]) == 2 and sent.headers["authorization"] == "Bearer rk-SECRET"
    # every candidate read: the heron's log, third by fused score, comes first
    server.state.rerank_boost = {"heron": 4.0}
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": {"remote": remote, "weight": 1}}) as mem:
        assert _paths(mem)[0] == "memory/2026-03-03.md"
    # no key configured: none sent, whatever the environment holds
    keyless = {"baseUrl": server.url + "/v1"}
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": {"remote": keyless}}) as mem:
        mem.search(QUERY)
    assert "authorization" not in server.state.requests[-1].headers


def test_a_failing_rerank_endpoint_keeps_the_fused_order_and_says_so(ponds: Path, server: VendorServer) -> None:
    with memlane.open(ponds, provider=FakeEmbedder()) as mem:
        mem.sync()
        plain = _paths(mem)
    server.state.faults = [Fault("rerank", status=503), Fault("rerank", status=503)]
    remote = {"baseUrl": server.url + "/v1", "maxRetries": 1}
    with memlane.open(ponds, provider=FakeEmbedder(), query={"rerank": {"remote": remote, "weight": 1}}) as mem:
        resp = mem.search(QUERY, min_score=0)
        assert [r.path for r in resp.results] == plain
        assert any(
            n.startswith("rerank failed, fused order kept: rerank rerank failed after 2 attempts") for n in resp.notes
        )
        assert _paths(mem)[0] == plain[0]  # the server answers again: reranked (no boost: the same order)
    assert server.state.count("rerank") == 3
