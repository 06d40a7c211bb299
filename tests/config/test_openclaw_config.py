"""OpenClaw's own config read as it is: JSON5, ${VAR}, $include, keys memlane does not own, discovery, extraPaths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import memlane
from conftest import write
from memlane import config
from memlane.errors import ConfigError, PathError

# The shape of a sanitized openclaw.json published in a public OpenClaw runbook, with what a real one has:
# comments, trailing commas, unquoted keys, ${VAR}, $include.
OPENCLAW = """// ~/.openclaw/openclaw.json
{
  wizard: { lastRunAt: "2026-01-02T10:00:00Z", lastRunVersion: "2026.1.5", },
  models: {
    mode: "merge",
    providers: {
      openrouter: { baseUrl: "https://openrouter.ai/api/v1", apiKey: "${OPENROUTER_API_KEY}", api: "openai-completions",
                    models: [{ id: "x/y", name: "Y" }] },
    },
  },
  agents: {
    defaults: {
      model: { primary: "openrouter/x/y", fallbacks: [] },
      models: { "openrouter/x/y": { alias: "y" } },
      workspace: "WORKSPACE",
      contextPruning: { mode: "cache-ttl", ttl: "1h" },
      compaction: { mode: "safeguard", memoryFlush: { enabled: true, softThresholdTokens: 6000 } },
      heartbeat: { every: "30m" },
      maxConcurrent: 4,
      subagents: { maxConcurrent: 8 },
      memorySearch: {
        provider: "none",
        query: { maxResults: 7, },  // a comment inside memlane's own section
        extraPaths: ["notes"],
      },
    },
    named: { helper: { model: "x" } },
    list: [
      { id: "main" },
      { id: "ops", default: true, memorySearch: { query: { maxResults: 3 } } },
    ],
  },
  logging: { level: "info" },
  tools: { web: { search: { apiKey: "${BRAVE_API_KEY}" } } },
  channels: { telegram: { botToken: "${TELEGRAM_BOT_TOKEN}", dmPolicy: "pairing" } },
  gateway: { port: 18789, auth: { token: "$${NOT_A_VAR}" } },
  plugins: { entries: {} },
  $include: "./extra.json5",
}
"""


@pytest.fixture
def openclaw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / ".openclaw"
    ws = tmp_path / "ws"
    write(ws, "memory/2026-01-05.md", "# Ops\n\n- The zebra migration moves the billing cluster on Friday.\n")
    write(ws, "notes/runbook.md", "# Runbook\n\nRotate the quokka certificates every ninety days.\n")
    write(state, "openclaw.json", OPENCLAW.replace("WORKSPACE", str(ws)))
    write(state, "extra.json5", "{ agents: { defaults: { memorySearch: { chunking: { tokens: 300 } } } } }\n")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    return state / "openclaw.json"


def test_an_openclaw_config_opens_as_it_is(openclaw: Path) -> None:
    cfg = config.resolve(openclaw)
    assert cfg.agent_id == "ops"  # the agents.list entry with default: true
    assert cfg.memory_search.query.max_results == 3  # the entry's memorySearch over the defaults
    assert cfg.memory_search.chunking.tokens == 300  # from the $include
    assert cfg.memory_search.extra_paths == ["notes"]
    assert cfg.workspace == openclaw.parent.parent / "ws"
    assert cfg.compaction.memory_flush.soft_threshold_tokens == 6000
    assert cfg.providers["openrouter"].api_key == "sk-or-test"  # ${VAR} substituted
    # OpenClaw keeps each agent's transcripts in its state folder
    assert cfg.memory_search.sessions_dir("ops") == openclaw.parent / "agents" / "ops" / "sessions"
    assert config.resolve(openclaw, agent="main").memory_search.query.max_results == 7


def test_escape_and_unset_variables_outside_memlane_s_keys(openclaw: Path) -> None:
    data = config.read_config_file(openclaw)
    assert data["gateway"]["auth"]["token"] == "${NOT_A_VAR}"  # $${VAR} is the text ${VAR}
    assert data["channels"]["telegram"]["botToken"] == "${TELEGRAM_BOT_TOKEN}"  # unset, and not memlane's: kept


def test_an_unset_variable_memlane_reads_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_EMBED_KEY", raising=False)
    path = tmp_path / "openclaw.json"
    path.write_text('{agents: {defaults: {memorySearch: {remote: {apiKey: "${MY_EMBED_KEY}"}}}}}')
    with pytest.raises(ConfigError, match=r"agents\.defaults\.memorySearch\.remote\.apiKey: environment variable "):
        config.resolve(path)
    monkeypatch.setenv("MY_EMBED_KEY", "k-1")
    assert config.resolve(path).memory_search.remote.api_key == "k-1"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{agents: {defaults: {memorySearch: {query: {maxResult: 3}}}}}", r"memorySearch\.query\.maxResult"),
        ('{agents: {defaults: {memorySearch: {provider: "nope"}}}}', r"memorySearch\.provider"),
        ("{agents: {defaults: {compaction: {memoryFlush: {enabld: true}}}}}", r"compaction\.memoryFlush\.enabld"),
        ("{agents: {defaults: {memorySerach: {}}}}", r"did you mean 'memorySearch'"),
        ("{agents: {defaults: {}},,}", r"not valid JSON5"),
        ('{$include: "./loop.json"}', r"circular include"),
        ("{$include: 3}", r"a path or a list of paths"),
        ('{$include: "./missing.json"}', r"config file not found"),
    ],
)
def test_mistakes_inside_what_memlane_owns_name_their_key(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "loop.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=error):
        config.resolve(path)


def test_discovery_own_config_then_openclaw(
    openclaw: Path, memlane_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(openclaw))
    assert config.resolve().agent_id == "ops"
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(openclaw.parent))
    assert config.resolve().memory_search.query.max_results == 3  # <state dir>/openclaw.json
    (memlane_home / "config.json").write_text('{"agents": {"defaults": {"memorySearch": {"provider": "none"}}}}')
    own = config.resolve()  # memlane's own config comes first
    assert own.agent_id == "main" and own.memory_search.query.max_results != 3


def test_extra_paths_are_indexed_read_only(openclaw: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    write(outside, "team.md", "# Team\n\nThe wombat rota starts on Mondays.\n")
    write(outside, ".hidden/secret.md", "# Hidden\n\nwombat secret\n")
    os.symlink(outside / "team.md", outside / "link.md")
    ws = openclaw.parent.parent / "ws"
    extra = {"extraPaths": ["notes", str(outside), "missing-folder"]}
    with memlane.open(config=openclaw, **extra) as mem:
        mem.sync()
        hits = mem.search("quokka certificates", min_score=0).results
        assert hits[0].path == "notes/runbook.md"
        team = mem.search("wombat rota", min_score=0).results
        assert team[0].path == (outside / "team.md").as_posix()
        assert all("hidden" not in r.path and not r.path.endswith("link.md") for r in team)
        assert "quokka" in mem.get("notes/runbook.md")
        assert "wombat" in mem.get(team[0].path)
        with pytest.raises(PathError):
            mem.get(str(outside / "link.md"))  # a symlink is refused as in the workspace
        with pytest.raises(PathError):
            mem.get(str(tmp_path / "elsewhere" / ".." / "ws" / "notes" / "runbook.md"))
        with pytest.raises(PathError):  # writes take memory paths only
            mem.insert("notes/runbook.md", "x", line=1)
        before = (ws / "notes/runbook.md").read_text()
        (ws / "notes/runbook.md").write_text(before + "\nAlso the capybara keys.\n")
        assert mem.search("capybara keys", min_score=0, fresh=True).results[0].path == "notes/runbook.md"


def test_an_extra_path_pattern_chooses_among_the_folders_files(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# Core\n")
    write(ws, "docs/guide.md", "# Guide\n\nThe heron feeder is refilled weekly.\n")
    write(ws, "docs/drafts/old.md", "# Draft\n\nThe heron feeder was once daily.\n")
    write(ws, "docs/api/ref.md", "# Ref\n\nThe heron endpoint.\n")
    write(ws, "docs/api/notes.markdown", "# Not Markdown by name\n")
    chosen = {"path": "docs", "pattern": "{*.md,api/**/*.md}"}
    with memlane.open(ws, provider="none", extraPaths=[chosen]) as mem:
        mem.sync()
        assert {f for f in mem.store.file_states() if f.startswith("docs/")} == {"docs/guide.md", "docs/api/ref.md"}
        assert "heron" in mem.get("docs/guide.md")
        with pytest.raises(PathError):  # a file the pattern leaves out is not read either
            mem.get("docs/drafts/old.md")
    with memlane.open(ws, provider="none", extraPaths=[{"path": "docs"}]) as mem:  # the default: every .md
        mem.sync()
        assert "docs/drafts/old.md" in mem.store.file_states()
    with pytest.raises(ConfigError, match="pattern"):
        memlane.open(ws, provider="none", extraPaths=[{"path": "docs", "pattern": "../*.md"}])


def test_glob_matcher_reads_globs_as_node_globbers_do() -> None:
    from memlane.workspace import glob_matcher

    cases = {
        "**/*.md": (["a.md", "x/y/a.md"], ["a.txt"]),
        "*.md": (["a.md"], ["x/a.md"]),
        "notes/**": (["notes/a.md", "notes/x/b.md"], ["other/a.md"]),
        "**/2026-??-*.md": (["memory/2026-01-05.md", "2026-11-30.md"], ["2026-1-05.md"]),
        "{a,b}/[!_]*.md": (["a/x.md", "b/y.md"], ["c/x.md", "a/_x.md"]),
        "[^_]*.md": (["x.md"], ["_x.md"]),  # ^ negates, as in Node
        "{a}.md": (["{a}.md"], ["a.md"]),  # a brace without a comma is literal, as in Node
    }
    for pattern, (good, bad) in cases.items():
        matches = glob_matcher(pattern)
        assert all(matches(p) for p in good), pattern
        assert not any(matches(p) for p in bad), pattern
    deep = "/".join(["d"] * 5000) + "/a.md"  # linear in the path's segments, whatever the pattern
    assert glob_matcher("**/**/**/**/*.md")(deep)
    with pytest.raises(ValueError, match="more than 64"):  # counted before any alternative is made
        glob_matcher("{a,b}" * 7 + "{" + ",".join(map(str, range(5000))) + "}")


def test_overlapping_extra_paths_and_too_many_alternatives(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "docs/a/x.md", "# X\n\nThe heron.\n")
    write(ws, "docs/b/y.md", "# Y\n\nThe egret.\n")
    narrow = {"path": "docs", "pattern": "a/*.md"}
    with memlane.open(ws, provider="none", extraPaths=[narrow, "docs"]) as mem:
        assert "egret" in mem.get("docs/b/y.md")  # listed by the second entry: readable, though not by the first
    with pytest.raises(ConfigError, match="alternatives"):
        memlane.open(ws, provider="none", extraPaths=[{"path": "docs", "pattern": "{a,b}" * 8}])


def test_cli_reads_the_openclaw_config_without_traceback(openclaw: Path) -> None:
    env = {**os.environ, "OPENROUTER_API_KEY": "sk-or-test"}
    out = subprocess.run(
        [sys.executable, "-m", "memlane", "--config", str(openclaw), "status"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "agent      ops" in out.stdout and "Traceback" not in out.stderr


# OpenClaw 2026.8+: memory.search at the top, agents.entries keyed by id, newer memorySearch keys.
CURRENT = """{
  agents: {
    defaults: { workspace: "WORKSPACE", model: { primary: "x" } },
    entries: { ops: { name: "Ops", memory: { search: { query: { maxResults: 4 } } } } },
  },
  memory: {
    backend: "builtin",
    citations: "auto",
    search: {
      provider: "none",
      outputDimensionality: 256,
      rememberAcrossConversations: true,
      multimodal: { enabled: true, modalities: ["image"] },
      query: { minScore: 0.2, hybrid: { temporalDecay: { enabled: true, halfLifeDays: 30 } } },
      extraPaths: [{ path: "notes", pattern: "**/*.md" }, "docs"],
      sync: { embeddingBatchTimeoutSeconds: 60 },
    },
  },
}
"""


def test_the_current_openclaw_shape(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text(CURRENT.replace("WORKSPACE", str(tmp_path)))
    config._warned.clear()  # once per process: start this test's count from none
    with caplog.at_level("WARNING", logger="memlane"):
        cfg = config.resolve(path)
    assert cfg.agent_id == "ops"  # the one agent is the default
    ms = cfg.memory_search
    assert (ms.query.max_results, ms.query.min_score) == (4, 0.2)  # the entry's memory.search over the top one
    assert ms.remote.dimensions == 256  # outputDimensionality
    assert ms.extra_paths == [config.ExtraPath(path="notes", pattern="**/*.md"), "docs"]
    warned = " ".join(r.getMessage() for r in caplog.records)
    for key in ("rememberAcrossConversations", "multimodal", "query.hybrid.temporalDecay"):
        assert key in warned
    caplog.clear()
    with caplog.at_level("WARNING", logger="memlane"):
        config.resolve(path)
    assert not caplog.records  # once per process


def test_includes_concatenate_arrays_and_stay_in_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    write(state, "paths.json5", '{ memorySearch: { extraPaths: ["a"] } }')
    write(
        state,
        "openclaw.json",
        '{ agents: { defaults: { $include: "./paths.json5", memorySearch: { extraPaths: ["b"] } } } }',
    )
    assert config.resolve(state / "openclaw.json").memory_search.extra_paths == ["a", "b"]
    write(tmp_path, "outside.json5", "{ memorySearch: { provider: 'none' } }")
    write(state, "escape.json", '{ agents: { defaults: { $include: "../outside.json5" } } }')
    with pytest.raises(ConfigError, match="escapes the config's folder"):
        config.resolve(state / "escape.json")
    monkeypatch.setenv("OPENCLAW_INCLUDE_ROOTS", str(tmp_path))
    assert config.resolve(state / "escape.json").memory_search.provider == "none"


def test_review_cases_in_config_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOPE_KEY", raising=False)
    path = tmp_path / "openclaw.json"
    path.write_text('{memory: {search: {remote: {apiKey: "${NOPE_KEY}"}}}, agents: {entries: {main: {}}}}')
    with pytest.raises(ConfigError, match=r"memory\.search\.remote\.apiKey: environment variable NOPE_KEY"):
        config.resolve(path)
    # includes that fan out are refused, not followed for ever
    for i in range(3):
        nxt = f'"./f{i + 1}.json5"' if i < 2 else "[]"
        write(tmp_path, f"f{i}.json5", "{ $include: [" + ", ".join([nxt] * 20) + "] }" if i < 2 else "{ a: [1] }")
    (tmp_path / "fan.json").write_text('{ $include: ["./f0.json5"] }')
    with pytest.raises(ConfigError, match="more than 200 files"):
        config.read_config_file(tmp_path / "fan.json")
    for bad in (
        '{"agents": {"list": 5}}',
        '{"memorySearch": {}, "agents": {"defaults": 5}}',
        '{"agents": {"entries": {"a": 3}}}',
    ):
        (tmp_path / "bad.json").write_text(bad)
        with pytest.raises(ConfigError):
            config.resolve(tmp_path / "bad.json")


def test_extra_paths_under_a_hidden_workspace_and_windows_names(tmp_path: Path) -> None:
    from memlane.workspace import list_memory_files, resolve_extra_path

    ws = tmp_path / ".openclaw" / "workspace"  # OpenClaw's default workspace sits in a hidden folder
    write(ws, "notes/a.md", "# A\n")
    write(ws, "notes/.private/b.md", "# B\n")
    assert [f.path for f in list_memory_files(ws, ["notes"])] == ["notes/a.md"]
    assert resolve_extra_path(ws, ["notes"], "notes/a.md") == ws / "notes" / "a.md"
    for name in ("notes/sub\\..\\..\\secret.md", "notes/C:\\x.md", "notes/../notes/a.md", "notes/.private/b.md"):
        assert resolve_extra_path(ws, ["notes"], name) is None
