"""Hosts and views: install, uninstall, mcp, ui, demo."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ...errors import MemlaneError
from ..host_names import HOSTS as INSTALL_HOSTS
from .group import cli, fail, opened
from .indexing import run_index
from .reading import print_recall, print_response

DEMO_WORKSPACE = Path(__file__).parents[2] / "demo"
DEMO_QUERIES = ("which database did we pick and why?", "OPENAI_API_KEY", "周末的计划")
DEMO_RECALL = "what does Dana prefer?"


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
    from ..mcp_server import serve, token_from_file

    with opened(ctx) as mem:
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
    from ...ui import serve
    from ..mcp_server import token_from_file

    with opened(ctx) as mem:
        token = token_from_file(token_file) if token_file is not None else None
        serve(mem, host=host, port=port, token=token, edit=edit, open_browser=open_browser)


def _install(ctx: click.Context, host: str, scope: str, dry_run: bool, as_json: bool, action: str) -> None:
    from ..install import Where, carry_out  # the installer loads when a host is (un)installed
    from ..install import plan as plan_install

    opts = ctx.obj
    with opened(ctx) as mem:
        workspace = mem.workspace
    config_path = Path(opts["config"]).expanduser().resolve() if opts["config"] else None
    where = Where(Path.home(), Path.cwd(), workspace, config_path, agent=opts["agent"])
    try:
        plan = plan_install(host, scope, where, action) if dry_run else carry_out(host, scope, where, action)
    except (MemlaneError, OSError) as exc:
        fail(str(exc))
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
@click.argument("queries", nargs=-1)
@click.pass_context
def demo(ctx: click.Context, queries: tuple[str, ...]) -> None:
    """Index the bundled demo workspace and run a few searches and a recall on it."""
    ctx.obj["workspace"] = ctx.obj["workspace"] or DEMO_WORKSPACE
    if ctx.obj["agent"] is None:
        ctx.obj["agent"] = "demo"
    with opened(ctx) as mem:
        click.echo(f"workspace: {mem.workspace}")
        run_index(mem, force=False, as_json=False)
        for query in queries or DEMO_QUERIES:
            click.echo(click.style(f"\n$ memlane search {query!r}", fg="cyan"))
            print_response(mem.search(query, max_results=3), as_json=False)
        if not queries:
            click.echo(click.style(f"\n$ memlane recall {DEMO_RECALL!r} -k 3", fg="cyan"))
            print_recall(mem.recall(DEMO_RECALL, k=3), as_json=False, explain=False)
