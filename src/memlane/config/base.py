"""What every settings model shares, and where memlane keeps its own state."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

ENV_HOME = "MEMLANE_HOME"
ENV_DATABASE_URL = "MEMLANE_DATABASE_URL"


def memlane_home() -> Path:
    """The directory for memlane's own state: ``$MEMLANE_HOME`` or ``~/.memlane``."""
    raw = os.environ.get(ENV_HOME)
    return Path(raw).expanduser() if raw else Path.home() / ".memlane"


# A settings section: camelCase keys as the spec writes them (snake_case accepted too), unknown keys refused,
# frozen once read.
class SettingsModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)
