"""``memlane mcp``: the memory tools (search, recall, get, core, write, replace, insert) as an MCP server.

Built on the official MCP Python SDK. The tools run :func:`memlane.tools.run_tool`, so an MCP client
gets the same payloads as any other agent integration (errors as ``{"error": ...}``). The server
keeps its Memory open with the watcher running, so the index follows the files while it serves.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from .memory import Memory
from .tools import DESCRIPTIONS, READ_ONLY, TOOL_NAMES, run_tool

INSTRUCTIONS = (
    "Long-term memory of this agent, kept as Markdown (MEMORY.md, memory/YYYY-MM-DD.md, bank/). "
    "Read memory_core at the start of a session. Search or recall before answering questions about past "
    "decisions, people, preferences or dates; write to it when something should be remembered."
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

    def memory_recall(
        query: str,
        k: Annotated[int | None, Field(ge=1)] = None,
        since: str | None = None,
        until: str | None = None,
        kind: str | list[str] | None = None,
        entity: str | None = None,
        budget: Annotated[int | None, Field(ge=1)] = None,
        now: str | None = None,
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"query": query, "k": k, "since": since, "until": until, "kind": kind}
        return call("memory_recall", {**args, "entity": entity, "budget": budget, "now": now})

    def memory_core() -> dict[str, Any]:
        return call("memory_core", {})

    def memory_write(text: str, heading: str | None = None, longTerm: bool = False) -> dict[str, Any]:
        args: dict[str, Any] = {"text": text, "heading": heading, "longTerm": longTerm}
        return call("memory_write", args)

    def memory_replace(path: str, old: str, new: str) -> dict[str, Any]:
        return call("memory_replace", {"path": path, "old": old, "new": new})

    def memory_insert(
        path: str, text: str, line: Annotated[int | None, Field(ge=-1)] = None, heading: str | None = None
    ) -> dict[str, Any]:
        return call("memory_insert", {"path": path, "text": text, "line": line, "heading": heading})

    handlers: dict[str, Callable[..., dict[str, Any]]] = {
        "memory_search": memory_search,
        "memory_recall": memory_recall,
        "memory_get": memory_get,
        "memory_core": memory_core,
        "memory_write": memory_write,
        "memory_replace": memory_replace,
        "memory_insert": memory_insert,
    }
    for name in TOOL_NAMES:
        read_only = READ_ONLY[name]
        server.add_tool(
            handlers[name],
            name=name,
            description=DESCRIPTIONS[name],
            annotations=ToolAnnotations(
                title=name.replace("_", " "),
                read_only_hint=read_only,
                destructive_hint=name == "memory_replace",  # the others only read or add
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
