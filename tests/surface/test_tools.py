from __future__ import annotations

import json
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.surface.tools import tool_definitions


@pytest.mark.parametrize("style", ["openai", "responses", "anthropic", "json-schema"])
def test_definitions_are_valid_json_with_every_tool(style: str) -> None:
    defs = json.loads(json.dumps(tool_definitions(style)))
    names = [d.get("name") or d["function"]["name"] for d in defs]
    assert names == [
        "memory_search", "memory_recall", "memory_get", "memory_core",
        "memory_write", "memory_replace", "memory_insert", "memory_capture", "memory_graph",
    ]  # fmt: skip
    schema = defs[0].get("parameters") or defs[0].get("input_schema") or defs[0]["function"]["parameters"]
    assert schema["required"] == ["query"] and set(schema["properties"]) == {"query", "maxResults", "minScore", "now"}


def test_unknown_style() -> None:
    with pytest.raises(ValueError, match="unknown tool style"):
        tool_definitions("cobol")


def test_search_and_get_payloads(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        out = memlane.run_tool(mem, "memory_search", '{"query": "Kubernetes", "maxResults": 2}')
        assert out["mode"] == "hybrid" and len(out["results"]) <= 2
        hit = out["results"][0]
        assert hit["path"] == "memory/2026-01-05.md"
        got = memlane.run_tool(mem, "memory_get", {"path": hit["path"], "from": hit["startLine"], "lines": 2})
        assert got["text"].startswith("# 2026-01-05")
        json.dumps(out), json.dumps(got)  # JSON-ready


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("memory_get", {"path": "../../etc/passwd"}, "'..'"),
        ("memory_get", {"path": "/etc/passwd"}, "absolute"),
        ("memory_get", {"path": "memory/x.md", "from": "ten"}, "integer"),
        ("memory_search", {}, "query must be a string"),
        ("memory_search", {"query": "x", "maxResults": 0}, "maxResults"),
        ("memory_search", {"query": "x", "bogus": 1}, "unknown argument"),
        ("memory_delete", {}, "unknown tool"),
        ("memory_search", "{not json", "not a JSON object"),
    ],
)
def test_failures_are_payloads_not_exceptions(
    workspace: Path, fake: FakeEmbedder, name: str, args: object, fragment: str
) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        out = memlane.run_tool(mem, name, args)  # type: ignore[arg-type]
    assert fragment in out["error"] and out["disabled"] is False


def test_recall_core_and_edits_through_run_tool(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        out = memlane.run_tool(
            mem, "memory_recall", {"query": "Marrakech", "k": 2, "kind": ["world"], "now": "2025-12-03"}
        )
        assert out["facts"][0]["source"] == "memory/2025-11-27.md#L7" and len(out["facts"]) <= 2
        assert set(out) == {"facts", "entities", "notes"}
        core = memlane.run_tool(mem, "memory_core", {})
        assert core["path"] == "MEMORY.md" and core["chars"] == len(core["text"]) and core["maxChars"] == 5000
        ins = memlane.run_tool(mem, "memory_insert", {"path": "bank/entities/Dana.md", "text": "# Dana", "line": 0})
        assert ins["startLine"] == 1 and ins["text"] == "# Dana" and ins["indexed"] is True
        rep = memlane.run_tool(mem, "memory_replace", {"path": "MEMORY.md", "old": "on WhatsApp", "new": "in chat"})
        assert rep["text"].endswith("Prefers concise replies in chat.") and rep["startLine"] == rep["endLine"] == 4
        assert mem.recall("replies in chat", k=1).facts[0].content == "Prefers concise replies in chat."
        for name, args, fragment in [
            ("memory_recall", {"query": "x", "kind": 3}, "kind must be"),
            ("memory_recall", {"query": "x", "now": "tomorrow-ish"}, "now must be an ISO date"),
            ("memory_replace", {"path": "MEMORY.md", "old": "nowhere to be found", "new": ""}, "not in MEMORY.md"),
            ("memory_insert", {"path": "../x.md", "text": "y"}, "'..'"),
            ("memory_core", {"extra": 1}, "unknown argument"),
        ]:
            bad = memlane.run_tool(mem, name, args)
            assert fragment in bad["error"] and bad["disabled"] is False, (name, bad)


@pytest.mark.parametrize("access", ["ro", "none"])
def test_edits_are_refused_unless_the_workspace_is_writable(fact_workspace: Path, access: str) -> None:
    before = {p: p.read_bytes() for p in fact_workspace.rglob("*.md")}
    config = {"agents": {"defaults": {"workspaceAccess": access}}}
    with memlane.open(fact_workspace, config=config, provider="none") as mem:
        for name, args in [
            ("memory_replace", {"path": "MEMORY.md", "old": "WhatsApp", "new": "Signal"}),
            ("memory_insert", {"path": "MEMORY.md", "text": "more"}),
            ("memory_write", {"text": "more"}),
            ("memory_capture", {"turns": [{"role": "user", "content": "I moved to Oslo."}]}),
        ]:
            out = memlane.run_tool(mem, name, args)
            assert out["disabled"] is True and "error" in out
        reads = memlane.run_tool(mem, "memory_recall", {"query": "Marrakech"})
        assert ("facts" in reads) == (access == "ro") and ("disabled" in reads) == (access == "none")
        with pytest.raises(memlane.MemlaneError, match="not allowed"):
            mem.replace("MEMORY.md", "WhatsApp", "Signal")
        with pytest.raises(memlane.MemlaneError, match="not allowed"):
            mem.insert("MEMORY.md", "more")
    assert {p: p.read_bytes() for p in fact_workspace.rglob("*.md")} == before


def test_disabled_payload(workspace: Path) -> None:
    with memlane.open(workspace, enabled=False) as mem:
        out = memlane.run_tool(mem, "memory_search", {"query": "x"})
    assert out["disabled"] is True and "disabled" in out["error"]
