from __future__ import annotations

import json
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.tools import tool_definitions


@pytest.mark.parametrize("style", ["openai", "responses", "anthropic", "json-schema"])
def test_definitions_are_valid_json_with_both_tools(style: str) -> None:
    defs = json.loads(json.dumps(tool_definitions(style)))
    names = [d.get("name") or d["function"]["name"] for d in defs]
    assert names == ["memory_search", "memory_get", "memory_write"]
    schema = defs[0].get("parameters") or defs[0].get("input_schema") or defs[0]["function"]["parameters"]
    assert schema["required"] == ["query"] and set(schema["properties"]) == {"query", "maxResults", "minScore"}


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


def test_disabled_payload(workspace: Path) -> None:
    with memlane.open(workspace, enabled=False) as mem:
        out = memlane.run_tool(mem, "memory_search", {"query": "x"})
    assert out["disabled"] is True and "disabled" in out["error"]
