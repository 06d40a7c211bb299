"""``python -m memlane`` runs the CLI."""

from .surface.cli import main

main()
