"""Readers of the vendors' "export data" archives: a whole history of conversations in one ``conversations.json``
(the zip, its folder, or the file), read under ``capture.maxExportBytes``.

``chatgpt`` export (the zip, its folder, or ``conversations.json``)
    A list of ``{id | conversation_id, title, create_time, current_node, mapping}``; the conversation
    is the branch from ``current_node`` up its ``parent`` links (the branch the person last saw); a
    node's ``message.author.role`` user | assistant, ``content.content_type`` text | multimodal_text and
    its string ``parts`` are read, role "tool" (browsing, code output, canvas) is outside text; hidden
    messages (``metadata.is_visually_hidden_from_conversation``), custom instructions
    (``user_editable_context``, ``is_user_system_message``) and assistant messages addressed to a tool or
    to memory (``recipient`` other than "all": ``bio``, ``canmore.*``, ``python``) are skipped.
``claude-ai`` export (the zip, its folder, or ``conversations.json``)
    A list of ``{uuid, name, created_at, chat_messages}``; a message's ``sender`` human | assistant,
    ``created_at``, and its ``content`` ``text`` blocks (else its ``text``); ``tool_result`` blocks are
    outside text.

A zip's declared size is checked before anything is unpacked (a zip bomb unpacks nothing); an encrypted member or
one packed in a way zipfile cannot unpack (Deflate64) is a one-line :class:`FormatError`; a conversation nested
deeper than the parser goes is counted and left out, the others read.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .formats import (
    Conversation,
    FormatError,
    Unreadable,
    blocks_text,
    nonempty,
    parse_timestamp,
    spoken_turn,
    tool_text,
    tool_turn,
)
from .turns import Turn

EXPORTS = ("chatgpt", "claude-ai")

EXPORT_MAX_DEFAULT = 256 * 2**20
# Compression methods zipfile can unpack here (stored, deflate, bzip2, lzma); Deflate64 (9) and others cannot.
_ZIP_METHODS = frozenset((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA))


def _mb(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n} bytes"


def _too_big(kind: str, path: Path, size: int, limit: int) -> FormatError:
    return FormatError(
        f"the {kind} export {path} holds a conversations.json of {_mb(size)}, over capture.maxExportBytes "
        f"({_mb(limit)}): raise that setting to import it"
    )


def _export_bytes(kind: str, path: Path, limit: int) -> bytes:
    """The bytes of an export's ``conversations.json`` (its zip, its folder or the file), at most ``limit`` of
    them: the size a zip declares is checked before anything is unpacked (a zip bomb unpacks nothing), and the
    unpacking stops past ``limit`` whatever the zip declared."""
    if path.is_dir():
        path = path / "conversations.json"
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            infos = [i for i in zf.infolist() if i.filename.rsplit("/", 1)[-1] == "conversations.json"]
            if not infos:
                raise FormatError(f"{path} has no conversations.json: is it a {kind} export?")
            info = min(infos, key=lambda i: len(i.filename))
            if info.flag_bits & 0x1:
                raise FormatError(f"{path}: conversations.json is encrypted; unzip it with its password first")
            if info.compress_type not in _ZIP_METHODS:
                raise FormatError(
                    f"{path}: conversations.json is packed with a method memlane cannot unpack "
                    f"(zip method {info.compress_type}); unzip it and import the folder"
                )
            if info.file_size > limit:
                raise _too_big(kind, path, info.file_size, limit)
            with zf.open(info) as fh:
                data = fh.read(limit + 1)
    else:
        if not path.is_file():
            raise FileNotFoundError(path)
        size = path.stat().st_size
        if size > limit:
            raise _too_big(kind, path, size, limit)
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    if len(data) > limit:
        raise _too_big(kind, path, len(data), limit)
    return data


def _export_json(kind: str, path: Path, limit: int = EXPORT_MAX_DEFAULT) -> tuple[Any, int]:
    """The parsed ``conversations.json`` of an export, and how many of its conversations could not be read
    (nested too deep to parse: each such one is left out, the others read)."""
    try:
        data = _export_bytes(kind, path, limit)
    except FileNotFoundError:
        raise FormatError(f"no conversations.json at {path}: give the export's zip, its folder or the file") from None
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FormatError(f"cannot read the {kind} export {path}: {detail}") from None
    try:
        return json.loads(data), 0
    except RecursionError:
        return _items_one_by_one(data)
    except ValueError as exc:
        raise FormatError(f"the {kind} export {path} is not valid JSON: {exc}") from None


_JSON_MARK = re.compile(rb'[\[\]{}"]')
_STRING_END = re.compile(rb'["\\]')


def _items_one_by_one(data: bytes) -> tuple[list[Any], int]:
    """A top-level JSON array read item by item: an item nested too deep to parse is counted and left out,
    the items around it still read. One pass over the bytes (strings skipped by their quotes and escapes)."""
    items: list[Any] = []
    bad = 0
    depth, pos, start = 0, 0, -1
    while (m := _JSON_MARK.search(data, pos)) is not None:
        mark, pos = m.group(), m.end()
        if mark == b'"':
            while (e := _STRING_END.search(data, pos)) is not None and e.group() == b"\\":
                pos = e.end() + 1
            if e is None:
                break
            pos = e.end()
        elif mark in b"[{":
            depth += 1
            if depth == 2:
                start = m.start()
        else:
            depth -= 1
            if depth == 1 and start >= 0:
                try:
                    items.append(json.loads(data[start:pos]))
                except (ValueError, RecursionError):
                    bad += 1
                start = -1
            elif depth <= 0:
                break
    return items, bad


def read_export(kind: str, path: Path, limit: int = EXPORT_MAX_DEFAULT) -> Iterator[Conversation]:
    """The conversations of a ChatGPT or claude.ai "export data" archive, each with its turns; ``limit`` bounds
    the bytes of its ``conversations.json`` (``capture.maxExportBytes``)."""
    if kind not in EXPORTS:
        raise FormatError(f"unknown export {kind!r}; one of {', '.join(EXPORTS)}")
    data, bad = _export_json(kind, path, limit)
    if not isinstance(data, list):
        raise FormatError(f"the {kind} export's conversations.json is not a list of conversations")
    items = [c for c in data if isinstance(c, dict)]
    if items:
        looks = "chatgpt" if "mapping" in items[0] else "claude-ai" if "chat_messages" in items[0] else None
        if looks != kind:
            hint = f"it looks like a {looks} export" if looks else "it has neither 'mapping' nor 'chat_messages'"
            raise FormatError(f"{path} is not a {kind} export: {hint}")
    if bad:
        yield Conversation(f"unreadable-{bad}", "", [], unreadable=bad)
    for item in items:
        try:
            conv = _chatgpt(item) if kind == "chatgpt" else _claude_ai(item)
        except RecursionError:
            conv = Conversation(f"unreadable-{id(item)}", "", [], unreadable=1)
        if conv is not None and (conv.turns or conv.unreadable):
            yield conv


# ChatGPT: messages whose author or content says they are not the conversation's words.
_GPT_SPOKEN = ("text", "multimodal_text")


def _gpt_text(content: Mapping[str, Any]) -> str:
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(p for p in parts if isinstance(p, str))
    for key in ("text", "result"):
        if isinstance(content.get(key), str):
            return str(content[key])
    return ""


def _chatgpt(item: Mapping[str, Any]) -> Conversation | None:
    mapping = item.get("mapping")
    if not isinstance(mapping, dict):
        return None
    node_id = item.get("current_node")
    if node_id not in mapping:  # no current node: the last node that has a message
        node_id = next(reversed(mapping), None)
    branch: list[Mapping[str, Any]] = []
    seen: set[Any] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        branch.append(node)
        node_id = node.get("parent")
    turns: list[Turn] = []
    bad = 0
    for node in reversed(branch):
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue
        try:
            turns.extend(_chatgpt_message(msg))
        except (Unreadable, RecursionError):
            bad += 1
    ident = nonempty(item.get("conversation_id")) or nonempty(item.get("id")) or f"untitled-{len(turns)}"
    title = nonempty(item.get("title")) or ""
    return Conversation(ident, title, turns, parse_timestamp(item.get("create_time")), bad)


def _chatgpt_message(msg: Mapping[str, Any]) -> list[Turn]:
    """One node's message: the person's and the assistant's visible words; a tool's, a browsing result's or
    a canvas's text as outside text; custom instructions, memory writes (``recipient: "bio"``), system and
    hidden messages, and calls addressed to a tool: nothing."""
    author = msg.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    meta = msg.get("metadata")
    content = msg.get("content")
    if not isinstance(content, dict):
        return []
    if isinstance(meta, dict) and (
        meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message")
    ):
        return []
    if role == "tool":
        return tool_turn(_gpt_text(content), msg.get("create_time"))
    if role == "assistant" and msg.get("recipient", "all") != "all":
        return []  # a call addressed to a tool, a memory write ("bio"), a canvas edit ("canmore.*")
    if content.get("content_type") not in _GPT_SPOKEN:
        return []  # user_editable_context (custom instructions), code for a tool, ...
    return spoken_turn(role, _gpt_text(content), msg.get("create_time"))


_CLAUDE_ROLES = {"human": "user", "assistant": "assistant"}


def _claude_ai(item: Mapping[str, Any]) -> Conversation | None:
    messages = item.get("chat_messages")
    if not isinstance(messages, list):
        return None
    turns: list[Turn] = []
    bad = 0
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        content = msg.get("content")
        text = blocks_text(content) if isinstance(content, list) and content else msg.get("text", "")
        try:
            if isinstance(content, list):
                for b in content:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        turns.extend(tool_turn(tool_text(b.get("content")), msg.get("created_at")))
            if isinstance(text, str):
                turns.extend(spoken_turn(_CLAUDE_ROLES.get(str(msg.get("sender"))), text, msg.get("created_at")))
        except (Unreadable, RecursionError):
            bad += 1
    ident = nonempty(item.get("uuid")) or f"untitled-{len(turns)}"
    return Conversation(ident, nonempty(item.get("name")) or "", turns, parse_timestamp(item.get("created_at")), bad)
