"""Index and status: index, status, doctor, watch, migrate."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from ...errors import MemlaneError
from .group import cli, fail, opened

if TYPE_CHECKING:
    from ...index.sync import EmbedPlan
    from ...memory import Memory


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


def run_index(mem: Memory, force: bool, as_json: bool, dry_run: bool = False) -> None:
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
    with opened(ctx) as mem:
        run_index(mem, force, as_json, dry_run)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check the memory and its index; each problem comes with the command that fixes it (exit 1 if any)."""
    with opened(ctx) as mem:
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
@click.pass_context
def watch(ctx: click.Context) -> None:
    """Keep the index fresh until interrupted: file watcher, interval and session syncs."""
    import signal
    import time as _time

    def _term(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)  # a service manager's stop finishes the running sync cleanly
    with opened(ctx) as mem:
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
@click.option("--to", "driver", type=click.Choice(["postgres"]), required=True, help="The store to copy the index to.")
@click.argument("url")
@click.option("--schema", default="memlane", show_default=True, help="The PostgreSQL schema of memlane's tables.")
@click.option("--replace", "-r", is_flag=True, help="Overwrite this agent's index if the target already holds one.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def migrate(ctx: click.Context, driver: str, url: str, schema: str, replace: bool, as_json: bool) -> None:
    """Copy this agent's SQLite index to PostgreSQL at URL, embedding cache included (nothing is re-embedded)."""
    from ...config import resolve
    from ...store.migrate import migrate_to_postgres

    opts = ctx.obj
    try:
        resolved = resolve(opts["config"], opts["agent"])
        settings = resolved.memory_search
        report = migrate_to_postgres(settings, resolved.agent_id, url, schema, replace)
    except MemlaneError as exc:
        fail(str(exc))
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
    with opened(ctx) as mem:
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
