"""Capture and import: a transcript, a history already there, a host's hook."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ...capture import FORMATS
from ...capture.backfill import KINDS as IMPORT_KINDS
from ...errors import MemlaneError
from ...memory import MAX_COUNT
from ..install import HOSTS as INSTALL_HOSTS
from ..install import cursor_hooks_installed
from .group import cli, fail, opened

HOOK_INPUT_MAX = 16_000_000  # bytes of hook JSON read from stdin


@cli.command()
@click.option(
    "--transcript",
    "transcript",
    required=True,
    help="A session transcript (JSONL) to capture what is new in; - reads one whole from stdin.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", *FORMATS]),
    default="auto",
    show_default=True,
    help="The transcript's format; auto tells them apart from its first records.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def capture(ctx: click.Context, transcript: str, fmt: str, as_json: bool) -> None:
    """Turn a conversation into memory: Retain bullets and a digest in the daily log, per session."""
    with opened(ctx) as mem:
        if transcript == "-":
            report = mem.capture_stream(sys.stdin.buffer.read(mem.config.capture.max_transcript_bytes + 1), fmt)
        else:
            report = mem.capture_transcript(Path(transcript), fmt)
    _print_capture(report.to_dict(), as_json)


@cli.command(name="import")
@click.argument("kind", type=click.Choice(list(IMPORT_KINDS)))
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--since", help="Only what was said from this day on: YYYY-MM-DD, 30d, 6m.")
@click.option("--dry-run", is_flag=True, help="List what would be captured; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def import_(ctx: click.Context, kind: str, path: Path, since: str | None, dry_run: bool, as_json: bool) -> None:
    """Capture a history you already have: transcripts of claude-code, codex or openclaw under PATH, or a
    chatgpt or claude-ai export (its zip, folder or conversations.json). Resumes after an interruption."""
    from tqdm import tqdm

    with opened(ctx) as mem:
        items, _ = mem.import_history(kind, path, since=since, dry_run=True)
        if dry_run:
            if as_json:
                click.echo(json.dumps([{"name": i.name, "turns": i.turns} for i in items], indent=2))
            else:
                for i in items:
                    click.echo(f"{i.name}" + (f" ({i.turns} turns)" if i.turns else ""))
                click.echo(f"{len(items)} to capture", err=True)
            return
        # An export's conversations say their turns up front: the ETA is in turns; transcripts count as files.
        by_turns = bool(items) and all(i.turns for i in items)
        total = sum(i.turns for i in items) if by_turns else len(items)
        unit = "turn" if by_turns else "file"
        with tqdm(total=total, unit=unit, disable=as_json, file=sys.stderr, desc="capture") as bar:
            _, report = mem.import_history(
                kind, path, since=since, progress=lambda i, _r: bar.update(i.turns if by_turns else 1)
            )
    _print_capture(report.to_dict(), as_json)


def _print_capture(out: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    click.echo(
        f"{out['turnsRead']} turns read ({out['turnsSeenBefore']} seen before, {out['turnsExcluded']} excluded); "
        f"{out['factsDrafted']} facts drafted, {out['factsWritten']} written, {out['skippedAsKnown']} already known; "
        f"{out['secretsRedacted']} secrets redacted; {out['seconds']:.2f}s"
    )
    for sec in out["sections"]:
        click.echo(f"  {sec['path']}#L{sec['startLine']}-L{sec['endLine']} (session {sec['session']})")
    for note in out["notes"]:
        click.echo(f"note: {note}", err=True)


@cli.command()
@click.argument("event", type=click.Choice(["session-start", "capture"]))
@click.option("--budget", type=click.IntRange(50, MAX_COUNT), default=2000, show_default=True)
@click.option("--host", "host", type=click.Choice(list(INSTALL_HOSTS)), help="The host whose hook this is.")
@click.pass_context
def hook(ctx: click.Context, event: str, budget: int, host: str | None) -> None:
    """Run as a host's hook, its JSON input on stdin: session-start prints `memlane context` for the session's
    folder; capture captures what is new in the session's transcript (transcript_path)."""
    raw = sys.stdin.buffer.read(HOOK_INPUT_MAX + 1) if not sys.stdin.isatty() else b""
    if len(raw) > HOOK_INPUT_MAX:
        fail(f"the hook input on stdin is over {HOOK_INPUT_MAX // 1_000_000} MB")
    try:
        payload = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError, RecursionError):
        fail("the hook input on stdin is not JSON")
    if not isinstance(payload, dict):
        payload = {}
    in_cursor = "cursor_version" in payload
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    if cwd is None and isinstance(roots, list) and roots and isinstance(roots[0], str):
        cwd = roots[0]  # Cursor's input names the workspace folders, not a cwd
    if in_cursor and host == "claude-code" and cursor_hooks_installed(Path.home(), Path(cwd or Path.cwd())):
        return  # Cursor runs Claude Code's hooks too: its own memlane hooks answer, not these
    with opened(ctx) as mem:
        try:
            if event == "session-start":
                text = mem.context(budget=budget, cwd=cwd or Path.cwd()).render()
                # Cursor reads a JSON answer, Codex its hook JSON; Claude Code adds plain stdout to the context
                if in_cursor:
                    text = json.dumps({"additional_context": text})
                elif host == "codex":
                    answer = {"hookEventName": "SessionStart", "additionalContext": text}
                    text = json.dumps({"hookSpecificOutput": answer})
                click.echo(text, nl=False)
                return
            key = "transcript_path" if "transcript_path" in payload else "transcriptPath"
            if key not in payload or not isinstance(payload[key], (str, type(None))):
                fail("no transcript_path in the hook input: nothing to capture")
            path = _existing(payload[key])
            if path is None:
                # Hosts fire session-end hooks for sessions that never wrote a transcript (Claude Code on
                # `claude mcp list`; Codex sends null): nothing to capture is not a failure of the hook
                click.echo("nothing to capture: the hook input names no transcript that exists")
                return
            report = mem.capture_transcript(path)
        except MemlaneError as exc:
            fail(str(exc))
    click.echo(f"captured {report.turns_read} turns: {report.facts_written} facts written")


def _existing(raw: str | None) -> str | None:
    """The transcript a hook names, when it names one that exists; a name that cannot be a path fails."""
    if not raw:
        return None
    try:
        path = Path(raw).expanduser()
        return str(path) if path.exists() else None
    except (OSError, RuntimeError, ValueError) as exc:  # too long, unreadable folder, ~nosuchuser, NUL
        fail(f"the hook's transcript_path cannot be read: {exc}")
