"""The ``memlane`` command: argument parsing and printing only; the work is the library's.

The group and what its commands share are in :mod:`.group`; the commands, one module per group:
:mod:`.indexing` (index, status, doctor, watch, migrate), :mod:`.reading` (search, recall, get, core,
context, graph, timeline, tools), :mod:`.writing` (remember, retain, reflect, archive, backup),
:mod:`.capturing` (capture, import, hook), :mod:`.hosts` (install, uninstall, mcp, ui, demo). Importing
a module registers its commands on the group; ``memlane --help`` lists them by name."""

from __future__ import annotations

import sys

import click

from . import capturing, hosts, indexing, reading, writing  # noqa: F401  (each registers its commands)
from .group import cli


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
