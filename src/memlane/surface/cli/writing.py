"""Writing memory: remember, retain, reflect, archive, backup."""

from __future__ import annotations

import json
import sys

import click

from .group import cli, fail, opened


@cli.command()
@click.option("--since", help="Entities with facts since then get their page updated (default reflect.since, 7d).")
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def reflect(ctx: click.Context, since: str | None, dry_run: bool, as_json: bool) -> None:
    """Update entity pages, bank/opinions.md and bank/proposals.md from the facts."""
    with opened(ctx) as mem:
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
    with opened(ctx) as mem:
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
@click.option("--push", is_flag=True, help="Push to backup.git.remote after committing.")
@click.option("--init", is_flag=True, help="Make the workspace a git repository first if it is not one.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def backup(ctx: click.Context, push: bool, init: bool, as_json: bool) -> None:
    """Commit the memory files that changed to the workspace's git repository."""
    with opened(ctx) as mem:
        result = mem.backup(push=push or None, init=init)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.message)


@cli.command()
@click.option("--older-than", default="90d", show_default=True, help="Archive daily logs older than this (days).")
@click.option("--dry-run", is_flag=True, help="List the moves; move nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def archive(ctx: click.Context, older_than: str, dry_run: bool, as_json: bool) -> None:
    """Move old daily logs to memory/archive/YYYY/ (still indexed and searchable)."""
    with opened(ctx) as mem:
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
            fail(f"stdin is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); nothing was written")
    with opened(ctx) as mem:
        out = mem.write(text, heading=heading, long_term=long_term)
        if as_json:
            click.echo(json.dumps(out))
        else:
            click.echo(
                f"{out['path']}:{out['startLine']}-{out['endLine']}" + ("" if out["indexed"] else f" ({out['note']})")
            )
