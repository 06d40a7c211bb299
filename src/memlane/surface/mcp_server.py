"""``memlane mcp``: the memory tools (search, recall, get, core, write, replace, insert, capture) as an MCP server.

Built on the official MCP Python SDK. The tools run :func:`memlane.surface.tools.run_tool`, so an MCP client
gets the same payloads as any other agent integration (errors as ``{"error": ...}``). The server
keeps its Memory open with the watcher running, so the index follows the files while it serves.
"""

from __future__ import annotations

import hmac
import inspect
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config.sections import LOOPBACK, TOKEN_ENV
from ..errors import MemlaneError, UsageError
from ..memory import Memory
from .tools import DESCRIPTIONS, READ_ONLY, TOOL_NAMES, run_tool

INSTRUCTIONS = (
    "Long-term memory of this agent, kept as Markdown (MEMORY.md, memory/YYYY-MM-DD.md, bank/). "
    "Read memory_core at the start of a session. Search or recall before answering questions about past "
    "decisions, people, preferences or dates; write to it when something should be remembered."
)


class CapturedTurn(BaseModel):
    """One message given to memory_capture."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant"]
    content: str
    timestamp: str | None = None
    name: str | None = None


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
        as_of: str | None = None,
        known_at: str | None = None,
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"query": query, "k": k, "since": since, "until": until, "kind": kind}
        more = {"entity": entity, "budget": budget, "now": now, "as_of": as_of, "known_at": known_at}
        return call("memory_recall", {**args, **more})

    def memory_graph(
        entity: str,
        depth: Annotated[int | None, Field(ge=1, le=4)] = None,
        as_of: str | None = None,
        to: str | None = None,
        timeline: bool = False,
    ) -> dict[str, Any]:
        args = {"entity": entity, "depth": depth, "as_of": as_of, "to": to, "timeline": timeline}
        return call("memory_graph", args)

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

    def memory_capture(turns: list[CapturedTurn], session: str | None = None) -> dict[str, Any]:
        items = [t.model_dump(exclude_none=True) for t in turns]
        return call("memory_capture", {"turns": items, "session": session})

    handlers: dict[str, Callable[..., dict[str, Any]]] = {
        "memory_search": memory_search,
        "memory_recall": memory_recall,
        "memory_get": memory_get,
        "memory_core": memory_core,
        "memory_write": memory_write,
        "memory_replace": memory_replace,
        "memory_insert": memory_insert,
        "memory_capture": memory_capture,
        "memory_graph": memory_graph,
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


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>`` (compared in
    constant time), or it gets 401 and nothing else runs."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized: this memlane MCP server needs its bearer token"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def token_from_file(path: Path) -> str:
    """The token in ``path``; a new random one is written there (mode 0600) when the file does not exist."""
    if path.exists():
        token = path.read_text().strip()
        if not token:
            raise MemlaneError(f"the token file {path} is empty")
        return token
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token


def serve(
    memory: Memory, http: bool = False, host: str = "127.0.0.1", port: int = 8765, token: str | None = None
) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP). Over HTTP, a token
    (the argument, ``mcp.http.token`` or ``MEMLANE_MCP_TOKEN``) is required of every request; without one
    the server answers on loopback only, to any local user."""
    token = token or memory.config.mcp.http.token or os.environ.get(TOKEN_ENV) or None
    if http and host not in LOOPBACK and not token:
        raise UsageError(
            f"memlane mcp --http serves beyond loopback ({host!r}) only with a token: "
            f"--token-file FILE, mcp.http.token or {TOKEN_ENV}"
        )
    memory.start()
    server = build_server(memory)
    if not http:
        server.run("stdio")
    elif token is None:
        server.run("streamable-http", host=host, port=port)
    else:
        import uvicorn

        app = BearerAuth(server.streamable_http_app(host=host), token)
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
