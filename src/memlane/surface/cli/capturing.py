"""Capture and import: a transcript, a history already there, a host's hook."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...capture import FORMATS
from ...capture.backfill import KINDS as IMPORT_KINDS
from ...capture.hook_log import group_options
from ...errors import MAX_COUNT, MemlaneError
from ..host_names import HOSTS as INSTALL_HOSTS
from .background import detach_capture
from .group import cli, fail, opened

if TYPE_CHECKING:
    from ...capture import CaptureReport
    from ...capture.backfill import ImportItem

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
        run = _ImportRun(mem.workspace, len(items), "conversation" if items and items[0].path is None else "file")
        with tqdm(total=total, unit=unit, disable=as_json, file=sys.stderr, desc="capture") as bar:
            index_bar: dict[str, Any] = {}

            def captured(i: ImportItem, r: CaptureReport) -> None:
                bar.update(i.turns if by_turns else 1)
                run.item_done(i, r)
                if run.done == run.items:  # what is left is indexing what was written: its own bar
                    bar.close()
                    index_bar["bar"] = tqdm(unit="text", disable=as_json, file=sys.stderr, desc="index")

            def indexed(done: int, to_do: int) -> None:
                if "bar" in index_bar:
                    index_bar["bar"].total = to_do
                    index_bar["bar"].n = done
                    index_bar["bar"].refresh()

            try:
                with run.interruptible():
                    _, report = mem.import_history(kind, path, since=since, progress=captured, index_progress=indexed)
            except KeyboardInterrupt:
                bar.close()  # the bars end before the message, not after it
                if "bar" in index_bar:
                    index_bar["bar"].close()
                fail(run.interrupted())
            finally:
                if "bar" in index_bar:
                    index_bar["bar"].close()
    _print_capture(report.to_dict(), as_json)


LISTED_FILES = 20  # files an interrupted import names one by one; the rest are counted


class _ImportStopped(KeyboardInterrupt):
    """Ctrl-C asked the import to stop after the item it was capturing."""


class _ImportRun:
    """What an import has written so far, to say truthfully what an interrupt left: the first Ctrl-C stops it
    after the item being captured (its turns all written and recorded as seen), a second one at once; the memory
    files changed are those whose size or time differs from before the run."""

    def __init__(self, workspace: Path, items: int, unit: str) -> None:
        self.workspace = workspace
        self.items = items
        self.unit = unit
        self.done = 0
        self.turns = 0
        self.stop_asked = False
        self.clean_stop = False  # stopped between items (not mid-item by a second Ctrl-C)
        self.started = dt.datetime.now()
        self.before = self._files()

    def _files(self) -> dict[str, tuple[int, int]]:
        out = {}
        for f in sorted((self.workspace / "memory").rglob("*.md")):
            with contextlib.suppress(OSError):
                st = f.stat()
                out[f.relative_to(self.workspace).as_posix()] = (st.st_size, st.st_mtime_ns)
        return out

    def item_done(self, _item: ImportItem, report: CaptureReport) -> None:
        self.done += 1
        self.turns += report.turns_read
        if self.stop_asked and self.done < self.items:
            self.clean_stop = True
            raise _ImportStopped

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        def on_sigint(_signum: int, _frame: object) -> None:
            if self.stop_asked or self.done >= self.items:  # a second Ctrl-C, or one while indexing: at once
                raise KeyboardInterrupt
            self.stop_asked = True
            click.echo(f"\nstopping after this {self.unit} (Ctrl-C again stops at once)", err=True)

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def interrupted(self) -> str:
        now = self._files()
        changed = [f for f, st in now.items() if self.before.get(f) != st]
        named = ", ".join(changed[:LISTED_FILES])
        if len(changed) > LISTED_FILES:
            named += f" and {len(changed) - LISTED_FILES} more changed since {self.started:%H:%M:%S}"
        files = f"{len(changed)} memory file(s) written" + (f": {named}" if changed else "")
        done = f"{self.done} of {self.items} {self.unit}s captured ({self.turns} turns)"
        if self.done >= self.items:
            return f"interrupted while indexing: {done}, {files}; the index is behind them: run `memlane index`"
        part = "" if self.clean_stop else f" (the {self.unit} being captured may be in them in part)"
        tail = "not indexed yet: run the same import again to go on" if changed else "nothing to index"
        return f"interrupted: {done}, {files}{part}; {tail}"


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
@click.option(
    "--background",
    is_flag=True,
    help="capture: check the input, then capture in a detached process and return at once; its result is "
    "appended to $MEMLANE_HOME/logs/capture.log (what `memlane install` wires).",
)
@click.pass_context
def hook(ctx: click.Context, event: str, budget: int, host: str | None, background: bool) -> None:
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
    if in_cursor and host == "claude-code" and _cursor_has_its_own(cwd):
        return  # Cursor runs Claude Code's hooks too: its own memlane hooks answer, not these
    if event == "session-start":
        with opened(ctx) as mem:
            try:
                text = mem.context(budget=budget, cwd=cwd or Path.cwd()).render()
            except MemlaneError as exc:
                fail(str(exc))
        # Cursor reads a JSON answer, Codex its hook JSON; Claude Code adds plain stdout to the context
        if in_cursor:
            text = json.dumps({"additional_context": text})
        elif host == "codex":
            text = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
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
    if background:
        where = _given(ctx)
        try:
            log, ident = detach_capture(raw, _hook_argv(where, host), str(Path(path).absolute()), where)
        except MemlaneError as exc:
            fail(str(exc))
        click.echo(f"capturing {path} in the background (capture {ident}); its result goes to {log}")
        return
    with opened(ctx) as mem:
        try:
            report = mem.capture_transcript(path)
        except MemlaneError as exc:
            fail(str(exc))
    click.echo(f"captured {report.turns_read} turns: {report.facts_written} facts written")


def _cursor_has_its_own(cwd: str | None) -> bool:
    from ..install import cursor_hooks_installed  # the installer loads only when the hook runs in Cursor

    return cursor_hooks_installed(Path.home(), Path(cwd or Path.cwd()))


def _given(ctx: click.Context) -> dict[str, str | None]:
    """The group's options as this hook call was given them (paths made absolute): the capture started in the
    background gets the same, and its log record names them."""
    opts = ctx.obj or {}
    out: dict[str, str | None] = {}
    for key in ("workspace", "config"):
        out[key] = str(Path(opts[key]).resolve()) if opts.get(key) is not None else None
    out["agent"] = str(opts["agent"]) if opts.get("agent") is not None else None
    return out


def _hook_argv(given: dict[str, str | None], host: str | None) -> list[str]:
    """This hook call's command line without ``--background``."""
    options = group_options(given.get("workspace"), given.get("agent"), given.get("config"))
    return [sys.executable, "-m", "memlane", *options, "hook", "capture"] + (["--host", host] if host else [])


def _existing(raw: str | None) -> str | None:
    """The transcript a hook names, when it names one that exists; a name that cannot be a path fails."""
    if not raw:
        return None
    try:
        path = Path(raw).expanduser()
        return str(path) if path.exists() else None
    except (OSError, RuntimeError, ValueError) as exc:  # too long, unreadable folder, ~nosuchuser, NUL
        fail(f"the hook's transcript_path cannot be read: {exc}")
