"""``memlane mcp``: memory_search, memory_get and memory_write as an MCP server (stdio or HTTP).

Built on the official MCP Python SDK. The tools run :func:`memlane.tools.run_tool`, so an MCP client
gets the same payloads as any other agent integration (errors as ``{"error": ...}``). The server
keeps its Memory open with the watcher running, so the index follows the files while it serves.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from pydantic import Field

from .memory import Memory
from .tools import DESCRIPTIONS, READ_ONLY, run_tool

INSTRUCTIONS = (
    "Long-term memory of this agent, kept as Markdown (MEMORY.md and memory/YYYY-MM-DD.md). "
    "Search it before answering questions about past decisions, people, preferences or dates; "
    "write to it when something should be remembered."
)


def build_server(memory: Memory) -> Any:
    """An MCP server object (``mcp.server.mcpserver.MCPServer``) exposing the memory tools."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server = MCPServer(name="memlane", instructions=INSTRUCTIONS)

    def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        payload = run_tool(memory, name, {k: v for k, v in args.items() if v is not None})
        if "error" in payload:  # MCP clients see isError and the message
            raise ToolError(str(payload["error"]))
        return payload

    def memory_search(query: str, maxResults: int | None = None, minScore: float | None = None) -> dict[str, Any]:
        args: dict[str, Any] = {"query": query, "maxResults": maxResults, "minScore": minScore}
        return call("memory_search", args)

    def memory_get(path: str, lines: int | None = None, **rest: Any) -> dict[str, Any]:
        args: dict[str, Any] = {"path": path, "from": rest.get("from"), "lines": lines}
        return call("memory_get", args)

    # The argument is called "from" (as in every other memlane tool schema), a Python keyword: the SDK
    # reads the signature below, validates "from" by alias and passes it by that name into **rest.
    p = inspect.Parameter
    memory_get.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            p("path", p.POSITIONAL_OR_KEYWORD, annotation=str),
            p("from_", p.KEYWORD_ONLY, default=None, annotation=Annotated[int | None, Field(alias="from", ge=1)]),
            p("lines", p.KEYWORD_ONLY, default=None, annotation=Annotated[int | None, Field(ge=1)]),
        ],
        return_annotation=dict[str, Any],
    )

    def memory_write(text: str, heading: str | None = None, longTerm: bool = False) -> dict[str, Any]:
        args: dict[str, Any] = {"text": text, "heading": heading, "longTerm": longTerm}
        return call("memory_write", args)

    for name, fn in (("memory_search", memory_search), ("memory_get", memory_get), ("memory_write", memory_write)):
        read_only = READ_ONLY[name]
        server.add_tool(
            fn,
            name=name,
            description=DESCRIPTIONS[name],
            annotations=ToolAnnotations(
                title=name.replace("_", " "),
                read_only_hint=read_only,
                destructive_hint=False,  # memory_write only appends
                idempotent_hint=read_only,
                open_world_hint=False,
            ),
        )
    return server


def serve(memory: Memory, http: bool = False, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    if http and host not in ("127.0.0.1", "localhost", "::1"):
        from .errors import MemlaneError

        raise MemlaneError(f"memlane mcp --http serves on loopback only, not {host!r}")
    memory.start()
    server = build_server(memory)
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run("stdio")
