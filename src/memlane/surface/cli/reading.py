"""Reading memory: search, recall, get, core, context, graph, timeline, and the agent tools' definitions."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ...errors import MAX_COUNT, MemlaneError
from ...text.origin import origins_in
from .group import cli, fail, opened

if TYPE_CHECKING:
    from ...facts import RecallResponse
    from ...search.ranking import SearchResponse


def print_response(resp: SearchResponse, as_json: bool) -> None:
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
    with opened(ctx) as mem:
        resp = mem.search(query, max_results=max_results, min_score=min_score, fresh=True, now=now)
        print_response(resp, as_json)


def print_recall(resp: RecallResponse, as_json: bool, explain: bool) -> None:
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
    with opened(ctx) as mem:
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
        print_recall(resp, as_json, explain)


@cli.command()
@click.argument("entity")
@click.option("--depth", type=click.IntRange(1, 4), default=2, show_default=True, help="Relations away.")
@click.option("--as-of", "as_of", help="Relations true on this date (YYYY-MM-DD); default today.")
@click.option("--to", "to", help="Another entity: print the path between the two.")
@click.option("--json", "as_json", is_flag=True, help="Print the memory_graph payload as JSON.")
@click.pass_context
def graph(ctx: click.Context, entity: str, depth: int, as_of: str | None, to: str | None, as_json: bool) -> None:
    """The entities related to ENTITY and the relations between them, each with its source."""
    with opened(ctx) as mem:
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
    with opened(ctx) as mem:
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
@click.option("--json", "as_json", is_flag=True, help="Print the memory_core payload as JSON.")
@click.pass_context
def core(ctx: click.Context, as_json: bool) -> None:
    """Print the core block (MEMORY.md) with its size against core.maxChars."""
    with opened(ctx) as mem:
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
@click.argument("path")
@click.option("--from", "from_line", type=click.IntRange(min=1), help="First line (1-based).")
@click.option("--lines", type=click.IntRange(min=1), help="How many lines.")
@click.pass_context
def get(ctx: click.Context, path: str, from_line: int | None, lines: int | None) -> None:
    """Print a memory file, or LINES lines of it from line FROM."""
    with opened(ctx) as mem:
        click.echo(mem.get(path, from_line=from_line, lines=lines), nl=False)


@cli.command()
@click.option("--budget", type=click.IntRange(50, MAX_COUNT), default=2000, show_default=True, help="Tokens at most.")
@click.option("--query", "-q", help="What the session is about (default: the name of the current folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the parts as JSON (with the text).")
@click.pass_context
def context(ctx: click.Context, budget: int, query: str | None, as_json: bool) -> None:
    """What an agent should see at the start of a session: MEMORY.md, the facts most relevant to the query
    (or the folder), then recent ones, within a token budget, with sources. A session-start hook's output."""
    with opened(ctx) as mem:
        try:
            pack = mem.context(budget=budget, query=query, cwd=Path.cwd())
        except MemlaneError as exc:
            fail(str(exc))
    click.echo(json.dumps(pack.to_dict(), indent=2) if as_json else pack.render(), nl=False)


@cli.command()
@click.option(
    "--style",
    type=click.Choice(["openai", "responses", "anthropic", "json-schema"]),
    default="openai",
    show_default=True,
)
def tools(style: str) -> None:
    """Print the agent tool definitions (memory_search, memory_recall, memory_get, ...)."""
    from ..tools import tool_definitions

    click.echo(json.dumps(tool_definitions(style), indent=2))
