"""The ``memlane`` group, its options (--workspace, --agent, --config, taken after a command too) and
what every command shares: opening the memory, failing with one line."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ...errors import MemlaneError

if TYPE_CHECKING:
    from ...memory import Memory


def fail(message: str) -> NoReturn:
    click.echo(f"memlane: error: {message}", err=True)
    sys.exit(1)


@contextmanager
def opened(ctx: click.Context, **overrides: Any) -> Iterator[Memory]:
    from ...memory import open_memory  # the library loads when a command opens memory, not at start

    opts = ctx.obj
    try:
        with open_memory(opts["workspace"], agent=opts["agent"], config=opts["config"], **overrides) as mem:
            yield mem
    except MemlaneError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; the index is as it was before this run")


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
