"""``python -m memlane`` runs the CLI."""

from .cli import main

main()
