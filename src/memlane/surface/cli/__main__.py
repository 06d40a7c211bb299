"""``python -m memlane.surface.cli`` runs the CLI, as it did when the CLI was one module."""

from . import main

main()
