"""Where memlane keeps its own state: standard library only, so a starting CLI finds it without loading the
settings models (docs/design/capture.md §47)."""

from __future__ import annotations

import os
from pathlib import Path

ENV_HOME = "MEMLANE_HOME"
ENV_DATABASE_URL = "MEMLANE_DATABASE_URL"


def memlane_home() -> Path:
    """The directory for memlane's own state: ``$MEMLANE_HOME`` or ``~/.memlane``."""
    raw = os.environ.get(ENV_HOME)
    return Path(raw).expanduser() if raw else Path.home() / ".memlane"
