"""The ``memlane`` command: argument parsing and printing only; the work is the library's."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

import click

from ..capture import FORMATS, CaptureReport
from ..capture.backfill import KINDS as IMPORT_KINDS
from ..capture.backfill import ImportItem
from ..errors import MemlaneError
from ..facts import RecallResponse
from ..facts.origin import origins_in
from ..index.sync import EmbedPlan
from ..memory import MAX_COUNT, Memory, open_memory
from ..search.ranking import SearchResponse
from .install import HOSTS as INSTALL_HOSTS
from .install import Where, carry_out, cursor_hooks_installed
from .install import plan as plan_install
from .tools import tool_definitions

DEMO_WORKSPACE = Path(__file__).parent.parent / "demo"
DEMO_QUERIES = ("which database did we pick and why?", "OPENAI_API_KEY", "周末的计划")
DEMO_RECALL = "what does Dana prefer?"


def _fail(message: str) -> NoReturn:
    click.echo(f"memlane: error: {message}", err=True)
    sys.exit(1)


@contextmanager
def _memory(ctx: click.Context, **overrides: Any) -> Iterator[Memory]:
    opts = ctx.obj
    try:
        with open_memory(opts["workspace"], agent=opts["agent"], config=opts["config"], **overrides) as mem:
            yield mem
    except MemlaneError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _fail("interrupted; the index is as it was before this run")


_LATE = {"workspace": "workspace", "agent": "agent", "config_path": "config"}  # option -> ctx.obj key


class _Memlane(click.Group):
    """memlane's group: its own options (--workspace, --agent, --config) are taken after the command too
    (``memlane install claude-code --workspace X``, as people type it), for every command. Each command
    gets hidden copies that put the value where the group's would go; the later one wins."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        taken = {flag for p in cmd.params for flag in (*p.opts, *p.secondary_opts)}
        for param in self.params:
            key = _LATE.get(param.name or "")
            if key is None or not isinstance(param, click.Option) or taken & set(param.opts):
                continue
            cmd.params.append(
                click.Option(param.opts, type=param.type, hidden=True, expose_value=False, callback=_store_as(key))
            )


def _store_as(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def store(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value is not None:
            ctx.ensure_object(dict)[key] = value  # the group's ctx.obj: a command's context shares it

    return store


@click.group(cls=_Memlane, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--workspace",
    "-w",
    type=click.Path(file_okay=False, path_type=Path),
    help="Agent workspace (default: the config's, else the current directory).",
)
@click.option(
    "--agent",
    "-a",
    default=None,
    help="Agent id (selects per-agent config) [default: the config's default agent, else main].",
)
@click.option(
    "--config",
    "-c",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (default: $MEMLANE_HOME/config.json).",
)
@click.version_option(package_name="memlane")
@click.pass_context
def cli(ctx: click.Context, workspace: Path | None, agent: str | None, config_path: Path | None) -> None:
    """Index and search an agent's Markdown memory (MEMORY.md, memory/**/*.md)."""
    ctx.obj = {"workspace": workspace, "agent": agent, "config": config_path}


def _progress_bar() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress callback with ETA on a terminal; silent when stderr is piped."""
    from tqdm import tqdm

    bar: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            if total == 0:
                return
            bar["bar"] = tqdm(total=total, unit="chunk", desc="embedding", disable=None, file=sys.stderr, leave=False)
        bar["bar"].n = done
        bar["bar"].refresh()

    def close() -> None:
        if "bar" in bar:
            bar["bar"].close()

    return update, close


class _DryRun(Exception):
    def __init__(self, plan: EmbedPlan) -> None:
        self.plan = plan


def _describe(plan: EmbedPlan) -> str:
    cost = (
        "free"
        if plan.usd is None and plan.provider == "local"
        else ("price unknown (add it to memorySearch.prices)" if plan.usd is None else f"about ${plan.usd:.4f}")
    )
    via = " via the batch API" if plan.batch else ""
    return (
        f"embedding {plan.texts} texts ({plan.tokens:,} tokens, estimated) with "
        f"{plan.provider}/{plan.model}{via}: {cost}"
    )


def _run_index(mem: Memory, force: bool, as_json: bool, dry_run: bool = False) -> None:
    update, close = _progress_bar()

    def on_plan(plan: EmbedPlan) -> None:
        if dry_run:
            raise _DryRun(plan)
        if plan.provider != "local" and not as_json:  # a paid run: say what it costs before it starts
            click.echo(f"note: {_describe(plan)}", err=True)

    try:
        report = mem.sync(force=force, progress=update, on_plan=on_plan, all_sessions=True)
    except _DryRun as stop:
        click.echo(json.dumps(asdict(stop.plan)) if as_json else f"dry run: would be {_describe(stop.plan)}")
        return
    finally:
        close()
    if dry_run:
        click.echo(json.dumps(None) if as_json else "dry run: nothing to embed")
        return
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    kind = f"full reindex ({report.reason})" if report.full_reindex else "incremental sync"
    click.echo(
        f"{kind}: {report.files_added} added, {report.files_changed} changed, {report.files_removed} removed, "
        f"{report.files_unchanged} unchanged files; {report.chunks_written} chunks written; "
        f"{report.embedded} embedded, {report.cached} from cache; {report.seconds:.2f}s"
    )
    for note in report.notes:
        click.echo(f"note: {note}")


@cli.command()
@click.option("--force", is_flag=True, help="Rebuild the whole index.")
@click.option("--json", "as_json", is_flag=True, help="Print the sync report as JSON.")
@click.option("--dry-run", is_flag=True, help="Only say what would be embedded and its estimated price.")
@click.pass_context
def index(ctx: click.Context, force: bool, as_json: bool, dry_run: bool) -> None:
    """Bring the index up to date with the memory files."""
    with _memory(ctx) as mem:
        _run_index(mem, force, as_json, dry_run)


def _print_response(resp: SearchResponse, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(resp.to_dict(), indent=2, ensure_ascii=False))
        return
    for note in resp.notes:
        click.echo(f"note: {note}", err=True)
    if resp.fallback:
        click.echo(f"note: fell back from {resp.fallback['from']}: {resp.fallback['reason']}", err=True)
    if not resp.results:
        click.echo("no results")
        return
    for r in resp.results:
        where = f"{r.agent}: " if r.agent else ""  # another agent's memory (memorySearch.shared)
        said = origins_in(r.snippet)  # a captured session's passage: whose words it holds
        whose = f"  captured: {', '.join(said)}" if said else ""
        click.echo(
            click.style(f"{where}{r.path}:{r.start_line}-{r.end_line}", bold=True) + f"  score {r.score:.3f}{whose}"
        )
        for line in r.snippet.splitlines():
            click.echo(f"    {line}")
        click.echo()
    click.echo(f"[{resp.mode} search, {resp.provider or 'no provider'}/{resp.model or '-'}]", err=True)


@cli.command()
@click.argument("query")
@click.option("--max-results", "-n", type=click.IntRange(1, MAX_COUNT), help="Results at most (default 6).")
@click.option("--min-score", type=click.FloatRange(min=0), help="Drop results below this score (default 0.35).")
@click.option("--now", type=click.DateTime(), help="Read 'last week' etc. as of this date (default: today).")
@click.option("--json", "as_json", is_flag=True, help="Print the tool payload as JSON.")
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    max_results: int | None,
    min_score: float | None,
    now: dt.datetime | None,
    as_json: bool,
) -> None:
    """Search memory for QUERY (syncing the memory files first if they changed)."""
    with _memory(ctx) as mem:
        resp = mem.search(query, max_results=max_results, min_score=min_score, fresh=True, now=now)
        _print_response(resp, as_json)


def _print_recall(resp: RecallResponse, as_json: bool, explain: bool) -> None:
    if as_json:
        payload = resp.to_dict()
        if explain:
            payload["facts"] = [f.to_dict() for f in resp.facts]
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for note in resp.notes:
        click.echo(f"note: {note}", err=True)
    for e in resp.entities:
        how = f"related via {e.via}" if e.match == "related" else ("named" if e.match == "query" else e.match)
        click.echo(f"entity: {e.name} ({how}; {e.facts} facts{'; ' + e.page if e.page else ''})", err=True)
    if not resp.facts:
        click.echo("no facts")
        return
    for i, f in enumerate(resp.facts, 1):
        click.echo(f"{i:>2}. {f.content}")
        parts = [f.kind, f.day or "undated"]
        if f.time is not None:
            parts.append(f"time {f.time}")
        if f.entities:
            parts.append(" ".join("@" + e for e in f.entities))
        if f.confidence is not None:
            parts.append(f"c={f.confidence:g}")
        said = "written in a file" if f.origin == "file" else f"said by the {f.origin}"
        parts += [said, click.style(f.source, bold=True), f"{f.score:.3f}"]
        click.echo("    " + " · ".join(parts))
        if f.path:
            click.echo(f"    via {f.path}")
        if f.valid_to is not None or f.superseded_by is not None:
            by = f.superseded_by or {}
            until = f"until {f.valid_to}" if f.valid_to else "ended"
            click.echo(f"    superseded: {until}" + (f" by {by['content']!r} ({by['source']})" if by else ""))
        if explain and f.signals:
            click.echo("    " + " ".join(f"{k}={v:.2f}" for k, v in f.signals.items() if v))


@cli.command()
@click.argument("query")
@click.option("--k", "-k", "k", type=click.IntRange(1, MAX_COUNT), help="Facts at most (default recall.k, 25).")
@click.option("--since", help="Only facts from then on: 30d, 2w, 6m, 1y, YYYY-MM-DD, YYYY-MM, YYYY.")
@click.option("--until", help="Only facts up to then: YYYY-MM-DD, YYYY-MM, YYYY, or a span such as 1y.")
@click.option("--kind", help="Only these kinds, comma-separated: world, experience, opinion, observation (W,B,O,S).")
@click.option("--entity", help="Only facts about this entity (its name or an alias).")
@click.option("--budget", type=click.IntRange(1, MAX_COUNT), help="Keep the best facts that fit this many tokens.")
@click.option("--as-of", "as_of", help="Answer from what was true on this date (YYYY-MM-DD).")
@click.option("--known-at", "known_at", help="Answer from what memory knew on this date (YYYY-MM-DD).")
@click.option("--json", "as_json", is_flag=True, help="Print the memory_recall payload as JSON.")
@click.option("--explain", is_flag=True, help="Show each fact's signals (cosine, words, context, entity, time).")
@click.pass_context
def recall(
    ctx: click.Context,
    query: str,
    k: int | None,
    since: str | None,
    until: str | None,
    kind: str | None,
    entity: str | None,
    budget: int | None,
    as_of: str | None,
    known_at: str | None,
    as_json: bool,
    explain: bool,
) -> None:
    """Recall the facts (## Retain bullets) that answer QUERY, each with its source line. Current facts come
    first; a superseded one is shown after them with what superseded it."""
    with _memory(ctx) as mem:
        resp = mem.recall(
            query,
            k=k,
            since=since,
            until=until,
            kinds=kind,
            entity=entity,
            budget=budget,
            fresh=True,
            explain=explain,
            as_of=as_of,
            known_at=known_at,
        )
        _print_recall(resp, as_json, explain)


@cli.command()
@click.argument("entity")
@click.option("--depth", type=click.IntRange(1, 4), default=2, show_default=True, help="Relations away.")
@click.option("--as-of", "as_of", help="Relations true on this date (YYYY-MM-DD); default today.")
@click.option("--to", "to", help="Another entity: print the path between the two.")
@click.option("--json", "as_json", is_flag=True, help="Print the memory_graph payload as JSON.")
@click.pass_context
def graph(ctx: click.Context, entity: str, depth: int, as_of: str | None, to: str | None, as_json: bool) -> None:
    """The entities related to ENTITY and the relations between them, each with its source."""
    with _memory(ctx) as mem:
        payload = mem.graph(entity, depth=depth, as_of=as_of, to=to, fresh=True)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for note in payload["notes"]:
        click.echo(f"note: {note}", err=True)
    if to is not None:
        for p in payload["paths"]:
            click.echo(p["text"])
            for e in p["edges"]:
                click.echo(f"    {e['subject']} {e['predicate']} {e['object']} ({e['source']})")
        if not payload["paths"]:
            click.echo("no path")
        return
    for node in payload["nodes"]:
        click.echo(
            f"{'  ' * node['depth']}{node['name']}" + (f"  ({' → '.join(node['path'])})" if node["depth"] else "")
        )
    click.echo("")
    for e in payload["edges"]:
        since = f" since {e['valid_from']}" if e.get("valid_from") else ""
        click.echo(f"{e['subject']} {e['predicate']} {e['object']}{since} ({e['source']})")


@cli.command()
@click.argument("entity")
@click.option("--json", "as_json", is_flag=True, help="Print the payload as JSON.")
@click.pass_context
def timeline(ctx: click.Context, entity: str, as_json: bool) -> None:
    """ENTITY's relations in time order: when each began, when it ended and what ended it."""
    with _memory(ctx) as mem:
        payload = mem.timeline(entity, fresh=True)
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    click.echo(payload["entity"])
    for predicate, values in payload["now"].items():
        click.echo(f"  now {predicate}: {', '.join(values)}")
    for e in payload["relations"]:
        if e.get("ends"):
            click.echo(
                f"  {e['valid_from'] or '?':<10}  ended {e['subject']} {e['predicate']} {e['object']}  ({e['source']})"
            )
            continue
        span = f"{e['valid_from'] or '…'} → {e['valid_to'] or 'now'}"
        closed = f", ended by {e['closed_by']}" if e.get("closed_by") else ""
        click.echo(f"  {span:<24}  {e['subject']} {e['predicate']} {e['object']}  ({e['source']}{closed})")
    for u in payload.get("updates", []):
        by = u["superseded_by"]
        click.echo(f"  {u['day']} → {u['until']}  was: {u['content']}  ({u['source']})")
        click.echo(f"  {'':<24}  superseded by: {by['content']}  ({by['source']})")


@cli.command()
@click.option("--since", help="Entities with facts since then get their page updated (default reflect.since, 7d).")
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def reflect(ctx: click.Context, since: str | None, dry_run: bool, as_json: bool) -> None:
    """Update entity pages, bank/opinions.md and bank/proposals.md from the facts."""
    with _memory(ctx) as mem:
        report = mem.reflect(since=since, dry_run=dry_run)
    if as_json:
        payload = report.to_dict()
        if dry_run:
            payload["diff"] = report.diff()
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    if dry_run:
        click.echo(report.diff() or "nothing to change", nl=not report.diff())
        return
    click.echo(
        f"{len(report.entities)} entities since {report.since}, {len(report.opinions)} opinions, "
        f"{len(report.proposals)} proposals for MEMORY.md; "
        + (f"wrote {', '.join(report.written)}" if report.written else "nothing changed")
    )


@cli.command()
@click.option("--day", help="The daily log of this day (YYYY-MM-DD); default today's.")
@click.option("--since", help="Every daily log from then on: 7d, 2w, YYYY-MM-DD.")
@click.option("--apply", is_flag=True, help="Append the drafted bullets to each log under ## Retain.")
@click.option("--llm", "use_llm", is_flag=True, help="Draft with the configured LLM (llm.*) instead of the rules.")
@click.option("--json", "as_json", is_flag=True, help="Print the drafts as JSON.")
@click.pass_context
def retain(ctx: click.Context, day: str | None, since: str | None, apply: bool, use_llm: bool, as_json: bool) -> None:
    """Draft ## Retain bullets from daily logs (print them; --apply writes them)."""
    if day and since:
        raise click.UsageError("give --day or --since, not both")
    with _memory(ctx) as mem:
        drafts = mem.retain(day=day, since=since, apply=apply, llm=use_llm)
    if as_json:
        click.echo(json.dumps([d.to_dict() for d in drafts], indent=2, ensure_ascii=False))
        return
    if not drafts:
        click.echo("no daily log in that range", err=True)
    for d in drafts:
        state = f"appended at lines {d.lines[0]}-{d.lines[1]}" if d.written and d.lines else "draft"
        click.echo(click.style(f"# {d.path} ({len(d.drafts)} bullets, {state})", bold=True))
        click.echo(d.section() or "(nothing new to retain)\n")


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
    with _memory(ctx) as mem:
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

    with _memory(ctx) as mem:
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
                _fail(run.interrupted())
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
@click.option("--json", "as_json", is_flag=True, help="Print the memory_core payload as JSON.")
@click.pass_context
def core(ctx: click.Context, as_json: bool) -> None:
    """Print the core block (MEMORY.md) with its size against core.maxChars."""
    with _memory(ctx) as mem:
        out = mem.core()
    if as_json:
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    click.echo(out["text"], nl=False)
    click.echo(f"{out['path']}: {out['chars']:,} of {out['maxChars']:,} characters (core.maxChars)", err=True)
    for key in ("warning", "note"):
        if key in out:
            click.echo(f"{key}: {out[key]}", err=True)


@cli.command()
@click.option("--push", is_flag=True, help="Push to backup.git.remote after committing.")
@click.option("--init", is_flag=True, help="Make the workspace a git repository first if it is not one.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def backup(ctx: click.Context, push: bool, init: bool, as_json: bool) -> None:
    """Commit the memory files that changed to the workspace's git repository."""
    with _memory(ctx) as mem:
        result = mem.backup(push=push or None, init=init)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.message)


@cli.command()
@click.option("--older-than", default="90d", show_default=True, help="Archive daily logs older than this (days).")
@click.option("--dry-run", is_flag=True, help="List the moves; move nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def archive(ctx: click.Context, older_than: str, dry_run: bool, as_json: bool) -> None:
    """Move old daily logs to memory/archive/YYYY/ (still indexed and searchable)."""
    with _memory(ctx) as mem:
        out = mem.archive(older_than, dry_run=dry_run)
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for move in out["moves"]:
        click.echo(f"{'would move' if dry_run else 'moved'} {move['from']} -> {move['to']}")
    for note in out["skipped"]:
        click.echo(f"note: {note}", err=True)
    if not out["moves"]:
        click.echo("nothing to archive")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check the memory and its index; each problem comes with the command that fixes it (exit 1 if any)."""
    with _memory(ctx) as mem:
        checks = mem.doctor()
    problems = [c for c in checks if not c.ok]
    if as_json:
        click.echo(json.dumps({"ok": not problems, "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        for c in checks:
            click.echo(f"{'ok     ' if c.ok else 'PROBLEM'} {c.name:11} {c.detail}")
            if c.fix and not c.ok:
                click.echo(f"        {'':11} fix: {c.fix}")
    if problems:
        sys.exit(1)


@cli.command()
@click.argument("text")
@click.option("--heading", help="Put the note under this heading (created if missing).")
@click.option("--long-term", is_flag=True, help="Write to MEMORY.md instead of today's memory/YYYY-MM-DD.md.")
@click.option("--json", "as_json", is_flag=True, help="Print where it went as JSON.")
@click.pass_context
def remember(ctx: click.Context, text: str, heading: str | None, long_term: bool, as_json: bool) -> None:
    """Append TEXT to today's daily memory file (TEXT '-' reads stdin) and index it."""
    if text == "-":
        data = sys.stdin.buffer.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            _fail(f"stdin is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); nothing was written")
    with _memory(ctx) as mem:
        out = mem.write(text, heading=heading, long_term=long_term)
        if as_json:
            click.echo(json.dumps(out))
        else:
            click.echo(
                f"{out['path']}:{out['startLine']}-{out['endLine']}" + ("" if out["indexed"] else f" ({out['note']})")
            )


@cli.command()
@click.option("--http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address for --http (beyond loopback only with a token)."
)
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="Port for --http.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Require this bearer token of every HTTP request (a new one is written there, mode 0600, if missing).",
)
@click.pass_context
def mcp(ctx: click.Context, http: bool, host: str, port: int, token_file: Path | None) -> None:
    """Serve the memory tools (search, recall, get, core, write, replace, insert) over MCP (stdio by default)."""
    from .mcp_server import serve, token_from_file

    with _memory(ctx) as mem:
        token = token_from_file(token_file) if token_file is not None else None
        serve(mem, http=http, host=host, port=port, token=token)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address (beyond loopback only with a token).")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(0, 65535))
@click.option("--open", "open_browser", is_flag=True, help="Open the view in the default browser.")
@click.option("--edit", is_flag=True, help="Allow replacing passages from the file view (workspaceAccess rw only).")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Require this token (as memlane mcp --http does; a new one is written there, mode 0600, if missing).",
)
@click.pass_context
def ui(ctx: click.Context, host: str, port: int, open_browser: bool, edit: bool, token_file: Path | None) -> None:
    """A local web view: search and recall, files with cited lines, entities, beliefs, changes, health."""
    from ..ui import serve
    from .mcp_server import token_from_file

    with _memory(ctx) as mem:
        token = token_from_file(token_file) if token_file is not None else None
        serve(mem, host=host, port=port, token=token, edit=edit, open_browser=open_browser)


@cli.command()
@click.pass_context
def watch(ctx: click.Context) -> None:
    """Keep the index fresh until interrupted: file watcher, interval and session syncs."""
    import signal
    import time as _time

    def _term(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)  # a service manager's stop finishes the running sync cleanly
    with _memory(ctx) as mem:
        mem.start(watch=True)
        click.echo(f"watching {mem.workspace} (Ctrl-C to stop)", err=True)
        seen = 0
        try:
            while True:
                _time.sleep(0.5)
                bg = mem.background_status()  # not status(): that stats every file and counts the index
                if bg.get("syncs", 0) != seen:
                    seen = bg["syncs"]
                    click.echo(f"synced ({seen} so far){'; error: ' + bg['lastError'] if bg.get('lastError') else ''}")
        except KeyboardInterrupt:
            click.echo("stopping", err=True)


@cli.command()
@click.argument("path")
@click.option("--from", "from_line", type=click.IntRange(min=1), help="First line (1-based).")
@click.option("--lines", type=click.IntRange(min=1), help="How many lines.")
@click.pass_context
def get(ctx: click.Context, path: str, from_line: int | None, lines: int | None) -> None:
    """Print a memory file, or LINES lines of it from line FROM."""
    with _memory(ctx) as mem:
        click.echo(mem.get(path, from_line=from_line, lines=lines), nl=False)


@cli.command()
@click.option("--to", "driver", type=click.Choice(["postgres"]), required=True, help="The store to copy the index to.")
@click.argument("url")
@click.option("--schema", default="memlane", show_default=True, help="The PostgreSQL schema of memlane's tables.")
@click.option("--replace", "-r", is_flag=True, help="Overwrite this agent's index if the target already holds one.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def migrate(ctx: click.Context, driver: str, url: str, schema: str, replace: bool, as_json: bool) -> None:
    """Copy this agent's SQLite index to PostgreSQL at URL, embedding cache included (nothing is re-embedded)."""
    from ..config import resolve
    from ..store.migrate import migrate_to_postgres

    opts = ctx.obj
    try:
        resolved = resolve(opts["config"], opts["agent"])
        settings = resolved.memory_search
        report = migrate_to_postgres(settings, resolved.agent_id, url, schema, replace)
    except MemlaneError as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    click.echo(
        f"copied {report.files} files, {report.chunks} chunks ({report.chunk_keys} keys), {report.facts} facts, "
        f"{report.vectors} vectors and {report.batch_jobs} batch jobs of agent {resolved.agent_id!r}; "
        "nothing re-embedded"
    )
    store = json.dumps({"driver": "postgres", "url": "<URL>", "schema": schema})
    click.echo(f"to use it, set memorySearch.store to {store} (or the URL in $MEMLANE_DATABASE_URL)")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--deep", is_flag=True, help="Also load the provider and embed a probe text.")
@click.pass_context
def status(ctx: click.Context, as_json: bool, deep: bool) -> None:
    """Show what the index holds and how it is set up."""
    with _memory(ctx) as mem:
        info = mem.status(deep=deep)
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"agent      {info['agent']}\nworkspace  {info['workspace']}")
    keys = info["chunking"]["keys"]
    keyed = f" ({keys['count']} keys)" if keys["enabled"] else ""
    if keys["enabled"] and keys["withoutVector"]:
        keyed = f" ({keys['count']} keys, {keys['withoutVector']} not embedded yet)"
    click.echo(
        f"index      {info['files']} files, {info['chunks']} chunks{keyed}, "
        f"{'dirty' if info['dirty'] else 'up to date'}{'' if info['indexed'] else ' (never built)'}"
    )
    first = info["firstIndex"]
    if first is not None:
        eta = f", about {first['etaSeconds']:,} s left" if first["etaSeconds"] is not None else ""
        state = "embedding" if first["running"] else "stopped (the next `memlane index` goes on)"
        click.echo(f"first      index {state}: {first['embedded']:,} of {first['texts']:,} texts{eta}")
    click.echo(f"store      {info['store']['path']} ({info['store']['bytes']:,} bytes)")
    facts = info["facts"]
    click.echo(
        f"facts      {facts['facts']} facts, {facts['entities']} entities ({facts['pages']} with a page), "
        f"{facts['problems']} unreadable Retain bullets"
    )
    for line in facts["problemLines"][:10] + facts["hints"][:10]:
        click.echo(f"           {line}")
    click.echo(
        f"provider   {info['provider'] or 'none'} / {info['model'] or '-'}"
        f"{' ' + info['variant'] if info.get('variant') else ''} ({info['dims'] or 0} dims): "
        f"{info['providerReason']}"
    )
    if info["fallback"]:
        click.echo(f"fallback   from {info['fallback']['from']}: {info['fallback']['reason']}")
    click.echo(f"vectors    {info['vector']['backend']}")
    if "warning" in info["vector"]:
        click.echo(f"warning    {info['vector']['warning']}")
    click.echo(f"keywords   FTS5 {info['fts']['tokenizer']}, CJK {info['fts']['cjk']}")
    click.echo(f"chunking   {info['chunking']['tokens']} tokens, {info['chunking']['overlap']} overlap")
    click.echo(f"cache      {info['cacheEntries']} entries (max {info['cache']['maxEntries']})")
    batch = info["batch"]
    if batch.get("available"):
        state = "on" if batch["active"] else f"off ({batch['disabled'] or 'remote.batch.enabled = false'})"
        click.echo(f"batch API  {state}; {len(batch['pendingJobs'])} jobs pending ({batch['pendingTexts']} texts)")
    sessions = info["sessions"]
    if sessions["enabled"]:
        click.echo(f"sessions   {sessions['indexed']} transcripts indexed from {sessions['dir']}")
    click.echo(f"access     workspaceAccess {info['workspaceAccess']}")
    if "probe" in info:
        probe = info["probe"]
        click.echo(f"probe      {'ok, ' + str(probe['ms']) + ' ms' if probe['ok'] else 'FAILED: ' + probe['error']}")


@cli.command()
@click.option("--budget", type=click.IntRange(50, MAX_COUNT), default=2000, show_default=True, help="Tokens at most.")
@click.option("--query", "-q", help="What the session is about (default: the name of the current folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the parts as JSON (with the text).")
@click.pass_context
def context(ctx: click.Context, budget: int, query: str | None, as_json: bool) -> None:
    """What an agent should see at the start of a session: MEMORY.md, the facts most relevant to the query
    (or the folder), then recent ones, within a token budget, with sources. A session-start hook's output."""
    with _memory(ctx) as mem:
        try:
            pack = mem.context(budget=budget, query=query, cwd=Path.cwd())
        except MemlaneError as exc:
            _fail(str(exc))
    click.echo(json.dumps(pack.to_dict(), indent=2) if as_json else pack.render(), nl=False)


def _install(ctx: click.Context, host: str, scope: str, dry_run: bool, as_json: bool, action: str) -> None:
    opts = ctx.obj
    with _memory(ctx) as mem:
        workspace = mem.workspace
    config_path = Path(opts["config"]).expanduser().resolve() if opts["config"] else None
    where = Where(Path.home(), Path.cwd(), workspace, config_path, agent=opts["agent"])
    try:
        plan = plan_install(host, scope, where, action) if dry_run else carry_out(host, scope, where, action)
    except (MemlaneError, OSError) as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps({**plan.to_dict(), "dryRun": dry_run, "diff": plan.diff()}, indent=2))
        return
    if dry_run:
        click.echo(plan.diff() or "nothing to change", nl=not plan.diff())
    else:
        for c in plan.changed:
            click.echo(f"{'removed' if c.after is None else 'wrote'} {c.path}")
        if not plan.changed:
            click.echo(
                f"nothing to change: memlane is {'already' if action == 'install' else 'not'} in {host}'s config"
            )
        for b in plan.backups:
            click.echo(f"backup {b}")
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)


_HOST = click.Choice(list(INSTALL_HOSTS))
HOOK_INPUT_MAX = 16_000_000  # bytes of hook JSON read from stdin
_SCOPE = click.option(
    "--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
    help="The user's config, or the current folder's (project).",
)  # fmt: skip


def _host_command(f: Callable[..., None]) -> Callable[..., None]:
    """The arguments install and uninstall share."""
    f = click.pass_context(f)
    f = click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")(f)
    f = click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")(f)
    f = _SCOPE(f)
    return click.argument("host", type=_HOST)(f)


@cli.command()
@_host_command
def install(ctx: click.Context, host: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Register memlane's MCP server (and session hooks, where the host has them) in HOST's own config file:
    other entries are kept, a backup is written first, a second run changes nothing."""
    _install(ctx, host, scope, dry_run, as_json, "install")


@cli.command()
@_host_command
def uninstall(ctx: click.Context, host: str, scope: str, dry_run: bool, as_json: bool) -> None:
    """Remove exactly what `memlane install HOST` added."""
    _install(ctx, host, scope, dry_run, as_json, "uninstall")


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
        _fail(f"the hook input on stdin is over {HOOK_INPUT_MAX // 1_000_000} MB")
    try:
        payload = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError, RecursionError):
        _fail("the hook input on stdin is not JSON")
    if not isinstance(payload, dict):
        payload = {}
    in_cursor = "cursor_version" in payload
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    if cwd is None and isinstance(roots, list) and roots and isinstance(roots[0], str):
        cwd = roots[0]  # Cursor's input names the workspace folders, not a cwd
    if in_cursor and host == "claude-code" and cursor_hooks_installed(Path.home(), Path(cwd or Path.cwd())):
        return  # Cursor runs Claude Code's hooks too: its own memlane hooks answer, not these
    with _memory(ctx) as mem:
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
                _fail("no transcript_path in the hook input: nothing to capture")
            path = _existing(payload[key])
            if path is None:
                # Hosts fire session-end hooks for sessions that never wrote a transcript (Claude Code on
                # `claude mcp list`; Codex sends null): nothing to capture is not a failure of the hook
                click.echo("nothing to capture: the hook input names no transcript that exists")
                return
            report = mem.capture_transcript(path)
        except MemlaneError as exc:
            _fail(str(exc))
    click.echo(f"captured {report.turns_read} turns: {report.facts_written} facts written")


def _existing(raw: str | None) -> str | None:
    """The transcript a hook names, when it names one that exists; a name that cannot be a path fails."""
    if not raw:
        return None
    try:
        path = Path(raw).expanduser()
        return str(path) if path.exists() else None
    except (OSError, RuntimeError, ValueError) as exc:  # too long, unreadable folder, ~nosuchuser, NUL
        _fail(f"the hook's transcript_path cannot be read: {exc}")


@cli.command()
@click.argument("queries", nargs=-1)
@click.pass_context
def demo(ctx: click.Context, queries: tuple[str, ...]) -> None:
    """Index the bundled demo workspace and run a few searches and a recall on it."""
    ctx.obj["workspace"] = ctx.obj["workspace"] or DEMO_WORKSPACE
    if ctx.obj["agent"] is None:
        ctx.obj["agent"] = "demo"
    with _memory(ctx) as mem:
        click.echo(f"workspace: {mem.workspace}")
        _run_index(mem, force=False, as_json=False)
        for query in queries or DEMO_QUERIES:
            click.echo(click.style(f"\n$ memlane search {query!r}", fg="cyan"))
            _print_response(mem.search(query, max_results=3), as_json=False)
        if not queries:
            click.echo(click.style(f"\n$ memlane recall {DEMO_RECALL!r} -k 3", fg="cyan"))
            _print_recall(mem.recall(DEMO_RECALL, k=3), as_json=False, explain=False)


@cli.command()
@click.option(
    "--style",
    type=click.Choice(["openai", "responses", "anthropic", "json-schema"]),
    default="openai",
    show_default=True,
)
def tools(style: str) -> None:
    """Print the agent tool definitions (memory_search, memory_recall, memory_get, ...)."""
    click.echo(json.dumps(tool_definitions(style), indent=2))


def main() -> None:
    """The ``memlane`` command. Its error edge: what a user's input or machine can cause (a file system's
    refusal, text that is not UTF-8, a number out of range) is one line and exit 1, never a traceback;
    anything else is a bug, and its traceback is shown."""
    try:
        cli(prog_name="memlane")  # click itself ends quietly on a closed pipe (`memlane search ... | head`)
    except (OSError, UnicodeError, OverflowError, ValueError) as exc:
        click.echo(f"memlane: error: {_described(exc)}", err=True)
        sys.exit(1)


def _described(exc: BaseException) -> str:
    """One line for an error from the standard library, without Python's internals."""
    if isinstance(exc, OSError) and exc.strerror:
        name = str(exc.filename) if exc.filename is not None else ""
        if len(name) > 80:
            name = f"{name[:60]}... ({len(name)} characters)"
        return f"{exc.strerror}: {name}" if name else exc.strerror
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    if isinstance(exc, UnicodeEncodeError):
        return f"text that cannot be written as {exc.encoding} (character {exc.start}: {exc.reason})"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "..."


if __name__ == "__main__":
    main()
