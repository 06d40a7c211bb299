"""`memlane mcp` end to end with the official MCP Python SDK's client: stdio subprocess and HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

import memlane
from conftest import write


def _args(workspace: Path) -> list[str]:
    return ["-m", "memlane", "--workspace", str(workspace), "mcp"]


async def _exercise(client: Client, workspace: Path) -> dict[str, Any]:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    reads = {"memory_search", "memory_recall", "memory_get", "memory_core", "memory_graph"}
    assert set(tools) == reads | {"memory_write", "memory_replace", "memory_insert", "memory_capture"}
    for name, tool in tools.items():
        assert tool.annotations.read_only_hint is (name in reads), name
        assert tool.annotations.destructive_hint is (name == "memory_replace"), name
    assert "from" in tools["memory_get"].input_schema["properties"]
    assert {"query", "k", "since", "until", "kind", "entity", "budget", "now", "as_of", "known_at"} <= set(
        tools["memory_recall"].input_schema["properties"]
    )

    recalled = await client.call_tool("memory_recall", {"query": "Where is Peter?", "k": 2})
    assert not recalled.is_error
    fact = recalled.structured_content["facts"][0]  # type: ignore[index]
    assert fact["content"] == "Peter is in Lisbon this week." and fact["source"] == "MEMORY.md#L6"
    core = await client.call_tool("memory_core", {})
    assert core.structured_content["path"] == "MEMORY.md" and "PostgreSQL" in core.structured_content["text"]  # type: ignore[index]
    inserted = await client.call_tool("memory_insert", {"path": "bank/world.md", "text": "# World", "line": 0})
    assert not inserted.is_error and (workspace / "bank" / "world.md").read_text() == "# World\n"
    replaced = await client.call_tool("memory_replace", {"path": "MEMORY.md", "old": "Lisbon", "new": "Porto"})
    assert not replaced.is_error and replaced.structured_content["startLine"] == 6  # type: ignore[index]
    twice = await client.call_tool("memory_replace", {"path": "MEMORY.md", "old": "Lisbon", "new": "Porto"})
    assert twice.is_error and "not in MEMORY.md" in json.dumps([c.model_dump() for c in twice.content])

    found = await client.call_tool("memory_search", {"query": "PostgreSQL", "maxResults": 2})
    assert not found.is_error
    hit = found.structured_content["results"][0]  # type: ignore[index]
    assert hit["path"] == "MEMORY.md"
    got = await client.call_tool("memory_get", {"path": "MEMORY.md", "from": hit["startLine"], "lines": 3})
    assert "PostgreSQL" in got.structured_content["text"]  # type: ignore[index]
    wrote = await client.call_tool("memory_write", {"text": "The MCP pelican note.", "heading": "MCP"})
    assert not wrote.is_error and wrote.structured_content["indexed"] is True  # type: ignore[index]
    again = await client.call_tool("memory_search", {"query": "pelican"})
    assert again.structured_content["results"][0]["path"] == wrote.structured_content["path"]  # type: ignore[index]
    bad = await client.call_tool("memory_get", {"path": "../../etc/passwd"})
    assert bad.is_error and "'..'" in json.dumps([c.model_dump() for c in bad.content])
    return {"written": wrote.structured_content}


FACTS = "# Facts\n\nThe database is PostgreSQL 16.\n\n## Retain\n- W @Peter: Peter is in Lisbon this week.\n"


def test_stdio_server(workspace: Path) -> None:
    write(workspace, "MEMORY.md", FACTS)
    params = StdioServerParameters(command=sys.executable, args=_args(workspace), env=dict(os.environ))

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=60) as client:
            return await _exercise(client, workspace)

    out = asyncio.run(main())
    assert "The MCP pelican note." in (workspace / out["written"]["path"]).read_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_http(workspace: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, *_args(workspace), "--http", "--port", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode() if proc.stderr else "server exited")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("server did not start")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(30)
    if proc.stderr:
        proc.stderr.close()


def test_streamable_http_server(workspace: Path) -> None:
    write(workspace, "MEMORY.md", FACTS)
    proc, port = _start_http(workspace)
    try:

        async def main() -> dict[str, Any]:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as client:
                return await _exercise(client, workspace)

        asyncio.run(main())
    finally:
        _stop(proc)


def test_http_refuses_a_non_loopback_host_without_a_token(workspace: Path) -> None:
    result = subprocess.run(
        [sys.executable, *_args(workspace), "--http", "--host", "0.0.0.0"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and "only with a token" in result.stderr


def _status(port: int, authorization: str | None) -> int:
    """The HTTP status of a bare tools/list with this Authorization header (none: no header)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if authorization is not None:
        headers["Authorization"] = authorization
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as e:
        with e:
            return e.code


def test_http_with_a_token_file_serves_beyond_loopback_and_only_to_the_bearer(workspace: Path, tmp_path: Path) -> None:
    write(workspace, "MEMORY.md", FACTS)
    token_file = tmp_path / "secrets" / "mcp-token"
    proc, port = _start_http(workspace, "--host", "0.0.0.0", "--token-file", str(token_file))
    try:
        token = token_file.read_text().strip()
        assert len(token) >= 40 and stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert _status(port, None) == 401
        assert _status(port, "Bearer not-the-token") == 401
        assert _status(port, token) == 401  # the scheme is part of the header

        async def main() -> list[str]:
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
                transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
                async with Client(transport, read_timeout_seconds=60) as client:
                    found = await client.call_tool("memory_search", {"query": "PostgreSQL"})
                    return [r["path"] for r in found.structured_content["results"]]  # type: ignore[index]

        assert asyncio.run(main())[0] == "MEMORY.md"
    finally:
        _stop(proc)
    proc, port = _start_http(workspace, "--token-file", str(token_file))  # the next start reads the same token
    try:
        assert token_file.read_text().strip() == token
        assert _status(port, None) == 401
    finally:
        _stop(proc)


def _stdio(workspace: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[*_args(workspace), *extra], env=dict(os.environ))


def test_workspace_access_through_the_mcp_server(workspace: Path, tmp_path: Path) -> None:
    write(workspace, "MEMORY.md", FACTS)
    before = {p: p.read_bytes() for p in workspace.rglob("*.md")}

    async def main(access: str) -> dict[str, bool]:
        cfg = tmp_path / f"{access}.json"
        cfg.write_text(json.dumps({"agents": {"defaults": {"workspaceAccess": access}}}))
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memlane", "--workspace", str(workspace), "--config", str(cfg), "mcp"],
            env=dict(os.environ),
        )
        errors = {}
        async with Client(params, read_timeout_seconds=60) as client:
            for name, args in [
                ("memory_search", {"query": "PostgreSQL"}),
                ("memory_recall", {"query": "Lisbon"}),
                ("memory_get", {"path": "MEMORY.md"}),
                ("memory_write", {"text": "must not land"}),
                ("memory_replace", {"path": "MEMORY.md", "old": "Lisbon", "new": "Porto"}),
                ("memory_insert", {"path": "MEMORY.md", "text": "must not land"}),
                ("memory_capture", {"turns": [{"role": "user", "content": "I moved to Oslo."}]}),
            ]:
                res = await client.call_tool(name, args)
                errors[name] = bool(res.is_error)
        return errors

    ro = asyncio.run(main("ro"))
    assert ro == {
        "memory_search": False, "memory_recall": False, "memory_get": False,
        "memory_write": True, "memory_replace": True, "memory_insert": True, "memory_capture": True,
    }  # fmt: skip
    assert all(asyncio.run(main("none")).values())
    assert {p: p.read_bytes() for p in workspace.rglob("*.md")} == before


def test_the_mcp_server_keeps_the_index_fresh_while_it_serves(workspace: Path) -> None:
    """A file saved behind the server's back is indexed by the server's own watcher, before any tool call."""
    write(workspace, "MEMORY.md", FACTS)

    async def main() -> None:
        async with Client(_stdio(workspace), read_timeout_seconds=60) as client:
            await client.call_tool("memory_search", {"query": "PostgreSQL"})  # the index exists now
            write(workspace, "memory/2026-03-01.md", "The heron nests by the lake.\n")
            with memlane.open(workspace, provider="none", sync={"onSearch": False}) as probe:
                deadline = time.monotonic() + 60
                while "memory/2026-03-01.md" not in probe.store.file_states():  # no tool call in between
                    assert time.monotonic() < deadline, "the server's watcher did not index the new file"
                    await asyncio.sleep(0.1)
            found = await client.call_tool("memory_search", {"query": "heron"})
            assert found.structured_content["results"][0]["path"] == "memory/2026-03-01.md"  # type: ignore[index]
            assert found.structured_content["stale"] is False  # type: ignore[index]

    asyncio.run(main())
