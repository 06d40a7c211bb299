from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane import config
from memlane.errors import ConfigError


def test_defaults_match_the_spec() -> None:
    s = config.resolve({}).memory_search
    assert (s.chunking.tokens, s.chunking.overlap) == (400, 80)
    assert (s.query.max_results, s.query.min_score) == (6, 0.35)
    h = s.query.hybrid
    assert (h.vector_weight, h.text_weight, h.candidate_multiplier) == (0.7, 0.3, 4)
    assert s.sync.watch_debounce_ms == 1500 and s.cache.max_entries == 50_000
    assert s.provider == "auto" and s.sources == ["memory"]


def test_per_agent_overrides_merge_deeply(memlane_home: Path) -> None:
    cfg = {
        "agents": {
            "defaults": {
                "workspace": "~/clawd",
                "memorySearch": {"query": {"maxResults": 10, "hybrid": {"textWeight": 1}}},
            },
            "list": [
                {"id": "peter", "workspace": "/w/peter", "memorySearch": {"query": {"hybrid": {"vectorWeight": 3}}}}
            ],
        }
    }
    peter = config.resolve(cfg, "peter")
    assert peter.workspace == Path("/w/peter")
    assert peter.memory_search.query.max_results == 10
    assert peter.memory_search.query.hybrid.weights == (0.75, 0.25)
    main = config.resolve(cfg, "main")
    assert main.workspace == Path("~/clawd").expanduser()
    assert main.memory_search.query.hybrid.weights == pytest.approx((0.7 / 1.7, 1 / 1.7))


def test_store_path_supports_agent_id(memlane_home: Path) -> None:
    s = config.resolve(
        {"agents": {"defaults": {"memorySearch": {"store": {"path": "/x/{agentId}.sqlite"}}}}}
    ).memory_search
    assert s.store_path("peter") == Path("/x/peter.sqlite")
    assert config.resolve({}).memory_search.store_path("main") == memlane_home / "memory" / "main.sqlite"


@pytest.mark.parametrize(
    ("ms", "key"),
    [
        ({"query": {"maxResult": 3}}, "memorySearch.query.maxResult"),
        ({"query": {"maxResults": "many"}}, "memorySearch.query.maxResults"),
        ({"provider": "cohere"}, "memorySearch.provider"),
        ({"chunking": {"tokens": 100, "overlap": 100}}, "overlap"),
        ({"local": {"quantize": "int4"}}, "memorySearch.local.quantize"),
    ],
)
def test_bad_values_name_the_key(ms: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        config.resolve({"agents": {"defaults": {"memorySearch": ms}}})


def test_unknown_top_level_key_is_named() -> None:
    with pytest.raises(ConfigError, match=r"config\.agents\.default"):
        config.resolve({"agents": {"default": {}}})


def test_files_json_and_toml(tmp_path: Path) -> None:
    j = tmp_path / "c.json"
    j.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"query": {"maxResults": 9}}}}}))
    assert config.resolve(j).memory_search.query.max_results == 9
    t = tmp_path / "c.toml"
    t.write_text("[agents.defaults.memorySearch.query]\nmaxResults = 4\n")
    assert config.resolve(t).memory_search.query.max_results == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ConfigError, match="not valid JSON"):
        config.resolve(bad)
    with pytest.raises(ConfigError, match="not found"):
        config.resolve(tmp_path / "missing.json")


def test_default_file_under_memlane_home(memlane_home: Path) -> None:
    (memlane_home / "config.json").write_text(
        json.dumps({"agents": {"defaults": {"memorySearch": {"enabled": False}}}})
    )
    assert config.resolve(None).memory_search.enabled is False


def test_store_vector_extension_path_is_refused_unless_null() -> None:
    # accepted and read by nothing before: a sqlite-vec path that silently did nothing
    with pytest.raises(ConfigError, match="extensionPath"):
        config.resolve(
            {"agents": {"defaults": {"memorySearch": {"store": {"vector": {"extensionPath": "/opt/v.so"}}}}}}
        )
    vector = {"enabled": True, "extensionPath": None}
    ok = config.resolve({"agents": {"defaults": {"memorySearch": {"store": {"vector": vector}}}}})
    assert ok.memory_search.store.approximate_from() == 50_000


def test_store_vector_disabled_searches_every_vector_exactly(tmp_path: Path) -> None:
    import memlane
    from memlane.search.vectors import VectorIndex

    ws = tmp_path / "ws"
    for day in range(1, 21):
        (ws / "memory").mkdir(parents=True, exist_ok=True)
        (ws / "memory" / f"2026-01-{day:02d}.md").write_text(f"# Day {day}\n\nNote number {day} about topic {day}.\n")
    from conftest import FakeEmbedder

    store = {"annMinRows": 5, "vector": {"enabled": False}}
    with memlane.open(ws, provider=FakeEmbedder(), store=store) as mem:
        mem.sync()
        assert mem.store.vector_rows("chunks") >= 5
        assert isinstance(mem._vector_index(), VectorIndex)  # exact, although past annMinRows
        assert mem.search("topic 7").results
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 5}) as mem:
        assert not isinstance(mem._vector_index(), VectorIndex)  # the graph, as before
