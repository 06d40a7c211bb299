"""What every settings model shares, and where memlane keeps its own state."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .home import ENV_DATABASE_URL, ENV_HOME, memlane_home

__all__ = ["ENV_DATABASE_URL", "ENV_HOME", "SettingsModel", "memlane_home"]


# A settings section: camelCase keys as the spec writes them (snake_case accepted too), unknown keys refused,
# frozen once read.
class SettingsModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)
