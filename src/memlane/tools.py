"""Agent tools: JSON schemas in the common function-calling formats, and one executor.

``run_tool(memory, name, arguments)`` never raises to the agent: failures come back as
``{"error": ..., "disabled": bool}`` payloads.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import MemlaneError
from .memory import Memory

SEARCH_DESCRIPTION = (
    "Search the agent's long-term memory (MEMORY.md and memory/*.md) for notes relevant to a question: "
    "prior decisions, preferences, people, dates, IDs. Returns snippets with file path and line range; "
    "call memory_get to read more around a hit."
)
GET_DESCRIPTION = (
    "Read a memory file (MEMORY.md, memory.md or memory/**/*.md, workspace-relative), "
    "optionally starting at line `from` (1-based) for `lines` lines."
)
WRITE_DESCRIPTION = (
    "Write a durable note to memory: appended to today's memory/YYYY-MM-DD.md (or to MEMORY.md with "
    "longTerm for curated facts and decisions), optionally under a heading. Use it when someone says "
    "'remember this', or for decisions, preferences and facts worth keeping. Returns the path and lines."
)

PARAMETERS: dict[str, dict[str, Any]] = {
    "memory_search": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What to look for, in natural language or exact terms.",
            },
            "maxResults": {"type": "integer", "minimum": 1, "description": "How many results at most."},
            "minScore": {
                "type": "number",
                "minimum": 0,
                "description": "Drop results scoring below this (0..1).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "memory_get": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Workspace-relative path, e.g. memory/2026-01-05.md."},
            "from": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
            "lines": {"type": "integer", "minimum": 1, "description": "How many lines to return."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    "memory_write": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The note, Markdown."},
            "heading": {"type": "string", "description": "Put the note under this heading (created if missing)."},
            "longTerm": {"type": "boolean", "description": "Write to MEMORY.md instead of today's daily file."},
        },
        "required": ["text"],
        "additionalProperties": False,
    },
}
DESCRIPTIONS = {"memory_search": SEARCH_DESCRIPTION, "memory_get": GET_DESCRIPTION, "memory_write": WRITE_DESCRIPTION}
READ_ONLY = {"memory_search": True, "memory_get": True, "memory_write": False}
TOOL_NAMES = tuple(PARAMETERS)


def tool_definitions(style: str = "openai") -> list[dict[str, Any]]:
    """Tool definitions: ``openai`` (chat completions), ``responses``, ``anthropic`` or ``json-schema``."""
    defs = []
    for name in TOOL_NAMES:
        params, desc = PARAMETERS[name], DESCRIPTIONS[name]
        if style == "openai":
            defs.append({"type": "function", "function": {"name": name, "description": desc, "parameters": params}})
        elif style == "responses":
            defs.append({"type": "function", "name": name, "description": desc, "parameters": params})
        elif style == "anthropic":
            defs.append({"name": name, "description": desc, "input_schema": params})
        elif style == "json-schema":
            defs.append({"name": name, "description": desc, "parameters": params})
        else:
            raise ValueError(f"unknown tool style {style!r}: use openai, responses, anthropic or json-schema")
    return defs


def _int_arg(args: dict[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise MemlaneError(f"{key} must be an integer, got {value!r}")
    return int(value)


def run_tool(memory: Memory, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    """Execute one tool call and return its JSON-ready payload (errors included, never raised)."""
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
    except (ValueError, TypeError) as exc:
        return {"error": f"arguments are not a JSON object: {exc}", "disabled": False}
    if not isinstance(args, dict):
        return {"error": "arguments must be a JSON object", "disabled": False}
    if not memory.settings.enabled:
        return {"error": f"memory search is disabled for agent {memory.agent_id!r}", "disabled": True}
    if memory.config.workspace_access == "none":
        return {
            "error": f"memory tools are disabled for agent {memory.agent_id!r} (workspaceAccess: none)",
            "disabled": True,
        }
    if name not in PARAMETERS:
        return {"error": f"unknown tool {name!r}; available: {', '.join(TOOL_NAMES)}", "disabled": False}
    unknown = set(args) - set(PARAMETERS[name]["properties"])
    if unknown:
        return {"error": f"unknown argument(s) for {name}: {', '.join(sorted(unknown))}", "disabled": False}
    try:
        if name == "memory_search":
            query = args.get("query")
            if not isinstance(query, str):
                raise MemlaneError("query must be a string")
            min_score = args.get("minScore")
            if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, int | float)):
                raise MemlaneError(f"minScore must be a number, got {min_score!r}")
            resp = memory.search(query, max_results=_int_arg(args, "maxResults"), min_score=min_score)
            return resp.to_dict()
        if name == "memory_write":
            text, heading, long_term = args.get("text"), args.get("heading"), args.get("longTerm", False)
            if not isinstance(text, str):
                raise MemlaneError("text must be a string")
            if heading is not None and not isinstance(heading, str):
                raise MemlaneError("heading must be a string")
            if not isinstance(long_term, bool):
                raise MemlaneError("longTerm must be true or false")
            if memory.config.workspace_access != "rw":
                return {"error": "memory is read-only for this agent (workspaceAccess: ro)", "disabled": True}
            return memory.write(text, heading=heading, long_term=long_term)
        path = args.get("path")
        if not isinstance(path, str):
            raise MemlaneError("path must be a string")
        start, count = _int_arg(args, "from"), _int_arg(args, "lines")
        text = memory.get(path, from_line=start, lines=count)
        return {"path": path, "from": start or 1, "text": text}
    except MemlaneError as exc:
        return {"error": str(exc), "disabled": False}
    except Exception as exc:  # an agent must get a payload, whatever broke
        return {"error": f"internal error in {name}: {type(exc).__name__}: {exc}", "disabled": False}
